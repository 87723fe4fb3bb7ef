// The symbolizer against a real program stopped under ptrace (tests/programs/symbols_probe.c):
// source lines of its frames, names of its variables, with its debug information in the file,
// in a separate file, or gone; and ModuleDebugInfo on files that are not what they claim.
#include "supervisor/report/symbolizer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "supervisor/report/backtrace.h"
#include "supervisor/report/debug_info.h"

namespace chess::supervisor {
namespace {

using std::chrono::steady_clock;

const std::string kPrograms = CHESS_PROGRAMS_DIR;
const std::string kProbeSource = std::string(CHESS_SOURCE_DIR) + "/tests/programs/symbols_probe.c";

// The line of symbols_probe.c that carries the comment "LINE: <marker>".
int MarkedLine(const std::string& marker) {
  std::ifstream source(kProbeSource);
  std::string text;
  for (int number = 1; std::getline(source, text); ++number) {
    if (text.find("LINE: " + marker + " ") != std::string::npos) return number;
  }
  return -1;
}

std::string Basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

bool BlockedInPause(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/syscall");
  long number = -1;
  return static_cast<bool>(file >> number) && number == SYS_pause;
}

// A copy of symbols_probe run, its variables' addresses read from its output, then seized and
// stopped in pause(). Every wait has a bound; the program is killed on the way out.
class StoppedProbe {
 public:
  explicit StoppedProbe(const std::string& variant) {
    const std::string path = kPrograms + "/" + variant;
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      dup2(out[1], 1);
      execl(path.c_str(), path.c_str(), nullptr);
      _exit(127);
    }
    close(out[1]);
    std::string line;
    const auto deadline = steady_clock::now() + std::chrono::seconds(10);
    while (pid_ > 0 && line.find('\n') == std::string::npos && steady_clock::now() < deadline) {
      pollfd ready{out[0], POLLIN, 0};
      if (poll(&ready, 1, 100) <= 0) continue;
      char buffer[256];
      const ssize_t got = read(out[0], buffer, sizeof(buffer));
      if (got <= 0) break;
      line.append(buffer, static_cast<size_t>(got));
    }
    close(out[0]);
    std::istringstream addresses(line);
    for (std::string word; addresses >> word;) addresses_.push_back(std::strtoull(word.c_str(), nullptr, 16));
    if (pid_ <= 0 || addresses_.size() != 4) return;
    if (ptrace(PTRACE_SEIZE, pid_, nullptr, PTRACE_O_EXITKILL) != 0) {
      seize_errno_ = errno;
      return;
    }
    while (!BlockedInPause(pid_)) {
      if (steady_clock::now() > deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr) != 0) return;
    int status = 0;
    stopped_ = waitpid(pid_, &status, __WALL) == pid_ && WIFSTOPPED(status);
  }
  ~StoppedProbe() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, __WALL);
  }
  StoppedProbe(const StoppedProbe&) = delete;
  StoppedProbe& operator=(const StoppedProbe&) = delete;

  pid_t pid() const { return pid_; }
  bool ptrace_refused() const { return seize_errno_ == EPERM; }
  bool stopped() const { return stopped_; }
  uint64_t balance_lock() const { return addresses_[0]; }
  uint64_t account_lock() const { return addresses_[1]; }
  uint64_t far_condition() const { return addresses_[2]; }
  uint64_t heap_lock() const { return addresses_[3]; }

 private:
  pid_t pid_ = -1;
  int seize_errno_ = 0;
  bool stopped_ = false;
  std::vector<uint64_t> addresses_;
};

#define START_PROBE(probe, variant)                                           \
  StoppedProbe probe(variant);                                                \
  ASSERT_GT(probe.pid(), 0) << "fork failed";                                 \
  if (probe.ptrace_refused()) GTEST_SKIP() << "ptrace is not permitted here"; \
  ASSERT_TRUE(probe.stopped()) << variant << " did not print its addresses and stop in pause()"

const StackFrame* FrameOf(const std::vector<StackFrame>& frames, const std::string& function) {
  for (const StackFrame& frame : frames) {
    if (frame.function == function) return &frame;
  }
  return nullptr;
}

std::string Describe(const std::vector<StackFrame>& frames) {
  std::string text;
  for (const StackFrame& frame : frames) text += "\n  " + FormatFrame(frame);
  return text;
}

