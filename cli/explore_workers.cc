#include "cli/explore_workers.h"

#include <unistd.h>

#include <algorithm>

#include "cli/cpu_pinning.h"
#include "cli/explore_backend.h"
#include "search/branch_run.h"
#include "supervisor/world/fork_server.h"

namespace chess::cli {
namespace {

// The CPUs chess-trace may use, as the machine's mask says before pinning.
std::vector<int> UsableCpus(const std::vector<uint8_t>& visible_affinity) {
  return CpusOf(visible_affinity.empty() ? OwnAffinityMask() : visible_affinity);
}

}  // namespace

size_t WorkerCount(size_t jobs, const std::vector<uint8_t>& visible_affinity) {
  if (jobs != 0) return jobs;
  return std::max<size_t>(UsableCpus(visible_affinity).size(), 1);
}

Result<std::unique_ptr<SearchWorkers>> SearchWorkers::Start(size_t count, const Setup& setup, WorkerPool::Taken taken) {
  std::unique_ptr<SearchWorkers> workers(new SearchWorkers());
  auto started = WorkerPool::Start(
      count, [&setup](int requests, int runs, size_t index) { WorkerMain(setup, requests, runs, index); },
      std::move(taken));
  if (!started) return Error{"-j: " + started.error()};
  workers->pool_ = std::move(*started);
  // The search's own process mostly waits for its workers' runs: it takes whichever CPU a worker
  // leaves free for a moment, instead of sharing the one it was pinned to with a busy worker.
  // Its pin comes back when the workers are gone (a bug's trace is recorded on it).
  const std::vector<uint8_t>& visible = setup.execution.options.visible_affinity;
  cpu_set_t own;
  if (!visible.empty() && sched_getaffinity(0, sizeof own, &own) == 0) {
    cpu_set_t any;
    CPU_ZERO(&any);
    for (int cpu : UsableCpus(visible)) {
      if (cpu < CPU_SETSIZE) CPU_SET(cpu, &any);
    }
    if (sched_setaffinity(0, sizeof any, &any) == 0) workers->search_pin_ = own;
  }
  return workers;
}

SearchWorkers::~SearchWorkers() {
  pool_.reset();  // before the CPUs are the search's again
  if (search_pin_) sched_setaffinity(0, sizeof *search_pin_, &*search_pin_);
}

void SearchWorkers::WorkerMain(const Setup& setup, int requests, int runs, size_t index) {
  PreparedExecution& execution = setup.execution;
  // A CPU of its own, and the program's tree with it.
  if (!execution.options.visible_affinity.empty()) {
    const std::vector<int> cpus = UsableCpus(execution.options.visible_affinity);
    const int cpu = cpus[index % cpus.size()];
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0) execution.spec.cpu = cpu;
  }
  // The search's template and namespaces belong to its process: this one makes its own (the
  // inherited objects are let go of, never destroyed — that would kill the search's processes).
  if (execution.fork_server) {
    (void)execution.fork_server.release();
    execution.fork_server = std::make_unique<supervisor::ForkServer>();
    execution.options.fork_server = execution.fork_server.get();
  }
  if (execution.namespaces) {
    (void)execution.namespaces.release();
    execution.namespaces = std::make_unique<supervisor::IsolatedInit>();
    execution.options.shared_init = execution.namespaces.get();
  }
  SupervisorBackend backend(execution, setup.expect_exit, setup.judge);
  if (setup.atomics) backend.UseAtomicPoints(*setup.atomics);
  execution.options.inspect_world = backend.Oracles().Inspector();
  const int status = ServeBranches(
      requests, runs,
      [&](const search::Branch& branch) {
        search::BranchRun run = search::RunBranch(branch, setup.liveness, setup.state_cache,
                                                  search::BranchBounding(setup.strategy), backend);
        run.observed = backend.TakeObservation();
        return run;
      },
      [&](const search::SampleRequest& sample) {
        search::BranchRun run = search::RunSample(sample, setup.liveness, backend);
        run.observed = backend.TakeObservation();
        return run;
      });
  backend.EndCapture();
  // Its template and namespaces go with it (their destructors kill them); nothing else of the
  // search's is torn down here.
  execution.fork_server.reset();
  execution.namespaces.reset();
  _exit(status);
}

}  // namespace chess::cli
