#include "supervisor/lock_requests.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "seccomp/hypercall_abi.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/report/backtrace.h"

namespace chess::supervisor {
namespace {

// glibc's pthread_rwlock_t on x86-64: its __flags word, and the kind that makes a waiting writer
// hold back new readers (PTHREAD_RWLOCK_PREFER_WRITER_NP is read as preferring readers).
constexpr uint64_t kRwlockFlagsOffset = 48;
constexpr uint32_t kPreferWriterNonrecursive = 2;

// Which announced operations are lock acquisitions that can wait: every lock call but the
// try-locks (they never wait) and the timed ones (they give up: no deadlock lasts).
std::optional<search::LockMode> WaitingAcquisition(uint32_t op) {
  if ((op & (CHESS_OP_FLAG_TRY | CHESS_OP_FLAG_TIMED)) != 0) return std::nullopt;
  switch (op & CHESS_OP_KIND_MASK) {
    case CHESS_OP_MUTEX_LOCK: case CHESS_OP_RWLOCK_WRLOCK: case CHESS_OP_SPIN_LOCK:
      return search::LockMode::kExclusive;
    case CHESS_OP_RWLOCK_RDLOCK:
      return search::LockMode::kShared;
    default:
      return std::nullopt;
  }
}

// A file lock's name: its inode, above every user-space address (bit 63), so that it never meets
// a mutex's. The device is left out: stat() and /proc/locks can disagree on it (btrfs
// subvolumes); two files of one inode number on two file systems would share a name, and a cycle
// through them would not be confirmed.
uint64_t FileLockId(uint64_t inode) { return (uint64_t{1} << 63) | (inode & ~(uint64_t{1} << 63)); }

search::LockMode HeldMode(uint32_t op) {
  return (op & CHESS_OP_KIND_MASK) == CHESS_OP_RWLOCK_RDLOCK ? search::LockMode::kShared : search::LockMode::kExclusive;
}

// The locks the shim lists as held (an entry of object 0 is one it no longer knows).
void AppendShimHeld(const chess_thread_state& state, search::LockDependency& dependency) {
  if (state.abi_version != CHESS_HC_VERSION) return;
  const uint32_t listed = std::min<uint32_t>(state.held_count, CHESS_MAX_HELD);
  for (uint32_t i = 0; i < listed; ++i) {
    const chess_held_lock& held = state.held[i];
    if (held.object != 0) dependency.held.push_back({held.object, HeldMode(held.op), held.site});
  }
}

}  // namespace

ProcessSymbols& TreeLockRequests::SymbolsOf(const Thread& thread) {
  return symbols_.Process(thread.process->tgid, thread.tid);
}

bool TreeLockRequests::FixedAddress(const Thread& thread, uint64_t address) {
  const auto key = std::make_pair(thread.process->tgid, address);
  auto found = fixed_.find(key);
  if (found != fixed_.end()) return found->second;
  const bool fixed = SymbolsOf(thread).Data(address).has_value();
  fixed_.emplace(key, fixed);
  return fixed;
}

bool TreeLockRequests::PrefersWriters(const Thread& thread, uint64_t address) {
  const auto flags = RemoteMemory(thread.tid).Read<uint32_t>(address + kRwlockFlagsOffset);
  return flags && *flags == kPreferWriterNonrecursive;
}

std::vector<search::HeldLock> TreeLockRequests::FileLocksHeld(pid_t tgid, uint32_t thread) {
  std::vector<search::HeldLock> held;
  const auto asked = file_lock_sites_.lower_bound({tgid, 0});
  if (asked == file_lock_sites_.end() || asked->first.first != tgid) return held;
  // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->" after the number.
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, advisory, access, device;
    long pid = 0;
    if (!(fields >> number >> kind) || kind == "->" || kind != "FLOCK") continue;
    if (!(fields >> advisory >> access >> pid >> device) || pid != tgid) continue;
    unsigned major = 0, minor = 0;
    unsigned long long inode = 0;
    if (std::sscanf(device.c_str(), "%x:%x:%llu", &major, &minor, &inode) != 3) continue;
    const uint64_t lock = FileLockId(inode);
    auto asked = file_lock_sites_.find({tgid, lock});
    if (asked == file_lock_sites_.end() || asked->second.thread != thread) continue;
    held.push_back({lock, access == "READ" ? search::LockMode::kShared : search::LockMode::kExclusive, asked->second.site});
  }
  return held;
}

