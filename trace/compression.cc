#include "trace/compression.h"

#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

namespace chess::trace {
namespace {

// Records gather in memory until this much is ready to compress.
constexpr size_t kInputChunk = 64 * 1024;
// Fast, and a run of repeated records still shrinks to almost nothing.
constexpr int kCompressionLevel = 3;

Error ZstdError(const char* what, size_t code) {
  return Error{std::string("zstd: ") + what + ": " + ZSTD_getErrorName(code)};
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

}  // namespace

ZstdFrameWriter::~ZstdFrameWriter() {
  if (context_ != nullptr) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context_));
}

Result<void> ZstdFrameWriter::Open(int fd) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  if (context == nullptr) return Error{"zstd: cannot create a compression context"};
  context_ = context;
  fd_ = fd;
  if (size_t rc = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, kCompressionLevel); ZSTD_isError(rc)) {
    return ZstdError("setting the level", rc);
  }
  if (size_t rc = ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1); ZSTD_isError(rc)) {
    return ZstdError("enabling the frame checksum", rc);
  }
  output_.resize(ZSTD_CStreamOutSize());
  return {};
}

Result<void> ZstdFrameWriter::Write(std::string_view bytes) {
  input_.append(bytes);
  if (input_.size() < kInputChunk) return {};
  return Drain(false);
}

Result<void> ZstdFrameWriter::Finish() { return Drain(true); }

Result<void> ZstdFrameWriter::Drain(bool end) {
  auto* context = static_cast<ZSTD_CCtx*>(context_);
  ZSTD_inBuffer in{input_.data(), input_.size(), 0};
  const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
  for (;;) {
    ZSTD_outBuffer out{output_.data(), output_.size(), 0};
    const size_t remaining = ZSTD_compressStream2(context, &out, &in, mode);
    if (ZSTD_isError(remaining)) return ZstdError("compressing", remaining);
    if (!WriteAll(fd_, output_.data(), out.pos)) return Error{std::string("writing the trace: ") + std::strerror(errno)};
    const bool done = end ? remaining == 0 : in.pos == in.size;
    if (done) break;
  }
  input_.clear();
  return {};
}

Result<std::string> DecompressFrame(std::string_view data, size_t limit, size_t* frame_size) {
  const size_t compressed = ZSTD_findFrameCompressedSize(data.data(), data.size());
  if (ZSTD_isError(compressed)) return Error{std::string("the compressed records are damaged: ") + ZSTD_getErrorName(compressed)};
  ZSTD_DCtx* context = ZSTD_createDCtx();
  if (context == nullptr) return Error{"zstd: cannot create a decompression context"};
  std::string decompressed;
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  ZSTD_inBuffer in{data.data(), compressed, 0};
  for (;;) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    const size_t rc = ZSTD_decompressStream(context, &out, &in);
    if (ZSTD_isError(rc)) {
      ZSTD_freeDCtx(context);
      return Error{std::string("the compressed records are damaged: ") + ZSTD_getErrorName(rc)};
    }
    if (decompressed.size() + out.pos > limit) {
      ZSTD_freeDCtx(context);
      return Error{"the compressed records expand to more than " + std::to_string(limit) + " bytes"};
    }
    decompressed.append(chunk.data(), out.pos);
    if (rc == 0) break;  // the frame is complete (and its checksum checked)
    if (in.pos == in.size && out.pos < out.size) {
      ZSTD_freeDCtx(context);
      return Error{"the compressed records end in the middle of a frame"};
    }
  }
  ZSTD_freeDCtx(context);
  if (in.pos != in.size) return Error{"the compressed records end before their frame does"};
  *frame_size = compressed;
  return decompressed;
}

}  // namespace chess::trace
