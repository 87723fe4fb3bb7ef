#include "supervisor/atomic_points.h"
#include "supervisor/proc_maps.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <cerrno>
#include <variant>

#include "supervisor/injected_call.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {
namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

uint64_t RegisterValue(code::AddressRegister reg, const user_regs_struct& regs) {
  using R = code::AddressRegister;
  switch (reg) {
    case R::kRax: return regs.rax;
    case R::kRcx: return regs.rcx;
    case R::kRdx: return regs.rdx;
    case R::kRbx: return regs.rbx;
    case R::kRsp: return regs.rsp;
    case R::kRbp: return regs.rbp;
    case R::kRsi: return regs.rsi;
    case R::kRdi: return regs.rdi;
    case R::kR8: return regs.r8;
    case R::kR9: return regs.r9;
    case R::kR10: return regs.r10;
    case R::kR11: return regs.r11;
    case R::kR12: return regs.r12;
    case R::kR13: return regs.r13;
    case R::kR14: return regs.r14;
    case R::kR15: return regs.r15;
    case R::kFs: return regs.fs_base;
    case R::kGs: return regs.gs_base;
    case R::kNone:
    case R::kRip:  // resolved at decoding (MemoryAccess::absolute)
    case R::kOther:
      return 0;
  }
  return 0;
}

}  // namespace

bool PlantsIn(const std::string& path, bool shim_announces) {
  const std::string name = Basename(path);
  if (name == "libchess_preload.so") return false;
  if (!shim_announces) return true;
  return !StartsWith(name, "libc.so") && !StartsWith(name, "ld-linux") && !StartsWith(name, "libpthread.so");
}

uint64_t EffectiveAddress(const code::MemoryAccess& access, const user_regs_struct& regs, uint64_t load_bias) {
  uint64_t address = access.absolute ? access.address + load_bias : 0;
  address += RegisterValue(access.segment, regs);
  address += RegisterValue(access.base, regs);
  address += RegisterValue(access.index, regs) * access.scale;
  return address + static_cast<uint64_t>(access.displacement);
}

std::optional<search::CodeLocation> LocationOf(const AddressSpaceCode& code, uint64_t address) {
  for (const MappedModule& module : code.modules) {
    if (address < module.begin || address >= module.end) continue;
    return search::CodeLocation{module.path, address - module.code.load_bias};
  }
  return std::nullopt;
}

