// Breakpoints over the program's instructions (supervisor/breakpoints.h): the relocation of an
// instruction to its out-of-line slot, the slots, the table; then a real traced child whose
// atomic loop runs through planted breakpoints and must count exactly as it does untraced.
#include "supervisor/breakpoints.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "supervisor/ptrace/ptrace.h"
#include "supervisor/ptrace/registers.h"

extern "C" {
// A `lock xadd` on a rip-relative global, and a `lock cmpxchg` through a register, each labelled.
extern const unsigned char breakpoints_test_xadd[];
extern const unsigned char breakpoints_test_xadd_end[];
extern const unsigned char breakpoints_test_cmpxchg[];
extern const unsigned char breakpoints_test_cmpxchg_end[];
uint64_t breakpoints_test_counter;
}

namespace chess::supervisor {
namespace {

int32_t Rel32At(const std::vector<uint8_t>& bytes, size_t offset) {
  int32_t value;
  std::memcpy(&value, bytes.data() + offset, sizeof(value));
  return value;
}

// lock xadd %rax, 0x100(%rip): f0 48 0f c1 05 <disp32>
PatchableInstruction RipRelativeXadd(uint64_t address, int32_t displacement) {
  PatchableInstruction instruction{.address = address, .bytes = {0xf0, 0x48, 0x0f, 0xc1, 0x05, 0, 0, 0, 0},
                                   .rip_displacement_at = 5};
  std::memcpy(instruction.bytes.data() + 5, &displacement, sizeof(displacement));
  return instruction;
}

// The process's memory as a map of written bytes; a write can be refused.
class FakeText final : public ProcessText {
 public:
  bool Write(uint64_t address, const void* bytes, size_t size) override {
    if (refuse) return false;
    for (size_t i = 0; i < size; ++i) memory[address + i] = static_cast<const uint8_t*>(bytes)[i];
    return true;
  }
  std::map<uint64_t, uint8_t> memory;
  bool refuse = false;
};

TEST(RelocatedCopy, MovesTheDisplacementAndJumpsBack) {
  const uint64_t code = 0x555555554000, slot = 0x555545554000;
  const auto copy = RelocatedCopy(RipRelativeXadd(code, 0x100), slot);
  ASSERT_TRUE(copy);
  ASSERT_EQ(copy->size(), 9u + kJumpLength);
  // The operand is still at code + 9 + 0x100, now seen from slot + 9.
  EXPECT_EQ(slot + 9 + static_cast<int64_t>(Rel32At(*copy, 5)), code + 9 + 0x100);
  EXPECT_EQ((*copy)[9], 0xe9);
  EXPECT_EQ(slot + 9 + kJumpLength + static_cast<int64_t>(Rel32At(*copy, 10)), code + 9);
  // The rest of the encoding is untouched.
  EXPECT_EQ(std::vector<uint8_t>(copy->begin(), copy->begin() + 5), std::vector<uint8_t>({0xf0, 0x48, 0x0f, 0xc1, 0x05}));
}

TEST(RelocatedCopy, LeavesAnInstructionWithoutRipOperandAsItIs) {
  // lock cmpxchg %rcx, (%rdx): f0 48 0f b1 0a
  const PatchableInstruction cmpxchg{.address = 0x401000, .bytes = {0xf0, 0x48, 0x0f, 0xb1, 0x0a}, .rip_displacement_at = {}};
  const auto copy = RelocatedCopy(cmpxchg, 0x402000);
  ASSERT_TRUE(copy);
  EXPECT_EQ(std::vector<uint8_t>(copy->begin(), copy->begin() + 5), cmpxchg.bytes);
  EXPECT_EQ(0x402000 + 5 + kJumpLength + static_cast<int64_t>(Rel32At(*copy, 6)), 0x401005u);
}

TEST(RelocatedCopy, RefusesControlFlowAndWhatDoesNotReach) {
  PatchableInstruction call{.address = 0x401000, .bytes = {0xe8, 0, 0, 0, 0}, .rip_displacement_at = {}, .uses_rip_for_control = true};
  EXPECT_FALSE(RelocatedCopy(call, 0x402000));
  // The slot 3 GiB away: neither the jump back nor the displacement reaches.
  EXPECT_FALSE(RelocatedCopy(RipRelativeXadd(0x401000, 0x100), 0x401000 + (uint64_t{3} << 30)));
  // The displacement's target at the edge of the original's reach, the slot on the other side.
  EXPECT_FALSE(RelocatedCopy(RipRelativeXadd(0x80000000, 0x7ffffff0), 0x80000000 - (uint64_t{1} << 20)));
  EXPECT_FALSE(RelocatedCopy(PatchableInstruction{.address = 0x401000, .bytes = {}, .rip_displacement_at = {}}, 0x402000));
  // A displacement said to lie past the instruction's end.
  EXPECT_FALSE(RelocatedCopy(PatchableInstruction{.address = 0x401000, .bytes = {0x90, 0x90}, .rip_displacement_at = 0},
                             0x402000));
}

TEST(OutOfLinePages, SlotsComeFromPagesWithinReachOnly) {
  OutOfLinePages pages;
  EXPECT_FALSE(pages.TakeSlot(0x401000));
  pages.Add(0x7f0000000000, OutOfLinePages::kPageSize);
  EXPECT_FALSE(pages.TakeSlot(0x401000));  // far away: the library's page serves the library
  pages.Add(0x300000, OutOfLinePages::kPageSize);
  const auto first = pages.TakeSlot(0x401000);
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, 0x300000u);
  EXPECT_EQ(*pages.TakeSlot(0x401000), 0x300000u + kOutOfLineSlot);
  pages.GiveBack(*first);
  EXPECT_EQ(*pages.TakeSlot(0x401000), 0x300000u);
  // A page holds size / slot copies, then is spent.
  size_t taken = 2;
  while (pages.TakeSlot(0x401000)) ++taken;
  EXPECT_EQ(taken, OutOfLinePages::kPageSize / kOutOfLineSlot);
}

TEST(OutOfLinePages, CandidatesWalkAwayFromTheCodeAndStayInReach) {
  const uint64_t code = 0x555555556123;
  const auto first = OutOfLinePages::Candidate(code, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(*first % OutOfLinePages::kPageSize, 0u);
  EXPECT_LT(*first, code);
  uint64_t previous = *first;
  int attempt = 1;
  while (auto next = OutOfLinePages::Candidate(code, attempt)) {
    if (*next < code) {
      EXPECT_LT(*next, previous);
    }
    EXPECT_LT(*next > code ? *next - code : code - *next, uint64_t{1} << 31);
    previous = *next;
    ++attempt;
  }
  EXPECT_GT(attempt, 2);
  EXPECT_FALSE(OutOfLinePages::Candidate(code, -1));
  // Near address zero there is nothing below the floor, and the places above are still offered.
  EXPECT_FALSE(OutOfLinePages::Candidate(0x1000, 0));
  int offered = 0;
  for (int i = 0; i < OutOfLinePages::kCandidates; ++i) {
    if (auto place = OutOfLinePages::Candidate(0x401000, i)) {
      EXPECT_GE(*place, OutOfLinePages::kLowestPage);
      ++offered;
    }
  }
  EXPECT_GT(offered, OutOfLinePages::kCandidates / 2);
  EXPECT_FALSE(OutOfLinePages::Candidate(0x401000, OutOfLinePages::kCandidates));
}

TEST(BreakpointTable, AnOperandOutOfThePagesReachAsksForANearerPage) {
  BreakpointTable table;
  FakeText text;
  const uint64_t code = uint64_t{8} << 30;
  table.Pages().Add(code - (uint64_t{1} << 30), OutOfLinePages::kPageSize);  // reaches the code only
  // The operand 1.625 GiB above the code: the page 1 GiB below cannot name it.
  const auto xadd = RipRelativeXadd(code, 0x68000000);
  EXPECT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kNeedsPage);
  table.Pages().Add(code - (uint64_t{1} << 20), OutOfLinePages::kPageSize);
  EXPECT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kPlanted);
  EXPECT_EQ(table.AtTrap(code + 1)->out_of_line, code - (uint64_t{1} << 20));
}

