// Threads waiting on descriptors and kernel objects: which can go on now, and whether anything
// outside the tree could still wake them.
#include <dirent.h>
#include <sched.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "supervisor/report/fd_owners.h"
#include "supervisor/supervisor.h"
#include "supervisor/report/syscall_digest.h"

namespace chess::supervisor {
namespace {

// While nothing in the tree moves, who holds what outside it is looked at again this often.
constexpr MonoNanos kOutsideRecheck = 1'000'000'000;

}  // namespace

void Supervisor::NoteSharedNames(const Thread& thread) {
  if (!options_.watch_names) return;
  for (search::SyscallEvent& event : NameEvents(thread)) names_.push_back(std::move(event));
}

bool Supervisor::AnyWaiterReady() {
  FindReadyWaiters();
  return !waiter_scratch_.ready.empty();
}

bool Supervisor::ReleaseReadyWaiters() {
  FindReadyWaiters();
  for (Thread* thread : waiter_scratch_.ready) {
    // Its operation runs again when it is picked, and looks again: another thread may take
    // the data or the lock first. A thread inside a transfer re-enters its call instead.
    thread->state = ThreadState::kReady;
    if (thread->parked.at == ParkedCall::At::kExit) {
      thread->wait.reset();
    } else {
      thread->parked.at = ParkedCall::At::kOperationPending;
    }
  }
  return !waiter_scratch_.ready.empty();
}

void Supervisor::FindReadyWaiters() {
  // Waiters that hold copies of their descriptors are looked at with one poll() for all. The
  // vectors are members: this runs before every decision, and most of the time finds nobody.
  std::vector<pollfd>& batch = waiter_scratch_.batch;
  auto& batched = waiter_scratch_.batched;
  std::vector<Thread*>& ready_threads = waiter_scratch_.ready;
  batch.clear();
  batched.clear();
  ready_threads.clear();
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state != ThreadState::kBlocked || thread->process->dying || !thread->wait) continue;
    const IoWait* io = thread->wait->Io();
    if (io != nullptr && io->held.size() == io->fds.size()) {
      batched.emplace_back(thread, batch.size());
      for (size_t i = 0; i < io->fds.size(); ++i) batch.push_back({io->held[i].get(), io->fds[i].events, 0});
    } else if (io != nullptr) {
      if (IoWaitReady(fd_probe_, thread->process->tgid, *io)) ready_threads.push_back(thread);
    } else if (thread->wait->Is<ObjectWait>()) {
      SyscallContext context{*thread, services_};
      const FamilyHandler handler = HandlerFor(thread->call.family);
      if (handler.ready == nullptr || handler.ready(context)) ready_threads.push_back(thread);
    }
  }
  if (!batch.empty() && poll(batch.data(), batch.size(), 0) > 0) {
    for (const auto& [thread, first] : batched) {
      const IoWait& wait = *thread->wait->Io();
      size_t ready_count = 0;
      for (size_t i = 0; i < wait.fds.size(); ++i) {
        if (batch[first + i].revents & (wait.fds[i].events | POLLERR | POLLHUP | POLLNVAL)) ++ready_count;
      }
      if (wait.needs_all ? ready_count == wait.fds.size() : ready_count > 0) ready_threads.push_back(thread);
    }
  }
}

void Supervisor::RememberStartingFiles() {
  execution_.starting_files.clear();
  const std::string dir = "/proc/" + std::to_string(root_pid_) + "/fd";
  DIR* fds = opendir(dir.c_str());
  if (fds == nullptr) return;
  while (const dirent* entry = readdir(fds)) {
    struct stat st{};
    if (entry->d_name[0] == '.' || fstatat(dirfd(fds), entry->d_name, &st, 0) != 0) continue;
    // Every anonymous-inode file (epoll, eventfd, signalfd, timerfd, pidfd) is the one inode of
    // anon_inodefs: one held at the start (before exec, by whatever spawned the program) would
    // make every epoll the program creates "a file it started with", never a point.
    char target[32];
    const ssize_t length = readlinkat(dirfd(fds), entry->d_name, target, sizeof(target));
    if (length >= 11 && std::string_view(target, 11) == "anon_inode:") continue;
    execution_.starting_files.emplace(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
  }
  closedir(fds);
}

bool Supervisor::IoPointOn(const FdCopy& file) {
  if (!options_.io_points || !file) return false;
  const auto identity = file.Identity();
  return identity && execution_.starting_files.count(*identity) == 0;
}

bool Supervisor::AnyWaiterOnEvents() const {
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state == ThreadState::kBlocked && thread->wait &&
        (thread->wait->Io() != nullptr || thread->wait->Is<ObjectWait>() || thread->wait->Is<SignalWait>())) {
      return true;
    }
  }
  return false;
}

bool Supervisor::AnyWaiterOnOutside() {
  const MonoNanos now = WallNow();
  if (outside_checked_at_ == execution_.dispatches && now - outside_checked_time_ < kOutsideRecheck) return outside_verdict_;
  outside_checked_at_ = execution_.dispatches;
  outside_checked_time_ = now;
  TreePids tree;
  for (const auto& [tgid, process] : threads_.Processes()) {
    if (!process->exit_code && !process->exit_signal) tree[tgid] = process->program_pid;
  }
  const uint64_t isolated = IsolatedNamespaces();
  const TreeScope scope{virtual_clock_ != nullptr, (isolated & kPrivateTmp) != 0, (isolated & CLONE_NEWNET) != 0};
  DescriptorIndex index;
  bool scanned = false;
  bool outside = false;
  bool data = false;
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state == ThreadState::kStopped) outside = true;  // anyone may send a SIGCONT
    if (thread->state != ThreadState::kBlocked || !thread->wait) continue;
    if (const IoWait* io = thread->wait->Io()) {
      if (!scanned) index.Scan();
      scanned = true;
      const WakerVerdict verdict = WhoCanEnd(thread->process->tgid, *io, index, tree, scope);
      thread->waits_on = verdict.explanation;
      thread->waits_on_processes = verdict.tree_wakers;
      outside = outside || verdict.outside;
      data = data || verdict.outside;
    } else if (thread->wait->Is<ObjectWait>() && seccomp::PropertiesOf(thread->call.family).wait_ended_by_lock_holders) {
      const WakerVerdict verdict = WhoCanUnlock(thread->process->tgid, static_cast<int>(thread->call.args[0]), tree);
      thread->waits_on = verdict.explanation;
      thread->waits_on_processes = verdict.tree_wakers;
      outside = outside || verdict.outside;
    } else if (thread->wait->Is<ObjectWait>()) {
      outside = true;  // a semaphore or message queue: anyone with access may use it
      data = true;
    } else if (thread->wait->Is<SignalWait>() && !thread->wait->deadline &&
               threads_.LiveChildren(thread->process->tgid).empty()) {
      // Waiting only for a signal, which anyone may send. With children alive, the wait is for
      // their SIGCHLD (a shell's `wait`): the tree's own business.
      outside = true;
    }
  }
  outside_verdict_ = outside;
  outside_data_ = data;
  return outside;
}

}  // namespace chess::supervisor