std::optional<LocatedInstruction> InstructionEndingAt(const AddressSpaceCode& code, uint64_t end) {
  for (const MappedModule& module : code.modules) {
    if (end <= module.begin || end > module.end) continue;
    // The longest instruction is 15 bytes: the one that ends here starts no further back.
    const uint64_t from = end - std::min<uint64_t>(end - module.begin, kMaxInstructionLength);
    for (const code::CodeSite& site : module.code.SitesIn(from, end)) {
      if (site.address + site.length + module.code.load_bias != end) continue;
      return LocatedInstruction{{module.path, site.address}, site.address + module.code.load_bias, &site};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

AtomicStop DecideAtomicStop(AtomicPointState& state, const search::AtomicPointPlan& plan, const PlantedSite& site,
                            bool others_alive, const user_regs_struct& regs, bool& retire) {
  retire = false;
  AtomicStop stop;
  stop.instruction = site.site.address + site.load_bias;
  if (!site.site.accesses.empty()) {
    const code::MemoryAccess& access = site.site.accesses.front();
    stop.resource = EffectiveAddress(access, regs, site.load_bias);
    stop.is_write = access.mode != code::AccessMode::kRead;
  }
  ++state.count.stops;
  if (plan.mode == search::AtomicPointPlan::Mode::kLearn) {
    auto [found, fresh] = state.uses.try_emplace(site.location);
    SiteUse& use = found->second;
    if (fresh) ++state.count.learned_sites;
    ++use.hits;
    // Another thread alive could have run between this instruction and the one before it: the
    // site is where a switch may matter. (Which other thread touches the same memory, the plain
    // loads and stores included, only a race detector can say: an atomic load is a plain mov.)
    if (!use.concurrent && others_alive) {
      use.concurrent = true;
      state.count.shared.insert(site.location);
      state.count.alone.erase(site.location);
    } else if (!use.concurrent) {
      state.count.alone.insert(site.location);
    }
    // Once concurrent, the site is what the search wants to know: its breakpoint has done its work.
    retire = use.concurrent;
    return stop;
  }
  // Alone, the thread has no one to give way to: no decision to make.
  if (!others_alive) return stop;
  if (state.count.points >= plan.max_points) {
    state.count.capped = true;
    return stop;
  }
  ++state.count.points;
  stop.point = true;
  return stop;
}

std::vector<AtomicPoints::Mapping> AtomicPoints::ExecutableMappings(pid_t pid, uint64_t begin, uint64_t end) {
  std::vector<Mapping> mappings;
  for (MapsEntry& entry : ReadMaps(pid)) {
    if (!entry.executable || entry.end <= begin || entry.start >= end) continue;
    Mapping mapping;
    mapping.start = entry.start;
    mapping.offset = entry.offset;
    mapping.writable = entry.writable;
    mapping.path = std::move(entry.path);
    // Clipped to the range asked about: an mprotect may make part of a mapping executable.
    mapping.begin = std::max(entry.start, begin);
    mapping.end = std::min(entry.end, end);
    mappings.push_back(std::move(mapping));
  }
  return mappings;
}

ProcessMemoryText* AtomicPoints::Text(pid_t pid) {
  auto& text = texts_[pid];
  if (!text) text = std::make_unique<ProcessMemoryText>(pid);
  return text->Opened() ? text.get() : nullptr;
}

bool AtomicPoints::ImageLoaded(AtomicPointState& state, uint64_t space, const Thread& thread, const Registers& at_stop) {
  Forget(thread.process->tgid);  // the descriptor held the old image's memory
  state.spaces[space] = AddressSpaceCode{};
  bool injected = false;
  for (const Mapping& mapping : ExecutableMappings(thread.tid, 0, ~uint64_t{0})) {
    // The kernel maps only the program and its interpreter (and the vDSO); nothing anonymous.
    if (mapping.path.empty() || mapping.path.front() != '/') continue;
    injected = PlantMapping(state, state.spaces[space], thread, at_stop, mapping) || injected;
  }
  return injected;
}

bool AtomicPoints::CodeMapped(AtomicPointState& state, uint64_t space, const Thread& thread, const Registers& at_stop,
                              uint64_t begin, uint64_t end) {
  bool injected = false;
  for (const Mapping& mapping : ExecutableMappings(thread.tid, begin, end)) {
    if (mapping.path.empty() || mapping.path.front() != '/' || mapping.writable) {
      // Code the program writes itself (a JIT, a trampoline): no decoding of a file says where
      // its instructions start, and it may change under a planted int3.
      const std::string what = mapping.path.empty() ? "anonymous executable memory" : mapping.path;
      if (state.count.refused.insert(what + (mapping.writable ? " (writable and executable)" : "")).second) {
        notice_("atomic points: no breakpoints in " + what +
                " — code the program generates itself (a JIT) is not decoded; its atomic operations are not "
                "scheduling points");
      }
      continue;
    }
    injected = PlantMapping(state, state.spaces[space], thread, at_stop, mapping) || injected;
  }
  return injected;
}

void AtomicPoints::Forked(AtomicPointState& state, uint64_t parent_space, uint64_t child_space) {
  auto parent = state.spaces.find(parent_space);
  if (parent == state.spaces.end()) return;
  AddressSpaceCode child = parent->second;
  child.breakpoints = parent->second.breakpoints.CopyForFork();
  state.spaces[child_space] = std::move(child);
}

void AtomicPoints::Retire(AtomicPointState& state, uint64_t space, pid_t pid, uint64_t address) {
  auto found = state.spaces.find(space);
  if (found == state.spaces.end()) return;
  if (ProcessMemoryText* text = Text(pid)) found->second.breakpoints.Remove(address, *text);
  found->second.sites.erase(address);
}

bool AtomicPoints::PlantMapping(AtomicPointState& state, AddressSpaceCode& space, const Thread& thread,
                                const Registers& at_stop, const Mapping& mapping) {
  const bool learning = plan_.mode == search::AtomicPointPlan::Mode::kLearn;
  // A library whose atomics the shim's announcements stand for orders memory all the same.
  const bool sync_only = !PlantsIn(mapping.path, shim_announces_);
  if (sync_only && !(learning && plan_.detect_races && PlantsIn(mapping.path, false))) return false;
  std::shared_ptr<const code::DecodedFile> decoded = cache_.Of(mapping.path);
  if (!decoded) return false;  // not an x86-64 ELF file: nothing decodable
  const std::optional<uint64_t> bias = decoded->LoadBias(mapping.start, mapping.offset);
  if (!bias) return false;
  const code::MappedCode code{decoded, *bias};
  space.modules.push_back({mapping.begin, mapping.end, mapping.path, code});
  ProcessMemoryText* text = Text(thread.process->tgid);
  if (text == nullptr) {
    notice_("atomic points: could not open the memory of process " + std::to_string(thread.process->tgid) +
            " to plant breakpoints");
    return false;
  }
  const RemoteMemory memory(thread.tid);
  bool injected = false;
  for (const code::CodeSite& site : code.SitesIn(mapping.begin, mapping.end)) {
    search::CodeLocation location{mapping.path, site.address};
    PlantedSite::Role role = PlantedSite::Role::kAtomic;
    if (sync_only) {
      if (site.kind != code::SiteKind::kAtomic) continue;
      role = PlantedSite::Role::kSync;
    } else if (site.kind == code::SiteKind::kAccess) {
      if (!learning) {
        if (plan_.race_sites.count(location) == 0) continue;
        role = PlantedSite::Role::kRace;
      } else {
        if (!plan_.detect_races) continue;
        if (state.count.sampled_sites >= plan_.max_sampled_sites) {
          state.count.sampling_capped = true;
          continue;
        }
        role = PlantedSite::Role::kSample;
      }
    } else if (!learning && plan_.alone_sites.count(location) != 0) {
      continue;
    } else if (learning) {
      // Known shared already (the same program again, in another process): nothing to learn.
      if (auto use = state.uses.find(location); use != state.uses.end() && use->second.concurrent) continue;
    }
    PatchableInstruction instruction;
    instruction.address = site.address + *bias;
    instruction.bytes.resize(site.length);
    instruction.rip_displacement_at = site.rip_displacement_at;
    if (!memory.Read(instruction.address, instruction.bytes.data(), instruction.bytes.size())) continue;
    if (role == PlantedSite::Role::kSample) {
      // Sampled once per address space: no copy, the int3 goes at its first stop.
      if (space.breakpoints.PlantOneShot(instruction, *text) != BreakpointTable::Planted::kPlanted) continue;
      space.sites[instruction.address] = {std::move(location), site, *bias, role};
      ++state.count.sampled_sites;
      continue;
    }
    BreakpointTable::Planted planted = space.breakpoints.Plant(instruction, *text);
    if (planted == BreakpointTable::Planted::kNeedsPage) {
      if (!MapPageNear(space, thread, at_stop, instruction.address)) break;  // said why; the rest cannot be either
      injected = true;
      planted = space.breakpoints.Plant(instruction, *text);
    }
    if (planted != BreakpointTable::Planted::kPlanted) continue;
    space.sites[instruction.address] = {std::move(location), site, *bias, role};
    if (role != PlantedSite::Role::kSync) ++state.count.planted;
  }
  return injected;
}

bool AtomicPoints::MapPageNear(AddressSpaceCode& space, const Thread& thread, const Registers& at_stop, uint64_t near) {
  for (int attempt = 0; attempt < OutOfLinePages::kCandidates; ++attempt) {
    const std::optional<uint64_t> candidate = OutOfLinePages::Candidate(near, attempt);
    if (!candidate) continue;
    const auto result = InjectSyscall(thread, at_stop, SYS_mmap,
                                      {*candidate, OutOfLinePages::kPageSize, PROT_READ | PROT_EXEC,
                                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, ~uint64_t{0}, 0});
    if (const auto* why = std::get_if<std::string>(&result)) {
      notice_("atomic points: could not map a page for out-of-line copies (" + *why + "); some atomic "
              "instructions are not scheduling points");
      return false;
    }
    const int64_t mapped = std::get<int64_t>(result);
    if (mapped == -EEXIST) continue;
    if (mapped < 0 || static_cast<uint64_t>(mapped) != *candidate) {
      notice_("atomic points: the kernel refused a page for out-of-line copies (mmap returned " + std::to_string(mapped) +
              "); some atomic instructions are not scheduling points");
      return false;
    }
    space.breakpoints.Pages().Add(*candidate, OutOfLinePages::kPageSize);
    return true;
  }
  notice_("atomic points: no free place within reach of the code at " + std::to_string(near) +
          " for out-of-line copies; some atomic instructions are not scheduling points");
  return false;
}

}  // namespace chess::supervisor
