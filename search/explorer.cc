#include "search/explorer.h"

#include <algorithm>
#include <memory>
#include <set>

namespace chess::search {
namespace {

struct Run {
  ExecutionSummary summary;
  std::unique_ptr<BoundedExecution> strategy;
};

}  // namespace

ExplorationResult Explorer::Explore(const ExplorerHooks& hooks) {
  ExplorationResult result;
  // Work of the current round, taken from the back (depth first: the deepest alternatives of
  // the latest execution first, which keeps few paths alive), and of the next round.
  std::vector<Branch> current{Branch{}};
  std::vector<Branch> next;
  bool beyond_bound = false;  // some schedule needs more preemptions than the bound allows
  // Work left out because more than --max-executions would be needed, in this round and the next.
  bool dropped = false;
  bool dropped_next = false;
  uint64_t done_in_bound = 0;
  std::set<std::string> seen_bugs;

  auto run = [&](const Branch& branch) {
    Run attempt;
    attempt.strategy = std::make_unique<BoundedExecution>(branch, options_.liveness);
    attempt.summary = backend_.Execute(*attempt.strategy);
    ++result.executions;
    return attempt;
  };
  auto stop = [&](SearchEnd end) {
    result.end = end;
    return result;
  };

  for (uint32_t bound = 0;; ++bound) {
    result.bound = bound;
    done_in_bound = 0;
    while (!current.empty()) {
      if (hooks.should_stop && hooks.should_stop()) return stop(SearchEnd::kStopped);
      if (result.executions >= options_.max_executions) return stop(SearchEnd::kMaxExecutions);
      const Branch branch = std::move(current.back());
      current.pop_back();
      Run attempt = run(branch);
      if (attempt.summary.outcome == Outcome::kDivergence) {
        // Once more: something outside the schedule (a signal from outside, a slow disk) may
        // have got in the way. A second divergence gives the branch up.
        ++result.divergences;
        if (result.executions >= options_.max_executions) return stop(SearchEnd::kMaxExecutions);
        attempt = run(branch);
        if (attempt.summary.outcome == Outcome::kDivergence) {
          ++result.divergences;
          ++result.coverage.pruned;
          continue;
        }
      }
      if (attempt.summary.outcome == Outcome::kError) {
        result.error = attempt.summary;
        return stop(SearchEnd::kError);
      }
      ++result.coverage.schedules;
      ++done_in_bound;
      if (attempt.summary.outcome == Outcome::kStepLimit) ++result.step_limited;
      BoundedExecution& execution = *attempt.strategy;
      const bool bug = IsBug(attempt.summary.outcome);
      if (bug) {
        const std::string signature = std::string(OutcomeName(attempt.summary.outcome)) + "\n" + attempt.summary.signature;
        if (seen_bugs.insert(signature).second) {
          result.bugs.push_back(FoundBug{result.executions, attempt.summary, execution.Preemptions(),
                                         execution.PreemptionDecisions(), execution.Decisions()});
          if (hooks.found) hooks.found(result.bugs.back());
        }
      }
      // Its alternatives: every one is a distinct schedule, as it differs from this one at its
      // decision and agrees with it before. Work that could never run within --max-executions
      // is not kept.
      auto path = std::make_shared<const std::vector<RecordedDecision>>(execution.TakeDecisions());
      const uint64_t room = options_.max_executions - std::min(options_.max_executions, result.executions);
      for (const Alternative& alternative : execution.Alternatives()) {
        Branch child{path, alternative.decision, alternative.choice, bound + (alternative.preempting ? 1 : 0)};
        if (alternative.preempting && bound >= options_.preemption_bound) {
          beyond_bound = true;
          continue;
        }
        // This round's work comes before the next round's.
        if (current.size() + next.size() >= room && !alternative.preempting && !next.empty()) {
          next.pop_back();
          dropped_next = true;
        }
        if (current.size() + next.size() >= room) {
          (alternative.preempting ? dropped_next : dropped) = true;
          continue;
        }
        (alternative.preempting ? next : current).push_back(std::move(child));
      }
      if (hooks.progress) {
        hooks.progress(ExplorerProgress{result.executions, bound, done_in_bound, current.size(), next.size(),
                                        result.bugs.size()});
      }
      if (bug && !options_.keep_going) return stop(SearchEnd::kBug);
    }
    // Work left out was more than the executions left: the limit ends the search, not the space.
    if (dropped) return stop(SearchEnd::kMaxExecutions);
    result.coverage.bound_completed = bound;
    if (next.empty()) {
      result.coverage.complete = true;
      return stop(beyond_bound ? SearchEnd::kBoundExplored : SearchEnd::kExhausted);
    }
    // The next round takes its work in the order it was found.
    current.assign(std::make_move_iterator(next.rbegin()), std::make_move_iterator(next.rend()));
    next.clear();
    dropped = dropped_next;
    dropped_next = false;
  }
}

}  // namespace chess::search
