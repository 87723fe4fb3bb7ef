#include "cli/merge_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "cli/execution.h"
#include "cli/explore_report.h"
#include "cli/exit_codes.h"
#include "cli/json_writer.h"
#include "cli/messages.h"
#include "cli/report.h"
#include "cli/search_identity.h"
#include "search/shard.h"

namespace chess::cli {
namespace {

bool Exists(const std::string& path) {
  struct stat info{};
  return stat(path.c_str(), &info) == 0;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// A trace as a shard's report names it: relative to where that explore ran, which is often where
// its report is too (a CI artifact, a volume).
void LocateTrace(const std::string& report_path, const std::string& named, MergedBug& bug) {
  bug.trace = named;
  if (named.empty()) {
    bug.trace_problem = "its shard saved no trace";
    return;
  }
  if (Exists(named)) return;
  if (named.front() != '/') {
    const std::string beside = DirectoryOf(report_path) + "/" + named;
    if (Exists(beside)) {
      bug.trace = beside;
      return;
    }
  }
  bug.trace_problem = "not found here (the path its shard's report gives)";
}

uint64_t ParseHex64(const std::string& text) {
  uint64_t value = 0;
  for (char c : text) {
    value <<= 4;
    if (c >= '0' && c <= '9') value |= static_cast<uint64_t>(c - '0');
    if (c >= 'a' && c <= 'f') value |= static_cast<uint64_t>(c - 'a' + 10);
  }
  return value;
}

const JsonValue* Search(const JsonValue& report) {
  const JsonValue* search = report.Find("search");
  return search != nullptr && search->kind() == JsonValue::Kind::kObject ? search : nullptr;
}

// "their strategy differs (pb, pct), their executable differs (…)": why two reports are not
// parts of one search.
std::string Differences(const JsonValue& a, const JsonValue& b) {
  const JsonValue* identity_a = Search(a)->Find("identity");
  const JsonValue* identity_b = Search(b)->Find("identity");
  std::vector<std::string> differ;
  if (identity_a != nullptr && identity_b != nullptr) {
    // Every field either has: an argument file one of them names and the other does not, too.
    std::vector<std::string> fields = identity_a->Keys();
    for (const std::string& key : identity_b->Keys()) {
      if (std::find(fields.begin(), fields.end(), key) == fields.end()) fields.push_back(key);
    }
    for (const std::string& field : fields) {
      const JsonValue* left = identity_a->Find(field);
      const JsonValue* right = identity_b->Find(field);
      const std::string shown_left = left != nullptr ? left->String() : "absent";
      const std::string shown_right = right != nullptr ? right->String() : "absent";
      if (shown_left != shown_right) differ.push_back(field + " (`" + shown_left + "`, `" + shown_right + "`)");
    }
  }
  if (differ.empty()) return "their search digests differ";
  std::string text = "they differ in ";
  for (size_t i = 0; i < differ.size(); ++i) text += (i == 0 ? "" : ", ") + differ[i];
  return text;
}

// Why a shard did not finish its part, or nothing when it did. `sampling`: pct or random alone,
// whose part is its budget of samples.
std::string Unfinished(const JsonValue& report, bool sampling) {
  const std::string stopped = report.StringAt("stopped_by");
  if (stopped == "bound-explored" || stopped == "exhausted") return {};
  if (sampling && (stopped == "max-executions" || stopped == "time-limit")) return {};
  // A portfolio's sampling never ends: it stops at a limit once its pb has covered its part.
  const JsonValue* coverage = report.Find("coverage");
  const bool covered = coverage != nullptr && coverage->Find("complete") != nullptr && coverage->Find("complete")->Bool();
  if (covered && (stopped == "max-executions" || stopped == "time-limit")) return {};
  if (stopped == "bug") return "it stopped at its first bug (--keep-going searches on)";
  if (stopped == "max-executions") return "it stopped at --max-executions before its part was covered";
  if (stopped == "time-limit") return "it stopped at --time-limit before its part was covered";
  if (stopped == "interrupted") {
    const std::string signal = report.StringAt("interrupted_by");
    return "it was interrupted" + (signal.empty() ? std::string() : " (" + signal + ")");
  }
  if (stopped == "pruned") return "branches it could not follow were pruned: " + report.StringAt("message");
  if (stopped == "error" || stopped == "unsupported") return "it failed: " + report.StringAt("message");
  return "it ended `" + stopped + "`";
}

std::string ShardName(uint32_t index, uint32_t count) { return std::to_string(index) + "/" + std::to_string(count); }

std::string Unit(bool delays, int64_t count) {
  return Plural(static_cast<uint64_t>(count), delays ? "delay" : "preemption", delays ? "delays" : "preemptions");
}

std::string AtMost(bool delays, int64_t bound) {
  return bound == 0 ? (delays ? "no delay" : "no preemption") : "≤ " + Unit(delays, bound);
}

std::string IndexList(const std::vector<uint32_t>& indices, uint32_t count) {
  std::string text;
  for (size_t i = 0; i < indices.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == indices.size() ? " and " : ", ") + ShardName(indices[i], count);
  }
  return text;
}

}  // namespace

Result<MergedSearch> MergeShardReports(const std::vector<ShardReportFile>& files) {
  if (files.empty()) return Error{"no reports given"};
  MergedSearch merged;
  const ShardReportFile* first = nullptr;
  std::map<uint32_t, const ShardReportFile*> by_index;
  for (const ShardReportFile& file : files) {
    const JsonValue* search = Search(file.report);
    if (file.report.StringAt("command") != "explore" || search == nullptr) {
      return Error{file.path + ": not the report of `chess-trace explore --report` with a \"search\" object (one of an "
                               "older chess-trace, or of another command)"};
    }
    const JsonValue* shard = search->Find("shard");
    const std::optional<int64_t> index = shard != nullptr ? shard->IntAt("index") : std::nullopt;
    const std::optional<int64_t> count = shard != nullptr ? shard->IntAt("count") : std::nullopt;
    if (!index || !count || *count < 1 || *count > search::kMaxShards || *index < 1 || *index > *count) {
      return Error{file.path + ": its \"search\".\"shard\" is not I/N with 1 ≤ I ≤ N"};
    }
    if (first == nullptr) {
      first = &file;
      merged.count = static_cast<uint32_t>(*count);
      merged.digest = search->StringAt("digest");
    } else if (*count != merged.count) {
      return Error{file.path + " is a shard of " + std::to_string(*count) + ", " + first->path + " of " +
                   std::to_string(merged.count) + ": not parts of one search"};
    } else if (search->StringAt("digest") != merged.digest) {
      return Error{file.path + " and " + first->path + " are not parts of one search: " +
                   Differences(first->report, file.report)};
    }
    const uint32_t i = static_cast<uint32_t>(*index);
    if (auto seen = by_index.find(i); seen != by_index.end()) {
      const JsonValue& a = seen->second->report;
      const JsonValue& b = file.report;
      const bool same = a.IntAt("executions") == b.IntAt("executions") &&
                        Search(a)->StringAt("schedules_digest") == Search(b)->StringAt("schedules_digest") &&
                        a.StringAt("stopped_by") == b.StringAt("stopped_by");
      if (!same) {
        return Error{"shard " + ShardName(i, merged.count) + " twice, with different results: " + seen->second->path +
                     " and " + file.path};
      }
      merged.notes.push_back("shard " + ShardName(i, merged.count) + " given twice (" + seen->second->path + ", " +
                             file.path + "): counted once");
      continue;
    }
    by_index.emplace(i, &file);
  }
  const JsonValue* identity = Search(first->report)->Find("identity");
  merged.strategy = identity != nullptr ? identity->StringAt("strategy") : "";
  merged.seed = identity != nullptr ? identity->StringAt("seed") : "";
  if (const JsonValue* coverage = first->report.Find("coverage")) {
    // db's coverage is told in delays.
    merged.delays = coverage->IntAt("delay_bound").has_value();
    merged.preemption_bound = coverage->IntAt(merged.delays ? "delay_bound" : "preemption_bound").value_or(0);
  }
  const bool sampling = merged.strategy == "pct" || merged.strategy == "random";
  for (uint32_t i = 1; i <= merged.count; ++i) {
    if (!by_index.contains(i)) merged.missing.push_back(i);
  }
  std::optional<int64_t> split_depth;
  std::string split_trunk;
  uint32_t split_depth_shard = 0;
  std::map<std::string, MergedBug> bugs;  // by signature
  std::set<std::string> warnings;
  for (const auto& [index, file] : by_index) {
    const JsonValue& report = file->report;
    const JsonValue* search = Search(report);
    merged.present.push_back(index);
    merged.executions += static_cast<uint64_t>(report.IntAt("executions").value_or(0));
    merged.replayed_prefixes += static_cast<uint64_t>(search->IntAt("replayed_prefixes").value_or(0));
    merged.schedules_digest += ParseHex64(search->StringAt("schedules_digest"));
    if (const JsonValue* coverage = report.Find("coverage")) {
      merged.schedules += static_cast<uint64_t>(coverage->IntAt("schedules").value_or(0));
      merged.sampled += static_cast<uint64_t>(coverage->IntAt("sampled").value_or(0));
      if (const std::optional<int64_t> bound = coverage->IntAt("bound_completed")) {
        merged.bound_completed = std::max(merged.bound_completed.value_or(0), *bound);
      }
      if (!coverage->Find("exhausted") || !coverage->Find("exhausted")->Bool()) merged.exhausted = false;
    }
    if (const std::string why = Unfinished(report, sampling); !why.empty()) merged.incomplete.emplace_back(index, why);
    // Every shard dealt the same work below the same trunk, or the parts need not add up.
    const int64_t depth = search->Find("shard")->IntAt("split_depth").value_or(0);
    const std::string trunk = std::to_string(depth) + ":" + search->StringAt("trunk_digest") + ":" +
                              std::to_string(search->IntAt("pct_k").value_or(0));
    const bool dealt = depth > 0 || search->IntAt("pct_k").value_or(0) > 0;  // pb's trunk, pct's first sample
    if (dealt && !split_depth) {
      split_depth = depth;
      split_trunk = trunk;
      split_depth_shard = index;
    } else if (dealt && trunk != split_trunk) {
      merged.incomplete.emplace_back(
          index, "its first executions (the trunk every shard runs before its part) differed from shard " +
                     ShardName(split_depth_shard, merged.count) +
                     "'s: the program does something chess-trace does not control (chess-trace run "
                     "--check-determinism), so the parts may overlap or leave gaps");
    }
    if (const JsonValue* spots = report.Find("warnings")) {
      for (const JsonValue& spot : spots->Items()) warnings.insert(spot.String());
    }
    if (const JsonValue* found = report.Find("bugs")) {
      for (const JsonValue& item : found->Items()) {
        MergedBug bug;
        bug.shard = index;
        bug.outcome = item.StringAt("outcome");
        bug.signature = item.StringAt("signature");
        if (bug.signature.empty()) bug.signature = bug.outcome + "\n" + item.StringAt("message");
        bug.execution = item.IntAt("execution").value_or(0);
        bug.preemptions = item.IntAt("preemptions").value_or(0);
        bug.message = item.StringAt("message");
        LocateTrace(file->path, item.StringAt("trace"), bug);
        auto [kept, fresh] = bugs.emplace(bug.signature, bug);
        if (!fresh && std::tie(bug.preemptions, bug.shard, bug.execution) <
                          std::tie(kept->second.preemptions, kept->second.shard, kept->second.execution)) {
          kept->second = bug;
        }
      }
    }
  }
  if (!merged.Complete()) merged.bound_completed.reset();
  merged.warnings.assign(warnings.begin(), warnings.end());
  for (auto& [signature, bug] : bugs) merged.bugs.push_back(std::move(bug));
  std::sort(merged.bugs.begin(), merged.bugs.end(), [](const MergedBug& a, const MergedBug& b) {
    return std::tie(a.preemptions, a.shard, a.execution) < std::tie(b.preemptions, b.shard, b.execution);
  });
  return merged;
}

std::string MergedCoverageSentence(const MergedSearch& m) {
  const std::string shards = Plural(m.present.size(), "shard", "shards");
  const std::string over = m.warnings.empty() ? "" : " at the points they could see";
  std::string text;
  if (m.strategy == "pct" || m.strategy == "random") {
    text = Plural(m.sampled, "schedule", "schedules") + " sampled by " + m.strategy + " from seed " + m.seed + " by " +
           shards + "; a random search covers no set of schedules for certain (--strategy pb does)";
  } else if (m.Complete() && m.bound_completed) {
    const uint64_t bounded = m.schedules - m.sampled;
    text = m.exhausted ? (m.warnings.empty() ? "all " : "") + Plural(bounded, "schedule", "schedules") + " explored" +
                             over + " (none needs more than " + Unit(m.delays, *m.bound_completed) + ")"
                       : (m.warnings.empty() ? "all " : "") + Plural(bounded, "schedule", "schedules") + " with " +
                             AtMost(m.delays, m.preemption_bound) + " explored" + over;
    text += " by " + shards;
    if (m.sampled > 0) text += "; and " + Plural(m.sampled, "schedule", "schedules") + " sampled by pct and random";
  } else {
    text = Plural(m.schedules, "schedule", "schedules") + " run by the " + shards +
           " that ran; the schedules with " + AtMost(m.delays, m.preemption_bound) + " are not all covered";
  }
  if (!m.missing.empty()) {
    text += "; " + Plural(m.missing.size(), "shard", "shards") + " missing (" + IndexList(m.missing, m.count) +
            "): " + (m.missing.size() == 1 ? "its" : "their") + " part of the search was not run";
  }
  if (m.replayed_prefixes > 0) {
    text += "; " + Plural(m.replayed_prefixes, "execution", "executions") +
            " replayed by shards to branch from another's part (not counted)";
  }
  return text;
}

std::string MergedTextReport(const MergedSearch& m) {
  std::ostringstream out;
  if (!m.bugs.empty()) {
    const MergedBug& bug = m.bugs.front();
    out << "chess-trace merge: BUG: " << bug.outcome << " found by shard " << ShardName(bug.shard, m.count)
        << " in its execution " << bug.execution << " with " << Plural(static_cast<uint64_t>(bug.preemptions), "preemption", "preemptions")
        << "\n";
    for (const MergedBug& each : m.bugs) {
      if (&each != &bug) {
        out << "  also: " << each.outcome << " found by shard " << ShardName(each.shard, m.count) << " in its execution "
            << each.execution << " with " << Plural(static_cast<uint64_t>(each.preemptions), "preemption", "preemptions") << "\n";
      }
      if (!each.message.empty()) out << "    " << each.message << "\n";
      if (each.trace_problem.empty()) {
        out << "    trace: " << each.trace << "\n    replay it: " << ReplayCommand(each.trace) << "\n";
      } else {
        out << "    trace: " << (each.trace.empty() ? "none" : each.trace) << " — " << each.trace_problem << "\n";
      }
    }
    if (!m.missing.empty()) out << "  note: the first bug of the shards that ran; the missing ones may hold others\n";
    out << "  searched: " << MergedCoverageSentence(m) << "\n";
  } else if (m.Complete()) {
    out << "chess-trace merge: no bug: " << MergedCoverageSentence(m) << "\n";
  } else {
    out << "chess-trace merge: no bug found, but the search is not complete:\n";
    for (uint32_t index : m.missing) out << "  shard " << ShardName(index, m.count) << ": missing\n";
    for (const auto& [index, why] : m.incomplete) out << "  shard " << ShardName(index, m.count) << ": " << why << "\n";
    out << "  searched: " << MergedCoverageSentence(m) << "\n";
  }
  for (const std::string& warning : m.warnings) out << "  not seen: " << warning << "\n";
  for (const std::string& note : m.notes) out << "  note: " << note << "\n";
  out << "  " << Plural(m.present.size(), "shard", "shards") << " of " << m.count << ": "
      << Plural(m.executions, "execution", "executions") << " (and " << m.replayed_prefixes
      << " replayed), schedules digest " << Hex64(m.schedules_digest) << "\n";
  return out.str();
}

std::string MergedJsonReport(const MergedSearch& m) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").Int(2);
  json.Key("command").String("merge");
  json.Key("outcome").String(!m.bugs.empty() ? m.bugs.front().outcome : m.Complete() ? "none" : "incomplete");
  json.Key("complete").Bool(m.Complete());
  json.Key("message").String(MergedCoverageSentence(m));
  json.Key("search").BeginObject();
  json.Key("digest").String(m.digest);
  json.Key("shards").Int(m.count);
  json.Key("strategy").String(m.strategy);
  json.Key(m.delays ? "delay_bound" : "preemption_bound").Int(m.preemption_bound);
  json.Key("bound_completed").OptionalInt(m.bound_completed);
  json.Key("exhausted").Bool(m.Complete() && m.exhausted);
  json.EndObject();
  json.Key("executions").Int(static_cast<int64_t>(m.executions));
  json.Key("replayed_prefixes").Int(static_cast<int64_t>(m.replayed_prefixes));
  json.Key("schedules").Int(static_cast<int64_t>(m.schedules));
  json.Key("sampled").Int(static_cast<int64_t>(m.sampled));
  json.Key("schedules_digest").String(Hex64(m.schedules_digest));
  json.Key("present").BeginArray();
  for (uint32_t index : m.present) json.Int(index);
  json.EndArray();
  json.Key("missing").BeginArray();
  for (uint32_t index : m.missing) json.Int(index);
  json.EndArray();
  json.Key("incomplete").BeginArray();
  for (const auto& [index, why] : m.incomplete) {
    json.BeginObject();
    json.Key("shard").Int(index);
    json.Key("why").String(why);
    json.EndObject();
  }
  json.EndArray();
  json.Key("bugs").BeginArray();
  for (const MergedBug& bug : m.bugs) {
    json.BeginObject();
    json.Key("shard").Int(bug.shard);
    json.Key("outcome").String(bug.outcome);
    json.Key("signature").String(bug.signature);
    json.Key("execution").Int(bug.execution);
    json.Key("preemptions").Int(bug.preemptions);
    json.Key("message").String(bug.message);
    json.Key("trace").String(bug.trace);
    json.Key("trace_problem").String(bug.trace_problem);
    json.Key("replay_command");
    if (bug.trace_problem.empty()) {
      json.String(ReplayCommand(bug.trace));
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
  json.Key("warnings").BeginArray();
  for (const std::string& warning : m.warnings) json.String(warning);
  json.EndArray();
  json.Key("notes").BeginArray();
  for (const std::string& note : m.notes) json.String(note);
  json.EndArray();
  json.EndObject();
  return json.str() + "\n";
}

int MergeExitCode(const MergedSearch& merged) {
  if (!merged.bugs.empty()) return kExitBug;
  return merged.Complete() ? 0 : kExitIncomplete;
}

CLI::App* AddMergeCommand(CLI::App& app, MergeOptions& options) {
  CLI::App* merge = app.add_subcommand(
      "merge",
      "Combine the reports of the shards of one search (`chess-trace explore --shard I/N --report FILE`, run on N "
      "machines or processes) into one verdict: every shard's bugs, each once, with its trace; what the shards "
      "covered together; which shards are missing or did not finish their part. The reports must come from the same "
      "program (its command, executable and argument files, stdin) and the same search options; the environment may "
      "differ. Exit status: 0 no bug and every shard finished its part, 1 a bug, 2 no bug but the search is not "
      "complete (a shard missing, failed or stopped early), 125 reports of different searches, unreadable, or not "
      "explore reports");
  merge->add_option("REPORT", options.reports,
                    "The shards' --report files: give a pattern (shard-*.json), so that a missing shard is named "
                    "rather than an unreadable file")
      ->type_name("REPORT")
      ->required()
      ->expected(1, -1);
  merge->add_option("--report", options.report_path, "Write the merged verdict as JSON to FILE")->type_name("FILE");
  return merge;
}

int MergeCommand(const MergeOptions& options) {
  Messages messages;
  if (!options.report_path.empty()) {
    if (auto checked = CheckFileDestination("--report", options.report_path); !checked) {
      messages.Say(checked.error());
      return kExitError;
    }
  }
  std::vector<ShardReportFile> files;
  for (const std::string& path : options.reports) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      messages.Say(path + ": cannot read it");
      return kExitError;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Result<JsonValue> parsed = JsonValue::Parse(text);
    if (!parsed) {
      messages.Say(path + ": not JSON: " + parsed.error());
      return kExitError;
    }
    files.push_back({path, std::move(*parsed)});
  }
  Result<MergedSearch> merged = MergeShardReports(files);
  if (!merged) {
    messages.Say(merged.error());
    return kExitError;
  }
  messages.Raw(MergedTextReport(*merged));
  if (!options.report_path.empty()) {
    std::string error;
    if (!WriteFileAtomically(options.report_path, MergedJsonReport(*merged), error)) {
      messages.Say(error);
      return kExitError;
    }
  }
  return MergeExitCode(*merged);
}

}  // namespace chess::cli
