// Hardware watchpoints through the debug registers (supervisor/watchpoints.h). The DR7 layout:
// slot i's local enable is bit 2i; its R/W field bits 16+4i, its LEN field bits 18+4i (Intel
// SDM vol. 3, 18.2.4).
#include "supervisor/watchpoints.h"

#include <cstdint>

#include "supervisor/ptrace/ptrace.h"

namespace chess::supervisor {
namespace {

constexpr int kStatusRegister = 6, kControlRegister = 7;
constexpr uint64_t kAlignedWord = 8;

uint64_t ReadWriteBits(Watch::Trigger trigger) { return trigger == Watch::Trigger::kWrite ? 0b01 : 0b11; }

uint64_t LengthBits(uint8_t length) {
  switch (length) {
    case 1: return 0b00;
    case 2: return 0b01;
    case 8: return 0b10;
    default: return 0b11;  // 4
  }
}

}  // namespace

bool Watch::Valid() const {
  return (length == 1 || length == 2 || length == 4 || length == 8) && address % length == 0;
}

std::vector<Watch> AlignedCover(uint64_t address, size_t size, Watch::Trigger trigger) {
  if (size == 0 || size > 16 || address > UINT64_MAX - (size - 1)) return {};
  const uint64_t last = address + size - 1;
  for (uint8_t length : {1, 2, 4, 8}) {
    if (address / length == last / length) {
      return {Watch{.address = address - address % length, .length = length, .trigger = trigger}};
    }
  }
  std::vector<Watch> words;
  const uint64_t first = address / kAlignedWord, end = last / kAlignedWord;  // counted, not summed: no wrap
  for (uint64_t word = first; word <= end; ++word) {
    words.push_back(Watch{.address = word * kAlignedWord, .length = kAlignedWord, .trigger = trigger});
  }
  return words;
}

uint64_t DebugControl(const std::array<std::optional<Watch>, kWatchSlots>& slots) {
  uint64_t control = 0;
  for (int slot = 0; slot < kWatchSlots; ++slot) {
    const auto& watch = slots[static_cast<size_t>(slot)];
    if (!watch) continue;
    control |= uint64_t{1} << (2 * slot);
    control |= ReadWriteBits(watch->trigger) << (16 + 4 * slot);
    control |= LengthBits(watch->length) << (18 + 4 * slot);
  }
  return control;
}

std::bitset<kWatchSlots> FiredSlots(uint64_t debug_status) { return {debug_status & 0xf}; }

std::optional<int> ThreadWatchpoints::Arm(const Watch& watch) {
  if (!watch.Valid()) return std::nullopt;
  for (size_t slot = 0; slot < kWatchSlots; ++slot) {
    if (slots_[slot] != watch) continue;
    ++users_[slot];
    return static_cast<int>(slot);
  }
  for (size_t slot = 0; slot < kWatchSlots; ++slot) {
    if (slots_[slot]) continue;
    slots_[slot] = watch;
    users_[slot] = 1;
    changed_ = true;
    return static_cast<int>(slot);
  }
  return std::nullopt;
}

bool ThreadWatchpoints::Disarm(const Watch& watch) {
  for (size_t slot = 0; slot < kWatchSlots; ++slot) {
    if (slots_[slot] != watch) continue;
    if (--users_[slot] == 0) {
      slots_[slot].reset();
      changed_ = true;
    }
    return true;
  }
  return false;
}

void ThreadWatchpoints::DisarmAll() {
  for (size_t slot = 0; slot < kWatchSlots; ++slot) {
    if (slots_[slot]) changed_ = true;
    slots_[slot].reset();
    users_[slot] = 0;
  }
}

std::vector<Watch> ThreadWatchpoints::Fired(uint64_t debug_status) const {
  std::vector<Watch> fired;
  const auto bits = FiredSlots(debug_status);
  for (int slot = 0; slot < kWatchSlots; ++slot) {
    if (bits.test(static_cast<size_t>(slot)) && slots_[static_cast<size_t>(slot)]) {
      fired.push_back(*slots_[static_cast<size_t>(slot)]);
    }
  }
  return fired;
}

int ThreadWatchpoints::Free() const {
  int free = 0;
  for (const auto& slot : slots_) free += slot ? 0 : 1;
  return free;
}

bool ThreadWatchpoints::Store(pid_t tid) {
  if (!changed_) return true;
  // Disabled first, then the addresses, then enabled: no slot is ever live on a stale address.
  if (!ptrace::SetDebugRegister(tid, kControlRegister, 0)) return false;
  for (int slot = 0; slot < kWatchSlots; ++slot) {
    const auto& watch = slots_[static_cast<size_t>(slot)];
    if (watch && !ptrace::SetDebugRegister(tid, slot, watch->address)) return false;
  }
  if (!ptrace::SetDebugRegister(tid, kControlRegister, DebugControl(slots_))) return false;
  changed_ = false;
  return true;
}

bool ThreadWatchpoints::ClearStatus(pid_t tid) { return ptrace::SetDebugRegister(tid, kStatusRegister, 0); }

}  // namespace chess::supervisor
