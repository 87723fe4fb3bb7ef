// Living with the program's own seccomp filters (sandbox.h): their copies and what they answer,
// the preload shim's hypercall traps, and telling chess-trace's interference from the
// program's bugs.
#include "supervisor/sandbox.h"

#include <linux/seccomp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include <cerrno>
#include <utility>

#include "seccomp/arch.h"
#include "seccomp/hypercall_abi.h"
#include "supervisor/invariant.h"
#include "supervisor/supervisor.h"
#include "supervisor/world/fork_server.h"

namespace chess::supervisor {
namespace {

// The clocks the x86_64 vDSO reads without a syscall (arch/x86/include/asm/vdso/gettimeofday.h:
// the high-resolution and coarse ones); for the others the vDSO makes the syscall itself.
const char* VdsoClockName(uint64_t clock) {
  switch (static_cast<clockid_t>(clock)) {
    case CLOCK_REALTIME: return "CLOCK_REALTIME";
    case CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
    case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
    case CLOCK_REALTIME_COARSE: return "CLOCK_REALTIME_COARSE";
    case CLOCK_MONOTONIC_COARSE: return "CLOCK_MONOTONIC_COARSE";
    case CLOCK_BOOTTIME: return "CLOCK_BOOTTIME";
    case CLOCK_TAI: return "CLOCK_TAI";
    default: return nullptr;
  }
}

// The si_code of a SIGSYS that a filter's SECCOMP_RET_TRAP sends (SYS_SECCOMP, which the C
// library's headers do not name).
constexpr int kSysSeccomp = 1;

bool IsHypercall(int64_t nr) { return nr >= CHESS_HYPERCALL_BASE && nr < CHESS_HYPERCALL_BASE + CHESS_HYPERCALL_COUNT; }

// What the thread's own filters answer for the call it stopped at.
std::optional<uint32_t> ProgramVerdictOnCall(const Thread& thread) {
  return ProgramVerdict(thread, SeccompDataOf(thread.call.nr, thread.regs, thread.regs.Ip()));
}

}  // namespace

seccomp::SyscallData SeccompDataOf(int64_t nr, const Registers& regs, uint64_t ip_after) {
  seccomp::SyscallData data;
  data.nr = static_cast<int32_t>(nr);
  data.arch = seccomp::kAuditArch;
  data.instruction_pointer = ip_after;
  for (int i = 0; i < 6; ++i) data.args[i] = regs.Arg(i);
  return data;
}

std::optional<uint32_t> ProgramVerdict(const Thread& thread, const seccomp::SyscallData& call) {
  return thread.filters.Evaluate(call);
}

bool FiltersPermit(const Thread& thread, const seccomp::SyscallData& call, bool recheck) {
  if (thread.filters.Empty()) return true;
  const std::optional<uint32_t> verdict = ProgramVerdict(thread, call);
  return verdict && seccomp::Permits(*verdict, recheck);
}

std::optional<std::string> VdsoCallName(int64_t nr, const uint64_t (&args)[6]) {
  switch (nr) {
    case SYS_clock_gettime:
    case SYS_clock_getres:
      if (const char* clock = VdsoClockName(args[0])) {
        return std::string(nr == SYS_clock_gettime ? "clock_gettime(" : "clock_getres(") + clock + ")";
      }
      return std::nullopt;
    case SYS_gettimeofday: return "gettimeofday";
    case SYS_time: return "time";
    case SYS_getcpu: return "getcpu";
    default: return std::nullopt;
  }
}

bool Supervisor::OnHypercallTrap(Thread& thread) {
  // Its own traps only: the int3 just executed, with the marker after it. A debugger's int3, a
  // program's own, or a SIGTRAP it sent itself is the program's (a trap resumes after the
  // marker, so a signal that comes later never finds the thread just after the int3).
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return false;
  const std::optional<uint64_t> signature = RemoteMemory(thread.tid).Read<uint64_t>(regs.Ip() - 1);
  if (!signature || *signature != CHESS_TRAP_SIGNATURE) return false;
  thread.regs = regs;
  thread.regs.raw().rip += CHESS_TRAP_MARKER_LENGTH;  // stored with the answer
  if (!IsHypercall(static_cast<int64_t>(regs.raw().rax))) {
    // Not a number of the ABI (the shim never makes one): answered at once, like the system
    // call of a number nobody knows.
    thread.regs.SetSyscallResult(-ENOSYS);
    ptrace::SetRegisters(thread.tid, thread.regs);
    ptrace::Resume(thread.tid);
    return true;
  }
  thread.call.trap = TrappedCall::Trap::kHypercall;
  thread.call.nr = static_cast<int64_t>(regs.raw().rax);
  thread.call.args[0] = regs.Arg(0);
  thread.call.args[1] = regs.Arg(1);
  for (int i = 2; i < 6; ++i) thread.call.args[i] = 0;
  // From here on it is a trapped hypercall like one made as a syscall (the signal is never
  // delivered: resuming from this stop without it discards it).
  OnTrappedCall(thread);
  return true;
}

uint64_t ShimControlFor(bool filtered) {
  // Traps only where a filter of the program's own could refuse the syscall: a trap costs more
  // (docs/performance.md), and its SIGTRAP has side effects a program could notice
  // (docs/limitations.md).
  return CHESS_HC_VERSION | (filtered ? CHESS_CONTROL_TRAP : 0);
}

void Supervisor::SetShimControl(const Thread& reader, uint64_t word) {
  Process& process = *reader.process;
  if (process.shim_control == 0) return;
  if (!RemoteMemory(reader.tid).Write(process.shim_control, word)) {
    Notice("could not tell the preload shim how to announce: a sandboxed program's sync operations may be refused "
           "by its own seccomp filter");
  }
}

void Supervisor::FilterInstalled(Thread& thread, std::vector<sock_filter> program, bool all_threads) {
  thread.filters = thread.filters.With(std::move(program));
  if (all_threads) {
    // SECCOMP_FILTER_FLAG_TSYNC: every thread of the process is now under the caller's filters.
    for (const auto& [id, other] : threads_.Live()) {
      if (other->process == thread.process) other->filters = thread.filters;
    }
  }
  // From now on the shim's system calls would pass the filter: its announcements become traps.
  // (Every thread of the process shares the word; announcing by trap works for all of them.)
  SetShimControl(thread, ShimControlFor(true));
  if (clocks_.Virtual() == nullptr) return;
  if (auto refused = RefusedVdsoCall(thread)) {
    Notice("the program's seccomp filter answers " + *refused +
           ", which natively it reads through the vDSO without a syscall; chess-trace makes the vDSO call the kernel for virtual "
           "time, so the program may fail where it does not natively (--real-time keeps the vDSO as it is)");
  }
}

std::optional<std::string> RefusedVdsoCall(const Thread& thread) {
  for (const auto& [nr, clock] : {std::pair<long, uint64_t>{SYS_clock_gettime, CLOCK_REALTIME},
                                  {SYS_clock_gettime, CLOCK_MONOTONIC}, {SYS_gettimeofday, 0}, {SYS_time, 0},
                                  {SYS_getcpu, 0}}) {
    seccomp::SyscallData call = SeccompDataOf(nr, thread.regs, thread.regs.Ip());
    for (uint64_t& arg : call.args) arg = 0;
    call.args[0] = clock;
    const std::optional<uint32_t> verdict = ProgramVerdict(thread, call);
    // A RET_TRACE for these is answered as chess-trace's own (ProgramWantsItsTracer).
    if (verdict && (seccomp::Permits(*verdict, false) || seccomp::ActionOf(*verdict) == seccomp::FilterAction::kTrace)) {
      continue;
    }
    return (verdict ? seccomp::DescribeVerdict(*verdict) : "nothing") + " for " + *VdsoCallName(nr, call.args);
  }
  return std::nullopt;
}

bool ProgramWantsItsTracer(const Thread& thread, bool vdso_hidden) {
  // RET_TRACE from the program's own filter: the stop carries its data, and the call is for a
  // tracer of the program's own, which it does not have (chess-trace refuses ptrace). Natively
  // the kernel fails such a call with ENOSYS. The shim's hypercalls, and what the program makes
  // as a syscall only because the vDSO is hidden, stay chess-trace's.
  if (thread.filters.Empty() || thread.call.trap == TrappedCall::Trap::kHypercall || IsHypercall(thread.call.nr)) {
    return false;
  }
  if (vdso_hidden && VdsoCallName(thread.call.nr, thread.call.args)) return false;
  const std::optional<uint32_t> verdict = ProgramVerdictOnCall(thread);
  return verdict && seccomp::ActionOf(*verdict) == seccomp::FilterAction::kTrace;
}

void CheckStopDataIsFamily(const Thread& thread) {
#ifdef NDEBUG
  (void)thread;
#else
  if (thread.call.trap == TrappedCall::Trap::kHypercall) return;  // a SIGTRAP, not a seccomp stop
  const std::optional<uint32_t> verdict = ProgramVerdictOnCall(thread);
  if (!verdict || seccomp::ActionOf(*verdict) == seccomp::FilterAction::kTrace) return;
  const std::optional<unsigned long> data = ptrace::EventMessage(thread.tid);
  if (!data) return;  // killed meanwhile
  CHESS_CHECK(*data == static_cast<uint16_t>(thread.call.family),
              "the data of chess-trace's SECCOMP_RET_TRACE is not the family of the syscall table's row");
#endif
}

std::optional<std::string> Interference(int64_t nr, const uint64_t (&args)[6], bool vdso_hidden) {
  const char* what = "chess-trace's interference, not a bug of the program";
  if (IsHypercall(nr)) {
    return "the program's own seccomp filter refused a hypercall of chess-trace's preload shim (" +
           seccomp::SyscallName(nr) + "), which announces its sync operations: " + what;
  }
  if (vdso_hidden) {
    if (auto call = VdsoCallName(nr, args)) {
      return "the program's own seccomp filter refused " + *call +
             ", which natively it reads through the vDSO without a syscall; chess-trace makes the vDSO call the kernel for virtual "
             "time: " + what + " (run with --real-time to keep the vDSO as it is)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> InterferenceKilled(const Thread& thread, bool vdso_hidden) {
  // SECCOMP_RET_KILL_*: the thread that made the call leaves with SIGSYS, and no signal stop
  // comes first. The registers are rolled back to the call it made.
  const std::optional<unsigned long> status = ptrace::EventMessage(thread.tid);
  if (!status || (*status & 0xff00) != 0 || (*status & 0x7f) != SIGSYS) return std::nullopt;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return std::nullopt;
  uint64_t args[6];
  for (int i = 0; i < 6; ++i) args[i] = regs.Arg(i);
  return Interference(regs.SyscallNr(), args, vdso_hidden);
}

std::optional<std::string> InterferenceTrapped(const Thread& thread, bool vdso_hidden) {
  // SECCOMP_RET_TRAP: a SIGSYS for the program's handler, the registers rolled back to the call.
  siginfo_t info{};
  Registers regs;
  if (!ptrace::GetSignalInfo(thread.tid, info) || info.si_code != kSysSeccomp || !ptrace::GetRegisters(thread.tid, regs)) {
    return std::nullopt;
  }
  uint64_t args[6];
  for (int i = 0; i < 6; ++i) args[i] = regs.Arg(i);
  return Interference(info.si_syscall, args, vdso_hidden);
}

std::optional<std::string> FiltersRefuseTemplate(const Thread& thread, int fresh, bool enters_cwd) {
  if (thread.filters.Empty()) return std::nullopt;
  const Registers& at = thread.regs;
  auto refusal = [&thread](const char* what, const seccomp::SyscallData& call, bool recheck) -> std::optional<std::string> {
    if (FiltersPermit(thread, call, recheck)) return std::nullopt;
    const std::optional<uint32_t> verdict = ProgramVerdict(thread, call);
    return std::string("the program's own seccomp filter answers ") +
           (verdict ? seccomp::DescribeVerdict(*verdict) : "nothing it could run") + " for " + what;
  };
  // The clone that forks the template (and every execution from it), in place of the root's.
  const Registers clone = TemplateCloneCall(at, thread.clear_child_tid, fresh);
  if (auto why = refusal("the clone that would fork the template", SeccompDataOf(SYS_clone, clone, at.Ip()), true)) {
    return why;
  }
  // Each forked process then makes the root's own call again, afresh…
  if (auto why = refusal("the template point's call made again", SeccompDataOf(at.SyscallNr(), at, at.Ip()), false)) {
    return why;
  }
  // …after set_robust_list, which a fork does not carry over, and the chdir into a private
  // working directory of its own (the name's address is below the stack, as the injection
  // puts it; a filter is unlikely to look at it).
  Registers rewound = at;
  rewound.RewindToSyscall(at.SyscallNr());
  if (thread.robust_list != 0) {
    const Registers robust = RobustListCall(rewound, thread.robust_list);
    if (auto why = refusal("the set_robust_list each forked process needs",
                           SeccompDataOf(SYS_set_robust_list, robust, at.Ip()), false)) {
      return why;
    }
  }
  if (enters_cwd) {
    const Registers chdir = EnterDirectoryCall(rewound, rewound.Sp() - 256);
    return refusal("the chdir each forked process needs into its private working directory",
                   SeccompDataOf(SYS_chdir, chdir, at.Ip()), false);
  }
  return std::nullopt;
}

}  // namespace chess::supervisor
