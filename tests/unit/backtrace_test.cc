// CaptureBacktrace on a real ptrace-stopped child, and FormatFrame's shapes.
#include "supervisor/report/backtrace.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

// The child's call chain. noipa keeps the compiler from inlining, cloning (".constprop") or
// tail-calling them, so each one is a frame of its own under its own name; [[noreturn]] makes
// each call the last instruction of its caller, so that a return address lies past the end of
// the calling function and the frame is only named right if the lookup uses pc - 1.
extern "C" {
[[noreturn]] __attribute__((noipa)) void level_three() {
  for (;;) {
    pause();
    asm volatile("");
  }
}
[[noreturn]] __attribute__((noipa)) void level_two() { level_three(); }
[[noreturn]] __attribute__((noipa)) void level_one() { level_two(); }
}  // extern "C"

namespace chess_backtrace_test {
// A C++ frame, to see its name demangled.
[[noreturn]] __attribute__((noipa)) void EnterChain(int depth) {
  asm volatile("" : : "r"(depth));
  level_one();
}
}  // namespace chess_backtrace_test

namespace chess::supervisor {
namespace {

using std::chrono::steady_clock;

std::string Basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string OwnExecutable() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return length > 0 ? Basename(std::string(path, length)) : "";
}

// The first field of /proc/PID/syscall is the number of the syscall the task is blocked in.
bool BlockedInPause(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/syscall");
  long number = -1;
  return static_cast<bool>(file >> number) && number == SYS_pause;
}

// A forked child blocked in pause() at the bottom of the chain, seized and in a ptrace-stop.
class StoppedChild {
 public:
  StoppedChild() {
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // not left pausing forever if the test crashes
      chess_backtrace_test::EnterChain(3);
    }
    if (pid_ < 0) return;
    if (ptrace(PTRACE_SEIZE, pid_, nullptr, PTRACE_O_EXITKILL) != 0) {
      seize_errno_ = errno;
      return;
    }
    // Interrupting before the child reaches pause() would stop it somewhere else (in the
    // dynamic linker, say) and leave the chain's frames out of the stack.
    const auto deadline = steady_clock::now() + std::chrono::seconds(10);
    while (!BlockedInPause(pid_)) {
      if (steady_clock::now() > deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr) != 0) return;
    int status = 0;
    stopped_ = waitpid(pid_, &status, __WALL) == pid_ && WIFSTOPPED(status) &&
               (status >> 16) == PTRACE_EVENT_STOP;
  }
  ~StoppedChild() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, __WALL);
  }
  StoppedChild(const StoppedChild&) = delete;
  StoppedChild& operator=(const StoppedChild&) = delete;

  pid_t pid() const { return pid_; }
  bool ptrace_refused() const { return seize_errno_ == EPERM; }
  bool stopped() const { return stopped_; }

 private:
  pid_t pid_ = -1;
  int seize_errno_ = 0;
  bool stopped_ = false;
};

#define START_STOPPED_CHILD(child)                                            \
  StoppedChild child;                                                         \
  ASSERT_GT(child.pid(), 0) << "fork failed";                                 \
  if (child.ptrace_refused()) GTEST_SKIP() << "ptrace is not permitted here"; \
  ASSERT_TRUE(child.stopped()) << "the child did not reach a ptrace-stop in pause()"

size_t IndexOf(const std::vector<StackFrame>& frames, const std::string& function) {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].function == function) return i;
  }
  return frames.size();
}

std::string Describe(const std::vector<StackFrame>& frames) {
  std::string text;
  for (const StackFrame& frame : frames) text += "\n  " + FormatFrame(frame);
  return text;
}

TEST(CaptureBacktraceTest, NamesTheChainInOrder) {
  START_STOPPED_CHILD(child);
  const std::vector<StackFrame> frames = CaptureBacktrace(child.pid());
  ASSERT_FALSE(frames.empty());
  const size_t three = IndexOf(frames, "level_three");
  const size_t two = IndexOf(frames, "level_two");
  const size_t one = IndexOf(frames, "level_one");
  const size_t enter = IndexOf(frames, "chess_backtrace_test::EnterChain(int)");
  const size_t main = IndexOf(frames, "main");
  ASSERT_LT(main, frames.size()) << Describe(frames);
  EXPECT_LT(three, two) << Describe(frames);
  EXPECT_LT(two, one) << Describe(frames);
  EXPECT_LT(one, enter) << Describe(frames);
  EXPECT_LT(enter, main) << Describe(frames);
  // Nothing but libc's pause() wrapper lies between the syscall and the chain.
  EXPECT_LE(three, 2u) << Describe(frames);

  const std::string executable = OwnExecutable();
  for (size_t i : {three, two, one, enter}) {
    EXPECT_EQ(frames[i].module, executable) << FormatFrame(frames[i]);
    EXPECT_NE(frames[i].pc, 0u);
    // Return addresses sit after the call, never at the function's first byte.
    EXPECT_GT(frames[i].offset, 0u) << FormatFrame(frames[i]);
  }
  char expected[64];
  std::snprintf(expected, sizeof(expected), "level_two+0x%" PRIx64 " (", frames[two].offset);
  // This test's build type decides whether a source line follows (" at backtrace_test.cc:34").
  const std::string formatted = FormatFrame(frames[two]);
  EXPECT_EQ(formatted.substr(0, formatted.find(" at ")), expected + executable + ")");
}

