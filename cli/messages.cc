#include "cli/messages.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace chess::cli {

Messages::Messages() {
  const int copy = fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (copy >= 0) {
    own_ = fdopen(copy, "w");
    if (own_ != nullptr) {
      out_ = own_;
    } else {
      close(copy);
    }
  }
}

Messages::~Messages() {
  if (own_ != nullptr) fclose(own_);
}

Result<void> Messages::OpenLog(const std::string& path) {
  FILE* file = fopen(path.c_str(), "ae");
  if (file == nullptr) return Error{"--log " + path + ": " + std::strerror(errno)};
  if (own_ != nullptr) fclose(own_);
  own_ = file;
  out_ = file;
  return {};
}

bool Messages::UseLog(const std::string& path) {
  if (path.empty()) return true;
  auto opened = OpenLog(path);
  if (!opened) Say(opened.error());
  return opened.ok();
}

void Messages::Say(const std::string& text) { Raw("chess-trace: " + text + "\n"); }

void Messages::Raw(const std::string& text) {
  ClearLive();
  fwrite(text.data(), 1, text.size(), out_);
  fflush(out_);
}

bool Messages::ToTerminal() const { return isatty(fileno(out_)) == 1; }

void Messages::Live(const std::string& text) {
  if (!ToTerminal()) return;
  const std::string line = "\r\033[K" + text;
  fwrite(line.data(), 1, line.size(), out_);
  fflush(out_);
  live_shown_ = true;
}

void Messages::ClearLive() {
  if (!live_shown_) return;
  live_shown_ = false;
  fputs("\r\033[K", out_);
  fflush(out_);
}

}  // namespace chess::cli
