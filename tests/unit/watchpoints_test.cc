// Hardware watchpoints (supervisor/watchpoints.h): the DR7 encoding, the aligned covers of an
// access, one thread's slots; then a real traced child whose accesses to a watched word stop it,
// and whose forked child, which does not inherit the debug registers, does not stop.
#include "supervisor/watchpoints.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "supervisor/ptrace/ptrace.h"
#include "supervisor/ptrace/registers.h"

namespace chess::supervisor {
namespace {

using Trigger = Watch::Trigger;

TEST(AlignedCover, OneWatchWhenOneAlignedSpanHoldsTheBytes) {
  EXPECT_EQ(AlignedCover(0x1003, 1, Trigger::kWrite),
            std::vector<Watch>({{.address = 0x1003, .length = 1, .trigger = Trigger::kWrite}}));
  EXPECT_EQ(AlignedCover(0x1004, 4, Trigger::kReadWrite),
            std::vector<Watch>({{.address = 0x1004, .length = 4, .trigger = Trigger::kReadWrite}}));
  // Two bytes across a 2-byte boundary: the 4-byte span holds them.
  EXPECT_EQ(AlignedCover(0x1001, 2, Trigger::kWrite),
            std::vector<Watch>({{.address = 0x1000, .length = 4, .trigger = Trigger::kWrite}}));
  // Four bytes across a 4-byte boundary, inside one word.
  EXPECT_EQ(AlignedCover(0x1002, 4, Trigger::kWrite),
            std::vector<Watch>({{.address = 0x1000, .length = 8, .trigger = Trigger::kWrite}}));
}

TEST(AlignedCover, AWordEachWhenTheBytesCrossAWord) {
  const auto cover = AlignedCover(0x1006, 4, Trigger::kWrite);
  ASSERT_EQ(cover.size(), 2u);
  EXPECT_EQ(cover[0].address, 0x1000u);
  EXPECT_EQ(cover[1].address, 0x1008u);
  EXPECT_EQ(AlignedCover(0x1000, 16, Trigger::kReadWrite).size(), 2u);
  EXPECT_EQ(AlignedCover(0x1007, 16, Trigger::kReadWrite).size(), 3u);
  for (const Watch& watch : AlignedCover(0x1007, 16, Trigger::kReadWrite)) EXPECT_TRUE(watch.Valid());
  EXPECT_TRUE(AlignedCover(0x1000, 0, Trigger::kWrite).empty());
  EXPECT_TRUE(AlignedCover(0x1000, 17, Trigger::kWrite).empty());
  // At the top of the address space: the last word, and nothing for bytes past the top.
  EXPECT_EQ(AlignedCover(0xfffffffffffffff0, 16, Trigger::kWrite).size(), 2u);
  EXPECT_TRUE(AlignedCover(0xfffffffffffffffc, 8, Trigger::kWrite).empty());
}

TEST(DebugControl, EncodesEachSlotsEnableTriggerAndLength) {
  std::array<std::optional<Watch>, kWatchSlots> slots{};
  EXPECT_EQ(DebugControl(slots), 0u);
  slots[0] = Watch{.address = 0x1000, .length = 8, .trigger = Trigger::kReadWrite};
  EXPECT_EQ(DebugControl(slots), 0x1u | (0b11u << 16) | (0b10u << 18));
  slots[0].reset();
  slots[2] = Watch{.address = 0x1002, .length = 2, .trigger = Trigger::kWrite};
  slots[3] = Watch{.address = 0x1004, .length = 4, .trigger = Trigger::kWrite};
  EXPECT_EQ(DebugControl(slots), (0x1u << 4) | (0b01u << 24) | (0b01u << 26) | (0x1u << 6) | (0b01u << 28) |
                                     (0b11ull << 30));
  EXPECT_EQ(FiredSlots(0xffff0ff4).to_ulong(), 0b0100u);
}

TEST(ThreadWatchpoints, FourSlotsAndTheOnesThatFired) {
  ThreadWatchpoints watchpoints;
  EXPECT_FALSE(watchpoints.Arm(Watch{.address = 0x1001, .length = 2}));  // misaligned
  for (int i = 0; i < kWatchSlots; ++i) {
    EXPECT_EQ(watchpoints.Arm(Watch{.address = 0x1000u + 8u * static_cast<unsigned>(i)}), i);
  }
  EXPECT_EQ(watchpoints.Arm(Watch{.address = 0x1010}), 2);  // already watched: the same slot
  EXPECT_FALSE(watchpoints.Arm(Watch{.address = 0x2000}));
  EXPECT_TRUE(watchpoints.Disarm(Watch{.address = 0x1010}));  // one of its two users
  EXPECT_EQ(watchpoints.Free(), 0);
  EXPECT_TRUE(watchpoints.Disarm(Watch{.address = 0x1010}));
  EXPECT_EQ(watchpoints.Free(), 1);
  EXPECT_EQ(watchpoints.Arm(Watch{.address = 0x1010}), 2);
  EXPECT_EQ(watchpoints.Free(), 0);
  const auto fired = watchpoints.Fired(0b1010);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].address, 0x1008u);
  EXPECT_EQ(fired[1].address, 0x1018u);
  EXPECT_TRUE(watchpoints.Disarm(Watch{.address = 0x1008}));
  EXPECT_FALSE(watchpoints.Disarm(Watch{.address = 0x1008}));
  EXPECT_EQ(watchpoints.Arm(Watch{.address = 0x2000}), 1);
  watchpoints.DisarmAll();
  EXPECT_EQ(watchpoints.Free(), kWatchSlots);
}

