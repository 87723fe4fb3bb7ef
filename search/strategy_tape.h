// TapedStrategy: passes every call through to a strategy and, while taping, keeps each call with
// its arguments and the answer it got. An execution forked from a template (supervisor/
// fork_server.h) starts where the template's prefix ended without running that prefix again:
// the prefix's calls are played into the new execution's strategy instead, which must answer
// each of them as it did when they were taped — otherwise the fork would not be the execution
// that strategy asked for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/strategy.h"

namespace chess::search {

struct TapedCall {
  enum class Kind : uint8_t { kBegin, kPick, kDivergence, kVerdict, kMayInterrupt, kYieldsAt, kInterruptedBefore };
  Kind kind = Kind::kBegin;
  // kPick: the situation.
  std::vector<ThreadId> enabled;
  std::vector<ThreadId> timed;
  std::optional<ThreadId> current;
  StopReason current_stop = StopReason::kReachedPoint;
  SchedulingPoint point;
  // The queries' arguments; kPick's answer is `thread`.
  ThreadId thread;
  uint64_t points = 0;
  // The answers: kMayInterrupt and kInterruptedBefore in `yes`; kDivergence and kVerdict in
  // `yes` (whether there was one); kYieldsAt in `yes` as the caller resolved it (Resolved): a
  // strategy that leaves it to the caller (nullopt) and one that answers what the caller would
  // have decided ask for the same execution.
  bool yes = false;
};

using StrategyTape = std::vector<TapedCall>;

class TapedStrategy final : public ForwardingStrategy {
 public:
  explicit TapedStrategy(Strategy& inner) : ForwardingStrategy(inner) {}

  // Starts or stops keeping calls; stopping keeps what was taped.
  void Tape(bool on) { taping_ = on; }
  bool Taping() const { return taping_; }
  const StrategyTape& Taped() const { return tape_; }
  void Forget() { tape_.clear(); }

  // The caller's decision on the last YieldsAt, when the strategy left it to the caller.
  void Resolved(bool yields) {
    if (taping_ && !tape_.empty() && tape_.back().kind == TapedCall::Kind::kYieldsAt) tape_.back().yes = yields;
  }

  // Plays `tape` into the strategy this one passes calls to (not taped again). Returns why the
  // strategy answered a call otherwise than on the tape, or nullopt when every answer matched.
  std::optional<std::string> Play(const StrategyTape& tape);

  void BeginExecution() override;
  ThreadId PickThread(const SchedulingContext& context) override;
  std::optional<std::string> Divergence() const override;
  std::optional<StrategyVerdict> Verdict() const override;
  bool MayInterrupt(ThreadId thread, uint64_t points) const override;
  std::optional<bool> YieldsAt(ThreadId thread, uint64_t points) const override;
  bool InterruptedBefore(ThreadId thread, uint64_t points) const override;

 private:
  // Called only while taping: a call is not built otherwise (the queries are asked at every
  // syscall).
  void Keep(TapedCall call) const { tape_.push_back(std::move(call)); }
  // One taped call made again: how the strategy's answer differs, or nullopt.
  std::optional<std::string> Replay(const TapedCall& call);

  bool taping_ = false;
  // Queries are const on Strategy; what they answered is still part of the tape.
  mutable StrategyTape tape_;
};

}  // namespace chess::search
