#include "seccomp/filter.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <sys/syscall.h>

#include <cerrno>

#include "seccomp/arch.h"
#include "tests/unit/bpf_interpreter.h"

namespace chess::seccomp {
namespace {

seccomp_data Call(int nr, uint32_t arch = AUDIT_ARCH_X86_64) {
  seccomp_data data{};
  data.nr = nr;
  data.arch = arch;
  return data;
}

TEST(Filter, EveryTableRowTrapsWithItsFamilyAndEverythingElseRuns) {
  auto program = CompileFilter(SyscallTable());
  ASSERT_TRUE(program.ok()) << program.error();
  for (int nr = 0; nr < 1100; ++nr) {
    auto verdict = testing::RunSeccompFilter(program->instructions, Call(nr));
    ASSERT_TRUE(verdict.has_value()) << "filter did not return for nr " << nr;
    if (const SyscallRow* row = FindSyscall(nr)) {
      EXPECT_EQ(*verdict, SECCOMP_RET_TRACE | static_cast<uint16_t>(row->family)) << row->name;
    } else {
      EXPECT_EQ(*verdict, SECCOMP_RET_ALLOW) << SyscallName(nr);
    }
  }
}

TEST(Filter, ForeignAbisFailWithEnosysInsteadOfEscapingTheSerializer) {
  auto program = CompileFilter(SyscallTable());
  ASSERT_TRUE(program.ok());
  auto i386 = testing::RunSeccompFilter(program->instructions, Call(240 /* futex */, AUDIT_ARCH_I386));
  ASSERT_TRUE(i386.has_value());
  EXPECT_EQ(*i386, SECCOMP_RET_ERRNO | ENOSYS);
  auto x32 = testing::RunSeccompFilter(program->instructions, Call(0x40000000 | SYS_futex));
  ASSERT_TRUE(x32.has_value());
  EXPECT_EQ(*x32, SECCOMP_RET_ERRNO | ENOSYS);
}

}  // namespace
}  // namespace chess::seccomp
