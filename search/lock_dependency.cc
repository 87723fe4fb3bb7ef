#include "search/lock_dependency.h"

#include <algorithm>
#include <cstdio>

namespace chess::search {

bool WouldWait(LockMode request, LockMode held, LockKind kind) {
  if (request == LockMode::kExclusive || held == LockMode::kExclusive) return true;
  return kind.writer_preferring;
}

void LockDependencyRecorder::Asked(const LockDependency& request, LockKind kind) {
  kinds_[request.lock] = kind;
  LockDependency dependency = request;
  dependency.held.clear();
  for (const HeldLock& held : request.held) {
    if (held.lock == request.lock) return;  // taken again: it cannot wait for itself
    const bool listed = std::any_of(dependency.held.begin(), dependency.held.end(),
                                    [&](const HeldLock& earlier) { return earlier.lock == held.lock; });
    if (!listed) dependency.held.push_back(held);
  }
  dependencies_.insert(std::move(dependency));
}

size_t LockObservation::Threads() const {
  std::set<uint32_t> threads;
  for (const LockDependency& dependency : dependencies) threads.insert(dependency.thread);
  return threads.size();
}

void LockDependencyRecorder::Acquired(uint32_t thread, uint64_t lock, LockMode mode, uint64_t site, LockKind kind) {
  kinds_[lock] = kind;
  std::vector<Held>& held = holding_[thread];
  auto again = std::find_if(held.begin(), held.end(), [&](const Held& h) { return h.lock.lock == lock; });
  if (again != held.end()) {
    ++again->count;
    return;
  }
  LockDependency dependency;
  dependency.thread = thread;
  dependency.lock = lock;
  dependency.mode = mode;
  dependency.site = site;
  dependency.held.reserve(held.size());
  for (const Held& h : held) dependency.held.push_back(h.lock);
  // Taking a first lock depends on nothing; it is still a dependency (the chain's last step can
  // wait for a lock with nothing held), as in the thesis's D.
  dependencies_.insert(std::move(dependency));
  held.push_back(Held{HeldLock{lock, mode, site}, 1});
}

void LockDependencyRecorder::Released(uint32_t thread, uint64_t lock) {
  auto found = holding_.find(thread);
  if (found == holding_.end()) return;
  std::vector<Held>& held = found->second;
  auto h = std::find_if(held.begin(), held.end(), [&](const Held& candidate) { return candidate.lock.lock == lock; });
  if (h == held.end()) return;  // released by another thread than took it, or never seen taken
  if (--h->count == 0) held.erase(h);
}

void LockDependencyRecorder::Exited(uint32_t thread) { holding_.erase(thread); }

std::vector<HeldLock> LockDependencyRecorder::Holding(uint32_t thread) const {
  std::vector<HeldLock> locks;
  auto found = holding_.find(thread);
  if (found == holding_.end()) return locks;
  for (const Held& h : found->second) locks.push_back(h.lock);
  return locks;
}

namespace {

LockKind KindOf(const std::map<uint64_t, LockKind>& kinds, uint64_t lock) {
  auto found = kinds.find(lock);
  return found == kinds.end() ? LockKind{} : found->second;
}

const HeldLock* FindHeld(const LockDependency& dependency, uint64_t lock) {
  for (const HeldLock& held : dependency.held) {
    if (held.lock == lock) return &held;
  }
  return nullptr;
}

// Whether `waiting` (its lock, in its mode) waits for `holder`, which holds that lock.
bool WaitsFor(const LockDependency& waiting, const LockDependency& holder, const std::map<uint64_t, LockKind>& kinds) {
  const HeldLock* held = FindHeld(holder, waiting.lock);
  return held != nullptr && WouldWait(waiting.mode, held->mode, KindOf(kinds, waiting.lock));
}

// A lock both held when they asked, by at least one of them exclusively: it kept them from
// being at these acquisitions at once (two read holds exclude nothing).
bool Gated(const LockDependency& a, const LockDependency& b) {
  for (const HeldLock& held : a.held) {
    const HeldLock* other = FindHeld(b, held.lock);
    if (other != nullptr && (held.mode == LockMode::kExclusive || other->mode == LockMode::kExclusive)) return true;
  }
  return false;
}

}  // namespace

CyclePrediction PredictCycles(const std::set<LockDependency>& dependencies, const std::map<uint64_t, LockKind>& kinds,
                              size_t max_length, uint64_t chain_budget) {
  CyclePrediction prediction;
  // Only a dependency that holds something can be waited for, or wait for the first: every step
  // of a cycle holds a lock another step asks for.
  std::vector<const LockDependency*> steps;
  for (const LockDependency& dependency : dependencies) {
    if (!dependency.held.empty()) steps.push_back(&dependency);
  }
  using Chain = std::vector<size_t>;
  std::vector<Chain> chains;
  for (size_t i = 0; i < steps.size(); ++i) chains.push_back({i});
  uint64_t built = chains.size();
  std::set<std::vector<LockDependency>> seen;  // the cycles found, their threads left out
  std::set<std::vector<LockDependency>> gated_seen;  // … and those a gate lock rules out
  for (size_t length = 1; length < max_length && !chains.empty(); ++length) {
    std::vector<Chain> longer;
    for (const Chain& chain : chains) {
      const LockDependency& first = *steps[chain.front()];
      const LockDependency& last = *steps[chain.back()];
      for (size_t next = 0; next < steps.size(); ++next) {
        const LockDependency& step = *steps[next];
        // The first thread is the smallest: each cycle is found from one place only.
        if (step.thread <= first.thread) continue;
        if (!WaitsFor(last, step, kinds)) continue;
        bool fits = true;
        bool gated = false;
        for (size_t i : chain) {
          const LockDependency& earlier = *steps[i];
          if (earlier.thread == step.thread || earlier.lock == step.lock) {
            fits = false;
            break;
          }
          if (Gated(earlier, step)) gated = true;
        }
        if (!fits) continue;
        const bool closes = WaitsFor(step, first, kinds);
        if (gated) {
          if (closes) {
            std::vector<LockDependency> threadless;
            for (size_t i : chain) threadless.push_back(*steps[i]);
            threadless.push_back(step);
            for (LockDependency& d : threadless) d.thread = 0;
            if (gated_seen.insert(std::move(threadless)).second) ++prediction.gated;
          }
          continue;
        }
        if (built >= chain_budget) {
          prediction.cut_short = true;
          break;
        }
        ++built;
        Chain extended = chain;
        extended.push_back(next);
        if (closes) {
          PredictedCycle cycle;
          for (size_t i : extended) cycle.steps.push_back(*steps[i]);
          std::vector<LockDependency> threadless = cycle.steps;
          for (LockDependency& d : threadless) d.thread = 0;
          if (seen.insert(std::move(threadless)).second) prediction.cycles.push_back(std::move(cycle));
        } else {
          longer.push_back(std::move(extended));  // a cycle is not extended: it is reported as it is
        }
      }
      if (prediction.cut_short) break;
    }
    if (prediction.cut_short) break;
    chains = std::move(longer);
  }
  return prediction;
}

std::string DescribeCycle(const PredictedCycle& cycle, const LockObservation& observed) {
  auto name = [&](uint64_t address) {
    auto found = observed.names.find(address);
    if (found != observed.names.end()) return found->second;
    char text[32];
    std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(address));
    return std::string(text);
  };
  // A lock with no name of its own (a heap lock) is named by its address in this execution and
  // where `holder` took it.
  auto lock = [&](uint64_t address, const LockDependency& holder) {
    if (observed.names.count(address) != 0) return observed.names.at(address);
    const HeldLock* held = FindHeld(holder, address);
    if (held == nullptr || held->site == 0) return name(address);
    return "the lock at " + name(address) + " (taken at " + name(held->site) + ")";
  };
  std::string words;
  const size_t n = cycle.steps.size();
  for (size_t i = 0; i < n; ++i) {
    const LockDependency& step = cycle.steps[i];
    const LockDependency& after = cycle.steps[(i + 1) % n];
    const LockDependency& before = cycle.steps[(i + n - 1) % n];
    if (!words.empty()) words += ", ";
    words += lock(before.lock, step) + " → " + lock(step.lock, after) + (step.mode == LockMode::kShared ? " (read)" : "") +
             " in " + name(step.site);
  }
  return words;
}

}  // namespace chess::search
