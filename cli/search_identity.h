// SearchIdentity: what makes explore runs on different machines parts of one search (--shard,
// `chess-trace merge`): the program — its command line, and the contents of its executable and
// of every file its arguments name — its standard input, and every option that changes which
// schedules run or how they are judged. Not the environment (a pod's HOSTNAME, a CI runner's
// variables differ between the shards of one search), not where results go (--out, --report),
// not the shard's index.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/execution.h"
#include "cli/explore_command.h"

namespace chess::cli {

struct SearchIdentity {
  // (name, value), in a fixed order; a file's value is its contents' digest.
  std::vector<std::pair<std::string, std::string>> fields;

  // The fields' digest, 16 hex digits.
  std::string Digest() const;
};

// `executable`: the file PROGRAM resolved to.
SearchIdentity IdentifySearch(const ExploreOptions& options, const ExecutionSettings& settings,
                              const std::string& executable);

// 16 hex digits.
std::string Hex64(uint64_t value);

}  // namespace chess::cli
