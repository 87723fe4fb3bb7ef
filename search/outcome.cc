#include "search/outcome.h"

#include <array>
#include <utility>

namespace chess::search {
namespace {

constexpr std::array<std::pair<Outcome, std::string_view>, 15> kNames = {{
    {Outcome::kOk, "ok"},
    {Outcome::kExitStatus, "exit-status"},
    {Outcome::kSignal, "signal"},
    {Outcome::kDeadlock, "deadlock"},
    {Outcome::kHang, "hang"},
    {Outcome::kLivelock, "livelock"},
    {Outcome::kGoodSamaritan, "good-samaritan"},
    {Outcome::kTimeout, "timeout"},
    {Outcome::kStepLimit, "step-limit"},
    {Outcome::kDivergence, "divergence"},
    {Outcome::kNone, "none"},
    {Outcome::kError, "error"},
    {Outcome::kUnsupported, "unsupported"},
    {Outcome::kWrongOutput, "wrong-output"},
    {Outcome::kCheckFailed, "check-failed"},
}};

}  // namespace

std::string_view OutcomeName(Outcome outcome) {
  for (const auto& [value, name] : kNames) {
    if (value == outcome) return name;
  }
  return "error";
}

std::optional<Outcome> ParseOutcome(std::string_view name) {
  for (const auto& [value, spelling] : kNames) {
    if (spelling == name) return value;
  }
  return std::nullopt;
}

bool IsBug(Outcome outcome) {
  switch (outcome) {
    case Outcome::kExitStatus:
    case Outcome::kSignal:
    case Outcome::kDeadlock:
    case Outcome::kHang:
    case Outcome::kLivelock:
    case Outcome::kGoodSamaritan:
    case Outcome::kTimeout:
    case Outcome::kWrongOutput:
    case Outcome::kCheckFailed:
      return true;
    default:
      return false;
  }
}

bool EndsTheSearch(Outcome outcome) { return outcome == Outcome::kError || outcome == Outcome::kUnsupported; }

bool EndsAtADecision(Outcome outcome) {
  return outcome == Outcome::kLivelock || outcome == Outcome::kGoodSamaritan || outcome == Outcome::kStepLimit ||
         outcome == Outcome::kTimeout;
}

}  // namespace chess::search
