// seccomp(SECCOMP_SET_MODE_FILTER) and prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER): the program
// installs a filter of its own. The kernel installs it (or refuses: no NO_NEW_PRIVS, a bad
// program, a TSYNC that some thread prevents); at the call's exit the supervisor reads the
// program it installed and keeps it with the thread — or with every thread of the process for
// SECCOMP_FILTER_FLAG_TSYNC — so that nothing it injects or rewrites later is a call the filter
// refuses (sandbox.h). Other operations (SECCOMP_GET_ACTION_AVAIL…) go to the kernel untouched.
// SECCOMP_SET_MODE_STRICT fails under chess-trace: a thread under a filter (chess-trace's) cannot
// enter strict mode. The prctl family (prctl.cc) hands its PR_SET_SECCOMP here.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <vector>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

struct FilterRequest {
  uint64_t program = 0;  // the struct sock_fprog
  uint64_t flags = 0;    // SECCOMP_FILTER_FLAG_*
};

// The filter the call installs, or nullopt for any other operation.
std::optional<FilterRequest> RequestOf(const TrappedCall& call) {
  if (call.nr == SYS_seccomp) {
    if (static_cast<uint32_t>(call.args[0]) != SECCOMP_SET_MODE_FILTER) return std::nullopt;
    return FilterRequest{call.args[2], static_cast<uint32_t>(call.args[1])};
  }
  // prctl(PR_SET_SECCOMP, mode, program): no flags.
  if (call.args[1] != SECCOMP_MODE_FILTER) return std::nullopt;
  return FilterRequest{call.args[2], 0};
}

Disposition SeccompEntry(SyscallContext& ctx) {
  if (!RequestOf(ctx.thread.call)) return Disposition::Native();
  return Disposition::NativeThenExit();  // the result says whether the kernel installed it
}

ExitAnswer SeccompExit(SyscallContext& ctx) {
  const FilterRequest request = *RequestOf(ctx.thread.call);
  const int64_t result = ctx.thread.regs.Return();
  // Installed: 0, or the listener's descriptor with SECCOMP_FILTER_FLAG_NEW_LISTENER. A TSYNC
  // that some thread prevented answers that thread's id (or -ESRCH with TSYNC_ESRCH).
  const bool listener = (request.flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) != 0;
  if (listener ? result < 0 : result != 0) return ExitAnswer::Native();
  const RemoteMemory memory = ctx.Memory();
  const std::optional<sock_fprog> fprog = memory.Read<sock_fprog>(request.program);
  std::vector<sock_filter> program(fprog ? fprog->len : 0);
  if (!fprog || program.empty() ||
      !memory.Read(reinterpret_cast<uint64_t>(fprog->filter), program.data(), program.size() * sizeof(sock_filter))) {
    // The kernel read it a moment ago; only a thread of another process sharing the memory
    // could have changed it since, and none ran.
    ctx.services.Notice("could not read the seccomp filter the program installed: calls chess-trace changes are "
                        "no longer checked against it");
    return ExitAnswer::Native();
  }
  ctx.services.FilterInstalled(ctx.thread, std::move(program), (request.flags & SECCOMP_FILTER_FLAG_TSYNC) != 0);
  return ExitAnswer::Native();
}

}  // namespace

FamilyHandler SeccompHandler() { return {.on_entry = SeccompEntry, .on_exit = SeccompExit}; }

}  // namespace chess::supervisor
