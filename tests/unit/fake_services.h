// FakeServices: what a handler or a supervisor part may ask of the supervisor
// (HandlerServices), answered by a thread table, a futex table and a real clock of its own, for
// unit tests that run without a tracee.
#pragma once

#include <string>
#include <vector>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {

class FakeServices final : public HandlerServices {
 public:
  void Wake(Thread& thread, int64_t result) override {
    futexes_.Remove(thread.tid);
    thread.state = ThreadState::kReady;
    thread.parked.result = result;
  }
  ThreadTable& Threads() override { return threads_; }
  FutexTable& Futexes() override { return futexes_; }
  const Clock& Time() override { return clock_; }
  void Notice(const std::string&) override {}
  void Refuse(const Thread&, const std::string&, int, const std::string&) override {}
  const std::vector<uint8_t>& VisibleAffinity() override { return affinity_; }
  void Stop(search::Outcome, const std::string&) override {}
  size_t ProcessesAllowed() override { return 1; }
  size_t MaxProcesses() override { return 1; }
  void SignalSent(pid_t, bool, const Process&) override {}
  bool SignalActsAtOnce(pid_t, bool, int, const Process&) override { return false; }
  void SettleSignalled(pid_t, bool, int, const Process&) override {}
  FdProbe& Fds() override { return fds_; }
  bool IoPoints() override { return false; }
  bool IoPointOn(const FdCopy&) override { return false; }
  void NoteSharedNames(const Thread&) override {}
  search::SeededRandom* Random() override { return nullptr; }
  bool IpcVisible() override { return true; }
  void AdvanceTime(int64_t) override {}
  void SetRealtime(int64_t) override {}
  void FilterInstalled(Thread&, std::vector<sock_filter>, bool) override {}
  long TraceeRequest(Thread&, int64_t, uint64_t, void*) override { return -EPERM; }
  void InterruptTracee(Thread&) override {}
  bool ListenTracee(Thread&) override { return false; }
  bool CodeMapped(Thread&, uint64_t, uint64_t) override { return false; }

  ThreadTable threads_;
  FdProbe fds_;
  FutexTable futexes_;
  RealClock clock_;
  std::vector<uint8_t> affinity_;
};

}  // namespace chess::supervisor
