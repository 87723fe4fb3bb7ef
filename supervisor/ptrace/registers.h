// Registers: a stopped thread's user registers, with syscall-level names. The only place that
// knows x86_64 register names; another architecture gets its own definition of this type.
#pragma once

#include <sys/user.h>

#include <cstdint>

namespace chess::supervisor {

class Registers {
 public:
  user_regs_struct& raw() { return regs_; }
  const user_regs_struct& raw() const { return regs_; }

  // orig_rax: the syscall the thread is in (or -1 once the supervisor has skipped it).
  int64_t SyscallNr() const { return static_cast<int64_t>(regs_.orig_rax); }
  uint64_t Arg(int i) const {
    switch (i) {
      case 0: return regs_.rdi;
      case 1: return regs_.rsi;
      case 2: return regs_.rdx;
      case 3: return regs_.r10;
      case 4: return regs_.r8;
      default: return regs_.r9;
    }
  }
  int64_t Return() const { return static_cast<int64_t>(regs_.rax); }
  uint64_t Ip() const { return regs_.rip; }
  uint64_t Sp() const { return regs_.rsp; }

  void SetArg(int i, uint64_t value) {
    switch (i) {
      case 0: regs_.rdi = value; break;
      case 1: regs_.rsi = value; break;
      case 2: regs_.rdx = value; break;
      case 3: regs_.r10 = value; break;
      case 4: regs_.r8 = value; break;
      default: regs_.r9 = value; break;
    }
  }
  // At a seccomp stop: the kernel runs syscall `nr` instead of the one the thread made.
  void SetSyscallNr(int64_t nr) { regs_.orig_rax = static_cast<uint64_t>(nr); }
  // At a syscall-exit stop: what the call returns.
  void SetReturn(int64_t value) { regs_.rax = static_cast<uint64_t>(value); }
  // At a syscall-exit stop: back onto the `syscall` instruction (2 bytes), so that resuming
  // makes syscall `nr` again with the argument registers as they are.
  void RewindToSyscall(int64_t nr) {
    regs_.rip -= 2;
    regs_.rax = static_cast<uint64_t>(nr);
  }

  // At a seccomp stop: the kernel skips the call and the thread is left on its `syscall`
  // instruction, ready to make call `nr` again when it next runs (for a debugger to find it
  // just before the call).
  void UndoSyscallEntry(int64_t nr) {
    regs_.orig_rax = static_cast<uint64_t>(-1);
    regs_.rax = static_cast<uint64_t>(nr);
    regs_.rip -= 2;
  }

  // Makes the kernel skip the syscall at this seccomp stop and return `value` instead.
  void SetSyscallResult(int64_t value) {
    regs_.orig_rax = static_cast<uint64_t>(-1);
    regs_.rax = static_cast<uint64_t>(value);
  }

  // A syscall the kernel interrupted and will restart transparently when the thread resumes
  // (-ERESTARTSYS … -ERESTART_RESTARTBLOCK): the thread was asleep in the kernel.
  bool InInterruptedSyscall() const {
    const int64_t rax = Return();
    return SyscallNr() >= 0 && rax <= -512 && rax >= -516;
  }

 private:
  user_regs_struct regs_{};
};

}  // namespace chess::supervisor
