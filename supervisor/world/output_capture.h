// What the program writes to stdout and stderr in one execution, kept instead of shown: for a
// command that runs the program many times (--check-determinism, a search) and shows one
// execution's output, or none. chess-trace's own fds 1 and 2, which the program inherits, point
// at anonymous files while it runs. chess-trace's own messages must not use fd 2 meanwhile
// (cli/messages.h writes to a copy of it).
#pragma once

#include <string>

#include "search/result.h"

namespace chess::supervisor {

// The names the capture files have (a program that looks at its stdout sees /memfd:NAME).
inline constexpr const char* kCapturedStdout = "chess-trace-captured-stdout";
inline constexpr const char* kCapturedStderr = "chess-trace-captured-stderr";

struct CapturedOutput {
  std::string out;
  std::string err;
};

class OutputCapture {
 public:
  OutputCapture() = default;
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;
  ~OutputCapture();  // puts fds 1 and 2 back if End was not called

  Result<void> Begin();
  // Puts fds 1 and 2 back and returns what was written (at most `limit` bytes of each).
  CapturedOutput End(size_t limit = size_t{64} << 20);
  // Returns what was written and empties the files, which stay fds 1 and 2: one capture serves
  // every execution of a search (its executions forked from a template write to the files the
  // template has).
  CapturedOutput Take(size_t limit = size_t{64} << 20);
  bool Active() const { return files_[0] >= 0 || files_[1] >= 0; }

 private:
  int saved_[2] = {-1, -1};
  int files_[2] = {-1, -1};
};

}  // namespace chess::supervisor
