#include "seccomp/filter.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/syscall.h>

#include <cerrno>

#include "seccomp/arch.h"
#include "seccomp/bpf_interpreter.h"

namespace chess::seccomp {
namespace {

SyscallData Call(int nr, uint32_t arch = AUDIT_ARCH_X86_64) {
  SyscallData data{};
  data.nr = nr;
  data.arch = arch;
  return data;
}

TEST(Filter, EveryTableRowTrapsWithItsFamilyAndEverythingElseRuns) {
  auto program = CompileFilter(SyscallTable());
  ASSERT_TRUE(program.ok()) << program.error();
  for (int nr = 0; nr < 1100; ++nr) {
    auto verdict = RunFilter(program->instructions, Call(nr));
    ASSERT_TRUE(verdict.has_value()) << "filter did not return for nr " << nr;
    if (const SyscallRow* row = FindSyscall(nr)) {
      const uint64_t zero_args[6] = {};
      const uint32_t expected = row->when.Matches(zero_args)
                                    ? SECCOMP_RET_TRACE | static_cast<uint16_t>(row->family)
                                    : SECCOMP_RET_ALLOW;
      EXPECT_EQ(*verdict, expected) << row->name;
    } else {
      EXPECT_EQ(*verdict, SECCOMP_RET_ALLOW) << SyscallName(nr);
    }
  }
}

// fcntl and flock trap only the calls that can wait for a lock: the rest stay at full speed.
TEST(Filter, ConditionalRowsTrapOnlyTheCallsThatCanWait) {
  auto program = CompileFilter(SyscallTable());
  ASSERT_TRUE(program.ok()) << program.error();
  auto verdict = [&](int nr, uint64_t arg1) {
    SyscallData data = Call(nr);
    data.args[1] = arg1;
    return RunFilter(program->instructions, data).value_or(0);
  };
  const uint32_t lock_trap = SECCOMP_RET_TRACE | static_cast<uint16_t>(SyscallFamily::kFileLock);
  EXPECT_EQ(verdict(SYS_fcntl, F_SETLKW), lock_trap);
  EXPECT_EQ(verdict(SYS_fcntl, F_OFD_SETLKW), lock_trap);
  EXPECT_EQ(verdict(SYS_fcntl, F_OFD_SETLKW | 0x100000000ull), lock_trap);  // the kernel reads an int
  EXPECT_EQ(verdict(SYS_fcntl, F_SETLK), SECCOMP_RET_ALLOW);
  EXPECT_EQ(verdict(SYS_fcntl, F_GETFL), SECCOMP_RET_ALLOW);
  EXPECT_EQ(verdict(SYS_flock, LOCK_EX), lock_trap);
  EXPECT_EQ(verdict(SYS_flock, LOCK_SH), lock_trap);
  EXPECT_EQ(verdict(SYS_flock, LOCK_EX | LOCK_NB), SECCOMP_RET_ALLOW);
  EXPECT_EQ(verdict(SYS_flock, LOCK_UN), SECCOMP_RET_ALLOW);
}

TEST(Filter, ForeignAbisFailWithEnosysInsteadOfEscapingTheSerializer) {
  auto program = CompileFilter(SyscallTable());
  ASSERT_TRUE(program.ok());
  auto i386 = RunFilter(program->instructions, Call(240 /* futex */, AUDIT_ARCH_I386));
  ASSERT_TRUE(i386.has_value());
  EXPECT_EQ(*i386, SECCOMP_RET_ERRNO | ENOSYS);
  auto x32 = RunFilter(program->instructions, Call(0x40000000 | SYS_futex));
  ASSERT_TRUE(x32.has_value());
  EXPECT_EQ(*x32, SECCOMP_RET_ERRNO | ENOSYS);
  // i386's clock_settime, stime and clock_gettime neither set nor read the host's clock.
  for (int nr : {264 /* clock_settime */, 25 /* stime */, 265 /* clock_gettime */, 120 /* clone */}) {
    EXPECT_EQ(RunFilter(program->instructions, Call(nr, AUDIT_ARCH_I386)), SECCOMP_RET_ERRNO | ENOSYS) << nr;
  }
}

TEST(Filter, I386ExitsStopAsTheExitFamilysAndAFewHarmlessCallsRun) {
  auto program = CompileFilter(SyscallTable());
  ASSERT_TRUE(program.ok());
  const uint32_t exit_trap = SECCOMP_RET_TRACE | static_cast<uint16_t>(SyscallFamily::kExit);
  EXPECT_EQ(RunFilter(program->instructions, Call(1 /* exit */, AUDIT_ARCH_I386)), exit_trap);
  EXPECT_EQ(RunFilter(program->instructions, Call(252 /* exit_group */, AUDIT_ARCH_I386)), exit_trap);
  for (int nr : {3 /* read */, 4 /* write */, 6 /* close */, 20 /* getpid */, 146 /* writev */}) {
    EXPECT_EQ(RunFilter(program->instructions, Call(nr, AUDIT_ARCH_I386)), SECCOMP_RET_ALLOW) << nr;
  }
  // The native ABI is judged as before: the prologue is passed over.
  EXPECT_EQ(RunFilter(program->instructions, Call(SYS_getppid)), SECCOMP_RET_ALLOW);
  EXPECT_EQ(RunFilter(program->instructions, Call(SYS_exit_group)), exit_trap);
}

}  // namespace
}  // namespace chess::seccomp
