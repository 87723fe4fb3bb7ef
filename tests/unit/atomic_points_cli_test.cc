// The commands' side of atomic points (--sync-points atomics): the level's name and order, the
// settings it makes, the plan a learning execution gives a search, what a trace keeps of it, and
// what the reports say of it. The supervisor is not involved: counts are made up here.
#include <gtest/gtest.h>

#include "cli/atomic_point_learning.h"
#include "cli/explore_report.h"
#include "cli/program_options.h"
#include "cli/report.h"
#include "cli/trace_recording.h"
#include "cli/visibility.h"
#include "tests/unit/trace_test_support.h"

namespace chess::cli {
namespace {

using Mode = search::AtomicPointPlan::Mode;

const search::CodeLocation kIncrement{"/t/counter", 0x1236};
const search::CodeLocation kExchange{"/usr/lib/libstd.so", 0x9a0};
const search::CodeLocation kStartUp{"/t/counter", 0x1100};

// A learning execution that met 41 sites, two of them beside another thread, one only alone.
search::AtomicPointCount Learned() {
  search::AtomicPointCount count;
  count.planted = 41;
  count.stops = 900;
  count.learned_sites = 41;
  count.shared = {kIncrement, kExchange};
  count.alone = {kStartUp};
  return count;
}

TEST(SyncPointsLevel, EveryNameParsesBackAndRacesIsTheHighest) {
  for (SyncPoints level :
       {SyncPoints::kSyscalls, SyncPoints::kAuto, SyncPoints::kProcesses, SyncPoints::kAtomics, SyncPoints::kRaces}) {
    EXPECT_EQ(ParseSyncPoints(SyncPointsName(level)), level) << SyncPointsName(level);
  }
  EXPECT_STREQ(SyncPointsName(SyncPoints::kAtomics), "atomics");
  EXPECT_FALSE(ParseSyncPoints("atomic").has_value());
  // Each level adds points to the one before: what holds for processes holds for atomics.
  EXPECT_GT(SyncPoints::kAtomics, SyncPoints::kProcesses);
  EXPECT_GT(SyncPoints::kRaces, SyncPoints::kAtomics);
  EXPECT_STREQ(SyncPointsName(SyncPoints::kRaces), "races");
}

TEST(SyncPointsLevel, TheOptionTakesAtomicsAndTheCommandsDefault) {
  Messages messages;
  ProgramOptions options;
  options.command = {"prog"};
  auto defaulted = BuildSettings(options, "none", SyncPoints::kAtomics, messages);
  ASSERT_TRUE(defaulted.has_value());
  EXPECT_EQ(defaulted->sync_points, SyncPoints::kAtomics);
  EXPECT_FALSE(defaulted->atomic_points.has_value());  // a first execution learns them
  options.sync_points = "processes";
  auto earlier = BuildSettings(options, "none", SyncPoints::kAtomics, messages);
  ASSERT_TRUE(earlier.has_value());
  EXPECT_EQ(earlier->sync_points, SyncPoints::kProcesses);

  CLI::App app;
  ProgramOptions parsed;
  AddProgramOptions(app, parsed, {});
  EXPECT_NO_THROW(app.parse("--sync-points atomics -- prog", false));
  EXPECT_EQ(parsed.sync_points, "atomics");
  EXPECT_NE(app.get_option("--sync-points")->get_description().find("`atomics`"), std::string::npos);
  EXPECT_NE(app.get_option("--sync-points")->get_description().find("`races`"), std::string::npos);
  EXPECT_NO_THROW(app.parse("--sync-points races -- prog", false));
  EXPECT_EQ(parsed.sync_points, "races");
}

TEST(AtomicPointLearning, EverySiteButThoseThatRanOnlyAloneIsPlanted) {
  AtomicPointLearning learning(500, SyncPoints::kAtomics);
  learning.Learned(Learned(), search::Outcome::kOk);
  const search::AtomicPointPlan plan = learning.Plan();
  EXPECT_EQ(plan.mode, Mode::kPoints);
  EXPECT_EQ(plan.alone_sites, (std::set<search::CodeLocation>{kStartUp}));
  EXPECT_EQ(plan.max_points, 500u);
  EXPECT_EQ(learning.Sentence(),
            "atomic points: every atomic instruction but the 1 that ran only while their thread was alone (2 of the 41 "
            "executed ran beside another thread)");
  EXPECT_EQ(learning.FailureNote(), "");
  const AtomicPointsSeen seen = learning.Seen();
  EXPECT_EQ(seen.sites, 2u);
  EXPECT_EQ(seen.alone_sites, 1u);
  EXPECT_EQ(seen.learned_sites, 41u);
  EXPECT_EQ(seen.executions, 0u);  // the learning execution is not one of the search's
}

TEST(AtomicPointLearning, AFailedLearningExecutionIsSaidAndTheSearchGoesOn) {
  AtomicPointLearning learning(10, SyncPoints::kAtomics);
  search::AtomicPointCount none;
  learning.Learned(none, search::Outcome::kSignal);
  EXPECT_EQ(learning.Plan().alone_sites.size(), 0u);  // nothing learned: every site is planted
  EXPECT_EQ(learning.Sentence(),
            "atomic points: every atomic instruction but the 0 that ran only while their thread was alone (0 of the 0 "
            "executed ran beside another thread)");
  EXPECT_NE(learning.FailureNote().find("ended signal; the search's first execution runs the same schedule"),
            std::string::npos)
      << learning.FailureNote();
}

TEST(AtomicPointsSeen, OnlyWhenTheLayerWasOnAndSummedOverExecutions) {
  EXPECT_FALSE(AtomicPointsSeen::Of(std::nullopt, Learned()).has_value());
  const auto learning = AtomicPointsSeen::Of(LearningPlan(), Learned());
  ASSERT_TRUE(learning.has_value());
  EXPECT_EQ(learning->sites, 2u);
  EXPECT_EQ(learning->learned_sites, 41u);
  EXPECT_EQ(learning->stops, 900u);

  AtomicPointsSeen search;
  search::AtomicPointCount first;
  first.planted = 2;
  first.stops = 7;
  first.points = 7;
  search::AtomicPointCount capped = first;
  capped.capped = true;
  capped.refused = {"/t/jit: writable code"};
  search.Add(first);
  search.Add(capped);
  EXPECT_EQ(search.executions, 2u);
  EXPECT_EQ(search.points, 14u);
  EXPECT_EQ(search.capped_executions, 1u);
  EXPECT_EQ(search.refused, (std::set<std::string>{"/t/jit: writable code"}));
}

TEST(AtomicPointsSeen, RunsReportHasTheObjectOnlyWithTheLayer) {
  supervisor::ExecutionResult result;
  result.outcome = search::Outcome::kOk;
  result.atomics = Learned();
  EXPECT_EQ(JsonReport(result, "run").find("\"atomic_points\""), std::string::npos);
  const std::string json = JsonReport(result, "run", LearningPlan());
  EXPECT_NE(json.find(R"("atomic_points":{"sites":2,"learned_sites":41,"alone_sites":1,"planted":41,"stops":900,"points":0,"capped":false,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("refused":[])"), std::string::npos) << json;
}

TEST(AtomicPointsTrace, TheLevelAndTheSitesGoIntoATraceAndComeBack) {
  ExecutionSettings settings;
  settings.command = {"prog"};
  settings.sync_points = SyncPoints::kAtomics;
  const trace::Options options = TraceOptions(settings, 0, "pb");
  EXPECT_TRUE(options.atomic_points);
  EXPECT_TRUE(options.io_points);  // each level has the points of the ones before
  EXPECT_TRUE(options.sync_points);

  trace::Trace recorded;
  recorded.command.argv = {"prog"};
  recorded.options = options;
  recorded.atomic_points = search::AtomicPointPlan{
      .mode = Mode::kPoints, .alone_sites = {kIncrement}, .max_points = 77, .detect_races = false, .max_sampled_sites = 50'000, .race_sites = {}};
  const ExecutionSettings replayed = RecordedSettings(recorded);
  EXPECT_EQ(replayed.sync_points, SyncPoints::kAtomics);
  ASSERT_TRUE(replayed.atomic_points.has_value());
  EXPECT_EQ(replayed.atomic_points->mode, Mode::kPoints);
  EXPECT_EQ(replayed.atomic_points->alone_sites, (std::set<search::CodeLocation>{kIncrement}));
  EXPECT_EQ(replayed.atomic_points->max_points, 77u);

  // A run's trace has no sites: its replay learns again, and parks at none, as the run did.
  recorded.atomic_points.reset();
  EXPECT_FALSE(RecordedSettings(recorded).atomic_points.has_value());
  // An older trace: processes, no atomic points.
  recorded.options.atomic_points = false;
  EXPECT_EQ(RecordedSettings(recorded).sync_points, SyncPoints::kProcesses);
}

supervisor::ProgramImage Threaded(std::string path, supervisor::Linking linking) {
  supervisor::ProgramImage image;
  image.path = std::move(path);
  image.linking = linking;
  image.multithreaded = true;
  return image;
}

TEST(AtomicPointsVisibility, TheLayerIsNamedAndTheBlindSpotSaysWhatItStillMisses) {
  VisibilityTally tally;
  tally.Add({Threaded("/t/rust_prog", supervisor::Linking::kDynamic)});
  AtomicPointLearning learning(10, SyncPoints::kAtomics);
  learning.Learned(Learned(), search::Outcome::kOk);
  tally.UseAtomicPoints(learning.Seen());
  search::AtomicPointCount count;
  count.points = 3;
  tally.AddAtomics(count);
  const SearchVisibility seen = tally.Summarize(SyncPoints::kAtomics);
  EXPECT_EQ(seen.visible_layers, (std::vector<std::string>{"syscalls", "cross-process", "atomics"}));
  ASSERT_TRUE(seen.atomics.has_value());
  EXPECT_EQ(seen.atomics->points, 3u);
  ASSERT_EQ(seen.blind_spots.size(), 1u);
  EXPECT_NE(seen.blind_spots[0].find("its atomic instructions were points while another thread lived"),
            std::string::npos)
      << seen.blind_spots[0];
  EXPECT_NE(seen.blind_spots[0].find("atomic loads, plain stores"), std::string::npos) << seen.blind_spots[0];
  // Below the level, the tally's atomic points are not claimed.
  EXPECT_FALSE(tally.Summarize(SyncPoints::kProcesses).atomics.has_value());
}

TEST(AtomicPointsVisibility, ABlindSpotClaimsNoAtomicPointsTheLayerDidNotHave) {
  const auto blind_spot = [](const search::AtomicPointCount& learned) {
    VisibilityTally tally;
    tally.Add({Threaded("/t/rust_prog", supervisor::Linking::kDynamic)});
    AtomicPointLearning learning(10, SyncPoints::kAtomics);
    learning.Learned(learned, search::Outcome::kOk);
    tally.UseAtomicPoints(learning.Seen());
    const SearchVisibility seen = tally.Summarize(SyncPoints::kAtomics);
    return seen.blind_spots.empty() ? std::string() : seen.blind_spots[0];
  };
  // No site shared: the program's atomics were no points, as without the layer.
  const std::string none = blind_spot(search::AtomicPointCount{});
  EXPECT_NE(none.find("such operations are not scheduling points"), std::string::npos) << none;
  EXPECT_EQ(none.find("were points"), std::string::npos) << none;
  // Its file could not be patched: the same.
  search::AtomicPointCount refused = Learned();
  refused.refused = {"/t/rust_prog: writable code"};
  EXPECT_EQ(blind_spot(refused).find("were points"), std::string::npos) << blind_spot(refused);
}

TEST(AtomicPointsReport, TheVerdictNamesTheSitesTheCapAndWhatStaysUnseen) {
  search::ExplorationResult result;
  result.executions = 6;
  result.end = search::SearchEnd::kBoundExplored;
  result.coverage.schedules = 6;
  result.coverage.complete = true;
  result.coverage.bound_completed = 2;
  VisibilityTally tally;
  AtomicPointLearning learning(10, SyncPoints::kAtomics);
  learning.Learned(Learned(), search::Outcome::kOk);
  tally.UseAtomicPoints(learning.Seen());
  search::AtomicPointCount uncapped;
  tally.AddAtomics(uncapped);
  SearchSummary summary;
  summary.result = &result;
  summary.preemption_bound = 2;
  summary.visibility = tally.Summarize(SyncPoints::kAtomics);
  std::string text = ExploreTextReport(summary);
  EXPECT_NE(text.find("no bug: all 6 schedules with ≤ 2 preemptions explored"), std::string::npos) << text;
  EXPECT_NE(text.find("atomic instructions (all but 1 site that ran only while their thread was alone; 2 ran beside another thread in the execution that learned them)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("not seen: atomic loads, relaxed and release stores and plain memory accesses"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("sampled:"), std::string::npos) << text;

  search::AtomicPointCount capped;
  capped.capped = true;
  tally.AddAtomics(capped);
  summary.visibility = tally.Summarize(SyncPoints::kAtomics);
  text = ExploreTextReport(summary);
  // Past the cap the search did not look: never "all".
  EXPECT_EQ(text.find("no bug: all"), std::string::npos) << text;
  EXPECT_NE(text.find("at the points it could see"), std::string::npos) << text;
  EXPECT_NE(text.find("sampled: the first 10 atomic operations of each execution (1 execution reached"),
            std::string::npos)
      << text;
  const std::string json = ExploreJsonReport(summary);
  EXPECT_NE(json.find(R"("visible_layers":["syscalls","cross-process","atomics"])"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("atomic_points":{"sites":2,"learned_sites":41,)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("capped":true,"capped_executions":1,"max_points":10)"), std::string::npos) << json;
}

TEST(AtomicPointsReport, APreemptionAtAnAtomicInstructionNamesItAndWhatItTouched) {
  search::ExplorationResult result;
  result.executions = 3;
  result.end = search::SearchEnd::kBug;
  SearchSummary summary;
  summary.result = &result;
  ReportedBug bug;
  bug.found.execution = 3;
  bug.found.preemptions = 1;
  bug.found.summary.outcome = search::Outcome::kSignal;
  search::RecordedDecision preempted =
      trace::test_support::MakeDecision(1, search::OpKind::kAtomic, -1, 0, 2, search::StopReason::kReachedPoint);
  preempted.point.instruction = 0x401236;
  preempted.point.resource = 0x404040;
  preempted.point.is_write = true;
  bug.found.schedule = {preempted};
  bug.found.preemption_decisions = {0};
  bug.object_names.AddThread(search::ThreadId{1}, 2);
  bug.object_names.Add({2, 0x404040, "counter (prog)"});
  summary.bugs.push_back(bug);
  const std::string text = ExploreTextReport(summary);
  EXPECT_NE(text.find("preemption 1 (decision 0): thread 1 could go on at the atomic instruction 0x401236 writing "
                      "counter (prog), thread 2 ran instead"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace chess::cli
