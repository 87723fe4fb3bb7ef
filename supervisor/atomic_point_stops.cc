// The supervisor's side of atomic points (atomic_points.h): planting where code appears, and the
// stop at a breakpoint.
#include <csignal>

#include "supervisor/invariant.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {

void Supervisor::ImageLoaded(Thread& thread) {
  if (!atomic_points_) return;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return;
  if (atomic_points_->ImageLoaded(execution_.atomics, thread.process->address_space, thread, regs)) {
    ptrace::SetRegisters(thread.tid, regs);  // back from the injected calls to the exec's stop
  }
}

bool Supervisor::CodeMapped(Thread& thread, uint64_t begin, uint64_t end) {
  if (!atomic_points_) return false;
  return atomic_points_->CodeMapped(execution_.atomics, thread.process->address_space, thread, thread.regs, begin, end);
}

std::vector<StackFrame> Supervisor::StackWhereParked(Thread& thread) {
  if (!search::AtInstruction(thread.point.op)) return CaptureBacktrace(thread.tid);
  // Its registers go back to the kernel when it is resumed (thread.regs, rip at its copy): until
  // then the kernel's may say anything, and the unwinder reads those.
  Registers at_instruction = thread.regs;
  at_instruction.raw().rip = thread.point.instruction;
  ptrace::SetRegisters(thread.tid, at_instruction);
  thread.parked.registers_dirty = true;
  return CaptureBacktrace(thread.tid);
}

void Supervisor::LeaveOutOfLineCopy(Thread& thread) {
  if (!atomic_points_) return;
  auto space = execution_.atomics.spaces.find(thread.process->address_space);
  if (space == execution_.atomics.spaces.end() || space->second.breakpoints.Size() == 0) return;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return;
  const uint64_t in_program = space->second.breakpoints.ProgramAddress(regs.Ip());
  if (in_program == regs.Ip()) return;
  // Before the copy ran, the original instruction's address (its int3 stops the thread again,
  // which runs it then); after, the address that follows it.
  regs.raw().rip = in_program;
  ptrace::SetRegisters(thread.tid, regs);
}

bool Supervisor::OnBreakpoint(Thread& thread) {
  if (!atomic_points_) return false;
  auto space = execution_.atomics.spaces.find(thread.process->address_space);
  if (space == execution_.atomics.spaces.end()) return false;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return false;
  const Breakpoint* breakpoint = space->second.breakpoints.AtTrap(regs.Ip());
  if (breakpoint == nullptr) return OnRemovedBreakpoint(thread, regs, space->second.breakpoints);
  const uint64_t address = breakpoint->address;
  const uint64_t resume_at = BreakpointTable::ResumeAt(*breakpoint);
  auto site = space->second.sites.find(address);
  CHESS_CHECK(site != space->second.sites.end(), "a breakpoint without its site");
  last_progress_ = clocks_.EventTime();
  // Natively there is no trap: SIGTRAP's action and blocked bit stay as the program set them.
  UndoForcedSignal(thread, regs, SIGTRAP);
  const PlantedSite& planted = site->second;
  // Where the thread goes on from, once let go: registers stored then.
  const auto go_on_at = [&](uint64_t rip) {
    regs.raw().rip = rip;
    thread.regs = regs;
    thread.parked.registers_dirty = true;
    thread.parked.at = ParkedCall::At::kNone;
  };
  if (planted.role == PlantedSite::Role::kSample) {
    // Sampled once: judged and watched, the int3 gone, and the instruction runs where it is.
    if (race_sampling_) race_sampling_->Sampled(thread, planted, regs.raw(), space->second);
    go_on_at(address);
    atomic_points_->Retire(execution_.atomics, thread.process->address_space, thread.process->tgid, address);
    Resume(thread);
    return true;
  }
  if (planted.role == PlantedSite::Role::kSync) {
    // Only an ordering: the instruction runs at once, out of line.
    const uint64_t touched = EffectiveAddress(planted.site.accesses.front(), regs.raw(), planted.load_bias);
    // Planted only where races are learned: race_sampling_ is there.
    race_sampling_->Performed(thread, {thread.id, search::OpKind::kAtomic, touched, true});
    go_on_at(resume_at);
    if (race_sampling_->Active() && race_sampling_->Orderings() >= atomic_points_->Plan().max_race_orderings) {
      StopRaceDetection();  // which retires this site too
    } else if (!race_sampling_->Active()) {
      // Detection stopped meanwhile, in a process that was not there to retire it.
      atomic_points_->Retire(execution_.atomics, thread.process->address_space, thread.process->tgid, address);
    }
    if (thread.point.op == search::OpKind::kSyncOp && thread.point.resource == touched) {
      // On the very lock the thread's announced operation names (a mutex's lock word is its
      // first): the operation's own implementation, whose ordering its announcement gives.
      // malloc's and stdio's locks are taken elsewhere in libc.
      atomic_points_->Retire(execution_.atomics, thread.process->address_space, thread.process->tgid, address);
    }
    Resume(thread);
    return true;
  }
  bool retire = false;
  const AtomicStop stop = DecideAtomicStop(execution_.atomics, atomic_points_->Plan(), planted,
                                           threads_.Live().size() > 1, regs.raw(), retire);
  const bool racy = planted.role == PlantedSite::Role::kRace;
  if (race_sampling_ && !stop.point && !racy) {
    // An atomic instruction run at once: it synchronizes all the same.
    race_sampling_->Performed(thread, {thread.id, search::OpKind::kAtomic, stop.resource, stop.is_write});
  }
  // The instruction runs out of line: only rip changes, and the int3 stays for the next thread.
  go_on_at(resume_at);
  // Races are judged against every atomic operation's ordering: none of them retires then.
  if (retire && !(race_sampling_ && race_sampling_->Active())) {
    atomic_points_->Retire(execution_.atomics, thread.process->address_space, thread.process->tgid, address);
  }
  if (race_sampling_ && race_sampling_->Active() &&
      race_sampling_->Orderings() >= atomic_points_->Plan().max_race_orderings) {
    StopRaceDetection();
  }
  if (!stop.point) {
    Resume(thread);
    return true;
  }
  if (!options_.backtrace_before.empty() && !execution_.atomics.count.instruction_names.contains(stop.instruction)) {
    // A bug's run, whose report names the instructions that decided it.
    execution_.atomics.count.instruction_names[stop.instruction] = FormatFrame(ProcessSymbols(thread.tid).Code(stop.instruction));
    execution_.atomics.count.instruction_locations[stop.instruction] = planted.location;
  }
  if (racy) ++execution_.atomics.count.race_points;
  thread.state = ThreadState::kReady;
  thread.point = {thread.id, racy ? search::OpKind::kRacyAccess : search::OpKind::kAtomic, stop.resource, stop.is_write};
  thread.point.instruction = stop.instruction;
  Park(thread, search::StopReason::kReachedPoint);
  return true;
}

