// Refused calls and the verdict: a call chess-trace refuses (io_uring_setup, userfaultfd,
// ptrace) is not an outcome by itself — many programs fall back when it fails — but an
// execution that fails after one is `unsupported`: chess-trace's limit, never the program's bug.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "search/outcome.h"
#include "supervisor/execution_result.h"

namespace chess::cli {

class RefusalJudge {
 public:
  // `judged`, the outcome as the command reads it (explore's --expect-exit), or `unsupported`
  // when it is a failure after a refused call the program has not been seen to survive; then
  // `*message` says which call, what the program got and why.
  search::Outcome Judge(const supervisor::ExecutionResult& result, search::Outcome judged,
                        std::string* message) const;
  // An execution that ended well shows the program handles its refused calls: a later failure
  // after the same refusals is judged as the program's own (a search's executions share them).
  void Learn(const supervisor::ExecutionResult& result, search::Outcome judged);

 private:
  std::set<std::string> handled_;
};

// "io_uring_setup (it got ENOSYS: io_uring operations bypass …)" for each call, joined.
std::string DescribeRefusals(const std::vector<supervisor::RefusedCall>& refused);

}  // namespace chess::cli
