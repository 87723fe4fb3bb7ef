// SearchEngine: one way of choosing schedules, run an execution at a time so that the Explorer
// can let several take turns (the portfolio) and keep the limits, the bugs and the hooks in one
// place.
#pragma once

#include <optional>

#include "search/explorer.h"

namespace chess::search {

// What one step of an engine came to: an execution, with its retry after a divergence.
struct EngineStep {
  ExecutionSummary summary;
  bool followed = true;         // false: it could not follow its schedule (pruned)
  std::optional<FoundBug> bug;  // the execution failed (the Explorer decides if it is new)
};

class SearchEngine {
 public:
  virtual ~SearchEngine() = default;

  virtual StrategyKind Kind() const = 0;
  // Set once the engine has nothing left to run: why (pb: its bound or the space is done, or
  // work beyond --max-executions was dropped).
  virtual std::optional<SearchEnd> Finished() const = 0;
  // Runs the next execution on `backend`, counting it (and any retry) in `result`.
  virtual EngineStep Step(ExecutionBackend& backend, ExplorationResult& result) = 0;
  virtual void Progress(ExplorerProgress& progress) const = 0;
};

}  // namespace chess::search
