#include "seccomp/filter.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
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

// `int $0x80` in a 64-bit program (AUDIT_ARCH_I386, i386 numbers and argument registers), judged
// before libseccomp's program: a stop's registers do not say which ABI made its call, so the
// handlers cannot serve these calls in general. The two exits stop as the exit family's, which
// the supervisor recognises and serves as their x86_64 twins (foreign_abi.h); a few calls that can
// neither escape the serializer nor read the clock or the seed run in the kernel (a read or
// write that blocks is the watchdog's, as for any untrapped call); every other call fails with
// ENOSYS, as libseccomp's bad-architecture action answers x32.
std::vector<sock_filter> I386Prologue() {
  constexpr uint32_t kExits[] = {1 /* exit */, 252 /* exit_group */};
  constexpr uint32_t kHarmless[] = {3 /* read */,     4 /* write */,    6 /* close */,   20 /* getpid */,
                                    64 /* getppid */, 145 /* readv */, 146 /* writev */};
  std::vector<sock_filter> prologue;
  prologue.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  prologue.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 0));  // jf: past the prologue
  prologue.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  const size_t compares = std::size(kExits) + std::size(kHarmless);
  const size_t refuse = prologue.size() + compares;  // then the trace, then the allow
  for (uint32_t nr : kExits) {
    const size_t jump = refuse + 1 - (prologue.size() + 1);
    prologue.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, static_cast<uint8_t>(jump), 0));
  }
  for (uint32_t nr : kHarmless) {
    const size_t jump = refuse + 2 - (prologue.size() + 1);
    prologue.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, static_cast<uint8_t>(jump), 0));
  }
  prologue.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
  prologue.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | static_cast<uint16_t>(SyscallFamily::kExit)));
  prologue.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  prologue[1].jf = static_cast<uint8_t>(prologue.size() - 2);
  return prologue;
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
  std::vector<sock_filter> exported(static_cast<size_t>(size) / sizeof(sock_filter));
  if (pread(out.fd, exported.data(), static_cast<size_t>(size), 0) != size) {
    return Error{std::string("reading the exported filter: ") + std::strerror(errno)};
  }
  BpfProgram program{I386Prologue()};
  program.instructions.insert(program.instructions.end(), exported.begin(), exported.end());
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
