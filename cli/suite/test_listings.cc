#include "cli/suite/test_listings.h"

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <regex>
#include <span>
#include <sstream>

#include "cli/suite/captured_run.h"

namespace chess::cli::suite {
namespace {

using std::string_view_literals::operator""sv;

std::string Basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

bool IsPytest(const std::string& program) {
  static const std::regex kPytest("py\\.?test(-[0-9.]+)?");
  return std::regex_match(Basename(program), kPytest);
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream stream{std::string(text)};
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return "";
  return std::string(text.substr(begin, text.find_last_not_of(" \t") - begin + 1));
}

std::vector<std::string> Concat(std::vector<std::string> head, std::initializer_list<std::string> tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// `args` without the positional ones (a test filter, a test file): what runs one case keeps the
// user's options but selects the case itself. `takes_value` names the options whose value is the
// next argument.
std::vector<std::string> OptionsOnly(const std::vector<std::string>& args,
                                     std::span<const std::string_view> takes_value) {
  std::vector<std::string> options;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].size() < 2 || args[i][0] != '-') continue;
    options.push_back(args[i]);
    const bool valued = std::find(takes_value.begin(), takes_value.end(), args[i]) != takes_value.end();
    if (valued && i + 1 < args.size()) options.push_back(args[++i]);
  }
  return options;
}

// pytest as the user runs it: the interpreter (with its own options) and pytest's arguments.
struct PytestInvocation {
  std::vector<std::string> python;
  std::vector<std::string> args;
  bool runs_pytest = false;  // python -m pytest, python FILE.py, pytest, a .py file
};

PytestInvocation Pytest(const std::vector<std::string>& command) {
  PytestInvocation pytest;
  if (IsPython(command[0])) {
    pytest.python.push_back(command[0]);
    size_t i = 1;
    for (; i < command.size() && StartsWith(command[i], "-"); ++i) {
      if (command[i] == "-m" && i + 1 < command.size()) {
        pytest.runs_pytest = IsPytest(command[i + 1]);
        i += 2;  // -m pytest: what follows is pytest's
        pytest.args.assign(command.begin() + static_cast<std::ptrdiff_t>(std::min(i, command.size())), command.end());
        return pytest;
      }
      pytest.python.push_back(command[i]);
      if ((command[i] == "-W" || command[i] == "-X") && i + 1 < command.size()) pytest.python.push_back(command[++i]);
    }
    pytest.args.assign(command.begin() + static_cast<std::ptrdiff_t>(i), command.end());
    pytest.runs_pytest = !pytest.args.empty() && EndsWith(pytest.args.front(), ".py");
    return pytest;
  }
  // pytest itself, or a test file: the interpreter pytest's script names (keeping the user's
  // Python and the pytest installed for it), else python3.
  const bool pytest_script = IsPytest(command[0]);
  pytest.runs_pytest = pytest_script || EndsWith(command[0], ".py");
  std::ifstream script(ResolveProgram(command[0]));
  std::string shebang;
  if (script && std::getline(script, shebang) && StartsWith(shebang, "#!")) {
    std::istringstream words(shebang.substr(2));
    for (std::string word; words >> word;) pytest.python.push_back(word);
  }
  if (pytest.python.empty()) pytest.python.push_back("python3");
  pytest.args.assign(command.begin() + (pytest_script ? 1 : 0), command.end());
  return pytest;
}

// A node id as an argument that finds its test from here. pytest names a test relative to its
// rootdir, and reads an argument relative to the working directory: the two differ when the
// tests were given by a path elsewhere (pytest /src/tests) and no ini file up from here made the
// rootdir this directory. The file is looked for up from each path the user gave, as pytest
// found the rootdir; the node id stays as it is when that is the file it names from here.
std::string PytestNodeArgument(const std::string& node_id, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const std::string file = node_id.substr(0, node_id.find("::"));
  if (file.empty() || fs::path(file).is_absolute()) return node_id;
  std::error_code error;
  for (const std::string& arg : args) {
    if (StartsWith(arg, "-") || !fs::exists(arg, error)) continue;
    fs::path dir = fs::absolute(fs::is_directory(arg, error) ? fs::path(arg) : fs::path(arg).parent_path(), error);
    for (; !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / file, error)) {
        if (fs::equivalent(file, dir / file, error)) return node_id;
        return (dir / file).string() + node_id.substr(file.size());
      }
      if (dir == dir.root_path()) break;
    }
  }
  return node_id;
}

