// The container around a trace's record stream (docs/trace-format.md): a header naming the
// format and the tool, one zstd frame of records, and a trailer with the stream's length and a
// checksum of every byte before it.
//
// Since format 2 a trace is a zstd file: the header and the trailer are zstd skippable frames,
// which decompressors pass over, so `zstd -t` accepts a trace and `zstd -dc` prints its record
// stream. Format 1 had the same parts without the frames around them; it is still read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "search/result.h"

namespace chess::trace {

// The magic of the zstd skippable frames that hold the header and the trailer (RFC 8878: any of
// 0x184D2A50 to 0x184D2A5F; decompressors skip the frame's size bytes after it).
inline constexpr uint32_t kSkippableFrameMagic = 0x184D2A50;
inline constexpr uint16_t kFirstFramedFormat = 2;

// The header: at the front of the file.
std::string ContainerHeader(std::string_view tool_version, uint16_t format_version);
// The trailer: at the end, after the zstd frame; `file_hash` is FNV-1a 64 of every byte before
// it (header and frame).
std::string ContainerTrailer(uint64_t stream_length, uint64_t file_hash, uint16_t format_version);

// A trace file taken apart, every length and the checksum checked; the frame is not decompressed.
struct ContainerParts {
  uint16_t format_version = 0;
  std::string tool_version;
  std::string_view frame;      // the zstd frame of records
  uint64_t stream_length = 0;  // what the trailer says the records decompress to
};

// `reader_version`: this chess-trace's, for the message about a newer format. The errors are the
// reader's: "not a chess-trace trace …", "the trace was produced by chess-trace X (trace format
// N) …", or "the trace is damaged: …".
Result<ContainerParts> SplitContainer(std::string_view bytes, const std::string& reader_version);

// Where the tool version sits in the header of `bytes` (the only bytes no length or checksum
// covers): [begin, end). For tests and tools that edit a trace; {0, 0} if it is no trace.
std::pair<size_t, size_t> ToolVersionSpan(std::string_view bytes);
// The size of the trailer of `bytes` (24 for format 1, 32 since format 2), 0 if it is no trace.
size_t TrailerSize(std::string_view bytes);

}  // namespace chess::trace
