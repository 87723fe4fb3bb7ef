#include "cli/report.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cli/atomic_point_learning.h"
#include "cli/json_writer.h"
#include "cli/race_points.h"

namespace chess::cli {
namespace {

using search::Outcome;

std::string Headline(const supervisor::ExecutionResult& r) {
  switch (r.outcome) {
    case Outcome::kOk: return "";
    case Outcome::kExitStatus:
      return "exit-status: the program exited with status " + std::to_string(r.exit_status.value_or(-1));
    case Outcome::kSignal:
      return "signal: the program was killed by " + SignalName(r.signal.value_or(0)) +
             (r.signal == SIGABRT ? " (an assertion or abort())" : "");
    case Outcome::kDeadlock:
      return "deadlock: no thread can run and nothing outside the program can wake one";
    case Outcome::kHang:
      return "hang: " + r.message;
    default:
      return std::string(search::OutcomeName(r.outcome)) + (r.message.empty() ? "" : ": " + r.message);
  }
}

}  // namespace

std::string Plural(uint64_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string Seconds(double seconds) {
  if (seconds < 0) seconds = 0;  // a clock read twice across a tiny interval; never "-0.00 s"
  char text[32];
  if (seconds > 0 && seconds < 0.001) {
    std::snprintf(text, sizeof(text), "%.0f µs", seconds * 1e6);
  } else {
    std::snprintf(text, sizeof(text), seconds < 0.0095 ? "%.3f s" : seconds < 10 ? "%.2f s" : "%.1f s", seconds);
  }
  return text;
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

std::string TextReport(const supervisor::ExecutionResult& r) {
  const std::string headline = Headline(r);
  if (headline.empty()) return "";
  std::ostringstream out;
  out << "chess-trace: " << headline << "\n";
  out << "  after " << Plural(r.scheduling_points, "scheduling point", "scheduling points") << ", "
      << Plural(r.threads_created, "thread", "threads") << ", " << Seconds(r.wall_seconds);
  if (r.virtual_seconds > 0) out << " (" << Seconds(r.virtual_seconds) << " of the program's virtual time)";
  out << "\n";
  return out.str() + StuckExplanation(r) + ThreadStates(r);
}

std::string StuckExplanation(const supervisor::ExecutionResult& r) {
  std::ostringstream out;
  // In a deadlock nobody runs, so nobody is left to signal a condition variable: the wakeup the
  // waiter needs was lost (sent before it waited) or never sent.
  for (const supervisor::ThreadReport& t : r.threads) {
    if (r.outcome != Outcome::kDeadlock || !t.condition) continue;
    out << "  lost wakeup: thread " << t.thread << " waits in " << t.condition->call << " on the condition variable "
        << t.condition->name << ", and no thread can signal it: every other thread is blocked or has exited\n";
  }
  if (!r.livelock_cycles.empty()) out << "  what each thread keeps doing (one turn of its cycle):\n";
  for (const supervisor::RepeatedCycle& cycle : r.livelock_cycles) {
    out << "    thread " << cycle.thread << ":\n";
    for (const std::string& step : cycle.steps) out << "      " << step << "\n";
  }
  if (r.waits_for_cycle.empty()) return out.str();
  out << "  waits-for cycle:\n";
  for (const supervisor::WaitStep& step : r.waits_for_cycle) {
    out << "    thread " << step.thread << " (pid " << step.pid << ") in " << step.call << ": waits for "
        << step.waits_for << "\n";
  }
  out << "    … and thread " << r.waits_for_cycle.front().thread << " is where the cycle began\n";
  return out.str();
}

void WriteStuckExplanation(JsonWriter& json, const supervisor::ExecutionResult& r) {
  json.Key("waits_for_cycle").BeginArray();
  for (const supervisor::WaitStep& step : r.waits_for_cycle) {
    json.BeginObject();
    json.Key("thread").Int(step.thread);
    json.Key("pid").Int(step.pid);
    json.Key("call").String(step.call);
    json.Key("waits_for").String(step.waits_for);
    json.Key("next").Int(step.next);
    json.EndObject();
  }
  json.EndArray();
  json.Key("livelock_cycles").BeginArray();
  for (const supervisor::RepeatedCycle& cycle : r.livelock_cycles) {
    json.BeginObject();
    json.Key("thread").Int(cycle.thread);
    json.Key("steps").BeginArray();
    for (const std::string& step : cycle.steps) json.String(step);
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
}

void WriteWaitsFor(JsonWriter& json, const supervisor::ThreadReport& t) {
  json.Key("waits_for").String(t.waits_for);
  json.Key("waits_for_threads").BeginArray();
  for (uint32_t id : t.waits_for_threads) json.Int(id);
  json.EndArray();
  json.Key("condition_variable");
  if (t.condition) {
    json.BeginObject();
    json.Key("address").String(Hex(t.condition->address));
    json.Key("name").String(t.condition->name);
    json.Key("call").String(t.condition->call);
    json.EndObject();
  } else {
    json.Null();
  }
}

void WriteFrames(JsonWriter& json, const std::vector<supervisor::StackFrame>& frames) {
  json.Key("frames").BeginArray();
  for (const supervisor::StackFrame& f : frames) {
    const bool named = !f.function.empty();
    const bool mapped = !f.module.empty();
    const bool located = !f.file.empty() && f.line > 0;
    json.BeginObject();
    json.Key("function");
    named ? json.String(f.function) : json.Null();
    json.Key("offset").OptionalInt(named ? std::optional<int64_t>(static_cast<int64_t>(f.offset)) : std::nullopt);
    json.Key("module");
    mapped ? json.String(f.module) : json.Null();
    json.Key("module_offset")
        .OptionalInt(mapped ? std::optional<int64_t>(static_cast<int64_t>(f.module_offset)) : std::nullopt);
    json.Key("file");
    located ? json.String(f.file) : json.Null();
    json.Key("line").OptionalInt(located ? std::optional<int64_t>(f.line) : std::nullopt);
    json.Key("inlined").BeginArray();
    for (const supervisor::InlinedFunction& inlined : f.inlined) {
      json.BeginObject();
      json.Key("function").String(inlined.function);
      json.Key("file");
      inlined.file.empty() ? json.Null() : json.String(inlined.file);
      json.Key("line").OptionalInt(inlined.line > 0 ? std::optional<int64_t>(inlined.line) : std::nullopt);
      json.EndObject();
    }
    json.EndArray();
    json.Key("pc").String(Hex(f.pc));
    json.EndObject();
  }
  json.EndArray();
}

std::string ThreadStates(const supervisor::ExecutionResult& r) {
  std::ostringstream out;
  for (const supervisor::ThreadReport& t : r.threads) {
    out << "  thread " << t.thread << " (pid " << t.pid << ", tid " << t.tid;
    if (t.host_tid != 0 && t.host_tid != t.tid) out << "; tid " << t.host_tid << " outside its namespace";
    out << ") " << t.state;
    if (!t.call.empty()) out << " in " << t.call;
    if (!t.resource.empty()) out << "  [" << t.resource << "]";
    out << "\n";
    // An I/O wait's resource already says who holds the other end.
    if (!t.waits_for.empty() && t.waits_for != t.resource) out << "      waits for " << t.waits_for << "\n";
    for (size_t i = 0; i < t.frames.size(); ++i) {
      out << "      #" << i << " " << supervisor::FormatFrame(t.frames[i]) << "\n";
    }
  }
  return out.str();
}

std::string JsonReport(const supervisor::ExecutionResult& r, const std::string& command,
                       const std::optional<search::AtomicPointPlan>& atomic_points,
                       const std::function<void(JsonWriter&)>& more) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").Int(kReportSchema);
  json.Key("command").String(command);
  json.Key("outcome").String(search::OutcomeName(r.outcome));
  json.Key("exit_status").OptionalInt(r.exit_status);
  json.Key("signal");
  if (r.signal) {
    json.String(SignalName(*r.signal));
  } else {
    json.Null();
  }
  json.Key("virtual_seconds").Double(r.virtual_seconds);
  json.Key("message").String(r.message);
  json.Key("refused").BeginArray();
  for (const supervisor::RefusedCall& call : r.refused) {
    json.BeginObject();
    json.Key("call").String(call.call);
    const char* error = strerrorname_np(call.error);
    json.Key("error").String(error != nullptr ? error : std::to_string(call.error));
    json.Key("pid").Int(call.pid);
    json.Key("why").String(call.why);
    json.EndObject();
  }
  json.EndArray();
  json.Key("threads").BeginArray();
  for (const supervisor::ThreadReport& t : r.threads) {
    json.BeginObject();
    json.Key("thread").Int(t.thread);
    json.Key("tid").Int(t.tid);
    json.Key("host_tid").Int(t.host_tid);
    json.Key("pid").Int(t.pid);
    json.Key("state").String(t.state);
    json.Key("syscall").String(t.syscall);
    json.Key("call").String(t.call);
    json.Key("resource").String(t.resource);
    WriteWaitsFor(json, t);
    WriteFrames(json, t.frames);
    json.EndObject();
  }
  json.EndArray();
  WriteStuckExplanation(json, r);
  json.Key("scheduling_points").Int(static_cast<int64_t>(r.scheduling_points));
  json.Key("threads_created").Int(static_cast<int64_t>(r.threads_created));
  json.Key("wall_seconds").Double(r.wall_seconds);
  if (auto seen = AtomicPointsSeen::Of(atomic_points, r.atomics)) {
    seen->WriteJson(json);
    // One execution found them: whether flipping one changes the outcome is not known.
    if (seen->races_looked_for) {
      WriteRacesJson(json, seen->races, {});
    } else {
      json.Key("races").Null();
    }
  }
  if (more) more(json);
  json.EndObject();
  return json.str() + "\n";
}

}  // namespace chess::cli
