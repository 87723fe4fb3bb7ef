// What the supervisor asks of a thread's own seccomp filters (supervisor/sandbox.h).
#include "supervisor/sandbox.h"

#include <gtest/gtest.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <time.h>

#include <cstddef>

#include "seccomp/arch.h"
#include "seccomp/hypercall_abi.h"

namespace chess::supervisor {
namespace {

sock_filter Statement(uint16_t code, uint32_t k) { return BPF_STMT(code, k); }
sock_filter Jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { return BPF_JUMP(code, k, jt, jf); }

// A call made from instruction pointer 0x4000 is traced; getppid(5) is allowed and getppid with
// another argument kills; every other call is allowed.
std::vector<sock_filter> Filter() {
  return {
      Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp::SyscallData, instruction_pointer)),
      Jump(BPF_JMP | BPF_JEQ | BPF_K, 0x4000, 0, 1),
      Statement(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 1),
      Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp::SyscallData, nr)),
      Jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 2),
      Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp::SyscallData, args)),
      Jump(BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 1),
      Statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      Statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
  };
}

Registers CallRegisters(uint64_t first_arg, uint64_t ip) {
  Registers regs;
  regs.SetArg(0, first_arg);
  regs.raw().rip = ip;
  return regs;
}

TEST(Sandbox, AThreadWithoutFiltersMayMakeAnyCall) {
  Thread thread;
  const seccomp::SyscallData call = SeccompDataOf(SYS_getppid, CallRegisters(7, 0x1000), 0x1000);
  EXPECT_TRUE(FiltersPermit(thread, call, false));
  EXPECT_TRUE(FiltersPermit(thread, call, true));
  EXPECT_EQ(ProgramVerdict(thread, call), SECCOMP_RET_ALLOW);
}

TEST(Sandbox, TheFiltersSeeTheNumberArgumentsAndInstructionPointer) {
  Thread thread;
  thread.filters = thread.filters.With(Filter());
  const seccomp::SyscallData allowed = SeccompDataOf(SYS_getppid, CallRegisters(5, 0x1000), 0x1000);
  EXPECT_EQ(allowed.arch, seccomp::kAuditArch);
  EXPECT_TRUE(FiltersPermit(thread, allowed, false));
  const seccomp::SyscallData refused = SeccompDataOf(SYS_getppid, CallRegisters(6, 0x1000), 0x1000);
  EXPECT_FALSE(FiltersPermit(thread, refused, true));
  EXPECT_EQ(ProgramVerdict(thread, refused), SECCOMP_RET_KILL_PROCESS);
  EXPECT_TRUE(FiltersPermit(thread, SeccompDataOf(SYS_getpid, CallRegisters(6, 0x1000), 0x1000), false));
}

// A RET_TRACE hands a fresh call to the tracer (not the kernel), but lets a call the tracer
// changed at its stop run when the filters judge it again.
TEST(Sandbox, ATraceOfTheProgramsOwnPermitsOnlyARecheck) {
  Thread thread;
  thread.filters = thread.filters.With(Filter());
  const seccomp::SyscallData traced = SeccompDataOf(SYS_getpid, CallRegisters(0, 0x4000), 0x4000);
  EXPECT_FALSE(FiltersPermit(thread, traced, false));
  EXPECT_TRUE(FiltersPermit(thread, traced, true));
}

TEST(Sandbox, TheVdsoCallsAreNamedWithTheirClock) {
  uint64_t args[6] = {CLOCK_MONOTONIC};
  EXPECT_EQ(VdsoCallName(SYS_clock_gettime, args), "clock_gettime(CLOCK_MONOTONIC)");
  EXPECT_EQ(VdsoCallName(SYS_clock_getres, args), "clock_getres(CLOCK_MONOTONIC)");
  args[0] = CLOCK_PROCESS_CPUTIME_ID;  // the vDSO makes this one a syscall itself
  EXPECT_FALSE(VdsoCallName(SYS_clock_gettime, args));
  EXPECT_EQ(VdsoCallName(SYS_gettimeofday, args), "gettimeofday");
  EXPECT_EQ(VdsoCallName(SYS_time, args), "time");
  EXPECT_EQ(VdsoCallName(SYS_getcpu, args), "getcpu");
  EXPECT_FALSE(VdsoCallName(SYS_getppid, args));
}

// Kills gettimeofday; allows every other call.
std::vector<sock_filter> KillsGettimeofday() {
  return {
      Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp::SyscallData, nr)),
      Jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, 0, 1),
      Statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      Statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
}

TEST(Sandbox, ACallTheVdsoWouldMakeIsRefusedOnlyUnderFiltersThatRefuseIt) {
  Thread thread;
  EXPECT_EQ(RefusedVdsoCall(thread), std::nullopt);
  thread.filters = thread.filters.With(Filter());  // traces from 0x4000 only: allows the vDSO's calls
  EXPECT_EQ(RefusedVdsoCall(thread), std::nullopt);
  thread.filters = Thread{}.filters.With(KillsGettimeofday());
  const std::optional<std::string> refused = RefusedVdsoCall(thread);
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->find("for gettimeofday"), std::string::npos) << *refused;
}

TEST(Sandbox, RefusedHypercallsAndHiddenVdsoCallsAreChessTracesInterference) {
  const uint64_t args[6] = {};
  EXPECT_TRUE(Interference(CHESS_HYPERCALL_BASE, args, false).has_value());
  EXPECT_TRUE(Interference(SYS_gettimeofday, args, true).has_value());
  EXPECT_FALSE(Interference(SYS_gettimeofday, args, false).has_value());  // the program's own call
  EXPECT_FALSE(Interference(SYS_getppid, args, true).has_value());
}

}  // namespace
}  // namespace chess::supervisor
