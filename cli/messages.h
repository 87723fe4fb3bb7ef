// Messages: where chess-trace's own words go — stderr, or --log FILE. Never the program's stdout.
#pragma once

#include <cstdio>
#include <string>

#include "search/result.h"

namespace chess::cli {

class Messages {
 public:
  // Writes to a copy of fd 2 made now, so that messages still reach the terminal while the
  // program's output is captured (supervisor/world/output_capture.h points fd 2 elsewhere then).
  Messages();
  ~Messages();
  // Sends every later message to `path` (appending).
  Result<void> OpenLog(const std::string& path);
  // OpenLog for a --log option that may be empty; on failure says why and returns false.
  bool UseLog(const std::string& path);
  void Say(const std::string& text);  // one line, prefixed "chess-trace: "
  void Raw(const std::string& text);  // verbatim
  // A line that stays at the bottom of a terminal and is redrawn in place (progress); Say and
  // Raw clear it first. Nothing when the messages do not go to a terminal.
  void Live(const std::string& text);
  void ClearLive();
  bool ToTerminal() const;

 private:
  FILE* out_ = stderr;
  FILE* own_ = nullptr;  // the copy of stderr, or the log
  bool live_shown_ = false;
};

}  // namespace chess::cli
