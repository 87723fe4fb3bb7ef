// Reports of one execution: the text a person reads on stderr and the --report JSON.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "supervisor/execution_result.h"

namespace chess::cli {

// Empty for a clean `ok`; otherwise the report, first line naming the outcome.
std::string TextReport(const supervisor::ExecutionResult& result);

// Every thread's state, call and stack, one block per thread.
std::string ThreadStates(const supervisor::ExecutionResult& result);

// Why the execution is stuck: the waits-for cycle of a deadlock, or what each thread of a
// livelock keeps repeating; "" when there is nothing to say.
std::string StuckExplanation(const supervisor::ExecutionResult& result);

class JsonWriter;
// The "waits_for_cycle" and "livelock_cycles" keys and their arrays.
void WriteStuckExplanation(JsonWriter& json, const supervisor::ExecutionResult& result);
// A thread's "waits_for", "waits_for_threads" and "condition_variable" keys.
void WriteWaitsFor(JsonWriter& json, const supervisor::ThreadReport& thread);
// A thread's "frames": one object per frame, innermost first, each with "function", "offset",
// "module", "module_offset", "file", "line" (null where unknown), "inlined" (the functions
// inlined there, innermost first, each {"function", "file", "line"}) and "pc".
void WriteFrames(JsonWriter& json, const std::vector<supervisor::StackFrame>& frames);

// The "schema" of every --report JSON (run, replay, explore). 2: frames are objects with source
// lines, not strings; threads say which condition variable they wait on.
inline constexpr int kReportSchema = 2;

// `atomic_points`: the execution's plan (SupervisorOptions::atomic_points); given, the report has
// an "atomic_points" object.
std::string JsonReport(const supervisor::ExecutionResult& result, const std::string& command,
                       const std::optional<search::AtomicPointPlan>& atomic_points = std::nullopt,
                       const std::function<void(JsonWriter&)>& more = {});

// "0x404040": an address as every report writes one.
std::string Hex(uint64_t value);
// "SIGSEGV" for 11.
std::string SignalName(int signal);
// "1 thread", "3 threads".
std::string Plural(uint64_t count, const std::string& one, const std::string& many);
// "7 µs", "0.003 s", "0.42 s", "12.5 s"; never negative.
std::string Seconds(double seconds);

}  // namespace chess::cli
