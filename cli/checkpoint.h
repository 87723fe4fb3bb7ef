// Checkpoints: `explore --checkpoint FILE` and `--resume FILE` (docs/scale.md).
//
// A pb or db search is a function of the runs it takes in, in order (search/branch_run.h): the
// state cache, the stacks, the rounds and the bugs all follow from them. So a checkpoint is the
// log of those runs, appended as the search takes each one, and a resumed search is the same
// search fed the logged runs again — without running them — until the log ends, then run for
// real. It picks up exactly where the interrupted one stopped, state cache included, and its
// executions count, coverage and schedules are the whole search's.
//
// The file: the magic "CHESSCKP", then records, each its payload's size, an FNV-1a digest of the
// payload and the payload. The first record is the header (the format, chess-trace's version and
// the search's identity); every later one is a run. Each record goes out in one write(2), so a
// SIGKILL of chess-trace loses nothing the kernel has; a record cut short (a crash of the machine
// between its writes and their fsync) fails its digest, and a resume drops it and what follows.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "search/branch_run.h"
#include "search/result.h"

namespace chess::cli {

struct CheckpointHeader {
  std::string tool_version;
  // The search's identity, as (name, value) in a fixed order (cli/search_identity.h), with the
  // shard's index: what must agree for a resume to continue the same search.
  std::vector<std::pair<std::string, std::string>> identity;
};

// One run the search took in: the branch's serial number, whether it was a second try after a
// divergence, a digest of the branch as the search asked for it (its prefix and its choice), and
// what the run came to.
struct LoggedRun {
  uint64_t serial = 0;
  bool retry = false;
  uint64_t branch_digest = 0;
  search::BranchRun run;
};

// The digest a LoggedRun keeps of the branch it ran.
uint64_t BranchDigest(const search::Branch& branch, bool retry);

class CheckpointFile {
 public:
  // A new checkpoint at `path` holding only `header`; refuses a file that exists (it may be a
  // search to resume). The header reaches the disk before the file has its name.
  static Result<std::unique_ptr<CheckpointFile>> Create(const std::string& path, const CheckpointHeader& header);
  // The checkpoint at `path`, opened to go on appending, with its header and its runs; a damaged
  // tail is cut off (`dropped_bytes` says how much).
  struct Opened {
    std::unique_ptr<CheckpointFile> file;
    CheckpointHeader header;
    std::deque<LoggedRun> runs;
    uint64_t dropped_bytes = 0;
  };
  static Result<Opened> Open(const std::string& path);

  ~CheckpointFile();
  CheckpointFile(const CheckpointFile&) = delete;
  CheckpointFile& operator=(const CheckpointFile&) = delete;

  // Appends one run; a failure (a full disk) is said once and ends the checkpoint, not the search.
  Result<void> Append(const LoggedRun& logged);
  // fdatasync, at most every few seconds unless `now`: what a crash of the machine can lose.
  void Sync(bool now);
  const std::string& Path() const { return path_; }

 private:
  CheckpointFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
  int64_t synced_at_ms_ = 0;
};

// Where the differences between a checkpoint's header and this search's lie, in words ("its seed
// was 1, this search's is 2"); empty when it is the same search. Every field counts, even
// --max-executions: the search keeps no work it could not run within it, so a search with
// another limit takes other branches.
std::string CheckpointMismatch(const CheckpointHeader& saved, const CheckpointHeader& now);

// The search's BranchRunner while it is checkpointed: hands out the resumed runs first (checking
// that the search asks for the very branches they came from), then runs branches on `inner` (the
// workers of -j) or with `local`, logging each run the search takes in.
class CheckpointRunner final : public search::BranchRunner {
 public:
  using LocalRun = std::function<search::BranchRun(const search::Branch& branch)>;
  // What a run from the log showed of the program, for the backend's tallies.
  using Absorb = std::function<void(const search::BranchRun& run)>;
  // Whether the run just made may be logged: false once chess-trace is being stopped (the
  // execution was cut short, and the search ends with it).
  using Complete = std::function<bool(const search::BranchRun& run)>;

  CheckpointRunner(std::unique_ptr<CheckpointFile> file, std::deque<LoggedRun> resumed, search::BranchRunner* inner,
                   LocalRun local, Absorb absorb, Complete complete);
  ~CheckpointRunner() override;

  search::BranchRun Run(const search::Branch& branch, bool retry) override;
  void Upcoming(const std::vector<const search::Branch*>& next) override;
  void Dropped(uint64_t serial) override;
  void ChildrenWithin(std::optional<uint32_t> bound) override;

  // Runs taken from the checkpoint instead of being run.
  uint64_t Resumed() const { return resumed_; }
  // Runs still in the log that the search did not ask for (it ended before them); a resumed
  // search that asked for another branch sets Mismatch() instead.
  size_t Unasked() const { return log_.size(); }
  const std::string& Mismatch() const { return mismatch_; }
  // Why the checkpoint stopped being written (a failed write), or empty.
  const std::string& WriteError() const { return write_error_; }

 private:
  std::unique_ptr<CheckpointFile> file_;
  std::deque<LoggedRun> log_;
  search::BranchRunner* inner_;
  LocalRun local_;
  Absorb absorb_;
  Complete complete_;
  uint64_t resumed_ = 0;
  bool logging_ = true;
  std::string mismatch_;
  std::string write_error_;
};

}  // namespace chess::cli
