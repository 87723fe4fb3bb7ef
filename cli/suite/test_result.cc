#include "cli/suite/test_result.h"

namespace chess::cli::suite {

std::string_view VerdictName(TestVerdict verdict) {
  switch (verdict) {
    case TestVerdict::kPassed: return "passed";
    case TestVerdict::kConcurrencyBug: return "concurrency-bug";
    case TestVerdict::kPlainFailure: return "plain-failure";
    case TestVerdict::kSkipped: return "skipped";
    case TestVerdict::kError: return "error";
  }
  return "error";
}

}  // namespace chess::cli::suite
