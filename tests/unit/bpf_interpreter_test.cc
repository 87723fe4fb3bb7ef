// The interpreter of the program's seccomp filters against the kernel itself: each filter (or
// stack of filters) is installed in a child process, which then makes the call; what the kernel
// did — ran it, failed it with an errno, failed it with ENOSYS for a RET_TRACE nobody traces,
// killed the child with SIGSYS — must be what the interpreter's answer means.
#include "seccomp/bpf_interpreter.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "seccomp/filter.h"

namespace chess::seccomp {
namespace {

using Program = std::vector<sock_filter>;

constexpr uint32_t kArg0 = offsetof(SyscallData, args);
constexpr uint32_t Arg(int i, bool high = false) { return kArg0 + 8 * i + (high ? 4 : 0); }

sock_filter Statement(uint16_t code, uint32_t k) { return BPF_STMT(code, k); }
sock_filter Jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { return BPF_JUMP(code, k, jt, jf); }

// Every program acts on getppid only (the test's own calls pass), and answers `body` for it.
Program OnGetppid(std::initializer_list<sock_filter> body) {
  Program program = {
      Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(SyscallData, nr)),
      Jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 1, 0),
      Statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  program.insert(program.end(), body);
  return program;
}

// What the kernel did with the call.
struct KernelAnswer {
  bool killed_by_sigsys = false;
  bool ran = false;  // getppid returned the parent's pid
  int error = 0;     // the call failed with this errno (or returned 0: ERRNO's data 0)
  bool returned_zero = false;
};

// Installs `filters` in a new child, oldest first, and makes getppid(args) there. The answer
// travels through shared memory: the child's filters may refuse even its write and its exit.
KernelAnswer AskKernel(const std::vector<Program>& filters, const uint64_t (&args)[6]) {
  struct Shared {
    volatile int done;
    volatile long result;
    volatile int error;
    volatile int install_failed;
  };
  auto* shared = static_cast<Shared*>(mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                                           MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  EXPECT_NE(shared, MAP_FAILED);
  shared->done = 0;
  shared->install_failed = 0;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) shared->install_failed = 1;
    for (const Program& filter : filters) {
      sock_fprog fprog{static_cast<unsigned short>(filter.size()), const_cast<sock_filter*>(filter.data())};
      if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) shared->install_failed = 1;
    }
    errno = 0;
    shared->result = syscall(SYS_getppid, args[0], args[1], args[2], args[3], args[4], args[5]);
    shared->error = errno;
    shared->done = 1;
    __builtin_trap();  // no exit: the filters may refuse exit_group too
  }
  int status = 0;
  waitpid(child, &status, 0);
  KernelAnswer answer;
  EXPECT_EQ(shared->install_failed, 0);
  if (!shared->done) {
    EXPECT_TRUE(WIFSIGNALED(status)) << "status " << status;
    answer.killed_by_sigsys = WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
  } else if (shared->result == parent) {
    answer.ran = true;
  } else if (shared->result == 0) {
    answer.returned_zero = true;
  } else {
    answer.error = shared->error;
  }
  munmap(shared, sizeof(Shared));
  return answer;
}

// The interpreter's answer for getppid(args), as the kernel would carry it out.
void ExpectSameAsKernel(const std::vector<Program>& filters, std::initializer_list<uint64_t> values) {
  uint64_t args[6] = {};
  size_t i = 0;
  for (uint64_t value : values) args[i++] = value;
  FilterChain chain;
  for (const Program& filter : filters) chain = chain.With(filter);
  SyscallData data;
  data.nr = SYS_getppid;
  data.arch = AUDIT_ARCH_X86_64;
  data.instruction_pointer = 0x1000;  // the filters here do not look at it
  for (int a = 0; a < 6; ++a) data.args[a] = args[a];
  const std::optional<uint32_t> verdict = chain.Evaluate(data);
  ASSERT_TRUE(verdict.has_value());
  const KernelAnswer kernel = AskKernel(filters, args);
  const std::string context = DescribeVerdict(*verdict) + " for args " + std::to_string(args[0]) + ", " +
                              std::to_string(args[1]) + ", " + std::to_string(args[2]);
  switch (ActionOf(*verdict)) {
    case FilterAction::kKillProcess:
    case FilterAction::kKillThread:
    case FilterAction::kTrap:  // no handler: SIGSYS's default action
      EXPECT_TRUE(kernel.killed_by_sigsys) << context;
      break;
    case FilterAction::kErrno: {
      const int data_bits = static_cast<int>(*verdict & SECCOMP_RET_DATA);
      if (data_bits == 0) {
        EXPECT_TRUE(kernel.returned_zero) << context;
      } else {
        EXPECT_EQ(kernel.error, std::min(data_bits, 4095)) << context;  // capped at MAX_ERRNO
      }
      break;
    }
    case FilterAction::kTrace:      // nobody traces the child
    case FilterAction::kUserNotif:  // nobody listens
      EXPECT_EQ(kernel.error, ENOSYS) << context;
      break;
    case FilterAction::kLog:
    case FilterAction::kAllow:
      EXPECT_TRUE(kernel.ran) << context;
      break;
  }
  EXPECT_TRUE(Permits(*verdict, false) == kernel.ran) << context;
}

