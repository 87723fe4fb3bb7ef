// prctl of seccomp and the TSC: the program's own state, apart from chess-trace's filter and its
// rdtsc trap, answered as the kernel would answer the program natively.
//  - PR_SET_SECCOMP installs a filter of the program's own: the seccomp family's (seccomp.cc).
//  - PR_GET_SECCOMP: SECCOMP_MODE_FILTER once the thread is under a filter of its own, else 0 —
//    chess-trace's filter is not the program's.
//  - PR_SET_TSC, PR_GET_TSC: with virtual time every rdtsc faults for chess-trace to answer; the
//    mode the program asked for is kept per thread, as the kernel keeps it (inherited by new
//    threads and processes, kept across exec), and an rdtsc of a thread that asked for
//    PR_TSC_SIGSEGV gets its SIGSEGV (timestamp_counter.cc). With real time the kernel answers.
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

int Option(const SyscallContext& ctx) { return static_cast<int>(ctx.Arg(0)); }

Disposition PrctlEntry(SyscallContext& ctx) {
  switch (Option(ctx)) {
    case PR_SET_SECCOMP:
      return SeccompHandler().on_entry(ctx);
    case PR_GET_SECCOMP:
      return Disposition::Complete(ctx.thread.filters.Empty() ? 0 : SECCOMP_MODE_FILTER);
    default:
      break;
  }
  if (!ctx.services.Time().IsVirtual()) return Disposition::Native();  // no trap of chess-trace's
  if (Option(ctx) == PR_GET_TSC) {
    const int mode = static_cast<int>(ctx.thread.forced_signal.TimestampCounter());
    return Disposition::Complete(ctx.Memory().Write(ctx.Arg(1), mode) ? 0 : -EFAULT);
  }
  // PR_SET_TSC
  switch (ctx.Arg(1)) {
    case PR_TSC_ENABLE:
      ctx.thread.forced_signal.SetTimestampCounter(TimestampCounterMode::kEnabled);
      return Disposition::Complete(0);
    case PR_TSC_SIGSEGV:
      ctx.thread.forced_signal.SetTimestampCounter(TimestampCounterMode::kFaults);
      return Disposition::Complete(0);
    default:
      return Disposition::Complete(-EINVAL);
  }
}

// Only PR_SET_SECCOMP's entry asks for its exit.
ExitAnswer PrctlExit(SyscallContext& ctx) { return SeccompHandler().on_exit(ctx); }

}  // namespace

FamilyHandler PrctlHandler() { return {.on_entry = PrctlEntry, .on_exit = PrctlExit}; }

}  // namespace chess::supervisor
