// zstd framing of the record stream: the only code that includes <zstd.h>.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "search/result.h"

namespace chess::trace {

// Compresses a stream of bytes into one zstd frame written to a file descriptor as it goes:
// memory stays bounded however long the stream is.
class ZstdFrameWriter {
 public:
  ZstdFrameWriter() = default;
  ZstdFrameWriter(const ZstdFrameWriter&) = delete;
  ZstdFrameWriter& operator=(const ZstdFrameWriter&) = delete;
  ~ZstdFrameWriter();

  Result<void> Open(int fd);
  Result<void> Write(std::string_view bytes);
  // Ends the frame; nothing may be written after.
  Result<void> Finish();

 private:
  Result<void> Drain(bool end);

  void* context_ = nullptr;
  int fd_ = -1;
  std::string input_;
  std::string output_;
};

// Decompresses the zstd frame at the start of `data`. Fails on anything that is not one whole
// valid frame, or that would decompress to more than `limit` bytes. `*frame_size` is how many
// bytes of `data` the frame took.
Result<std::string> DecompressFrame(std::string_view data, size_t limit, size_t* frame_size);

}  // namespace chess::trace
