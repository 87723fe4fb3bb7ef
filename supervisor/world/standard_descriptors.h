// What the program's descriptors 0, 1 and 2 are: a file, a pipe, a terminal of some size, a
// socket, /dev/null, closed — and which of them are one file or one open file description.
// Programs ask (isatty, fstat, the window size) and behave differently on each kind, so a trace
// records them and a replay gives the program the same kinds (descriptor_stand_ins.h).
#pragma once

#include <array>
#include <cstdint>

namespace chess::supervisor {

struct StandardDescriptor {
  enum class Kind : uint8_t {
    kClosed = 0,
    kFile = 1,      // a regular file
    kPipe = 2,      // a pipe or a FIFO
    kTerminal = 3,  // with its window size
    kSocket = 4,
    kDevice = 5,    // a character device that is no terminal (/dev/null is 1:3)
    kOther = 6,     // a directory, a block device
  };
  Kind kind = Kind::kClosed;
  // The lowest descriptor before this one that is the same file, and the lowest that is the
  // same open file description (a shell's 2>&1); -1: none.
  int8_t same_file_as = -1;
  int8_t same_description_as = -1;
  uint16_t rows = 0;  // kTerminal: the window size (TIOCGWINSZ)
  uint16_t columns = 0;
  uint16_t x_pixels = 0;
  uint16_t y_pixels = 0;
  uint32_t major = 0;  // kDevice: the device number
  uint32_t minor = 0;

  bool operator==(const StandardDescriptor&) const = default;
};
inline constexpr uint8_t kLastDescriptorKind = static_cast<uint8_t>(StandardDescriptor::Kind::kOther);
using StandardDescriptors = std::array<StandardDescriptor, 3>;

// chess-trace's own descriptors 0-2, as a program it starts now gets them: one of them that is
// close-on-exec is chess-trace's own descriptor that took a free number, closed for the program.
StandardDescriptors CurrentStandardDescriptors();

// How descriptors a and b stand to each other in `descriptors`.
enum class Sharing : uint8_t { kApart, kSameFile, kSameDescription };
Sharing SharingOf(const StandardDescriptors& descriptors, int a, int b);

}  // namespace chess::supervisor
