#include "supervisor/ptrace/ptrace.h"

#include "supervisor/ptrace/event_waiter.h"

#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace chess::supervisor::ptrace {
namespace {

long Call(__ptrace_request request, pid_t tid, void* addr, void* data) {
  return ::ptrace(request, tid, addr, data);
}

}  // namespace

long TraceOptions() {
  return PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
         PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL |
         PTRACE_O_TRACESYSGOOD;
}

int Seize(pid_t pid) {
  if (Call(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(TraceOptions())) != 0) return errno;
  return 0;
}

bool Resume(pid_t tid, int signal) {
  return Call(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(signal))) == 0;
}

bool ResumeToSyscallExit(pid_t tid) { return Call(PTRACE_SYSCALL, tid, nullptr, nullptr) == 0; }

bool ResumeToNextSyscall(pid_t tid, int signal) {
  return Call(PTRACE_SYSCALL, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(signal))) == 0;
}

bool Sysemu(pid_t tid, int signal, bool single_step) {
  return Call(single_step ? PTRACE_SYSEMU_SINGLESTEP : PTRACE_SYSEMU, tid, nullptr,
              reinterpret_cast<void*>(static_cast<long>(signal))) == 0;
}

bool SingleStep(pid_t tid, int signal) {
  return Call(PTRACE_SINGLESTEP, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(signal))) == 0;
}

std::optional<bool> AtSyscallEntry(pid_t tid) {
  __ptrace_syscall_info info{};
  if (Call(PTRACE_GET_SYSCALL_INFO, tid, reinterpret_cast<void*>(sizeof(info)), &info) <= 0) return std::nullopt;
  if (info.op == PTRACE_SYSCALL_INFO_ENTRY) return true;
  if (info.op == PTRACE_SYSCALL_INFO_EXIT) return false;
  return std::nullopt;
}

long ProgramRequest(long request, pid_t tid, uint64_t addr, void* data) {
  const long result = syscall(SYS_ptrace, request, tid, addr, data);
  return result < 0 ? -errno : result;
}

bool Detach(pid_t tid, int signal) {
  return Call(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(signal))) == 0;
}

bool Interrupt(pid_t tid) { return Call(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0; }

bool Listen(pid_t tid) { return Call(PTRACE_LISTEN, tid, nullptr, nullptr) == 0; }

bool GetRegisters(pid_t tid, Registers& regs) {
  return Call(PTRACE_GETREGS, tid, nullptr, &regs.raw()) == 0;
}

bool SetRegisters(pid_t tid, const Registers& regs) {
  return Call(PTRACE_SETREGS, tid, nullptr, const_cast<user_regs_struct*>(&regs.raw())) == 0;
}

std::optional<unsigned long> EventMessage(pid_t tid) {
  unsigned long message = 0;
  if (Call(PTRACE_GETEVENTMSG, tid, nullptr, &message) != 0) return std::nullopt;
  return message;
}

std::optional<uint32_t> SyscallArch(pid_t tid) {
  __ptrace_syscall_info info{};
  if (Call(PTRACE_GET_SYSCALL_INFO, tid, reinterpret_cast<void*>(sizeof(info)), &info) <= 0) return std::nullopt;
  if (info.op == PTRACE_SYSCALL_INFO_NONE) return std::nullopt;
  return info.arch;
}

bool GetSignalInfo(pid_t tid, siginfo_t& info) { return Call(PTRACE_GETSIGINFO, tid, nullptr, &info) == 0; }

bool SetSignalInfo(pid_t tid, const siginfo_t& info) {
  return Call(PTRACE_SETSIGINFO, tid, nullptr, const_cast<siginfo_t*>(&info)) == 0;
}

std::optional<uint64_t> GetSignalMask(pid_t tid) {
  uint64_t mask = 0;
  if (Call(PTRACE_GETSIGMASK, tid, reinterpret_cast<void*>(sizeof(mask)), &mask) != 0) return std::nullopt;
  return mask;
}

bool SetSignalMask(pid_t tid, uint64_t mask) {
  return Call(PTRACE_SETSIGMASK, tid, reinterpret_cast<void*>(sizeof(mask)), &mask) == 0;
}

bool SetDebugRegister(pid_t tid, int index, uint64_t value) {
  const auto offset = offsetof(struct user, u_debugreg) + static_cast<size_t>(index) * sizeof(uint64_t);
  return Call(PTRACE_POKEUSER, tid, reinterpret_cast<void*>(offset), reinterpret_cast<void*>(value)) == 0;
}

std::optional<uint64_t> GetDebugRegister(pid_t tid, int index) {
  const auto offset = offsetof(struct user, u_debugreg) + static_cast<size_t>(index) * sizeof(uint64_t);
  errno = 0;
  const long value = Call(PTRACE_PEEKUSER, tid, reinterpret_cast<void*>(offset), nullptr);
  if (value == -1 && errno != 0) return std::nullopt;
  return static_cast<uint64_t>(value);
}

WaitEvent Classify(pid_t tid, int status) {
  WaitEvent event;
  event.tid = tid;
  event.status = status;
  if (WIFEXITED(status)) {
    event.kind = StopKind::kExited;
    event.value = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    event.kind = StopKind::kKilled;
    event.value = WTERMSIG(status);
  } else if (WIFSTOPPED(status)) {
    const int signal = WSTOPSIG(status);
    const int event_code = status >> 16;
    if (signal == (SIGTRAP | 0x80)) {
      event.kind = StopKind::kSyscallTrap;
    } else if (event_code == PTRACE_EVENT_SECCOMP) {
      event.kind = StopKind::kSeccomp;
    } else if (event_code == PTRACE_EVENT_STOP &&
               (signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU)) {
      event.kind = StopKind::kGroupStop;
      event.value = signal;
    } else if (event_code != 0) {
      event.kind = StopKind::kEvent;
      event.value = event_code;
    } else {
      event.kind = StopKind::kSignal;
      event.value = signal;
    }
  }
  return event;
}

std::optional<WaitEvent> WaitAny() {
  int status = 0;
  const pid_t tid = waitpid(-1, &status, __WALL);
  if (tid <= 0) return std::nullopt;
  return Classify(tid, status);
}

std::optional<WaitEvent> PollAny() {
  int status = 0;
  const pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
  if (tid <= 0) return std::nullopt;
  return Classify(tid, status);
}

std::optional<WaitEvent> WaitFor(pid_t tid, const std::function<bool()>& give_up) {
  int status = 0;
  for (;;) {
    if (PendingStopSignal() != 0) return std::nullopt;
    const pid_t got = waitpid(tid, &status, __WALL);
    if (got > 0) return Classify(got, status);
    if (errno != EINTR || (give_up && give_up())) return std::nullopt;
  }
}

std::optional<WaitEvent> PollFor(pid_t tid) {
  int status = 0;
  const pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
  if (got <= 0) return std::nullopt;
  return Classify(got, status);
}

std::optional<int> PollChild(pid_t pid, bool& gone) {
  int status = 0;
  const pid_t got = waitpid(pid, &status, __WALL | WNOHANG);
  gone = got < 0;
  if (got != pid) return std::nullopt;
  return status;
}

std::optional<int> ReapChild(pid_t pid) {
  int status = 0;
  pid_t reaped;
  while ((reaped = waitpid(pid, &status, __WALL)) < 0 && errno == EINTR) {
  }
  if (reaped != pid) return std::nullopt;
  return status;
}

void ReapExitedChildren() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

}  // namespace chess::supervisor::ptrace
