// Reading a trace: every part is checked — magic, format version, lengths, the zstd frame and
// its checksum, the stream's own length and checksum, record types, enum ranges, references
// between records — and any damage is an error that says what is wrong. Nothing in a file can
// crash the reader or make it allocate more than the file's records account for.
#pragma once

#include <string>
#include <string_view>

#include "search/result.h"
#include "trace/format.h"

namespace chess::trace {

// `reader_version` is this chess-trace's version, for the message about newer formats.
Result<Trace> ParseTrace(std::string_view bytes, const std::string& reader_version);
Result<Trace> ReadTrace(const std::string& path, const std::string& reader_version);

}  // namespace chess::trace