bool Supervisor::OnRemovedBreakpoint(Thread& thread, Registers& regs, const BreakpointTable& breakpoints) {
  if (!breakpoints.RemovedAtTrap(regs.Ip())) return false;  // the program's own int3, or another trap
  // An int3 raises SIGTRAP with SI_KERNEL; the program's own SIGTRAP (raise, kill) has its
  // sender's code, whatever rip is.
  siginfo_t info{};
  if (!ptrace::GetSignalInfo(thread.tid, info) || info.si_code != SI_KERNEL) return false;
  // Interrupted between its int3 and the SIGTRAP's report, the thread was parked, and its
  // breakpoint retired meanwhile: it runs the original instruction as if none had been there.
  last_progress_ = clocks_.EventTime();
  UndoForcedSignal(thread, regs, SIGTRAP);
  regs.raw().rip -= 1;
  thread.regs = regs;
  thread.parked.registers_dirty = true;
  thread.parked.at = ParkedCall::At::kNone;
  Resume(thread);
  return true;
}

bool Supervisor::OnWatchpoint(Thread& thread) {
  // Every breakpoint's SIGTRAP comes here first: a thread with no watch armed costs no register read.
  if (!race_sampling_ || !race_sampling_->Armed(thread)) return false;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return false;
  auto space = execution_.atomics.spaces.find(thread.process->address_space);
  const AddressSpaceCode* code = space == execution_.atomics.spaces.end() ? nullptr : &space->second;
  if (!race_sampling_->OnTrap(thread, regs.Ip(), code)) return false;
  // Natively there is no trap: SIGTRAP's action and blocked bit stay as the program set them.
  UndoForcedSignal(thread, regs, SIGTRAP);
  ptrace::SetRegisters(thread.tid, regs);  // an injected sigaction may have moved them
  race_sampling_->BeforeResume(thread);
  ptrace::Resume(thread.tid);
  return true;
}

bool Supervisor::OnDisarmedWatchpoint(Thread& thread) {
  if (!race_sampling_ || !race_sampling_->OnDisarmedTrap(thread)) return false;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return false;
  UndoForcedSignal(thread, regs, SIGTRAP);
  ptrace::SetRegisters(thread.tid, regs);  // an injected sigaction may have moved them
  race_sampling_->BeforeResume(thread);
  ptrace::Resume(thread.tid);
  return true;
}

void Supervisor::StopRaceDetection() {
  race_sampling_->Stop();
  execution_.atomics.count.race_detection_cut_short = true;
  Notice("race points: the learning execution stopped looking for data races after " +
         std::to_string(atomic_points_->Plan().max_race_orderings) +
         " atomic operations; races in the rest of it are not seen (it goes on learning the atomic points)");
  // Its samples and libc's orderings have no more use: their breakpoints go, in every address
  // space a process still has.
  std::map<uint64_t, pid_t> process_of;
  for (const auto& [id, live] : threads_.Live()) process_of.emplace(live->process->address_space, live->process->tgid);
  for (auto& [space, code] : execution_.atomics.spaces) {
    const auto process = process_of.find(space);
    if (process == process_of.end()) continue;
    std::vector<uint64_t> gone;
    for (const auto& [address, site] : code.sites) {
      if (site.role == PlantedSite::Role::kSample || site.role == PlantedSite::Role::kSync) gone.push_back(address);
    }
    for (const uint64_t address : gone) atomic_points_->Retire(execution_.atomics, space, process->second, address);
  }
}

}  // namespace chess::supervisor