// pytest's options whose value is the next argument (pytest --help).
constexpr std::array kPytestValued{"-k"sv,
                                   "-m"sv,
                                   "-p"sv,
                                   "-c"sv,
                                   "-o"sv,
                                   "-W"sv,
                                   "-r"sv,
                                   "--rootdir"sv,
                                   "--confcutdir"sv,
                                   "--basetemp"sv,
                                   "--deselect"sv,
                                   "--ignore"sv,
                                   "--ignore-glob"sv,
                                   "--junitxml"sv,
                                   "--junit-xml"sv,
                                   "--tb"sv,
                                   "--maxfail"sv,
                                   "--durations"sv,
                                   "--import-mode"sv,
                                   "--log-level"sv,
                                   "--override-ini"sv,
                                   "--config-file"sv,
                                   "--capture"sv,
                                   "--pyargs"sv};
// libtest's (a test binary's --help).
constexpr std::array kRustValued{"--test-threads"sv, "--skip"sv, "--format"sv,      "--color"sv,
                                 "--logfile"sv,      "-Z"sv,     "--shuffle-seed"sv};
// Catch2's, 2 and 3.
constexpr std::array kCatch2Valued{"-o"sv,
                                   "--out"sv,
                                   "-r"sv,
                                   "--reporter"sv,
                                   "-n"sv,
                                   "--name"sv,
                                   "-w"sv,
                                   "--warn"sv,
                                   "-d"sv,
                                   "--durations"sv,
                                   "-D"sv,
                                   "--min-duration"sv,
                                   "-f"sv,
                                   "--input-file"sv,
                                   "-v"sv,
                                   "--verbosity"sv,
                                   "-x"sv,
                                   "--abortx"sv,
                                   "-c"sv,
                                   "--section"sv,
                                   "--order"sv,
                                   "--rng-seed"sv,
                                   "--use-colour"sv,
                                   "--colour-mode"sv,
                                   "--wait-for-keypress"sv,
                                   "--benchmark-samples"sv,
                                   "--benchmark-resamples"sv,
                                   "--benchmark-confidence-interval"sv,
                                   "--benchmark-warmup-time"sv,
                                   "--shard-count"sv,
                                   "--shard-index"sv};

// pytest's arguments but those that select tests: a path that exists or a node id goes, any
// other word stays (a plugin option's value: pytest's own options are known, a plugin's are not).
std::vector<std::string> PytestOptions(const std::vector<std::string>& args) {
  std::vector<std::string> options;
  std::error_code error;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool valued = std::find(kPytestValued.begin(), kPytestValued.end(), args[i]) != kPytestValued.end();
    if (valued && i + 1 < args.size()) {
      options.push_back(args[i]);
      options.push_back(args[++i]);
    } else if (StartsWith(args[i], "-") ||
               (args[i].find("::") == std::string::npos && !std::filesystem::exists(args[i], error))) {
      options.push_back(args[i]);
    }
  }
  return options;
}

std::vector<std::string> CaseCommand(const DetectedFramework& framework, const std::vector<std::string>& command,
                                     const std::string& name) {
  const std::vector<std::string> args(command.begin() + 1, command.end());
  switch (framework.framework) {
    case Framework::kGoogleTest:
      return Concat(command, {"--gtest_filter=" + name});  // the last --gtest_filter wins
    case Framework::kCatch2: {
      std::vector<std::string> options = OptionsOnly(args, kCatch2Valued);
      options.insert(options.begin(), command[0]);
      return Concat(options, {Catch2TestSpec(name)});
    }
    case Framework::kDoctest:
      return Concat(command, {"--dt-test-case=" + DoctestFilter(name)});  // the last one wins
    case Framework::kPytest: {
      const PytestInvocation pytest = Pytest(command);
      // The node id first: a plugin's option with an optional value (pytest-cov's --cov) at the
      // end of the user's arguments would take it for its value.
      std::vector<std::string> run = Concat(pytest.python, {"-m", "pytest", "-q", "-p", "no:cacheprovider",
                                                            PytestNodeArgument(name, pytest.args)});
      for (std::string& arg : PytestOptions(pytest.args)) run.push_back(std::move(arg));
      return run;
    }
    case Framework::kRust: {
      // One test thread: libtest then starts no pool beside the test's own thread, which leaves
      // the search fewer schedules (a trivial test: 300 executions at 2 preemptions, not all, with
      // the pool; all of them in 298 without). libtest refuses an option given twice: the user's goes.
      std::vector<std::string> options{command[0]};
      const std::vector<std::string> user = OptionsOnly(args, kRustValued);
      for (size_t i = 0; i < user.size(); ++i) {
        if (user[i] == "--test-threads") {
          ++i;  // and its value
        } else if (!StartsWith(user[i], "--test-threads=")) {
          options.push_back(user[i]);
        }
      }
      return Concat(options, {name, "--exact", "--test-threads=1"});
    }
    case Framework::kGo:
      return Concat(command, {"-test.run", GoRunPattern(name), "-test.count=1"});  // the last -test.run wins
    case Framework::kList:
      break;
  }
  return {"/bin/sh", "-c", name};
}

