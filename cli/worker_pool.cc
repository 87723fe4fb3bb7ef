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
#include <chrono>
#include <cstring>

#include "search/branch_codec.h"
#include "search/mix.h"
#include "search/shard.h"
#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/world/whole_io.h"

namespace chess::cli {
namespace {

// A request is a tag, then the branch's or the sample's own encoding, with the key as its serial.
enum class RequestTag : uint8_t { kBranch = 1, kSample = 2 };

// A message is its size, then its bytes; a Ctrl-C ends a write or read that waits. A worker that
// died must not take chess-trace with it: SIGPIPE is held back while writing, and one the write
// raised is taken off again (ignoring it process-wide would pass SIG_IGN on to the program
// through execve).
bool WriteMessage(int fd, const std::string& bytes) {
  sigset_t pipe_signal;
  sigset_t previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  const uint64_t size = bytes.size();
  const bool written =
      supervisor::WriteWhole(fd, reinterpret_cast<const char*>(&size), sizeof size, true) &&
      supervisor::WriteWhole(fd, bytes.data(), bytes.size(), true);
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
  if (!supervisor::ReadWhole(fd, reinterpret_cast<char*>(&size), sizeof size, true)) return std::nullopt;
  constexpr uint64_t kLargest = uint64_t{1} << 32;  // a schedule of tens of millions of decisions
  if (size > kLargest) return std::nullopt;
  std::string bytes(size, '\0');
  if (!supervisor::ReadWhole(fd, bytes.data(), size, true)) return std::nullopt;
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
    // A larger pipe lets larger requests queue behind a running one (best effort: the size
    // granted is what counts).
    fcntl(requests[1], F_SETPIPE_SZ, 1 << 20);
    const int capacity = fcntl(requests[1], F_GETPIPE_SZ);
    const size_t limit = capacity > 64 ? static_cast<size_t>(capacity) / 2 - sizeof(uint64_t) : 0;
    pool->queued_request_limit_ = index == 0 ? limit : std::min(pool->queued_request_limit_, limit);
    pool->workers_.push_back(Worker{pid, requests[1], runs[0], {}});
  }
  return pool;
}

WorkerPool::~WorkerPool() {
  // The workers end as a stopped search does: SIGTERM cuts the execution in progress short, and
  // the worker then tears down its tree, its template and its namespaces and reaps them, so that
  // nothing of theirs outlives chess-trace (a SIGKILL would leave that to the kernel, after
  // chess-trace's exit). The pipes are closed first: a worker waiting for work, or writing a
  // run, ends then too. One that has not ended within the bound is killed.
  for (Worker& worker : workers_) {
    close(worker.requests);
    close(worker.runs);
    if (worker.pid > 0) kill(worker.pid, SIGTERM);
  }
  constexpr auto kTeardown = std::chrono::seconds(10);
  const auto deadline = std::chrono::steady_clock::now() + kTeardown;
  for (Worker& worker : workers_) {
    if (worker.pid <= 0) continue;
    for (;;) {
      bool gone = false;
      if (supervisor::ptrace::PollChild(worker.pid, gone) || gone) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        kill(worker.pid, SIGKILL);
        supervisor::ptrace::ReapChild(worker.pid);
        break;
      }
      usleep(1000);
    }
  }
}

size_t WorkerPool::InFlight() const {
  size_t count = 0;
  for (const Worker& worker : workers_) count += worker.running.size();
  return count;
}

bool WorkerPool::Running(uint64_t key) const {
  return std::any_of(workers_.begin(), workers_.end(), [&](const Worker& w) { return w.Has(key); }) ||
         std::any_of(adopted_.begin(), adopted_.end(), [&](const auto& adopted) { return adopted.second == key; });
}

uint64_t WorkerPool::Content(uint64_t prefix, size_t decision, search::ThreadId choice) {
  return search::Mix64(search::Mix64(prefix, decision), choice.value) & ~kSpeculative;
}

