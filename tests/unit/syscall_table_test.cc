#include "seccomp/syscall_table.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <map>
#include <set>
#include <string_view>

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
                  long{SYS_seccomp}, long{SYS_prctl}, long{SYS_rt_sigaction}, long{SYS_rt_sigprocmask}}) {
    EXPECT_NE(FindSyscall(nr), nullptr) << SyscallName(nr);
  }
  EXPECT_EQ(FindSyscall(SYS_getppid), nullptr);
  // Seekable-file I/O never waits for another thread.
  EXPECT_EQ(FindSyscall(SYS_pread64), nullptr);
  EXPECT_EQ(FindSyscall(SYS_pwrite64), nullptr);
}

TEST(SyscallTable, EveryFamilyHasRows) {
  std::set<SyscallFamily> with_rows;
  for (const SyscallRow& row : SyscallTable()) {
    ASSERT_LT(static_cast<size_t>(row.family), kFamilyCount) << row.name;
    with_rows.insert(row.family);
  }
  EXPECT_EQ(with_rows.size(), kFamilyCount);
}

TEST(FamilyRegistry, NamesAreUniqueAndDataBitsAreNotObserveOnly) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kFamilyCount; ++i) {
    const FamilyProperties& family = PropertiesOf(static_cast<SyscallFamily>(i));
    EXPECT_FALSE(family.name.empty()) << i;
    EXPECT_TRUE(names.insert(family.name).second) << family.name;
    EXPECT_NE(i, kObserveOnly) << family.name;
  }
}

TEST(FamilyRegistry, NamesAreThoseFamilyNameGave) {
  using F = SyscallFamily;
  const std::map<F, std::string_view> names = {
      {F::kFutex, "futex"},         {F::kClone, "clone"},         {F::kExit, "exit"},
      {F::kExec, "exec"},           {F::kYield, "yield"},         {F::kSleep, "sleep"},
      {F::kThreadSetup, "thread-setup"}, {F::kAffinity, "affinity"}, {F::kRefused, "refused"},
      {F::kWait, "wait"},           {F::kSignal, "signal"},       {F::kInput, "input"},
      {F::kHypercall, "hypercall"}, {F::kOutput, "output"},       {F::kPoll, "poll"},
      {F::kSplice, "splice"},       {F::kSignalWait, "signal-wait"}, {F::kRestart, "restart"},
      {F::kFileLock, "file-lock"},  {F::kIpc, "ipc"},             {F::kTime, "time"},
      {F::kRandom, "random"},       {F::kTimer, "timer"},         {F::kPublish, "publish"},
      {F::kSeccomp, "seccomp"},     {F::kSignalState, "signal-state"}, {F::kPrctl, "prctl"},
      {F::kClockSet, "clock-set"},
      {F::kPtrace, "ptrace"},       {F::kCodeMapping, "code-mapping"},
  };
  ASSERT_EQ(names.size(), kFamilyCount);
  for (const auto& [family, name] : names) EXPECT_EQ(PropertiesOf(family).name, name);
}

// The families that have a property, as the supervisor's functions named them before the registry.
std::set<SyscallFamily> FamiliesWith(bool FamilyProperties::*property) {
  std::set<SyscallFamily> families;
  for (size_t i = 0; i < kFamilyCount; ++i) {
    if (kFamilies[i].*property) families.insert(static_cast<SyscallFamily>(i));
  }
  return families;
}

TEST(FamilyRegistry, PropertiesAreThoseOfTheFunctionsItReplaced) {
  using F = SyscallFamily;
  // ForkableFamily (supervisor_fork.cc).
  EXPECT_EQ(FamiliesWith(&FamilyProperties::fork_safe),
            (std::set<F>{F::kExec, F::kThreadSetup, F::kRefused, F::kTime, F::kRandom, F::kAffinity, F::kHypercall,
                         F::kInput, F::kOutput, F::kSleep, F::kYield, F::kSeccomp, F::kSignalState,
                         F::kPrctl, F::kCodeMapping}));
  // RestartsWithRestartSyscall (signals.cc).
  EXPECT_EQ(FamiliesWith(&FamilyProperties::restarts_with_restart_syscall),
            (std::set<F>{F::kSleep, F::kFutex, F::kPoll}));
  // The file-lock case of the outside-world verdict (io.cc).
  EXPECT_EQ(FamiliesWith(&FamilyProperties::wait_ended_by_lock_holders), (std::set<F>{F::kFileLock}));
}

TEST(SyscallName, NamesTrappedAndUntrappedCalls) {
  EXPECT_EQ(SyscallName(SYS_futex), "futex");
  EXPECT_EQ(SyscallName(SYS_read), "read");
  EXPECT_EQ(SyscallName(kSysFutexWaitv), "futex_waitv");
  EXPECT_EQ(SyscallName(99999), "syscall_99999");
}

}  // namespace
}  // namespace chess::seccomp

namespace chess::seccomp {
namespace {

bool Traps(const std::vector<SyscallRow>& rows, long nr) {
  for (const SyscallRow& row : rows) {
    if (row.nr == nr) return true;
  }
  return false;
}

TEST(TrappedRows, CodeMappingsOnlyWithAtomicPointsAndOnlyWhenTheyMakeCodeExecutable) {
  EXPECT_FALSE(Traps(TrappedRows({}), SYS_mmap));
  EXPECT_FALSE(Traps(TrappedRows({.cross_process = true}), SYS_mprotect));
  const std::vector<SyscallRow> rows = TrappedRows({.code_mappings = true});
  for (long nr : {long{SYS_mmap}, long{SYS_mprotect}, long{SYS_pkey_mprotect}}) {
    ASSERT_TRUE(Traps(rows, nr)) << nr;
    const SyscallRow& row = *FindSyscall(nr);
    EXPECT_EQ(row.family, SyscallFamily::kCodeMapping);
    const uint64_t code[6] = {0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, 3, 0};
    const uint64_t data[6] = {0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, 3, 0};
    EXPECT_TRUE(row.when.Matches(code));
    EXPECT_FALSE(row.when.Matches(data));
  }
  EXPECT_FALSE(Traps(TrappedRows({.code_mappings = true}), SYS_bind));  // the layers are independent
  EXPECT_TRUE(Traps(TrappedRows({.cross_process = true}), SYS_bind));
}

}  // namespace
}  // namespace chess::seccomp
