// DeterminismCheck: compares what several executions of the same program, with the same seed
// and schedule, saw and did, syscall by syscall, to name what chess-trace does not control.
//
// The first execution is the reference. Each later one is compared as it runs: a syscall's
// entry (which call, and what it writes or names) is behaviour; its result (the return value,
// the bytes it read) is a value. A value that differs is remembered — a pipe's inode number may
// differ without the program caring — and the execution goes on; the first behaviour that
// differs ends the comparison, and the value difference before it, if any, is its likely cause.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/thread_id.h"

namespace chess::search {

// One observation of a syscall by one thread: at its entry, or at its exit when the kernel ran it.
struct SyscallEvent {
  ThreadId thread;
  uint64_t index = 0;    // the thread's syscall count (as a point's index)
  int64_t syscall = -1;
  bool exit = false;
  int64_t result = 0;    // at exit
  uint64_t digest = 0;   // of what matters besides the number: written bytes, paths, bytes read
  std::string sample;    // those bytes or values, shortened, for a person to read
  std::string target;    // the file a descriptor argument names ("/proc/2/stat"), not compared
  bool incidental = false;  // its result may differ for reasons of the check's own making
  uint64_t ip = 0;       // where the thread made the call
};

// What an observer can ask about the thread of the event it is looking at, there and then.
struct EventContext {
  std::function<std::string()> backtrace;                 // the thread's stack, one frame a line
  std::function<std::string(uint64_t ip)> symbolize;      // an address of its process, named
  // rdrand and rdseed sites in the code its process has mapped, one line each.
  std::function<std::vector<std::string>()> untrappable_sites;
};

class SyscallObserver {
 public:
  virtual ~SyscallObserver() = default;
  // Returns false to end the execution now (a difference that matters was found).
  virtual bool Observe(const SyscallEvent& event, const EventContext& context) = 0;
};

// A difference between the reference execution and a later one.
struct Difference {
  uint64_t position = 0;                  // the event's number in its execution
  std::optional<SyscallEvent> expected;   // the reference's event there (none: it had ended)
  SyscallEvent found;
  std::string backtrace;                  // of the later execution's thread, at the event
  std::string expected_site;              // the reference's call site, named
};

class DeterminismCheck final : public SyscallObserver {
 public:
  // At most this many events of the reference are kept; a longer execution is compared only
  // that far (Truncated() says so).
  explicit DeterminismCheck(size_t max_events = 4'000'000) : max_events_(max_events) {}

  // The next execution starts: the first is the reference, each later one is compared to it.
  void BeginExecution();
  bool Observe(const SyscallEvent& event, const EventContext& context) override;

  // The comparison of the current execution so far. The likely cause of a behaviour difference:
  // the last result that differed in the same thread before it, or else the last in any thread.
  const std::optional<Difference>& LikelyCause() const { return likely_cause_; }
  // Results that differed so far (without changing behaviour, unless it is the cause).
  size_t ValueDifferences() const { return value_differences_; }
  const std::optional<Difference>& FirstValueDifference() const { return first_value_difference_; }
  const std::optional<Difference>& LastValueDifference() const { return last_value_difference_any_; }
  const std::optional<Difference>& BehaviourDifference() const { return behaviour_difference_; }
  // The current execution made fewer observed syscalls than the reference: call at its end.
  std::optional<Difference> EndedEarly() const;
  bool Truncated() const { return truncated_; }
  size_t ReferenceEvents() const { return reference_.size(); }

 private:
  Difference Describe(const SyscallEvent& found, const EventContext& context) const;
  void EndWithBehaviourDifference(const SyscallEvent& event, const EventContext& context);

  size_t max_events_;
  int execution_ = 0;  // 1: the reference
  std::vector<SyscallEvent> reference_;
  size_t position_ = 0;
  bool truncated_ = false;
  std::map<ThreadId, Difference> last_value_difference_;  // by thread
  std::optional<Difference> last_value_difference_any_;
  std::optional<Difference> first_value_difference_;
  std::optional<Difference> likely_cause_;
  size_t value_differences_ = 0;
  std::optional<Difference> behaviour_difference_;
};

// Two executions' events compared as the check compares them, `reference` first: the likely
// cause of their parting (the last result that differed before the first behaviour that did,
// or the last result that differed at all), or the first behaviour that differed when no result
// did before it; none when they agree as far as `later` goes.
std::optional<Difference> CompareExecutions(const std::vector<SyscallEvent>& reference,
                                            const std::vector<SyscallEvent>& later);

// One line for a person: "read(…) returned 312 bytes: \"1 (prog) S 0 1 …\"".
std::string DescribeEvent(const SyscallEvent& event);

}  // namespace chess::search