uint64_t WorkerPool::Content(const search::Branch& branch) {
  uint64_t prefix = 0;
  const std::vector<search::RecordedDecision>& path = branch.path->decisions;
  for (size_t i = 0; i < branch.decision && i < path.size(); ++i) prefix = search::ScheduleStep(prefix, path[i]);
  return Content(prefix, branch.decision, branch.choice);
}

void WorkerPool::Offer(uint32_t spent, const search::BranchRun& run) {
  if (!children_within_ || run.alternatives.empty()) return;
  std::shared_ptr<const search::ExecutionPath> path;  // made for the first candidate: most runs offer none
  uint64_t prefix = 0;
  size_t hashed = 0;  // decisions in `prefix`; alternatives come in decision order
  for (const search::Alternative& alternative : run.alternatives) {
    const uint32_t child_spent = spent + alternative.cost;
    if (child_spent > *children_within_ || alternative.decision >= run.decisions.size()) continue;
    while (hashed < alternative.decision) prefix = search::ScheduleStep(prefix, run.decisions[hashed++]);
    const uint64_t content = Content(prefix, alternative.decision, alternative.choice);
    if (contents_.count(content) > 0) continue;
    if (!path) path = std::make_shared<const search::ExecutionPath>(search::ExecutionPath{0, run.decisions, {}});
    search::Branch child;
    child.path = path;
    child.decision = alternative.decision;
    child.choice = alternative.choice;
    child.spent = child_spent;
    candidates_.push_back(Child{content, std::move(child)});
  }
  while (candidates_.size() > kCandidates) candidates_.pop_front();
}

void WorkerPool::Speculate() {
  if (!children_within_ || !error_.empty()) return;
  for (Worker& worker : workers_) {
    if (worker.pid <= 0 || !worker.running.empty()) continue;
    while (!candidates_.empty()) {
      Child child = std::move(candidates_.back());
      candidates_.pop_back();
      if (contents_.count(child.content) > 0) continue;  // announced, or run, since it was offered
      const uint64_t key = kSpeculative | child.content;
      if (!Send(worker, key, Request(key, child.branch, false))) return;
      contents_.insert(child.content);
      speculating_[child.content] = key;
      spent_[key] = child.branch.spent;
      ++speculations_;
      break;
    }
  }
}

void WorkerPool::Speculated(uint64_t content, search::BranchRun run) {
  speculated_.emplace(content, std::move(run));
  speculated_order_.push_back(content);
  // The oldest go first: a child the state cache pruned is never announced, and would stay.
  while (!speculated_order_.empty() &&
         (speculated_.count(speculated_order_.front()) == 0 || speculated_.size() > kSpeculated)) {
    finished_unused_ += speculated_.erase(speculated_order_.front());
    speculated_order_.pop_front();
  }
}

bool WorkerPool::Adopt(uint64_t key, const search::Branch& branch) {
  if (!branch.path) return false;
  const uint64_t content = Content(branch);
  contents_.insert(content);
  if (auto speculated = speculated_.find(content); speculated != speculated_.end()) {
    done_.emplace(key, std::move(speculated->second));
    speculated_.erase(speculated);
    return true;
  }
  if (auto running = speculating_.find(content); running != speculating_.end()) {
    adopted_[running->second] = key;
    speculating_.erase(running);
    return true;
  }
  return false;
}

std::string WorkerPool::Request(uint64_t key, const Work& work, bool retry) {
  if (const auto* sample = std::get_if<search::SampleRequest>(&work)) {
    return static_cast<char>(RequestTag::kSample) + search::EncodeSampleRequest(key, *sample, retry);
  }
  search::Branch branch = std::get<search::Branch>(work);
  branch.serial = key;
  return static_cast<char>(RequestTag::kBranch) + search::EncodeBranchRequest(branch, retry);
}

