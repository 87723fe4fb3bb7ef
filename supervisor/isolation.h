// Isolation: the program's tree runs in its own namespaces — pid, uts, ipc, mount, and a user
// namespace when chess-trace is not root — under a minimal init that is pid 1 there. Pids and
// tids then repeat from run to run (the program is pid 2, its threads and children follow in
// creation order, which the supervisor serializes), `uname` shows a fixed hostname, SysV IPC
// objects are the tree's own, and /proc is remounted to show the tree's pids.
//
// The init forks each program on request, so one set of namespaces can serve many executions
// (a search resets ns_last_pid between them instead of paying for new namespaces).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "search/result.h"

namespace chess::supervisor {

// Which namespaces (CLONE_NEW* flags); 0: none.
struct IsolationSpec {
  int namespaces = 0;
  std::string hostname = "chess-trace";
};

// Parses --isolate: "none", or a comma-separated list of pid, uts, ipc, mnt.
Result<int> ParseIsolation(const std::string& list);
// "pid,uts,ipc,mnt" for a set of flags.
std::string IsolationName(int namespaces);

class IsolatedInit {
 public:
  IsolatedInit() = default;
  IsolatedInit(const IsolatedInit&) = delete;
  IsolatedInit& operator=(const IsolatedInit&) = delete;
  ~IsolatedInit();

  // Creates the namespaces and their init, which will run `program` (it must not return) in
  // each process it spawns: the init is a copy of chess-trace made now, so `program` and all it
  // refers to must be ready. Fails (with the reason) when the kernel refuses.
  Result<void> Start(const IsolationSpec& spec, std::function<void(int go_fd, int error_fd)> program);
  bool Started() const { return init_pid_ > 0; }

  // Has the init fork a process that runs `program`; it first waits until `go_fd` (the read
  // end of a pipe) gives a byte, and writes its errno to `error_fd` if it cannot execute.
  // Returns its pid as chess-trace sees it.
  Result<pid_t> Spawn(int go_fd, int error_fd);

  // Kills the init, and with it every process of the namespaces; the caller reaps them (the
  // init is its child, the others its tracees).
  void Stop();

  pid_t InitPid() const { return init_pid_; }
  int Namespaces() const { return namespaces_; }

 private:
  void Abandon();  // a failed start: stop and reap the init

  pid_t init_pid_ = 0;
  int namespaces_ = 0;
  int control_ = -1;  // supervisor's end of a socket pair to the init
};

}  // namespace chess::supervisor
