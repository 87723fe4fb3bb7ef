// Which signals a thread has pending, blocked, ignored and caught, from /proc/TID/status, and
// which of them would end a wait.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "supervisor/thread_table.h"

namespace chess::supervisor {

struct SignalMasks {
  uint64_t thread_pending = 0;   // SigPnd: sent to this thread
  uint64_t process_pending = 0;  // ShdPnd: sent to its process, any thread may take it
  uint64_t blocked = 0;          // SigBlk
  uint64_t ignored = 0;          // SigIgn
  uint64_t caught = 0;           // SigCgt: a handler is installed

  // Signals that, taken now, would interrupt a wait: not blocked (under `wait`'s own mask when
  // it has one), and not discarded on delivery for being ignored — a traced thread keeps even
  // ignored signals pending, which natively would never have woken it — or awaited by
  // sigtimedwait, blocked or not.
  uint64_t WakingFromThread(const SignalWait* wait) const { return Waking(thread_pending, wait); }
  uint64_t WakingFromProcess(const SignalWait* wait) const { return Waking(process_pending, wait); }

 private:
  uint64_t Waking(uint64_t pending, const SignalWait* wait) const;
};

std::optional<SignalMasks> ReadSignalMasks(pid_t tid);

// The signals a signalfd reports (its sigmask in /proc/TGID/fdinfo/FD), or nullopt when `fd`
// is no signalfd. A signalfd reports the signals pending for the thread that reads or polls it:
// a copy polled by the supervisor would look at the supervisor's own.
std::optional<uint64_t> SignalfdMask(pid_t tgid, int fd);

// The signals the signalfds among the descriptors `wait` polls for input watch now: one pending
// for the poller makes its poll ready, as sigtimedwait's set would (blocked or not). Read when
// needed, never kept: another thread's signalfd4 on one of them, or a close or dup2 over one,
// changes them while the poller waits, and the supervisor traps none of those calls.
uint64_t SignalfdSignals(pid_t tgid, const IoWait& wait);

// Of `signals`, those pending for thread `tid` (sent to it or to its process), blocked or not.
uint64_t PendingOf(pid_t tid, uint64_t signals);

// Whether `signal`, delivered to thread `tid` now, ends its process: its default action does, and
// the process neither catches nor ignores it.
bool EndsProcess(pid_t tid, int signal);

// Whether a signal with this si_code is a fault the kernel forced on the thread (a bad access,
// an illegal instruction, a division by zero; SI_KERNEL: a general protection fault) that
// recurs when the thread is let go without it: it is still at the faulting instruction.
// SIGTRAP is not one: a breakpoint is already behind it.
bool RecursAsFault(int signal, int si_code);

}  // namespace chess::supervisor
