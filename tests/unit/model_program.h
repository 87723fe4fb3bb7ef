// A model program for the search's unit tests: threads as lists of steps, run one step per
// scheduling decision, with no ptrace — so the Explorer and the strategies can be checked
// against exact counts and known bugs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/explorer.h"
#include "search/shard.h"

namespace chess::search::test_support {

inline ThreadId T(uint32_t v) { return ThreadId{v}; }

// A step may work on a resource, yield, wait for a flag another thread sets, set one, spin on
// one without yielding, or wait for one with a deadline. A thread that runs out of steps exits.
struct Step {
  enum Kind { kWork, kYield, kSetFlag, kAwaitFlag, kSpin, kTimedAwait } kind = kWork;
  int flag = 0;
  // What the step conflicts on (state caching's objects); 0: everything.
  uint64_t resource = 0;
  // The syscall a thread about to take this step stops in (what a replay compares).
  int64_t syscall = 0;
};

// In the order an execution ran its steps, a kTimedAwait that timed out has this bit set in its
// step number.
inline constexpr size_t kTimedOut = size_t{1} << 20;

struct ModelProgram {
  std::vector<std::vector<Step>> threads;
  // Called at the end of an execution with the order in which steps ran ({thread, step}).
  std::function<Outcome(const std::vector<std::pair<uint32_t, size_t>>&)> judge;
};

class ModelBackend final : public ExecutionBackend {
 public:
  explicit ModelBackend(ModelProgram program) : program_(std::move(program)) {}

  static ExecutionSummary Ended(Outcome outcome, std::string message = {}) {
    ExecutionSummary summary;
    summary.outcome = outcome;
    summary.message = std::move(message);
    return summary;
  }

  ExecutionSummary Execute(Strategy& strategy) override {
    ++executions_;
    strategy.BeginExecution();
    // What earlier executions left in the world may change what this one does.
    ModelProgram program = program_;
    if (world_) world_(program.threads, executions_);
    ExecutionSummary ended = Run(program, strategy);
    if (names_) ended.names = names_(executions_);
    return ended;
  }

  uint64_t executions_ = 0;
  // Makes an execution diverge at a decision (execution numbers count from 1).
  std::function<std::optional<bool>(uint64_t execution, uint64_t decision)> diverge_at_;
  // Changes the program's steps for an execution: a program that finds what an earlier one left
  // (a file in a shared directory) and does something else.
  std::function<void(std::vector<std::vector<Step>>& threads, uint64_t execution)> world_;
  // What an execution found at the names it shares with the others (ExecutionSummary::names).
  std::function<std::vector<SyscallEvent>(uint64_t execution)> names_;

