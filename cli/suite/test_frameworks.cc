#include "cli/suite/test_frameworks.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "cli/suite/captured_run.h"
#include "cli/suite/test_listings.h"

namespace chess::cli::suite {
namespace {

constexpr std::array<std::pair<Framework, std::string_view>, 7> kNames{{
    {Framework::kGoogleTest, "gtest"},
    {Framework::kCatch2, "catch2"},
    {Framework::kDoctest, "doctest"},
    {Framework::kPytest, "pytest"},
    {Framework::kRust, "rust"},
    {Framework::kGo, "go"},
    {Framework::kList, "list"},
}};

// A file's bytes, mapped read-only: test binaries run to hundreds of megabytes with debug
// information, and only a few strings are looked for in them.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error_ = std::strerror(errno);
      return;
    }
    struct stat info {};
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      void* data = mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (data != MAP_FAILED) {
        data_ = static_cast<const char*>(data);
        size_ = static_cast<size_t>(info.st_size);
      } else {
        error_ = std::strerror(errno);
      }
    } else {
      error_ = S_ISDIR(info.st_mode) ? "it is a directory" : "it is empty or not a regular file";
    }
    close(fd);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
  }
  bool ok() const { return data_ != nullptr; }
  const std::string& error() const { return error_; }
  std::string_view bytes() const { return {data_, size_}; }
  bool Contains(std::string_view needle) const {
    return data_ != nullptr && memmem(data_, size_, needle.data(), needle.size()) != nullptr;
  }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  std::string error_;
};

std::string UnknownBinary(const std::string& program, const std::string& why) {
  return "cannot tell which test framework " + program + " uses: " + why + ". chess-trace test knows " +
         SupportedFrameworks() +
         "; name the framework with --framework NAME, or list one command per test in a file for --tests FILE";
}

// The Catch2 major version a binary was built with: 2 has --list-test-names-only, 3 replaced it
// (its listing is --list-tests --verbosity quiet) and brought --colour-mode and sharding.
std::optional<int> Catch2Version(const MappedFile& binary) {
  if (binary.Contains("--list-test-names-only")) return 2;
  if (binary.Contains("libCatch2")) return 3;  // linked against Catch2 3's shared library
  if (binary.Contains("--list-tests") && (binary.Contains("--colour-mode") || binary.Contains("--shard-count"))) {
    return 3;
  }
  return std::nullopt;
}

// What an ELF test binary's strings say it is. A framework's own command-line options are in the
// binary as its help and parser name them (or, linked as a shared library, the library's name);
// a Go test binary carries its runtime's function names.
std::optional<DetectedFramework> FrameworkOfBinary(const MappedFile& binary) {
  if (binary.Contains("gtest_list_tests") || binary.Contains("libgtest"))
    return DetectedFramework{Framework::kGoogleTest};
  if (std::optional<int> version = Catch2Version(binary)) return DetectedFramework{Framework::kCatch2, *version};
  if (binary.Contains("list-test-cases") && binary.Contains("doctest")) return DetectedFramework{Framework::kDoctest};
  if (binary.Contains("--test-threads") && binary.Contains("RUST_TEST_THREADS"))
    return DetectedFramework{Framework::kRust};
  if (binary.Contains("testing.tRunner") && binary.Contains("test.run")) return DetectedFramework{Framework::kGo};
  return std::nullopt;
}

// A script's interpreter, from its #! line: "/usr/bin/env python3" → "python3".
std::string ShebangInterpreter(const MappedFile& file) {
  const std::string_view bytes = file.bytes();
  if (bytes.substr(0, 2) != "#!") return "";
  std::istringstream line(std::string(bytes.substr(2, bytes.find('\n') - 2)));
  std::string interpreter;
  line >> interpreter;
  if (interpreter.substr(interpreter.rfind('/') + 1) == "env") line >> interpreter;
  return interpreter.substr(interpreter.rfind('/') + 1);
}

// The build tools that run tests by building and running test binaries of their own: what to give
// chess-trace test instead, which searches one binary's cases.
std::optional<std::string> BuildToolHint(const std::vector<std::string>& command) {
  const std::string tool = command[0].substr(command[0].rfind('/') + 1);
  const bool tests = command.size() > 1 && command[1] == "test";
  if (tool == "go" && tests) {
    return "go test builds and runs a test binary of its own: build it with go test -c -o PKG.test and give "
           "./PKG.test";
  }
  if (tool == "cargo" && tests) {
    return "cargo test builds and runs test binaries of its own: give one of those cargo test --no-run names "
           "(target/debug/deps/NAME-HASH)";
  }
  if (tool == "ctest") return "ctest runs many test programs: give one of them, or list their commands in --tests FILE";
  return std::nullopt;
}

}  // namespace

std::string_view FrameworkName(Framework framework) {
  for (const auto& [known, name] : kNames) {
    if (known == framework) return name;
  }
  return "unknown";
}

