#include "seccomp/syscall_table.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <set>

#include "seccomp/arch.h"
#include "seccomp/filter.h"

namespace chess::seccomp {
namespace {

TEST(SyscallTable, SortedWithoutDuplicates) {
  auto table = SyscallTable();
  ASSERT_FALSE(table.empty());
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LT(table[i - 1].nr, table[i].nr);
}

TEST(SyscallTable, TrapsWhatTheSupervisorMustSee) {
  for (long nr : {long{SYS_futex}, long{SYS_clone}, long{SYS_clone3}, long{SYS_exit}, long{SYS_exit_group},
                  long{SYS_sched_yield}, long{SYS_nanosleep}, long{SYS_clock_nanosleep},
                  long{SYS_set_robust_list}, long{SYS_set_tid_address}, long{SYS_rseq},
                  long{SYS_io_uring_setup}, long{SYS_userfaultfd}, long{SYS_ptrace}, kSysFutexWaitv,
                  kSysFutexWait, kSysFutexWake, kSysFutexRequeue, long{SYS_execve}, long{SYS_vfork},
                  long{SYS_wait4}, long{SYS_kill}, long{SYS_read}, long{SYS_accept4}, long{SYS_write},
                  long{SYS_poll}, long{SYS_epoll_wait}, long{SYS_pselect6}, long{SYS_rt_sigsuspend},
                  long{SYS_restart_syscall}, long{SYS_flock}, long{SYS_semop}, long{SYS_splice},
                  long{SYS_seccomp}, long{SYS_prctl}}) {
    EXPECT_NE(FindSyscall(nr), nullptr) << SyscallName(nr);
  }
  EXPECT_EQ(FindSyscall(SYS_getppid), nullptr);
  // Seekable-file I/O never waits for another thread.
  EXPECT_EQ(FindSyscall(SYS_pread64), nullptr);
  EXPECT_EQ(FindSyscall(SYS_pwrite64), nullptr);
}

TEST(SyscallTable, FamiliesFitInSeccompRetData) {
  for (const SyscallRow& row : SyscallTable()) {
    EXPECT_NE(static_cast<uint16_t>(row.family), 0) << row.name << ": 0 marks a foreign ABI";
    EXPECT_FALSE(FamilyName(row.family).empty());
  }
}

TEST(SyscallName, NamesTrappedAndUntrappedCalls) {
  EXPECT_EQ(SyscallName(SYS_futex), "futex");
  EXPECT_EQ(SyscallName(SYS_read), "read");
  EXPECT_EQ(SyscallName(kSysFutexWaitv), "futex_waitv");
  EXPECT_EQ(SyscallName(99999), "syscall_99999");
}

}  // namespace
}  // namespace chess::seccomp
