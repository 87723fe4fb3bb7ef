// EventWaiter: waits for the next ptrace event without ever blocking forever. A blocking
// waitpid is the cheapest wait (one syscall per event), and a periodic timer signal interrupts
// it so the loop can enforce time slices, deadlines and stop requests. The timer is periodic
// because a one-shot tick could fire just before waitpid blocks and be lost.
#pragma once

#include <time.h>

#include <deque>
#include <optional>

#include "search/result.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class EventWaiter {
 public:
  EventWaiter() = default;
  EventWaiter(const EventWaiter&) = delete;
  EventWaiter& operator=(const EventWaiter&) = delete;
  ~EventWaiter();

  // Starts the tick (SIGALRM every `tick_nanos`).
  Result<void> Start(int64_t tick_nanos);
  // Changes the period; a no-op when it is already `tick_nanos`.
  void SetTick(int64_t tick_nanos);

  // The next ptrace event, or nullopt when a tick (or a stop request) interrupted the wait.
  std::optional<ptrace::WaitEvent> Wait();
  // An event taken early, to be handled where the loop handles events: the next Wait or
  // WaitUntil returns it first.
  void PutBack(const ptrace::WaitEvent& event) { put_back_.push_back(event); }

  // Sleeps until `deadline` (CLOCK_MONOTONIC) or a stop request. Returns early on a ptrace
  // event, which is then returned.
  std::optional<ptrace::WaitEvent> WaitUntil(MonoNanos deadline);

 private:
  timer_t timer_{};
  bool started_ = false;
  int64_t tick_nanos_ = 0;
  std::deque<ptrace::WaitEvent> put_back_;
};

// SIGINT, SIGTERM and SIGHUP ask chess-trace to stop: the loop kills the tree and reports.
void InstallStopHandlers();
// The stop signal received, or 0.
int PendingStopSignal();
// Forgets the pending stop signal, so that chess-trace can run one more execution on its way out
// (the trace of the execution a Ctrl-C cut short); a new SIGINT stops that one too.
void ForgetStopSignal();


}  // namespace chess::supervisor
