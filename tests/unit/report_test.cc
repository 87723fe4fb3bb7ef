#include "cli/report.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "cli/exit_codes.h"
#include "cli/explore_report.h"
#include "cli/json_writer.h"

namespace chess::cli {
namespace {

using search::Outcome;
using supervisor::ExecutionResult;

ExecutionResult Deadlock() {
  ExecutionResult r;
  r.outcome = Outcome::kDeadlock;
  r.scheduling_points = 3;
  r.threads_created = 2;
  supervisor::ThreadReport t;
  t.thread = 1;
  t.tid = 101;
  t.pid = 100;
  t.state = "blocked";
  t.syscall = "futex";
  t.call = "futex(0x1000, FUTEX_WAIT_PRIVATE, 2, NULL)";
  t.resource = "futex 0x1000";
  supervisor::StackFrame worker;
  worker.pc = 0x401000;
  worker.function = "worker";
  worker.offset = 0x18;
  worker.module = "prog";
  worker.module_offset = 0x1000;
  worker.file = "/src/prog/worker.c";
  worker.line = 41;
  worker.inlined = {{"take_lock", "/src/prog/worker.c", 12}};
  worker.return_address = true;
  supervisor::StackFrame unknown;  // outside any file: everything but the pc unknown
  unknown.pc = 0x7fff0000;
  t.frames = {worker, unknown};
  r.threads.push_back(t);
  return r;
}

// A consumer left waiting on a condition variable nobody will signal.
ExecutionResult LostWakeup() {
  ExecutionResult r = Deadlock();
  supervisor::ThreadReport& t = r.threads.front();
  t.resource = "condition variable mailbox_filled (prog)";
  t.condition = supervisor::ConditionWait{0x4040a0, "mailbox_filled (prog)", "pthread_cond_wait"};
  return r;
}

TEST(JsonWriter, EscapesAndSeparates) {
  JsonWriter json;
  json.BeginObject().Key("a").String("q\"\\\n\x01").Key("b").BeginArray().Int(1).Null().Bool(true);
  json.EndArray().Key("c").OptionalInt(std::nullopt).EndObject();
  EXPECT_EQ(json.str(), R"({"a":"q\"\\\n\u0001","b":[1,null,true],"c":null})");
}

TEST(Report, JsonCarriesTheSchemaAndEveryThread) {
  const std::string json = JsonReport(Deadlock(), "run");
  EXPECT_NE(json.find(R"("schema":2)"), std::string::npos);
  EXPECT_NE(json.find(R"("outcome":"deadlock")"), std::string::npos);
  EXPECT_NE(json.find(R"("exit_status":null)"), std::string::npos);
  EXPECT_NE(json.find(R"("syscall":"futex")"), std::string::npos);
  EXPECT_NE(json.find(R"("condition_variable":null)"), std::string::npos);
  EXPECT_NE(json.find(R"("scheduling_points":3)"), std::string::npos);
}

TEST(Report, JsonFramesAreObjectsWithNullForWhatIsUnknown) {
  const std::string json = JsonReport(Deadlock(), "run");
  EXPECT_NE(json.find(R"("frames":[{"function":"worker","offset":24,"module":"prog","module_offset":4096,)"
                      R"("file":"/src/prog/worker.c","line":41,)"
                      R"("inlined":[{"function":"take_lock","file":"/src/prog/worker.c","line":12}],"pc":"0x401000"},)"
                      R"({"function":null,"offset":null,"module":null,"module_offset":null,"file":null,"line":null,)"
                      R"("inlined":[],"pc":"0x7fff0000"}])"),
            std::string::npos)
      << json;
}

TEST(Report, ConditionWaitsAreNamedAndADeadlockOnOneIsALostWakeup) {
  const ExecutionResult r = LostWakeup();
  const std::string json = JsonReport(r, "run");
  EXPECT_NE(json.find(R"x("condition_variable":{"address":"0x4040a0","name":"mailbox_filled (prog)",)x"
                      R"x("call":"pthread_cond_wait"})x"),
            std::string::npos)
      << json;
  const std::string text = TextReport(r);
  EXPECT_NE(text.find("lost wakeup: thread 1 waits in pthread_cond_wait on the condition variable mailbox_filled "
                      "(prog), and no thread can signal it"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[condition variable mailbox_filled (prog)]"), std::string::npos) << text;
  // A hang is not a lost wakeup: a thread waiting on the outside world may still signal.
  ExecutionResult hang = r;
  hang.outcome = Outcome::kHang;
  EXPECT_EQ(TextReport(hang).find("lost wakeup"), std::string::npos);
}

TEST(Report, TextNamesTheOutcomeOnItsFirstLine) {
  const std::string text = TextReport(Deadlock());
  EXPECT_EQ(text.rfind("chess-trace: deadlock:", 0), 0u) << text;
  EXPECT_NE(text.find("thread 1 (pid 100, tid 101) blocked in futex(0x1000"), std::string::npos);
  EXPECT_NE(text.find("#0 worker+0x18 (prog) at worker.c:41 → take_lock at worker.c:12 (inlined)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("#1 0x7fff0000 (?)\n"), std::string::npos) << text;
}

// An explore report of the lost wakeup: the preempted thread stood at a lock its trace names.
SearchSummary LostWakeupSearch(const search::ExplorationResult& result) {
  SearchSummary summary;
  summary.result = &result;
  ReportedBug bug;
  bug.found.execution = 4;
  bug.found.preemptions = 1;
  bug.found.summary.outcome = Outcome::kDeadlock;
  search::RecordedDecision preempted;
  preempted.current = search::ThreadId{1};
  preempted.picked = search::ThreadId{2};
  preempted.point.thread = search::ThreadId{1};
  preempted.point.op = search::OpKind::kSyncOp;
  preempted.point.resource = 0x4040e0;
  preempted.point.is_write = true;
  bug.found.schedule = {preempted};
  bug.found.preemption_decisions = {0};
  bug.run.result = LostWakeup();
  bug.object_names.AddThread(search::ThreadId{1}, 100);
  bug.object_names.Add({100, 0x4040e0, "mailbox_lock (prog)"});
  summary.bugs.push_back(bug);
  return summary;
}

TEST(ExploreReport, JsonFramesAreObjectsAndThePreemptionNamesItsLock) {
  search::ExplorationResult result;
  result.executions = 4;
  result.end = search::SearchEnd::kBug;
  const SearchSummary summary = LostWakeupSearch(result);
  const std::string json = ExploreJsonReport(summary);
  EXPECT_NE(json.find(R"("schema":2)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("frames":[{"function":"worker","offset":24,"module":"prog","module_offset":4096,)"
                      R"("file":"/src/prog/worker.c","line":41,"inlined":[)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"x("condition_variable":{"address":"0x4040a0","name":"mailbox_filled (prog)",)x"),
            std::string::npos)
      << json;
  const std::string text = ExploreTextReport(summary);
  EXPECT_NE(text.find("preemption 1 (decision 0): thread 1 could go on at acquire mailbox_lock (prog), thread 2 ran "
                      "instead"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  lost wakeup: thread 1 waits in pthread_cond_wait"), std::string::npos) << text;
}

TEST(Report, CleanRunsPrintNothing) {
  ExecutionResult ok;
  ok.outcome = Outcome::kOk;
  ok.exit_status = 0;
  EXPECT_EQ(TextReport(ok), "");
}

TEST(ExitCodes, FollowTheOutcomeTable) {
  ExecutionResult r;
  r.outcome = Outcome::kExitStatus;
  r.exit_status = 3;
  EXPECT_EQ(RunExitCode(r), 3);
  r.outcome = Outcome::kSignal;
  r.signal = SIGSEGV;
  EXPECT_EQ(RunExitCode(r), 139);
  EXPECT_EQ(RunExitCode(Deadlock()), 124);
  ExecutionResult hang;
  hang.outcome = Outcome::kHang;
  EXPECT_EQ(RunExitCode(hang), 124);
  ExecutionResult error;
  EXPECT_EQ(RunExitCode(error), 125);
  ExecutionResult stopped;
  stopped.stopped_by_signal = SIGINT;
  EXPECT_EQ(RunExitCode(stopped), 130);
  ExecutionResult missing;
  missing.exec_errno = ENOENT;
  EXPECT_EQ(RunExitCode(missing), 127);
  missing.exec_errno = EACCES;
  EXPECT_EQ(RunExitCode(missing), 126);
}

TEST(Report, SignalNames) {
  EXPECT_EQ(SignalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
}

}  // namespace
}  // namespace chess::cli