// GoogleTest's rule (kDisableTestFilter): a suite or a test named DISABLED_* or */DISABLED_*.
bool IsDisabledGoogleTest(std::string_view full_name) {
  auto disabled = [](std::string_view name) {
    return StartsWith(name, "DISABLED_") || name.find("/DISABLED_") != std::string_view::npos;
  };
  const size_t dot = full_name.find('.');  // Suite.Name: neither has a dot of its own
  return disabled(full_name.substr(0, dot)) || (dot != std::string_view::npos && disabled(full_name.substr(dot + 1)));
}

// --gtest_list_tests: "Suite." lines, each test indented under its suite; a typed suite's line
// ends in "  # TypeParam = …", a parameterized test's in "  # GetParam() = …". gtest_main's
// "Running main() from …" comes first.
std::vector<std::string> GoogleTestNames(std::string_view listing) {
  std::vector<std::string> names;
  std::string suite;
  for (const std::string& line : Lines(listing)) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == '#') continue;
    if (line[0] != ' ') {
      suite = EndsWith(first, ".") ? first.substr(0, first.size() - 1) : "";
    } else if (!suite.empty()) {
      names.push_back(suite + "." + first);
    }
  }
  return names;
}

// Catch2's names-only listing: one a line, a name that starts with # in double quotes.
std::vector<std::string> Catch2Names(std::string_view listing) {
  std::vector<std::string> names;
  for (std::string& line : Lines(listing)) {
    if (Trim(line).empty()) continue;
    if (line.size() >= 3 && line.front() == '"' && line.back() == '"' && line[1] == '#') {
      line = line.substr(1, line.size() - 2);
    }
    names.push_back(std::move(line));
  }
  return names;
}

// --list-test-cases: the names between rules of '=' under "[doctest] …" lines.
std::vector<std::string> DoctestNames(std::string_view listing) {
  std::vector<std::string> names;
  for (std::string& line : Lines(listing)) {
    if (Trim(line).empty() || StartsWith(line, "[doctest]") || line.find_first_not_of('=') == std::string::npos)
      continue;
    names.push_back(std::move(line));
  }
  return names;
}

// --collect-only -q: one node id a line, then a blank line and "N tests collected in …".
std::vector<std::string> PytestNodeIds(std::string_view listing) {
  std::vector<std::string> ids;
  for (std::string& line : Lines(listing)) {
    if (Trim(line).empty()) break;
    if (line.find("::") != std::string::npos) ids.push_back(std::move(line));
  }
  return ids;
}

// --list --format terse: "path::name: test" and "name: benchmark" lines.
std::vector<std::string> RustNames(std::string_view listing) {
  std::vector<std::string> names;
  for (const std::string& line : Lines(listing)) {
    if (EndsWith(line, ": test")) names.push_back(line.substr(0, line.size() - 6));
  }
  return names;
}

// -test.list: one top-level test, example, fuzz target or benchmark a line. Benchmarks do not
// run under -test.run alone.
std::vector<std::string> GoNames(std::string_view listing) {
  static const std::regex kRunnable("(Test|Example|Fuzz)[A-Za-z0-9_]*");
  std::vector<std::string> names;
  for (std::string& line : Lines(listing)) {
    if (std::regex_match(line, kRunnable)) names.push_back(std::move(line));
  }
  return names;
}

std::vector<std::string> ListedNames(Framework framework, std::string_view listing) {
  switch (framework) {
    case Framework::kGoogleTest:
      return GoogleTestNames(listing);
    case Framework::kCatch2:
      return Catch2Names(listing);
    case Framework::kDoctest:
      return DoctestNames(listing);
    case Framework::kPytest:
      return PytestNodeIds(listing);
    case Framework::kRust:
      return RustNames(listing);
    case Framework::kGo:
      return GoNames(listing);
    case Framework::kList:
      break;
  }
  return {};
}

}  // namespace

