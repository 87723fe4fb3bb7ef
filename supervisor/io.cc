// I/O in the supervisor: releasing the waiters the WaiterScan finds ready, the files the program
// starts with (never I/O points), and the shared names a watched program publishes.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "supervisor/supervisor.h"
#include "supervisor/report/syscall_digest.h"

namespace chess::supervisor {

void Supervisor::NoteSharedNames(const Thread& thread) {
  if (!options_.watch_names) return;
  for (search::SyscallEvent& event : NameEvents(thread)) names_.push_back(std::move(event));
}

bool Supervisor::ReleaseReadyWaiters() {
  const std::vector<Thread*>& ready = waiters_.FindReady();
  for (Thread* thread : ready) {
    // Its operation runs again when it is picked, and looks again: another thread may take
    // the data or the lock first. A thread inside a transfer re-enters its call instead.
    thread->state = ThreadState::kReady;
    if (thread->parked.at == ParkedCall::At::kExit) {
      thread->wait.reset();
    } else {
      thread->parked.at = ParkedCall::At::kOperationPending;
    }
  }
  return !ready.empty();
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

}  // namespace chess::supervisor
