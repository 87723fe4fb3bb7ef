#include "cli/messages.h"

#include <cerrno>
#include <cstring>

namespace chess::cli {

Messages::~Messages() {
  if (out_ != stderr) fclose(out_);
}

Result<void> Messages::OpenLog(const std::string& path) {
  FILE* file = fopen(path.c_str(), "ae");
  if (file == nullptr) return Error{"--log " + path + ": " + std::strerror(errno)};
  out_ = file;
  return {};
}

void Messages::Say(const std::string& text) { Raw("chess-trace: " + text + "\n"); }

void Messages::Raw(const std::string& text) {
  fwrite(text.data(), 1, text.size(), out_);
  fflush(out_);
}

}  // namespace chess::cli
