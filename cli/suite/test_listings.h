// The framework-specific halves of test_frameworks.h that read no file and run nothing: a
// framework's listing and one case's command, its names escaped as its filters require.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cli/suite/test_frameworks.h"

namespace chess::cli::suite {

// Whether `program` is a Python interpreter: python3, /usr/bin/python3.11, pypy3.
bool IsPython(const std::string& program);
// Whether `command` runs pytest: python[3…] -m pytest, python[3…] FILE.py, pytest, py.test,
// pytest-3, or a .py file itself.
bool IsPytestCommand(const std::vector<std::string>& command);

// Whether a listing that ended with wait status `status` and listed `count` tests worked: Catch2 2
// exits with the number of tests it listed, pytest with 5 when it collected none.
bool ListingSucceeded(const DetectedFramework& framework, int status, size_t count);

// A name as one Catch2 test spec that matches it alone: `\` before each of \ , [ ] " and a
// leading ~. (A leading or trailing * stays a wildcard: Catch2 cannot escape it.)
std::string Catch2TestSpec(std::string_view name);
// A name as doctest's --test-case filter: `\` before , and \. (* and ? stay wildcards, which
// match themselves too: doctest cannot escape them.)
std::string DoctestFilter(std::string_view name);
// A name as a Go -test.run pattern that matches it alone: ^name$ with regexp metacharacters quoted.
std::string GoRunPattern(std::string_view name);

}  // namespace chess::cli::suite
