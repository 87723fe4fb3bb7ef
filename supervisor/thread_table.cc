#include "supervisor/thread_table.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace chess::supervisor {

bool Process::TakeTimerSignal(siginfo_t& info) {
  if (info.si_code != SI_TIMER) return false;
  auto it = posix_timers.find(info.si_timerid);
  if (it == posix_timers.end()) return false;
  VirtualTimer& timer = it->second;
  info.si_overrun = timer.overrun;
  timer.delivered_overrun = timer.overrun;
  timer.overrun = 0;
  return true;
}

const char* ThreadStateName(ThreadState state) {
  switch (state) {
    case ThreadState::kRunning: return "running";
    case ThreadState::kReady: return "ready";
    case ThreadState::kBlocked: return "blocked";
    case ThreadState::kExternal: return "waiting-external";
    case ThreadState::kStopped: return "stopped";
    case ThreadState::kExiting: return "exiting";
    case ThreadState::kDead: return "exited";
  }
  return "unknown";
}

const char* ParkedAtName(ParkedCall::At at) {
  switch (at) {
    case ParkedCall::At::kNone: return "none";
    case ParkedCall::At::kEntryPutOff: return "entry-put-off";
    case ParkedCall::At::kEntry: return "at-entry";
    case ParkedCall::At::kOperationPending: return "op-pending";
    case ParkedCall::At::kInside: return "inside";
    case ParkedCall::At::kInsideObserved: return "inside-observed";
    case ParkedCall::At::kExit: return "at-exit";
    case ParkedCall::At::kReentering: return "reentering";
    case ParkedCall::At::kAsleepInside: return "asleep-inside";
  }
  return "unknown";
}

std::optional<SignalWait> Wait::Signals() const {
  if (const auto* signals = std::get_if<SignalWait>(&on)) return *signals;
  if (const IoWait* io = Io(); io != nullptr && io->signal_mask) return SignalWait{io->signal_mask, 0};
  return std::nullopt;
}

std::optional<char> KernelState(pid_t tid) {
  std::ifstream stat("/proc/" + std::to_string(tid) + "/stat");
  std::string content;
  if (!std::getline(stat, content)) return std::nullopt;
  const size_t paren = content.rfind(')');  // the command name may contain anything
  if (paren == std::string::npos || paren + 2 >= content.size()) return std::nullopt;
  return content[paren + 2];
}

bool AsleepInKernel(pid_t tid) {
  const std::optional<char> state = KernelState(tid);
  return state == 'S' || state == 'D';
}

// The NSpid line of /proc/TID/status: the task's id in each pid namespace from chess-trace's
// down to its own (empty when it cannot be read).
std::vector<pid_t> NamespaceIds(pid_t tid) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  std::vector<pid_t> found;
  while (std::getline(status, line)) {
    if (line.rfind("NSpid:", 0) != 0) continue;
    std::istringstream ids(line.substr(6));
    for (pid_t id = 0; ids >> id;) found.push_back(id);
    break;
  }
  return found;
}

// Under isolation: the ids from the program's pid namespace down (without chess-trace's).
std::vector<pid_t> ProgramIds(pid_t tid) {
  std::vector<pid_t> ids = NamespaceIds(tid);
  if (ids.size() >= 2) ids.erase(ids.begin());
  return ids.empty() ? std::vector<pid_t>{tid} : ids;
}

bool IsPidNamespaceInit(pid_t tgid) {
  const std::vector<pid_t> ids = NamespaceIds(tgid);
  return ids.size() > 1 && ids.back() == 1;
}

// Its id in `level` (1: the root process's pid namespace), or 0.
pid_t IdAtLevel(const std::vector<pid_t>& ids, size_t level) {
  return level >= 1 && ids.size() >= level ? ids[level - 1] : 0;
}

pid_t PidSeenBy(const Process& viewer, const Process& target) {
  return IdAtLevel(target.ns_pids, viewer.ns_pids.size());
}

Process& ThreadTable::AddProcess(pid_t tgid, uint64_t address_space, std::optional<pid_t> program_pid) {
  auto& slot = processes_[tgid];
  slot = std::make_unique<Process>();
  slot->tgid = tgid;
  slot->ns_pids = !translate_ids_ ? std::vector<pid_t>{tgid}
                  : program_pid   ? std::vector<pid_t>{*program_pid}
                                  : ProgramIds(tgid);
  slot->program_pid = slot->ns_pids.back();
  nested_pid_namespaces_ = nested_pid_namespaces_ || slot->ns_pids.size() > 1;
  slot->address_space = address_space;
  return *slot;
}

Thread& ThreadTable::AddThread(pid_t tid, Process& process) {
  auto thread = std::make_unique<Thread>();
  thread->id = search::ThreadId{next_id_++};
  thread->tid = tid;
  thread->ns_tids = !translate_ids_ ? std::vector<pid_t>{tid} : tid == process.tgid ? process.ns_pids : ProgramIds(tid);
  thread->program_tid = thread->ns_tids.back();
  nested_pid_namespaces_ = nested_pid_namespaces_ || thread->ns_tids.size() > 1;
  thread->process = &process;
  Thread& ref = *thread;
  by_tid_[tid] = &ref;
  by_program_tid_[ref.program_tid] = &ref;
  live_[ref.id.value] = &ref;
  by_id_[ref.id.value] = std::move(thread);
  return ref;
}

