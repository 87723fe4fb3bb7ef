// SignalScan: which parked threads have a signal pending that would end their wait. The kernel
// does not deliver a signal to a thread stopped by its tracer, so a thread parked in an emulated
// wait (futex, sleep, wait4, a read…) would hold it until its wait ended, or forever. The scan
// notes the processes a signal may have reached — named by a signal-sending syscall, a child's
// exit, a timer — and looks at their parked threads at the next decision; and at every process
// now and then, for signals from outside the tree. The supervisor releases the threads it finds
// (Supervisor::ReleaseThreadsWithPendingSignals).
#pragma once

#include <sys/types.h>

#include <set>
#include <vector>

#include "supervisor/clock.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class SignalScan {
 public:
  // How often every process is looked at, for signals from outside the tree.
  static constexpr MonoNanos kFullScanInterval = 100'000'000;

  // A parked thread that takes a pending signal, and whether a handler catches one of those
  // that end its wait.
  struct Taker {
    Thread* thread;
    bool caught;
  };

  explicit SignalScan(ThreadTable& threads) : threads_(threads) {}

  // A signal-sending syscall of `sender` was made for `pid`, as the sender names it — in its
  // own pid namespace (a thread's id when `thread`; 0, a group or a pid outside the tree: every
  // process is looked at).
  void SignalSent(pid_t pid, bool thread, const Process& sender);
  // Process `tgid` (chess-trace's pid) may have a signal pending: a SIGCHLD, a timer's, or one
  // that a wait's own mask lets through.
  void MayHaveSignal(pid_t tgid) { noted_.insert(tgid); }
  // Every process is looked at, at the next decision.
  void LookAtAll() { all_noted_ = true; }
  // Whether nothing is noted for the next decision.
  bool NothingNoted() const { return noted_.empty() && !all_noted_; }

  // The threads parked in an emulated wait that a signal pending now would make leave it: of the
  // noted processes, or of every process when all are noted or a full scan is due by `now`
  // (real time). A process-directed signal needs one thread that takes it: the first will do.
  // The notes are then forgotten. `from_tick`: called while a thread runs, when only the full
  // scan is made and the notes are kept for the next decision (the signal-sending call may not
  // have reached the kernel yet). The vector is the scan's own, valid until the next call.
  const std::vector<Taker>& FindTakers(MonoNanos now, bool from_tick);

 private:
  ThreadTable& threads_;
  std::set<pid_t> noted_;  // processes (or threads' processes) that may have a signal pending
  bool all_noted_ = false;
  MonoNanos next_full_scan_ = 0;
  // FindTakers' working space, kept between calls.
  std::vector<Taker> takers_;
  std::vector<pid_t> process_signal_taken_;  // processes whose process-directed signal has a taker
};

}  // namespace chess::supervisor
