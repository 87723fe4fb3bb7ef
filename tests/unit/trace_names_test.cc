// TraceStem: explore names a trace after the script an interpreter runs, not the interpreter.
#include "cli/trace_names.h"

#include <gtest/gtest.h>

namespace chess::cli {
namespace {

TEST(TraceStem, AProgramIsNamedByItsBasename) {
  EXPECT_EQ(TraceStem({"/work/build/lost_wakeup_buggy"}), "lost_wakeup_buggy");
  EXPECT_EQ(TraceStem({"./server", "--port", "80"}), "server");
  EXPECT_EQ(TraceStem({}), "program");
}

TEST(TraceStem, AnInterpretedProgramIsNamedByItsScript) {
  EXPECT_EQ(TraceStem({"python3", "t.py"}), "t.py");
  EXPECT_EQ(TraceStem({"/usr/bin/python3.11", "-u", "-W", "error", "tests/worker_pool.py", "--jobs", "4"}),
            "worker_pool.py");
  EXPECT_EQ(TraceStem({"python3", "-I", "t.py"}), "t.py");  // -I (isolated) takes no value
  EXPECT_EQ(TraceStem({"python3", "-m", "json.tool", "in.json"}), "json.tool");
  EXPECT_EQ(TraceStem({"perl", "-w", "-Ilib", "race.pl"}), "race.pl");
  EXPECT_EQ(TraceStem({"ruby", "-I", "lib", "race.rb"}), "race.rb");
  EXPECT_EQ(TraceStem({"node", "--require", "ts-node/register", "server.js"}), "server.js");
  EXPECT_EQ(TraceStem({"bash", "-o", "pipefail", "-x", "harness.sh", "arg"}), "harness.sh");
  EXPECT_EQ(TraceStem({"sh", "./client_then_wait_buggy.sh", "peer"}), "client_then_wait_buggy.sh");
  EXPECT_EQ(TraceStem({"dash", "--", "run.sh"}), "run.sh");
  EXPECT_EQ(TraceStem({"zsh", "build.zsh"}), "build.zsh");
  EXPECT_EQ(TraceStem({"java", "-jar", "/opt/app/server.jar", "8080"}), "server.jar");
  EXPECT_EQ(TraceStem({"java", "-cp", "build/classes", "-Xmx1g", "JavaThreads"}), "JavaThreads");
}

TEST(TraceStem, InlineCodeKeepsTheInterpretersName) {
  EXPECT_EQ(TraceStem({"sh", "-c", "make -j4 && ./t"}), "sh");
  EXPECT_EQ(TraceStem({"perl", "-e", "fork; print 1"}), "perl");
  EXPECT_EQ(TraceStem({"python3"}), "python3");  // a script on its standard input
  EXPECT_EQ(TraceStem({"python3", "-"}), "python3");
}

TEST(TraceStem, EnvIsLookedThrough) {
  EXPECT_EQ(TraceStem({"env", "-i", "PYTHONHASHSEED=0", "python3", "t.py"}), "t.py");
  EXPECT_EQ(TraceStem({"/usr/bin/env", "FOO=1", "./server"}), "server");
  EXPECT_EQ(TraceStem({"env"}), "program");
}

TEST(TraceStem, ANameThatOnlyLooksLikeAnInterpreterIsAProgram) {
  EXPECT_EQ(TraceStem({"./shell_worker", "job.sh"}), "shell_worker");
  EXPECT_EQ(TraceStem({"python3-config", "--libs"}), "python3-config");
}

}  // namespace
}  // namespace chess::cli
