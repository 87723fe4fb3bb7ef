#include "search/explorer.h"

#include <memory>
#include <set>

#include "search/bounded_search.h"
#include "search/branch_run.h"
#include "search/directed_deadlock.h"
#include "search/mix.h"
#include "search/sampled_search.h"

namespace chess::search {

namespace {

// What the progress hook is told after an execution of `engine`.
ExplorerProgress ProgressOf(StrategyKind strategy, bool minimizing, uint64_t executions,
                            const ExplorationResult& result, const SearchEngine& engine) {
  ExplorerProgress progress;
  progress.strategy = strategy;
  progress.minimizing = minimizing;
  progress.executions = executions;
  progress.sampled = result.coverage.sampled;
  progress.bugs = result.bugs.size();
  engine.Progress(progress);
  return progress;
}

}  // namespace

void Predict(const LockObservation& observed, PredictionsResult& predictions) {
  predictions.dependencies = observed.dependencies.size();
  predictions.names = observed.names;
  predictions.kinds = observed.kinds;
  const CyclePrediction predicted = PredictCycles(observed.dependencies, observed.kinds, observed.Threads());
  predictions.gated = predicted.gated;
  predictions.cut_short = predicted.cut_short;
  for (const PredictedCycle& cycle : predicted.cycles) {
    PredictedDeadlock deadlock;
    deadlock.cycle = cycle;
    deadlock.words = DescribeCycle(cycle, observed);
    predictions.cycles.push_back(std::move(deadlock));
  }
}

FoundBug Explorer::Minimize(FoundBug bug, ExplorationResult& result, const ExplorerHooks& hooks) {
  // Iterative bounding below the sample's count: the first schedule that fails the same way has
  // the fewest preemptions there are for it. Its own coverage is not the search's. (-j: what the
  // workers ran ahead for the sampled search is not this search's, and the other way round.)
  BranchRunner* runner = backend_.Branches();
  if (runner != nullptr) runner->Forget();
  BoundedSearch search(StrategyKind::kPb, bug.preemptions - 1, options_.max_executions, options_.state_cache,
                       options_.liveness);
  ExplorationResult scratch;
  std::optional<FoundBug> minimal;
  while (!minimal && !search.Finished()) {
    if (hooks.should_stop && hooks.should_stop()) break;
    if (result.executions + scratch.executions >= options_.max_executions) break;
    if (scratch.executions >= options_.minimize_budget) break;
    EngineStep step = search.Step(backend_, scratch);
    if (EndsTheSearch(step.summary.outcome)) break;
    if (step.bug && step.bug->summary.outcome == bug.summary.outcome) {
      minimal = std::move(*step.bug);
      minimal->execution += result.executions;
    }
    if (hooks.progress) hooks.progress(ProgressOf(search.Kind(), true, result.executions + scratch.executions, result, search));
  }
  if (runner != nullptr) runner->Forget();
  result.executions += scratch.executions;
  result.minimizing += scratch.executions;
  result.divergences += scratch.divergences;
  if (!minimal) return bug;
  minimal->found_by = bug.found_by;
  minimal->minimized_from = FoundBug::Original{bug.execution, bug.preemptions, bug.execution_strategy};
  return std::move(*minimal);
}

bool Explorer::ConfirmPredictions(const LockObservation& observed, ExplorationResult& result,
                                  const ExplorerHooks& hooks, std::set<std::string>& seen_bugs, SearchEnd& end) {
  PredictionsResult& predictions = *result.predictions;
  Predict(observed, predictions);
  for (size_t index = 0; index < predictions.cycles.size(); ++index) {
    PredictedDeadlock& prediction = predictions.cycles[index];
    if (index >= options_.max_predicted_cycles) {
      prediction.past_limit = true;
      ++predictions.untried;
      continue;
    }
    for (uint64_t attempt = 1; attempt <= options_.predict_budget && !prediction.confirmed_in; ++attempt) {
      const bool stopping = hooks.should_stop && hooks.should_stop();
      if (stopping || result.executions >= options_.max_executions) {
        predictions.untried += predictions.cycles.size() - index - (prediction.attempts > 0 ? 1 : 0);
        end = stopping ? SearchEnd::kStopped : SearchEnd::kMaxExecutions;
        return false;
      }
      DirectedDeadlock strategy(prediction.cycle, observed.kinds, Mix64(Mix64(options_.seed, index + 1), attempt),
                                attempt, options_.liveness);
      ExecutionSummary summary = backend_.Execute(strategy);
      ++result.executions;
      ++predictions.executions;
      ++prediction.attempts;
      if (EndsTheSearch(summary.outcome)) {
        predictions.untried += predictions.cycles.size() - index - 1;
        result.error = std::move(summary);
        end = SearchEnd::kError;
        return false;
      }
      const bool confirmed = summary.outcome == Outcome::kDeadlock && strategy.Released();
      if (confirmed) prediction.confirmed_in = result.executions;
      if (IsBug(summary.outcome)) {
        const std::string signature = std::string(OutcomeName(summary.outcome)) + "\n" + summary.signature;
        if (seen_bugs.insert(signature).second) {
          FoundBug bug;
          bug.execution = result.executions;
          bug.summary = std::move(summary);
          bug.preemptions = strategy.Preemptions();
          bug.preemption_decisions = strategy.PreemptionDecisions();
          bug.schedule = strategy.Decisions();
          bug.found_by = options_.strategy;
          bug.execution_strategy = strategy.Describe();
          bug.directed = true;
          if (confirmed) bug.confirmed_prediction = FoundBug::Confirmed{index, predictions.predicted_from, prediction.words};
          result.bugs.push_back(std::move(bug));
          if (hooks.found) hooks.found(result.bugs.back());
          if (!options_.keep_going) {
            predictions.untried += predictions.cycles.size() - index - 1;
            end = SearchEnd::kBug;
            return false;
          }
        }
      }
    }
  }
  return true;
}

ExplorationResult Explorer::Explore(const ExplorerHooks& hooks) {
  ExplorationResult result;
  result.coverage.strategy = options_.strategy;
  std::vector<std::unique_ptr<SearchEngine>> engines;
  BoundedSearch* bounded = nullptr;
  for (StrategyKind kind : {StrategyKind::kPb, StrategyKind::kDb}) {
    if (Runs(options_.strategy, kind)) {
      const uint32_t bound = kind == StrategyKind::kDb ? options_.delay_bound : options_.preemption_bound;
      auto search = std::make_unique<BoundedSearch>(kind, bound, options_.max_executions, options_.state_cache,
                                                    options_.liveness, options_.shard);
      bounded = search.get();
      engines.push_back(std::move(search));
    }
  }
  for (StrategyKind kind : {StrategyKind::kPct, StrategyKind::kRandom}) {
    if (Runs(options_.strategy, kind)) {
      engines.push_back(
          std::make_unique<SampledSearch>(kind, options_.seed, options_.pct_depth, options_.liveness, options_.shard));
    }
  }
  auto stop = [&](SearchEnd end) {
    result.end = end;
    return result;
  };

  std::set<std::string> seen_bugs;
  for (size_t turn = 0;; ++turn) {
    // The engines take turns, an execution each; one that is done drops out.
    SearchEngine* engine = nullptr;
    for (size_t i = 0; i < engines.size() && engine == nullptr; ++i) {
      SearchEngine* candidate = engines[(turn + i) % engines.size()].get();
      if (!candidate->Finished()) {
        engine = candidate;
        turn += i;
      }
    }
    if (engine == nullptr) return stop(bounded != nullptr ? *bounded->Finished() : SearchEnd::kExhausted);
    if (hooks.should_stop && hooks.should_stop()) return stop(SearchEnd::kStopped);
    if (result.executions >= options_.max_executions) return stop(SearchEnd::kMaxExecutions);

    // Prediction watches the first execution (in one shard only: the others' executions add up
    // to the search's without it).
    const bool watching = result.executions == 0 && !result.predictions && options_.predict_budget > 0 &&
                          options_.shard.index == 1 && backend_.WatchLocks(true);
    if (result.executions == 0 && !result.predictions && options_.predict_budget > 0 && options_.shard.index == 1) {
      result.predictions.emplace();
      result.predictions->watched = watching;
    }
    EngineStep step = engine->Step(backend_, result);
    std::optional<LockObservation> observed;
    if (watching) {
      backend_.WatchLocks(false);
      observed = std::move(step.summary.locks);
      result.predictions->predicted_from = result.executions;
      if (!observed) result.predictions->watched = false;
    }
    // Where the search ends at its first execution, the cycles it predicts are listed, untried.
    const auto list_untried = [&] {
      if (!observed) return;
      Predict(*observed, *result.predictions);
      result.predictions->untried = result.predictions->cycles.size();
    };
    if (EndsTheSearch(step.summary.outcome)) {
      list_untried();
      result.error = step.summary;
      return stop(SearchEnd::kError);
    }
    if (step.bug) {
      const std::string signature = std::string(OutcomeName(step.summary.outcome)) + "\n" + step.summary.signature;
      if (seen_bugs.insert(signature).second) {
        FoundBug bug = std::move(*step.bug);
        if (!Bounded(bug.found_by) && options_.minimize && bug.preemptions > 0) bug = Minimize(std::move(bug), result, hooks);
        result.bugs.push_back(std::move(bug));
        if (hooks.found) hooks.found(result.bugs.back());
      }
    }
    if (hooks.progress) {
      // The bounded search's round is the progress worth showing, whichever engine just ran.
      const SearchEngine& shown = bounded != nullptr ? *bounded : *engine;
      hooks.progress(ProgressOf(engine->Kind(), false, result.executions, result, shown));
    }
    if (step.bug && !options_.keep_going) {
      list_untried();
      return stop(SearchEnd::kBug);
    }
    if (observed) {
      SearchEnd end = SearchEnd::kStopped;
      if (!ConfirmPredictions(*observed, result, hooks, seen_bugs, end)) return stop(end);
    }
  }
}

}  // namespace chess::search
