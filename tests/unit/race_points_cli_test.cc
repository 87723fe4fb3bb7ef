// The commands' side of race points (--sync-points races): the level, the learning plan that
// looks for races and the search plan that makes them points, the line each race gets on stderr,
// the coverage words, the "races" array of --report and its flipped_changed_outcome, and a bug's
// critical pair at racing accesses. The supervisor is not involved: races are made up here.
#include <gtest/gtest.h>

#include "cli/atomic_point_learning.h"
#include "cli/explore_report.h"
#include "cli/program_options.h"
#include "cli/race_points.h"
#include "cli/report.h"
#include "cli/trace_recording.h"
#include "cli/visibility.h"
#include "tests/unit/trace_test_support.h"

namespace chess::cli {
namespace {

using Mode = search::AtomicPointPlan::Mode;

const search::CodeLocation kCheck{"/t/plain", 0x1165};
const search::CodeLocation kClaim{"/t/plain", 0x1180};

search::RacingAccess Access(search::CodeLocation instruction, uint32_t thread, bool is_write, std::string name) {
  search::RacingAccess access;
  access.instruction = std::move(instruction);
  access.thread = thread;
  access.is_write = is_write;
  access.size = 4;
  access.name = std::move(name);
  return access;
}

// Thread 1 wrote `claimed`, thread 2 read it, with no synchronization between.
search::ObservedRace Claimed() {
  search::ObservedRace race;
  race.earlier = Access(kClaim, 1, true, "worker+0x1b (plain.c:29)");
  race.later = Access(kCheck, 2, false, "worker+0x6 (plain.c:27)");
  race.address = 0x404c3c;
  race.variable = "claimed (plain)";
  return race;
}

// One access in libc under the shim: outside the decoded code, named by its run-time address.
search::ObservedRace HalfOutside() {
  search::ObservedRace race;
  race.earlier = Access(kCheck, 2, false, "worker+0x6 (plain.c:27)");
  race.later = Access({"", 0x7ffff7e4a1b0}, 3, true, "0x7ffff7e4a1b0");
  race.address = 0x405000;
  return race;
}

// A learning execution that found both races, having sampled 130 of 2000 instructions.
search::AtomicPointCount LearnedRaces() {
  search::AtomicPointCount count;
  count.learned_sites = 3;
  count.sampled_sites = 2000;
  count.sampled_accesses = 130;
  count.watched_accesses = 41;
  count.races = {Claimed(), HalfOutside()};
  return count;
}

TEST(RacePointsLevel, ExploreDefaultsToRacesAndAtomicsStillParses) {
  Messages messages;
  ProgramOptions options;
  options.command = {"prog"};
  // explore's default.
  auto defaulted = BuildSettings(options, "none", SyncPoints::kRaces, messages);
  ASSERT_TRUE(defaulted.has_value());
  EXPECT_EQ(defaulted->sync_points, SyncPoints::kRaces);
  options.sync_points = "atomics";
  auto atomics = BuildSettings(options, "none", SyncPoints::kRaces, messages);
  ASSERT_TRUE(atomics.has_value());
  EXPECT_EQ(atomics->sync_points, SyncPoints::kAtomics);
}

TEST(RacePointsPlan, OnlyTheRacesLevelLooksForRaces) {
  EXPECT_TRUE(LearningPlan(SyncPoints::kRaces).detect_races);
  EXPECT_FALSE(LearningPlan(SyncPoints::kAtomics).detect_races);
  EXPECT_EQ(LearningPlan(SyncPoints::kRaces).mode, Mode::kLearn);
}

TEST(RacePointsPlan, BothInstructionsOfEveryRaceInDecodedCodeArePlanted) {
  AtomicPointLearning learning(500, SyncPoints::kRaces);
  learning.Learned(LearnedRaces(), search::Outcome::kOk);
  const search::AtomicPointPlan plan = learning.Plan();
  EXPECT_EQ(plan.mode, Mode::kPoints);
  EXPECT_FALSE(plan.detect_races);  // the search's executions look for none
  // kCheck races twice, and libc's access cannot be planted.
  EXPECT_EQ(plan.race_sites, (std::set<search::CodeLocation>{kCheck, kClaim}));
  EXPECT_EQ(learning.Races().size(), 2u);

  // The same learning at the atomics level (as a test gives it) plants no race.
  AtomicPointLearning atomics(500, SyncPoints::kAtomics);
  atomics.Learned(LearnedRaces(), search::Outcome::kOk);
  EXPECT_TRUE(atomics.Plan().race_sites.empty());
  EXPECT_EQ(atomics.Sentence().find("race points"), std::string::npos) << atomics.Sentence();
}

TEST(RacePointsPlan, TheSentenceSaysWhatWasSampledAndWhatIsNoPoint) {
  AtomicPointLearning learning(500, SyncPoints::kRaces);
  search::AtomicPointCount count = LearnedRaces();
  learning.Learned(count, search::Outcome::kOk);
  const std::string sentence = learning.Sentence();
  EXPECT_NE(sentence.find("; race points: 2 instructions in 2 data races found in one execution that sampled 130 of "
                          "the 2000 memory-access instructions it could sample"),
            std::string::npos)
      << sentence;
  EXPECT_NE(sentence.find("a race whose accesses were not sampled"), std::string::npos) << sentence;
  EXPECT_EQ(sentence.find("more memory-access instructions than may be sampled"), std::string::npos) << sentence;

  count.races.clear();
  count.sampling_capped = true;
  learning.Learned(count, search::Outcome::kOk);
  EXPECT_NE(learning.Sentence().find("race points: none: no data race seen in one execution that sampled 130"),
            std::string::npos)
      << learning.Sentence();
  EXPECT_NE(learning.Sentence().find("more memory-access instructions than may be sampled"), std::string::npos)
      << learning.Sentence();
}

TEST(RaceLine, NamesBothAccessesTheVariableAndWhatBecamePoints) {
  EXPECT_EQ(RaceLine(Claimed()),
            "data race: thread 1 wrote claimed (plain) at worker+0x1b (plain.c:29) and thread 2 read it at worker+0x6 "
            "(plain.c:27), ordered by no synchronization; both are scheduling points now");
  EXPECT_EQ(RaceLine(HalfOutside()),
            "data race: thread 2 read the memory at 0x405000 at worker+0x6 (plain.c:27) and thread 3 wrote it at "
            "0x7ffff7e4a1b0, ordered by no synchronization; thread 3's access is outside the decoded code and is no "
            "point, thread 2's is a scheduling point now");
  search::ObservedRace outside = HalfOutside();
  outside.earlier.instruction.module.clear();
  EXPECT_NE(RaceLine(outside).find("both are outside the decoded code and are no points"), std::string::npos);
}

TEST(RacePointsSeen, CountsAreSummedAndWritten) {
  const auto learning = AtomicPointsSeen::Of(LearningPlan(SyncPoints::kRaces), LearnedRaces());
  ASSERT_TRUE(learning.has_value());
  EXPECT_TRUE(learning->races_looked_for);
  EXPECT_EQ(learning->race_sites, 2u);
  EXPECT_EQ(learning->sampled_accesses, 130u);
  // An atomics-level learning looks for none, whatever the count says.
  EXPECT_FALSE(AtomicPointsSeen::Of(LearningPlan(SyncPoints::kAtomics), LearnedRaces())->races_looked_for);

  AtomicPointsSeen search;
  search::AtomicPointCount first;
  first.points = 9;
  first.race_points = 4;
  first.sampled_sites = 3;
  search::AtomicPointCount second = first;
  second.sampling_capped = true;
  search.Add(first);
  search.Add(second);
  EXPECT_EQ(search.race_points, 8u);
  EXPECT_EQ(search.sampled_sites, 6u);
  EXPECT_TRUE(search.sampling_capped);
}

TEST(RacePointsSeen, RunsReportHasTheRacesArray) {
  supervisor::ExecutionResult result;
  result.outcome = search::Outcome::kOk;
  result.atomics = LearnedRaces();
  const std::string json = JsonReport(result, "run", LearningPlan(SyncPoints::kRaces));
  EXPECT_NE(json.find(R"x("races":2,"race_sites":2,"race_points":0,"sampled_sites":2000,"sampled_accesses":130,"watched_accesses":41,"sampling_capped":false,"race_detection_cut_short":false})x"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"x("races":[{"address":"0x404c3c","variable":"claimed (plain)","earlier":{"thread":1,"access":"write","size":4,"instruction":"worker+0x1b (plain.c:29)","module":"/t/plain","offset":"0x1180"},"later":{"thread":2,"access":"read",)x"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"x("points":true,"flipped_changed_outcome":null})x"), std::string::npos) << json;
  EXPECT_NE(json.find(R"x("module":"","offset":"0x7ffff7e4a1b0"},"points":false,)x"), std::string::npos) << json;
  // At the atomics level: no races looked for.
  EXPECT_NE(JsonReport(result, "run", LearningPlan(SyncPoints::kAtomics)).find(R"x("races":null)x"), std::string::npos);
}

// A search with the race layer, its learning execution having found LearnedRaces().
SearchVisibility RaceVisibility() {
  VisibilityTally tally;
  AtomicPointLearning learning(10, SyncPoints::kRaces);
  learning.Learned(LearnedRaces(), search::Outcome::kOk);
  tally.UseAtomicPoints(learning.Seen());
  tally.AddAtomics(search::AtomicPointCount{});
  return tally.Summarize(SyncPoints::kRaces);
}

TEST(RacePointsReport, TheVerdictNamesTheLayerAndWhatTheSampleMissed) {
  const SearchVisibility visibility = RaceVisibility();
  EXPECT_EQ(visibility.visible_layers, (std::vector<std::string>{"syscalls", "cross-process", "atomics", "races"}));
  search::ExplorationResult result;
  result.executions = 6;
  result.end = search::SearchEnd::kBoundExplored;
  result.coverage.schedules = 6;
  result.coverage.complete = true;
  result.coverage.bound_completed = 2;
  SearchSummary summary;
  summary.result = &result;
  summary.preemption_bound = 2;
  summary.visibility = visibility;
  const std::string text = ExploreTextReport(summary);
  EXPECT_NE(text.find(" and racing memory accesses (2 instructions of the 2 data races the learning execution found "
                      "by sampling)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("not seen: atomic loads (plain moves on x86), relaxed and release stores and plain memory "
                      "accesses but the 2 racing instructions found (the learning execution sampled 130 of 2000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  data races: 2 found by the learning execution (each on its own \"chess-trace: data race:\" line "
                      "above, and in --report), 2 instructions of them points of every execution\n"),
            std::string::npos)
      << text;
  // The whole bounded space, no bug: flipping a race whose accesses were both points changed
  // nothing; one with an access outside the decoded code was never flipped.
  const std::string json = ExploreJsonReport(summary);
  EXPECT_NE(json.find(R"x("visible_layers":["syscalls","cross-process","atomics","races"])x"), std::string::npos) << json;
  EXPECT_NE(json.find(R"x("offset":"0x1165"},"points":true,"flipped_changed_outcome":false})x"), std::string::npos) << json;
  EXPECT_NE(json.find(R"x("points":false,"flipped_changed_outcome":null})x"), std::string::npos) << json;

  // Stopped early: nothing is known.
  result.coverage.complete = false;
  result.end = search::SearchEnd::kMaxExecutions;
  EXPECT_EQ(ExploreJsonReport(summary).find(R"x("flipped_changed_outcome":false)x"), std::string::npos);
}

TEST(RacePointsReport, ABlindSpotSaysWhichPlainAccessesWereSeen) {
  VisibilityTally tally;
  supervisor::ProgramImage program;
  program.path = "/t/plain";
  program.linking = supervisor::Linking::kDynamic;
  program.multithreaded = true;
  tally.Add({program});
  search::AtomicPointCount learned = LearnedRaces();
  learned.shared = {kClaim};
  AtomicPointLearning learning(10, SyncPoints::kRaces);
  learning.Learned(learned, search::Outcome::kOk);
  tally.UseAtomicPoints(learning.Seen());
  const SearchVisibility races = tally.Summarize(SyncPoints::kRaces);
  ASSERT_EQ(races.blind_spots.size(), 1u);
  EXPECT_NE(races.blind_spots[0].find("and so were the plain accesses a sampling execution found racing "
                                      "(--sync-points races), but its atomic loads, and the plain accesses whose "
                                      "races the sample missed, were not"),
            std::string::npos)
      << races.blind_spots[0];
  // The same tally read at the atomics level claims no race points.
  const SearchVisibility atomics = tally.Summarize(SyncPoints::kAtomics);
  ASSERT_EQ(atomics.blind_spots.size(), 1u);
  EXPECT_EQ(atomics.blind_spots[0].find("racing"), std::string::npos) << atomics.blind_spots[0];
  EXPECT_EQ(atomics.visible_layers, (std::vector<std::string>{"syscalls", "cross-process", "atomics"}));
}

TEST(RacePointsReport, AtTheAtomicsLevelTheReportSaysRacesWereNotLookedFor) {
  VisibilityTally tally;
  AtomicPointLearning learning(10, SyncPoints::kAtomics);
  learning.Learned(LearnedRaces(), search::Outcome::kOk);
  tally.UseAtomicPoints(learning.Seen());
  search::ExplorationResult result;
  result.end = search::SearchEnd::kExhausted;
  SearchSummary summary;
  summary.result = &result;
  summary.visibility = tally.Summarize(SyncPoints::kAtomics);
  EXPECT_EQ(summary.visibility.visible_layers, (std::vector<std::string>{"syscalls", "cross-process", "atomics"}));
  EXPECT_NE(ExploreJsonReport(summary).find(R"x("races":null)x"), std::string::npos);
  EXPECT_NE(ExploreTextReport(summary).find("(--sync-points races makes racing ones points)"), std::string::npos);
  EXPECT_EQ(ExploreTextReport(summary).find("data races:"), std::string::npos);
}

// A bug whose one preemption stopped thread 2 before its read of `claimed`, and thread 1's write
// ran first.
ReportedBug BugAtTheRace() {
  ReportedBug bug;
  bug.found.execution = 4;
  bug.found.preemptions = 1;
  bug.found.summary.outcome = search::Outcome::kSignal;
  search::RecordedDecision preempted =
      trace::test_support::MakeDecision(2, search::OpKind::kRacyAccess, -1, 0, 1, search::StopReason::kReachedPoint);
  preempted.point.instruction = 0x555555555165;
  preempted.point.resource = 0x404c3c;
  search::RecordedDecision other =
      trace::test_support::MakeDecision(1, search::OpKind::kRacyAccess, -1, 0, 1, search::StopReason::kReachedPoint);
  other.point.instruction = 0x555555555180;
  other.point.resource = 0x404c3c;
  other.point.is_write = true;
  bug.found.schedule = {preempted, other};
  bug.found.preemption_decisions = {0};
  bug.instruction_names = {{0x555555555165, "worker+0x6 (plain) at plain.c:27"},
                           {0x555555555180, "worker+0x1b (plain) at plain.c:29"}};
  return bug;
}

TEST(RacePointsReport, ABugPreemptedAtARacingAccessNamesTheOrderAndFlipsTheRace) {
  search::ExplorationResult result;
  result.executions = 4;
  result.end = search::SearchEnd::kBug;
  SearchSummary summary;
  summary.result = &result;
  summary.visibility = RaceVisibility();
  summary.bugs.push_back(BugAtTheRace());
  const std::string text = ExploreTextReport(summary);
  EXPECT_NE(text.find("the order that decided it: thread 2 was stopped before its racing access at worker+0x6 (plain) "
                      "at plain.c:27 reading claimed (plain) (preemption at decision 0), and thread 1's racing access "
                      "at worker+0x1b (plain) at plain.c:29 writing the same memory ran first"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("thread 2 could go on at the racing access 0x555555555165 reading"), std::string::npos) << text;
  const std::string json = ExploreJsonReport(summary);
  EXPECT_NE(json.find(R"x("memory":"claimed (plain)","kind":"racy-access")x"), std::string::npos) << json;
  // The names differ in form ("(plain.c:27)" and "(plain) at plain.c:27") but not in place.
  EXPECT_NE(json.find(R"x("offset":"0x1165"},"points":true,"flipped_changed_outcome":true})x"), std::string::npos) << json;
  // The other race was not where the bug's preemption was: unknown.
  EXPECT_NE(json.find(R"x("points":false,"flipped_changed_outcome":null})x"), std::string::npos) << json;
}

TEST(RacePointsReport, APreemptionElsewhereDoesNotFlipTheRace) {
  ReportedBug bug = BugAtTheRace();
  bug.found.schedule[0].point.instruction = 0x555555555200;
  bug.instruction_names = {{0x555555555200, "main+0x10 (plain) at plain.c:40"}};
  EXPECT_FALSE(PreemptedAtRace(Claimed(), bug.found.schedule, bug.found.preemption_decisions, bug.instruction_names));
  EXPECT_TRUE(
      PreemptedAtRace(Claimed(), BugAtTheRace().found.schedule, {0}, BugAtTheRace().instruction_names));
  // The same instruction on other memory is another race.
  ReportedBug elsewhere = BugAtTheRace();
  elsewhere.found.schedule[0].point.resource = 0x404d00;
  EXPECT_FALSE(PreemptedAtRace(Claimed(), elsewhere.found.schedule, {0}, elsewhere.instruction_names));
  // Where the replay found the instruction decides over its name: the same symbol and offset in
  // another module is another instruction.
  ReportedBug located = BugAtTheRace();
  located.instruction_locations = {{0x555555555165, Claimed().later.instruction}};
  EXPECT_TRUE(PreemptedAtRace(Claimed(), located.found.schedule, {0}, located.instruction_names,
                              located.instruction_locations));
  located.instruction_locations = {{0x555555555165, {"/usr/lib/libother.so", Claimed().later.instruction.address}}};
  EXPECT_FALSE(PreemptedAtRace(Claimed(), located.found.schedule, {0}, located.instruction_names,
                               located.instruction_locations));
  // An atomic point at the same instruction is not a racing access.
  ReportedBug atomic = BugAtTheRace();
  atomic.found.schedule[0].point.op = search::OpKind::kAtomic;
  EXPECT_FALSE(PreemptedAtRace(Claimed(), atomic.found.schedule, {0}, atomic.instruction_names));
}

TEST(RacePointsTrace, TheLevelAndTheRaceSitesGoIntoATraceAndComeBack) {
  ExecutionSettings settings;
  settings.command = {"prog"};
  settings.sync_points = SyncPoints::kRaces;
  const trace::Options options = TraceOptions(settings, 0, "pb");
  EXPECT_TRUE(options.race_points);
  EXPECT_TRUE(options.atomic_points);
  settings.sync_points = SyncPoints::kAtomics;
  EXPECT_FALSE(TraceOptions(settings, 0, "pb").race_points);

  trace::Trace recorded;
  recorded.command.argv = {"prog"};
  recorded.options = options;
  search::AtomicPointPlan plan;
  plan.mode = Mode::kPoints;
  plan.race_sites = {kCheck, kClaim};
  recorded.atomic_points = plan;
  const ExecutionSettings replayed = RecordedSettings(recorded);
  EXPECT_EQ(replayed.sync_points, SyncPoints::kRaces);
  ASSERT_TRUE(replayed.atomic_points.has_value());
  EXPECT_EQ(replayed.atomic_points->race_sites, (std::set<search::CodeLocation>{kCheck, kClaim}));
  // An atomics-level trace replays at the atomics level: no race detection, no race sites.
  recorded.options.race_points = false;
  recorded.atomic_points->race_sites.clear();
  EXPECT_EQ(RecordedSettings(recorded).sync_points, SyncPoints::kAtomics);
}

}  // namespace
}  // namespace chess::cli
