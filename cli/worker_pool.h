// WorkerPool: the workers of `explore -j N` (docs/scale.md). Each is a chess-trace process
// forked when the search starts, pinned to a CPU of its own, with its own namespaces, fork-server
// template and output capture, that runs the branches it is sent and sends back what they came
// to (search/branch_codec.h). The pool is the search's BranchRunner: it keeps every worker busy
// with the branches the search announced, earliest first, and hands each run over when the
// search asks for it — the search takes executions in exactly the order of -j 1, so its counts,
// coverage and first bug are -j 1's.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "search/branch_run.h"
#include "search/result.h"

namespace chess::cli {

class WorkerPool final : public search::BranchRunner {
 public:
  // What a worker process does: serve the requests read from `requests` with runs written to
  // `runs` (ServeBranches), until the pool closes its end. `index`: 0 … count-1.
  using WorkerMain = std::function<void(int requests, int runs, size_t index)>;
  // Told of every run as the search takes it (the backend's tallies take its observations then).
  using Taken = std::function<void(const search::BranchRun& run)>;

  static Result<std::unique_ptr<WorkerPool>> Start(size_t count, const WorkerMain& main, Taken taken);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  search::BranchRun Run(const search::Branch& branch, bool retry) override;
  void Upcoming(const std::vector<const search::Branch*>& next) override;
  void Dropped(uint64_t serial) override;
  void ChildrenWithin(std::optional<uint32_t> bound) override { children_within_ = bound; }
  search::BranchRun RunSample(const search::SampleRequest& sample, bool retry) override;
  void UpcomingSamples(const std::vector<search::SampleRequest>& next) override;
  void Forget() override;

  size_t Size() const { return workers_.size(); }
  // Children run before the search announced them (each is in Unused until it is taken).
  uint64_t Speculations() const { return speculations_; }
  // Executions the workers ran that the search never took (it ended first, or never asked for a
  // child run before it was announced): work -j 1 would not have done.
  uint64_t Unused() const { return finished_unused_ + done_.size() + speculated_.size() + InFlight(); }

 private:
  // What a worker is sent: a branch of pb or db, or a sample of pct or random.
  using Work = std::variant<search::Branch, search::SampleRequest>;
  struct Worker {
    pid_t pid = -1;
    int requests = -1;  // the pool writes here
    int runs = -1;      // … and reads here
    // The keys of the work sent to it, in order: it runs the first, and the others wait in
    // its pipe, so that it starts the next the moment it is done instead of waiting for the
    // search's process to take its run in (which shares a CPU with a worker).
    std::deque<uint64_t> running;
    bool Has(uint64_t key) const { return std::find(running.begin(), running.end(), key) != running.end(); }
  };
  // Branches a worker holds at most: the one it runs and the next.
  static constexpr size_t kDepth = 2;
  WorkerPool() = default;
  // What the pool knows a search's work by: its serial (a branch's, a sample's index) within the
  // search that announced it. Serials start again with every search (Forget), and a run of an
  // earlier one may still be on its way: the key tells them apart.
  uint64_t Key(uint64_t serial) const { return generation_ << kSerialBits | serial; }
  static constexpr int kSerialBits = 44;
  static std::string Request(uint64_t key, const Work& work, bool retry);
  // Runs, or collects when it ran ahead, the work known by `key`.
  search::BranchRun RunWork(uint64_t key, const Work& work, bool retry);
  // The search's announcement: the keys in the order it will ask them.
  void Announced(std::vector<std::pair<uint64_t, Work>> next);
  size_t InFlight() const;
  bool Running(uint64_t key) const;
  // The live worker with the fewest branches, if it has room for one more request of `size`
  // bytes; null otherwise. A busy worker reads its next request only when its execution ends, so
  // it is sent one only if it fits in its pipe beside another: the pool never blocks writing to a
  // worker that is blocked writing its run to the pool.
  Worker* LeastLoaded(size_t size);
  // Gives workers with room the earliest announced branches not yet started.
  void Fill();
  bool Send(Worker& worker, uint64_t key, const std::string& request);
  // How far ahead of the search the workers run, in branches: enough to keep each busy while the
  // search takes runs in, few enough that the runs waiting to be taken stay small.
  size_t Window() const { return 32 * workers_.size(); }
  // Speculation: a worker with nothing announced to run runs a child of a run the search has not
  // taken yet (ChildrenWithin), known by its content — the schedule up to its choice, and the
  // choice — until the search announces it under its serial and takes that run.
  struct Child {
    uint64_t content = 0;
    search::Branch branch;
  };
  // A branch's content from the hash of its path's decisions before its own (search::ScheduleStep
  // over them) and its own decision and choice; never has kSpeculative's bit.
  static uint64_t Content(uint64_t prefix, size_t decision, search::ThreadId choice);
  static uint64_t Content(const search::Branch& branch);
  // A run came back: its children become candidates (a run of a branch, when they are known).
  void Offer(uint32_t spent, const search::BranchRun& run);
  // Gives idle workers the latest candidates the search has not announced.
  void Speculate();
  // The key a branch of the search's is known by, if a worker ran it, or runs it, ahead of its
  // announcement: its run is moved to done_, or it will be.
  // True when it was adopted.
  bool Adopt(uint64_t key, const search::Branch& branch);
  // Files a speculative run that came back before its branch was announced.
  void Speculated(uint64_t content, search::BranchRun run);
  // Speculative runs are keyed apart from every search's serials.
  static constexpr uint64_t kSpeculative = uint64_t{1} << 63;
  // Candidates, and speculative runs waiting to be announced, kept at most; the oldest go first.
  static constexpr size_t kCandidates = 4096;
  static constexpr size_t kSpeculated = 1024;
  // Waits for any busy worker's run and files it (the worker has room then, for the caller to
  // fill); false when a worker died or chess-trace was asked to stop (error_ says which).
  bool Collect();
  search::BranchRun Failed() const;

  std::vector<Worker> workers_;
  Taken taken_;
  uint64_t generation_ = 0;                // searches forgotten so far
  std::vector<uint64_t> order_;            // the keys announced last, in the search's order
  std::map<uint64_t, Work> waiting_;       // announced, not started (a branch shares its path)
  std::map<uint64_t, search::BranchRun> done_;  // ran ahead, not yet taken
  std::set<uint64_t> dropped_;  // started, then dropped or forgotten: their runs are discarded
  std::map<uint64_t, uint32_t> spent_;  // what the branch in flight under a key spent (its children's base)
  std::optional<uint32_t> children_within_;
  uint64_t speculations_ = 0;
  std::deque<Child> candidates_;                      // the latest at the back
  std::set<uint64_t> contents_;                       // announced or speculated: no candidate again
  std::map<uint64_t, search::BranchRun> speculated_;  // by content: ran, not announced yet
  std::deque<uint64_t> speculated_order_;             // their contents, oldest first (some adopted since)
  std::map<uint64_t, uint64_t> speculating_;          // content → its key in flight
  std::map<uint64_t, uint64_t> adopted_;              // a speculative key in flight → the search's key
  uint64_t finished_unused_ = 0;
  std::string error_;  // set once a worker died: every later run is an error
  size_t queued_request_limit_ = 0;  // the largest request queued behind a running one: half a pipe
};

// The worker's side: reads requests from `requests` and writes, for each, what `run_branch` or
// `run_sample` made of it, until `requests` ends. Returns the exit status for the worker process.
int ServeBranches(int requests, int runs, const std::function<search::BranchRun(const search::Branch&)>& run_branch,
                  const std::function<search::BranchRun(const search::SampleRequest&)>& run_sample);

}  // namespace chess::cli
