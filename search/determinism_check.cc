#include "search/determinism_check.h"

#include "search/replay_strategy.h"

namespace chess::search {
namespace {

bool SameBehaviour(const SyscallEvent& a, const SyscallEvent& b) {
  return a.thread == b.thread && a.index == b.index && a.syscall == b.syscall && a.exit == b.exit &&
         (a.exit || a.digest == b.digest);
}

bool SameValue(const SyscallEvent& a, const SyscallEvent& b) { return a.result == b.result && a.digest == b.digest; }

}  // namespace

void DeterminismCheck::BeginExecution() {
  ++execution_;
  position_ = 0;
  last_value_difference_.clear();
  last_value_difference_any_.reset();
  first_value_difference_.reset();
  likely_cause_.reset();
  value_differences_ = 0;
  behaviour_difference_.reset();
}

bool DeterminismCheck::Observe(const SyscallEvent& event, const EventContext& context) {
  const size_t position = position_++;
  if (execution_ <= 1) {
    if (reference_.size() < max_events_) {
      reference_.push_back(event);
    } else {
      truncated_ = true;
    }
    return true;
  }
  if (behaviour_difference_) return false;
  if (position >= reference_.size()) {
    if (truncated_) return true;  // past what was kept: not compared
    EndWithBehaviourDifference(event, context);
    return false;
  }
  const SyscallEvent& expected = reference_[position];
  if (!SameBehaviour(expected, event)) {
    EndWithBehaviourDifference(event, context);
    return false;
  }
  if (event.exit && !event.incidental && !SameValue(expected, event)) {
    ++value_differences_;
    Difference difference = Describe(event, context);
    if (!first_value_difference_) first_value_difference_ = difference;
    last_value_difference_any_ = difference;
    last_value_difference_[event.thread] = std::move(difference);
  }
  return true;
}

void DeterminismCheck::EndWithBehaviourDifference(const SyscallEvent& event, const EventContext& context) {
  behaviour_difference_ = Describe(event, context);
  if (auto same_thread = last_value_difference_.find(event.thread); same_thread != last_value_difference_.end()) {
    likely_cause_ = same_thread->second;
  } else {
    likely_cause_ = last_value_difference_any_;
  }
}

Difference DeterminismCheck::Describe(const SyscallEvent& found, const EventContext& context) const {
  Difference difference;
  difference.position = position_ - 1;
  difference.found = found;
  if (difference.position < reference_.size()) {
    difference.expected = reference_[difference.position];
    if (context.symbolize) difference.expected_site = context.symbolize(difference.expected->ip);
  }
  if (context.backtrace) difference.backtrace = context.backtrace();
  return difference;
}

std::optional<Difference> DeterminismCheck::EndedEarly() const {
  if (execution_ <= 1 || behaviour_difference_ || position_ >= reference_.size()) return std::nullopt;
  Difference difference;
  difference.position = position_;
  difference.expected = reference_[position_];
  return difference;
}

std::optional<Difference> CompareExecutions(const std::vector<SyscallEvent>& reference,
                                            const std::vector<SyscallEvent>& later) {
  DeterminismCheck check;
  check.BeginExecution();
  for (const SyscallEvent& event : reference) check.Observe(event, {});
  check.BeginExecution();
  for (const SyscallEvent& event : later) {
    if (!check.Observe(event, {})) break;
  }
  if (check.BehaviourDifference()) return check.LikelyCause() ? check.LikelyCause() : check.BehaviourDifference();
  return check.LastValueDifference();
}

std::string DescribeEvent(const SyscallEvent& event) {
  std::string text = "thread " + std::to_string(event.thread.value) + "'s syscall " + std::to_string(event.index) +
                     ", " + NameSyscall(event.syscall);
  if (!event.target.empty()) text += " of " + event.target;
  if (event.exit) {
    text += ", returned " + std::to_string(event.result);
    if (!event.sample.empty()) text += ": " + event.sample;
  } else if (!event.sample.empty()) {
    text += " with " + event.sample;
  }
  return text;
}

}  // namespace chess::search
