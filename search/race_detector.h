// Data races in one execution, from what the supervisor sees: the happens-before relation of its
// synchronization operations, and memory accesses sampled by watchpoints. Two accesses to the
// same byte by different threads, at least one a write, neither ordered before the other, race.
//
// Happens-before comes only from operations on the same object — a futex word, a lock, a
// descriptor, a thread's creation and its end, a signal, an atomic location — never from the
// order the serialized execution happened to run them in: with one thread running at a time,
// that global order would order every pair of accesses and hide every race.
//
// Vector clocks with FastTrack's epochs (Flanagan and Freund, PLDI 2009): a thread's clock ticks
// after each release; an access is remembered as (thread, tick), and an earlier access is
// ordered before a thread's present when its tick is at most the thread's view of its thread.
// Shadow state is kept per byte the accesses touched: watchpoints sample a few addresses, not
// the whole memory.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "search/thread_id.h"

namespace chess::search {

// What a thread knows of every thread's progress: entry i is the last tick of thread i ordered
// before the owner's present.
class VectorClock {
 public:
  uint32_t At(ThreadId thread) const { return thread.value < ticks_.size() ? ticks_[thread.value] : 0; }
  void Set(ThreadId thread, uint32_t tick);
  // Everything `other` knows, this knows now.
  void Join(const VectorClock& other);

 private:
  std::vector<uint32_t> ticks_;
};

// One memory access, as a watchpoint (or a breakpoint at the instruction) saw it.
struct MemoryAccess {
  ThreadId thread;
  // Which memory `address` is in: the process's address space for private memory (a forked
  // child's copy of a variable is another variable), or one name for a shared mapping that every
  // process sharing it uses, with `address` its offset there.
  uint64_t space = 0;
  uint64_t address = 0;      // the first byte it touched
  uint8_t size = 1;          // 1 to 8 bytes
  bool is_write = false;
  uint64_t instruction = 0;  // where the accessing instruction is (what a race names, what becomes a point)
};

// Two accesses that race; `earlier` came first in this execution.
struct Race {
  MemoryAccess earlier;
  MemoryAccess later;
};

// How a synchronization operation orders: acquire what the object's releases published, publish
// what the thread did, or both (a read-modify-write, a futex operation the supervisor cannot
// split, an operation of unknown direction — ordering more only hides races, never invents one).
enum class Ordering : uint8_t { kAcquire, kRelease, kAcquireRelease };

class RaceDetector {
 public:
  // `parent` created `child`: everything the parent did so far comes before the child's start.
  void ThreadCreated(ThreadId parent, ThreadId child);
  // `waiter` saw `ended` finish (a join's futex wake, wait4, a CLONE_CHILD_CLEARTID word):
  // everything `ended` did comes before.
  void Joined(ThreadId waiter, ThreadId ended);
  // `thread` carried out a synchronization operation on `object` (a nonzero name the supervisor
  // gives it: a futex word's key, a descriptor's file, a lock's address…).
  void Synchronized(ThreadId thread, uint64_t object, Ordering ordering);
  // `access` happened now. Returns the races it completes with earlier accesses, each pair of
  // instructions once per execution (the first time it races).
  std::vector<Race> Accessed(const MemoryAccess& access);

 private:
  struct Epoch {
    uint32_t tick = 0;  // 0: none
    MemoryAccess access;
  };
  // What the execution did to one byte: its last write, and the last read of each thread since.
  struct Shadow {
    Epoch write;
    std::unordered_map<uint32_t, Epoch> reads;
  };

  VectorClock& Clock(ThreadId thread);
  // The thread's own tick now: what its next access is remembered with.
  uint32_t Now(ThreadId thread);
  // `earlier` is ordered before `thread`'s present.
  bool Before(const Epoch& earlier, ThreadId thread);
  void Note(const MemoryAccess& earlier, const MemoryAccess& later, std::vector<Race>& races);

  std::unordered_map<uint32_t, VectorClock> threads_;
  std::unordered_map<uint64_t, VectorClock> objects_;
  std::map<std::pair<uint64_t, uint64_t>, Shadow> bytes_;  // by (space, address)
  std::set<std::pair<uint64_t, uint64_t>> reported_;  // instruction pairs, the lower address first
};

}  // namespace chess::search
