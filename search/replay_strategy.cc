#include "search/replay_strategy.h"

#include <algorithm>

namespace chess::search {
namespace {

SyscallNamer g_namer = nullptr;

std::string Thread(ThreadId id) { return "thread " + std::to_string(id.value); }

std::string Hex(uint64_t value) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), kDigits[value & 15]);
    value >>= 4;
  } while (value != 0);
  return "0x" + text;
}


std::string Enabled(std::span<const ThreadId> enabled) {
  std::string text;
  for (ThreadId id : enabled) text += (text.empty() ? "" : ", ") + std::to_string(id.value);
  return text.empty() ? "none" : text;
}

}  // namespace

void SetSyscallNamer(SyscallNamer namer) { g_namer = namer; }

std::string DescribePoint(const SchedulingPoint& point, std::string_view object) {
  if (point.op == OpKind::kSyncOp) return "at " + DescribeSyncOp(point, object);
  if (point.op == OpKind::kThreadStart) return "at its start";
  if (point.op == OpKind::kInterrupted) return "interrupted by the backstop";
  if (point.op == OpKind::kFairnessYield) return "giving way in " + NameSyscall(point.syscall);
  if (AtInstruction(point.op)) {
    const char* kind = point.op == OpKind::kRacyAccess ? "at the racing access " : "at the atomic instruction ";
    return kind + Hex(point.instruction) + (point.is_write ? " writing " : " reading ") +
           (object.empty() ? Hex(point.resource) : std::string(object));
  }
  return "in " + NameSyscall(point.syscall);
}


std::string DescribeSyncOp(const SchedulingPoint& point, std::string_view object) {
  const char* what = point.is_release ? "release " : point.is_write ? "acquire " : "read-lock ";
  return what + (object.empty() ? Hex(point.resource) : std::string(object));
}

std::string NameSyscall(int64_t syscall) {
  if (syscall < 0) return "no syscall";
  return g_namer != nullptr ? g_namer(syscall) : "syscall " + std::to_string(syscall);
}

void ReplayStrategy::Diverge(std::string why, const SchedulingContext& context) {
  if (divergence_) return;
  DivergencePoint point;
  point.decision = next_;
  if (next_ < decisions_.size()) point.expected = decisions_[next_];
  point.found_thread = context.current;
  if (context.current) point.found_point = context.point;
  point.message = "decision " + std::to_string(next_) + ": " + std::move(why);
  divergence_ = std::move(point);
}

bool ReplayStrategy::MayInterrupt(ThreadId thread, uint64_t points) const {
  if (next_ >= decisions_.size()) return false;
  const RecordedDecision& expected = decisions_[next_];
  return expected.current == thread && expected.point.op == OpKind::kInterrupted && expected.point.index == points;
}

RecordedDecision Decided(const SchedulingContext& context, ThreadId picked) {
  RecordedDecision decision;
  decision.current = context.current;
  decision.stop = context.current_stop;
  if (context.current) decision.point = context.point;
  decision.picked = picked;
  decision.fired_early = std::find(context.enabled.begin(), context.enabled.end(), picked) == context.enabled.end();
  return decision;
}

std::optional<bool> ReplayStrategy::YieldsAt(ThreadId thread, uint64_t points) const {
  if (next_ >= decisions_.size()) return false;
  const RecordedDecision& expected = decisions_[next_];
  return expected.current == thread && expected.point.op == OpKind::kFairnessYield && expected.point.index == points;
}

ThreadId ReplayStrategy::PickThread(const SchedulingContext& context) {
  const ThreadId fallback = context.enabled.front();
  if (divergence_) return fallback;
  if (next_ >= decisions_.size()) {
    Diverge("the recording ends here, but the program goes on" +
            (context.current ? " (" + Thread(*context.current) + " stopped " + DescribePoint(context.point) + ")" : std::string()),
            context);
    return fallback;
  }
  const RecordedDecision& expected = decisions_[next_];
  if (context.current != expected.current) {
    Diverge("the recording had " + (expected.current ? Thread(*expected.current) : std::string("no thread")) +
            " stopping here, the replay has " + (context.current ? Thread(*context.current) : std::string("none")),
            context);
    return fallback;
  }
  if (context.current) {
    const SchedulingPoint& seen = context.point;
    const bool same_kind = seen.op == expected.point.op ||
                           (seen.op != OpKind::kInterrupted && expected.point.op != OpKind::kInterrupted &&
                            seen.op != OpKind::kThreadStart && expected.point.op != OpKind::kThreadStart);
    if (!same_kind || seen.syscall != expected.point.syscall || seen.index != expected.point.index) {
      Diverge("the recording had " + Thread(*expected.current) + " stopped " + DescribePoint(expected.point) + " (its point " +
              std::to_string(expected.point.index) + "), the replay has it stopped " + DescribePoint(seen) + " (its point " +
              std::to_string(seen.index) + ")",
              context);
      return fallback;
    }
  }
  if (!std::binary_search(context.enabled.begin(), context.enabled.end(), expected.picked) &&
      std::find(context.timed.begin(), context.timed.end(), expected.picked) == context.timed.end()) {
    Diverge("the recording ran " + Thread(expected.picked) + " next, but it cannot run now (can run: " +
            Enabled(context.enabled) + ")",
            context);
    return fallback;
  }
  ++next_;
  return expected.picked;
}

}  // namespace chess::search
