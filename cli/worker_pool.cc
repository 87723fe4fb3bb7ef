#include "cli/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "search/branch_codec.h"
#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/ptrace/ptrace.h"

namespace chess::cli {
namespace {

// A message is its size, then its bytes. Interrupted calls go on (the tick of a timer), unless
// chess-trace is asked to stop.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR && supervisor::PendingStopSignal() == 0) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

bool ReadAll(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t got = read(fd, data, size);
    if (got < 0 && errno == EINTR && supervisor::PendingStopSignal() == 0) continue;
    if (got <= 0) return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

// A worker that died must not take chess-trace with it: SIGPIPE is held back while writing, and
// one the write raised is taken off again (ignoring it process-wide would pass SIG_IGN on to the
// program through execve).
bool WriteMessage(int fd, const std::string& bytes) {
  sigset_t pipe_signal;
  sigset_t previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  const uint64_t size = bytes.size();
  const bool written =
      WriteAll(fd, reinterpret_cast<const char*>(&size), sizeof size) && WriteAll(fd, bytes.data(), bytes.size());
  if (!written && errno == EPIPE) {
    const timespec now{};
    while (sigtimedwait(&pipe_signal, nullptr, &now) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return written;
}

// Nullopt at the end of the stream or on an error.
std::optional<std::string> ReadMessage(int fd) {
  uint64_t size = 0;
  if (!ReadAll(fd, reinterpret_cast<char*>(&size), sizeof size)) return std::nullopt;
  constexpr uint64_t kLargest = uint64_t{1} << 32;  // a schedule of tens of millions of decisions
  if (size > kLargest) return std::nullopt;
  std::string bytes(size, '\0');
  if (!ReadAll(fd, bytes.data(), size)) return std::nullopt;
  return bytes;
}

std::string DescribeExit(pid_t pid) {
  const std::optional<int> reaped = supervisor::ptrace::ReapChild(pid);
  if (!reaped) return "its status is unknown";
  const int status = *reaped;
  if (WIFEXITED(status)) return "it exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("it was killed by SIG") + sigabbrev_np(WTERMSIG(status));
  return "it stopped";
}

}  // namespace

Result<std::unique_ptr<WorkerPool>> WorkerPool::Start(size_t count, const WorkerMain& main, Taken taken) {
  std::unique_ptr<WorkerPool> pool(new WorkerPool());
  pool->taken_ = std::move(taken);
  const pid_t parent = getpid();
  for (size_t index = 0; index < count; ++index) {
    int requests[2];
    int runs[2];
    if (pipe2(requests, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
    if (pipe2(runs, O_CLOEXEC) != 0) {
      close(requests[0]);
      close(requests[1]);
      return Error{std::string("pipe: ") + std::strerror(errno)};
    }
    const pid_t pid = fork();
    if (pid < 0) {
      for (int fd : {requests[0], requests[1], runs[0], runs[1]}) close(fd);
      return Error{std::string("fork: ") + std::strerror(errno)};
    }
    if (pid == 0) {
      // The worker dies with the search: its tracees die with it (PTRACE_O_EXITKILL).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      // The pool's ends, and the other workers' (inherited from the pool), are not its own.
      close(requests[1]);
      close(runs[0]);
      for (const Worker& other : pool->workers_) {
        close(other.requests);
        close(other.runs);
      }
      main(requests[0], runs[1], index);
      _exit(0);
    }
    close(requests[0]);
    close(runs[1]);
    pool->workers_.push_back(Worker{pid, requests[1], runs[0], std::nullopt});
  }
  return pool;
}

WorkerPool::~WorkerPool() {
  for (Worker& worker : workers_) {
    close(worker.requests);
    close(worker.runs);
    // An execution in progress is not waited for: the worker and its tree go now.
    if (worker.pid > 0) {
      kill(worker.pid, SIGKILL);
      supervisor::ptrace::ReapChild(worker.pid);
    }
  }
}

size_t WorkerPool::InFlight() const {
  return static_cast<size_t>(
      std::count_if(workers_.begin(), workers_.end(), [](const Worker& worker) { return worker.running.has_value(); }));
}

bool WorkerPool::Send(Worker& worker, const search::Branch& branch, bool retry) {
  if (!WriteMessage(worker.requests, search::EncodeBranchRequest(branch, retry))) {
    if (error_.empty()) error_ = "a worker of -j (pid " + std::to_string(worker.pid) + ") stopped taking work: " + DescribeExit(worker.pid);
    worker.pid = -1;
    return false;
  }
  worker.running = branch.serial;
  return true;
}

void WorkerPool::Fill() {
  if (!error_.empty()) return;
  for (size_t i = 0; i < order_.size() && i < Window(); ++i) {
    auto idle = std::find_if(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.running && w.pid > 0; });
    if (idle == workers_.end()) return;
    auto waiting = waiting_.find(order_[i]);
    if (waiting == waiting_.end()) continue;  // started, or done
    if (!Send(*idle, waiting->second, false)) return;
    waiting_.erase(waiting);
  }
}

bool WorkerPool::Collect() {
  std::vector<pollfd> polled;
  std::vector<Worker*> busy;
  for (Worker& worker : workers_) {
    if (!worker.running) continue;
    polled.push_back({worker.runs, POLLIN, 0});
    busy.push_back(&worker);
  }
  if (polled.empty()) {
    if (error_.empty()) error_ = "-j: no worker is running the execution the search waits for";
    return false;
  }
  // No bound here: each worker's execution has its own (--execution-timeout, the watchdog), and a
  // stop signal interrupts the wait.
  while (poll(polled.data(), polled.size(), -1) < 0) {
    if (errno != EINTR || supervisor::PendingStopSignal() != 0) {
      if (error_.empty()) error_ = std::string("stopped by SIG") + sigabbrev_np(supervisor::PendingStopSignal());
      return false;
    }
  }
  for (size_t i = 0; i < polled.size(); ++i) {
    if (polled[i].revents == 0) continue;
    Worker& worker = *busy[i];
    const uint64_t serial = *worker.running;
    worker.running.reset();
    std::optional<std::string> message = ReadMessage(worker.runs);
    auto decoded = message ? search::DecodeBranchRun(*message) : std::nullopt;
    if (!decoded || decoded->first != serial) {
      if (supervisor::PendingStopSignal() != 0) {
        error_ = std::string("stopped by SIG") + sigabbrev_np(supervisor::PendingStopSignal());
      } else if (error_.empty()) {
        error_ = "a worker of -j (pid " + std::to_string(worker.pid) + ") died running an execution: " +
                 (message ? "it sent a damaged message" : DescribeExit(worker.pid));
        if (!message) worker.pid = -1;  // reaped
      }
      return false;
    }
    if (dropped_.erase(serial) > 0) {
      ++finished_unused_;
    } else {
      done_.emplace(serial, std::move(decoded->second));
    }
  }
  return true;
}

search::BranchRun WorkerPool::Failed() const {
  search::BranchRun run;
  run.summary.outcome = search::Outcome::kError;
  run.summary.message = error_;
  return run;
}

search::BranchRun WorkerPool::Run(const search::Branch& branch, bool retry) {
  const uint64_t serial = branch.serial;
  waiting_.erase(serial);
  if (retry) {
    // Its first run was taken: this one is asked for now, and goes first.
    done_.erase(serial);
  }
  const auto running = [&] {
    return std::any_of(workers_.begin(), workers_.end(), [&](const Worker& w) { return w.running == serial; });
  };
  if (retry || (done_.count(serial) == 0 && !running())) {
    // Not started: on the first worker free, before any branch announced after it.
    while (error_.empty()) {
      auto idle = std::find_if(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.running && w.pid > 0; });
      if (idle != workers_.end()) {
        Send(*idle, branch, retry);
        break;
      }
      if (!Collect()) break;
    }
  }
  Fill();
  while (error_.empty() && done_.count(serial) == 0) {
    if (!Collect()) break;
    Fill();
  }
  auto done = done_.find(serial);
  if (done == done_.end()) return Failed();
  search::BranchRun run = std::move(done->second);
  done_.erase(done);
  if (taken_) taken_(run);
  return run;
}

void WorkerPool::Upcoming(const std::vector<const search::Branch*>& next) {
  order_.clear();
  for (const search::Branch* branch : next) {
    order_.push_back(branch->serial);
    const bool known = waiting_.count(branch->serial) > 0 || done_.count(branch->serial) > 0 ||
                       std::any_of(workers_.begin(), workers_.end(),
                                   [&](const Worker& w) { return w.running == branch->serial; });
    if (!known) waiting_.emplace(branch->serial, *branch);
  }
  Fill();
}

void WorkerPool::Dropped(uint64_t serial) {
  waiting_.erase(serial);
  if (done_.erase(serial) > 0) {
    ++finished_unused_;
    return;
  }
  if (std::any_of(workers_.begin(), workers_.end(), [&](const Worker& w) { return w.running == serial; })) {
    dropped_.insert(serial);
  }
}

int ServeBranches(int requests, int runs, const std::function<search::BranchRun(const search::Branch&)>& run) {
  while (std::optional<std::string> message = ReadMessage(requests)) {
    const std::optional<search::BranchRequest> request = search::DecodeBranchRequest(*message);
    if (!request) return 2;
    if (!WriteMessage(runs, search::EncodeBranchRun(request->serial, run(request->branch)))) return 3;
  }
  return 0;
}

}  // namespace chess::cli