// With the debug information in the file, or found through the file's .gnu_debuglink.
void ExpectSourceLines(const std::string& variant) {
  START_PROBE(probe, variant);
  const std::vector<StackFrame> frames = CaptureBacktrace(probe.pid());
  const StackFrame* wait_here = FrameOf(frames, "wait_here");
  const StackFrame* worker = FrameOf(frames, "probe_worker");
  ASSERT_TRUE(wait_here != nullptr && worker != nullptr) << Describe(frames);
  EXPECT_TRUE(wait_here->return_address);
  EXPECT_EQ(worker->file, wait_here->file);
  EXPECT_EQ(Basename(wait_here->file), "symbols_probe.c") << Describe(frames);
  EXPECT_EQ(wait_here->line, MarkedLine("pause")) << Describe(frames);
  // The call of pause() is in a function inlined into wait_here, on a line of its own.
  ASSERT_EQ(wait_here->inlined.size(), 1u) << Describe(frames);
  EXPECT_EQ(wait_here->inlined[0].function, "sleep_until_signalled");
  EXPECT_EQ(Basename(wait_here->inlined[0].file), "symbols_probe.c");
  EXPECT_EQ(wait_here->inlined[0].line, MarkedLine("inlined pause"));
  EXPECT_NE(FormatFrame(*wait_here).find(" at symbols_probe.c:" + std::to_string(MarkedLine("pause")) +
                                          " → sleep_until_signalled at symbols_probe.c:" +
                                          std::to_string(MarkedLine("inlined pause")) + " (inlined)"),
            std::string::npos)
      << FormatFrame(*wait_here);
  EXPECT_TRUE(worker->inlined.empty()) << Describe(frames);
  // probe_worker's call is its last instruction: pc itself is past the function.
  EXPECT_EQ(worker->line, MarkedLine("wait_here")) << Describe(frames);
  EXPECT_EQ(FormatFrame(*worker).substr(FormatFrame(*worker).find(')')),
            ") at symbols_probe.c:" + std::to_string(MarkedLine("wait_here")));
  // The file as the debug information names it: the compile unit's directory included.
  EXPECT_EQ(worker->file.front(), '/') << worker->file;
}

TEST(SymbolizerTest, FramesOfAProgramBuiltWithDebugInformationHaveFileAndLine) { ExpectSourceLines("symbols_probe"); }

TEST(SymbolizerTest, ASeparateDebugFileIsFoundThroughTheDebugLink) {
  ExpectSourceLines("symbols_probe_debuglink");
}

TEST(SymbolizerTest, WithoutDebugInformationFramesHaveNamesButNoLines) {
  START_PROBE(probe, "symbols_probe_nodebug");
  const std::vector<StackFrame> frames = CaptureBacktrace(probe.pid());
  const StackFrame* worker = FrameOf(frames, "probe_worker");
  ASSERT_NE(worker, nullptr) << Describe(frames);
  EXPECT_TRUE(worker->file.empty());
  EXPECT_EQ(worker->line, 0);
  EXPECT_EQ(FormatFrame(*worker).find(" at "), std::string::npos);
  // The symbol table is still there: variables keep their names.
  ProcessSymbols symbols(probe.pid());
  EXPECT_EQ(symbols.NameData(probe.account_lock()), "savings+40 (symbols_probe_nodebug)");
}

TEST(SymbolizerTest, AStrippedProgramIsNamedWhereItCanBeAndNothingBreaks) {
  START_PROBE(probe, "symbols_probe_stripped");
  const std::vector<StackFrame> frames = CaptureBacktrace(probe.pid());
  ASSERT_FALSE(frames.empty());
  bool program_frame = false;
  for (const StackFrame& frame : frames) {
    if (frame.module != "symbols_probe_stripped") continue;
    program_frame = true;
    EXPECT_EQ(frame.line, 0) << FormatFrame(frame);
  }
  EXPECT_TRUE(program_frame) << Describe(frames);
  ProcessSymbols symbols(probe.pid());
  EXPECT_FALSE(symbols.Data(probe.balance_lock()));
  char hex[24];
  std::snprintf(hex, sizeof(hex), "0x%" PRIx64, probe.balance_lock());
  EXPECT_EQ(symbols.NameData(probe.balance_lock()), hex);
}

TEST(SymbolizerTest, DataAddressesAreNamedByTheirVariables) {
  START_PROBE(probe, "symbols_probe");
  ProcessSymbols symbols(probe.pid());
  auto balance = symbols.Data(probe.balance_lock());
  ASSERT_TRUE(balance);
  EXPECT_EQ(balance->symbol, "balance_lock");
  EXPECT_EQ(balance->offset, 0u);
  EXPECT_EQ(balance->module, "symbols_probe");
  EXPECT_EQ(FormatDataSymbol(*balance), "balance_lock (symbols_probe)");
  EXPECT_EQ(symbols.NameData(probe.account_lock()), "savings+40 (symbols_probe)");
  // Past the file's last page the .bss is anonymous memory: still the program's variable.
  EXPECT_EQ(symbols.NameData(probe.far_condition()), "far_state+1048576 (symbols_probe)");
  // The heap is nobody's variable.
  EXPECT_FALSE(symbols.Data(probe.heap_lock()));
  EXPECT_FALSE(symbols.Data(0));
}

