// Isolation: the program's tree runs in its own namespaces — pid, uts, ipc, mount, network on
// request, and a user namespace when chess-trace is not root — under a minimal init that is pid
// 1 there. Pids and tids then repeat from run to run (the program is pid 2, its threads and
// children follow in creation order, which the supervisor serializes), `uname` shows a fixed
// hostname, SysV IPC objects are the tree's own, and /proc is remounted to show the tree's pids.
// A network namespace has only loopback, which the init brings up: the tree's ports never
// collide with the machine's or with another run's.
//
// The init spawns each program on request, so one set of namespaces serves every execution of
// a search: between executions it kills what is left, resets ns_last_pid and mounts a new
// /tmp (when the last execution changed it), and each program starts in fresh SysV IPC and UTS namespaces of its own. Creating and
// tearing down namespaces cost more than the rest of a small program's execution.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "search/result.h"

namespace chess::supervisor {

// --isolate as one word: CLONE_NEW* flags in the low 32 bits, kPrivateTmp and kPrivateCwd.
inline constexpr uint64_t kPrivateTmp = uint64_t{1} << 32;  // a fresh tmpfs on /tmp (in a mount namespace)
// The working directory as it was, with each execution's writes in a layer of its own (an
// overlay in the mount namespace; supervisor/private_cwd.h).
inline constexpr uint64_t kPrivateCwd = uint64_t{1} << 33;

// Which namespaces (CLONE_NEW* flags, 0: none), and whether /tmp and the working directory are
// the tree's own.
struct IsolationSpec {
  int namespaces = 0;
  bool private_tmp = false;
  // The working directory, `cwd` (absolute), seen through an overlay whose upper layer is new for
  // each execution: what an execution writes there, the next does not see, nor does anyone else.
  bool private_cwd = false;
  std::string cwd;
  // Directories (or files right in /tmp) that stay visible in a private /tmp, bound to the
  // same place (the working directory, the program's directory, /tmp/a.out itself): a command
  // started in /tmp/work still finds its files.
  std::vector<std::string> kept_in_tmp;
  std::string hostname = "chess-trace";
};
IsolationSpec IsolationFromWord(uint64_t isolation);

// Parses --isolate: "none", or a comma-separated list of pid, uts, ipc, mnt, net, tmp, cwd (tmp
// and cwd imply mnt).
Result<uint64_t> ParseIsolation(const std::string& list);
// "pid,uts,ipc,mnt,net,tmp,cwd" for an --isolate word.
std::string IsolationName(uint64_t isolation);

class IsolatedInit {
 public:
  IsolatedInit() = default;
  IsolatedInit(const IsolatedInit&) = delete;
  IsolatedInit& operator=(const IsolatedInit&) = delete;
  ~IsolatedInit();

  // Creates the namespaces and their init, which will run `program` (it must not return) in
  // each process it spawns: the init is a copy of chess-trace made now, so `program` and all it
  // refers to must be ready. Fails (with the reason) when the kernel refuses, or when the
  // loopback of a new network namespace cannot be brought up.
  Result<void> Start(const IsolationSpec& spec, std::function<void(int go_fd, int error_fd)> program);
  bool Started() const { return init_pid_ > 0; }

  // Has the init spawn a process that runs `program`, with chess-trace's standard descriptors
  // as they are now; it first waits until `go_fd` (the read end of a pipe) gives a byte, and
  // writes its errno to `error_fd` if it cannot execute. Returns its pid as chess-trace sees it.
  Result<pid_t> Spawn(int go_fd, int error_fd);

  // Whether the next execution can use these namespaces again: they include a pid namespace
  // (its init can tell when every process of an execution is gone) and no network namespace
  // (its sockets' TIME_WAIT would outlive an execution).
  bool Reusable() const;
  // Has the init kill every other process of its namespace and waits until none is left,
  // calling `reap` (which must reap the caller's tracees: a traced zombie is the tracer's to
  // collect first) while it waits. False when the init could not empty it; Stop then.
  bool EmptyNamespace(const std::function<void()>& reap);

  // Kills the init, and with it every process of the namespaces; the caller reaps them (the
  // init is its child, the others its tracees).
  void Stop();

  // A fork server's template (supervisor/world/fork_server.h) is about to be forked from the program:
  // it gets a pid out of the way of an execution's, and EmptyNamespace spares it. Fails, saying
  // why, when it must not be made: the private /tmp or working directory is no longer as it was
  // mounted, or the init is gone.
  Result<void> BeginTemplate();
  // …it was made (or not): the next pids are the ones they would have been without it.
  void TemplateMade();
  // …it was killed: EmptyNamespace spares it no longer.
  void TemplateGone();
  // Which set of namespaces this is: a new number each Start, so that what lives in one (a
  // template) can tell when it is gone.
  uint64_t Generation() const { return generation_; }

  pid_t InitPid() const { return init_pid_; }
  int Namespaces() const { return namespaces_; }
  bool PrivateTmp() const { return private_tmp_; }
  bool PrivateCwd() const { return private_cwd_; }
  // The working directory an execution must enter (chdir) to be in its private one; empty
  // without one.
  const std::string& CwdToEnter() const { return cwd_; }

 private:
  void Abandon();  // a failed start: stop and reap the init
  // Sends a one-byte request and waits at most `wait_nanos` for the init's answer, calling
  // `meanwhile` (if any) as it waits: whether the answer was kEmpty.
  bool Ask(char request, int64_t wait_nanos, const std::function<void()>& meanwhile);
  // The same request: the answer's byte (0 when none came).
  char Answer(char request, int64_t wait_nanos, const std::function<void()>& meanwhile);
  // Waits at most `wait_nanos` until the init's answer can be read; false if it did not come.
  bool AwaitAnswer(int64_t wait_nanos, const std::function<void()>& meanwhile);

  pid_t init_pid_ = 0;
  int namespaces_ = 0;
  bool private_tmp_ = false;
  bool private_cwd_ = false;
  std::string cwd_;
  int control_ = -1;  // supervisor's end of a socket pair to the init
  uint64_t generation_ = 0;
};

}  // namespace chess::supervisor
