// An execution's mount namespace kept after its processes are gone, and work done natively inside
// it: reading the files an execution wrote (--same-output --output-file) and running the user's
// --check command (docs/oracles.md). When the root of a pid namespace exits nothing more can be
// forked into that namespace, but a mount namespace lives as long as a descriptor of it (nsfs)
// does: its private /tmp and the overlay of a private working directory are still there to
// look at. Outside a mount namespace of its own, an execution's files are the machine's, and the
// work is done where chess-trace is.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/result.h"

namespace chess::supervisor {

class KeptMountNamespace {
 public:
  // `pid`'s mount namespace (and its user namespace, which entering the mount namespace needs
  // when it is not chess-trace's own), held open; null when it is chess-trace's own or cannot be
  // opened (then the work is done outside).
  static std::shared_ptr<const KeptMountNamespace> Open(pid_t pid);
  ~KeptMountNamespace();
  KeptMountNamespace(const KeptMountNamespace&) = delete;
  KeptMountNamespace& operator=(const KeptMountNamespace&) = delete;

  // Enters the namespaces: in a forked child only (setns into a user namespace needs a
  // single-threaded caller), before it changes into the working directory. 0 or the errno.
  int Enter() const;

 private:
  KeptMountNamespace(int mount, int user) : mount_(mount), user_(user) {}
  int mount_ = -1;
  int user_ = -1;  // -1: chess-trace's own user namespace
};

// What a piece of work inside the namespace gave back.
struct InsideResult {
  int status = 0;          // its exit status, 128 + the signal that killed it
  std::string output;      // what it wrote to its stdout and stderr, at most `limit` bytes
  bool timed_out = false;  // it ran longer than allowed and was killed
};

// Runs `work` in a forked child that entered `space` (null: chess-trace's own namespaces) and the
// directory `cwd`, with its stdout and stderr a pipe read back and stdin /dev/null, in a process
// group of its own that is killed, whole, when the child ends (not when its output does: what it
// left in the background may hold that) or after `timeout`, and that dies with chess-trace.
// `work` returns the child's exit status (or execs); it must not allocate (chess-trace may have
// other threads). The error says why the child could not get there. When `stop` (checked every
// 20 ms) says so, the child gets SIGTERM, and ten seconds later its group SIGKILL.
Result<InsideResult> RunInside(const KeptMountNamespace* space, const std::string& cwd,
                               const std::function<int()>& work, std::chrono::milliseconds timeout,
                               size_t limit = size_t{1} << 20, const std::function<bool()>& stop = {});

// `/bin/sh -c command` inside, as RunInside does it, with `env` as its environment.
Result<InsideResult> RunCommandInside(const KeptMountNamespace* space, const std::string& cwd,
                                      const std::string& command, const std::vector<std::string>& env,
                                      std::chrono::milliseconds timeout, const std::function<bool()>& stop = {});

// The contents of each of `paths` (relative ones from `cwd`) as the namespace sees them; an
// empty optional for a file that is not there or cannot be read. At most `limit` bytes each.
Result<std::vector<std::optional<std::string>>> ReadFilesInside(const KeptMountNamespace* space,
                                                                 const std::string& cwd,
                                                                 const std::vector<std::string>& paths,
                                                                 size_t limit);

}  // namespace chess::supervisor
