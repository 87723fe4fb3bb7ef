// Race points in traces (format 4): the options' race_points byte, the race-sites record that
// completes the atomic plan, and decisions at racing accesses — written and read back, refused
// where damaged or where an older format could not hold them, and shown by every renderer.
#include <gtest/gtest.h>

#include <set>

#include "tests/unit/trace_record_streams.h"
#include "tests/unit/trace_test_support.h"
#include "trace/render.h"
#include "trace/trace_reader.h"

namespace chess::trace {
namespace {

using namespace record_streams;
using search::OpKind;
using search::StopReason;
using test_support::ExpectSameTrace;
using test_support::MakeDecision;
using test_support::ScratchDirectory;
using test_support::WriteWholeTrace;

const search::CodeLocation kCheck{"/t/plain", 0x1165};
const search::CodeLocation kClaim{"/t/plain", 0x1180};

// A search's trace at the races level: thread 1 stopped before its racing write of 0x404c3c,
// preempted; thread 0 before its racing read of it.
Trace RaceTrace() {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.options.sync_points = true;
  trace.options.io_points = true;
  trace.options.atomic_points = true;
  trace.options.race_points = true;
  search::AtomicPointPlan plan;
  plan.mode = search::AtomicPointPlan::Mode::kPoints;
  plan.max_points = 500;
  plan.alone_sites = {{"/t/plain", 0x1100}};
  plan.race_sites = {kCheck, kClaim};
  trace.atomic_points = plan;
  auto write = MakeDecision(1, OpKind::kRacyAccess, -1, 10, 0, StopReason::kReachedPoint);
  write.point.instruction = 0x401180;
  write.point.resource = 0x404c3c;
  write.point.is_write = true;
  auto read = MakeDecision(0, OpKind::kRacyAccess, -1, 11, 1, StopReason::kReachedPoint);
  read.point.instruction = 0x401165;
  read.point.resource = 0x404c3c;
  trace.decisions.insert(trace.decisions.end() - 2, {write, read, write});
  return trace;
}

TEST(TraceRaceSites, RaceSitesAndRacingDecisionsRoundTrip) {
  ScratchDirectory dir;
  const Trace trace = RaceTrace();
  ASSERT_TRUE(WriteWholeTrace(dir.File("race.trace"), trace).ok());
  auto read = ReadTrace(dir.File("race.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->format_version, kFormatVersion);  // written in the current format, which keeps race sites
  ExpectSameTrace(trace, *read);
  EXPECT_TRUE(read->options.race_points);
  ASSERT_TRUE(read->atomic_points.has_value());
  EXPECT_EQ(read->atomic_points->race_sites, (std::set<search::CodeLocation>{kCheck, kClaim}));
  const size_t at = read->decisions.size() - 5;
  EXPECT_EQ(read->decisions[at].point.op, OpKind::kRacyAccess);
  EXPECT_EQ(read->decisions[at].point.instruction, 0x401180u);
}

// A trace of an atomics-level search: no race points, no race sites, as before the layer.
TEST(TraceRaceSites, AnAtomicsLevelTraceHasNoRacePoints) {
  ScratchDirectory dir;
  Trace trace = RaceTrace();
  trace.options.race_points = false;
  trace.atomic_points->race_sites.clear();
  for (search::RecordedDecision& d : trace.decisions) {
    if (d.point.op == OpKind::kRacyAccess) d.point.op = OpKind::kAtomic;
  }
  ASSERT_TRUE(WriteWholeTrace(dir.File("atomics.trace"), trace).ok());
  auto read = ReadTrace(dir.File("atomics.trace"), kVersion);
  ASSERT_TRUE(read.ok()) << read.error();
  ExpectSameTrace(trace, *read);
  EXPECT_FALSE(read->options.race_points);
  EXPECT_TRUE(read->atomic_points->race_sites.empty());
}

// The options record with atomic points and race points set (format 4).
ByteWriter RaceOptionsPayload(uint8_t race_points = 1) {
  ByteWriter w = AtomicOptionsPayload();
  w.U8(race_points);
  return w;
}

// A race-sites record's payload: the count, then each site's module and address.
ByteWriter RaceSitesPayload(uint64_t count, const std::vector<std::pair<std::string, uint64_t>>& sites) {
  ByteWriter w;
  w.Varint(count);
  for (const auto& [module, address] : sites) {
    w.String(module);
    w.Varint(address);
  }
  return w;
}

// A decision of thread 0 before a racing access (the atomic one, its op changed).
ByteWriter RacyDecision() {
  ByteWriter w = AtomicDecision(0x401165);
  std::string bytes = w.bytes();
  bytes[1] = static_cast<char>(OpKind::kRacyAccess);
  ByteWriter racy;
  racy.Raw(bytes.data(), bytes.size());
  return racy;
}

TEST(TraceRaceSites, HandMadeRaceSitesDecode) {
  Stream s;
  s.Command()
      .Record(RecordType::kOptions, RaceOptionsPayload())
      .Record(RecordType::kAtomicSites, SitesPayload(64, 0, {}))
      .Record(RecordType::kRaceSites, RaceSitesPayload(2, {{"/t/plain", 0x1165}, {"/t/plain", 0x1180}}))
      .Record(RecordType::kDecision, RacyDecision())
      .End();
  auto trace = Parse(s);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_TRUE(trace->options.race_points);
  EXPECT_EQ(trace->atomic_points->race_sites, (std::set<search::CodeLocation>{kCheck, kClaim}));
  ASSERT_EQ(trace->decisions.size(), 1u);
  EXPECT_EQ(trace->decisions[0].point.op, OpKind::kRacyAccess);
}

TEST(TraceRaceSites, MalformedRaceSitesAreRefused) {
  const auto with_sites = [](const ByteWriter& options, const ByteWriter& sites) {
    Stream s;
    s.Command()
        .Record(RecordType::kOptions, options)
        .Record(RecordType::kAtomicSites, SitesPayload(64, 0, {}))
        .Record(RecordType::kRaceSites, sites)
        .End();
    return s;
  };
  ExpectRefused(with_sites(RaceOptionsPayload(), RaceSitesPayload(2, {{"/t/plain", 1}, {"/t/plain", 1}})), "a race site listed twice");
  ExpectRefused(with_sites(RaceOptionsPayload(), RaceSitesPayload(1, {{"", 1}})), "a race site without a module");
  ExpectRefused(with_sites(RaceOptionsPayload(), RaceSitesPayload(uint64_t{1} << 40, {})), "a race sites record claiming");
  ExpectRefused(with_sites(RaceOptionsPayload(0), RaceSitesPayload(1, {{"/t/plain", 1}})),
                "race sites in a trace without race points");
  ExpectRefused(with_sites(RaceOptionsPayload(2), RaceSitesPayload(0, {})), "bad flag");

  Stream first;
  first.Command()
      .Record(RecordType::kOptions, RaceOptionsPayload())
      .Record(RecordType::kRaceSites, RaceSitesPayload(1, {{"/t/plain", 1}}))
      .End();
  ExpectRefused(first, "race sites before the atomic sites");
  Stream twice;
  twice.Command()
      .Record(RecordType::kOptions, RaceOptionsPayload())
      .Record(RecordType::kAtomicSites, SitesPayload(64, 0, {}))
      .Record(RecordType::kRaceSites, RaceSitesPayload(1, {{"/t/plain", 1}}))
      .Record(RecordType::kRaceSites, RaceSitesPayload(1, {{"/t/plain", 2}}))
      .End();
  ExpectRefused(twice, "two race sites records");
  // Race points without atomic points: the races level has the atomics level's points.
  ByteWriter no_atomics = OptionsPayload("pb");
  no_atomics.U8(1);  // sync points
  no_atomics.U8(0);  // atomic points
  no_atomics.U8(1);  // race points
  Stream alone;
  alone.Command().Record(RecordType::kOptions, no_atomics).End();
  ExpectRefused(alone, "race points without atomic points");
}

// Format 3 had no race points: a trace of it still reads, and what only format 4 may hold is
// damage in it.
TEST(TraceRaceSites, AFormatThreeTraceIsStillReadAndHoldsNoRacePoints) {
  Stream s;
  s.Command()
      .Record(RecordType::kOptions, AtomicOptionsPayload())
      .Record(RecordType::kAtomicSites, SitesPayload(64, 1, {{"/t/prog", 0x401236}}))
      .Record(RecordType::kDecision, AtomicDecision(0x401236))
      .End();
  test_support::GuardedBuffer buffer(Container(s.bytes(), 3));
  auto trace = ParseTrace(buffer.view(), kVersion);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace->format_version, 3);
  EXPECT_TRUE(trace->options.atomic_points);
  EXPECT_FALSE(trace->options.race_points);
  EXPECT_TRUE(trace->atomic_points->race_sites.empty());

  const auto refused_in_three = [](const Stream& stream, const std::string& expected) {
    test_support::GuardedBuffer three(Container(stream.bytes(), 3));
    auto parsed = ParseTrace(three.view(), kVersion);
    ASSERT_FALSE(parsed.ok()) << "accepted; expected " << expected;
    EXPECT_NE(parsed.error().find(expected), std::string::npos) << parsed.error();
  };
  Stream option;
  option.Command().Record(RecordType::kOptions, RaceOptionsPayload(0)).End();
  refused_in_three(option, "bad flag");
  Stream sites;
  sites.Command()
      .Record(RecordType::kOptions, AtomicOptionsPayload())
      .Record(RecordType::kAtomicSites, SitesPayload(64, 0, {}))
      .Record(RecordType::kRaceSites, RaceSitesPayload(0, {}))
      .End();
  refused_in_three(sites, "a race sites record in a format 3 trace");
  Stream racy;
  racy.Command().Record(RecordType::kOptions, AtomicOptionsPayload()).Record(RecordType::kDecision, RacyDecision()).End();
  refused_in_three(racy, "unknown operation");
}

TEST(TraceRaceSites, RacingAccessesAreMarkedInTextJsonAndChrome) {
  const Trace trace = RaceTrace();
  const std::string text = RenderText(trace);
  EXPECT_NE(text.find("race points: the 2 instructions of the data races the search found"), std::string::npos) << text;
  EXPECT_NE(text.find("racy access 0x401180"), std::string::npos) << text;
  EXPECT_NE(text.find("racing accesses above:\n  thread 1 at the racing access 0x401180 writing 0x404c3c\n"
                      "  thread 0 at the racing access 0x401165 reading 0x404c3c\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("atomic points above:"), std::string::npos) << text;
  const std::string json = RenderJson(trace);
  EXPECT_NE(json.find(R"("race_points": true)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"x("race_sites": [{"module": "/t/plain", "address": 4453}, {"module": "/t/plain", "address": 4480}]})x"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("instruction": 4198784, "is_write": true, "racy_access": "at the racing access 0x401180 writing 0x404c3c")"),
            std::string::npos)
      << json;
  const std::string chrome = RenderChrome(trace);
  EXPECT_NE(chrome.find(R"("name": "racy access", "s": "t", "pid": 2, "tid": 1)"), std::string::npos) << chrome;
  // At the atomics level nothing is said of races.
  Trace atomics = test_support::SmallTrace(2, 0);
  atomics.options.atomic_points = true;
  EXPECT_EQ(RenderText(atomics).find("race points"), std::string::npos);
  EXPECT_NE(RenderJson(atomics).find(R"("race_points": false)"), std::string::npos);
}

}  // namespace
}  // namespace chess::trace
