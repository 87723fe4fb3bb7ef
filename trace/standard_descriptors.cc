#include "trace/standard_descriptors.h"

namespace chess::trace {
namespace {

// How descriptor n stands to the ones before it, in words: "" when it shares nothing.
std::string Sharing(const StandardDescriptors& descriptors, int n) {
  const StandardDescriptor& fd = descriptors[n];
  if (fd.same_description_as >= 0) return std::string("the same as ") + StandardName(fd.same_description_as);
  if (fd.same_file_as >= 0) {
    return DescriptorWords(fd) + ", the same one as " + StandardName(fd.same_file_as) + " but opened apart";
  }
  return "";
}

std::string Device(uint32_t major, uint32_t minor) {
  // The memory devices a program is given as a standard descriptor, by their number.
  if (major == 1) {
    switch (minor) {
      case 3: return "/dev/null";
      case 5: return "/dev/zero";
      case 7: return "/dev/full";
      case 8: return "/dev/random";
      case 9: return "/dev/urandom";
      default: break;
    }
  }
  return "the character device " + std::to_string(major) + ":" + std::to_string(minor);
}

}  // namespace

const char* StandardName(int fd) {
  switch (fd) {
    case 0: return "stdin";
    case 1: return "stdout";
    case 2: return "stderr";
    default: return "a descriptor";
  }
}

const char* DescriptorKindName(StandardDescriptor::Kind kind) {
  switch (kind) {
    case StandardDescriptor::Kind::kClosed: return "closed";
    case StandardDescriptor::Kind::kFile: return "file";
    case StandardDescriptor::Kind::kPipe: return "pipe";
    case StandardDescriptor::Kind::kTerminal: return "terminal";
    case StandardDescriptor::Kind::kSocket: return "socket";
    case StandardDescriptor::Kind::kDevice: return "device";
    case StandardDescriptor::Kind::kOther: return "other";
  }
  return "unknown";
}

std::string DescriptorWords(const StandardDescriptor& fd) {
  switch (fd.kind) {
    case StandardDescriptor::Kind::kClosed: return "closed";
    case StandardDescriptor::Kind::kFile: return "a file";
    case StandardDescriptor::Kind::kPipe: return "a pipe";
    case StandardDescriptor::Kind::kTerminal:
      return "a terminal (" + std::to_string(fd.columns) + "×" + std::to_string(fd.rows) +
             (fd.x_pixels != 0 || fd.y_pixels != 0
                  ? ", " + std::to_string(fd.x_pixels) + "×" + std::to_string(fd.y_pixels) + " pixels"
                  : std::string()) +
             ")";
    case StandardDescriptor::Kind::kSocket: return "a socket";
    case StandardDescriptor::Kind::kDevice: return Device(fd.major, fd.minor);
    case StandardDescriptor::Kind::kOther: return "neither a file, a pipe, a terminal, a socket nor a device";
  }
  return "unknown";
}

std::string StandardDescriptorsInWords(const StandardDescriptors& descriptors) {
  std::string text;
  for (int n = 0; n < 3; ++n) {
    const std::string sharing = Sharing(descriptors, n);
    text += std::string(n > 0 ? ", " : "") + StandardName(n) + " " +
            (sharing.empty() ? DescriptorWords(descriptors[n]) : sharing);
  }
  return text;
}

std::vector<std::string> DescriptorDifferences(const StandardDescriptors& recorded, const StandardDescriptors& replayed) {
  std::vector<std::string> differences;
  for (int n = 0; n < 3; ++n) {
    const StandardDescriptor& was = recorded[n];
    const StandardDescriptor& is = replayed[n];
    if (was == is) continue;
    std::string then = Sharing(recorded, n);
    std::string now = Sharing(replayed, n);
    if (then.empty()) then = DescriptorWords(was);
    if (now.empty()) now = DescriptorWords(is);
    if (then == now) continue;  // it shares with the same descriptor, whose difference is said
    differences.push_back(std::string(StandardName(n)) + " was " + then + " when recorded, and is " + now +
                          " in this replay");
  }
  return differences;
}

}  // namespace chess::trace
