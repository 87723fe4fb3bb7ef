// Sampled accesses, watchpoints in the other threads, and the race detector's judgement
// (supervisor/race_sampling.h).
#include "supervisor/race_sampling.h"

#include <sys/stat.h>

#include <csignal>

#include <algorithm>
#include <cstdio>

#include "search/mix.h"
#include "seccomp/hypercall_abi.h"
#include "supervisor/atomic_points.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {
namespace {

constexpr int kStatusRegister = 6;

// The sync object of an operation on memory of one address space (a futex word, a lock, an
// atomic location): the same word in another space is another object.
uint64_t MemoryObject(uint64_t space, uint64_t address) { return search::Mix64(search::Mix64(1, space), address); }

std::vector<uint8_t> ReadBytes(pid_t tid, uint64_t address, uint8_t size) {
  std::vector<uint8_t> bytes(size);
  if (!RemoteMemory(tid).Read(address, bytes.data(), bytes.size())) bytes.clear();
  return bytes;
}

// The file a descriptor of `tid` names, as one sync object for every descriptor of it: a pipe's
// two ends are one inode. (A socket pair's two ends are two: what passes through one is not seen
// as an ordering.)
std::optional<uint64_t> FileObject(pid_t tid, uint64_t fd) {
  struct stat file{};
  const std::string path = "/proc/" + std::to_string(tid) + "/fd/" + std::to_string(fd);
  if (stat(path.c_str(), &file) != 0) return std::nullopt;
  return search::Mix64(search::Mix64(2, file.st_dev), file.st_ino);
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

WatchList::Entry* WatchList::Watch(uint64_t address, uint8_t size, search::ThreadId sampler) {
  const std::vector<supervisor::Watch> cover = AlignedCover(address, size, supervisor::Watch::Trigger::kReadWrite);
  if (cover.empty()) return nullptr;
  // An access over two aligned words is watched on its first: the slots are few.
  const supervisor::Watch& watch = cover.front();
  ++clock_;
  for (Entry& entry : entries_) {
    if (entry.watch != watch) continue;
    entry.last_used = clock_;
    return &entry;
  }
  if (entries_.size() == kWatchSlots) {
    // A joiner's watch goes last: missing it would take every access of the ended thread for a
    // race with what its joiner does after the join.
    entries_.erase(std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return std::pair(a.join_object.has_value(), a.last_used) < std::pair(b.join_object.has_value(), b.last_used);
    }));
  }
  ++generation_;
  const uint64_t covered_end = watch.address + watch.length;
  Entry entry;
  entry.id = next_id_++;
  entry.watch = watch;
  entry.address = address;
  entry.size = static_cast<uint8_t>(std::min<uint64_t>(size, covered_end - address));
  entry.sampler = sampler;
  entry.last_used = clock_;
  entries_.push_back(std::move(entry));
  return &entries_.back();
}

WatchList::Entry* WatchList::Find(uint64_t id) {
  for (Entry& entry : entries_) {
    if (entry.id == id) return &entry;
  }
  return nullptr;
}

WatchList::Entry* WatchList::Fired(const supervisor::Watch& watch) {
  for (Entry& entry : entries_) {
    if (entry.watch.address == watch.address && entry.watch.length == watch.length) return &entry;
  }
  return nullptr;
}

void WatchList::Clear() {
  if (entries_.empty()) return;
  entries_.clear();
  ++generation_;
}

void WatchList::Remove(uint64_t id) {
  const auto before = entries_.size();
  std::erase_if(entries_, [id](const Entry& entry) { return entry.id == id; });
  if (entries_.size() != before) ++generation_;
}

std::array<std::optional<Watch>, kWatchSlots> WatchList::SlotsFor(search::ThreadId thread,
                                                                  const std::map<uint64_t, Progress>& seen) const {
  std::array<std::optional<supervisor::Watch>, kWatchSlots> slots{};
  size_t next = 0;
  for (const Entry& entry : entries_) {
    if (entry.sampler == thread && !entry.join_object) continue;
    const auto progress = seen.find(entry.id);
    const Progress so_far = progress == seen.end() ? Progress::kNone : progress->second;
    if (so_far == Progress::kWritten) continue;
    supervisor::Watch watch = entry.watch;
    watch.trigger = so_far == Progress::kRead ? supervisor::Watch::Trigger::kWrite : supervisor::Watch::Trigger::kReadWrite;
    slots[next++] = watch;
  }
  return slots;
}

void RaceSampling::Stop() {
  stopped_ = true;
  for (auto& [space, list] : spaces_) list.Clear();
}