// Arithmetic on the arguments, answered as an errno: every ALU operation and the scratch
// memory show in the number the call fails with.
TEST(BpfInterpreter, ArithmeticMatchesTheKernel) {
  const Program arithmetic = OnGetppid({
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(0)),
      Statement(BPF_ST, 3),
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(1)),
      Statement(BPF_MISC | BPF_TAX, 0),
      Statement(BPF_LD | BPF_MEM, 3),
      Statement(BPF_ALU | BPF_ADD | BPF_X, 0),
      Statement(BPF_ALU | BPF_MUL | BPF_K, 7),
      Statement(BPF_ALU | BPF_SUB | BPF_K, 5),
      Statement(BPF_ALU | BPF_XOR | BPF_K, 0x155),
      Statement(BPF_ALU | BPF_LSH | BPF_K, 3),
      Statement(BPF_ALU | BPF_RSH | BPF_K, 2),
      Statement(BPF_ALU | BPF_OR | BPF_K, 0x1000),
      Statement(BPF_ALU | BPF_AND | BPF_K, 0x3fff),
      Statement(BPF_ALU | BPF_NEG, 0),
      Statement(BPF_ALU | BPF_AND | BPF_K, 0xfff),
      Statement(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
      Statement(BPF_RET | BPF_A, 0),
  });
  for (uint64_t a : {0ull, 1ull, 17ull, 0xffffffffull, 0x123456789ull}) {
    for (uint64_t b : {0ull, 3ull, 250ull, 0x80000000ull}) ExpectSameAsKernel({arithmetic}, {a, b});
  }
}

// Division by X (by 0: the program ends with 0, which kills), and shifts by X (taken modulo 32).
// (Seccomp refuses BPF_MOD.)
TEST(BpfInterpreter, DivisionAndShiftsByXMatchTheKernel) {
  const Program division = OnGetppid({
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(1)),
      Statement(BPF_MISC | BPF_TAX, 0),
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(0)),
      Statement(BPF_ALU | BPF_DIV | BPF_X, 0),
      Statement(BPF_ST, 0),
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(0)),
      Statement(BPF_ALU | BPF_DIV | BPF_K, 3),
      Statement(BPF_LDX | BPF_MEM, 0),
      Statement(BPF_ALU | BPF_ADD | BPF_X, 0),
      Statement(BPF_ALU | BPF_ADD | BPF_K, 1),
      Statement(BPF_ALU | BPF_AND | BPF_K, 0xfff),
      Statement(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
      Statement(BPF_RET | BPF_A, 0),
  });
  for (uint64_t a : {0ull, 1000ull, 4095ull, 0xfffffffeull}) {
    for (uint64_t b : {0ull, 1ull, 7ull, 1000ull}) ExpectSameAsKernel({division}, {a, b});
  }
  const Program shifts = OnGetppid({
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(1)),
      Statement(BPF_MISC | BPF_TAX, 0),
      Statement(BPF_LD | BPF_W | BPF_ABS, Arg(0)),
      Statement(BPF_ALU | BPF_LSH | BPF_X, 0),
      Statement(BPF_ALU | BPF_RSH | BPF_K, 20),
      Statement(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO | 1),
      Statement(BPF_RET | BPF_A, 0),
  });
  for (uint64_t a : {1ull, 0xabcdefull}) {
    for (uint64_t b : {0ull, 4ull, 31ull, 32ull, 36ull, 100ull}) ExpectSameAsKernel({shifts}, {a, b});
  }
}

// Every kind of jump, on both halves of a 64-bit argument, with the data's length and a
// register transfer on the way.
TEST(BpfInterpreter, JumpsMatchTheKernel) {
  const Program jumps = OnGetppid({
      /* 3 */ Statement(BPF_LD | BPF_W | BPF_ABS, Arg(2, true)),
      /* 4 */ Jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
      /* 5 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 11),  // high half set
      /* 6 */ Statement(BPF_LD | BPF_W | BPF_ABS, Arg(2)),
      /* 7 */ Jump(BPF_JMP | BPF_JSET | BPF_K, 0x8, 0, 1),
      /* 8 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 12),  // bit 3
      /* 9 */ Jump(BPF_JMP | BPF_JGT | BPF_K, 100, 0, 1),
      /* 10 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 13),
      /* 11 */ Statement(BPF_LDX | BPF_W | BPF_LEN, 0),
      /* 12 */ Jump(BPF_JMP | BPF_JGE | BPF_X, 0, 0, 2),  // A >= 64
      /* 13 */ Statement(BPF_MISC | BPF_TXA, 0),
      /* 14 */ Statement(BPF_JMP | BPF_JA, 2),
      /* 15 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 14),
      /* 16 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      /* 17 */ Jump(BPF_JMP | BPF_JEQ | BPF_K, 64, 0, 1),
      /* 18 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 15),
      /* 19 */ Statement(BPF_LD | BPF_W | BPF_LEN, 0),
      /* 20 */ Statement(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 77),
  });
  for (uint64_t c : {0ull, 8ull, 9ull, 50ull, 63ull, 64ull, 70ull, 101ull, 0x100000000ull}) {
    ExpectSameAsKernel({jumps}, {0, 0, c});
  }
}

