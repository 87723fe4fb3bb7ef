// Helpers shared by the trace tests: a buffer whose end is the end of readable memory (a read
// past it faults instead of going unnoticed), a scratch directory, writing a whole trace::Trace
// through TraceWriter, and field-by-field comparison of decoded traces.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/format.h"
#include "trace/trace_writer.h"

namespace chess::trace::test_support {

// `bytes` copied to the very end of a mapping followed by an inaccessible page: reading one
// byte past the end is a segmentation fault, not a silent over-read.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::string_view bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    data_pages_ = (bytes.size() + page - 1) / page * page;
    if (data_pages_ == 0) data_pages_ = page;
    length_ = data_pages_ + page;
    void* mapping = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) std::abort();
    base_ = static_cast<char*>(mapping);
    if (mprotect(base_ + data_pages_, page, PROT_NONE) != 0) std::abort();
    data_ = base_ + data_pages_ - bytes.size();
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
    size_ = bytes.size();
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { munmap(base_, length_); }

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data_, size_}; }

 private:
  char* base_ = nullptr;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t data_pages_ = 0;
  size_t length_ = 0;
};

// A fresh directory under $TMPDIR (or /tmp), removed with its files at the end of the test.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/chess-trace-test.XXXXXX";
    if (mkdtemp(path_.data()) == nullptr) std::abort();
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    for (const std::string& name : Entries()) unlink((path_ + "/" + name).c_str());
    rmdir(path_.c_str());
  }

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

  // Every name in the directory but . and .., sorted.
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    if (DIR* dir = opendir(path_.c_str())) {
      while (dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      closedir(dir);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::string path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

inline void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Writes `trace` with TraceWriter, in the order run --trace does: command, options, then threads
// and decisions, the outside waits before the decision they name, then the outcome.
inline Result<void> WriteWholeTrace(const std::string& path, const Trace& trace, bool replace = false) {
  TraceWriter writer;
  if (auto opened = writer.Open(path, replace, trace.tool_version); !opened) return opened;
  writer.WriteCommand(trace.command);
  if (trace.standard_input) writer.WriteStandardInput(*trace.standard_input);
  if (trace.atomic_points) writer.WriteAtomicSites(*trace.atomic_points);
  if (trace.atomic_points && !trace.atomic_points->race_sites.empty()) writer.WriteRaceSites(trace.atomic_points->race_sites);
  writer.WriteOptions(trace.options);
  if (trace.standard_descriptors) writer.WriteStandardDescriptors(*trace.standard_descriptors);
  size_t thread = 0;
  size_t wait = 0;
  for (size_t i = 0; i < trace.decisions.size(); ++i) {
    // Threads appear spread over the execution, as they do when they are created.
    if (thread < trace.threads.size() && i % 7 == 0) writer.WriteThread(trace.threads[thread++]);
    while (wait < trace.outside_waits.size() && trace.outside_waits[wait].decision <= i) {
      writer.WriteOutsideWait(trace.outside_waits[wait++]);
    }
    writer.WriteDecision(trace.decisions[i]);
  }
  while (thread < trace.threads.size()) writer.WriteThread(trace.threads[thread++]);
  while (wait < trace.outside_waits.size()) writer.WriteOutsideWait(trace.outside_waits[wait++]);
  for (const ObjectName& name : trace.object_names) writer.WriteObjectName(name);
  if (trace.oracle) writer.WriteOracle(*trace.oracle);
  if (trace.outcome) writer.WriteOutcome(*trace.outcome);
  return writer.Finish();
}

inline std::string Describe(const search::RecordedDecision& d) {
  std::string text = "{current ";
  text += d.current ? std::to_string(d.current->value) : std::string("none");
  text += ", stop " + std::to_string(static_cast<int>(d.stop));
  text += ", point {thread " + std::to_string(d.point.thread.value) + ", op " + std::to_string(static_cast<int>(d.point.op)) +
          ", resource " + std::to_string(d.point.resource) + ", write " + std::to_string(d.point.is_write) + ", release " +
          std::to_string(d.point.is_release) + ", syscall " + std::to_string(d.point.syscall) + ", index " +
          std::to_string(d.point.index) + ", instruction " + std::to_string(d.point.instruction) + "}";
  text += ", picked " + std::to_string(d.picked.value) + "}";
  return text;
}

inline bool SameDecision(const search::RecordedDecision& a, const search::RecordedDecision& b) {
  return a.current == b.current && a.stop == b.stop && a.picked == b.picked && a.point.thread == b.point.thread &&
         a.point.op == b.point.op && a.point.resource == b.point.resource && a.point.is_write == b.point.is_write &&
         a.point.is_release == b.point.is_release && a.point.syscall == b.point.syscall && a.point.index == b.point.index &&
         a.point.instruction == b.point.instruction;
}

// Every field of two traces, with a message naming the first difference of each kind.
inline void ExpectSameTrace(const Trace& expected, const Trace& actual) {
  EXPECT_EQ(actual.format_version, expected.format_version);
  EXPECT_EQ(actual.tool_version, expected.tool_version);
  EXPECT_EQ(actual.command.path, expected.command.path);
  EXPECT_EQ(actual.command.argv, expected.command.argv);
  EXPECT_EQ(actual.command.cwd, expected.command.cwd);
  EXPECT_EQ(actual.command.env, expected.command.env);
  EXPECT_EQ(actual.options.strategy, expected.options.strategy);
  EXPECT_EQ(actual.options.seed, expected.options.seed);
  EXPECT_EQ(actual.options.epoch, expected.options.epoch);
  EXPECT_EQ(actual.options.isolation, expected.options.isolation);
  EXPECT_EQ(actual.options.slice_nanos, expected.options.slice_nanos);
  EXPECT_EQ(actual.options.io_points, expected.options.io_points);
  EXPECT_EQ(actual.options.visible_cpus, expected.options.visible_cpus);
  EXPECT_EQ(actual.options.sync_points, expected.options.sync_points);
  EXPECT_EQ(actual.options.atomic_points, expected.options.atomic_points);
  EXPECT_TRUE(actual.oracle == expected.oracle) << "the oracle records differ";
  EXPECT_EQ(actual.options.race_points, expected.options.race_points);
  ASSERT_EQ(actual.atomic_points.has_value(), expected.atomic_points.has_value());
  if (expected.atomic_points) {
    EXPECT_EQ(actual.atomic_points->mode, expected.atomic_points->mode);
    EXPECT_EQ(actual.atomic_points->max_points, expected.atomic_points->max_points);
    EXPECT_TRUE(actual.atomic_points->alone_sites == expected.atomic_points->alone_sites);
    EXPECT_TRUE(actual.atomic_points->race_sites == expected.atomic_points->race_sites);
  }
  ASSERT_EQ(actual.standard_descriptors.has_value(), expected.standard_descriptors.has_value());
  if (expected.standard_descriptors) {
    EXPECT_TRUE(*actual.standard_descriptors == *expected.standard_descriptors);
  }
  ASSERT_EQ(actual.threads.size(), expected.threads.size());
  for (size_t i = 0; i < expected.threads.size(); ++i) {
    EXPECT_EQ(actual.threads[i].thread, expected.threads[i].thread) << "thread record " << i;
    EXPECT_EQ(actual.threads[i].pid, expected.threads[i].pid) << "thread record " << i;
    EXPECT_EQ(actual.threads[i].tid, expected.threads[i].tid) << "thread record " << i;
  }
  ASSERT_EQ(actual.decisions.size(), expected.decisions.size());
  size_t differing = 0;
  for (size_t i = 0; i < expected.decisions.size(); ++i) {
    if (SameDecision(expected.decisions[i], actual.decisions[i])) continue;
    if (++differing <= 5) {
      ADD_FAILURE() << "decision " << i << ": wrote " << Describe(expected.decisions[i]) << ", read "
                    << Describe(actual.decisions[i]);
    }
  }
  EXPECT_EQ(differing, 0u) << "decisions that differ";
  ASSERT_EQ(actual.outside_waits.size(), expected.outside_waits.size());
  for (size_t i = 0; i < expected.outside_waits.size(); ++i) {
    EXPECT_EQ(actual.outside_waits[i].decision, expected.outside_waits[i].decision) << "outside wait " << i;
    EXPECT_EQ(actual.outside_waits[i].nanos, expected.outside_waits[i].nanos) << "outside wait " << i;
  }
  ASSERT_EQ(actual.object_names.size(), expected.object_names.size());
  for (size_t i = 0; i < expected.object_names.size(); ++i) {
    EXPECT_EQ(actual.object_names[i].pid, expected.object_names[i].pid) << "object name " << i;
    EXPECT_EQ(actual.object_names[i].address, expected.object_names[i].address) << "object name " << i;
    EXPECT_EQ(actual.object_names[i].name, expected.object_names[i].name) << "object name " << i;
  }
  ASSERT_EQ(actual.outcome.has_value(), expected.outcome.has_value());
  if (expected.outcome) {
    EXPECT_EQ(actual.outcome->outcome, expected.outcome->outcome);
    EXPECT_EQ(actual.outcome->exit_status, expected.outcome->exit_status);
    EXPECT_EQ(actual.outcome->signal, expected.outcome->signal);
    EXPECT_EQ(actual.outcome->message, expected.outcome->message);
    EXPECT_EQ(actual.outcome->scheduling_points, expected.outcome->scheduling_points);
    EXPECT_EQ(actual.outcome->virtual_nanos, expected.outcome->virtual_nanos);
    EXPECT_EQ(actual.outcome->report, expected.outcome->report);
  }
}

// A decision as the recorder makes it: the point belongs to the thread that stopped.
inline search::RecordedDecision MakeDecision(std::optional<uint32_t> current, search::OpKind op, int64_t syscall,
                                             uint64_t index, uint32_t picked,
                                             search::StopReason stop = search::StopReason::kYielded) {
  search::RecordedDecision d;
  d.stop = stop;
  d.picked = search::ThreadId{picked};
  if (current) {
    d.current = search::ThreadId{*current};
    d.point.thread = *d.current;
    d.point.op = op;
    d.point.syscall = syscall;
    d.point.index = index;
  }
  return d;
}

// A small, realistic trace: two threads handing over with sched_yield, then through futexes;
// a few KB on disk.
inline Trace SmallTrace(int rounds = 40, int varied = 200) {
  Trace trace;
  trace.tool_version = "0.1.0-test";
  trace.command.path = "/usr/bin/yield_ping_pong";
  trace.command.argv = {"yield_ping_pong", "--rounds", std::to_string(rounds)};
  trace.command.cwd = "/home/user/work";
  for (int i = 0; i < 40; ++i) trace.command.env.push_back("VARIABLE_" + std::to_string(i) + "=value " + std::to_string(i * 7919));
  trace.options.strategy = "non-preemptive";
  trace.options.seed = 12345;
  trace.options.epoch = int64_t{1704067200} * 1000000000;
  trace.options.isolation = 0x6c020000;
  trace.options.slice_nanos = 10'000'000;
  trace.options.visible_cpus = 2;
  // stdin /dev/null; stdout and stderr one terminal, as a shell gives them.
  using Kind = StandardDescriptor::Kind;
  trace.standard_descriptors = StandardDescriptors{StandardDescriptor{.kind = Kind::kDevice, .major = 1, .minor = 3},
                                                   StandardDescriptor{.kind = Kind::kTerminal, .rows = 24, .columns = 80},
                                                   StandardDescriptor{.kind = Kind::kTerminal,
                                                                      .same_file_as = 1,
                                                                      .same_description_as = 1,
                                                                      .rows = 24,
                                                                      .columns = 80}};
  trace.threads = {{search::ThreadId{0}, 2, 2}, {search::ThreadId{1}, 2, 3}};
  constexpr int64_t kExecve = 59, kClone3 = 435, kSchedYield = 24, kExitGroup = 231;
  trace.decisions.push_back(MakeDecision(std::nullopt, search::OpKind::kSyscall, -1, 0, 0));
  trace.decisions.push_back(MakeDecision(0, search::OpKind::kSyscall, kExecve, 0, 0, search::StopReason::kReachedPoint));
  trace.decisions.push_back(MakeDecision(0, search::OpKind::kThreadCreate, kClone3, 1, 0, search::StopReason::kReachedPoint));
  uint64_t index[2] = {2, 0};
  trace.decisions.push_back(MakeDecision(0, search::OpKind::kYield, kSchedYield, index[0]++, 1));
  trace.decisions.push_back(MakeDecision(1, search::OpKind::kThreadStart, -1, index[1]++, 1, search::StopReason::kReachedPoint));
  for (int i = 0; i < rounds; ++i) {
    const uint32_t t = static_cast<uint32_t>(i % 2);
    trace.decisions.push_back(MakeDecision(1 - t, search::OpKind::kYield, kSchedYield, index[1 - t]++, t));
  }
  // Mutex hand-overs on many different futex words: decisions that do not compress away, so the
  // trace is a few KB.
  uint64_t word = 0x7ffff7dd0990;
  for (int i = 0; i < varied; ++i) {
    const uint32_t t = static_cast<uint32_t>(i % 2);
    word = word * 6364136223846793005ull + 1442695040888963407ull;
    auto d = MakeDecision(t, i % 3 ? search::OpKind::kFutexWait : search::OpKind::kFutexWake, 202, index[t]++, 1 - t,
                          i % 3 ? search::StopReason::kBlocked : search::StopReason::kReachedPoint);
    d.point.resource = word >> 16;
    d.point.is_release = i % 3 == 0;
    trace.decisions.push_back(d);
  }
  trace.decisions.push_back(MakeDecision(1, search::OpKind::kThreadExit, 60, index[1]++, 0, search::StopReason::kExited));
  trace.decisions.push_back(MakeDecision(0, search::OpKind::kProcessExit, kExitGroup, index[0]++, 0, search::StopReason::kReachedPoint));
  trace.outside_waits = {{3, 1500}, {9, 250000}};
  Outcome outcome;
  outcome.outcome = search::Outcome::kOk;
  outcome.exit_status = 0;
  outcome.message = "";
  outcome.scheduling_points = trace.decisions.size();
  outcome.virtual_nanos = 123456789;
  outcome.report = "  thread 0 (pid 2, tid 2) blocked in futex(…)\n      #0 main+0x1c (prog)\n";
  trace.outcome = outcome;
  return trace;
}

}  // namespace chess::trace::test_support