TEST(BreakpointTable, EveryStopMapsBackToTheProgramsAddressAndNoSlotIsReused) {
  BreakpointTable table;
  FakeText text;
  table.Pages().Add(0x300000, OutOfLinePages::kPageSize);
  ASSERT_EQ(table.Plant(RipRelativeXadd(0x401000, 0x10), text), BreakpointTable::Planted::kPlanted);
  EXPECT_EQ(table.ProgramAddress(0x401001), 0x401000u);       // just after the int3
  EXPECT_EQ(table.ProgramAddress(0x300000), 0x401000u);       // at the copy
  EXPECT_EQ(table.ProgramAddress(0x300000 + 9), 0x401009u);   // after it, at the jump back
  EXPECT_EQ(table.ProgramAddress(0x300000 + 12), 0x401009u);  // inside the jump
  EXPECT_EQ(table.ProgramAddress(0x300000 + 14), 0x300000u + 14);  // past it: not a copy
  EXPECT_EQ(table.ProgramAddress(0x402000), 0x402000u);
  ASSERT_TRUE(table.Remove(0x401000, text));
  // A thread may still be stopped in the removed breakpoint's copy: it maps back, and the slot
  // goes to no other instruction.
  EXPECT_EQ(table.ProgramAddress(0x300000 + 9), 0x401009u);
  ASSERT_EQ(table.Plant(RipRelativeXadd(0x401100, 0x10), text), BreakpointTable::Planted::kPlanted);
  EXPECT_EQ(table.AtTrap(0x401101)->out_of_line, 0x300000u + kOutOfLineSlot);
}