void RaceSampling::Performed(const Thread& thread, const search::SchedulingPoint& point) {
  if (stopped_ || point.resource == 0) return;
  ++orderings_;
  const uint64_t space = thread.process->address_space;
  if (point.op == search::OpKind::kSyncOp) NoteLocks(thread, point);
  switch (point.op) {
    case search::OpKind::kFutexWait:
    case search::OpKind::kFutexWake:
    case search::OpKind::kThreadExit:
    case search::OpKind::kSyncOp:
    case search::OpKind::kAtomic:
      // Ordering more than the operation did only hides races, never invents one: each is both.
      detector_.Synchronized(thread.id, MemoryObject(space, point.resource), search::Ordering::kAcquireRelease);
      return;
    case search::OpKind::kIo:
      // What a writer did before its write, a reader that got the bytes did before its read;
      // two writers (two threads printing) order nothing between them.
      if (const std::optional<uint64_t> file = FileObject(thread.tid, point.resource)) {
        detector_.Synchronized(thread.id, *file,
                               point.is_write ? search::Ordering::kRelease : search::Ordering::kAcquire);
      }
      return;
    case search::OpKind::kSignal:
      detector_.Synchronized(thread.id, search::Mix64(3, point.resource), search::Ordering::kAcquireRelease);
      return;
    default:
      // A racy access orders nothing (it is what races); the rest name no object.
      return;
  }
}

void RaceSampling::NoteLocks(const Thread& thread, const search::SchedulingPoint& point) {
  std::set<uint64_t>& held = held_[thread.id.value];
  switch (thread.announced_op & CHESS_OP_KIND_MASK) {
    case CHESS_OP_MUTEX_LOCK: case CHESS_OP_MUTEX_TRYLOCK: case CHESS_OP_MUTEX_TIMEDLOCK:
    case CHESS_OP_RWLOCK_RDLOCK: case CHESS_OP_RWLOCK_WRLOCK: case CHESS_OP_SPIN_LOCK:
      // A try that fails holds nothing: ordering by it anyway hides races, never invents one.
      held.insert(point.resource);
      return;
    case CHESS_OP_MUTEX_UNLOCK: case CHESS_OP_RWLOCK_UNLOCK: case CHESS_OP_SPIN_UNLOCK:
      held.erase(point.resource);
      return;
    case CHESS_OP_COND_WAIT:
      // Which of its locks is the wait's mutex the announcement does not say: all of them
      // publish what the thread did, and a woken waiter (performing again) takes them again.
      for (const uint64_t lock : held) {
        detector_.Synchronized(thread.id, MemoryObject(thread.process->address_space, lock),
                               search::Ordering::kAcquireRelease);
      }
      return;
    default:
      return;
  }
}

void RaceSampling::Ended(const Thread& thread) {
  if (stopped_ || thread.clear_child_tid == 0) return;
  WatchList& list = spaces_[thread.process->address_space];
  WatchList::Entry* entry = list.Watch(thread.clear_child_tid, sizeof(int32_t), thread.id);
  if (entry == nullptr) return;
  entry->join_object = MemoryObject(thread.process->address_space, thread.clear_child_tid);
}

void RaceSampling::Sampled(const Thread& thread, const PlantedSite& site, const user_regs_struct& regs,
                           const AddressSpaceCode& code) {
  if (stopped_) return;
  ++count_.sampled_accesses;
  const uint64_t instruction = site.site.address + site.load_bias;
  WatchList& list = spaces_[thread.process->address_space];
  for (const code::MemoryAccess& operand : site.site.accesses) {
    const uint64_t address = EffectiveAddress(operand, regs, site.load_bias);
    // A string instruction's or a gather's first element stands for the rest.
    const auto size = static_cast<uint8_t>(std::clamp<uint16_t>(operand.size, 1, 8));
    const search::MemoryAccess access{.thread = thread.id,
                                      .space = thread.process->address_space,
                                      .address = address,
                                      .size = size,
                                      .is_write = operand.mode != code::AccessMode::kRead,
                                      .instruction = instruction};
    Judge(thread, access, &code);
    if (WatchList::Entry* entry = list.Watch(address, size, thread.id)) {
      entry->join_object.reset();
      // Read before the instruction runs: a sampled write's bytes are not known until a later look.
      entry->value = access.is_write ? std::vector<uint8_t>{} : ReadBytes(thread.tid, entry->address, entry->size);
    }
  }
}

bool RaceSampling::Armed(const Thread& thread) const {
  const auto watches = threads_.find(thread.id.value);
  return watches != threads_.end() && watches->second.registers.Free() != kWatchSlots;
}

bool RaceSampling::OnDisarmedTrap(const Thread& thread) {
  auto watches = threads_.find(thread.id.value);
  if (watches == threads_.end()) return false;  // never given a watchpoint
  siginfo_t info{};
  if (!ptrace::GetSignalInfo(thread.tid, info) || info.si_code != TRAP_HWBKPT) return false;
  const std::optional<uint64_t> status = ptrace::GetDebugRegister(thread.tid, kStatusRegister);
  if (!status || FiredSlots(*status).none()) return false;
  watches->second.registers.ClearStatus(thread.tid);
  watches->second.dirty = true;
  return true;
}

