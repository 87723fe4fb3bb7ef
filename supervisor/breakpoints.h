// Breakpoints over the program's own instructions, for scheduling points where no syscall is:
// before an atomic read-modify-write, before an access that races. An int3 written over the
// instruction's first byte stops the thread before it; the instruction then runs out of line —
// a copy of it, followed by a jump back, in a page the process maps near its code — so letting
// the thread go costs writing rip alone, and the int3 never leaves the text while another thread
// could reach it. Measured against the alternatives (restore, single-step, plant again: 4.2× a
// seccomp stop; emulating the instruction in the supervisor: 1.8×; out of line, the registers
// read and written: 1.6×, which is the floor of a point that must name the address its
// instruction touches through a register):
// bench/breakpoint_round_trip.cc, `bench/run_benchmarks.py --only breakpoints`.
//
// This file is the bookkeeping and the relocation, with the process's memory behind an
// interface: where the pages come from (a syscall injected into the program) and when to plant
// (an exec, an executable mapping) are the supervisor's.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace chess::supervisor {

// The longest x86-64 instruction, and an out-of-line slot: the copy, then `jmp rel32` back.
constexpr size_t kMaxInstructionLength = 15;
constexpr size_t kJumpLength = 5;
constexpr size_t kOutOfLineSlot = 32;
static_assert(kMaxInstructionLength + kJumpLength <= kOutOfLineSlot);

constexpr uint8_t kInt3 = 0xcc;

// One instruction of the program, as the code layer decoded it.
struct PatchableInstruction {
  uint64_t address = 0;        // where the process has it
  std::vector<uint8_t> bytes;  // its encoding, 1 to 15 bytes
  // The offset in `bytes` of a 32-bit displacement added to rip (a rip-relative memory operand).
  std::optional<uint8_t> rip_displacement_at;
  // Whether it changes or reads rip itself (call, jmp, jcc, ret, loop, a rip-relative branch):
  // such an instruction cannot run anywhere but where it is.
  bool uses_rip_for_control = false;
};

// The bytes to run at `at` in place of `instruction` where it is: the same instruction, its
// rip-relative displacement moved so it still names the same address, followed by a jump to
// the instruction after the original. nullopt when it cannot run there: it uses rip for control,
// or a displacement or the jump back would not reach (more than ±2 GiB).
std::optional<std::vector<uint8_t>> RelocatedCopy(const PatchableInstruction& instruction, uint64_t at);

// The process's memory as the table writes it: text is read-only, so a writer must write as a
// debugger does (/proc/PID/mem), not with process_vm_writev.
class ProcessText {
 public:
  virtual ~ProcessText() = default;
  virtual bool Write(uint64_t address, const void* bytes, size_t size) = 0;
};

// A process's memory through /proc/PID/mem, opened once (a patch is a pwrite). The descriptor
// holds the address space it was opened on: after an exec, open another.
class ProcessMemoryText final : public ProcessText {
 public:
  explicit ProcessMemoryText(pid_t pid);
  ~ProcessMemoryText() override;
  ProcessMemoryText(const ProcessMemoryText&) = delete;
  ProcessMemoryText& operator=(const ProcessMemoryText&) = delete;

  bool Opened() const { return fd_ >= 0; }
  bool Write(uint64_t address, const void* bytes, size_t size) override;

 private:
  int fd_;
};

// The pages a process mapped for out-of-line copies, sliced into slots. A copy must lie within a
// rel32 of the instruction it stands for, so a page serves the code around it: the supervisor
// maps one near each region of code (at a Candidate) when TakeSlot finds none. A slot whose copy
// was ever live is never handed out again in that address space: a thread may be stopped inside
// it (a signal, a watchpoint after the copied instruction) long after its breakpoint is gone.
class OutOfLinePages {
 public:
  // The supervisor mapped [address, address + size) in the process, readable and executable.
  void Add(uint64_t address, size_t size);
  // A free slot within reach of `near` and of `also_near` (a rip-relative operand the copy must
  // still name), taken; nullopt: map a page near `near` first.
  std::optional<uint64_t> TakeSlot(uint64_t near, std::optional<uint64_t> also_near = std::nullopt);
  // A slot taken but never written (its breakpoint could not be planted): free again.
  void GiveBack(uint64_t slot);
  // The `attempt`th place (0 to kCandidates - 1) to map a new page for code at `near` (with
  // MAP_FIXED_NOREPLACE, trying the next when it is taken): 1 MiB steps below the code's page,
  // then above it, within reach and never below kLowestPage. nullopt for an attempt with no place
  // (below the floor, past the top): go on to the next.
  static constexpr int kCandidates = 128;
  static constexpr uint64_t kLowestPage = 0x10000;  // mmap_min_addr's usual value: NULL + a little stays unmapped
  static std::optional<uint64_t> Candidate(uint64_t near, int attempt);
  // How large a page to ask for.
  static constexpr size_t kPageSize = 4096;

