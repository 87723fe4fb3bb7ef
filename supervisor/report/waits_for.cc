#include "supervisor/report/waits_for.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "seccomp/hypercall_abi.h"
#include "seccomp/syscall_table.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/report/thread_report.h"

namespace chess::supervisor {
namespace {

// Who could end one thread's wait. `targets` empty: nobody the graph can name (a signal from
// anyone, a futex wake from a thread we cannot tell) — such a wait closes no cycle.
struct Edge {
  std::set<uint32_t> targets;
  std::string words;
};

// Where a lock's futex words are: a mutex's and a spin lock's is its first word; a rwlock's
// are inside its 56 bytes (glibc's pthread_rwlock_t on 64-bit).
bool LockUsesWord(uint64_t object, uint32_t op, uint64_t address) {
  const uint32_t kind = op & CHESS_OP_KIND_MASK;
  if (kind == CHESS_OP_RWLOCK_RDLOCK || kind == CHESS_OP_RWLOCK_WRLOCK) {
    return address >= object && address - object < 56;
  }
  return address == object;
}

std::string PidList(const std::vector<pid_t>& pids) {
  std::string text;
  for (pid_t pid : pids) text += (text.empty() ? "" : ", ") + std::to_string(pid);
  return text;
}

class WaitsForBuilder {
 public:
  WaitsForBuilder(ThreadTable& threads, const FutexTable& futexes, const std::vector<ThreadReport>& reports)
      : threads_(threads), futexes_(futexes) {
    for (const ThreadReport& report : reports) reports_[report.thread] = &report;
    ReadHeldLocks();
  }

  std::optional<Edge> EdgeOf(const Thread& thread) const {
    if (thread.in_vfork) return VforkEdge(thread);
    if (thread.state != ThreadState::kBlocked && thread.state != ThreadState::kExternal) return std::nullopt;
    if (thread.wait && thread.wait->Is<ChildWait>()) return ChildEdge(thread);
    if (!thread.waits_on.empty()) {
      Edge edge{ThreadsOf(thread.waits_on_processes), thread.waits_on};
      return edge;
    }
    if (futexes_.IsWaiting(thread.tid)) return FutexEdge(thread);
    if (thread.wait && thread.wait->Signals()) return SignalEdge(thread);
    return std::nullopt;
  }

 private:
  struct HeldLock {
    uint32_t holder = 0;
    uint64_t space = 0;
    uint64_t object = 0;
    uint32_t op = 0;
  };

  // What the preload shim says each thread holds (nothing without --sync-points auto).
  void ReadHeldLocks() {
    for (const auto& [id, thread] : threads_.Live()) {
      if (thread->shim_state == 0) continue;
      const auto state = RemoteMemory(thread->tid).Read<chess_thread_state>(thread->shim_state);
      if (!state || state->abi_version != CHESS_HC_VERSION) continue;
      const uint32_t listed = std::min<uint32_t>(state->held_count, CHESS_MAX_HELD);
      for (uint32_t i = 0; i < listed; ++i) {
        if (state->held[i].object == 0) continue;
        held_.push_back({id, thread->process->address_space, state->held[i].object, state->held[i].op});
      }
    }
  }

  std::set<uint32_t> ThreadsOf(const std::set<pid_t>& tgids) const {
    std::set<uint32_t> ids;
    for (const auto& [id, thread] : threads_.Live()) {
      if (tgids.count(thread->process->tgid) != 0) ids.insert(id);
    }
    return ids;
  }

  // The live children of the thread's process (only pid `only`, when not 0): their tgids and
  // the pids the program sees.
  std::pair<std::set<pid_t>, std::vector<pid_t>> Children(const Thread& thread, pid_t only) const {
    std::set<pid_t> tgids;
    std::vector<pid_t> pids;
    for (const Process* child : threads_.LiveChildren(thread.process->tgid)) {
      if (only != 0 && child->program_pid != only) continue;
      tgids.insert(child->tgid);
      pids.push_back(child->program_pid);
    }
    return {tgids, pids};
  }

  Edge ChildEdge(const Thread& thread) const {
    const TrappedCall& call = thread.call;
    pid_t only = 0;
    if (call.nr == SYS_wait4 && static_cast<pid_t>(call.args[0]) > 0) only = static_cast<pid_t>(call.args[0]);
    if (call.nr == SYS_waitid && call.args[0] == P_PID) only = static_cast<pid_t>(call.args[1]);
    const auto [children, named] = Children(thread, only);
    std::string words;
    if (only != 0) {
      words = "its child pid " + std::to_string(only) + " to exit";
    } else if (named.size() == 1) {
      words = "its only child, pid " + PidList(named) + ", to exit";
    } else {
      words = "any of its children (pids " + PidList(named) + ") to exit";
    }
    return {ThreadsOf(children), words};
  }