bool IsPython(const std::string& program) {
  static const std::regex kPython("(python|pypy)[0-9.]*");
  return std::regex_match(Basename(program), kPython);
}

bool IsPytestCommand(const std::vector<std::string>& command) {
  return !command.empty() && Pytest(command).runs_pytest;
}

bool ListingSucceeded(const DetectedFramework& framework, int status, size_t count) {
  if (!WIFEXITED(status)) return false;
  const int code = WEXITSTATUS(status);
  if (code == 0) return true;
  if (framework.framework == Framework::kCatch2 && framework.version == 2) {
    return static_cast<size_t>(code) == std::min<size_t>(count, 255);
  }
  return framework.framework == Framework::kPytest && code == 5 && count == 0;  // "no tests collected"
}

std::string Catch2TestSpec(std::string_view name) {
  std::string spec;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '\\' || c == ',' || c == '[' || c == ']' || c == '"' || (c == '~' && i == 0)) spec += '\\';
    spec += c;
  }
  return spec;
}

std::string DoctestFilter(std::string_view name) {
  std::string filter;
  for (const char c : name) {
    if (c == '\\' || c == ',') filter += '\\';
    filter += c;
  }
  return filter;
}

std::string GoRunPattern(std::string_view name) {
  std::string pattern = "^";
  for (const char c : name) {
    if (std::string_view("\\.+*?()|[]{}^$").find(c) != std::string_view::npos) pattern += '\\';
    pattern += c;
  }
  return pattern + "$";
}

std::vector<std::string> ListingCommand(const DetectedFramework& framework, const std::vector<std::string>& command) {
  switch (framework.framework) {
    case Framework::kGoogleTest:
      return Concat(command, {"--gtest_list_tests"});
    case Framework::kCatch2:
      if (framework.version == 2) return Concat(command, {"--list-test-names-only"});
      return Concat(command, {"--list-tests", "--verbosity", "quiet"});
    case Framework::kDoctest:
      // The dt- prefixed spelling: a binary built with DOCTEST_CONFIG_NO_UNPREFIXED_OPTIONS knows only it.
      return Concat(command, {"--dt-list-test-cases"});
    case Framework::kPytest: {
      const PytestInvocation pytest = Pytest(command);
      std::vector<std::string> listing =
          Concat(pytest.python, {"-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"});
      listing.insert(listing.end(), pytest.args.begin(), pytest.args.end());
      return listing;
    }
    case Framework::kRust:
      return Concat(command, {"--list", "--format", "terse"});
    case Framework::kGo:
      return Concat(command, {"-test.list", ".*"});
    case Framework::kList:
      break;
  }
  return {};
}

Result<std::vector<TestCase>> ParseListing(const DetectedFramework& framework, const std::vector<std::string>& command,
                                           std::string_view listing) {
  if (command.empty()) return Error{"no test command"};
  if (framework.framework == Framework::kList) {
    return Error{"a --tests list has no listing to parse: it is read by ReadTestList"};
  }
  std::vector<TestCase> cases;
  for (std::string& name : ListedNames(framework.framework, listing)) {
    std::vector<std::string> run = CaseCommand(framework, command, name);
    const bool disabled = framework.framework == Framework::kGoogleTest && IsDisabledGoogleTest(name);
    cases.push_back(TestCase{std::move(name), std::move(run), disabled});
  }
  return cases;
}

Result<std::vector<TestCase>> ReadTestList(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Error{"cannot read the test list " + path + ": " + std::strerror(errno)};
  std::stringstream text;
  text << file.rdbuf();
  std::vector<TestCase> cases;
  std::map<std::string, size_t> first_line;
  size_t number = 0;
  for (const std::string& line : Lines(text.str())) {
    ++number;
    std::string name = Trim(line);
    if (name.empty() || name[0] == '#') continue;
    const auto [seen, fresh] = first_line.emplace(name, number);
    if (!fresh) {
      return Error{path + ":" + std::to_string(number) + ": this test is listed already, on line " +
                   std::to_string(seen->second) + ": " + name};
    }
    cases.push_back(TestCase{name, {"/bin/sh", "-c", name}, false});
  }
  if (cases.empty()) return Error{path + " lists no test: one command a line (blank lines and # comments are skipped)"};
  return cases;
}

}  // namespace chess::cli::suite
