#include "search/focus.h"

#include <algorithm>

namespace chess::search {

FocusedChoices NarrowToFocus(const SchedulingContext& context, const std::function<bool(ThreadId)>& focused) {
  FocusedChoices choices;
  const auto enabled_now = [&](ThreadId thread) {
    return std::find(context.enabled.begin(), context.enabled.end(), thread) != context.enabled.end();
  };
  // An unfocused thread that stopped at a point and can go on does: no preemption of it.
  if (context.current && context.current_stop == StopReason::kReachedPoint && !focused(*context.current) &&
      enabled_now(*context.current)) {
    choices.enabled.push_back(*context.current);
    return choices;
  }
  bool representative = false;  // the first unfocused thread stands for all of them
  for (ThreadId thread : context.enabled) {
    if (focused(thread)) {
      choices.enabled.push_back(thread);
    } else if (!representative) {
      choices.enabled.push_back(thread);
      representative = true;
    }
  }
  for (ThreadId thread : context.timed) {
    if (focused(thread)) choices.timed.push_back(thread);
  }
  return choices;
}

}  // namespace chess::search
