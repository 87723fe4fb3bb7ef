// TraceWriter: writes a trace as the execution runs. Records stream through zstd into a
// temporary file beside the destination, so memory does not grow with the execution and a
// crash leaves no half-written trace under the real name; Finish adds the trailer, syncs and
// renames it into place. An existing file is replaced only when asked to.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "trace/codec.h"
#include "trace/compression.h"
#include "trace/format.h"

namespace chess::trace {

class TraceWriter {
 public:
  TraceWriter() = default;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter();  // without Finish: the temporary file is removed

  Result<void> Open(const std::string& path, bool replace, const std::string& tool_version);

  void WriteCommand(const Command& command);
  void WriteOptions(const Options& options);
  void WriteStandardInput(const StandardInput& input);
  void WriteStandardDescriptors(const StandardDescriptors& descriptors);
  void WriteThread(const ThreadInfo& thread);
  void WriteObjectName(const ObjectName& name);
  // The sites of a kPoints plan and its cap.
  void WriteAtomicSites(const search::AtomicPointPlan& plan);
  // The racing instructions of a kPoints plan (its race_sites); after the atomic sites.
  void WriteRaceSites(const std::set<search::CodeLocation>& sites);
  void WriteOracle(const Oracle& oracle);
  void WriteDecision(const search::RecordedDecision& decision);
  void WriteOutsideWait(const OutsideWait& wait);
  void WriteOutcome(const Outcome& outcome);

  // Ends the stream, writes the trailer, syncs and renames the file into place.
  Result<void> Finish();

  uint64_t Decisions() const { return decisions_; }

 private:
  // FNV-1a 64 of everything written to the file so far (the trailer's checksum).
  std::optional<uint64_t> HashWritten() const;
  Result<void> OpenFile(const std::string& path, bool replace, const std::string& tool_version);
  void Emit(RecordType type, const std::string& payload);
  void FlushRepeats();
  // A list of sites into the record being built: their count, then each one's module and address.
  void WriteSites(const std::set<search::CodeLocation>& sites);

  std::string path_;
  std::string temporary_;
  bool replace_ = false;
  int fd_ = -1;
  ZstdFrameWriter frame_;
  std::optional<Error> error_;  // the first failure; Finish reports it
  uint64_t records_ = 0;
  uint64_t stream_length_ = 0;
  ByteWriter scratch_;
  // Run-length encoding: a decision encoded exactly like the one before (same thread at the
  // same kind of point, picking the same thread) is counted, not written.
  std::string last_decision_;
  uint64_t repeats_ = 0;
  std::map<uint32_t, uint64_t> next_index_;  // per thread: the point index a decision expects
  uint64_t decisions_ = 0;
};

}  // namespace chess::trace
