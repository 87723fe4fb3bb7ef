#include "supervisor/pending_signals.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace chess::supervisor {

std::optional<SignalMasks> ReadSignalMasks(pid_t tid) {
  const std::string path = "/proc/" + std::to_string(tid) + "/status";
  FILE* status = std::fopen(path.c_str(), "re");
  if (status == nullptr) return std::nullopt;
  SignalMasks masks;
  int found = 0;
  char line[256];
  while (found < 3 && std::fgets(line, sizeof(line), status) != nullptr) {
    unsigned long long value = 0;
    if (std::sscanf(line, "SigPnd: %llx", &value) == 1) {
      masks.thread_pending = value;
      ++found;
    } else if (std::sscanf(line, "ShdPnd: %llx", &value) == 1) {
      masks.process_pending = value;
      ++found;
    } else if (std::sscanf(line, "SigBlk: %llx", &value) == 1) {
      masks.blocked = value;
      ++found;
    }
  }
  std::fclose(status);
  if (found < 3) return std::nullopt;
  return masks;
}

}  // namespace chess::supervisor