std::optional<Framework> ParseFrameworkName(std::string_view name) {
  for (const auto& [framework, known] : kNames) {
    if (known == name) return framework;
  }
  return std::nullopt;
}

std::string SupportedFrameworks() {
  std::string list;
  for (const auto& [framework, name] : kNames) {
    if (framework == Framework::kList) continue;
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list + " (or --tests FILE)";
}

Result<DetectedFramework> DetectFramework(const std::vector<std::string>& command) {
  if (command.empty()) return Error{"no test command: give it after --"};
  if (IsPytestCommand(command)) return DetectedFramework{Framework::kPytest};
  if (std::optional<std::string> hint = BuildToolHint(command)) return Error{*hint};
  const std::string path = ResolveProgram(command[0]);
  if (path.empty()) return Error{"cannot find " + command[0] + " (not a path, and not in PATH)"};
  const MappedFile file(path);
  if (!file.ok()) return Error{"cannot read " + path + ": " + file.error()};
  if (file.bytes().substr(0, 4) == "\177ELF") {
    if (std::optional<DetectedFramework> detected = FrameworkOfBinary(file)) return *detected;
    return Error{UnknownBinary(path, "it is not a test binary of any of them")};
  }
  const std::string interpreter = ShebangInterpreter(file);
  if (IsPython(interpreter)) {
    return Error{UnknownBinary(path, "it is a Python script, not a .py test file (for pytest, give python3 -m pytest "
                                     "and its arguments)")};
  }
  if (!interpreter.empty()) {
    return Error{UnknownBinary(path, "it is a script run by " + interpreter +
                                         ", which does not say what it runs (give the test binary itself)")};
  }
  return Error{UnknownBinary(path, "it is neither an ELF binary nor a Python test file")};
}

Result<DetectedFramework> ForcedFramework(Framework framework, const std::vector<std::string>& command) {
  if (framework != Framework::kCatch2) return DetectedFramework{framework};
  // Catch2's listing differs between 2 and 3; when the binary does not say (a wrapper, say), 3.
  const MappedFile file(command.empty() ? "" : ResolveProgram(command[0]));
  return DetectedFramework{framework, Catch2Version(file).value_or(3)};
}

namespace {

// Runs `listing` and parses what it prints; the error quotes its status and its first lines.
Result<std::vector<TestCase>> RunListing(const DetectedFramework& framework, const std::vector<std::string>& command,
                                         const std::vector<std::string>& listing, std::chrono::seconds timeout) {
  Result<CapturedRun> run = RunCaptured(listing, timeout);
  if (!run) return Error{run.error()};
  Result<std::vector<TestCase>> tests = ParseListing(framework, command, run->out);
  if (tests && ListingSucceeded(framework, run->status, tests->size())) return tests;
  // What the listing said about its failure: its stderr, or its stdout when that is empty (pytest
  // reports a collection error there).
  const std::string& said = run->err.find_first_not_of(" \n") != std::string::npos ? run->err : run->out;
  std::string message = "listing the tests failed (" + DescribeWaitStatus(run->status) + "): ";
  for (const std::string& arg : listing) message += (&arg == &listing.front() ? "" : " ") + arg;
  if (!tests) message += "\n  " + tests.error();
  std::istringstream lines(said);
  int shown = 0;
  for (std::string line; shown < 5 && std::getline(lines, line); ++shown) message += "\n  " + line;
  return Error{message};
}

// libtest lists #[ignore]d tests with the others, and run alone they pass without running: a
// second listing with --ignored names them, and they are disabled — unless the user's command
// runs them (--ignored, --include-ignored).
Result<void> MarkIgnoredRustTests(const DetectedFramework& framework, const std::vector<std::string>& command,
                                  std::chrono::seconds timeout, std::vector<TestCase>& tests) {
  for (const std::string& arg : command) {
    if (arg == "--ignored" || arg == "--include-ignored") return {};
  }
  std::vector<std::string> listing = ListingCommand(framework, command);
  listing.push_back("--ignored");
  Result<std::vector<TestCase>> ignored = RunListing(framework, command, listing, timeout);
  if (!ignored) return Error{ignored.error()};
  for (TestCase& test : tests) {
    for (const TestCase& other : *ignored) test.disabled = test.disabled || other.name == test.name;
  }
  return {};
}

}  // namespace

Result<std::vector<TestCase>> ListTests(const DetectedFramework& framework, const std::vector<std::string>& command,
                                        std::chrono::seconds timeout) {
  if (framework.framework == Framework::kList) return Error{"a --tests FILE list is read, not run: ReadTestList"};
  Result<std::vector<TestCase>> tests = RunListing(framework, command, ListingCommand(framework, command), timeout);
  if (tests && framework.framework == Framework::kRust) {
    if (Result<void> marked = MarkIgnoredRustTests(framework, command, timeout, *tests); !marked) {
      return Error{marked.error()};
    }
  }
  return tests;
}

}  // namespace chess::cli::suite
