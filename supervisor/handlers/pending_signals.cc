#include "supervisor/handlers/pending_signals.h"

#include <poll.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "supervisor/fd_probe.h"

namespace chess::supervisor {
namespace {

constexpr uint64_t Bit(int signal) { return uint64_t{1} << (signal - 1); }

// Signals whose default action is to do nothing: without a handler they never wake anyone.
constexpr uint64_t kIgnoredByDefault = Bit(SIGCHLD) | Bit(SIGCONT) | Bit(SIGURG) | Bit(SIGWINCH);

}  // namespace

uint64_t SignalMasks::Waking(uint64_t pending, const SignalWait* wait) const {
  const uint64_t mask = wait && wait->mask ? *wait->mask : blocked;
  const uint64_t discarded = ignored | (kIgnoredByDefault & ~caught);
  const uint64_t awaited = wait ? wait->awaited : 0;
  return (pending & ~mask & ~discarded) | (pending & awaited);
}

std::optional<SignalMasks> ReadSignalMasks(pid_t tid) {
  const std::string path = "/proc/" + std::to_string(tid) + "/status";
  FILE* status = std::fopen(path.c_str(), "re");
  if (status == nullptr) return std::nullopt;
  SignalMasks masks;
  struct Field {
    const char* format;
    uint64_t* value;
  };
  const Field fields[] = {{"SigPnd: %llx", &masks.thread_pending}, {"ShdPnd: %llx", &masks.process_pending},
                          {"SigBlk: %llx", &masks.blocked},       {"SigIgn: %llx", &masks.ignored},
                          {"SigCgt: %llx", &masks.caught}};
  size_t found = 0;
  char line[256];
  while (found < std::size(fields) && std::fgets(line, sizeof(line), status) != nullptr) {
    for (const Field& field : fields) {
      unsigned long long value = 0;
      if (std::sscanf(line, field.format, &value) == 1) {
        *field.value = value;
        ++found;
        break;
      }
    }
  }
  std::fclose(status);
  if (found < std::size(fields)) return std::nullopt;
  return masks;
}

std::optional<uint64_t> SignalfdMask(pid_t tgid, int fd) {
  if (FdTarget(tgid, fd) != "anon_inode:[signalfd]") return std::nullopt;
  const std::string path = "/proc/" + std::to_string(tgid) + "/fdinfo/" + std::to_string(fd);
  FILE* info = std::fopen(path.c_str(), "re");
  if (info == nullptr) return std::nullopt;
  std::optional<uint64_t> mask;
  char line[256];
  while (!mask && std::fgets(line, sizeof(line), info) != nullptr) {
    unsigned long long value = 0;
    if (std::sscanf(line, "sigmask: %llx", &value) == 1) mask = value;
  }
  std::fclose(info);
  return mask;
}

uint64_t SignalfdSignals(pid_t tgid, const IoWait& wait) {
  uint64_t watched = 0;
  for (const FdInterest& interest : wait.fds) {
    if ((interest.events & POLLIN) == 0) continue;
    if (auto signals = SignalfdMask(tgid, interest.fd)) watched |= *signals;
  }
  return watched;
}

uint64_t PendingOf(pid_t tid, uint64_t signals) {
  const std::optional<SignalMasks> masks = ReadSignalMasks(tid);
  return masks ? (masks->thread_pending | masks->process_pending) & signals : 0;
}

bool EndsProcess(pid_t tid, int signal) {
  // Signals whose default action ends the process, when the process neither catches nor
  // ignores them (SIGKILL is never seen here: the kernel does not stop for it).
  const uint64_t bit = uint64_t{1} << (signal - 1);
  constexpr uint64_t kNotFatal = (uint64_t{1} << (SIGCHLD - 1)) | (uint64_t{1} << (SIGCONT - 1)) |
                                 (uint64_t{1} << (SIGURG - 1)) | (uint64_t{1} << (SIGWINCH - 1)) |
                                 (uint64_t{1} << (SIGSTOP - 1)) | (uint64_t{1} << (SIGTSTP - 1)) |
                                 (uint64_t{1} << (SIGTTIN - 1)) | (uint64_t{1} << (SIGTTOU - 1));
  if (signal <= 0 || signal > 64 || (bit & kNotFatal) != 0) return false;
  const auto masks = ReadSignalMasks(tid);
  return masks && (masks->caught & bit) == 0 && (masks->ignored & bit) == 0;
}

bool RecursAsFault(int signal, int si_code) {
  // si_code <= 0 is a signal someone sent (SI_USER, SI_TKILL, SI_QUEUE…), which does not recur.
  const bool fault_signal = signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE;
  return fault_signal && si_code > 0;
}

}  // namespace chess::supervisor
