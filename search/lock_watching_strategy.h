// LockWatchingStrategy: another strategy decides; every lock acquisition that can wait, as the
// threads stop at it, goes into the execution's lock dependency relation (with the names of its
// locks and sites, for reports). The observation half of prediction (search/lock_dependency.h):
// `run --predict` and the first execution of `explore` watch, at no cost to the others.
#pragma once

#include <utility>

#include "search/lock_dependency.h"
#include "search/strategy.h"

namespace chess::search {

class LockWatchingStrategy final : public ForwardingStrategy {
 public:
  explicit LockWatchingStrategy(Strategy& inner) : ForwardingStrategy(inner) {}

  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override {
    // A lock is asked for at a shim's announcement or at a syscall (flock).
    if (context.locks != nullptr && context.current &&
        (context.point.op == OpKind::kSyncOp || context.point.op == OpKind::kSyscall)) {
      Watch(*context.locks, *context.current);
    }
    return ForwardingStrategy::PickThread(context);
  }

  // What the execution showed; the watch starts again empty.
  LockObservation Take() {
    LockObservation observation;
    observation.dependencies = recorder_.Dependencies();
    observation.kinds = recorder_.Kinds();
    observation.names = std::move(names_);
    recorder_ = {};
    names_.clear();
    return observation;
  }

 private:
  void Watch(LockRequests& locks, ThreadId thread) {
    const std::optional<LockRequest> request = locks.PendingOf(thread);
    if (!request) return;
    recorder_.Asked(request->dependency, request->kind);
    NameOnce(locks, request->dependency.lock);
    NameOnce(locks, request->dependency.site);
    for (const HeldLock& held : request->dependency.held) {
      NameOnce(locks, held.lock);
      NameOnce(locks, held.site);
    }
  }

  void NameOnce(LockRequests& locks, uint64_t address) {
    if (address == 0 || names_.count(address) != 0) return;
    std::string name = locks.Name(address);
    if (!name.empty()) names_.emplace(address, std::move(name));
  }

  LockDependencyRecorder recorder_;
  std::map<uint64_t, std::string> names_;
};

}  // namespace chess::search