TEST(CaptureBacktraceTest, RespectsMaxFrames) {
  START_STOPPED_CHILD(child);
  EXPECT_TRUE(CaptureBacktrace(child.pid(), 0).empty());
  const std::vector<StackFrame> two = CaptureBacktrace(child.pid(), 2);
  ASSERT_EQ(two.size(), 2u);
  // The stop does not move the thread, so a second capture sees the same frames.
  const std::vector<StackFrame> all = CaptureBacktrace(child.pid());
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(two[0].pc, all[0].pc);
  EXPECT_EQ(two[1].pc, all[1].pc);
}

TEST(CaptureBacktraceTest, SurvivesACorruptStack) {
  START_STOPPED_CHILD(child);
  user_regs_struct regs{};
  ASSERT_EQ(ptrace(PTRACE_GETREGS, child.pid(), nullptr, &regs), 0);
  const user_regs_struct original = regs;

  // Stack and frame pointers into the first page, which is never mapped.
  regs.rsp = 0x100;
  regs.rbp = 0x180;
  ASSERT_EQ(ptrace(PTRACE_SETREGS, child.pid(), nullptr, &regs), 0);
  std::vector<StackFrame> frames = CaptureBacktrace(child.pid());
  ASSERT_FALSE(frames.empty());
  EXPECT_LE(frames.size(), 32u);
  EXPECT_EQ(frames[0].pc, original.rip);

  // A jump to nowhere: no file, no symbol, no unwind info at the pc.
  regs = original;
  regs.rip = 0x1000;
  ASSERT_EQ(ptrace(PTRACE_SETREGS, child.pid(), nullptr, &regs), 0);
  frames = CaptureBacktrace(child.pid());
  ASSERT_FALSE(frames.empty());
  EXPECT_LE(frames.size(), 32u);
  EXPECT_EQ(FormatFrame(frames[0]), "0x1000 (?)");
}

TEST(CaptureBacktraceTest, NonExistentThreadGivesNoFrames) {
  // Above PID_MAX_LIMIT (4194304): no task can have this id.
  EXPECT_TRUE(CaptureBacktrace(INT_MAX).empty());
  EXPECT_TRUE(CaptureBacktrace(0).empty());
  EXPECT_TRUE(CaptureBacktrace(-1).empty());
}

TEST(CaptureBacktraceTest, UntracedThreadGivesNoFrames) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;) pause();
  }
  EXPECT_TRUE(CaptureBacktrace(pid).empty());
  EXPECT_TRUE(CaptureBacktrace(getpid()).empty());
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

TEST(FormatFrameTest, Shapes) {
  StackFrame named;
  named.pc = 0x7f0000091234;
  named.function = "pthread_mutex_lock";
  named.offset = 0x8e;
  named.module = "libc.so.6";
  EXPECT_EQ(FormatFrame(named), "pthread_mutex_lock+0x8e (libc.so.6)");

  named.module.clear();
  EXPECT_EQ(FormatFrame(named), "pthread_mutex_lock+0x8e (?)");

  StackFrame unnamed;
  unnamed.pc = 0x7f0000091234;
  unnamed.module = "libfoo.so";
  unnamed.module_offset = 0x91234;
  EXPECT_EQ(FormatFrame(unnamed), "?? (libfoo.so+0x91234)");

  StackFrame located = named;
  located.module = "bank";
  located.file = "/src/bank/transfer.c";
  located.line = 41;
  EXPECT_EQ(FormatFrame(located), "pthread_mutex_lock+0x8e (bank) at transfer.c:41");
  located.function.clear();
  located.module_offset = 0x1234;
  EXPECT_EQ(FormatFrame(located), "?? (bank+0x1234) at transfer.c:41");

  StackFrame nowhere;
  nowhere.pc = 0x401234;
  EXPECT_EQ(FormatFrame(nowhere), "0x401234 (?)");
}

}  // namespace
}  // namespace chess::supervisor
