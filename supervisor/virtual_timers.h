// VirtualTimers: the program's timers in virtual time — ITIMER_REAL (alarm), POSIX timers and
// timerfds, which the timer handler (handlers/timer.cc) arms in each process's record. Coming
// due, alarm and POSIX timers send their signal and a timerfd's kernel count goes up. Periodic
// timers are re-armed; an expiry while the previous signal is still pending counts as an
// overrun, as in the kernel.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "supervisor/fd_probe.h"
#include "supervisor/signal_scan.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class VirtualTimers {
 public:
  VirtualTimers(ThreadTable& threads, FdProbe& fds) : threads_(threads), fds_(fds) {}

  // The earliest expiry of a timer of a live process, if any is armed.
  std::optional<MonoNanos> Earliest() const;
  // Every timer due by `now` expires. The processes sent a signal are noted in `signals`: a
  // thread of theirs may have to leave an emulated wait to take it.
  void FireDue(MonoNanos now, SignalScan& signals);

 private:
  void SendSignal(Process& process, VirtualTimer& timer, SignalScan& signals);
  void ExpireTimerFd(Process& process, int fd, uint64_t expirations);

  ThreadTable& threads_;
  FdProbe& fds_;
};

// How many times `timer` has expired by `now` (0: not due). Every period that passed counts:
// virtual time may jump over many at once. A periodic timer is re-armed for the next period,
// a one-shot one disarmed. A timer that signals sends one signal for them all: the others are
// overruns.
uint64_t Expire(VirtualTimer& timer, MonoNanos now);

// The running thread is stopped delivering a signal: a POSIX timer's gets its overrun count.
void TimerSignalDelivered(Thread& thread);

}  // namespace chess::supervisor