bool RaceSampling::OnTrap(const Thread& thread, uint64_t rip, const AddressSpaceCode* code) {
  if (!Armed(thread)) return false;
  auto watches = threads_.find(thread.id.value);
  const std::optional<uint64_t> status = ptrace::GetDebugRegister(thread.tid, kStatusRegister);
  if (!status || FiredSlots(*status).none()) return false;
  ThreadWatches& mine = watches->second;
  mine.registers.ClearStatus(thread.tid);
  if (stopped_) {
    // A watch given up, still in the registers of the thread that hit it: theirs, not the program's.
    mine.dirty = true;
    return true;
  }
  WatchList& list = spaces_[thread.process->address_space];
  // The instruction that trapped ended at rip (in the program: a copy's rip maps back to it).
  const uint64_t end = code != nullptr ? code->breakpoints.ProgramAddress(rip) : rip;
  const std::optional<LocatedInstruction> located = code != nullptr ? InstructionEndingAt(*code, end) : std::nullopt;
  for (const Watch& fired : mine.registers.Fired(*status)) {
    WatchList::Entry* entry = list.Fired(fired);
    if (entry == nullptr) continue;
    ++count_.watched_accesses;
    mine.dirty = true;
    if (entry->join_object) {
      // A joiner reading an ended thread's tid word: everything the thread did comes before.
      detector_.Synchronized(thread.id, *entry->join_object, search::Ordering::kAcquire);
      list.Remove(entry->id);
      continue;
    }
    const std::vector<uint8_t> now = ReadBytes(thread.tid, entry->address, entry->size);
    // The decoding says whether the instruction writes; outside the decoded code (libc's memcpy
    // under the shim), whether the bytes changed since they were last seen does.
    bool is_write = !now.empty() && !entry->value.empty() && now != entry->value;
    if (located && located->site != nullptr) {
      // An atomic instruction synchronizes (its own stop said so); it is no plain access.
      if (located->site->kind != code::SiteKind::kAccess) {
        mine.seen[entry->id] = WatchList::Progress::kWritten;
        entry->value = now;
        continue;
      }
      is_write = std::any_of(located->site->accesses.begin(), located->site->accesses.end(),
                             [](const code::MemoryAccess& operand) { return operand.mode != code::AccessMode::kRead; });
    }
    entry->value = now;
    mine.seen[entry->id] = is_write ? WatchList::Progress::kWritten : WatchList::Progress::kRead;
    const search::MemoryAccess access{.thread = thread.id,
                                      .space = thread.process->address_space,
                                      .address = entry->address,
                                      .size = entry->size,
                                      .is_write = is_write,
                                      .instruction = located ? located->address : 0};
    Judge(thread, access, code);
  }
  return true;
}

void RaceSampling::BeforeResume(const Thread& thread) {
  auto list = spaces_.find(thread.process->address_space);
  auto [found, fresh] = threads_.try_emplace(thread.id.value);
  ThreadWatches& mine = found->second;
  if (mine.space != thread.process->address_space) {
    // A new thread, or one that exec'd: the kernel gave it no debug registers.
    mine.space = thread.process->address_space;
    mine.registers.DisarmAll();
    mine.registers.Cleared();
    mine.seen.clear();
    mine.dirty = true;
  }
  if (list == spaces_.end()) {
    if (!fresh && mine.registers.Free() != kWatchSlots) {
      mine.registers.DisarmAll();
      mine.registers.Store(thread.tid);
    }
    return;
  }
  if (!mine.dirty && mine.generation == list->second.generation()) return;
  mine.registers.DisarmAll();
  for (const auto& slot : list->second.SlotsFor(thread.id, mine.seen)) {
    if (slot) mine.registers.Arm(*slot);
  }
  mine.registers.Store(thread.tid);
  mine.generation = list->second.generation();
  mine.dirty = false;
}

void RaceSampling::Judge(const Thread& thread, const search::MemoryAccess& access, const AddressSpaceCode* code) {
  for (const search::Race& race : detector_.Accessed(access)) {
    search::ObservedRace observed;
    observed.earlier = Describe(thread, race.earlier, code);
    observed.later = Describe(thread, race.later, code);
    observed.address = race.later.address;
    ProcessSymbols symbols(thread.tid);
    if (auto data = symbols.Data(race.later.address)) observed.variable = FormatDataSymbol(*data);
    count_.races.push_back(std::move(observed));
  }
}

search::RacingAccess RaceSampling::Describe(const Thread& thread, const search::MemoryAccess& access,
                                            const AddressSpaceCode* code) {
  search::RacingAccess described;
  described.thread = access.thread.value;
  described.is_write = access.is_write;
  described.size = access.size;
  if (access.instruction == 0) {
    described.name = "an instruction outside the decoded code";
    return described;
  }
  if (code != nullptr) {
    if (auto location = LocationOf(*code, access.instruction)) described.instruction = *location;
  }
  if (described.instruction.module.empty()) described.instruction.address = access.instruction;
  // The process is the same address space for both accesses: its symbols name either.
  described.name = FormatFrame(ProcessSymbols(thread.tid).Code(access.instruction));
  if (described.name.empty()) described.name = Hex(access.instruction);
  return described;
}

}  // namespace chess::supervisor
