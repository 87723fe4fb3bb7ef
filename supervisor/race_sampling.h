// Race detection in a learning execution (the races layer: search/atomic_points.h), DataCollider's
// way adapted to a serialized execution: a one-shot breakpoint samples a plain memory access, and
// a hardware watchpoint on the bytes it touched then sees what the *other* threads do to them.
// With one thread running at a time, "pause the accessing thread and watch" would see nothing, so
// the watches stay armed, in every other thread of the address space (later ones included), for
// the rest of the execution or until a newer sample needs the slot: each space has four, the
// least recently sampled memory given up first. What a watch sees is judged by the race detector
// (search/race_detector.h) against the happens-before of the operations the supervisor saw.
//
// A thread's watch is narrowed as it is seen: after its first read of the memory it is watched
// for writes only, after its first write not at all (its later accesses add no race the first
// did not, and a thread spinning on a watched flag must not stop at every turn).
//
// A thread's end is a release the kernel makes on its clear-child-tid word (it writes 0 and wakes
// the joiners). A joiner that finds the word 0 already makes no futex call: the word is watched
// for a while after the end, and the first thread that reads it acquires the end.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "search/atomic_points.h"
#include "search/race_detector.h"
#include "search/scheduling_point.h"
#include "supervisor/watchpoints.h"

namespace chess::supervisor {

struct Thread;
struct AddressSpaceCode;
struct PlantedSite;

// The memory one address space's watchpoints watch: at most kWatchSlots ranges. Pure
// bookkeeping: which watch each thread must have armed is SlotsFor's answer.
class WatchList {
 public:
  struct Entry {
    uint64_t id = 0;  // unique in the execution: a thread's progress on it is kept by id
    Watch watch;      // the aligned cover armed
    uint64_t address = 0;  // the bytes a sample touched (within the cover)
    uint8_t size = 0;
    search::ThreadId sampler;  // whose access it was: not watched in that thread
    // A thread's clear-child-tid word after its end (the sync object its end released on), not
    // a sampled access: its first reader acquires the end.
    std::optional<uint64_t> join_object;
    std::vector<uint8_t> value;  // the bytes as last seen: a hit that changed them wrote
    uint64_t last_used = 0;
  };
  // How far a thread has been seen on an entry.
  enum class Progress : uint8_t { kNone, kRead, kWritten };

  // Watches [address, address + size) for `sampler`'s sample; a range already watched (the same
  // cover) is refreshed. The least recently used entry goes when all slots are taken. nullptr
  // when the bytes have no cover (over 16 bytes).
  Entry* Watch(uint64_t address, uint8_t size, search::ThreadId sampler);
  Entry* Find(uint64_t id);
  // The entry whose cover is `watch` (a fired slot).
  Entry* Fired(const supervisor::Watch& watch);
  void Remove(uint64_t id);
  void Clear();
  // Bumped at every change of the entries: a thread armed at this generation is up to date.
  uint64_t generation() const { return generation_; }
  const std::vector<Entry>& entries() const { return entries_; }
  // What `thread` must have armed, given how far it was seen on each entry.
  std::array<std::optional<supervisor::Watch>, kWatchSlots> SlotsFor(search::ThreadId thread,
                                                                     const std::map<uint64_t, Progress>& seen) const;

 private:
  std::vector<Entry> entries_;
  uint64_t next_id_ = 1;
  uint64_t clock_ = 0;
  uint64_t generation_ = 0;
};

class RaceSampling {
 public:
  // Where the races and the counts go (the execution's AtomicPointCount).
  explicit RaceSampling(search::AtomicPointCount& count) : count_(count) {}

  // Happens-before, from what the supervisor saw.
  void ThreadCreated(search::ThreadId parent, search::ThreadId child) { detector_.ThreadCreated(parent, child); }
  // `waiter` goes on only after `ended` let go (a vfork parent, once its child exec'd or exited).
  void Joined(search::ThreadId waiter, search::ThreadId ended) { detector_.Joined(waiter, ended); }
  // `thread` carried out the operation of `point` (it was let go from it, or — a waiter — woken
  // and let go again: its wait acquires then what the waker released).
  void Performed(const Thread& thread, const search::SchedulingPoint& point);
  // `thread` ended (its exit point performed): its clear-child-tid word is watched for a joiner
  // that finds it 0 without waiting.
  void Ended(const Thread& thread);

  // A sample breakpoint stopped `thread` (registers `regs`) before `site`'s instruction: its
  // accesses are judged and watched in the other threads.
  void Sampled(const Thread& thread, const PlantedSite& site, const user_regs_struct& regs, const AddressSpaceCode& code);
  // A SIGTRAP stop of `thread` with `rip` after the trapping instruction: true when one of its
  // watchpoints fired (the access is judged; the trap is the supervisor's, not the program's).
  bool OnTrap(const Thread& thread, uint64_t rip, const AddressSpaceCode* code);
  // Whether `thread` has a watchpoint armed: only then may a SIGTRAP of its be one (but see
  // OnDisarmedTrap).
  bool Armed(const Thread& thread) const;
  // A SIGTRAP of `thread` that no breakpoint made: true when a watchpoint fired before the
  // thread's registers were disarmed or re-armed, its report delayed by an interrupt that parked
  // the thread first. The access goes unjudged (the watch was given up); the trap is the
  // supervisor's, taken quietly.
  bool OnDisarmedTrap(const Thread& thread);
  // Before `thread` runs: its debug registers as its space's watches want them.
  void BeforeResume(const Thread& thread);

  // The orderings judged so far (Performed's atomic instructions and locks).
  uint64_t Orderings() const { return orderings_; }
  // Looks for races no more: nothing is judged, every watch is given up (each thread's debug
  // registers are cleared when it next runs, and a trap already on its way is taken quietly).
  void Stop();
  bool Active() const { return !stopped_; }

 private:
  struct ThreadWatches {
    uint64_t space = 0;
    uint64_t generation = ~uint64_t{0};
    bool dirty = true;
    ThreadWatchpoints registers;
    std::map<uint64_t, WatchList::Progress> seen;  // by entry id
  };
  void NoteLocks(const Thread& thread, const search::SchedulingPoint& point);
  void Judge(const Thread& thread, const search::MemoryAccess& access, const AddressSpaceCode* code);
  search::RacingAccess Describe(const Thread& thread, const search::MemoryAccess& access, const AddressSpaceCode* code);

  // The locks each thread took through the shim and has not released (by ThreadId::value): a
  // condition variable's wait releases its mutex inside libc, unannounced, and takes it again.
  std::map<uint32_t, std::set<uint64_t>> held_;
  search::AtomicPointCount& count_;
  search::RaceDetector detector_;
  std::map<uint64_t, WatchList> spaces_;  // by Process::address_space
  std::map<uint32_t, ThreadWatches> threads_;  // by ThreadId::value
  uint64_t orderings_ = 0;
  bool stopped_ = false;
};

}  // namespace chess::supervisor
