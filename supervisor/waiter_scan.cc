// Threads waiting on descriptors and kernel objects: which can go on now, and whether anything
// outside the tree could still wake them (waiter_scan.h).
#include "supervisor/waiter_scan.h"

#include "seccomp/syscall_family.h"

namespace chess::supervisor {
namespace {

// While nothing in the tree moves, who holds what outside it is looked at again this often.
constexpr MonoNanos kOutsideRecheck = 1'000'000'000;

}  // namespace

const std::vector<Thread*>& WaiterScan::FindReady() {
  // Waiters that hold copies of their descriptors are looked at with one poll() for all.
  batch_.clear();
  batched_.clear();
  ready_.clear();
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state != ThreadState::kBlocked || thread->process->dying || !thread->wait) continue;
    const IoWait* io = thread->wait->Io();
    if (io != nullptr && io->held.size() == io->fds.size()) {
      batched_.emplace_back(thread, batch_.size());
      for (size_t i = 0; i < io->fds.size(); ++i) batch_.push_back({io->held[i].get(), io->fds[i].events, 0});
    } else if (io != nullptr) {
      if (IoWaitReady(fds_, thread->process->tgid, *io)) ready_.push_back(thread);
    } else if (thread->wait->Is<ObjectWait>()) {
      SyscallContext context{*thread, services_};
      const FamilyHandler handler = HandlerFor(thread->call.family);
      if (handler.ready == nullptr || handler.ready(context)) ready_.push_back(thread);
    }
  }
  if (!batch_.empty() && poll(batch_.data(), batch_.size(), 0) > 0) {
    for (const auto& [thread, first] : batched_) {
      const IoWait& wait = *thread->wait->Io();
      size_t ready_count = 0;
      for (size_t i = 0; i < wait.fds.size(); ++i) {
        if (batch_[first + i].revents & (wait.fds[i].events | POLLERR | POLLHUP | POLLNVAL)) ++ready_count;
      }
      if (wait.needs_all ? ready_count == wait.fds.size() : ready_count > 0) ready_.push_back(thread);
    }
  }
  return ready_;
}

bool WaiterScan::AnyOnEvents() const {
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state == ThreadState::kBlocked && thread->wait &&
        (thread->wait->Io() != nullptr || thread->wait->Is<ObjectWait>() || thread->wait->Is<SignalWait>())) {
      return true;
    }
  }
  return false;
}

bool WaiterScan::AnyOnOutside(uint64_t dispatches, MonoNanos now, const TreeScope& scope) {
  if (outside_checked_at_ == dispatches && now - outside_checked_time_ < kOutsideRecheck) return outside_verdict_;
  outside_checked_at_ = dispatches;
  outside_checked_time_ = now;
  TreePids tree;
  for (const auto& [tgid, process] : threads_.Processes()) {
    if (!process->exit_code && !process->exit_signal) tree[tgid] = process->program_pid;
  }
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
    } else if (thread->wait->Is<KernelSleep>()) {
      // Asleep in a call chess-trace does not model: whoever could end it is not known.
      thread->waits_on = "asleep in the kernel";
      outside = true;
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
