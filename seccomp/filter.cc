#include "seccomp/filter.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace chess::seccomp {
namespace {

struct ContextDeleter {
  void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};
using Context = std::unique_ptr<void, ContextDeleter>;

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

Error LibseccompError(const char* what, int rc) {
  return Error{std::string("libseccomp: ") + what + " failed: " + std::strerror(-rc)};
}

}  // namespace

Result<BpfProgram> CompileFilter(std::span<const SyscallRow> table, bool observe_all) {
  Context ctx(seccomp_init(observe_all ? SCMP_ACT_TRACE(kObserveOnly) : SCMP_ACT_ALLOW));
  if (!ctx) return Error{"libseccomp: seccomp_init failed (is libseccomp2 installed?)"};
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS)); rc < 0) {
    return LibseccompError("setting the foreign-ABI action", rc);
  }
  // Binary-tree dispatch: the cost of an untrapped syscall stays flat as the table grows.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2); rc < 0) {
    return LibseccompError("enabling the binary-tree optimisation", rc);
  }
  for (const SyscallRow& row : table) {
    const uint32_t action = SCMP_ACT_TRACE(static_cast<uint16_t>(row.family));
    const TrapCondition& when = row.when;
    for (size_t i = 0; i < std::max<size_t>(1, when.value_count); ++i) {
      const int rc = when.Always()
          ? seccomp_rule_add(ctx.get(), action, static_cast<int>(row.nr), 0)
          : seccomp_rule_add(ctx.get(), action, static_cast<int>(row.nr), 1,
                             SCMP_CMP64(static_cast<unsigned>(when.arg), SCMP_CMP_MASKED_EQ, when.mask,
                                        when.values[i]));
      if (rc < 0) return Error{"libseccomp: cannot trap " + std::string(row.name) + ": " + std::strerror(-rc)};
    }
  }
  // libseccomp 2.5 can only export to a file descriptor; a memfd keeps it in memory.
  Fd out{static_cast<int>(memfd_create("chess-trace-bpf", MFD_CLOEXEC))};
  if (out.fd < 0) return Error{std::string("memfd_create: ") + std::strerror(errno)};
  if (int rc = seccomp_export_bpf(ctx.get(), out.fd); rc < 0) return LibseccompError("export", rc);
  const off_t size = lseek(out.fd, 0, SEEK_END);
  if (size <= 0 || size % sizeof(sock_filter) != 0) return Error{"libseccomp exported a malformed filter"};
  BpfProgram program;
  program.instructions.resize(static_cast<size_t>(size) / sizeof(sock_filter));
  if (pread(out.fd, program.instructions.data(), static_cast<size_t>(size), 0) != size) {
    return Error{std::string("reading the exported filter: ") + std::strerror(errno)};
  }
  return program;
}

std::string SyscallName(long nr) {
  if (const SyscallRow* row = FindSyscall(nr); row && row->family != SyscallFamily::kHypercall) {
    return std::string(row->name);
  }
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(nr));
  if (name == nullptr) return "syscall_" + std::to_string(nr);
  std::string result(name);
  free(name);
  return result;
}

}  // namespace chess::seccomp
