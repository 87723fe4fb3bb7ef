#include "cli/refusals.h"

#include <cstring>

#include "cli/report.h"

namespace chess::cli {

search::Outcome RefusalJudge::Judge(const supervisor::ExecutionResult& result, search::Outcome judged,
                                    std::string* message) const {
  if (!search::IsBug(judged)) return judged;
  std::vector<supervisor::RefusedCall> unhandled;
  for (const supervisor::RefusedCall& call : result.refused) {
    if (!handled_.contains(call.call)) unhandled.push_back(call);
  }
  if (unhandled.empty()) return judged;
  if (message != nullptr) {
    std::string failure;
    switch (judged) {
      case search::Outcome::kExitStatus:
        failure = "exited with status " + std::to_string(result.exit_status.value_or(-1));
        break;
      case search::Outcome::kSignal:
        failure = "was killed by " + SignalName(result.signal.value_or(0));
        break;
      default:
        failure = "ended as " + std::string(search::OutcomeName(judged));
        break;
    }
    *message = "the program " + failure + " after chess-trace refused " + DescribeRefusals(unhandled) +
               "; this is chess-trace's limit, not a bug found in the program (a program that falls back "
               "when the call fails is searched as usual)";
  }
  return search::Outcome::kUnsupported;
}

void RefusalJudge::Learn(const supervisor::ExecutionResult& result, search::Outcome judged) {
  if (judged != search::Outcome::kOk) return;
  for (const supervisor::RefusedCall& call : result.refused) handled_.insert(call.call);
}

std::string DescribeRefusals(const std::vector<supervisor::RefusedCall>& refused) {
  std::string text;
  for (size_t i = 0; i < refused.size(); ++i) {
    const supervisor::RefusedCall& call = refused[i];
    if (i > 0) text += i + 1 == refused.size() ? " and " : ", ";
    const char* error = strerrorname_np(call.error);
    text += call.call + " (pid " + std::to_string(call.pid) + " got " + (error != nullptr ? error : "an error") +
            ": " + call.why + ")";
  }
  return text;
}

}  // namespace chess::cli
