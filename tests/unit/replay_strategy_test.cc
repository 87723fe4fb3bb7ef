// ReplayStrategy: follows a recorded schedule; the first decision that does not fit — another
// thread stopped, another syscall or point, a recorded choice that cannot run, a recording that
// ends first — is a divergence whose message names the decision. Interrupts are allowed exactly
// where the recording had them.
#include "search/replay_strategy.h"

#include <gtest/gtest.h>

#include <vector>

namespace chess::search {
namespace {

ThreadId T(uint32_t v) { return ThreadId{v}; }

constexpr int64_t kFutex = 202;
constexpr int64_t kSchedYield = 24;
constexpr int64_t kWrite = 1;

RecordedDecision First(uint32_t picked) {
  RecordedDecision d;
  d.picked = T(picked);
  return d;
}

RecordedDecision At(uint32_t current, OpKind op, int64_t syscall, uint64_t index, uint32_t picked,
                    StopReason stop = StopReason::kYielded) {
  RecordedDecision d;
  d.current = T(current);
  d.stop = stop;
  d.point.thread = T(current);
  d.point.op = op;
  d.point.syscall = syscall;
  d.point.index = index;
  d.picked = T(picked);
  return d;
}

// The situation a replay is in: which threads can run, and where the last one stopped.
struct Situation {
  std::vector<ThreadId> enabled;
  std::optional<ThreadId> current;
  StopReason stop = StopReason::kYielded;
  SchedulingPoint point;
};

Situation Start(std::vector<ThreadId> enabled) { return {std::move(enabled), std::nullopt, StopReason::kReachedPoint, {}}; }

Situation Stopped(std::vector<ThreadId> enabled, uint32_t current, OpKind op, int64_t syscall, uint64_t index,
                  StopReason stop = StopReason::kYielded) {
  Situation s{std::move(enabled), T(current), stop, {}};
  s.point.thread = T(current);
  s.point.op = op;
  s.point.syscall = syscall;
  s.point.index = index;
  return s;
}

ThreadId Pick(ReplayStrategy& strategy, const Situation& situation) {
  SchedulingContext context;
  context.enabled = situation.enabled;
  context.current = situation.current;
  context.current_stop = situation.stop;
  context.point = situation.point;
  return strategy.PickThread(context);
}

// A recorded ping-pong: thread 0 starts, creates thread 1, then they alternate yields.
std::vector<RecordedDecision> PingPong() {
  return {
      First(0),
      At(0, OpKind::kThreadCreate, 435, 0, 0, StopReason::kReachedPoint),
      At(0, OpKind::kYield, kSchedYield, 1, 1),
      At(1, OpKind::kThreadStart, -1, 0, 1, StopReason::kReachedPoint),
      At(1, OpKind::kYield, kSchedYield, 1, 0),
      At(0, OpKind::kFutexWait, kFutex, 2, 1, StopReason::kBlocked),
  };
}

std::vector<Situation> PingPongSituations() {
  return {
      Start({T(0)}),
      Stopped({T(0)}, 0, OpKind::kThreadCreate, 435, 0, StopReason::kReachedPoint),
      Stopped({T(0), T(1)}, 0, OpKind::kYield, kSchedYield, 1),
      Stopped({T(0), T(1)}, 1, OpKind::kThreadStart, -1, 0, StopReason::kReachedPoint),
      Stopped({T(0), T(1)}, 1, OpKind::kYield, kSchedYield, 1),
      Stopped({T(1)}, 0, OpKind::kFutexWait, kFutex, 2, StopReason::kBlocked),
  };
}

TEST(ReplayStrategy, FollowsTheRecording) {
  ReplayStrategy strategy(PingPong());
  EXPECT_EQ(strategy.Recorded(), 6u);
  EXPECT_EQ(strategy.Describe(), "replay");
  const auto situations = PingPongSituations();
  const auto recorded = PingPong();
  for (size_t i = 0; i < situations.size(); ++i) {
    EXPECT_EQ(Pick(strategy, situations[i]), recorded[i].picked) << "decision " << i;
    EXPECT_FALSE(strategy.Divergence().has_value()) << *strategy.Divergence();
    EXPECT_EQ(strategy.Followed(), i + 1);
  }
}

TEST(ReplayStrategy, PicksTheRecordedThreadEvenWhenANaturalScheduleWouldNot) {
  // The recording preempted thread 0 at a point where it could have continued.
  ReplayStrategy strategy({First(0), At(0, OpKind::kFutexWake, kFutex, 0, 2, StopReason::kReachedPoint)});
  EXPECT_EQ(Pick(strategy, Start({T(0), T(1), T(2)})), T(0));
  EXPECT_EQ(Pick(strategy, Stopped({T(0), T(1), T(2)}, 0, OpKind::kFutexWake, kFutex, 0, StopReason::kReachedPoint)), T(2));
  EXPECT_FALSE(strategy.Divergence().has_value());
}

// Runs the ping-pong's situations up to decision `at`, then `situation` there; returns the
// divergence message.
std::string DivergeAt(size_t at, const Situation& situation) {
  ReplayStrategy strategy(PingPong());
  const auto situations = PingPongSituations();
  for (size_t i = 0; i < at; ++i) (void)Pick(strategy, situations[i]);
  EXPECT_FALSE(strategy.Divergence().has_value());
  const ThreadId picked = Pick(strategy, situation);
  // After a divergence the strategy still answers with a thread that can run.
  EXPECT_EQ(picked, situation.enabled.front());
  EXPECT_TRUE(strategy.Divergence().has_value());
  EXPECT_EQ(strategy.Followed(), at);
  return strategy.Divergence().value_or("");
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ReplayStrategy, DivergesWhenAnotherThreadStopped) {
  const std::string message = DivergeAt(4, Stopped({T(0), T(1)}, 0, OpKind::kYield, kSchedYield, 1));
  EXPECT_TRUE(Contains(message, "decision 4")) << message;
  EXPECT_TRUE(Contains(message, "thread 1")) << message;
  EXPECT_TRUE(Contains(message, "thread 0")) << message;
}

TEST(ReplayStrategy, DivergesWhenAThreadStoppedWhereNoneDid) {
  // The recording's first decision has no current thread.
  ReplayStrategy strategy(PingPong());
  (void)Pick(strategy, Stopped({T(0)}, 0, OpKind::kSyscall, 59, 0));
  ASSERT_TRUE(strategy.Divergence().has_value());
  EXPECT_TRUE(Contains(*strategy.Divergence(), "decision 0")) << *strategy.Divergence();
  EXPECT_TRUE(Contains(*strategy.Divergence(), "no thread")) << *strategy.Divergence();
  // And the other way round: no current thread where the recording had one.
  const std::string message = DivergeAt(1, Start({T(0)}));
  EXPECT_TRUE(Contains(message, "decision 1")) << message;
}

TEST(ReplayStrategy, DivergesWhenTheSyscallDiffers) {
  const std::string message = DivergeAt(2, Stopped({T(0), T(1)}, 0, OpKind::kSyscall, kWrite, 1));
  EXPECT_TRUE(Contains(message, "decision 2")) << message;
  EXPECT_TRUE(Contains(message, "syscall " + std::to_string(kSchedYield))) << message;
  EXPECT_TRUE(Contains(message, "syscall " + std::to_string(kWrite))) << message;
}

TEST(ReplayStrategy, DivergesWhenThePointIndexDiffers) {
  const std::string message = DivergeAt(2, Stopped({T(0), T(1)}, 0, OpKind::kYield, kSchedYield, 7));
  EXPECT_TRUE(Contains(message, "decision 2")) << message;
  EXPECT_TRUE(Contains(message, "point 1")) << message;
  EXPECT_TRUE(Contains(message, "point 7")) << message;
}

TEST(ReplayStrategy, DivergesWhenAnInterruptReplacesASyscallOrTheOtherWayRound) {
  std::string message = DivergeAt(2, Stopped({T(0), T(1)}, 0, OpKind::kInterrupted, kSchedYield, 1));
  EXPECT_TRUE(Contains(message, "decision 2")) << message;
  EXPECT_TRUE(Contains(message, "interrupted")) << message;
  message = DivergeAt(3, Stopped({T(0), T(1)}, 1, OpKind::kSyscall, -1, 0));
  EXPECT_TRUE(Contains(message, "decision 3")) << message;
  EXPECT_TRUE(Contains(message, "at its start")) << message;
}

TEST(ReplayStrategy, OperationsOfTheSameSyscallMatchWhateverTheirKind) {
  // The kind of a syscall's operation is not part of the match (a futex wait and wake are both
  // futex(2)); the syscall and the index are.
  ReplayStrategy strategy({First(0), At(0, OpKind::kFutexWait, kFutex, 0, 0)});
  (void)Pick(strategy, Start({T(0)}));
  EXPECT_EQ(Pick(strategy, Stopped({T(0)}, 0, OpKind::kFutexWake, kFutex, 0)), T(0));
  EXPECT_FALSE(strategy.Divergence().has_value());
}

TEST(ReplayStrategy, DivergesWhenThePickedThreadCannotRun) {
  const std::string message = DivergeAt(2, Stopped({T(0)}, 0, OpKind::kYield, kSchedYield, 1));
  EXPECT_TRUE(Contains(message, "decision 2")) << message;
  EXPECT_TRUE(Contains(message, "thread 1")) << message;
  EXPECT_TRUE(Contains(message, "can run: 0")) << message;
}

TEST(ReplayStrategy, DivergesWhenTheRecordingEndsFirst) {
  ReplayStrategy strategy(PingPong());
  const auto situations = PingPongSituations();
  for (const Situation& situation : situations) (void)Pick(strategy, situation);
  EXPECT_FALSE(strategy.Divergence().has_value());
  EXPECT_EQ(Pick(strategy, Stopped({T(1)}, 1, OpKind::kYield, kSchedYield, 2)), T(1));
  ASSERT_TRUE(strategy.Divergence().has_value());
  EXPECT_TRUE(Contains(*strategy.Divergence(), "decision 6")) << *strategy.Divergence();
  EXPECT_TRUE(Contains(*strategy.Divergence(), "recording ends")) << *strategy.Divergence();
  EXPECT_TRUE(Contains(*strategy.Divergence(), "thread 1")) << *strategy.Divergence();
  EXPECT_EQ(strategy.Followed(), 6u);
}

TEST(ReplayStrategy, EmptyRecordingDivergesAtOnce) {
  ReplayStrategy strategy({});
  EXPECT_EQ(Pick(strategy, Start({T(0)})), T(0));
  ASSERT_TRUE(strategy.Divergence().has_value());
  EXPECT_TRUE(Contains(*strategy.Divergence(), "decision 0")) << *strategy.Divergence();
  EXPECT_FALSE(strategy.MayInterrupt(T(0), 0));
}

TEST(ReplayStrategy, TheFirstDivergenceIsTheOneReported) {
  ReplayStrategy strategy(PingPong());
  (void)Pick(strategy, Start({T(0)}));
  (void)Pick(strategy, Stopped({T(0)}, 0, OpKind::kSyscall, kWrite, 0));
  ASSERT_TRUE(strategy.Divergence().has_value());
  const std::string first = *strategy.Divergence();
  EXPECT_TRUE(Contains(first, "decision 1")) << first;
  // Later decisions do not replace it, and the strategy keeps answering with a runnable thread.
  EXPECT_EQ(Pick(strategy, Stopped({T(1), T(2)}, 2, OpKind::kYield, kSchedYield, 9)), T(1));
  EXPECT_EQ(*strategy.Divergence(), first);
  EXPECT_EQ(strategy.Followed(), 1u);
}

TEST(ReplayStrategy, UsesTheSyscallNamerInMessages) {
  SetSyscallNamer([](int64_t nr) -> std::string { return nr == kSchedYield ? "sched_yield" : "nr" + std::to_string(nr); });
  const std::string message = DivergeAt(2, Stopped({T(0), T(1)}, 0, OpKind::kSyscall, kWrite, 1));
  SetSyscallNamer(nullptr);
  EXPECT_TRUE(Contains(message, "in sched_yield")) << message;
  EXPECT_TRUE(Contains(message, "in nr1")) << message;
  EXPECT_EQ(NameSyscall(-1), "no syscall");
  EXPECT_EQ(NameSyscall(3), "syscall 3");
}

std::vector<RecordedDecision> WithInterrupt() {
  return {
      First(0),
      At(0, OpKind::kThreadCreate, 435, 0, 0, StopReason::kReachedPoint),
      // Thread 0 ran a whole slice after its point 0 and was interrupted: its point 1.
      At(0, OpKind::kInterrupted, -1, 1, 1),
      At(1, OpKind::kThreadStart, -1, 0, 1, StopReason::kReachedPoint),
  };
}

TEST(ReplayStrategy, MayInterruptOnlyAtARecordedInterrupt) {
  ReplayStrategy strategy(WithInterrupt());
  // Before the first decision and at the thread-create: the next recorded decision is no
  // interrupt.
  EXPECT_FALSE(strategy.MayInterrupt(T(0), 1));
  EXPECT_FALSE(strategy.InterruptedBefore(T(0), 1));
  (void)Pick(strategy, Start({T(0)}));
  EXPECT_FALSE(strategy.MayInterrupt(T(0), 1));
  (void)Pick(strategy, Stopped({T(0)}, 0, OpKind::kThreadCreate, 435, 0, StopReason::kReachedPoint));
  // Now the recording's next decision is thread 0 interrupted at its point 1.
  EXPECT_TRUE(strategy.MayInterrupt(T(0), 1));
  EXPECT_TRUE(strategy.InterruptedBefore(T(0), 1));
  // Not another thread, not another point.
  EXPECT_FALSE(strategy.MayInterrupt(T(1), 1));
  EXPECT_FALSE(strategy.MayInterrupt(T(0), 0));
  EXPECT_FALSE(strategy.MayInterrupt(T(0), 2));
  EXPECT_FALSE(strategy.InterruptedBefore(T(1), 1));
  EXPECT_FALSE(strategy.InterruptedBefore(T(0), 2));
  EXPECT_EQ(Pick(strategy, Stopped({T(0), T(1)}, 0, OpKind::kInterrupted, -1, 1)), T(1));
  EXPECT_FALSE(strategy.Divergence().has_value());
  // Past it: no more interrupts.
  EXPECT_FALSE(strategy.MayInterrupt(T(0), 1));
  EXPECT_FALSE(strategy.MayInterrupt(T(1), 0));
  (void)Pick(strategy, Stopped({T(0), T(1)}, 1, OpKind::kThreadStart, -1, 0, StopReason::kReachedPoint));
  EXPECT_FALSE(strategy.Divergence().has_value());
  // The recording is over: never.
  EXPECT_FALSE(strategy.MayInterrupt(T(1), 1));
  EXPECT_FALSE(strategy.InterruptedBefore(T(1), 1));
}

TEST(ReplayStrategy, NoInterruptsInARecordingWithoutThem) {
  ReplayStrategy strategy(PingPong());
  const auto situations = PingPongSituations();
  for (const Situation& situation : situations) {
    for (uint32_t thread = 0; thread < 3; ++thread) {
      for (uint64_t points = 0; points < 4; ++points) {
        EXPECT_FALSE(strategy.MayInterrupt(T(thread), points));
        EXPECT_FALSE(strategy.InterruptedBefore(T(thread), points));
      }
    }
    (void)Pick(strategy, situation);
  }
}

TEST(ReplayStrategy, AnUnrecordedInterruptDiverges) {
  // The replay's thread 0 was interrupted where the recording had it reach a yield.
  const std::string message = DivergeAt(2, Stopped({T(0), T(1)}, 0, OpKind::kInterrupted, -1, 1));
  EXPECT_TRUE(Contains(message, "decision 2")) << message;
  EXPECT_TRUE(Contains(message, "interrupted by the backstop")) << message;
}

TEST(ReplayStrategy, DescribesARacingAccessApartFromAnAtomicInstruction) {
  SchedulingPoint racy{ThreadId{1}, OpKind::kRacyAccess, 0x404c3c, true};
  racy.instruction = 0x401165;
  EXPECT_EQ(DescribePoint(racy), "at the racing access 0x401165 writing 0x404c3c");
  EXPECT_EQ(DescribePoint(racy, "claimed (plain)"), "at the racing access 0x401165 writing claimed (plain)");
  SchedulingPoint atomic = racy;
  atomic.op = OpKind::kAtomic;
  atomic.is_write = false;
  EXPECT_EQ(DescribePoint(atomic), "at the atomic instruction 0x401165 reading 0x404c3c");
}

}  // namespace
}  // namespace chess::search