TEST(BreakpointTable, PlantsTheCopyThenTheInt3AndFindsItAtTheTrap) {
  BreakpointTable table;
  FakeText text;
  const auto xadd = RipRelativeXadd(0x401000, 0x2000);
  EXPECT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kNeedsPage);
  EXPECT_TRUE(text.memory.empty());
  table.Pages().Add(0x300000, OutOfLinePages::kPageSize);
  EXPECT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kPlanted);
  EXPECT_EQ(text.memory[0x401000], kInt3);
  EXPECT_EQ(text.memory[0x300000], 0xf0);  // the copy's first byte
  EXPECT_EQ(text.memory[0x300000 + 9], 0xe9);
  EXPECT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kAlreadyPlanted);

  const Breakpoint* at = table.AtTrap(0x401001);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at->address, 0x401000u);
  EXPECT_EQ(BreakpointTable::ResumeAt(*at), 0x300000u);
  EXPECT_EQ(at->original, 0xf0);
  EXPECT_EQ(table.AtTrap(0x401000), nullptr);  // a trap one byte earlier is not ours
  EXPECT_EQ(table.AtTrap(0x401002), nullptr);

  ASSERT_TRUE(table.Remove(0x401000, text));
  EXPECT_EQ(text.memory[0x401000], 0xf0);
  EXPECT_EQ(table.AtTrap(0x401001), nullptr);
  EXPECT_FALSE(table.Remove(0x401000, text));
}