Program Answer(uint32_t verdict) { return OnGetppid({Statement(BPF_RET | BPF_K, verdict)}); }

// Several filters: the most restrictive action wins; of two equal actions, the newer filter's
// answer (its data) stays.
TEST(BpfInterpreter, StackedFiltersCombineAsInTheKernel) {
  ExpectSameAsKernel({Answer(SECCOMP_RET_ERRNO | 5), Answer(SECCOMP_RET_ERRNO | 7)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_ERRNO | 7), Answer(SECCOMP_RET_ERRNO | 5)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_TRACE | 3), Answer(SECCOMP_RET_ERRNO | 9)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_ERRNO | 9), Answer(SECCOMP_RET_LOG)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_ALLOW), Answer(SECCOMP_RET_TRACE | 1)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_ERRNO | 1), Answer(SECCOMP_RET_KILL_PROCESS)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_TRAP), Answer(SECCOMP_RET_ERRNO | 2)}, {});
  ExpectSameAsKernel({Answer(SECCOMP_RET_ERRNO | 5000)}, {});  // capped at MAX_ERRNO
  // Equal actions: the newest filter's data, which the kernel shows only through ERRNO.
  FilterChain chain = FilterChain().With(Answer(SECCOMP_RET_TRACE | 3)).With(Answer(SECCOMP_RET_TRACE | 9));
  SyscallData data;
  data.nr = SYS_getppid;
  EXPECT_EQ(chain.Evaluate(data), SECCOMP_RET_TRACE | 9);
  EXPECT_EQ(chain.Size(), 2u);
  EXPECT_EQ(FilterChain().Evaluate(data), SECCOMP_RET_ALLOW);
}

// chess-trace's own filter, compiled by libseccomp (a binary tree over syscall numbers, with
// argument comparisons), stacked under a program's: the interpreter follows it as the kernel does.
TEST(BpfInterpreter, LibseccompFiltersMatchTheKernel) {
  auto own = CompileFilter(SyscallTable());
  ASSERT_TRUE(own.ok()) << own.error();
  SyscallData data;
  data.arch = AUDIT_ARCH_X86_64;
  data.nr = SYS_getppid;
  EXPECT_EQ(RunFilter(own->instructions, data), SECCOMP_RET_ALLOW);
  ExpectSameAsKernel({own->instructions}, {});
  // getppid is not in the table, so a table of its own traps it.
  std::vector<SyscallRow> rows = {{SYS_getppid, "getppid", SyscallFamily::kTime, false, {}}};
  rows[0].when = {0, 0xff, {4, 9}, 2};
  auto conditional = CompileFilter(rows);
  ASSERT_TRUE(conditional.ok()) << conditional.error();
  for (uint64_t a : {0ull, 4ull, 9ull, 0x104ull, 0x100000009ull}) {
    ExpectSameAsKernel({conditional->instructions}, {a});
    // chess-trace's own last: it traps seccomp itself, which fails (ENOSYS) without a tracer.
    ExpectSameAsKernel({conditional->instructions, Answer(SECCOMP_RET_ERRNO | 21), own->instructions}, {a});
  }
}

// Programs the kernel would refuse are not run: the supervisor must not trust an answer there.
TEST(BpfInterpreter, RefusesWhatTheKernelRefuses) {
  SyscallData data;
  EXPECT_FALSE(RunFilter(Program{}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_LD | BPF_W | BPF_ABS, 2), Statement(BPF_RET | BPF_A, 0)}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_LD | BPF_W | BPF_ABS, 64), Statement(BPF_RET | BPF_A, 0)}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_LD | BPF_B | BPF_ABS, 0), Statement(BPF_RET | BPF_A, 0)}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_ALU | BPF_DIV | BPF_K, 0), Statement(BPF_RET | BPF_A, 0)}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_ALU | BPF_MOD | BPF_K, 3), Statement(BPF_RET | BPF_A, 0)}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_JMP | BPF_JA, 5), Statement(BPF_RET | BPF_A, 0)}, data));
  EXPECT_FALSE(RunFilter(Program{Statement(BPF_LD | BPF_IMM, 1)}, data));  // no return
  EXPECT_EQ(DescribeVerdict(SECCOMP_RET_ERRNO | EPERM), "SECCOMP_RET_ERRNO(EPERM)");
  EXPECT_EQ(ActionOf(0x12340000), FilterAction::kKillProcess);  // an action the kernel does not know
}

}  // namespace
}  // namespace chess::seccomp
