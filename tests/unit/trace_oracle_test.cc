// The oracle record in traces (format 5, docs/oracles.md): how an execution's output and world
// were judged — --expect-exit, --fail-on-output's regex, the expected stdout, --same-output's
// files and --check's command — written and read back, refused where damaged or where an older
// format could not hold it, and shown by the renderers.
#include <gtest/gtest.h>

#include "tests/unit/trace_record_streams.h"
#include "tests/unit/trace_test_support.h"
#include "trace/render.h"
#include "trace/trace_reader.h"

namespace chess::trace {
namespace {

using namespace record_streams;
using test_support::ExpectSameTrace;
using test_support::ScratchDirectory;
using test_support::WriteWholeTrace;

Oracle EveryOracle() {
  Oracle oracle;
  oracle.expect_exit = 3;
  oracle.output.fail_on_output = "^ERROR";
  oracle.output.expected_stdout = "balance 120\n";
  oracle.output.expected_stdout_name = "the non-preemptive execution's stdout";
  oracle.output.expected_files = {{"/tmp/balance.txt", "balance 120\n"}, {"left.txt", std::nullopt}};
  oracle.output.check_command = "grep -qx 'balance 120' /tmp/balance.txt";
  return oracle;
}

TEST(TraceOracle, EveryOracleRoundTrips) {
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(2, 0);
  trace.oracle = EveryOracle();
  trace.outcome = Outcome{};
  trace.outcome->outcome = search::Outcome::kCheckFailed;
  ASSERT_TRUE(WriteWholeTrace(dir.File("oracle.trace"), trace).ok());
  auto read = ReadTrace(dir.File("oracle.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->format_version, kFirstOracleFormat);
  ExpectSameTrace(trace, *read);
  ASSERT_TRUE(read->oracle.has_value());
  EXPECT_TRUE(*read->oracle == EveryOracle());
  EXPECT_EQ(read->outcome->outcome, search::Outcome::kCheckFailed);
}

TEST(TraceOracle, TheRenderersShowIt) {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.oracle = EveryOracle();
  const std::string text = RenderText(trace);
  EXPECT_NE(text.find("output judged (expect exit 3): no line may match --fail-on-output '^ERROR'"), std::string::npos)
      << text;
  EXPECT_NE(text.find("/tmp/balance.txt must hold the reference's 12 bytes; left.txt must not be written"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--check 'grep -qx 'balance 120' /tmp/balance.txt' must exit 0"), std::string::npos) << text;
  const std::string json = RenderJson(trace);
  EXPECT_NE(json.find("\"check\": \"grep -qx 'balance 120' /tmp/balance.txt\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"path\": \"left.txt\", \"content\": null}"), std::string::npos) << json;
}

// An oracle record's payload: expect-exit, flags, regex, stdout, its name, check, then files.
ByteWriter OraclePayload(int64_t expect_exit, uint8_t flags, const std::string& regex = "", uint64_t files = 0,
                         uint8_t present = 1) {
  ByteWriter w;
  w.Signed(expect_exit);
  w.U8(flags);
  w.String(regex);
  w.String("");
  w.String("");
  w.String("true");
  w.Varint(files);
  for (uint64_t i = 0; i < files; ++i) {
    w.String("f");
    w.U8(present);
    w.String("x");
  }
  return w;
}

Stream WithOracle(const ByteWriter& oracle) {
  Stream s;
  s.Command().Options().Record(RecordType::kOracle, oracle).End();
  return s;
}

TEST(TraceOracle, MalformedOracleRecordsAreRefused) {
  ExpectRefused(WithOracle(OraclePayload(0, 8)), "an oracle record with unknown flags");
  ExpectRefused(WithOracle(OraclePayload(0, 0)), "an oracle record with unknown flags");  // judges nothing
  ExpectRefused(WithOracle(OraclePayload(256, 4)), "expecting exit 256");
  ExpectRefused(WithOracle(OraclePayload(0, 1, "(")), "a bad regex");
  ExpectRefused(WithOracle(OraclePayload(0, 0, "", kMaxOracleFiles + 1)), "files");
  ExpectRefused(WithOracle(OraclePayload(0, 0, "", 1, 2)), "file with unknown flags");
  // A format 4 trace cannot hold one.
  test_support::GuardedBuffer older(Container(WithOracle(OraclePayload(0, 4)).bytes(), kFirstRaceFormat));
  auto refused = ParseTrace(older.view(), kVersion);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("an oracle record in a format 4 trace"), std::string::npos) << refused.error();
  Stream twice;
  twice.Command().Options().Record(RecordType::kOracle, OraclePayload(0, 4)).Record(RecordType::kOracle, OraclePayload(0, 4)).End();
  ExpectRefused(twice, "two oracle records");
}

// --same-output whose reference failed has nothing to judge by: no record, and the trace reads.
TEST(TraceOracle, AnOracleThatJudgesNothingIsNotWritten) {
  ScratchDirectory dir;
  Trace trace = test_support::SmallTrace(2, 0);
  trace.oracle = Oracle{};
  ASSERT_TRUE(WriteWholeTrace(dir.File("empty.trace"), trace).ok());
  auto read = ReadTrace(dir.File("empty.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_FALSE(read->oracle.has_value());
}

// The outcomes the oracles give came with format 5.
TEST(TraceOracle, AnOraclesOutcomeInAnOlderTraceIsDamage) {
  for (const search::Outcome outcome : {search::Outcome::kWrongOutput, search::Outcome::kCheckFailed}) {
    ByteWriter w;
    w.U8(static_cast<uint8_t>(outcome));  // then flags, exit status, signal, message, points, virtual time
    w.U8(0);
    w.Signed(0);
    w.Signed(0);
    w.String("");
    w.Varint(0);
    w.Signed(0);
    Stream s;
    s.Command().Options().Record(RecordType::kOutcome, w).End();
    test_support::GuardedBuffer older(Container(s.bytes(), kFirstRaceFormat));
    auto refused = ParseTrace(older.view(), kVersion);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("an oracle's outcome in a format 4 trace"), std::string::npos) << refused.error();
  }
}

TEST(TraceOracle, AFileOnlyOracleDecodes) {
  auto trace = Parse(WithOracle(OraclePayload(0, 0, "", 1)));
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_TRUE(trace->oracle.has_value());
  ASSERT_EQ(trace->oracle->output.expected_files.size(), 1u);
  EXPECT_EQ(trace->oracle->output.expected_files[0].content, "x");
  EXPECT_FALSE(trace->oracle->output.check_command.has_value());
}

}  // namespace
}  // namespace chess::trace
