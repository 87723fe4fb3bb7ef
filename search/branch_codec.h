// The messages between a parallel search and its workers (-j, docs/scale.md): a branch to run
// and what its execution came to (BranchRun), as bytes. Both ends are the same chess-trace
// binary, so the encoding is plain and unversioned; a message cut short or malformed decodes to
// nothing, never to half a value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "search/branch_run.h"

namespace chess::search {

// What a worker needs to run a branch: its prefix (the decisions up to its own, with its
// choice), what it spent, and the serial it is known by.
struct BranchRequest {
  uint64_t serial = 0;
  bool retry = false;
  Branch branch;  // its path holds only the prefix
};

std::string EncodeBranchRequest(const Branch& branch, bool retry);
std::optional<BranchRequest> DecodeBranchRequest(const std::string& bytes);

// A sample of pct or random to run, known by `serial`.
struct SampleRunRequest {
  uint64_t serial = 0;
  bool retry = false;
  SampleRequest sample;
};

std::string EncodeSampleRequest(uint64_t serial, const SampleRequest& sample, bool retry);
std::optional<SampleRunRequest> DecodeSampleRequest(const std::string& bytes);

std::string EncodeBranchRun(uint64_t serial, const BranchRun& run);
// The serial and the run; nullopt when the bytes are not one whole message.
std::optional<std::pair<uint64_t, BranchRun>> DecodeBranchRun(const std::string& bytes);

}  // namespace chess::search
