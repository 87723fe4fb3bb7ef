// Breakpoints over the program's own instructions: the relocation of an instruction to its
// out-of-line slot, the slots, and the table of planted int3s (supervisor/breakpoints.h).
#include "supervisor/breakpoints.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <string>

namespace chess::supervisor {
namespace {

constexpr uint64_t kPage = OutOfLinePages::kPageSize;
constexpr uint8_t kJumpRel32 = 0xe9;

// `target - from` as a rel32, when it fits.
std::optional<int32_t> Rel32(uint64_t target, uint64_t from) {
  const auto distance = static_cast<int64_t>(target - from);
  if (distance < std::numeric_limits<int32_t>::min() || distance > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(distance);
}

// How far a slot may lie from the code it serves: the rel32 reach less a margin, so that a
// displacement of the code's own data (within its module, a few MiB around it) reaches the slot's
// copy too.
constexpr uint64_t kSlotReach = (uint64_t{1} << 31) - (uint64_t{1} << 28);
constexpr uint64_t kCandidateStep = uint64_t{1} << 20;

bool WithinReach(uint64_t slot, uint64_t near) {
  return (slot > near ? slot - near : near - slot) < kSlotReach;
}

}  // namespace

std::optional<std::vector<uint8_t>> RelocatedCopy(const PatchableInstruction& instruction, uint64_t at) {
  const size_t length = instruction.bytes.size();
  if (instruction.uses_rip_for_control || length == 0 || length > kMaxInstructionLength) return std::nullopt;
  std::vector<uint8_t> copy(instruction.bytes);
  if (instruction.rip_displacement_at) {
    const size_t offset = *instruction.rip_displacement_at;
    if (offset + sizeof(int32_t) > length) return std::nullopt;
    int32_t displacement;
    std::memcpy(&displacement, copy.data() + offset, sizeof(displacement));
    // The operand's address is rip after the instruction plus the displacement, wherever it runs.
    const uint64_t operand = instruction.address + length + static_cast<int64_t>(displacement);
    const auto moved = Rel32(operand, at + length);
    if (!moved) return std::nullopt;
    std::memcpy(copy.data() + offset, &*moved, sizeof(*moved));
  }
  const auto back = Rel32(instruction.address + length, at + length + kJumpLength);
  if (!back) return std::nullopt;
  copy.push_back(kJumpRel32);
  copy.resize(copy.size() + sizeof(int32_t));
  std::memcpy(copy.data() + length + 1, &*back, sizeof(*back));
  return copy;
}

void OutOfLinePages::Add(uint64_t address, size_t size) {
  Page page{.address = address, .size = size, .free = {}};
  // Taken from the back: the lowest slot first.
  for (size_t slot = size / kOutOfLineSlot; slot-- > 0;) page.free.push_back(address + slot * kOutOfLineSlot);
  pages_.push_back(std::move(page));
}

std::optional<uint64_t> OutOfLinePages::TakeSlot(uint64_t near, std::optional<uint64_t> also_near) {
  const auto reaches = [&](uint64_t address) {
    return WithinReach(address, near) && (!also_near || WithinReach(address, *also_near));
  };
  for (Page& page : pages_) {
    if (page.free.empty() || !reaches(page.address) || !reaches(page.address + page.size)) continue;
    const uint64_t slot = page.free.back();
    page.free.pop_back();
    return slot;
  }
  return std::nullopt;
}

void OutOfLinePages::GiveBack(uint64_t slot) {
  for (Page& page : pages_) {
    if (slot >= page.address && slot < page.address + page.size) {
      page.free.push_back(slot);
      return;
    }
  }
}

std::optional<uint64_t> OutOfLinePages::Candidate(uint64_t near, int attempt) {
  if (attempt < 0 || attempt >= kCandidates) return std::nullopt;
  const int each_way = kCandidates / 2;
  const uint64_t page = near & ~(kPage - 1);
  const uint64_t distance = (static_cast<uint64_t>(attempt % each_way) + 1) * kCandidateStep;
  if (attempt < each_way) {
    if (page < kLowestPage + distance) return std::nullopt;  // below the floor
    return page - distance;
  }
  if (page > UINT64_MAX - distance - kPage) return std::nullopt;  // past the top
  return page + distance;
}

BreakpointTable::Planted BreakpointTable::Plant(const PatchableInstruction& instruction, ProcessText& text) {
  if (planted_.contains(instruction.address)) return Planted::kAlreadyPlanted;
  if (instruction.uses_rip_for_control || instruction.bytes.empty()) return Planted::kNotRelocatable;
  std::optional<uint64_t> operand;
  if (instruction.rip_displacement_at && *instruction.rip_displacement_at + sizeof(int32_t) <= instruction.bytes.size()) {
    int32_t displacement;
    std::memcpy(&displacement, instruction.bytes.data() + *instruction.rip_displacement_at, sizeof(displacement));
    operand = instruction.address + instruction.bytes.size() + static_cast<int64_t>(displacement);
  }
  const auto slot = pages_.TakeSlot(instruction.address, operand);
  if (!slot) return Planted::kNeedsPage;
  const auto copy = RelocatedCopy(instruction, *slot);
  if (!copy) {
    pages_.GiveBack(*slot);
    return Planted::kNotRelocatable;
  }
  if (!text.Write(*slot, copy->data(), copy->size())) {
    pages_.GiveBack(*slot);
    return Planted::kWriteFailed;
  }
  copies_[*slot] = {instruction.address, instruction.bytes.size()};
  if (!text.Write(instruction.address, &kInt3, 1)) return Planted::kWriteFailed;  // the copy stays known
  planted_.emplace(instruction.address, Breakpoint{.address = instruction.address,
                                                   .out_of_line = *slot,
                                                   .original = instruction.bytes.front(),
                                                   .length = instruction.bytes.size()});
  return Planted::kPlanted;
}

BreakpointTable::Planted BreakpointTable::PlantOneShot(const PatchableInstruction& instruction, ProcessText& text) {
  if (planted_.contains(instruction.address)) return Planted::kAlreadyPlanted;
  if (instruction.bytes.empty()) return Planted::kNotRelocatable;
  if (!text.Write(instruction.address, &kInt3, 1)) return Planted::kWriteFailed;
  planted_.emplace(instruction.address, Breakpoint{.address = instruction.address,
                                                   .out_of_line = 0,
                                                   .original = instruction.bytes.front(),
                                                   .length = instruction.bytes.size()});
  return Planted::kPlanted;
}

bool BreakpointTable::Remove(uint64_t address, ProcessText& text) {
  const auto found = planted_.find(address);
  if (found == planted_.end()) return false;
  if (!text.Write(address, &found->second.original, 1)) return false;
  planted_.erase(found);
  removed_.insert(address);
  return true;
}

uint64_t BreakpointTable::ProgramAddress(uint64_t rip) const {
  auto copy = copies_.upper_bound(rip);
  if (copy != copies_.begin()) {
    --copy;
    const auto [address, length] = copy->second;
    // In the copy: the instruction itself; at or in the jump after it: the instruction's end.
    if (rip >= copy->first && rip < copy->first + length) return address + (rip - copy->first);
    if (rip >= copy->first + length && rip < copy->first + length + kJumpLength) return address + length;
  }
  if (rip > 0 && planted_.contains(rip - 1)) return rip - 1;
  return rip;
}

const Breakpoint* BreakpointTable::AtTrap(uint64_t rip_after_trap) const {
  const auto found = planted_.find(rip_after_trap - 1);
  return found == planted_.end() ? nullptr : &found->second;
}

bool BreakpointTable::RemovedAtTrap(uint64_t rip_after_trap) const {
  return rip_after_trap > 0 && removed_.contains(rip_after_trap - 1) && !planted_.contains(rip_after_trap - 1);
}

ProcessMemoryText::ProcessMemoryText(pid_t pid)
    : fd_(open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDWR | O_CLOEXEC)) {}

ProcessMemoryText::~ProcessMemoryText() {
  if (fd_ >= 0) close(fd_);
}

bool ProcessMemoryText::Write(uint64_t address, const void* bytes, size_t size) {
  return fd_ >= 0 && pwrite(fd_, bytes, size, static_cast<off_t>(address)) == static_cast<ssize_t>(size);
}

}  // namespace chess::supervisor
