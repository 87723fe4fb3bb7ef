#include "supervisor/world/output_capture.h"

#include "supervisor/invariant.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace chess::supervisor {
namespace {

std::string ReadAll(int fd, size_t limit) {
  std::string text;
  char buffer[1 << 16];
  off_t at = 0;
  while (text.size() < limit) {
    const ssize_t n = pread(fd, buffer, sizeof(buffer), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(std::min<size_t>(static_cast<size_t>(n), limit - text.size())));
    at += n;
  }
  return text;
}

}  // namespace

OutputCapture::~OutputCapture() {
  if (saved_[0] >= 0 || saved_[1] >= 0) (void)End(0);
}

Result<void> OutputCapture::Begin() {
  for (int stream = 0; stream < 2; ++stream) {
    const int target = stream + 1;
    files_[stream] = memfd_create(stream == 0 ? kCapturedStdout : kCapturedStderr, MFD_CLOEXEC);
    saved_[stream] = fcntl(target, F_DUPFD_CLOEXEC, 3);  // -1 when it was closed: stays closed after
    if (files_[stream] < 0 || dup2(files_[stream], target) != target) {
      const std::string reason = std::strerror(errno);
      (void)End(0);
      return Error{"cannot capture the program's output: " + reason};
    }
  }
  SetDiagnosticDescriptor(saved_[1]);
  return {};
}

CapturedOutput OutputCapture::End(size_t limit) {
  SetDiagnosticDescriptor(STDERR_FILENO);
  CapturedOutput output;
  for (int stream = 0; stream < 2; ++stream) {
    const int target = stream + 1;
    if (saved_[stream] >= 0) {
      dup2(saved_[stream], target);
      close(saved_[stream]);
    } else if (files_[stream] >= 0) {
      close(target);
    }
    saved_[stream] = -1;
    if (files_[stream] >= 0) {
      (stream == 0 ? output.out : output.err) = ReadAll(files_[stream], limit);
      close(files_[stream]);
      files_[stream] = -1;
    }
  }
  return output;
}

CapturedOutput OutputCapture::Take(size_t limit) {
  CapturedOutput output;
  for (int stream = 0; stream < 2; ++stream) {
    if (files_[stream] < 0) continue;
    (stream == 0 ? output.out : output.err) = ReadAll(files_[stream], limit);
    // fd 1 or 2 is the same open file: its offset goes back to the start too.
    (void)!ftruncate(files_[stream], 0);
    lseek(files_[stream], 0, SEEK_SET);
  }
  return output;
}

}  // namespace chess::supervisor