WorkerPool::Worker* WorkerPool::LeastLoaded(size_t size) {
  Worker* least = nullptr;
  for (Worker& worker : workers_) {
    if (worker.pid <= 0 || worker.running.size() >= kDepth) continue;
    if (!worker.running.empty() && size > queued_request_limit_) continue;
    if (least == nullptr || worker.running.size() < least->running.size()) least = &worker;
  }
  return least;
}

bool WorkerPool::Send(Worker& worker, uint64_t key, const std::string& request) {
  if (!WriteMessage(worker.requests, request)) {
    if (error_.empty()) error_ = "a worker of -j (pid " + std::to_string(worker.pid) + ") died before its next execution: " + DescribeExit(worker.pid);
    worker.pid = -1;
    return false;
  }
  worker.running.push_back(key);
  return true;
}

void WorkerPool::Fill() {
  if (!error_.empty()) return;
  for (size_t i = 0; i < order_.size() && i < Window(); ++i) {
    if (LeastLoaded(0) == nullptr) return;
    auto waiting = waiting_.find(order_[i]);
    if (waiting == waiting_.end()) continue;  // started, or done
    const std::string request = Request(order_[i], waiting->second, false);
    Worker* free = LeastLoaded(request.size());
    if (free == nullptr) return;  // too large to queue: it waits for an idle worker
    if (!Send(*free, order_[i], request)) return;
    if (const auto* branch = std::get_if<search::Branch>(&waiting->second)) spent_[order_[i]] = branch->spent;
    waiting_.erase(waiting);
  }
  Speculate();
}

