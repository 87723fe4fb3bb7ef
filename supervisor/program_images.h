// What the search could see of each program a tree ran. A scheduling point between two sync
// operations exists only where the preload shim announces them (pthread and C11 calls of a
// dynamically linked program); a program whose threads synchronize some other way — Rust's
// std::sync, Go's runtime, C11 atomics, lock-free code, a statically linked libc — runs from one
// trapped syscall to the next, and a bug between its uncontended operations is out of the
// search's sight. The report must say so rather than claim a coverage it did not have.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace chess::supervisor {

// How an executable is linked, as far as the preload shim cares.
enum class Linking : uint8_t {
  kDynamic,  // has an ELF interpreter: LD_PRELOAD applies
  kStatic,   // an ELF without one (static, static-pie): nothing can be preloaded into it
  kUnknown,  // not readable as an ELF
};

struct ProgramImage {
  std::string path;            // /proc/PID/exe at its exec
  Linking linking = Linking::kUnknown;
  bool multithreaded = false;  // one of its processes ran a second thread
  uint64_t sync_ops = 0;       // sync operations its processes announced through the shim
  // Scheduling decisions that had a choice (two threads or more could run) where one of its
  // threads stopped: where it multiplies the schedules.
  uint64_t decisions = 0;
  uint64_t replaced = 0;       // times one of its processes exec'd another program (a wrapper)

  bool operator==(const ProgramImage&) const = default;
};

// The images of one execution, in the order first exec'd; a process refers to its own by index.
class ProgramImages {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // Thread `tid` has just exec'd (it is stopped at its exec event): its image's index.
  size_t Exec(pid_t tid);
  void SyncOp(size_t image) {
    if (image < images_.size()) ++images_[image].sync_ops;
  }
  void SecondThread(size_t image) {
    if (image < images_.size()) images_[image].multithreaded = true;
  }
  void Choice(size_t image) {
    if (image < images_.size()) ++images_[image].decisions;
  }
  void Replaced(size_t image) {
    if (image < images_.size()) ++images_[image].replaced;
  }
  // Whether a process whose exec'd file is called `comm` (/proc/PID/comm: the basename of the
  // path given to execve, a script's own name included, cut at 15 bytes) and that runs `image`
  // is one of `names` (--focus): either name matches.
  bool Matches(size_t image, const std::string& comm, const std::vector<std::string>& names) const;
  const std::vector<ProgramImage>& All() const { return images_; }

 private:
  std::vector<ProgramImage> images_;
  std::map<std::string, size_t> by_path_;
};

// /proc/TID/comm without its newline: the name of the file the thread's process last exec'd.
std::string ProcessComm(pid_t tid);

// Reads the ELF header and program headers of `path` (/proc/PID/exe: the file itself, whatever
// mount namespace the process is in), cached by device, inode and mtime for the life of
// chess-trace: a search execs the same program thousands of times.
Linking LinkingOf(const std::string& path);

}  // namespace chess::supervisor