std::optional<search::LockRequest> TreeLockRequests::FileLockRequest(Thread& thread, search::ThreadId id) {
  const int operation = static_cast<int>(thread.call.args[1]) & ~LOCK_NB;
  if ((static_cast<int>(thread.call.args[1]) & LOCK_NB) != 0 || (operation != LOCK_SH && operation != LOCK_EX)) {
    return std::nullopt;
  }
  const std::string fd = "/proc/" + std::to_string(thread.tid) + "/fd/" + std::to_string(thread.call.args[0]);
  struct stat file {};
  if (stat(fd.c_str(), &file) != 0) return std::nullopt;
  search::LockRequest request;
  search::LockDependency& dependency = request.dependency;
  dependency.thread = id.value;
  dependency.lock = FileLockId(file.st_ino);
  dependency.mode = operation == LOCK_SH ? search::LockMode::kShared : search::LockMode::kExclusive;
  // libc's flock is a leaf: at its syscall, the top of the stack is where the program called it.
  const auto caller = RemoteMemory(thread.tid).Read<uint64_t>(thread.regs.Sp());
  dependency.site = caller.value_or(0);
  const pid_t tgid = thread.process->tgid;
  if (thread.shim_state != 0) {
    if (const auto state = RemoteMemory(thread.tid).Read<chess_thread_state>(thread.shim_state)) AppendShimHeld(*state, dependency);
  }
  for (const search::HeldLock& held : FileLocksHeld(tgid, id.value)) dependency.held.push_back(held);
  file_lock_sites_[{tgid, dependency.lock}] = {id.value, dependency.site};
  if (file_names_.count(dependency.lock) == 0) {
    char target[4096];
    const ssize_t length = readlink(fd.c_str(), target, sizeof(target) - 1);
    file_names_[dependency.lock] = "flock " + (length > 0 ? std::string(target, static_cast<size_t>(length)) : fd);
  }
  seen_in_[dependency.site] = {tgid, thread.tid, false};
  for (const search::HeldLock& held : dependency.held) {
    if ((held.lock >> 63) == 0) seen_in_[held.lock] = {tgid, thread.tid, true};
    if (held.site != 0) seen_in_[held.site] = {tgid, thread.tid, false};
  }
  return request;
}

std::optional<search::LockRequest> TreeLockRequests::PendingOf(search::ThreadId id) {
  Thread* thread = threads_.Find(id);
  if (thread == nullptr) return std::nullopt;
  if (thread->point.op == search::OpKind::kSyscall && thread->call.nr == SYS_flock) return FileLockRequest(*thread, id);
  if (thread->shim_state == 0 || thread->point.op != search::OpKind::kSyncOp) return std::nullopt;
  const std::optional<search::LockMode> mode = WaitingAcquisition(thread->announced_op);
  if (!mode) return std::nullopt;
  const auto state = RemoteMemory(thread->tid).Read<chess_thread_state>(thread->shim_state);
  if (!state || state->abi_version != CHESS_HC_VERSION) return std::nullopt;

  search::LockRequest request;
  search::LockDependency& dependency = request.dependency;
  dependency.thread = id.value;
  dependency.lock = thread->announced_object;
  dependency.mode = *mode;
  dependency.site = state->announcing_site;
  AppendShimHeld(*state, dependency);
  for (const search::HeldLock& held : FileLocksHeld(thread->process->tgid, id.value)) dependency.held.push_back(held);
  request.kind.fixed_address = FixedAddress(*thread, dependency.lock);
  if ((thread->announced_op & CHESS_OP_KIND_MASK) == CHESS_OP_RWLOCK_RDLOCK ||
      (thread->announced_op & CHESS_OP_KIND_MASK) == CHESS_OP_RWLOCK_WRLOCK) {
    request.kind.writer_preferring = PrefersWriters(*thread, dependency.lock);
  }
  const pid_t tgid = thread->process->tgid;
  seen_in_[dependency.lock] = {tgid, thread->tid, true};
  seen_in_[dependency.site] = {tgid, thread->tid, false};
  for (const search::HeldLock& held : dependency.held) {
    if ((held.lock >> 63) == 0) seen_in_[held.lock] = {tgid, thread->tid, true};
    if (held.site != 0) seen_in_[held.site] = {tgid, thread->tid, false};
  }
  return request;
}

std::string TreeLockRequests::Name(uint64_t address) {
  if (auto file = file_names_.find(address); file != file_names_.end()) return file->second;
  auto found = seen_in_.find(address);
  if (found == seen_in_.end()) return {};
  const Seen& seen = found->second;
  ProcessSymbols& symbols = symbols_.Process(seen.tgid, seen.tid);
  char text[48];
  if (seen.lock) {
    // A heap or stack lock has no name of its own: reports name it by where it was taken.
    if (auto data = symbols.Data(address)) return FormatDataSymbol(*data);
    return {};
  }
  StackFrame frame;
  frame.pc = address;
  frame.return_address = true;
  symbols.Locate(frame);
  if (!frame.module.empty()) {
    symbols.Complete(frame);
    return FormatFrame(frame);
  }
  std::snprintf(text, sizeof(text), "0x%" PRIx64, address);
  return text;
}

}  // namespace chess::supervisor