bool WorkerPool::Collect() {
  std::vector<pollfd> polled;
  std::vector<Worker*> busy;
  for (Worker& worker : workers_) {
    if (worker.running.empty()) continue;
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
    // A worker answers in the order it was sent its work.
    const uint64_t key = worker.running.front();
    worker.running.pop_front();
    std::optional<std::string> message = ReadMessage(worker.runs);
    auto decoded = message ? search::DecodeBranchRun(*message) : std::nullopt;
    if (!decoded || decoded->first != key) {
      if (supervisor::PendingStopSignal() != 0) {
        error_ = std::string("stopped by SIG") + sigabbrev_np(supervisor::PendingStopSignal());
      } else if (error_.empty()) {
        error_ = "a worker of -j (pid " + std::to_string(worker.pid) + ") died running an execution: " +
                 (message ? "it sent a damaged message" : DescribeExit(worker.pid));
        if (!message) worker.pid = -1;  // reaped
      }
      return false;
    }
    std::optional<uint32_t> spent;
    if (auto sent = spent_.find(key); sent != spent_.end()) {
      spent = sent->second;
      spent_.erase(sent);
    }
    if (dropped_.erase(key) > 0) {
      ++finished_unused_;
      continue;
    }
    if (spent) Offer(*spent, decoded->second);
    if ((key & kSpeculative) == 0) {
      done_.emplace(key, std::move(decoded->second));
    } else if (auto adopted = adopted_.find(key); adopted != adopted_.end()) {
      done_.emplace(adopted->second, std::move(decoded->second));
      adopted_.erase(adopted);
    } else {
      speculating_.erase(key & ~kSpeculative);
      Speculated(key & ~kSpeculative, std::move(decoded->second));
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
  return RunWork(Key(branch.serial), branch, retry);
}

search::BranchRun WorkerPool::RunSample(const search::SampleRequest& sample, bool retry) {
  return RunWork(Key(sample.index), sample, retry);
}

search::BranchRun WorkerPool::RunWork(uint64_t key, const Work& work, bool retry) {
  waiting_.erase(key);
  if (retry) {
    // Its first run was taken: this one is asked for now, and goes first.
    done_.erase(key);
  } else if (const auto* branch = std::get_if<search::Branch>(&work);
             branch != nullptr && done_.count(key) == 0 && !Running(key)) {
    Adopt(key, *branch);  // asked without being announced: a worker may have run it all the same
  }
  if (retry || (done_.count(key) == 0 && !Running(key))) {
    // Not started: on the least busy worker, before any work announced after it.
    const std::string request = Request(key, work, retry);
    while (error_.empty()) {
      if (Worker* free = LeastLoaded(request.size()); free != nullptr) {
        if (Send(*free, key, request)) {
          if (const auto* branch = std::get_if<search::Branch>(&work)) spent_[key] = branch->spent;
        }
        break;
      }
      if (!Collect()) break;
    }
  }
  Fill();
  while (error_.empty() && done_.count(key) == 0) {
    if (!Collect()) break;
    Fill();
  }
  auto done = done_.find(key);
  if (done == done_.end()) return Failed();
  search::BranchRun run = std::move(done->second);
  done_.erase(done);
  if (taken_) taken_(run);
  return run;
}

void WorkerPool::Announced(std::vector<std::pair<uint64_t, Work>> next) {
  order_.clear();
  for (auto& [key, work] : next) {
    order_.push_back(key);
    bool known = waiting_.count(key) > 0 || done_.count(key) > 0 || Running(key);
    if (const auto* branch = std::get_if<search::Branch>(&work); !known && branch != nullptr) known = Adopt(key, *branch);
    if (!known) waiting_.emplace(key, std::move(work));
  }
  Fill();
}

void WorkerPool::Upcoming(const std::vector<const search::Branch*>& next) {
  std::vector<std::pair<uint64_t, Work>> announced;
  announced.reserve(next.size());
  for (const search::Branch* branch : next) announced.emplace_back(Key(branch->serial), *branch);
  Announced(std::move(announced));
}

void WorkerPool::UpcomingSamples(const std::vector<search::SampleRequest>& next) {
  std::vector<std::pair<uint64_t, Work>> announced;
  announced.reserve(next.size());
  for (const search::SampleRequest& sample : next) announced.emplace_back(Key(sample.index), sample);
  Announced(std::move(announced));
}

void WorkerPool::Dropped(uint64_t serial) {
  const uint64_t key = Key(serial);
  waiting_.erase(key);
  if (done_.erase(key) > 0) {
    ++finished_unused_;
    return;
  }
  // Run ahead as a speculation and adopted: it is a speculation again, never taken.
  for (auto adopted = adopted_.begin(); adopted != adopted_.end(); ++adopted) {
    if (adopted->second == key) {
      speculating_[adopted->first & ~kSpeculative] = adopted->first;
      adopted_.erase(adopted);
      return;
    }
  }
  if (Running(key)) dropped_.insert(key);
}

void WorkerPool::Forget() {
  order_.clear();
  waiting_.clear();
  finished_unused_ += done_.size();
  done_.clear();
  for (const Worker& worker : workers_) dropped_.insert(worker.running.begin(), worker.running.end());
  finished_unused_ += speculated_.size();
  speculated_.clear();
  speculated_order_.clear();
  speculating_.clear();
  adopted_.clear();
  candidates_.clear();
  contents_.clear();
  children_within_.reset();
  ++generation_;
}

int ServeBranches(int requests, int runs, const std::function<search::BranchRun(const search::Branch&)>& run_branch,
                  const std::function<search::BranchRun(const search::SampleRequest&)>& run_sample) {
  while (std::optional<std::string> message = ReadMessage(requests)) {
    if (message->empty()) return 2;
    const auto tag = static_cast<RequestTag>((*message)[0]);
    const std::string body = message->substr(1);
    uint64_t serial = 0;
    search::BranchRun run;
    if (tag == RequestTag::kBranch) {
      const std::optional<search::BranchRequest> request = search::DecodeBranchRequest(body);
      if (!request) return 2;
      serial = request->serial;
      run = run_branch(request->branch);
    } else if (tag == RequestTag::kSample) {
      const std::optional<search::SampleRunRequest> request = search::DecodeSampleRequest(body);
      if (!request) return 2;
      serial = request->serial;
      run = run_sample(request->sample);
    } else {
      return 2;
    }
    if (!WriteMessage(runs, search::EncodeBranchRun(serial, run))) return 3;
  }
  return 0;
}

}  // namespace chess::cli
