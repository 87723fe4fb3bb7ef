// `chess-trace merge [--report FILE] REPORT…`: the shard reports of one search (`explore --shard
// I/N --report …`) as one verdict — the bugs of every shard, each once, with its trace; what the
// shards covered together; which shards are missing or did not finish their part.
// Exit 0: no bug, and every shard 1..N finished its part; 1: a bug; 2: no bug, but the search is
// not complete (a shard missing, failed, stopped early); 125: reports of different searches,
// unreadable, or not shard reports.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/json_reader.h"
#include "search/result.h"

namespace chess::cli {

struct MergeOptions {
  std::vector<std::string> reports;
  std::string report_path;  // --report: the merged verdict as JSON
};

// One shard's report, as read.
struct ShardReportFile {
  std::string path;
  JsonValue report;
};

// A bug as the merged verdict lists it.
struct MergedBug {
  uint32_t shard = 0;
  std::string outcome;
  std::string signature;
  int64_t execution = 0;  // in its shard
  int64_t preemptions = 0;
  std::string message;
  std::string trace;  // as found (resolved against the report's directory), or empty
  std::string trace_problem;
};

struct MergedSearch {
  uint32_t count = 0;  // N
  std::string digest;
  std::string strategy;
  int64_t preemption_bound = 0;  // db: the delay bound
  bool delays = false;            // db: the bound counts delays
  std::string seed;
  std::vector<uint32_t> present;  // shard indices, ascending
  std::vector<uint32_t> missing;
  // (index, why) for shards that did not finish their part.
  std::vector<std::pair<uint32_t, std::string>> incomplete;
  std::vector<MergedBug> bugs;  // each once (by signature), fewest preemptions first
  uint64_t executions = 0;
  uint64_t replayed_prefixes = 0;
  uint64_t schedules = 0;
  uint64_t sampled = 0;
  uint64_t schedules_digest = 0;
  std::optional<int64_t> bound_completed;  // pb: what every shard covered
  bool exhausted = true;                    // pb: no shard's part needs more than it ran
  std::vector<std::string> warnings;        // the shards' blind spots, each once
  std::vector<std::string> notes;           // e.g. a report given twice

  bool Complete() const { return missing.empty() && incomplete.empty(); }
};

// The verdict over `files`; an error (exit 125) when they are not shards of one search.
Result<MergedSearch> MergeShardReports(const std::vector<ShardReportFile>& files);
// What the shards covered together, in the words of explore's coverage sentence.
std::string MergedCoverageSentence(const MergedSearch& merged);
std::string MergedTextReport(const MergedSearch& merged);
std::string MergedJsonReport(const MergedSearch& merged);
int MergeExitCode(const MergedSearch& merged);

CLI::App* AddMergeCommand(CLI::App& app, MergeOptions& options);
int MergeCommand(const MergeOptions& options);

}  // namespace chess::cli