Thread* ThreadTable::Find(pid_t tid) {
  auto it = by_tid_.find(tid);
  return it == by_tid_.end() ? nullptr : it->second;
}

Thread* ThreadTable::Find(search::ThreadId id) {
  auto it = by_id_.find(id.value);
  return it == by_id_.end() ? nullptr : it->second.get();
}

Process* ThreadTable::FindProcess(pid_t tgid) {
  auto it = processes_.find(tgid);
  return it == processes_.end() ? nullptr : it->second.get();
}

Thread* ThreadTable::FindByProgramTid(pid_t tid, const Process* viewer) {
  if (viewer != nullptr && nested_pid_namespaces_) {
    // Ids repeat from one namespace to the next: only the viewer's level names one.
    for (const auto& [host_tid, thread] : by_tid_) {
      if (IdAtLevel(thread->ns_tids, viewer->ns_pids.size()) == tid) return thread;
    }
    return nullptr;
  }
  auto it = by_program_tid_.find(tid);
  return it == by_program_tid_.end() ? nullptr : it->second;
}

Process* ThreadTable::FindByProgramPid(pid_t pid, const Process* viewer) {
  if (viewer != nullptr && nested_pid_namespaces_) {
    for (const auto& [tgid, process] : processes_) {
      if (PidSeenBy(*viewer, *process) == pid) return process.get();
    }
    return nullptr;
  }
  Thread* leader = FindByProgramTid(pid);
  if (leader != nullptr && leader->program_tid == leader->process->program_pid) return leader->process;
  for (const auto& [tgid, process] : processes_) {
    if (process->program_pid == pid) return process.get();
  }
  return nullptr;
}

void ThreadTable::RenameAfterExec(Thread& thread, pid_t leader_tid) {
  for (auto& [id, other] : by_id_) {
    if (other.get() != &thread && other->process == thread.process &&
        other->state != ThreadState::kDead) {
      other->state = ThreadState::kDead;
      live_.erase(other->id.value);
      kernel_sleepers_.erase(other->id.value);
      if (by_tid_[other->tid] == other.get()) by_tid_.erase(other->tid);
    }
  }
  by_tid_.erase(thread.tid);
  if (by_program_tid_[thread.program_tid] == &thread) by_program_tid_.erase(thread.program_tid);
  thread.tid = leader_tid;
  thread.program_tid = thread.process->program_pid;
  thread.ns_tids = thread.process->ns_pids;
  by_tid_[leader_tid] = &thread;
  by_program_tid_[thread.program_tid] = &thread;
}

void ThreadTable::Forget(pid_t tid) {
  auto it = by_tid_.find(tid);
  if (it == by_tid_.end()) return;
  auto program = by_program_tid_.find(it->second->program_tid);
  if (program != by_program_tid_.end() && program->second == it->second) by_program_tid_.erase(program);
  by_tid_.erase(it);
}

void ThreadTable::MarkDead(Thread& thread) {
  if (thread.state != ThreadState::kDead) thread.process->dead_threads_cpu_nanos += thread.cpu_nanos;
  thread.state = ThreadState::kDead;
  live_.erase(thread.id.value);
  kernel_sleepers_.erase(thread.id.value);
}

void ThreadTable::MoveParkedCall(Thread& thread, ParkedCall::At at) {
  thread.parked.at = at;
  if (thread.parked.InKernelSleep() && thread.state != ThreadState::kDead) {
    kernel_sleepers_[thread.id.value] = &thread;
  } else {
    kernel_sleepers_.erase(thread.id.value);
  }
}

std::vector<const Process*> ThreadTable::LiveChildren(pid_t parent) const {
  std::vector<const Process*> children;
  for (const auto& [tgid, process] : processes_) {
    if (process->parent == parent && !process->exit_code && !process->exit_signal) children.push_back(process.get());
  }
  return children;
}

std::vector<Process*> ThreadTable::SignalTargets(pid_t pid, bool thread, const Process* sender) {
  // `pid` as the program named it: a process, a thread (tkill), 0 (the sender's group), -1
  // (everyone it may signal) or -pgid. Only processes of the tree matter here.
  std::vector<Process*> targets;
  if (pid > 0) {
    Process* target = nullptr;
    if (thread) {
      if (Thread* t = FindByProgramTid(pid, sender)) target = t->process;
    } else {
      target = FindByProgramPid(pid, sender);
    }
    if (target != nullptr) targets.push_back(target);
    return targets;
  }
  pid_t group = 0;  // in the supervisor's pid namespace
  if (pid == 0 && sender != nullptr) {
    group = getpgid(sender->tgid);
  } else if (pid < -1) {
    const Process* leader = FindByProgramPid(-pid, sender);
    if (leader == nullptr) return targets;  // a group led from outside the tree: not followed
    group = leader->tgid;
  }
  for (const auto& [tgid, process] : processes_) {
    if (process->dying || (pid == -1 && process.get() == sender)) continue;
    if (pid == -1 || getpgid(tgid) == group) targets.push_back(process.get());
  }
  return targets;
}

}  // namespace chess::supervisor
