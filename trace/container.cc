#include "trace/container.h"

#include <cstring>
#include <optional>

#include "trace/format.h"

namespace chess::trace {
namespace {

constexpr size_t kFrameHeader = 8;  // a skippable frame's magic and size
constexpr size_t kHeaderFixed = sizeof(kMagic) + 2 + 2;
// The longest tool version a header may hold.
constexpr size_t kMaxToolVersion = 256;

void PutLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return value;
}

// Wraps `content` in a skippable frame.
std::string SkippableFrame(const std::string& content) {
  std::string frame;
  PutLittleEndian(frame, kSkippableFrameMagic, 4);
  PutLittleEndian(frame, content.size(), 4);
  return frame + content;
}

Error Damaged(const std::string& what) { return Error{"the trace is damaged: " + what}; }

// Where the header's own bytes begin: after a skippable frame's magic and size, or at 0.
std::optional<size_t> HeaderStart(std::string_view bytes) {
  if (bytes.size() >= sizeof(kMagic) && std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0) return 0;
  if (bytes.size() >= kFrameHeader + sizeof(kMagic) && GetLittleEndian(bytes, 0, 4) == kSkippableFrameMagic &&
      std::memcmp(bytes.data() + kFrameHeader, kMagic, sizeof(kMagic)) == 0) {
    return kFrameHeader;
  }
  return std::nullopt;
}

}  // namespace

std::string ContainerHeader(std::string_view tool_version, uint16_t format_version) {
  std::string header(kMagic, sizeof(kMagic));
  PutLittleEndian(header, format_version, 2);
  PutLittleEndian(header, tool_version.size(), 2);
  header += tool_version;
  return format_version >= kFirstFramedFormat ? SkippableFrame(header) : header;
}

std::string ContainerTrailer(uint64_t stream_length, uint64_t file_hash, uint16_t format_version) {
  std::string trailer(kTrailerMagic, sizeof(kTrailerMagic));
  PutLittleEndian(trailer, stream_length, 8);
  PutLittleEndian(trailer, file_hash, 8);
  return format_version >= kFirstFramedFormat ? SkippableFrame(trailer) : trailer;
}

Result<ContainerParts> SplitContainer(std::string_view bytes, const std::string& reader_version) {
  const std::optional<size_t> start = HeaderStart(bytes);
  if (!start) return Error{"not a chess-trace trace (it does not start with the trace magic)"};
  if (bytes.size() < *start + kHeaderFixed) return Damaged("its header is cut short");
  ContainerParts parts;
  parts.format_version = static_cast<uint16_t>(GetLittleEndian(bytes, *start + sizeof(kMagic), 2));
  const size_t tool_length = GetLittleEndian(bytes, *start + sizeof(kMagic) + 2, 2);
  if (tool_length > kMaxToolVersion || *start + kHeaderFixed + tool_length > bytes.size()) {
    return Damaged("its header is cut short");
  }
  parts.tool_version.assign(bytes.data() + *start + kHeaderFixed, tool_length);
  if (parts.format_version > kFormatVersion) {
    return Error{"the trace was produced by chess-trace " + parts.tool_version + " (trace format " +
                 std::to_string(parts.format_version) + "); this is chess-trace " + reader_version +
                 ", which reads format " + std::to_string(kFormatVersion) + " and older: use that version or a newer one"};
  }
  if (parts.format_version == 0) return Damaged("format version 0");
  const bool framed = *start == kFrameHeader;
  if (framed != (parts.format_version >= kFirstFramedFormat)) {
    return Damaged("its header's layout is not format " + std::to_string(parts.format_version) + "'s");
  }
  if (framed && GetLittleEndian(bytes, 4, 4) != kHeaderFixed + tool_length) {
    return Damaged("its header's frame has the wrong size");
  }
  const size_t header = *start + kHeaderFixed + tool_length;
  const size_t trailer_size = (framed ? kFrameHeader : 0) + kTrailerSize;
  if (bytes.size() < header + trailer_size) return Damaged("it is cut short (no trailer)");
  const size_t trailer = bytes.size() - trailer_size;
  const size_t fields = bytes.size() - kTrailerSize;  // the trailer's magic, length and hash
  if (std::memcmp(bytes.data() + fields, kTrailerMagic, sizeof(kTrailerMagic)) != 0 ||
      (framed && (GetLittleEndian(bytes, trailer, 4) != kSkippableFrameMagic ||
                  GetLittleEndian(bytes, trailer + 4, 4) != kTrailerSize))) {
    return Damaged("its trailer is missing: the file was cut short, or the run was killed while writing it");
  }
  parts.stream_length = GetLittleEndian(bytes, fields + 8, 8);
  const uint64_t file_hash = GetLittleEndian(bytes, fields + 16, 8);
  if (Fnv1a64(bytes.data(), trailer) != file_hash) {
    return Damaged("its checksum does not match: a byte changed after it was written");
  }
  parts.frame = bytes.substr(header, trailer - header);
  return parts;
}

std::pair<size_t, size_t> ToolVersionSpan(std::string_view bytes) {
  const std::optional<size_t> start = HeaderStart(bytes);
  if (!start || bytes.size() < *start + kHeaderFixed) return {0, 0};
  const size_t begin = *start + kHeaderFixed;
  return {begin, begin + GetLittleEndian(bytes, *start + sizeof(kMagic) + 2, 2)};
}

size_t TrailerSize(std::string_view bytes) {
  const std::optional<size_t> start = HeaderStart(bytes);
  if (!start) return 0;
  return (*start == kFrameHeader ? kFrameHeader : 0) + kTrailerSize;
}

}  // namespace chess::trace
