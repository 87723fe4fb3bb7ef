// Hardware watchpoints: the x86 debug registers, for watching what other threads do to an
// address a sampled access touched (issue 21's race points: DataCollider's "breakpoint at an
// access, watchpoint on its address"). Each thread has its own four slots (DR0–DR3), each
// watching 1, 2, 4 or 8 bytes aligned to their length, for writes or for reads and writes;
// DR7 enables them, DR6 says which fired. A hit is a SIGTRAP (si_code TRAP_HWBKPT) after the
// accessing instruction, in user space only: the kernel's own accesses (a read() into the buffer)
// do not trigger them. New threads do not inherit them: a watch is armed in every thread, the
// ones that come later included.
//
// Measured here (a KVM guest): the registers work, and a hit stops the thread with the rip of
// the instruction after the access and DR6's bit of the slot set.
#pragma once

#include <sys/types.h>

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <vector>

namespace chess::supervisor {

constexpr int kWatchSlots = 4;

// What one slot watches.
struct Watch {
  enum class Trigger : uint8_t {
    kWrite,      // writes only (DR7 R/W = 01)
    kReadWrite,  // reads and writes (R/W = 11); x86 has no read-only watch
  };
  uint64_t address = 0;  // aligned to `length`
  uint8_t length = 8;    // 1, 2, 4 or 8
  Trigger trigger = Trigger::kReadWrite;

  bool Valid() const;
  bool operator==(const Watch&) const = default;
};

// The fewest aligned watches that cover [address, address + size) (size 1 to 16, an access's
// bytes: a 16-byte SSE access needs two or three): one watch of the smallest length whose
// aligned span holds all the bytes, else one 8-byte watch per aligned word they touch. They may
// watch a few neighbouring bytes too; a hit there is told apart by the hit access's own address.
// Empty when size is 0 or above 16, or when the bytes run past the top of the address space.
std::vector<Watch> AlignedCover(uint64_t address, size_t size, Watch::Trigger trigger);

// DR7 for the slots given (the local enable bit and R/W and LEN fields of each slot in use).
uint64_t DebugControl(const std::array<std::optional<Watch>, kWatchSlots>& slots);

// The slots DR6 says fired (its low four bits).
std::bitset<kWatchSlots> FiredSlots(uint64_t debug_status);

// One thread's four slots, kept as the supervisor wants them, and written to the thread's debug
// registers when they differ from what was written there. A copy (for a new thread, which the
// kernel gives no debug registers) and an exec (which clears them) leave the kernel's registers
// empty: both must be stored again.
class ThreadWatchpoints {
 public:
  ThreadWatchpoints() = default;
  ThreadWatchpoints(const ThreadWatchpoints& other) : slots_(other.slots_), users_(other.users_), changed_(true) {}
  ThreadWatchpoints& operator=(const ThreadWatchpoints& other) {
    slots_ = other.slots_;
    users_ = other.users_;
    changed_ = true;
    return *this;
  }

  // The slot `watch` went to, or nullopt when all four are taken (or the watch is invalid). A
  // watch armed twice shares its slot, and is disarmed when both have disarmed it.
  std::optional<int> Arm(const Watch& watch);
  // One user of the slot watching `watch`'s bytes lets go; the slot is freed with the last. False
  // when none watches them.
  bool Disarm(const Watch& watch);
  // The thread exec'd: the kernel cleared its debug registers.
  void Cleared() { changed_ = true; }
  void DisarmAll();
  const std::optional<Watch>& Slot(int slot) const { return slots_[static_cast<size_t>(slot)]; }
  // The watch of a slot DR6 names.
  std::vector<Watch> Fired(uint64_t debug_status) const;
  int Free() const;

  // Writes the slots to the stopped thread `tid` when they changed since the last write (first
  // the addresses, then DR7, so no slot is ever enabled on a stale address); clears DR6 after a
  // hit was read. False when the kernel refused (the thread is gone).
  bool Store(pid_t tid);
  bool ClearStatus(pid_t tid);

 private:
  std::array<std::optional<Watch>, kWatchSlots> slots_{};
  std::array<int, kWatchSlots> users_{};
  bool changed_ = false;
};

}  // namespace chess::supervisor
