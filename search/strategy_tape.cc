#include "search/strategy_tape.h"

namespace chess::search {
namespace {

TapedCall Call(TapedCall::Kind kind, ThreadId thread = {}, uint64_t points = 0) {
  TapedCall call;
  call.kind = kind;
  call.thread = thread;
  call.points = points;
  return call;
}

TapedCall Answered(TapedCall call, bool yes) {
  call.yes = yes;
  return call;
}

}  // namespace

void TapedStrategy::BeginExecution() {
  Inner().BeginExecution();
  if (taping_) Keep(Call(TapedCall::Kind::kBegin));
}

ThreadId TapedStrategy::PickThread(const SchedulingContext& context) {
  const ThreadId picked = Inner().PickThread(context);
  if (taping_) {
    TapedCall call = Call(TapedCall::Kind::kPick);
    call.enabled.assign(context.enabled.begin(), context.enabled.end());
    call.timed.assign(context.timed.begin(), context.timed.end());
    call.current = context.current;
    call.current_stop = context.current_stop;
    call.point = context.point;
    call.thread = picked;
    Keep(std::move(call));
  }
  return picked;
}

std::optional<std::string> TapedStrategy::Divergence() const {
  auto divergence = Inner().Divergence();
  if (taping_) Keep(Answered(Call(TapedCall::Kind::kDivergence), divergence.has_value()));
  return divergence;
}

std::optional<StrategyVerdict> TapedStrategy::Verdict() const {
  auto verdict = Inner().Verdict();
  if (taping_) Keep(Answered(Call(TapedCall::Kind::kVerdict), verdict.has_value()));
  return verdict;
}

bool TapedStrategy::MayInterrupt(ThreadId thread, uint64_t points) const {
  const bool may = Inner().MayInterrupt(thread, points);
  if (taping_) Keep(Answered(Call(TapedCall::Kind::kMayInterrupt, thread, points), may));
  return may;
}

std::optional<bool> TapedStrategy::YieldsAt(ThreadId thread, uint64_t points) const {
  const std::optional<bool> yields = Inner().YieldsAt(thread, points);
  if (taping_) Keep(Answered(Call(TapedCall::Kind::kYieldsAt, thread, points), yields.value_or(false)));
  return yields;
}

bool TapedStrategy::InterruptedBefore(ThreadId thread, uint64_t points) const {
  const bool interrupted = Inner().InterruptedBefore(thread, points);
  if (taping_) Keep(Answered(Call(TapedCall::Kind::kInterruptedBefore, thread, points), interrupted));
  return interrupted;
}

std::optional<std::string> TapedStrategy::Play(const StrategyTape& tape) {
  for (size_t index = 0; index < tape.size(); ++index) {
    if (auto differs = Replay(tape[index])) {
      return "call " + std::to_string(index + 1) + " of the template's prefix: " + *differs;
    }
  }
  return std::nullopt;
}

std::optional<std::string> TapedStrategy::Replay(const TapedCall& call) {
  switch (call.kind) {
    case TapedCall::Kind::kBegin:
      Inner().BeginExecution();
      break;
    case TapedCall::Kind::kPick: {
      SchedulingContext context;
      context.enabled = call.enabled;
      context.timed = call.timed;
      context.current = call.current;
      context.current_stop = call.current_stop;
      context.point = call.point;
      if (Inner().PickThread(context) != call.thread) return "the strategy picked another thread";
      break;
    }
    case TapedCall::Kind::kDivergence:
      if (Inner().Divergence().has_value() != call.yes) return "the strategy diverged";
      break;
    case TapedCall::Kind::kVerdict:
      if (Inner().Verdict().has_value() != call.yes) return "the strategy ended the execution";
      break;
    case TapedCall::Kind::kMayInterrupt:
      if (Inner().MayInterrupt(call.thread, call.points) != call.yes) return "another interrupt";
      break;
    case TapedCall::Kind::kYieldsAt:
      // Left to the caller, it decides as it did: its state is the prefix's.
      if (Inner().YieldsAt(call.thread, call.points).value_or(call.yes) != call.yes) {
        return "another fairness yield";
      }
      break;
    case TapedCall::Kind::kInterruptedBefore:
      if (Inner().InterruptedBefore(call.thread, call.points) != call.yes) return "another interrupt";
      break;
  }
  return std::nullopt;
}

}  // namespace chess::search