// A thread can run an int3 and be parked by an interrupt before its SIGTRAP is reported; another
// thread may retire the breakpoint meanwhile. The late trap must still be known as the
// supervisor's (CI saw atomic_storm killed by it), and only where an int3 of the table was.
TEST(BreakpointTable, ATrapAtARemovedBreakpointIsKnownUntilItIsPlantedAgain) {
  BreakpointTable table;
  FakeText text;
  table.Pages().Add(0x300000, OutOfLinePages::kPageSize);
  const auto xadd = RipRelativeXadd(0x401000, 0x10);
  ASSERT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kPlanted);
  EXPECT_FALSE(table.RemovedAtTrap(0x401001));  // planted: AtTrap's
  ASSERT_TRUE(table.Remove(0x401000, text));
  EXPECT_EQ(table.AtTrap(0x401001), nullptr);
  EXPECT_TRUE(table.RemovedAtTrap(0x401001));
  EXPECT_FALSE(table.RemovedAtTrap(0x401000));  // one byte earlier: not after that int3
  EXPECT_FALSE(table.RemovedAtTrap(0x401002));
  EXPECT_FALSE(table.RemovedAtTrap(0x500001));  // never planted there: the program's own
  EXPECT_FALSE(table.RemovedAtTrap(0));
  ASSERT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kPlanted);
  EXPECT_FALSE(table.RemovedAtTrap(0x401001));
  EXPECT_NE(table.AtTrap(0x401001), nullptr);
  // A fork's child had the same int3s; an exec's image never had them.
  ASSERT_TRUE(table.Remove(0x401000, text));
  EXPECT_TRUE(table.CopyForFork().RemovedAtTrap(0x401001));
  table.Forget();
  EXPECT_FALSE(table.RemovedAtTrap(0x401001));
}

TEST(BreakpointTable, AFailedWriteLeavesNoBreakpointAndKeepsTheSlot) {
  BreakpointTable table;
  FakeText text;
  table.Pages().Add(0x300000, OutOfLinePages::kPageSize);
  text.refuse = true;
  EXPECT_EQ(table.Plant(RipRelativeXadd(0x401000, 0x10), text), BreakpointTable::Planted::kWriteFailed);
  EXPECT_EQ(table.Size(), 0u);
  text.refuse = false;
  EXPECT_EQ(table.Plant(RipRelativeXadd(0x401000, 0x10), text), BreakpointTable::Planted::kPlanted);
  EXPECT_EQ(table.AtTrap(0x401001)->out_of_line, 0x300000u);
}

TEST(BreakpointTable, AForkKeepsTheBreakpointsAndAnExecForgetsThem) {
  BreakpointTable table;
  FakeText text;
  table.Pages().Add(0x300000, OutOfLinePages::kPageSize);
  ASSERT_EQ(table.Plant(RipRelativeXadd(0x401000, 0x10), text), BreakpointTable::Planted::kPlanted);
  BreakpointTable child = table.CopyForFork();
  EXPECT_NE(child.AtTrap(0x401001), nullptr);
  child.Forget();
  EXPECT_EQ(child.AtTrap(0x401001), nullptr);
  EXPECT_FALSE(child.Pages().TakeSlot(0x401000));
  EXPECT_NE(table.AtTrap(0x401001), nullptr);
}

// A child adding through both atomic instructions, traced: every execution of either stops at
// its int3 and runs out of line; the count must be exact and every trap must be ours.
[[gnu::noinline]] void AtomicLoop(long times) {
  for (long i = 0; i < times; ++i) {
    uint64_t one = 1;
    asm volatile(
        ".globl breakpoints_test_xadd\n"
        "breakpoints_test_xadd:\n"
        "lock xaddq %0, breakpoints_test_counter(%%rip)\n"
        ".globl breakpoints_test_xadd_end\n"
        "breakpoints_test_xadd_end:\n"
        : "+r"(one)
        :
        : "memory");
    uint64_t expected = breakpoints_test_counter;
    const uint64_t desired = expected + 1;
    uint64_t* counter = &breakpoints_test_counter;
    asm volatile(
        ".globl breakpoints_test_cmpxchg\n"
        "breakpoints_test_cmpxchg:\n"
        "lock cmpxchgq %2, (%1)\n"
        ".globl breakpoints_test_cmpxchg_end\n"
        "breakpoints_test_cmpxchg_end:\n"
        : "+a"(expected)
        : "r"(counter), "r"(desired)
        : "memory", "cc");
  }
}

