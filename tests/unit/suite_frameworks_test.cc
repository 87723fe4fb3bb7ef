// The frameworks `chess-trace test` knows: their names, detection from a binary's strings,
// listings as the real frameworks print them (captured from the versions Debian ships: GoogleTest
// 1.12, Catch2 2.13, doctest 2.4.9, pytest 7, rustc 1.95's libtest, Go 1.19) and the command that
// runs one case alone, its name escaped as the framework's filters require.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "cli/suite/test_frameworks.h"
#include "cli/suite/captured_run.h"
#include "cli/suite/test_listings.h"

namespace chess::cli::suite {
namespace {

using Command = std::vector<std::string>;

std::vector<std::string> Names(const std::vector<TestCase>& cases) {
  std::vector<std::string> names;
  for (const TestCase& test : cases) names.push_back(test.name);
  return names;
}

std::vector<TestCase> Parse(DetectedFramework framework, const Command& command, std::string_view listing) {
  Result<std::vector<TestCase>> cases = ParseListing(framework, command, listing);
  EXPECT_TRUE(cases.ok()) << cases.error();
  return cases ? *cases : std::vector<TestCase>{};
}

TEST(FrameworkNames, EachNameParsesBackToItsFramework) {
  for (Framework framework : {Framework::kGoogleTest, Framework::kCatch2, Framework::kDoctest, Framework::kPytest,
                              Framework::kRust, Framework::kGo, Framework::kList}) {
    EXPECT_EQ(ParseFrameworkName(FrameworkName(framework)), framework);
  }
  EXPECT_EQ(FrameworkName(Framework::kGoogleTest), "gtest");
  EXPECT_EQ(ParseFrameworkName("googletest"), std::nullopt);
  EXPECT_EQ(ParseFrameworkName(""), std::nullopt);
  EXPECT_EQ(SupportedFrameworks(), "gtest, catch2, doctest, pytest, rust, go (or --tests FILE)");
}

// tests/programs/suites/gtest_bank, and a typed suite, a disabled typed suite and named parameters.
constexpr std::string_view kGoogleTestListing =
    "Running main() from ./googletest/src/gtest_main.cc\n"
    "Bank.\n"
    "  OpensWithItsBalance\n"
    "  DepositAndWithdraw\n"
    "  LostUpdate\n"
    "  TransfersKeepTheTotal\n"
    "  DISABLED_Overdraft\n"
    "Amounts/Deposits.\n"
    "  FromTwoThreads/0  # GetParam() = 10\n"
    "  FromTwoThreads/1  # GetParam() = 25\n"
    "Typed/0.  # TypeParam = int\n"
    "  Zero\n"
    "Typed/1.  # TypeParam = long\n"
    "  Zero\n"
    "DISABLED_Slow/0.  # TypeParam = char\n"
    "  Runs\n"
    "Words/P.\n"
    "  Named/0  # GetParam() = \"a b\"\n"
    "  DISABLED_Off/1  # GetParam() = \"c\"\n";

TEST(FrameworkListings, GoogleTestSuitesTestsAndTheirComments) {
  const DetectedFramework gtest{Framework::kGoogleTest};
  const Command command{"./gtest_bank", "--gtest_color=no"};
  EXPECT_EQ(ListingCommand(gtest, command), (Command{"./gtest_bank", "--gtest_color=no", "--gtest_list_tests"}));
  const std::vector<TestCase> cases = Parse(gtest, command, kGoogleTestListing);
  EXPECT_EQ(Names(cases),
            (std::vector<std::string>{
                "Bank.OpensWithItsBalance", "Bank.DepositAndWithdraw", "Bank.LostUpdate", "Bank.TransfersKeepTheTotal",
                "Bank.DISABLED_Overdraft", "Amounts/Deposits.FromTwoThreads/0", "Amounts/Deposits.FromTwoThreads/1",
                "Typed/0.Zero", "Typed/1.Zero", "DISABLED_Slow/0.Runs", "Words/P.Named/0", "Words/P.DISABLED_Off/1"}));
  ASSERT_EQ(cases.size(), 12u);
  EXPECT_EQ(cases[2].command, (Command{"./gtest_bank", "--gtest_color=no", "--gtest_filter=Bank.LostUpdate"}));
  EXPECT_EQ(cases[5].command.back(), "--gtest_filter=Amounts/Deposits.FromTwoThreads/0");
  for (const TestCase& test : cases) {
    EXPECT_EQ(test.disabled, test.name.find("DISABLED_") != std::string::npos) << test.name;
  }
}

// tests/programs/suites/catch2_bank's listing and names that need escaping, from Catch2 2.13.10.
// A name that starts with # is listed in double quotes; hidden ([.]) tests are not listed.
constexpr std::string_view kCatch2Listing =
    "An account opens with its balance\n"
    "deposit, then withdraw [in two steps]\n"
    "a, b\n"
    "back\\slash\n"
    "\"quoted\"\n"
    "~tilde\n"
    "\"#hash\"\n";

TEST(FrameworkListings, Catch2NamesBecomeEscapedTestSpecs) {
  const Command command{"./catch2_bank", "[bank]", "--order", "decl", "-s"};
  const DetectedFramework catch2{Framework::kCatch2, 2};
  EXPECT_EQ(ListingCommand(catch2, command).back(), "--list-test-names-only");
  EXPECT_EQ(ListingCommand(DetectedFramework{Framework::kCatch2, 3}, {"./t"}),
            (Command{"./t", "--list-tests", "--verbosity", "quiet"}));
  const std::vector<TestCase> cases = Parse(catch2, command, kCatch2Listing);
  EXPECT_EQ(Names(cases),
            (std::vector<std::string>{"An account opens with its balance", "deposit, then withdraw [in two steps]",
                                      "a, b", "back\\slash", "\"quoted\"", "~tilde", "#hash"}));
  ASSERT_EQ(cases.size(), 7u);
  // The user's test spec ([bank]) selected the listing; one case runs by its own spec alone.
  EXPECT_EQ(cases[1].command,
            (Command{"./catch2_bank", "--order", "decl", "-s", "deposit\\, then withdraw \\[in two steps\\]"}));
  // Each checked against catch2 2.13.10: the spec runs exactly its test.
  EXPECT_EQ(Catch2TestSpec("a, b"), "a\\, b");
  EXPECT_EQ(Catch2TestSpec("back\\slash"), "back\\\\slash");
  EXPECT_EQ(Catch2TestSpec("\"quoted\""), "\\\"quoted\\\"");
  EXPECT_EQ(Catch2TestSpec("~tilde"), "\\~tilde");
  EXPECT_EQ(Catch2TestSpec("no~tilde"), "no~tilde");
  EXPECT_EQ(Catch2TestSpec("#hash"), "#hash");
}

// tests/programs/suites/doctest_bank and names with filter characters, from doctest 2.4.9.
constexpr std::string_view kDoctestListing =
    "[doctest] doctest version is \"2.4.9\"\n"
    "[doctest] run with \"--help\" for options\n"
    "===============================================================================\n"
    "[doctest] listing all test case names\n"
    "===============================================================================\n"
    "an account opens with its balance\n"
    "deposit, then withdraw in two steps\n"
    "back\\slash\n"
    "star * and ?\n"
    "===============================================================================\n"
    "[doctest] unskipped test cases passing the current filters: 4\n";

TEST(FrameworkListings, DoctestNamesBetweenItsDecorations) {
  const DetectedFramework doctest{Framework::kDoctest};
  const Command command{"./doctest_bank", "--no-colors"};
  EXPECT_EQ(ListingCommand(doctest, command), (Command{"./doctest_bank", "--no-colors", "--dt-list-test-cases"}));
  const std::vector<TestCase> cases = Parse(doctest, command, kDoctestListing);
  EXPECT_EQ(Names(cases),
            (std::vector<std::string>{"an account opens with its balance", "deposit, then withdraw in two steps",
                                      "back\\slash", "star * and ?"}));
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[1].command,
            (Command{"./doctest_bank", "--no-colors", "--dt-test-case=deposit\\, then withdraw in two steps"}));
  EXPECT_EQ(cases[2].command.back(), "--dt-test-case=back\\\\slash");
  EXPECT_EQ(cases[3].command.back(), "--dt-test-case=star * and ?");  // wildcards that match themselves
}

// pytest 7.2 --collect-only -q, with parameters and a class.
constexpr std::string_view kPytestListing =
    "test_bank.py::test_opens_with_its_balance\n"
    "test_bank.py::test_lost_update\n"
    "test_param.py::test_p[1]\n"
    "test_param.py::TestAccount::test_m\n"
    "\n"
    "4 tests collected in 0.02s\n";

TEST(FrameworkListings, PytestNodeIdsRunByTheUsersPython) {
  const DetectedFramework pytest{Framework::kPytest};
  const std::string suites = CHESS_SOURCE_DIR "/tests/programs/suites";
  const Command command{"/usr/bin/python3", "-X", "dev", "-m", "pytest", "-x", "-k", "bank or param", suites};
  EXPECT_EQ(ListingCommand(pytest, command),
            (Command{"/usr/bin/python3", "-X", "dev", "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                     "-x", "-k", "bank or param", suites}));
  const std::vector<TestCase> cases = Parse(pytest, command, kPytestListing);
  EXPECT_EQ(Names(cases),
            (std::vector<std::string>{"test_bank.py::test_opens_with_its_balance", "test_bank.py::test_lost_update",
                                      "test_param.py::test_p[1]", "test_param.py::TestAccount::test_m"}));
  ASSERT_EQ(cases.size(), 4u);
  // The user's options stay (with -k's value), the path gives way to the node id.
  EXPECT_EQ(cases[1].command, (Command{"/usr/bin/python3", "-X", "dev", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                       suites + "/test_bank.py::test_lost_update", "-x", "-k", "bank or param"}));
  EXPECT_TRUE(Parse(pytest, command, "\nno tests collected in 0.00s\n").empty());
  // Given by a path from elsewhere, a test is named relative to that path's directory (pytest's
  // rootdir) and run by a path that finds it from here.
  const std::vector<TestCase> elsewhere =
      Parse(pytest, {"pytest", suites + "/test_bank.py"}, "test_bank.py::test_lost_update\n\n1 test collected\n");
  ASSERT_EQ(elsewhere.size(), 1u);
  EXPECT_EQ(elsewhere[0].name, "test_bank.py::test_lost_update");
  EXPECT_EQ(elsewhere[0].command.back(), suites + "/test_bank.py::test_lost_update");
  const std::vector<TestCase> covered = Parse(pytest, {"pytest", suites + "/test_bank.py", "--cov", "src", "--cov"},
                                              "test_bank.py::test_lost_update\n\n1 test collected\n");
  ASSERT_EQ(covered.size(), 1u);
  EXPECT_EQ(covered[0].command, (Command{"/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                         suites + "/test_bank.py::test_lost_update", "--cov", "src", "--cov"}));
  // A test file run by Python, and a test file alone, are pytest's too.
  EXPECT_EQ(ListingCommand(pytest, {"python3", "test_bank.py"}),
            (Command{"python3", "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "test_bank.py"}));
  EXPECT_EQ(ListingCommand(pytest, {"test_bank.py"}),
            (Command{"python3", "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "test_bank.py"}));
}

TEST(FrameworkListings, RustTerseListingSkipsBenchmarks) {
  const DetectedFramework rust{Framework::kRust};
  const Command command{"./rust_bank", "update", "--test-threads", "2", "--include-ignored"};
  EXPECT_EQ(ListingCommand(rust, command), (Command{"./rust_bank", "update", "--test-threads", "2", "--include-ignored",
                                                    "--list", "--format", "terse"}));
  const std::vector<TestCase> cases = Parse(rust, command,
                                            "deposit_and_withdraw: test\n"
                                            "lost_update: test\n"
                                            "transfers::keep_the_total: test\n"
                                            "bench_deposits: benchmark\n");
  EXPECT_EQ(Names(cases),
            (std::vector<std::string>{"deposit_and_withdraw", "lost_update", "transfers::keep_the_total"}));
  ASSERT_EQ(cases.size(), 3u);
  // The user's filter (update) gives way to the exact name; the options stay but the number of
  // test threads, which is one.
  EXPECT_EQ(cases[2].command, (Command{"./rust_bank", "--include-ignored", "transfers::keep_the_total", "--exact",
                                       "--test-threads=1"}));
}

TEST(FrameworkListings, GoListedTestsRunByAnAnchoredPattern) {
  const DetectedFramework go{Framework::kGo};
  const Command command{"./go_bank", "-test.v"};
  EXPECT_EQ(ListingCommand(go, command), (Command{"./go_bank", "-test.v", "-test.list", ".*"}));
  const std::vector<TestCase> cases = Parse(go, command,
                                            "TestOpensWithItsBalance\n"
                                            "TestDepositAndWithdraw\n"
                                            "TestLostUpdate\n"
                                            "BenchmarkDeposit\n"
                                            "ExampleAccount\n"
                                            "FuzzAmounts\n");
  EXPECT_EQ(Names(cases), (std::vector<std::string>{"TestOpensWithItsBalance", "TestDepositAndWithdraw",
                                                    "TestLostUpdate", "ExampleAccount", "FuzzAmounts"}));
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[2].command, (Command{"./go_bank", "-test.v", "-test.run", "^TestLostUpdate$", "-test.count=1"}));
  EXPECT_EQ(GoRunPattern("Test.A(b)*$"), "^Test\\.A\\(b\\)\\*\\$$");
}

TEST(FrameworkListings, ListingsEndAsTheirFrameworksEnd) {
  constexpr int kExit = 0x100;  // a wait status's exit code byte
  EXPECT_TRUE(ListingSucceeded({Framework::kGoogleTest}, 0, 3));
  EXPECT_FALSE(ListingSucceeded({Framework::kGoogleTest}, 1 * kExit, 3));
  EXPECT_FALSE(ListingSucceeded({Framework::kGoogleTest}, SIGKILL, 0));
  EXPECT_TRUE(ListingSucceeded({Framework::kCatch2, 2}, 4 * kExit, 4));  // 2 exits with the count
  EXPECT_TRUE(ListingSucceeded({Framework::kCatch2, 2}, 255 * kExit, 300));
  EXPECT_FALSE(ListingSucceeded({Framework::kCatch2, 2}, 1 * kExit, 4));
  EXPECT_TRUE(ListingSucceeded({Framework::kPytest}, 5 * kExit, 0));  // no tests collected
  EXPECT_FALSE(ListingSucceeded({Framework::kPytest}, 4 * kExit, 0));
}

class TestListFile : public testing::Test {
 protected:
  std::string Write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { unlink(path_.c_str()); }
  std::string path_ = testing::TempDir() + "suite_frameworks_test_list.txt";
};

TEST_F(TestListFile, OneShellCommandALine) {
  Result<std::vector<TestCase>> cases =
      ReadTestList(Write("# the bank's checks\n./bank deposit\n\n  ./bank transfer 40  \n"));
  ASSERT_TRUE(cases.ok()) << cases.error();
  ASSERT_EQ(cases->size(), 2u);
  EXPECT_EQ((*cases)[1], (TestCase{"./bank transfer 40", {"/bin/sh", "-c", "./bank transfer 40"}, false}));
}

TEST_F(TestListFile, DuplicatesAndEmptyListsAreErrors) {
  Result<std::vector<TestCase>> twice = ReadTestList(Write("./bank deposit\n./bank transfer\n./bank deposit\n"));
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().find(path_ + ":3:"), std::string::npos) << twice.error();
  EXPECT_NE(twice.error().find("line 1"), std::string::npos) << twice.error();
  Result<std::vector<TestCase>> empty = ReadTestList(Write("# nothing yet\n\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("lists no test"), std::string::npos) << empty.error();
  EXPECT_FALSE(ReadTestList("/nonexistent/tests.txt").ok());
}

#ifdef CHESS_SUITES_DIR
const std::string kSuites = CHESS_SUITES_DIR;
#endif

bool Built(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

TEST(FrameworkDetection, FromTheSampleSuitesStrings) {
  const std::vector<std::pair<std::string, DetectedFramework>> expected{{"gtest_bank", {Framework::kGoogleTest}},
                                                                        {"catch2_bank", {Framework::kCatch2, 2}},
                                                                        {"doctest_bank", {Framework::kDoctest}},
                                                                        {"rust_bank", {Framework::kRust}},
                                                                        {"go_bank", {Framework::kGo}}};
  for (const auto& [name, framework] : expected) {
    const std::string path = kSuites + "/" + name;
    if (!Built(path)) {
      std::cout << name << " was not built (its framework was not found): skipped\n";
      continue;
    }
    Result<DetectedFramework> detected = DetectFramework({path});
    ASSERT_TRUE(detected.ok()) << name << ": " << detected.error();
    EXPECT_EQ(*detected, framework) << name;
  }
}

TEST(FrameworkDetection, PytestFromTheCommand) {
  for (const Command& command : {Command{"python3", "-m", "pytest", "tests/"}, Command{"/usr/bin/python3", "t.py"},
                                 Command{"pytest", "-x"}, Command{"py.test"}, Command{"./test_bank.py"}}) {
    Result<DetectedFramework> detected = DetectFramework(command);
    ASSERT_TRUE(detected.ok()) << command[0] << ": " << detected.error();
    EXPECT_EQ(detected->framework, Framework::kPytest) << command[0];
  }
}

TEST(FrameworkDetection, AnythingElseIsAnErrorThatNamesTheWaysOut) {
  for (const Command& command : {Command{"/bin/true"}, Command{"/bin/sh", "-c", "true"}, Command{"python3", "-c", "1"},
                                 Command{std::string(CHESS_SOURCE_DIR) + "/tests/programs/shebang_script.sh"}}) {
    Result<DetectedFramework> detected = DetectFramework(command);
    ASSERT_FALSE(detected.ok()) << command[0];
    EXPECT_NE(detected.error().find(SupportedFrameworks()), std::string::npos) << detected.error();
    EXPECT_NE(detected.error().find("--framework"), std::string::npos) << detected.error();
    EXPECT_NE(detected.error().find("--tests FILE"), std::string::npos) << detected.error();
  }
  // Build tools that run test binaries of their own: the error says which binary to give.
  EXPECT_NE(DetectFramework({"go", "test", "./..."}).error().find("go test -c"), std::string::npos);
  EXPECT_NE(DetectFramework({"cargo", "test"}).error().find("--no-run"), std::string::npos);
  Result<DetectedFramework> missing = DetectFramework({"no-such-test-binary"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no-such-test-binary"), std::string::npos) << missing.error();
  EXPECT_FALSE(DetectFramework({}).ok());
}

TEST(FrameworkDetection, ForcedCatch2ReadsItsVersion) {
  const std::string path = kSuites + "/catch2_bank";
  if (!Built(path)) GTEST_SKIP() << "catch2_bank was not built";
  EXPECT_EQ(ForcedFramework(Framework::kCatch2, {path}).value(), (DetectedFramework{Framework::kCatch2, 2}));
  EXPECT_EQ(ForcedFramework(Framework::kCatch2, {"/bin/true"}).value(), (DetectedFramework{Framework::kCatch2, 3}));
  EXPECT_EQ(ForcedFramework(Framework::kGo, {"/bin/true"}).value(), (DetectedFramework{Framework::kGo}));
}

TEST(SuiteListing, ListsTheGoogleTestSample) {
  const std::string path = kSuites + "/gtest_bank";
  Result<std::vector<TestCase>> cases = ListTests({Framework::kGoogleTest}, {path}, std::chrono::seconds(30));
  ASSERT_TRUE(cases.ok()) << cases.error();
  EXPECT_EQ(cases->size(), 7u);
}

TEST(SuiteListing, ListsEveryBuiltSample) {
  const std::vector<std::pair<Command, size_t>> suites{
      {{kSuites + "/catch2_bank"}, 4},
      {{kSuites + "/doctest_bank"}, 4},
      {{kSuites + "/rust_bank"}, 4},
      {{kSuites + "/go_bank"}, 3},
      {{"/usr/bin/python3", "-m", "pytest", kSuites + "/test_bank.py"}, 3}};
  for (const auto& [command, count] : suites) {
    if (!Built(command.back()) || (command[0] == "/usr/bin/python3" && !Built("/usr/bin/python3"))) continue;
    Result<DetectedFramework> framework = DetectFramework(command);
    ASSERT_TRUE(framework.ok()) << framework.error();
    Result<std::vector<TestCase>> cases = ListTests(*framework, command, std::chrono::seconds(60));
    if (!cases && framework->framework == Framework::kPytest &&
        cases.error().find("No module named pytest") != std::string::npos) {
      continue;  // pytest is not installed for this Python
    }
    ASSERT_TRUE(cases.ok()) << command.back() << ": " << cases.error();
    EXPECT_EQ(cases->size(), count) << command.back();
  }
}

// Each listed case's command, run natively, runs that case alone and passes (every case of the
// samples passes natively): the escaped names select exactly their test.
TEST(SuiteListing, EachCaseOfTheSamplesRunsAlone) {
  const std::vector<std::pair<Command, std::string>> suites{
      {{kSuites + "/gtest_bank"}, "[  PASSED  ] 1 test."},
      {{kSuites + "/catch2_bank"}, "(1 assertion in 1 test case)"},
      {{kSuites + "/doctest_bank"}, "test cases: 1 | 1 passed"},
      {{kSuites + "/rust_bank"}, "1 passed; 0 failed"},
      {{kSuites + "/go_bank", "-test.v"}, "--- PASS"},
      {{"/usr/bin/python3", "-m", "pytest", kSuites + "/test_bank.py"}, "1 passed"}};
  for (const auto& [command, ran_one] : suites) {
    const std::string& program = command[0] == "/usr/bin/python3" ? command.back() : command[0];
    if (!Built(program)) continue;
    Result<DetectedFramework> framework = DetectFramework(command);
    ASSERT_TRUE(framework.ok()) << framework.error();
    Result<std::vector<TestCase>> cases = ListTests(*framework, command, std::chrono::seconds(60));
    if (!cases) continue;  // pytest not installed for this Python: ListsEveryBuiltSample says so
    for (const TestCase& test : *cases) {
      if (test.disabled) continue;
      Result<CapturedRun> run = RunCaptured(test.command, std::chrono::seconds(60));
      ASSERT_TRUE(run.ok()) << run.error();
      EXPECT_EQ(run->status, 0) << test.name << "\n" << run->out << run->err;
      EXPECT_NE(run->out.find(ran_one), std::string::npos) << test.name << "\n" << run->out;
      if (framework->framework == Framework::kGo) {
        EXPECT_EQ(run->out.find("--- PASS"), run->out.rfind("--- PASS")) << test.name << "\n" << run->out;
      }
    }
  }
}

TEST(SuiteListing, RustIgnoredTestsAreDisabled) {
  // A stand-in for a libtest binary: --ignored lists only the #[ignore]d test.
  const Command command{"/bin/sh", "-c",
                        "echo 'slow: test'; case \"$*\" in *--ignored*) exit 0;; esac; echo 'fast: test'", "rust_bank"};
  Result<std::vector<TestCase>> cases = ListTests({Framework::kRust}, command, std::chrono::seconds(10));
  ASSERT_TRUE(cases.ok()) << cases.error();
  ASSERT_EQ(Names(*cases), (std::vector<std::string>{"slow", "fast"}));
  EXPECT_TRUE((*cases)[0].disabled);
  EXPECT_FALSE((*cases)[1].disabled);
  Command including = command;
  including.push_back("--include-ignored");
  cases = ListTests({Framework::kRust}, including, std::chrono::seconds(10));
  ASSERT_TRUE(cases.ok()) << cases.error();
  EXPECT_FALSE((*cases)[0].disabled);
}

TEST(SuiteListing, AFailingListingQuotesItsStatusAndStderr) {
  Result<std::vector<TestCase>> cases =
      ListTests({Framework::kGo}, {"/bin/sh", "-c", "echo one >&2; echo two >&2; exit 3"}, std::chrono::seconds(10));
  ASSERT_FALSE(cases.ok());
  EXPECT_NE(cases.error().find("exit status 3"), std::string::npos) << cases.error();
  EXPECT_NE(cases.error().find("\n  one\n  two"), std::string::npos) << cases.error();
  Result<std::vector<TestCase>> missing =
      ListTests({Framework::kGo}, {"/nonexistent/go_bank"}, std::chrono::seconds(10));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("No such file"), std::string::npos) << missing.error();
}

TEST(SuiteListing, AHungListingIsKilledWithWhatItStarted) {
  // The listing ends at once but leaves a sleeper holding its stdout; a second one hangs.
  const auto start = std::chrono::steady_clock::now();
  Result<std::vector<TestCase>> left_behind =
      ListTests({Framework::kGo}, {"/bin/sh", "-c", "sleep 313 & echo TestLeftBehind"}, std::chrono::seconds(20));
  ASSERT_TRUE(left_behind.ok()) << left_behind.error();
  EXPECT_EQ(Names(*left_behind), std::vector<std::string>{"TestLeftBehind"});
  Result<std::vector<TestCase>> hung =
      ListTests({Framework::kGo}, {"/bin/sh", "-c", "sleep 313"}, std::chrono::seconds(1));
  ASSERT_FALSE(hung.ok());
  EXPECT_NE(hung.error().find("within 1 s"), std::string::npos) << hung.error();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // Both process groups were killed: no sleep 313 is left.
  EXPECT_NE(system("pgrep -f '^sleep 313$' > /dev/null"), 0);
}

}  // namespace
}  // namespace chess::cli::suite
