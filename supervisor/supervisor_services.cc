#include "supervisor/supervisor_services.h"

#include <algorithm>
#include <cstring>

#include "supervisor/report/syscall_digest.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {

void SupervisorServices::Wake(Thread& thread, int64_t result) { supervisor_.Wake(thread, result); }

ThreadTable& SupervisorServices::Threads() { return supervisor_.threads_; }

FutexTable& SupervisorServices::Futexes() { return supervisor_.futexes_; }

const Clock& SupervisorServices::Time() { return supervisor_.clocks_.Program(); }

void SupervisorServices::Notice(const std::string& text) { supervisor_.Notice(text); }

void SupervisorServices::Refuse(const Thread& thread, const std::string& call, int error, const std::string& why) {
  std::vector<RefusedCall>& refused = supervisor_.execution_.refused;
  const bool seen = std::any_of(refused.begin(), refused.end(), [&](const RefusedCall& r) { return r.call == call; });
  if (!seen) refused.push_back({call, error, thread.process->program_pid, why});
  Notice("refused " + call + ": " + why + "; the program sees " + std::string(strerrorname_np(error)));
}

void SupervisorServices::SignalSent(pid_t pid, bool thread, const Process& sender) {
  supervisor_.signal_scan_.SignalSent(pid, thread, sender);
}

bool SupervisorServices::SignalActsAtOnce(pid_t pid, bool thread, int signal, const Process& sender) {
  return supervisor_.SignalActsAtOnce(pid, thread, signal, sender);
}

void SupervisorServices::SettleSignalled(pid_t pid, bool thread, int signal, const Process& sender) {
  supervisor_.SettleSignalled(pid, thread, signal, sender);
}

FdProbe& SupervisorServices::Fds() { return supervisor_.fd_probe_; }

bool SupervisorServices::IpcVisible() { return supervisor_.ipc_visible_; }

search::SeededRandom* SupervisorServices::Random() {
  return supervisor_.execution_.random ? &*supervisor_.execution_.random : nullptr;
}

void SupervisorServices::AdvanceTime(int64_t nanos) { supervisor_.AdvanceTime(nanos); }
void SupervisorServices::SetRealtime(int64_t nanos) {
  if (supervisor_.clocks_.Virtual() != nullptr) supervisor_.clocks_.Virtual()->SetRealtime(nanos);
}

bool SupervisorServices::IoPoints() { return supervisor_.options_.io_points; }

bool SupervisorServices::IoPointOn(const FdCopy& file) {
  if (!supervisor_.options_.io_points || !file) return false;
  const auto identity = file.Identity();
  return identity && supervisor_.execution_.starting_files.count(*identity) == 0;
}

void SupervisorServices::NoteSharedNames(const Thread& thread) {
  if (!supervisor_.options_.watch_names) return;
  for (search::SyscallEvent& event : NameEvents(thread)) supervisor_.execution_.names.push_back(std::move(event));
}

void SupervisorServices::Stop(search::Outcome outcome, const std::string& message) {
  supervisor_.Finish(outcome, message);
}

size_t SupervisorServices::ProcessesAllowed() {
  size_t live = 0;
  for (const auto& [tgid, process] : supervisor_.threads_.Processes()) {
    if (!process->exit_code && !process->exit_signal) ++live;
  }
  const size_t max = MaxProcesses();
  return live >= max ? 0 : max - live;
}

size_t SupervisorServices::MaxProcesses() { return supervisor_.options_.max_processes; }

const std::vector<uint8_t>& SupervisorServices::VisibleAffinity() { return supervisor_.options_.visible_affinity; }

void SupervisorServices::FilterInstalled(Thread& thread, std::vector<sock_filter> program, bool all_threads) {
  supervisor_.FilterInstalled(thread, std::move(program), all_threads);
}

long SupervisorServices::TraceeRequest(Thread& tracee, int64_t request, uint64_t addr, void* data) {
  return supervisor_.TraceeRequest(tracee, request, addr, data);
}

void SupervisorServices::InterruptTracee(Thread& tracee) { supervisor_.InterruptTracee(tracee); }
bool SupervisorServices::CodeMapped(Thread& thread, uint64_t begin, uint64_t end) { return supervisor_.CodeMapped(thread, begin, end); }

bool SupervisorServices::ListenTracee(Thread& tracee) { return supervisor_.ListenTracee(tracee); }

}  // namespace chess::supervisor
