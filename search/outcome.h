// Outcome: how one execution (or a whole search) ended — the single table of design §5.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace chess::search {

enum class Outcome : uint8_t {
  kOk,             // the root process exited with the expected status
  kExitStatus,     // the root process exited with another status
  kSignal,         // the root process was killed by a signal
  kDeadlock,       // no thread enabled and nothing outside the tree can wake one
  kHang,           // threads wait only on the outside world for longer than --external-wait
  kLivelock,       // a fair execution passed --max-steps while every live thread kept yielding
  kGoodSamaritan,  // a thread spins without ever yielding
  kTimeout,        // one execution exceeded --execution-timeout
  kStepLimit,      // passed --max-steps without being a livelock
  kDivergence,     // a replayed prefix could not be followed
  kNone,           // explore found no bug within its bounds
  kError,          // chess-trace's own failure or bad usage
  kUnsupported,    // the program failed after chess-trace refused a call it cannot serialize
  kWrongOutput,    // the root exited as expected, but its output or files were wrong (docs/oracles.md)
  kCheckFailed,    // the root exited as expected, but --check's command exited non-zero
};
// The last outcome a trace may record.
inline constexpr Outcome kLastOutcome = Outcome::kCheckFailed;

// The spelling used in reports and in the "outcome" key of --report JSON.
std::string_view OutcomeName(Outcome outcome);
std::optional<Outcome> ParseOutcome(std::string_view name);

// True for the outcomes `explore` reports as bugs.
bool IsBug(Outcome outcome);

// True for the outcomes that end a search at once, bug or not: chess-trace could not go on
// (error), or cannot judge the program (unsupported).
bool EndsTheSearch(Outcome outcome);

// True for the outcomes that end an execution at a decision the program did not choose: the
// search's verdicts (livelock, good-samaritan, step-limit) and the clock's (timeout). A replay
// of such an execution ends the same way after its last recorded decision.
bool EndsAtADecision(Outcome outcome);

}  // namespace chess::search
