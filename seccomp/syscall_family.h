// The syscall families: the one place that lists them, with each family's properties. A new
// family is a line here, its rows in the syscall table (syscall_table.cc) and its handler file
// (supervisor/handlers/<family>.cc, defining `FamilyHandler <Name>Handler()`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace chess::seccomp {

// One line per family: FAMILY(Name, "name", properties…). `Name` makes the enumerator
// SyscallFamily::k<Name> and names the handler, supervisor/handlers' <Name>Handler(); "name" is
// how reports name the family; the properties are designated initializers of FamilyProperties,
// given only where they differ from its defaults.
#define CHESS_SYSCALL_FAMILIES(FAMILY)                                                                  \
  /* futex, futex_waitv, futex2: emulated entirely by the supervisor */                                 \
  FAMILY(Futex, "futex", .restarts_with_restart_syscall = true)                                         \
  /* clone, clone3, fork, vfork: new threads start stopped */                                           \
  FAMILY(Clone, "clone")                                                                                \
  /* exit, exit_group */                                                                                \
  FAMILY(Exit, "exit")                                                                                  \
  /* execve, execveat */                                                                                \
  FAMILY(Exec, "exec", .fork_safe = true)                                                               \
  /* sched_yield */                                                                                     \
  FAMILY(Yield, "yield", .fork_safe = true)                                                             \
  /* nanosleep, clock_nanosleep */                                                                      \
  FAMILY(Sleep, "sleep", .fork_safe = true, .restarts_with_restart_syscall = true)                      \
  /* set_tid_address, set_robust_list: remembered for exit-time futex writes */                         \
  FAMILY(ThreadSetup, "thread-setup", .fork_safe = true)                                                \
  /* sched_{get,set}affinity: the program sees the machine, not the pinning */                          \
  FAMILY(Affinity, "affinity", .fork_safe = true)                                                       \
  /* rseq, io_uring_setup, userfaultfd: refused with a clear reason */                                 \
  FAMILY(Refused, "refused", .fork_safe = true)                                                         \
  /* wait4, waitid: disabled until a child changes state */                                            \
  FAMILY(Wait, "wait")                                                                                  \
  /* kill, tkill, tgkill, …: the target may have to leave an emulated wait */                           \
  FAMILY(Signal, "signal")                                                                              \
  /* read, recv…, accept: disabled while the descriptor has nothing to give */                          \
  FAMILY(Input, "input", .fork_safe = true)                                                             \
  /* the preload shim's announcements */                                                                \
  FAMILY(Hypercall, "hypercall", .fork_safe = true)                                                     \
  /* write, writev, send…: disabled while full; large writes go in pieces */                            \
  FAMILY(Output, "output", .fork_safe = true)                                                           \
  /* poll, select, epoll_wait…: disabled until a descriptor is ready or time is up */                   \
  FAMILY(Poll, "poll", .restarts_with_restart_syscall = true)                                           \
  /* splice, tee, vmsplice, sendfile: both ends must be ready */                                        \
  FAMILY(Splice, "splice")                                                                              \
  /* pause, rt_sigsuspend, rt_sigtimedwait: disabled until a signal comes */                            \
  FAMILY(SignalWait, "signal-wait")                                                                     \
  /* restart_syscall: the emulated wait a signal interrupted goes on */                                 \
  FAMILY(Restart, "restart")                                                                            \
  /* flock, fcntl(F_SETLKW): disabled while another holder has the lock */                              \
  FAMILY(FileLock, "file-lock", .wait_ended_by_lock_holders = true)                                     \
  /* SysV semaphores and message queues, POSIX message queues */                                        \
  FAMILY(Ipc, "ipc")                                                                                    \
  /* clock_gettime, gettimeofday, time, getcpu: answered from the virtual clock */                      \
  FAMILY(Time, "time", .fork_safe = true)                                                               \
  /* clock_settime, settimeofday, adjtimex, clock_adjtime: set the virtual clock, never the host's */  \
  FAMILY(ClockSet, "clock-set")                                                                         \
  /* getrandom: answered from the run's seeded generator */                                             \
  FAMILY(Random, "random", .fork_safe = true)                                                           \
  /* alarm, itimers, POSIX timers, timerfd settings: kept in virtual time */                            \
  FAMILY(Timer, "timer")                                                                                \
  /* bind, connect, unlink, rename, mkdir, open(O_CREAT)…: names other processes see */                 \
  FAMILY(Publish, "publish")                                                                            \
  /* seccomp: the program installs a filter of its own (a fork inherits it, and PrefixState the */    \
  /* supervisor's copy) */                                                                              \
  FAMILY(Seccomp, "seccomp", .fork_safe = true)                                                         \
  /* rt_sigaction, rt_sigprocmask, rt_sigreturn: what an emulated rdtsc must leave as it was */       \
  FAMILY(SignalState, "signal-state", .fork_safe = true)                                                \
  /* prctl of seccomp and the TSC: the program's own answers, not chess-trace's filter and trap */      \
  FAMILY(Prctl, "prctl", .fork_safe = true)                                                             \
  /* ptrace: the program's tracing of its own threads, carried out by the supervisor */                 \
  FAMILY(Ptrace, "ptrace")                                                                              \
  /* mmap, mprotect with PROT_EXEC: code appears, whose atomic instructions get breakpoints */         \
  FAMILY(CodeMapping, "code-mapping", .fork_safe = true)