volatile long watched_word;
volatile long neighbour_word;

TEST(ThreadWatchpointsInAProcess, AccessesStopTheThreadAndAForkedChildIsNotWatched) {
  const pid_t child = fork();
  if (child == 0) {
    raise(SIGSTOP);
    watched_word = 1;            // a write: stops
    const long seen = watched_word;  // a read: stops (read/write watch)
    neighbour_word = seen;       // another word: does not
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      watched_word = 2;  // the debug registers are not inherited: does not stop
      _exit(0);
    }
    int status = 0;
    waitpid(grandchild, &status, 0);
    const int grandchild_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    _exit(watched_word == 1 && grandchild_ok ? 0 : 3);  // a read: stops
  }
  ASSERT_EQ(ptrace::Seize(child), 0);
  ASSERT_TRUE(ptrace::Interrupt(child));
  // The SIGSTOP it raised or the interrupt, whichever comes first; then stop it in a known state.
  ASSERT_TRUE(ptrace::WaitFor(child));
  ThreadWatchpoints watchpoints;
  const auto cover = AlignedCover(reinterpret_cast<uint64_t>(&watched_word), sizeof(long), Trigger::kReadWrite);
  ASSERT_EQ(cover.size(), 1u);
  ASSERT_EQ(watchpoints.Arm(cover[0]), 0);
  ASSERT_TRUE(watchpoints.Store(child));
  ASSERT_EQ(ptrace::GetDebugRegister(child, 0), reinterpret_cast<uint64_t>(&watched_word));
  ASSERT_TRUE(ptrace::Resume(child));
  int hits = 0, other_traps = 0, exit_code = -1;
  while (auto event = ptrace::WaitFor(-1)) {
    if (event->tid != child) {
      // The grandchild (traced through the fork option): let it run, it never hits.
      if (event->kind == ptrace::StopKind::kSignal && event->value == SIGTRAP) ++other_traps;
      if (event->kind != ptrace::StopKind::kExited && event->kind != ptrace::StopKind::kKilled) {
        ptrace::Resume(event->tid, event->kind == ptrace::StopKind::kSignal && event->value != SIGSTOP &&
                                           event->value != SIGTRAP ? event->value : 0);
      }
      continue;
    }
    if (event->kind == ptrace::StopKind::kExited || event->kind == ptrace::StopKind::kKilled) {
      exit_code = event->kind == ptrace::StopKind::kExited ? event->value : 128 + event->value;
      break;
    }
    int deliver = 0;
    if (event->kind == ptrace::StopKind::kSignal && event->value == SIGTRAP) {
      const auto status = ptrace::GetDebugRegister(child, 6);
      ASSERT_TRUE(status);
      if (watchpoints.Fired(*status).size() == 1) {
        ++hits;
        ASSERT_TRUE(watchpoints.ClearStatus(child));
      } else {
        ++other_traps;
      }
    } else if (event->kind == ptrace::StopKind::kSignal && event->value != SIGSTOP) {
      deliver = event->value;
    }
    ptrace::Resume(child, deliver);
  }
  EXPECT_EQ(exit_code, 0);
  EXPECT_EQ(hits, 3);  // the write, the read, the last check's read
  EXPECT_EQ(other_traps, 0);
}

}  // namespace
}  // namespace chess::supervisor
