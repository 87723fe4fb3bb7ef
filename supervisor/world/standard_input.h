// The program's standard input, made repeatable. A recorded execution must be replayable, and
// every execution of a search must start from the same world: when chess-trace's stdin is not
// a terminal, its bytes are read once, to the end, and each execution gets a fresh stdin of
// the same kind holding exactly those bytes. A terminal or a device (/dev/null) is left to the
// program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "search/result.h"

namespace chess::supervisor {

struct CapturedInput {
  enum class Kind : uint8_t {
    kInherited = 0,  // a terminal or a device, left as it is: what the program reads is not recorded
    kPipe = 1,       // a pipe or a socket: given as a pipe, then end of file
    kFile = 2,      // a regular file (read from its offset): given as a file with those bytes
    kClosed = 3,    // fd 0 was not open: it stays closed
  };
  Kind kind = Kind::kInherited;
  std::string bytes;
};
inline constexpr uint8_t kLastInputKind = static_cast<uint8_t>(CapturedInput::Kind::kClosed);

// Reads chess-trace's own fd 0 to its end unless it is a terminal or a device. More than `limit` bytes is
// an error (the message says how to avoid it).
Result<CapturedInput> CaptureStandardInput(size_t limit);

// Makes chess-trace's fd 0, which the program inherits, a fresh source of `input`: a pipe
// already holding all the bytes and closed for writing (its capacity raised to fit), or an
// anonymous file. A terminal and a closed stdin are left alone. `notice` is set when the kind
// could not be kept (more bytes than any pipe can hold: the program gets a file).
Result<void> ProvideStandardInput(const CapturedInput& input, std::string* notice);

}  // namespace chess::supervisor
