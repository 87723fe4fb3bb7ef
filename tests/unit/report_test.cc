#include "cli/report.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "cli/exit_codes.h"
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
  t.frames.push_back({0x401000, "worker", 0x18, "prog", 0x1000});
  r.threads.push_back(t);
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
  EXPECT_NE(json.find(R"("schema":1)"), std::string::npos);
  EXPECT_NE(json.find(R"("outcome":"deadlock")"), std::string::npos);
  EXPECT_NE(json.find(R"("exit_status":null)"), std::string::npos);
  EXPECT_NE(json.find(R"("syscall":"futex")"), std::string::npos);
  EXPECT_NE(json.find(R"("frames":[{"pc":"0x401000","function":"worker","offset":24,"module":"prog"}])"),
            std::string::npos);
  EXPECT_NE(json.find(R"("scheduling_points":3)"), std::string::npos);
}

TEST(Report, TextNamesTheOutcomeOnItsFirstLine) {
  const std::string text = TextReport(Deadlock());
  EXPECT_EQ(text.rfind("chess-trace: deadlock:", 0), 0u) << text;
  EXPECT_NE(text.find("thread 1 (pid 100, tid 101) blocked in futex(0x1000"), std::string::npos);
  EXPECT_NE(text.find("#0 worker+0x18 (prog)"), std::string::npos);
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