 private:
  struct Page {
    uint64_t address;
    size_t size;
    std::vector<uint64_t> free;  // slot addresses, taken from the back
  };
  std::vector<Page> pages_;
};

// One planted breakpoint.
struct Breakpoint {
  uint64_t address = 0;      // the instruction's, in the process
  uint64_t out_of_line = 0;  // where its copy runs (0: a one-shot breakpoint, which has none)
  uint8_t original = 0;      // the byte the int3 replaced
  size_t length = 0;         // the instruction's length
};

// The breakpoints of one address space. A fork's child has the same text and pages (CopyForFork);
// an exec leaves none (Forget).
class BreakpointTable {
 public:
  enum class Planted : uint8_t {
    kPlanted,           // the int3 is in the text, the copy in its slot
    kAlreadyPlanted,    // nothing to do
    kNotRelocatable,    // uses rip for control, or nothing reaches it: no breakpoint here
    kNeedsPage,         // no slot within reach: map a page at an OutOfLinePages::Candidate first
    kWriteFailed,       // the process's memory refused (a dying process, an unmapped address)
  };
  // Copies the instruction to a slot, then writes the int3 over its first byte: in this order, so
  // a thread that reaches the int3 always has its copy.
  Planted Plant(const PatchableInstruction& instruction, ProcessText& text);
  // An int3 with no copy: a sample's breakpoint, which stops a thread once and is then removed,
  // the thread going on from the instruction itself (Remove, then rip = address). Costs no slot.
  Planted PlantOneShot(const PatchableInstruction& instruction, ProcessText& text);
  // Puts the original byte back. The slot is not reused (see OutOfLinePages). False when no
  // breakpoint is at `address`, or the write failed.
  bool Remove(uint64_t address, ProcessText& text);

  // The breakpoint a SIGTRAP stopped at: its int3 is the byte before `rip_after_trap`. nullptr
  // when none is (the program's own int3, or a trap of another kind).
  const Breakpoint* AtTrap(uint64_t rip_after_trap) const;
  // Whether the byte before `rip_after_trap` held an int3 of this table's that is gone now. A
  // thread can run an int3 and be caught by an interrupt before its SIGTRAP is reported; parked
  // there, another thread may retire the breakpoint, and the trap surfaces when it is let go
  // (gdb's "moribund locations"). Such a trap is the supervisor's: the thread runs the
  // instruction again, from its own address.
  bool RemovedAtTrap(uint64_t rip_after_trap) const;
  // Where the thread stopped at `breakpoint` goes on: rip for running the instruction.
  static uint64_t ResumeAt(const Breakpoint& breakpoint) { return breakpoint.out_of_line; }
  // The program's own address for `rip`, wherever a stop left it: in a copy (the instruction, or
  // the jump after it: the instruction's end), just after a planted int3 (the instruction), or
  // elsewhere (itself). What a backtrace, a report, a delivered signal and a parked thread must
  // see, so that no program ever runs or names a supervisor's slot. Copies of removed
  // breakpoints are still known.
  uint64_t ProgramAddress(uint64_t rip) const;

  OutOfLinePages& Pages() { return pages_; }
  size_t Size() const { return planted_.size(); }
  BreakpointTable CopyForFork() const { return *this; }
  void Forget() { *this = BreakpointTable{}; }

 private:
  std::map<uint64_t, Breakpoint> planted_;
  // Every address an int3 was removed from (and not planted again): see RemovedAtTrap.
  std::set<uint64_t> removed_;
  // Every copy written, live or removed, by slot: slot → (instruction address, length).
  std::map<uint64_t, std::pair<uint64_t, size_t>> copies_;
  OutOfLinePages pages_;
};

}  // namespace chess::supervisor