#define CHESS_FAMILY_ENUMERATOR(Name, ...) k##Name,
// A family's value is the data chess-trace's filter returns with SECCOMP_RET_TRACE for its rows.
// The supervisor does not read it back: it finds a stop's family by the syscall's number
// (FindSyscall), because reading the data costs a PTRACE_GETEVENTMSG per stop and, when the
// program's own filter returns SECCOMP_RET_TRACE too, the data is the program's. A debug build
// checks that the two agree.
enum class SyscallFamily : uint16_t { CHESS_SYSCALL_FAMILIES(CHESS_FAMILY_ENUMERATOR) };
#undef CHESS_FAMILY_ENUMERATOR

struct FamilyProperties {
  std::string_view name;
  // A prefix that made a call of the family can still be copied by the fork server: the call
  // leaves nothing behind but the process's memory and what PrefixState copies (the image and
  // its loader, thread registrations, refusals, virtual clocks and seeded randomness, affinity,
  // the shim's announcements, sleeps and yields of the one thread, and reads and writes, whose
  // descriptors are checked when the template is made).
  bool fork_safe = false;
  // A timed wait the kernel continues with restart_syscall when a signal interrupts it without
  // a handler that returns EINTR.
  bool restarts_with_restart_syscall = false;
  // A thread of the family that waits for a kernel object (Thread::waits_for_object) waits for
  // the holders of a lock on the file of its first argument, which /proc/locks names; other
  // objects (semaphores, message queues) may be used by anyone with access: the outside world.
  bool wait_ended_by_lock_holders = false;
};

#define CHESS_FAMILY_PROPERTIES(Name, text, ...) FamilyProperties{.name = text, __VA_ARGS__},
// Indexed by SyscallFamily.
inline constexpr FamilyProperties kFamilies[] = {CHESS_SYSCALL_FAMILIES(CHESS_FAMILY_PROPERTIES)};
#undef CHESS_FAMILY_PROPERTIES

inline constexpr size_t kFamilyCount = std::size(kFamilies);
// The filter's data bits hold the family, and their largest value marks a syscall trapped only
// to be observed (filter.h).
static_assert(kFamilyCount < 0xffff, "every family must fit in SECCOMP_RET_DATA below kObserveOnly");

constexpr const FamilyProperties& PropertiesOf(SyscallFamily family) {
  return kFamilies[static_cast<size_t>(family)];
}

}  // namespace chess::seccomp
