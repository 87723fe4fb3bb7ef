#include "supervisor/foreign_abi.h"

#include <linux/audit.h>
#include <sys/syscall.h>

#include "supervisor/ptrace/ptrace.h"

namespace chess::supervisor {
namespace {

constexpr long kI386Exit = 1;
constexpr long kI386ExitGroup = 252;

}  // namespace

void TranslateI386Exit(Thread& thread) {
  const long nr = thread.call.nr;
  if (nr != kI386Exit && nr != kI386ExitGroup) return;
  const user_regs_struct& regs = thread.regs.raw();
  if (regs.rcx == regs.rip) return;  // a `syscall` instruction's
  if (ptrace::SyscallArch(thread.tid) != AUDIT_ARCH_I386) return;
  thread.call.nr = nr == kI386Exit ? SYS_exit : SYS_exit_group;
  thread.call.args[0] = static_cast<uint32_t>(regs.rbx);  // the status, in ebx
  for (int i = 1; i < 6; ++i) thread.call.args[i] = 0;
}

}  // namespace chess::supervisor
