// Atomic points: a breakpoint before each atomic instruction of the program's code — a locked
// read-modify-write, an xchg with memory, a fence — whose stop is a scheduling point carrying
// CHESS's triple (the thread, the address the instruction touches, whether it writes there).
// Breakpoints are planted where code appears: the image an exec loads, and each mmap or mprotect
// that makes memory executable (ld.so's libraries, dlopen), at the call's exit, before any of it
// runs. The instruction then runs out of line (breakpoints.h), so the int3 never leaves the text.
//
// What is planted follows the search's plan (search/atomic_points.h): a learning execution plants
// every atomic site and notes which ran while another thread was alive, parking at none; the
// search's executions plant every site but those the learning execution ran only alone, and park
// at each while another thread is alive (up to the plan's cap).
// Never planted: chess-trace's preload shim, and — where the shim announces the pthread and C11
// sync operations — the C library and the dynamic loader, whose atomics are those operations'
// insides (or libc's own locks: malloc's, stdio's), so one mutex operation makes one point.
//
// The state is plain data in ExecutionState (so a fork server's prefix carries it); AtomicPoints
// is the part that reads maps, writes text and injects calls.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/atomic_points.h"
#include "supervisor/breakpoints.h"
#include "supervisor/code/code_sites.h"
#include "supervisor/ptrace/registers.h"

namespace chess::supervisor {

struct Thread;

// A file of code one address space maps executable, and what decoding found in it.
struct MappedModule {
  uint64_t begin = 0;  // the executable mapping
  uint64_t end = 0;
  std::string path;
  code::MappedCode code;
};

// The site of a planted breakpoint, and what its stop is for.
struct PlantedSite {
  enum class Role : uint8_t {
    kAtomic,  // an atomic instruction: a point (or, learning, a note of who ran it)
    kSample,  // a plain access sampled for races (learning): a one-shot breakpoint
    kRace,    // a plain access found racing: a point (OpKind::kRacyAccess)
    // An atomic instruction of a library the shim announces (libc's own locks: malloc's arenas,
    // stdio's), planted only while races are learned: never a point, only an ordering, so that
    // memory one thread frees and another gets from malloc is not taken for a race.
    kSync,
  };
  search::CodeLocation location;
  code::CodeSite site;
  uint64_t load_bias = 0;
  Role role = Role::kAtomic;
};

// The atomic points of one address space: copied by a fork, shared by CLONE_VM relatives, new at
// an exec.
struct AddressSpaceCode {
  BreakpointTable breakpoints;
  std::vector<MappedModule> modules;
  std::map<uint64_t, PlantedSite> sites;  // by run-time address
};

// What a learning execution notes of a site.
struct SiteUse {
  uint64_t hits = 0;
  bool concurrent = false;  // it ran while another thread of the tree was alive
};

// Everything an execution's atomic points are: per address space, and what it learned and
// counted. Plain data, part of ExecutionState.
struct AtomicPointState {
  std::map<uint64_t, AddressSpaceCode> spaces;  // by Process::address_space
  std::map<search::CodeLocation, SiteUse> uses;
  search::AtomicPointCount count;
};

// Whether the atomic instructions of the file at `path` get breakpoints: not chess-trace's
// shim, and not the C library or the dynamic loader of a process whose sync operations the shim
// announces (`shim_announces`).
bool PlantsIn(const std::string& path, bool shim_announces);

// The instruction at run-time address `address` of a space's decoded code, named as the plan
// names it; nullopt outside every decoded module. `site` is set when decoding found a memory
// access or an atomic instruction ending exactly at `end` instead (what a watchpoint's trap
// leaves: the rip after the access).
struct LocatedInstruction {
  search::CodeLocation location;
  uint64_t address = 0;  // run-time
  const code::CodeSite* site = nullptr;
};
std::optional<LocatedInstruction> InstructionEndingAt(const AddressSpaceCode& code, uint64_t end);
std::optional<search::CodeLocation> LocationOf(const AddressSpaceCode& code, uint64_t address);

// The address a memory operand names, with the registers of a thread stopped before the
// instruction; `load_bias` moves a rip-relative operand resolved in the file's numbering.
uint64_t EffectiveAddress(const code::MemoryAccess& access, const user_regs_struct& regs, uint64_t load_bias);

// What a thread stopped at one of the breakpoints does.
struct AtomicStop {
  bool point = false;   // park as a scheduling point (else run the instruction at once)
  uint64_t resource = 0;  // the memory the instruction touches (0: a fence)
  bool is_write = false;
  uint64_t instruction = 0;  // the program's address of the instruction
};

// The decision at a stop, and its bookkeeping (pure): the learning execution notes whether
// another thread was alive (`others_alive`) and never parks; the search's parks at a planned site
// while another thread lives and the cap is not reached. `retire` is set when the breakpoint has
// done its work in this execution (a learning execution's site found concurrent) and may go.
AtomicStop DecideAtomicStop(AtomicPointState& state, const search::AtomicPointPlan& plan, const PlantedSite& site,
                            bool others_alive, const user_regs_struct& regs, bool& retire);

class AtomicPoints {
 public:
  AtomicPoints(const search::AtomicPointPlan& plan, code::CodeCache& cache, bool shim_announces,
               std::function<void(const std::string&)> notice)
      : plan_(plan), cache_(cache), shim_announces_(shim_announces), notice_(std::move(notice)) {}

  const search::AtomicPointPlan& Plan() const { return plan_; }

  // A new image in `thread`'s process (its address space `space`, new): plants in every
  // executable file mapping there is. True when calls were injected: the thread's registers,
  // `at_stop`, must be stored again.
  bool ImageLoaded(AtomicPointState& state, uint64_t space, const Thread& thread, const Registers& at_stop);
  // [begin, end) became executable in `thread`'s address space; as ImageLoaded.
  bool CodeMapped(AtomicPointState& state, uint64_t space, const Thread& thread, const Registers& at_stop,
                  uint64_t begin, uint64_t end);
  // A fork: the child's address space is a copy of the parent's, breakpoints and pages included.
  static void Forked(AtomicPointState& state, uint64_t parent_space, uint64_t child_space);
  // Removes the breakpoint at `address` from the address space `space` of process `pid`.
  void Retire(AtomicPointState& state, uint64_t space, pid_t pid, uint64_t address);
  // The process `pid` is gone or exec'd: its memory descriptor is closed.
  void Forget(pid_t pid) { texts_.erase(pid); }

 private:
  struct Mapping {
    uint64_t begin = 0;  // the part asked about
    uint64_t end = 0;
    uint64_t start = 0;   // the whole mapping's start and file offset, as /proc/PID/maps says
    uint64_t offset = 0;
    bool writable = false;
    std::string path;  // empty: anonymous
  };
  static std::vector<Mapping> ExecutableMappings(pid_t pid, uint64_t begin, uint64_t end);
  bool PlantMapping(AtomicPointState& state, AddressSpaceCode& space, const Thread& thread, const Registers& at_stop,
                    const Mapping& mapping);
  // Maps a page for copies within reach of `near` in the thread's process; false when none could be.
  bool MapPageNear(AddressSpaceCode& space, const Thread& thread, const Registers& at_stop, uint64_t near);
  ProcessMemoryText* Text(pid_t pid);

  search::AtomicPointPlan plan_;
  code::CodeCache& cache_;
  bool shim_announces_;
  std::function<void(const std::string&)> notice_;
  std::map<pid_t, std::unique_ptr<ProcessMemoryText>> texts_;
};

}  // namespace chess::supervisor