 private:
  ExecutionSummary Run(const ModelProgram& program, Strategy& strategy) {
    const size_t n = program.threads.size();
    std::vector<size_t> next(n, 0);
    std::vector<bool> flags(8, false);
    std::vector<bool> deadline_passed(n, false);
    std::vector<std::pair<uint32_t, size_t>> order;
    SchedulingContext context;
    std::vector<ThreadId> enabled;
    std::vector<ThreadId> timed;
    for (uint64_t decision = 0;; ++decision) {
      enabled.clear();
      timed.clear();
      for (uint32_t t = 0; t < n; ++t) {
        if (next[t] >= program.threads[t].size()) continue;
        const Step& step = program.threads[t][next[t]];
        const bool waits = (step.kind == Step::kAwaitFlag || step.kind == Step::kTimedAwait) &&
                           !flags[static_cast<size_t>(step.flag)];
        if (waits && step.kind == Step::kTimedAwait && !deadline_passed[t]) {
          timed.push_back(T(t));
          continue;
        }
        if (waits && step.kind == Step::kAwaitFlag) continue;
        enabled.push_back(T(t));
      }
      if (enabled.empty() && !timed.empty()) {
        // Nothing else can run: the earliest deadline (the first thread's) passes, as in `run`.
        deadline_passed[timed.front().value] = true;
        enabled.push_back(timed.front());
        timed.erase(timed.begin());
      }
      if (enabled.empty()) {
        const bool all_done = std::all_of(next.begin(), next.end(), [&, t = size_t{0}](size_t s) mutable {
          return s >= program.threads[t++].size();
        });
        if (!all_done) return Ended(Outcome::kDeadlock, "deadlock");
        return Ended(program.judge ? program.judge(order) : Outcome::kOk);
      }
      if (diverge_at_ && *diverge_at_(executions_, decision)) return Ended(Outcome::kDivergence, "model divergence");
      context.enabled = enabled;
      context.timed = timed;
      const ThreadId picked = strategy.PickThread(context);
      if (auto why = strategy.Divergence()) return Ended(Outcome::kDivergence, *why);
      if (auto verdict = strategy.Verdict()) return Ended(verdict->outcome, verdict->message);
      const bool fired_early = std::find(timed.begin(), timed.end(), picked) != timed.end();
      EXPECT_TRUE(fired_early || std::find(enabled.begin(), enabled.end(), picked) != enabled.end());
      if (fired_early) deadline_passed[picked.value] = true;
      const Step step = program.threads[picked.value][next[picked.value]];
      const bool timed_out = step.kind == Step::kTimedAwait && !flags[static_cast<size_t>(step.flag)];
      order.emplace_back(picked.value, next[picked.value] | (timed_out ? kTimedOut : 0));
      bool yielded = step.kind == Step::kYield || timed_out;
      OpKind op = yielded ? OpKind::kYield : OpKind::kSyscall;
      if (step.kind == Step::kSetFlag) flags[static_cast<size_t>(step.flag)] = true;
      if (step.kind == Step::kSpin) {
        // Spins on a flag without yielding until the backstop interrupts it (or the flag is set).
        if (!flags[static_cast<size_t>(step.flag)]) {
          yielded = true;
          op = OpKind::kInterrupted;
        } else {
          ++next[picked.value];
        }
      } else if (!(step.kind == Step::kYield && step.flag == -1)) {  // flag -1: yields forever
        ++next[picked.value];
      }
      deadline_passed[picked.value] = false;
      const std::vector<Step>& steps = program.threads[picked.value];
      const uint64_t resource = next[picked.value] < steps.size() ? steps[next[picked.value]].resource : 0;
      const int64_t syscall = next[picked.value] < steps.size() ? steps[next[picked.value]].syscall : 0;
      context.current = picked;
      context.point = SchedulingPoint{picked, op, resource, false, false, syscall, next[picked.value]};
      context.current_stop = next[picked.value] >= steps.size() ? StopReason::kExited
                             : yielded                           ? StopReason::kYielded
                                                                 : StopReason::kReachedPoint;
    }
  }

  ModelProgram program_;
};

// n threads of k independent steps each.
inline ModelProgram Independent(size_t n, size_t k) {
  ModelProgram program;
  program.threads.assign(n, std::vector<Step>(k, Step{}));
  return program;
}

// Thread 0: A1, A2; thread 1: B1, B2. The bug is the strict alternation A1 B1 A2 B2, which needs
// two preemptions.
inline ModelProgram Alternation() {
  ModelProgram program = Independent(2, 2);
  program.judge = [](const std::vector<std::pair<uint32_t, size_t>>& order) {
    const std::vector<std::pair<uint32_t, size_t>> bad{{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    return order == bad ? Outcome::kSignal : Outcome::kOk;
  };
  return program;
}

// Two searches of the same space came to the same thing: counts, coverage, schedules and bugs.
inline void ExpectSameExploration(const ExplorationResult& one, const ExplorationResult& ahead) {
  EXPECT_EQ(one.executions, ahead.executions);
  EXPECT_EQ(one.coverage.schedules, ahead.coverage.schedules);
  EXPECT_EQ(one.coverage.cache_pruned, ahead.coverage.cache_pruned);
  EXPECT_EQ(one.coverage.pruned, ahead.coverage.pruned);
  EXPECT_EQ(one.coverage.complete, ahead.coverage.complete);
  EXPECT_EQ(one.coverage.bound_completed, ahead.coverage.bound_completed);
  EXPECT_EQ(one.end, ahead.end);
  EXPECT_EQ(one.bound, ahead.bound);
  EXPECT_EQ(one.schedules_digest, ahead.schedules_digest);
  EXPECT_EQ(one.replayed_prefixes, ahead.replayed_prefixes);
  ASSERT_EQ(one.bugs.size(), ahead.bugs.size());
  for (size_t i = 0; i < one.bugs.size(); ++i) {
    EXPECT_EQ(one.bugs[i].execution, ahead.bugs[i].execution);
    EXPECT_EQ(one.bugs[i].preemptions, ahead.bugs[i].preemptions);
    EXPECT_EQ(ScheduleDigest(one.bugs[i].schedule), ScheduleDigest(ahead.bugs[i].schedule));
  }
}

}  // namespace chess::search::test_support
