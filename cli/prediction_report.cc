#include "cli/prediction_report.h"

#include "cli/report.h"
#include "cli/search_identity.h"

namespace chess::cli {

std::vector<std::string> PredictionLines(const search::PredictionsResult* predictions, bool tried) {
  std::vector<std::string> lines;
  if (predictions == nullptr) return lines;
  const search::PredictionsResult& p = *predictions;
  if (!p.watched) {
    lines.push_back("prediction: off — the first execution's locks could not be watched (they are seen through the "
                    "preload shim, --sync-points auto or more, and not under --checkpoint)");
    return lines;
  }
  uint64_t confirmed = 0;
  for (const search::PredictedDeadlock& cycle : p.cycles) confirmed += cycle.confirmed_in ? 1 : 0;
  std::string line = "prediction: " + Plural(p.cycles.size(), "lock-order cycle", "lock-order cycles") +
                     (tried ? " predicted from execution " + std::to_string(p.predicted_from) : std::string(" in this run")) + " (" +
                     Plural(p.dependencies, "lock dependency", "lock dependencies") + ")";
  if (!p.cycles.empty() && tried) line += ", " + std::to_string(confirmed) + " confirmed";
  if (p.gated > 0) line += "; " + Plural(p.gated, "cycle", "cycles") + " ruled out by a gate lock held in common";
  if (p.executions > 0) line += "; " + Plural(p.executions, "directed execution", "directed executions");
  lines.push_back(line);
  for (const std::string& program : p.blind) {
    lines.push_back("warning: prediction could not see the locks of " + program +
                    ": it ran several threads and announced no pthread or C11 lock (statically linked, or locks of "
                    "its own, as Go's and Rust's are); a deadlock through them is not predicted");
  }
  if (p.cut_short) {
    lines.push_back("warning: prediction stopped at its budget of lock-order chains: longer cycles may be missing");
  }
  for (const search::PredictedDeadlock& cycle : p.cycles) {
    if (cycle.confirmed_in) continue;
    if (!tried) {
      lines.push_back("warning: potential deadlock (a lock-order cycle another schedule could close): " + cycle.words);
      continue;
    }
    lines.push_back("warning: deadlock predicted, " +
                    (cycle.attempts > 0 ? "not confirmed in " + Plural(cycle.attempts, "directed execution", "directed executions")
                     : cycle.past_limit ? std::string("not tried (past the first 32 cycles, which were)")
                                        : std::string("not tried (the search ended first)")) +
                    ": " + cycle.words);
  }
  return lines;
}

void WritePredictionsJson(JsonWriter& json, const search::PredictionsResult* predictions) {
  json.Key("prediction");
  if (predictions == nullptr) {
    json.Null();
    json.Key("predicted").BeginArray().EndArray();
    return;
  }
  const search::PredictionsResult& p = *predictions;
  json.BeginObject();
  json.Key("watched").Bool(p.watched);
  json.Key("from_execution").Int(static_cast<int64_t>(p.predicted_from));
  json.Key("dependencies").Int(static_cast<int64_t>(p.dependencies));
  json.Key("gated").Int(static_cast<int64_t>(p.gated));
  json.Key("cut_short").Bool(p.cut_short);
  json.Key("untried").Int(static_cast<int64_t>(p.untried));
  json.Key("directed_executions").Int(static_cast<int64_t>(p.executions));
  json.EndObject();
  const auto name = [&](uint64_t address) {
    auto found = p.names.find(address);
    return found != p.names.end() ? found->second : Hex64(address);
  };
  const auto lock = [&](uint64_t address, search::LockMode mode, uint64_t site) {
    json.BeginObject();
    json.Key("lock").String(name(address));
    json.Key("address").String(Hex64(address));
    json.Key("mode").String(mode == search::LockMode::kShared ? "read" : "exclusive");
    json.Key("at").String(name(site));
    json.EndObject();
  };
  json.Key("predicted").BeginArray();
  for (const search::PredictedDeadlock& cycle : p.cycles) {
    json.BeginObject();
    json.Key("cycle").String(cycle.words);
    json.Key("confirmed_in").OptionalInt(cycle.confirmed_in ? std::optional<int64_t>(*cycle.confirmed_in) : std::nullopt);
    json.Key("attempts").Int(static_cast<int64_t>(cycle.attempts));
    json.Key("steps").BeginArray();
    for (const search::LockDependency& step : cycle.cycle.steps) {
      json.BeginObject();
      json.Key("thread").Int(step.thread);
      json.Key("holds").BeginArray();
      for (const search::HeldLock& held : step.held) lock(held.lock, held.mode, held.site);
      json.EndArray();
      json.Key("asks");
      lock(step.lock, step.mode, step.site);
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace chess::cli
