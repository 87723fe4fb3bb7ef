// TraceWriter → ReadTrace: everything written comes back, field by field — a command with
// empty arguments, a thousand variables and bytes that are not ASCII, options with and without
// an epoch, threads, 100,000 decisions whose runs become repeat records and whose point
// indexes jump, outside waits, an outcome. And the file handling: no silent overwrite, an
// abandoned writer leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <limits>
#include <map>
#include <random>

#include "tests/unit/trace_test_support.h"
#include "trace/codec.h"
#include "trace/compression.h"
#include "trace/container.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace chess::trace {
namespace {

using search::OpKind;
using search::StopReason;
using test_support::ExpectSameTrace;
using test_support::MakeDecision;
using test_support::ReadFile;
using test_support::ScratchDirectory;
using test_support::WriteWholeTrace;

constexpr const char* kVersion = "0.1.0-test";

// The record stream inside a trace file, by record type: how the writer encoded what it was
// given (decisions, repeats…).
std::map<RecordType, size_t> CountRecords(const std::string& file) {
  std::map<RecordType, size_t> counts;
  auto parts = SplitContainer(file, kVersion);
  if (!parts) {
    ADD_FAILURE() << parts.error();
    return counts;
  }
  size_t frame_size = 0;
  auto stream = DecompressFrame(parts->frame, size_t{1} << 32, &frame_size);
  if (!stream) {
    ADD_FAILURE() << stream.error();
    return counts;
  }
  ByteReader reader(stream->data(), stream->size());
  while (!reader.AtEnd() && reader.ok()) {
    const auto type = static_cast<RecordType>(reader.U8());
    const uint64_t length = reader.Varint();
    reader.Bytes(length);
    ++counts[type];
  }
  EXPECT_TRUE(reader.ok());
  return counts;
}

Command BigCommand() {
  Command command;
  command.path = "/opt/\xc3\xa9t\xc3\xa9/bin/program";
  command.argv = {"program", "", "two words", "", "\xff\xfe\x80 not UTF-8", std::string("nul\0byte", 8), "\xe2\x96\xb6", ""};
  command.cwd = "/home/\xe5\x90\x8d\xe5\x89\x8d/work dir";
  for (int i = 0; i < 1000; ++i) {
    std::string variable = "VARIABLE_" + std::to_string(i) + "=";
    switch (i % 5) {
      case 0: variable += ""; break;
      case 1: variable += "\xc3\xa9\xc3\xa8\xe2\x82\xac"; break;
      case 2: variable += std::string(static_cast<size_t>(i), 'v'); break;
      case 3: variable += "\x01\x7f\x80\xff"; break;
      default: variable += "value=with=equals " + std::to_string(i); break;
    }
    command.env.push_back(variable);
  }
  command.env.push_back("");  // an empty entry still round-trips
  return command;
}

Options SomeOptions(std::optional<int64_t> epoch) {
  Options options;
  options.strategy = "non-preemptive";
  options.seed = std::numeric_limits<uint64_t>::max();
  options.epoch = epoch;
  options.isolation = 0x7c020000;
  options.slice_nanos = 10'000'000;
  options.io_points = true;
  options.visible_cpus = 64;
  return options;
}

// 100,000 decisions shaped like real executions: long runs of one thread yielding to itself
// (repeat records), ping-pong between two threads, runs whose index advances by two (a
// non-zero delta, repeated), a thread whose index jumps forward and back, decisions without a
// current thread, every operation and stop reason, the extremes of every field.
std::vector<search::RecordedDecision> ManyDecisions(size_t count) {
  std::mt19937_64 random(20261123);
  std::vector<search::RecordedDecision> decisions;
  std::map<uint32_t, uint64_t> index;
  decisions.push_back(MakeDecision(std::nullopt, OpKind::kSyscall, -1, 0, 0));
  auto next = [&](uint32_t thread, uint64_t step = 1) {
    const uint64_t value = index[thread];
    index[thread] += step;
    return value;
  };
  while (decisions.size() < count) {
    const size_t left = count - decisions.size();
    const size_t run = std::min<size_t>(left, 1 + random() % 3000);
    switch (random() % 8) {
      case 0:  // one thread yielding alone: the same situation again and again
        for (size_t i = 0; i < run; ++i) decisions.push_back(MakeDecision(1, OpKind::kYield, 24, next(1), 1));
        break;
      case 1:  // ping-pong through a futex
        for (size_t i = 0; i < run; ++i) {
          const uint32_t t = static_cast<uint32_t>(i % 2);
          auto d = MakeDecision(t, i % 4 < 2 ? OpKind::kFutexWake : OpKind::kFutexWait, 202, next(t), 1 - t,
                                i % 4 < 2 ? StopReason::kReachedPoint : StopReason::kBlocked);
          d.point.resource = 0x7ffff7dd0990ull;
          d.point.is_write = i % 4 < 2;
          d.point.is_release = i % 4 < 2;
          decisions.push_back(d);
        }
        break;
      case 2:  // the index advances by two each time: a repeated non-zero delta
        for (size_t i = 0; i < run; ++i) decisions.push_back(MakeDecision(2, OpKind::kIo, 0, next(2, 2), 2));
        break;
      case 3: {  // thread 3's index jumps far ahead, runs, then jumps back below where it was
        const uint64_t before = index[3];
        index[3] += 1'000'000'007;
        for (size_t i = 0; i < run / 2; ++i) decisions.push_back(MakeDecision(3, OpKind::kSleep, 230, next(3), 3));
        index[3] = before / 2;
        for (size_t i = run / 2; i < run; ++i) decisions.push_back(MakeDecision(3, OpKind::kSleep, 230, next(3), 3));
        break;
      }
      case 4: {  // a thread at the far end of the index space: deltas that wrap
        index[7] = std::numeric_limits<uint64_t>::max() - 2;
        for (size_t i = 0; i < std::min<size_t>(run, 3); ++i) decisions.push_back(MakeDecision(7, OpKind::kSyscall, 1, next(7), 0));
        index[7] = 0;
        break;
      }
      case 5:  // everything varied: each decision is its own record
        for (size_t i = 0; i < std::min<size_t>(run, 200); ++i) {
          const auto op = static_cast<OpKind>(random() % (static_cast<int>(search::kLastOpKind) + 1));
          const auto stop = static_cast<StopReason>(random() % (static_cast<int>(search::kLastStopReason) + 1));
          const uint32_t thread = static_cast<uint32_t>(random() % 5);
          auto d = MakeDecision(thread, op, static_cast<int64_t>(random() % 500) - 1, next(thread),
                                static_cast<uint32_t>(random() % 5), stop);
          d.point.resource = random();
          d.point.is_write = random() & 1;
          d.point.is_release = random() & 1;
          decisions.push_back(d);
        }
        break;
      case 6: {  // extreme values
        auto d = MakeDecision(std::numeric_limits<uint32_t>::max(), OpKind::kSyncOp, std::numeric_limits<int64_t>::max(),
                              next(std::numeric_limits<uint32_t>::max()), std::numeric_limits<uint32_t>::max(),
                              StopReason::kExited);
        d.point.resource = std::numeric_limits<uint64_t>::max();
        decisions.push_back(d);
        d = MakeDecision(4, OpKind::kSignal, std::numeric_limits<int64_t>::min(), next(4), 0, StopReason::kReachedPoint);
        decisions.push_back(d);
        break;
      }
      default:  // decisions with no thread before them (each with its op and flags)
        for (size_t i = 0; i < std::min<size_t>(run, 50); ++i) {
          auto d = MakeDecision(std::nullopt, OpKind::kSyscall, -1, 0, static_cast<uint32_t>(i % 3));
          d.point.op = static_cast<OpKind>(i % (static_cast<int>(search::kLastOpKind) + 1));
          d.point.is_write = i % 2;
          decisions.push_back(d);
        }
        break;
    }
  }
  decisions.resize(count);
  return decisions;
}

Trace BigTrace(std::optional<int64_t> epoch) {
  Trace trace;
  trace.tool_version = kVersion;
  trace.command = BigCommand();
  trace.options = SomeOptions(epoch);
  for (uint32_t i = 0; i < 8; ++i) trace.threads.push_back({search::ThreadId{i}, 2 + i / 3, 2 + i});
  trace.threads.push_back({search::ThreadId{std::numeric_limits<uint32_t>::max()}, std::numeric_limits<int64_t>::max(),
                           std::numeric_limits<int64_t>::min()});
  trace.decisions = ManyDecisions(100'000);
  trace.outside_waits = {{0, 0}, {1, 1}, {5000, 1'000'000'000}, {5000, 7}, {99'999, std::numeric_limits<int64_t>::max()}};
  trace.object_names = {{2, 0x555555558080, "balance_lock (bank)"},
                        {3, std::numeric_limits<uint64_t>::max(), "acct+40 (bank \xff not UTF-8)"},
                        {std::numeric_limits<int64_t>::min(), 0, "(anonymous namespace)::mailbox_mutex (cpp)"}};
  Outcome outcome;
  outcome.outcome = search::Outcome::kSignal;
  outcome.signal = 6;
  outcome.exit_status = -1;
  outcome.message = "assertion failed:\n\t\xc3\xa9 \"quoted\" \x01";
  outcome.scheduling_points = 100'000;
  outcome.virtual_nanos = -5;
  trace.outcome = outcome;
  return trace;
}

TEST(TraceRoundTrip, EverythingWrittenIsReadBack) {
  ScratchDirectory dir;
  const Trace trace = BigTrace(int64_t{1704067200} * 1'000'000'000);
  ASSERT_TRUE(WriteWholeTrace(dir.File("big.trace"), trace).ok());
  auto read = ReadTrace(dir.File("big.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ExpectSameTrace(trace, *read);
}

// A search's trace with atomic points: the option, the sites it parked at with their cap, and
// decisions at atomic instructions — each naming its instruction, a run of the same one
// compressed into repeats, and syscall points between them without one.
TEST(TraceRoundTrip, AtomicPointsTheirSitesAndTheirInstructions) {
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(4, 6);
  trace.options.atomic_points = true;
  trace.options.sync_points = true;
  trace.options.io_points = true;
  trace.atomic_points = search::AtomicPointPlan{
      .mode = search::AtomicPointPlan::Mode::kPoints,
      .alone_sites = {{"/t/counter", 0x1236}, {"/t/counter", 0x1240}, {"/usr/lib/x86_64-linux-gnu/libstd-\xff.so", 0}},
      .max_points = std::numeric_limits<uint64_t>::max(),
      .detect_races = false,
      .max_sampled_sites = 50'000,
      .race_sites = {}};
  const size_t at = trace.decisions.size() - 2;  // before the exits
  uint64_t index = 1000;
  std::vector<search::RecordedDecision> atomics;
  for (int i = 0; i < 50; ++i) {
    auto d = MakeDecision(1, OpKind::kAtomic, -1, index++, i % 10 == 9 ? 0 : 1, StopReason::kReachedPoint);
    d.point.instruction = i < 30 ? 0x555555555236 : std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(i);
    d.point.resource = 0x555555558010;
    d.point.is_write = i % 3 != 0;
    atomics.push_back(d);
  }
  trace.decisions.insert(trace.decisions.begin() + static_cast<std::ptrdiff_t>(at), atomics.begin(), atomics.end());
  // The indexes after the atomic run continue from where it left thread 1.
  for (size_t k = at + atomics.size(); k < trace.decisions.size(); ++k) {
    if (trace.decisions[k].current == search::ThreadId{1}) trace.decisions[k].point.index = index++;
  }
  ASSERT_TRUE(WriteWholeTrace(dir.File("atomic.trace"), trace).ok());
  const auto counts = CountRecords(ReadFile(dir.File("atomic.trace")));
  EXPECT_EQ(counts.at(RecordType::kAtomicSites), 1u);
  auto read = ReadTrace(dir.File("atomic.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->format_version, kFormatVersion);
  ExpectSameTrace(trace, *read);
  EXPECT_EQ(read->decisions[at].point.instruction, 0x555555555236u);
  EXPECT_EQ(read->decisions[at].point.op, OpKind::kAtomic);
}

// A trace of a run that learned atomic points: the option without sites.
TEST(TraceRoundTrip, AtomicPointsWithoutSites) {
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(2, 2);
  trace.options.atomic_points = true;
  ASSERT_TRUE(WriteWholeTrace(dir.File("learned.trace"), trace).ok());
  auto read = ReadTrace(dir.File("learned.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_TRUE(read->options.atomic_points);
  EXPECT_FALSE(read->atomic_points.has_value());
  ExpectSameTrace(trace, *read);
}

TEST(TraceRoundTrip, AnObjectNameTooLongForTheReaderIsCutToFit) {
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(2, 0);
  trace.object_names = {{2, 0x4040, std::string(kMaxObjectName + 100, 'x')}};
  ASSERT_TRUE(WriteWholeTrace(dir.File("long.trace"), trace).ok());
  auto read = ReadTrace(dir.File("long.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ASSERT_EQ(read->object_names.size(), 1u);
  EXPECT_EQ(read->object_names[0].name, std::string(kMaxObjectName, 'x'));
}

TEST(TraceRoundTrip, RunsBecomeRepeatRecordsAndStayCompact) {
  ScratchDirectory dir;
  const Trace trace = BigTrace(std::nullopt);
  ASSERT_TRUE(WriteWholeTrace(dir.File("big.trace"), trace).ok());
  const std::string file = ReadFile(dir.File("big.trace"));
  const auto counts = CountRecords(file);
  const size_t decision_records = counts.count(RecordType::kDecision) ? counts.at(RecordType::kDecision) : 0;
  const size_t repeat_records = counts.count(RecordType::kRepeat) ? counts.at(RecordType::kRepeat) : 0;
  EXPECT_GT(repeat_records, 10u);
  EXPECT_LT(decision_records, trace.decisions.size() / 2) << "runs should not be written decision by decision";
  EXPECT_EQ(counts.at(RecordType::kCommand), 1u);
  EXPECT_EQ(counts.at(RecordType::kOptions), 1u);
  EXPECT_EQ(counts.at(RecordType::kThread), trace.threads.size());
  EXPECT_EQ(counts.at(RecordType::kOutsideWait), trace.outside_waits.size());
  EXPECT_EQ(counts.at(RecordType::kOutcome), 1u);
  EXPECT_EQ(counts.at(RecordType::kEnd), 1u);
  auto read = ReadTrace(dir.File("big.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ExpectSameTrace(trace, *read);
}

TEST(TraceRoundTrip, OptionsWithoutEpochAndNegativeEpoch) {
  for (std::optional<int64_t> epoch : {std::optional<int64_t>{}, std::optional<int64_t>{0}, std::optional<int64_t>{-1},
                                       std::optional<int64_t>{std::numeric_limits<int64_t>::min()}}) {
    ScratchDirectory dir;
    Trace trace = test_support::SmallTrace();
    trace.options.epoch = epoch;
    trace.options.io_points = false;
    ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
    auto read = ReadTrace(dir.File("t"), kVersion);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(read->options.epoch, epoch);
    ExpectSameTrace(trace, *read);
  }
}

TEST(TraceRoundTrip, StandardInputOfEveryKind) {
  std::string large(3 << 20, '\0');  // bigger than a zstd block, with every byte value
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>((i * 2654435761u) >> 13);
  const std::vector<StandardInput> inputs = {{StandardInput::Kind::kInherited, ""},
                                             {StandardInput::Kind::kPipe, ""},
                                             {StandardInput::Kind::kPipe, "a\nb\n"},
                                             {StandardInput::Kind::kFile, large},
                                             {StandardInput::Kind::kClosed, ""}};
  for (const StandardInput& input : inputs) {
    ScratchDirectory dir;
    Trace trace = test_support::SmallTrace();
    trace.standard_input = input;
    ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
    auto read = ReadTrace(dir.File("t"), kVersion);
    ASSERT_TRUE(read.ok()) << read.error();
    ASSERT_TRUE(read->standard_input.has_value());
    EXPECT_EQ(read->standard_input->kind, input.kind);
    EXPECT_EQ(read->standard_input->bytes, input.bytes);
    ExpectSameTrace(trace, *read);
  }
}

TEST(TraceRoundTrip, StandardDescriptorsOfEveryKindAndSharing) {
  using Kind = StandardDescriptor::Kind;
  const StandardDescriptor closed{};
  const StandardDescriptor file{.kind = Kind::kFile};
  const StandardDescriptor pipe{.kind = Kind::kPipe};
  const StandardDescriptor socket{.kind = Kind::kSocket};
  const StandardDescriptor other{.kind = Kind::kOther};
  const StandardDescriptor null{.kind = Kind::kDevice, .major = 1, .minor = 3};
  const StandardDescriptor big{.kind = Kind::kDevice, .major = UINT32_MAX, .minor = UINT32_MAX};
  const StandardDescriptor terminal{.kind = Kind::kTerminal, .rows = 65535, .columns = 1, .x_pixels = 640, .y_pixels = 480};
  auto same = [](StandardDescriptor fd, int8_t file_of, int8_t description_of) {
    fd.same_file_as = file_of;
    fd.same_description_as = description_of;
    return fd;
  };
  const std::vector<StandardDescriptors> cases = {
      {closed, closed, closed},
      {null, file, file},  // explore's: two files apart
      {pipe, socket, other},
      {big, pipe, same(pipe, 1, 1)},  // 2>&1 onto a pipe
      {terminal, same(terminal, 0, 0), same(terminal, 0, 0)},  // a shell in a terminal
      {terminal, same(terminal, 0, -1), same(terminal, 0, 1)},  // one terminal opened twice
      {closed, file, same(file, 1, -1)},  // one file opened twice
  };
  for (const StandardDescriptors& descriptors : cases) {
    ScratchDirectory dir;
    Trace trace = test_support::SmallTrace(3, 3);
    trace.standard_descriptors = descriptors;
    ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
    auto read = ReadTrace(dir.File("t"), kVersion);
    ASSERT_TRUE(read.ok()) << read.error();
    ExpectSameTrace(trace, *read);
  }
  // A trace written before the record existed reads without it.
  ScratchDirectory dir;
  Trace older = test_support::SmallTrace(3, 3);
  older.standard_descriptors.reset();
  ASSERT_TRUE(WriteWholeTrace(dir.File("t"), older).ok());
  EXPECT_EQ(CountRecords(ReadFile(dir.File("t"))).count(RecordType::kStandardDescriptors), 0u);
  auto read = ReadTrace(dir.File("t"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_FALSE(read->standard_descriptors.has_value());
}

TEST(TraceRoundTrip, AReportTooLongForTheReaderIsCutToFit) {
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(3);
  trace.outcome->report = std::string(kMaxRecordString + 4096, 'r');
  ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
  auto read = ReadTrace(dir.File("t"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->outcome->report.size(), kMaxRecordString);
  EXPECT_NE(read->outcome->report.find("did not fit"), std::string::npos);
}

TEST(TraceRoundTrip, EveryOutcomeAndNoOutcome) {
  for (int kind = 0; kind <= static_cast<int>(search::Outcome::kError); ++kind) {
    ScratchDirectory dir;
    Trace trace = test_support::SmallTrace(3);
    trace.outcome->outcome = static_cast<search::Outcome>(kind);
    trace.outcome->exit_status = kind % 2 ? std::optional<int64_t>(kind) : std::nullopt;
    trace.outcome->signal = kind % 3 ? std::optional<int64_t>(-kind) : std::nullopt;
    ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
    auto read = ReadTrace(dir.File("t"), kVersion);
    ASSERT_TRUE(read.ok()) << read.error();
    ExpectSameTrace(trace, *read);
  }
  ScratchDirectory dir;
  Trace cut_short = test_support::SmallTrace(3);
  cut_short.outcome.reset();
  ASSERT_TRUE(WriteWholeTrace(dir.File("t"), cut_short).ok());
  auto read = ReadTrace(dir.File("t"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_FALSE(read->outcome.has_value());
}

TEST(TraceRoundTrip, MinimalTrace) {
  // A command and options, nothing else: no threads, no decisions.
  ScratchDirectory dir;
  Trace trace;
  trace.tool_version = "";
  trace.command.argv = {""};
  ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
  auto read = ReadTrace(dir.File("t"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ExpectSameTrace(trace, *read);
}

TEST(TraceRoundTrip, MillionDecisionRunIsTiny) {
  // One thread yielding a million times is one decision record and one repeat record.
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(0);
  trace.decisions.clear();
  for (uint64_t i = 0; i < 1'000'000; ++i) trace.decisions.push_back(MakeDecision(0, OpKind::kYield, 24, i, 0));
  ASSERT_TRUE(WriteWholeTrace(dir.File("t"), trace).ok());
  const std::string file = ReadFile(dir.File("t"));
  const auto counts = CountRecords(file);
  EXPECT_LE(counts.at(RecordType::kDecision), 2u);
  EXPECT_LE(file.size(), 2000u);
  auto read = ReadTrace(dir.File("t"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ExpectSameTrace(trace, *read);
}

TEST(TraceWriterFiles, OpenRefusesAnExistingFileWithoutReplace) {
  ScratchDirectory dir;
  const std::string path = dir.File("existing.trace");
  test_support::WriteFile(path, "precious");
  TraceWriter writer;
  auto opened = writer.Open(path, /*replace=*/false, kVersion);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().find(path), std::string::npos) << opened.error();
  EXPECT_NE(opened.error().find("--force"), std::string::npos) << opened.error();
  EXPECT_EQ(ReadFile(path), "precious");
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"existing.trace"});
}

TEST(TraceWriterFiles, OpenWithReplaceReplacesTheFile) {
  ScratchDirectory dir;
  const std::string path = dir.File("existing.trace");
  test_support::WriteFile(path, "precious");
  const Trace trace = test_support::SmallTrace();
  ASSERT_TRUE(WriteWholeTrace(path, trace, /*replace=*/true).ok());
  auto read = ReadTrace(path, kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ExpectSameTrace(trace, *read);
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"existing.trace"});
}

TEST(TraceWriterFiles, UntilFinishTheOldFileStays) {
  ScratchDirectory dir;
  const std::string path = dir.File("existing.trace");
  test_support::WriteFile(path, "precious");
  {
    TraceWriter writer;
    ASSERT_TRUE(writer.Open(path, /*replace=*/true, kVersion).ok());
    writer.WriteCommand(test_support::SmallTrace().command);
    EXPECT_EQ(ReadFile(path), "precious");
  }
  // Abandoned: the old file is untouched and the temporary is gone.
  EXPECT_EQ(ReadFile(path), "precious");
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"existing.trace"});
}

TEST(TraceWriterFiles, FileThatAppearsBeforeFinishIsNotReplacedWithoutReplace) {
  ScratchDirectory dir;
  const std::string path = dir.File("late.trace");
  TraceWriter writer;
  ASSERT_TRUE(writer.Open(path, /*replace=*/false, kVersion).ok());
  const Trace trace = test_support::SmallTrace();
  writer.WriteCommand(trace.command);
  writer.WriteOptions(trace.options);
  test_support::WriteFile(path, "appeared meanwhile");
  auto finished = writer.Finish();
  ASSERT_FALSE(finished.ok());
  EXPECT_NE(finished.error().find("exists"), std::string::npos) << finished.error();
  EXPECT_EQ(ReadFile(path), "appeared meanwhile");
}

TEST(TraceWriterFiles, AbandonedWriterLeavesNoFileAndNoTemporary) {
  ScratchDirectory dir;
  {
    TraceWriter writer;
    ASSERT_TRUE(writer.Open(dir.File("abandoned.trace"), false, kVersion).ok());
    const Trace trace = BigTrace(std::nullopt);  // enough records to have flushed compressed data
    writer.WriteCommand(trace.command);
    writer.WriteOptions(trace.options);
    for (const auto& decision : trace.decisions) writer.WriteDecision(decision);
    EXPECT_EQ(writer.Decisions(), trace.decisions.size());
    EXPECT_EQ(dir.Entries().size(), 1u) << "the temporary beside the destination";
  }
  EXPECT_TRUE(dir.Entries().empty());
  {
    TraceWriter opened_only;
    ASSERT_TRUE(opened_only.Open(dir.File("abandoned.trace"), false, kVersion).ok());
  }
  EXPECT_TRUE(dir.Entries().empty());
}

TEST(TraceWriterFiles, FinishedTraceIsTheOnlyFileLeft) {
  ScratchDirectory dir;
  ASSERT_TRUE(WriteWholeTrace(dir.File("done.trace"), test_support::SmallTrace()).ok());
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"done.trace"});
}

TEST(TraceWriterFiles, TraceModeFollowsTheUmask) {
  ScratchDirectory dir;
  const mode_t old = umask(022);
  ASSERT_TRUE(WriteWholeTrace(dir.File("mode.trace"), test_support::SmallTrace()).ok());
  umask(old);
  struct stat info{};
  ASSERT_EQ(stat(dir.File("mode.trace").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST(TraceWriterFiles, OpenInAMissingDirectoryFails) {
  ScratchDirectory dir;
  TraceWriter writer;
  auto opened = writer.Open(dir.File("no/such/dir/t.trace"), false, kVersion);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().find("no/such/dir/t.trace"), std::string::npos) << opened.error();
  EXPECT_TRUE(dir.Entries().empty());
}

// Disabled: TraceWriter::Finish after a failed Open dereferences a null zstd context
// (ZSTD_compressStream2 on ZstdFrameWriter::context_ == nullptr) and crashes. The CLI returns
// before calling Finish, so only the API is affected. Enable once Finish reports an error there.
TEST(TraceWriterFiles, FinishAfterAFailedOpenIsAnError) {
  ScratchDirectory dir;
  {
    TraceWriter writer;
    ASSERT_FALSE(writer.Open(dir.File("no/such/dir/t.trace"), false, kVersion).ok());
    writer.WriteCommand(test_support::SmallTrace().command);
    EXPECT_FALSE(writer.Finish().ok());
  }
  test_support::WriteFile(dir.File("existing.trace"), "precious");
  TraceWriter refused;
  ASSERT_FALSE(refused.Open(dir.File("existing.trace"), false, kVersion).ok());
  EXPECT_FALSE(refused.Finish().ok());
  EXPECT_EQ(ReadFile(dir.File("existing.trace")), "precious");
}

TEST(TraceReaderFiles, MissingFileDirectoryAndEmptyFileAreErrors) {
  ScratchDirectory dir;
  auto missing = ReadTrace(dir.File("missing.trace"), kVersion);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("missing.trace"), std::string::npos) << missing.error();
  auto directory = ReadTrace(dir.path(), kVersion);
  ASSERT_FALSE(directory.ok());
  EXPECT_FALSE(directory.error().empty());
  test_support::WriteFile(dir.File("empty"), "");
  auto empty = ReadTrace(dir.File("empty"), kVersion);
  ASSERT_FALSE(empty.ok());
  EXPECT_FALSE(empty.error().empty());
}

}  // namespace
}  // namespace chess::trace
