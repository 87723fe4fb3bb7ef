#include "search/liveness_monitor.h"

#include <algorithm>
#include <string>

namespace chess::search {
namespace {

void Mark(std::vector<uint64_t>& marks, ThreadId thread, uint64_t step) {
  if (thread.value >= marks.size()) marks.resize(thread.value + 1, 0);
  marks[thread.value] = step + 1;
}

bool MarkedSince(const std::vector<uint64_t>& marks, size_t thread, uint64_t since) {
  return thread < marks.size() && marks[thread] > since;
}

std::string List(const std::vector<uint32_t>& threads) {
  std::string text;
  for (size_t i = 0; i < threads.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == threads.size() ? " and " : ", ") + std::to_string(threads[i]);
  }
  return text;
}

}  // namespace

bool LivenessMonitor::IsYield(const SchedulingContext& context) {
  return context.current && context.current_stop == StopReason::kYielded &&
         context.point.op != OpKind::kInterrupted && context.point.op != OpKind::kFairnessYield;
}

bool LivenessMonitor::IsSpinInterrupt(const SchedulingContext& context) {
  return context.current && context.current_stop == StopReason::kYielded && context.point.op == OpKind::kInterrupted;
}

uint64_t LivenessMonitor::Window() const {
  const uint64_t window = limits_.window != 0 ? limits_.window : limits_.max_steps / 10;
  return std::max<uint64_t>(1, std::min(window, limits_.max_steps));
}

void LivenessMonitor::Observe(const SchedulingContext& context, std::span<const ThreadId> schedulable,
                              ThreadId picked) {
  if (verdict_) return;
  const uint64_t step = steps_++;
  if (context.current) {
    if (IsYield(context)) Mark(last_yield_, *context.current, step);
    if (IsSpinInterrupt(context)) {
      NoteSpin(context, schedulable);
    } else {
      Mark(last_point_, *context.current, step);
      spins_.erase(context.current->value);
    }
  }
  Mark(last_ran_, picked, step);
  for (auto& [thread, spin] : spins_) spin.owed.Erase(picked);
  if (verdict_) return;
  if (steps_ >= limits_.max_steps) JudgeAtLimit();
}

void LivenessMonitor::NoteSpin(const SchedulingContext& context, std::span<const ThreadId> schedulable) {
  const ThreadId thread = *context.current;
  Spin& spin = spins_[thread.value];
  // The same spot, no other point since, and everyone who could run has run: the thread waits
  // for something no other thread is going to do, without saying so.
  const bool again = spin.interrupts > 0 && spin.owed.Empty() && spin.where == context.point.resource &&
                     !MarkedSince(last_point_, thread.value, spin.at);
  spin.interrupts = again ? spin.interrupts + 1 : 1;
  spin.where = context.point.resource;
  spin.at = steps_ - 1;
  spin.owed = ThreadSet(schedulable);
  spin.owed.Erase(thread);
  if (spin.interrupts < limits_.spin_interrupts) return;
  verdict_ = StrategyVerdict{
      Outcome::kGoodSamaritan,
      "thread " + std::to_string(thread.value) + " was interrupted " + std::to_string(spin.interrupts) +
          " times in a row in the same spot, computing a whole slice each time without a syscall or a sync "
          "operation, while every other thread had its turn: it spins on memory without yielding"};
}

void LivenessMonitor::JudgeAtLimit() {
  const uint64_t window = Window();
  const uint64_t since = steps_ - window;  // decisions [since, steps_) are the window
  std::vector<uint32_t> ran;
  std::vector<uint32_t> not_yielding;
  for (size_t thread = 0; thread < last_ran_.size(); ++thread) {
    if (!MarkedSince(last_ran_, thread, since)) continue;
    ran.push_back(static_cast<uint32_t>(thread));
    if (!MarkedSince(last_yield_, thread, since)) not_yielding.push_back(static_cast<uint32_t>(thread));
  }
  const std::string steps = std::to_string(limits_.max_steps);
  if (not_yielding.empty() && !ran.empty()) {
    verdict_ = StrategyVerdict{Outcome::kLivelock,
                               "a fair schedule passed " + steps + " steps (--max-steps) and thread" +
                                   (ran.size() == 1 ? " " : "s ") + List(ran) + " kept yielding through the last " +
                                   std::to_string(window) + ": nobody makes progress"};
    return;
  }
  verdict_ = StrategyVerdict{Outcome::kStepLimit,
                             "passed " + steps + " steps (--max-steps); not a livelock: thread" +
                                 (not_yielding.size() == 1 ? " " : "s ") + List(not_yielding) +
                                 " ran in the last " + std::to_string(window) + " without yielding"};
}

}  // namespace chess::search
