// What a search's report says about the branches it gave up (Coverage::pruned): where each
// execution parted from the one whose decisions it replayed, what it found differently on the
// way there, the likely cause in words, and what to do about it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "search/explorer.h"

namespace chess::cli {

// What a person needs besides the search's result to name a cause.
struct DivergenceContext {
  std::string cwd;         // the program's working directory
  uint64_t isolation = 0;  // the --isolate word the executions had (CLONE_NEW* flags, kPrivateTmp…)
  // What changed in the working directory while the search ran ("tally.0.out created"): what
  // the search did not watch may still have looked there (a stat, an open without O_CREAT).
  std::vector<std::string> cwd_changes;
};

// The likely cause of one pruned branch, classified.
struct DivergenceCause {
  // "working-directory": a name in the shared working directory; "tmp": under a shared /tmp;
  // "shared-file": a name elsewhere that every execution sees; "unknown": nothing watched
  // differed.
  std::string kind = "unknown";
  std::string path;         // the name where the executions found different things (absolute)
  std::string explanation;  // one sentence
  std::string remedy;       // what to try: "--isolate pid,uts,ipc,mnt,tmp,cwd (…)"; may be empty
};
DivergenceCause ClassifyCause(const search::PrunedBranch& branch, const DivergenceContext& context);

// The lines of a text report about the pruned branches; empty when none was pruned.
std::string PrunedBranchesText(const search::ExplorationResult& result, const DivergenceContext& context);
// `"pruned_branches": {count, described: […]}` into an open JSON object.
void WritePrunedBranches(JsonWriter& json, const search::ExplorationResult& result, const DivergenceContext& context);

// A directory's entries (names, kinds, sizes, modification times), taken so that a later look
// can say what changed; at most `limit` entries are kept (a huge directory is not listed whole).
class DirectoryListing {
 public:
  static DirectoryListing Take(const std::string& directory, size_t limit = 10'000);
  // "tally.0.out created", "log.txt changed", "old removed": what `later` has otherwise, at most
  // `most` of them.
  std::vector<std::string> ChangesTo(const DirectoryListing& later, size_t most = 5) const;

 private:
  struct Entry {
    std::string name;
    uint32_t type = 0;
    int64_t size = 0;
    int64_t modified_nanos = 0;
    bool operator==(const Entry& other) const = default;
  };
  std::vector<Entry> entries_;  // by name
  bool complete_ = true;
};

}  // namespace chess::cli
