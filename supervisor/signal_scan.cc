// Which parked threads have a signal pending that would end their wait (signal_scan.h).
#include "supervisor/signal_scan.h"

#include <algorithm>
#include <optional>

#include "supervisor/handlers/pending_signals.h"

namespace chess::supervisor {
namespace {

bool ParkedInEmulatedWait(const Thread& thread) {
  // A thread in its emulated tracer's ptrace-stop takes no signal until the tracer lets it go.
  return thread.state == ThreadState::kBlocked && thread.parked.AtStop() && !thread.in_vfork &&
         !thread.process->dying && !(thread.wait && thread.wait->Is<TraceStopWait>());
}

}  // namespace

void SignalScan::SignalSent(pid_t pid, bool thread, const Process& sender) {
  if (pid == 0) {
    all_noted_ = true;
    return;
  }
  if (thread) {
    if (Thread* target = threads_.FindByProgramTid(pid, &sender)) noted_.insert(target->process->tgid);
  } else if (Process* target = threads_.FindByProgramPid(pid, &sender)) {
    noted_.insert(target->tgid);
  } else {
    all_noted_ = true;
  }
}

const std::vector<SignalScan::Taker>& SignalScan::FindTakers(MonoNanos now, bool from_tick) {
  takers_.clear();
  bool look_at_all = all_noted_ && !from_tick;
  if (now >= next_full_scan_) {
    look_at_all = true;
    next_full_scan_ = now + kFullScanInterval;
  }
  if (!look_at_all && (from_tick || noted_.empty())) return takers_;
  process_signal_taken_.clear();
  for (const auto& [id, thread] : threads_.Live()) {
    const pid_t tgid = thread->process->tgid;
    if (!ParkedInEmulatedWait(*thread) || (!look_at_all && !noted_.count(tgid))) continue;
    auto masks = ReadSignalMasks(thread->tid);
    if (!masks) continue;
    std::optional<SignalWait> signals = thread->wait ? thread->wait->Signals() : std::nullopt;
    // A poll of signalfds ends when a signal they watch is pending, blocked or not. Which those
    // are is read now, and only when a signal is pending at all (SignalfdSignals).
    const IoWait* io = thread->wait ? thread->wait->Io() : nullptr;
    if (io != nullptr && (masks->thread_pending | masks->process_pending) != 0) {
      if (const uint64_t watched = SignalfdSignals(tgid, *io)) {
        if (!signals) signals = SignalWait{};
        signals->awaited |= watched;
      }
    }
    const SignalWait* wait = signals ? &*signals : nullptr;
    const bool process_signal_free =
        std::find(process_signal_taken_.begin(), process_signal_taken_.end(), tgid) == process_signal_taken_.end();
    const bool takes_process_signal = masks->WakingFromProcess(wait) != 0 && process_signal_free;
    if (masks->WakingFromThread(wait) == 0 && !takes_process_signal) continue;
    if (takes_process_signal) process_signal_taken_.push_back(tgid);
    const uint64_t waking = masks->WakingFromThread(wait) | masks->WakingFromProcess(wait);
    takers_.push_back({thread, (waking & masks->caught) != 0});
  }
  if (!from_tick) {
    noted_.clear();
    all_noted_ = false;
  }
  return takers_;
}

}  // namespace chess::supervisor
