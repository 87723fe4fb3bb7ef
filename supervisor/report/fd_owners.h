// Who could make a waiting thread's descriptor ready. When no thread of the tree can run, a
// reader of a pipe whose write end only the tree holds waits for nobody — a deadlock — while a
// reader of a terminal, or of a pipe a process outside the tree can write, waits for the outside
// world. The answer comes from /proc (who holds which end of which pipe) and, for Unix sockets,
// from the kernel's socket diagnostics (which socket is whose peer).
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "supervisor/thread_table.h"

namespace chess::supervisor {

// Every process's descriptors on the machine, as /proc shows them: "pipe:[1234]" → holders.
class DescriptorIndex {
 public:
  struct Holder {
    pid_t pid;
    int fd;
  };

  // One pass over /proc/*/fd (processes that vanish meanwhile are skipped).
  void Scan();
  // The holders of `file` that can use it with `access` (O_RDONLY or O_WRONLY; O_RDWR holders
  // can do both), or every holder when `access` is -1.
  std::vector<Holder> HoldersOf(const std::string& file, int access = -1) const;

 private:
  std::map<std::string, std::vector<Holder>> holders_;
};

// The live processes of the traced tree: chess-trace's pid → the pid the program sees.
using TreePids = std::map<pid_t, pid_t>;

// What a blocked thread's wait on descriptors depends on.
struct WakerVerdict {
  bool outside = true;      // something outside the tree could end the wait
  std::string explanation;  // "pipe:[1234], its write end held by pids 12, 13"
  std::set<pid_t> tree_wakers;  // the tree's processes (chess-trace's pids) that could end it
};

// What the tree has of its own, which the outside world cannot reach.
struct TreeScope {
  bool virtual_timers = false;  // a timerfd is the supervisor's to fire
  bool private_tmp = false;     // a Unix socket bound under /tmp only the tree can connect to
  bool private_net = false;     // nor one with an abstract name
};

// For a thread waiting on `wait`: could anything outside `tree` end it? Explanations name the
// tree's processes by the pids the program sees. Unknown kinds of descriptors count as outside,
// so a wait is never called a deadlock on a guess.
WakerVerdict WhoCanEnd(pid_t tgid, const IoWait& wait, const DescriptorIndex& index, const TreePids& tree,
                       const TreeScope& scope);

// For a thread waiting for a lock on `fd` (flock, fcntl): could anything outside `tree` release
// it? The holders come from /proc/locks; a lock whose holder it does not name (an OFD lock)
// counts as outside.
WakerVerdict WhoCanUnlock(pid_t tgid, int fd, const TreePids& tree);

}  // namespace chess::supervisor
