// Data races from happens-before over same-object operations and sampled accesses
// (search/race_detector.h).
#include "search/race_detector.h"

#include <algorithm>

namespace chess::search {

void VectorClock::Set(ThreadId thread, uint32_t tick) {
  if (thread.value >= ticks_.size()) ticks_.resize(thread.value + 1, 0);
  ticks_[thread.value] = tick;
}

void VectorClock::Join(const VectorClock& other) {
  if (other.ticks_.size() > ticks_.size()) ticks_.resize(other.ticks_.size(), 0);
  for (size_t i = 0; i < other.ticks_.size(); ++i) ticks_[i] = std::max(ticks_[i], other.ticks_[i]);
}

VectorClock& RaceDetector::Clock(ThreadId thread) {
  auto [found, created] = threads_.try_emplace(thread.value);
  // A thread's own first tick is 1, so that 0 can mean "no access".
  if (created) found->second.Set(thread, 1);
  return found->second;
}

uint32_t RaceDetector::Now(ThreadId thread) { return Clock(thread).At(thread); }

bool RaceDetector::Before(const Epoch& earlier, ThreadId thread) {
  return earlier.access.thread == thread || earlier.tick <= Clock(thread).At(earlier.access.thread);
}

void RaceDetector::ThreadCreated(ThreadId parent, ThreadId child) {
  VectorClock& parent_clock = Clock(parent);
  VectorClock& child_clock = Clock(child);
  child_clock.Join(parent_clock);
  child_clock.Set(child, std::max<uint32_t>(child_clock.At(child), 1));
  parent_clock.Set(parent, parent_clock.At(parent) + 1);
}

void RaceDetector::Joined(ThreadId waiter, ThreadId ended) {
  if (waiter == ended) return;
  const VectorClock ended_clock = Clock(ended);
  Clock(waiter).Join(ended_clock);
}

void RaceDetector::Synchronized(ThreadId thread, uint64_t object, Ordering ordering) {
  VectorClock& clock = Clock(thread);
  VectorClock& published = objects_[object];
  if (ordering != Ordering::kRelease) clock.Join(published);
  if (ordering != Ordering::kAcquire) {
    // Joined, not replaced: an object several threads release (a futex word, an atomic location)
    // publishes what each of them did.
    published.Join(clock);
    clock.Set(thread, clock.At(thread) + 1);
  }
}

void RaceDetector::Note(const MemoryAccess& earlier, const MemoryAccess& later, std::vector<Race>& races) {
  const auto pair = std::minmax(earlier.instruction, later.instruction);
  if (reported_.insert({pair.first, pair.second}).second) races.push_back({earlier, later});
}

std::vector<Race> RaceDetector::Accessed(const MemoryAccess& access) {
  std::vector<Race> races;
  const ThreadId thread = access.thread;
  const Epoch now{.tick = Now(thread), .access = access};
  for (uint64_t byte = access.address; byte < access.address + std::max<uint8_t>(access.size, 1); ++byte) {
    Shadow& shadow = bytes_[{access.space, byte}];
    if (shadow.write.tick != 0 && !Before(shadow.write, thread)) Note(shadow.write.access, access, races);
    if (!access.is_write) {
      shadow.reads[thread.value] = now;
      continue;
    }
    for (const auto& [reader, read] : shadow.reads) {
      if (!Before(read, thread)) Note(read.access, access, races);
    }
    shadow.reads.clear();
    shadow.write = now;
  }
  return races;
}

}  // namespace chess::search