PatchableInstruction Labelled(const unsigned char* start, const unsigned char* end, std::optional<uint8_t> rip_at) {
  return {.address = reinterpret_cast<uint64_t>(start),
          .bytes = std::vector<uint8_t>(start, end),
          .rip_displacement_at = rip_at};
}

TEST(BreakpointTableInAProcess, AnAtomicLoopRunsOutOfLineAndCountsExactly) {
  constexpr long kTimes = 2000;
  const auto xadd = Labelled(breakpoints_test_xadd, breakpoints_test_xadd_end, 5);
  const auto cmpxchg = Labelled(breakpoints_test_cmpxchg, breakpoints_test_cmpxchg_end, std::nullopt);
  ASSERT_EQ(xadd.bytes.size(), 9u);
  ASSERT_EQ(xadd.bytes[3], 0xc1);
  // The page, mapped before the fork at the first candidate that is free: the child has it too.
  void* page = MAP_FAILED;
  for (int attempt = 0; page == MAP_FAILED; ++attempt) {
    const auto candidate = OutOfLinePages::Candidate(xadd.address, attempt);
    ASSERT_TRUE(candidate);
    page = mmap(reinterpret_cast<void*>(*candidate), OutOfLinePages::kPageSize, PROT_READ | PROT_EXEC,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  }
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  if (child == 0) {
    char byte;
    (void)!read(go[0], &byte, 1);
    AtomicLoop(kTimes);
    _exit(breakpoints_test_counter == 2 * kTimes ? 0 : 3);
  }
  munmap(page, OutOfLinePages::kPageSize);
  ASSERT_EQ(ptrace::Seize(child), 0);
  ASSERT_TRUE(ptrace::Interrupt(child));
  ASSERT_TRUE(ptrace::WaitFor(child));
  BreakpointTable table;
  table.Pages().Add(reinterpret_cast<uint64_t>(page), OutOfLinePages::kPageSize);
  ProcessMemoryText text(child);
  ASSERT_TRUE(text.Opened());
  EXPECT_EQ(table.Plant(xadd, text), BreakpointTable::Planted::kPlanted);
  EXPECT_EQ(table.Plant(cmpxchg, text), BreakpointTable::Planted::kPlanted);
  ASSERT_TRUE(ptrace::Resume(child));
  (void)!write(go[1], "x", 1);
  long traps = 0, foreign_traps = 0;
  int exit_code = -1;
  Registers regs;
  while (auto event = ptrace::WaitFor(child)) {
    if (event->kind == ptrace::StopKind::kExited || event->kind == ptrace::StopKind::kKilled) {
      exit_code = event->kind == ptrace::StopKind::kExited ? event->value : 128 + event->value;
      break;
    }
    if (event->kind == ptrace::StopKind::kSignal && event->value == SIGTRAP && ptrace::GetRegisters(child, regs)) {
      if (const Breakpoint* at = table.AtTrap(regs.raw().rip)) {
        ++traps;
        regs.raw().rip = BreakpointTable::ResumeAt(*at);
        ASSERT_TRUE(ptrace::SetRegisters(child, regs));
        ASSERT_TRUE(ptrace::Resume(child));
        continue;
      }
      ++foreign_traps;
    }
    ptrace::Resume(child, event->kind == ptrace::StopKind::kSignal ? event->value : 0);
  }
  close(go[0]);
  close(go[1]);
  EXPECT_EQ(exit_code, 0);
  EXPECT_EQ(traps, 2 * kTimes);
  EXPECT_EQ(foreign_traps, 0);
}

}  // namespace
}  // namespace chess::supervisor