  // A signal wait of a process with children alive waits for their SIGCHLD (a shell's `wait`).
  Edge SignalEdge(const Thread& thread) const {
    const auto [children, named] = Children(thread, 0);
    if (children.empty()) return {{}, "a signal (anyone may send one)"};
    return {ThreadsOf(children), "a signal: SIGCHLD from its child" + std::string(named.size() > 1 ? "ren" : "") +
                                     " (pid " + PidList(named) + ")"};
  }

  Edge VforkEdge(const Thread& thread) const {
    for (const auto& [tgid, process] : threads_.Processes()) {
      if (process->vfork_parent != thread.tid) continue;
      return {ThreadsOf({tgid}), "its vfork child pid " + std::to_string(process->program_pid) + " to exec or exit"};
    }
    return {{}, "a vfork child"};
  }

  static std::string LockName(uint32_t op) {
    switch (op & CHESS_OP_KIND_MASK) {
      case CHESS_OP_MUTEX_LOCK:
      case CHESS_OP_MUTEX_TRYLOCK:
      case CHESS_OP_MUTEX_TIMEDLOCK: return "the mutex";
      case CHESS_OP_RWLOCK_RDLOCK: return "a read lock of the rwlock";
      case CHESS_OP_RWLOCK_WRLOCK: return "the write lock of the rwlock";
      case CHESS_OP_SPIN_LOCK: return "the spin lock";
      default: return "the lock";
    }
  }

  // The variable at `address` of the thread's process, named if its symbols say.
  std::string Name(const Thread& thread, uint64_t address) const {
    return symbolizer_.Process(thread.process->tgid, thread.tid).NameData(address);
  }

  Edge FutexEdge(const Thread& thread) const {
    const uint64_t address = WaitedFutexWord(thread, futexes_).value_or(thread.call.args[0]);
    bool shared = false;
    if (const auto key = futexes_.KeyOf(thread.tid)) shared = key->kind != FutexKey::Kind::kPrivate;
    const uint64_t space = thread.process->address_space;
    auto reachable = [&](const Thread& other) { return shared || other.process->address_space == space; };

    // pthread_join: the kernel clears and wakes the joined thread's tid word when it exits.
    for (const auto& [id, other] : threads_.Live()) {
      if (other != &thread && other->clear_child_tid == address && other->process->address_space == space) {
        return {{id}, "thread " + std::to_string(id) + " to exit (it joins it)"};
      }
    }
    // A condition wait ends when some thread signals the condition variable: any thread may.
    if (auto report = reports_.find(thread.id.value); report != reports_.end() && report->second->condition) {
      const ConditionWait& condition = *report->second->condition;
      return {{}, "a wakeup through the condition variable " + condition.name + ", in " + condition.call};
    }
    // The shim's list of held locks names owners exactly.
    Edge held;
    for (const HeldLock& lock : held_) {
      if (!LockUsesWord(lock.object, lock.op, address)) continue;
      if (!shared && lock.space != space) continue;
      if (held.targets.empty()) held.words = LockName(lock.op) + " " + Name(thread, lock.object) + ", held by thread ";
      held.words += (held.targets.empty() ? "" : ", ") + std::to_string(lock.holder) +
                    (lock.holder == thread.id.value ? " (itself)" : "");
      held.targets.insert(lock.holder);
    }
    if (!held.targets.empty()) return held;
    // Without the shim, the futex word itself may name its owner: a PI lock holds the owner's
    // tid; a glibc mutex keeps it in its __owner field, two words on.
    const RemoteMemory memory(thread.tid);
    const uint32_t cmd = static_cast<uint32_t>(thread.call.args[1]) & FUTEX_CMD_MASK;
    std::optional<int32_t> owner;
    const bool pi = thread.call.nr == SYS_futex && (cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2);
    if (const auto word = memory.Read<uint32_t>(address); word && *word != 0) {
      owner = pi ? static_cast<int32_t>(*word & FUTEX_TID_MASK) : memory.Read<int32_t>(address + 8);
    }
    if (owner && *owner > 0) {
      for (const auto& [id, other] : threads_.Live()) {
        if (other->program_tid == *owner && reachable(*other)) {
          return {{id}, "the mutex " + Name(thread, address) + ", owned by thread " + std::to_string(id) +
                            (other == &thread ? " (itself)" : "")};
        }
      }
      // The owner is gone and the lock with it: nothing will ever unlock it (a robust mutex
      // would have been handed on with EOWNERDEAD). The latest thread with that tid is the one.
      for (auto it = threads_.All().rbegin(); it != threads_.All().rend(); ++it) {
        const Thread& other = *it->second;
        if (other.Alive() || other.program_tid != *owner || !reachable(other)) continue;
        return {{}, "the mutex " + Name(thread, address) + ", held by thread " + std::to_string(it->first) +
                        ", which exited without unlocking it"};
      }
    }
    return {{}, "a wake of futex " + Name(thread, address) + " (no thread is known to own it)"};
  }

