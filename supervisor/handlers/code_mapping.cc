// mmap, mprotect and pkey_mprotect that make memory executable (trapped only with atomic points):
// the kernel runs them; at the exit of one that succeeded the supervisor plants the breakpoints
// of the code now there (atomic_points.h), before the program can run any of it.
#include <sys/mman.h>
#include <sys/syscall.h>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

constexpr uint64_t kPage = 4096;

Disposition CodeMappingEntry(SyscallContext&) { return Disposition::NativeThenExit(); }

ExitAnswer CodeMappingExit(SyscallContext& ctx) {
  const int64_t result = ctx.thread.regs.Return();
  if (result < 0 && result > -4096) return ExitAnswer::Native();  // it failed: nothing changed
  // mmap returns where it mapped; mprotect changed the range it was given.
  const uint64_t begin = ctx.thread.call.nr == SYS_mmap ? static_cast<uint64_t>(result) : ctx.Arg(0);
  const uint64_t length = (ctx.Arg(1) + kPage - 1) & ~(kPage - 1);
  return ctx.services.CodeMapped(ctx.thread, begin, begin + length) ? ExitAnswer::NativeWithRegisters() : ExitAnswer::Native();
}

}  // namespace

FamilyHandler CodeMappingHandler() {
  return {.on_entry = CodeMappingEntry, .execute = NoDeferredOperation, .on_exit = CodeMappingExit};
}

}  // namespace chess::supervisor
