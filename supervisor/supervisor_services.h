// SupervisorServices: what the syscall handlers may do (HandlerServices), carried out by the
// supervisor's parts. The supervisor hands this to every SyscallContext; handlers see nothing
// else of it.
#pragma once

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {

class Supervisor;

class SupervisorServices final : public HandlerServices {
 public:
  explicit SupervisorServices(Supervisor& supervisor) : supervisor_(supervisor) {}

  void Wake(Thread& thread, int64_t result) override;
  ThreadTable& Threads() override;
  FutexTable& Futexes() override;
  const Clock& Time() override;
  void Notice(const std::string& text) override;
  void Refuse(const Thread& thread, const std::string& call, int error, const std::string& why) override;
  void SignalSent(pid_t pid, bool thread, const Process& sender) override;
  bool SignalActsAtOnce(pid_t pid, bool thread, int signal, const Process& sender) override;
  void SettleSignalled(pid_t pid, bool thread, int signal, const Process& sender) override;
  FdProbe& Fds() override;
  bool IpcVisible() override;
  search::SeededRandom* Random() override;
  void AdvanceTime(int64_t nanos) override;
  void SetRealtime(int64_t nanos) override;
  bool IoPoints() override;
  bool IoPointOn(const FdCopy& file) override;
  void NoteSharedNames(const Thread& thread) override;
  void Stop(search::Outcome outcome, const std::string& message) override;
  size_t ProcessesAllowed() override;
  size_t MaxProcesses() override;
  const std::vector<uint8_t>& VisibleAffinity() override;
  void FilterInstalled(Thread& thread, std::vector<sock_filter> program, bool all_threads) override;
  long TraceeRequest(Thread& tracee, int64_t request, uint64_t addr, void* data) override;
  void InterruptTracee(Thread& tracee) override;
  bool ListenTracee(Thread& tracee) override;
  bool CodeMapped(Thread& thread, uint64_t begin, uint64_t end) override;

 private:
  Supervisor& supervisor_;
};

}  // namespace chess::supervisor
