// WaiterScan: the blocked threads that wait on descriptors or kernel objects, looked at without
// changing anything — which could go on now, and whether anything outside the tree could still
// end their waits. The supervisor releases the ready ones (Supervisor::ReleaseReadyWaiters).
#pragma once

#include <poll.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "supervisor/clock.h"
#include "supervisor/fd_probe.h"
#include "supervisor/handlers/handler.h"
#include "supervisor/report/fd_owners.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class WaiterScan {
 public:
  // `services` is what an object's family handler is given to look at its object (`ready`).
  WaiterScan(ThreadTable& threads, FdProbe& fds, HandlerServices& services)
      : threads_(threads), fds_(fds), services_(services) {}

  // The blocked waiters whose descriptors or object are ready now. The vector is the scan's own,
  // valid until the next call: this runs before every decision, and most of the time finds
  // nobody, so nothing is allocated for it.
  const std::vector<Thread*>& FindReady();
  // Whether any thread waits on descriptors, objects or signals: something other than a
  // scheduling decision may end such waits, so they are looked at on every tick.
  bool AnyOnEvents() const;
  // Whether, with no thread able to run, anything outside the tree could still end a wait:
  // input from outside, a signal. If not, that is a deadlock. Looks at who holds the other ends
  // of pipes and sockets, and notes it in each waiter (Thread::waits_on). The verdict is kept
  // while nothing changes — the same count of `dispatches` — for up to a second of `now` (real
  // time), then looked at again.
  bool AnyOnOutside(uint64_t dispatches, MonoNanos now, const TreeScope& scope);
  // After AnyOnOutside: whether some outside wait is for data, not only for a signal or a
  // SIGCONT. Only such waits hold virtual time back: a timer is the likelier end of a pause().
  bool WaitsOnOutsideData() const { return outside_data_; }

 private:
  ThreadTable& threads_;
  FdProbe& fds_;
  HandlerServices& services_;
  // FindReady's working space, kept between calls.
  std::vector<pollfd> batch_;
  std::vector<std::pair<Thread*, size_t>> batched_;  // a waiter, the index of its first entry
  std::vector<Thread*> ready_;
  // The last outside verdict, and when it was judged.
  uint64_t outside_checked_at_ = ~uint64_t{0};  // dispatches then
  MonoNanos outside_checked_time_ = 0;
  bool outside_verdict_ = true;
  bool outside_data_ = true;  // …and some of it is data (input, room, a lock), not only signals
};

}  // namespace chess::supervisor