TEST(SymbolizerTest, CodeAddressesAreLocatedAndNamed) {
  START_PROBE(probe, "symbols_probe");
  ProcessSymbols symbols(probe.pid());
  const std::vector<StackFrame> frames = CaptureBacktrace(probe.pid(), symbols);
  const StackFrame* wait_here = FrameOf(frames, "wait_here");
  ASSERT_NE(wait_here, nullptr) << Describe(frames);
  // The same pc asked for alone (not as a return address): the same function and module.
  const StackFrame code = symbols.Code(wait_here->pc);
  EXPECT_EQ(code.function, "wait_here");
  EXPECT_EQ(code.module, "symbols_probe");
  EXPECT_EQ(code.module_offset, wait_here->module_offset);
}

// Opens the file at `path`; every lookup on it afterwards must return, whatever it holds.
void OpenAndLookUp(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  std::unique_ptr<ModuleDebugInfo> module = ModuleDebugInfo::Open(fd, path);
  close(fd);
  if (!module) return;
  for (uint64_t address = 0; address < 0x8000; address += 0x11) {
    (void)module->LocationAt(address);
    (void)module->FunctionAt(address);
    (void)module->ObjectAt(address);
    (void)module->Covers(address);
  }
  for (uint64_t offset = 0; offset < 0x8000; offset += 0x1000) (void)module->MappedAddressOf(offset);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(ModuleDebugInfoTest, DamagedFilesAreReadWithoutCrashingOrHanging) {
  const std::string original = ReadFile(kPrograms + "/symbols_probe");
  ASSERT_GT(original.size(), 4096u);
  char dir_template[] = "/tmp/chess-symbolizer-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string damaged = std::string(dir_template) + "/symbols_probe";
  const auto started = steady_clock::now();
  // Cut short at every power of two and between; then bytes changed at random, more and more.
  for (size_t length = 0; length < original.size(); length = length * 2 + 7) {
    WriteFile(damaged, original.substr(0, length));
    OpenAndLookUp(damaged);
  }
  std::mt19937_64 random(18);
  for (int round = 0; round < 300; ++round) {
    std::string bytes = original;
    const int changes = 1 + round / 10;
    for (int i = 0; i < changes; ++i) bytes[random() % bytes.size()] = static_cast<char>(random());
    WriteFile(damaged, bytes);
    OpenAndLookUp(damaged);
  }
  WriteFile(damaged, "#!/bin/sh\necho not ELF\n");
  const int fd = open(damaged.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(ModuleDebugInfo::Open(fd, damaged), nullptr);
  close(fd);
  unlink(damaged.c_str());
  rmdir(dir_template);
  EXPECT_LT(steady_clock::now() - started, std::chrono::seconds(60));
}

TEST(DebugInfoCacheTest, AFileIsReadOnceAndAChangedFileAgain) {
  char dir_template[] = "/tmp/chess-symbolizer-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string copy = std::string(dir_template) + "/symbols_probe";
  WriteFile(copy, ReadFile(kPrograms + "/symbols_probe"));
  int fd = open(copy.c_str(), O_RDONLY | O_CLOEXEC);
  const auto first = DebugInfoCache::Instance().Get(fd, copy);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(DebugInfoCache::Instance().Get(fd, copy), first);
  close(fd);
  // Rebuilt in place: another modification time, another file.
  const timespec later[2] = {{0, UTIME_OMIT}, {time(nullptr) + 60, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, copy.c_str(), later, 0), 0);
  fd = open(copy.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_NE(DebugInfoCache::Instance().Get(fd, copy), first);
  close(fd);
  EXPECT_LE(DebugInfoCache::Instance().Size(), DebugInfoCache::kCapacity);
  unlink(copy.c_str());
  rmdir(dir_template);
}

// With $DEBUGINFOD_URLS set (Debian sets it in login shells), a file without debug information
// must not make the symbolizer ask a debuginfod server: a report never waits on the network.
TEST(ModuleDebugInfoTest, NoDebuginfodServerIsAsked) {
  const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  ASSERT_GE(server, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(server, 8), 0);
  ASSERT_EQ(getsockname(server, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  setenv("DEBUGINFOD_URLS", url.c_str(), 1);
  setenv("DEBUGINFOD_TIMEOUT", "2", 1);
  const std::string stripped = kPrograms + "/symbols_probe_stripped";
  const int fd = open(stripped.c_str(), O_RDONLY | O_CLOEXEC);
  const auto started = steady_clock::now();
  const auto module = ModuleDebugInfo::Open(fd, stripped);
  close(fd);
  unsetenv("DEBUGINFOD_URLS");
  unsetenv("DEBUGINFOD_TIMEOUT");
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(module->HasLines());
  pollfd asked{server, POLLIN, 0};
  EXPECT_EQ(poll(&asked, 1, 0), 0) << "a debuginfod server was asked";
  EXPECT_LT(steady_clock::now() - started, std::chrono::seconds(1));
  close(server);
}

}  // namespace
}  // namespace chess::supervisor