  ThreadTable& threads_;
  const FutexTable& futexes_;
  std::map<uint32_t, const ThreadReport*> reports_;
  std::vector<HeldLock> held_;
  mutable Symbolizer symbolizer_;  // reads each process's mappings once, when first needed
};

// The first cycle in the graph (threads in id order, their targets in id order), or nothing.
std::vector<uint32_t> FindCycle(const std::map<uint32_t, Edge>& edges) {
  enum class Color : uint8_t { kNew, kOnPath, kDone };
  std::map<uint32_t, Color> color;
  for (const auto& [start, unused] : edges) {
    if (color[start] != Color::kNew) continue;
    // Iterative depth-first search: the path and, per node on it, the targets still to try.
    std::vector<uint32_t> path{start};
    std::vector<std::vector<uint32_t>> pending;
    auto push_targets = [&](uint32_t node) {
      auto it = edges.find(node);
      std::vector<uint32_t> next;
      if (it != edges.end()) next.assign(it->second.targets.rbegin(), it->second.targets.rend());
      pending.push_back(std::move(next));
    };
    color[start] = Color::kOnPath;
    push_targets(start);
    while (!path.empty()) {
      if (pending.back().empty()) {
        color[path.back()] = Color::kDone;
        path.pop_back();
        pending.pop_back();
        continue;
      }
      const uint32_t next = pending.back().back();
      pending.back().pop_back();
      if (color[next] == Color::kOnPath) {
        auto from = std::find(path.begin(), path.end(), next);
        std::vector<uint32_t> cycle(from, path.end());
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        return cycle;
      }
      if (color[next] == Color::kDone) continue;
      color[next] = Color::kOnPath;
      path.push_back(next);
      push_targets(next);
    }
  }
  return {};
}

// "futex from pthread_mutex_lock ← worker": the call and the first two functions of the stack that
// say more than the call's own wrapper. The C and C++ runtimes' insides are left out: their
// internal functions (__lll_lock_wait, _start; and below the program's frames start_thread,
// __libc_start_main) are not what the program called, and most are named only where the
// runtime's debug information is installed.
std::string WhereBlocked(const std::string& call, const ThreadReport& report) {
  std::string where = call;
  std::string last;
  int named = 0;
  bool in_program = false;
  for (const StackFrame& frame : report.frames) {
    const bool runtime = InRuntime(frame);
    const bool internal = runtime && !frame.function.empty() && (in_program || frame.function.front() == '_');
    // The preload shim's wrapper has the name of the function it wraps.
    if (frame.function.empty() || frame.function == call || frame.function == "__" + call ||
        frame.function == last || internal || frame.function == "_start") {
      continue;
    }
    in_program = in_program || !runtime;
    last = frame.function;
    where += (named == 0 ? " from " : " ← ") + frame.function;
    if (++named == 2) break;
  }
  return where;
}

}  // namespace

std::vector<WaitStep> ExplainWaits(ThreadTable& threads, const FutexTable& futexes,
                                   std::vector<ThreadReport>& reports) {
  const WaitsForBuilder builder(threads, futexes, reports);
  std::map<uint32_t, Edge> edges;
  for (const auto& [id, thread] : threads.Live()) {
    if (auto edge = builder.EdgeOf(*thread)) edges[id] = std::move(*edge);
  }
  for (ThreadReport& report : reports) {
    auto it = edges.find(report.thread);
    if (it == edges.end()) continue;
    report.waits_for = it->second.words;
    report.waits_for_threads.assign(it->second.targets.begin(), it->second.targets.end());
  }
  std::vector<WaitStep> steps;
  const std::vector<uint32_t> cycle = FindCycle(edges);
  for (size_t i = 0; i < cycle.size(); ++i) {
    const Thread* thread = threads.Live().at(cycle[i]);
    WaitStep step;
    step.thread = cycle[i];
    step.pid = thread->process->program_pid;
    const std::string call = thread->in_vfork ? "vfork" : seccomp::SyscallName(thread->call.nr);
    auto report = std::find_if(reports.begin(), reports.end(),
                               [&](const ThreadReport& r) { return r.thread == cycle[i]; });
    step.call = report == reports.end() ? call : WhereBlocked(call, *report);
    step.waits_for = edges.at(cycle[i]).words;
    step.next = cycle[(i + 1) % cycle.size()];
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace chess::supervisor
