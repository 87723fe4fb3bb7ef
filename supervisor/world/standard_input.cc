#include "supervisor/world/standard_input.h"
#include "supervisor/world/whole_io.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace chess::supervisor {
namespace {

std::string Mebibytes(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// Puts `fd` on 0 and closes the original.
Result<void> MoveToStandardInput(int fd) {
  if (fd != 0) {
    const bool moved = dup2(fd, 0) == 0;  // the copy is inherited: dup2 clears close-on-exec
    const int saved = errno;
    close(fd);
    if (!moved) return Error{std::string("cannot replace standard input: ") + std::strerror(saved)};
  }
  return {};
}

Result<void> ProvideFile(const std::string& bytes) {
  const int fd = memfd_create("stdin", MFD_CLOEXEC);
  if (fd < 0) return Error{std::string("cannot create standard input: memfd_create: ") + std::strerror(errno)};
  if (!WriteWhole(fd, bytes) || lseek(fd, 0, SEEK_SET) != 0) {
    const int saved = errno;
    close(fd);
    return Error{std::string("cannot fill standard input: ") + std::strerror(saved)};
  }
  return MoveToStandardInput(fd);
}

}  // namespace

Result<CapturedInput> CaptureStandardInput(size_t limit) {
  CapturedInput input;
  if (fcntl(0, F_GETFD) < 0) {
    input.kind = CapturedInput::Kind::kClosed;
    return input;
  }
  struct stat st{};
  if (fstat(0, &st) != 0) return Error{std::string("cannot look at standard input: ") + std::strerror(errno)};
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return input;  // a terminal, /dev/null: kInherited
  input.kind = S_ISREG(st.st_mode) ? CapturedInput::Kind::kFile : CapturedInput::Kind::kPipe;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(0, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // Non-blocking descriptors (an inherited O_NONBLOCK pipe) and sockets in odd states.
      if (errno == EAGAIN) {
        pollfd readable{0, POLLIN, 0};
        poll(&readable, 1, -1);
        continue;
      }
      return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
    }
    if (n == 0) break;
    if (input.bytes.size() + static_cast<size_t>(n) > limit) {
      return Error{"standard input holds more than " + std::to_string(limit >> 20) + " MiB" +
                   "; chess-trace reads it whole, when it is not a terminal, to give every execution "
                   "and every replay the same bytes. Let the program open the file itself instead"};
    }
    input.bytes.append(buffer, static_cast<size_t>(n));
  }
  return input;
}

Result<void> ProvideStandardInput(const CapturedInput& input, std::string* notice) {
  switch (input.kind) {
    case CapturedInput::Kind::kInherited:
    case CapturedInput::Kind::kClosed:
      return {};
    case CapturedInput::Kind::kFile:
      return ProvideFile(input.bytes);
    case CapturedInput::Kind::kPipe:
      break;
  }
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return Error{std::string("cannot create standard input: pipe: ") + std::strerror(errno)};
  // All the bytes are in the pipe before the program starts, so what each read returns never
  // depends on timing. A pipe that cannot be made big enough falls back to a file.
  const int capacity = fcntl(ends[1], F_GETPIPE_SZ);
  if (capacity < 0 || input.bytes.size() > static_cast<size_t>(capacity)) {
    if (input.bytes.size() > (size_t{1} << 31) || fcntl(ends[1], F_SETPIPE_SZ, static_cast<int>(input.bytes.size())) < 0) {
      close(ends[0]);
      close(ends[1]);
      if (notice != nullptr) {
        *notice = "standard input (" + Mebibytes(input.bytes.size()) +
                  ") is more than a pipe can hold here (see /proc/sys/fs/pipe-max-size); the program reads it from a "
                  "file instead, which holds the same bytes";
      }
      return ProvideFile(input.bytes);
    }
  }
  fcntl(ends[1], F_SETFL, O_NONBLOCK);
  const bool written = WriteWhole(ends[1], input.bytes);
  const int saved = errno;
  close(ends[1]);
  if (!written) {
    close(ends[0]);
    return Error{std::string("cannot fill standard input: ") + std::strerror(saved)};
  }
  return MoveToStandardInput(ends[0]);
}

}  // namespace chess::supervisor
