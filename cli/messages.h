// Messages: where chess-trace's own words go — stderr, or --log FILE. Never the program's stdout.
#pragma once

#include <cstdio>
#include <string>

#include "search/result.h"

namespace chess::cli {

class Messages {
 public:
  ~Messages();
  // Sends every later message to `path` (appending).
  Result<void> OpenLog(const std::string& path);
  void Say(const std::string& text);  // one line, prefixed "chess-trace: "
  void Raw(const std::string& text);  // verbatim

 private:
  FILE* out_ = stderr;
};

}  // namespace chess::cli
