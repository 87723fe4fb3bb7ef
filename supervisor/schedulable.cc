#include "supervisor/schedulable.h"

namespace chess::supervisor {
namespace {

bool Blocked(const Thread& thread) { return thread.state == ThreadState::kBlocked; }

}  // namespace

bool Schedulable(const Thread& thread) {
  return !thread.process->dying &&
         (thread.state == ThreadState::kReady || thread.state == ThreadState::kExternal);
}

std::vector<search::ThreadId> EnabledThreads(const ThreadTable& threads) {
  std::vector<search::ThreadId> enabled;
  for (const auto& [id, thread] : threads.Live()) {
    if (Schedulable(*thread)) enabled.push_back(thread->id);
  }
  return enabled;
}

bool AnyOtherSchedulable(const ThreadTable& threads, const Thread& thread) {
  for (const auto& [id, other] : threads.Live()) {
    if (other != &thread && Schedulable(*other)) return true;
  }
  return false;
}

std::vector<search::ThreadId> TimedThreads(const ThreadTable& threads) {
  std::vector<search::ThreadId> timed;
  for (const auto& [id, thread] : threads.Live()) {
    if (Blocked(*thread) && thread->wait && thread->wait->deadline && !thread->process->dying) {
      timed.push_back(thread->id);
    }
  }
  return timed;
}

bool AnyDeadline(const ThreadTable& threads) {
  for (const auto& [id, thread] : threads.Live()) {
    if (Blocked(*thread) && thread->wait && thread->wait->deadline) return true;
  }
  return false;
}

}  // namespace chess::supervisor
