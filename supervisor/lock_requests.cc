#include "supervisor/lock_requests.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

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

search::LockMode HeldMode(uint32_t op) {
  return (op & CHESS_OP_KIND_MASK) == CHESS_OP_RWLOCK_RDLOCK ? search::LockMode::kShared : search::LockMode::kExclusive;
}

}  // namespace

ProcessSymbols& ShimLockRequests::SymbolsOf(const Thread& thread) {
  return symbols_.Process(thread.process->tgid, thread.tid);
}

bool ShimLockRequests::FixedAddress(const Thread& thread, uint64_t address) {
  const auto key = std::make_pair(thread.process->tgid, address);
  auto found = fixed_.find(key);
  if (found != fixed_.end()) return found->second;
  const bool fixed = SymbolsOf(thread).Data(address).has_value();
  fixed_.emplace(key, fixed);
  return fixed;
}

bool ShimLockRequests::PrefersWriters(const Thread& thread, uint64_t address) {
  const auto flags = RemoteMemory(thread.tid).Read<uint32_t>(address + kRwlockFlagsOffset);
  return flags && *flags == kPreferWriterNonrecursive;
}

std::optional<search::LockRequest> ShimLockRequests::PendingOf(search::ThreadId id) {
  Thread* thread = threads_.Find(id);
  if (thread == nullptr || thread->shim_state == 0 || thread->point.op != search::OpKind::kSyncOp) return std::nullopt;
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
  const uint32_t listed = std::min<uint32_t>(state->held_count, CHESS_MAX_HELD);
  for (uint32_t i = 0; i < listed; ++i) {
    const chess_held_lock& held = state->held[i];
    if (held.object == 0) continue;
    dependency.held.push_back({held.object, HeldMode(held.op), held.site});
  }
  request.kind.fixed_address = FixedAddress(*thread, dependency.lock);
  if ((thread->announced_op & CHESS_OP_KIND_MASK) == CHESS_OP_RWLOCK_RDLOCK ||
      (thread->announced_op & CHESS_OP_KIND_MASK) == CHESS_OP_RWLOCK_WRLOCK) {
    request.kind.writer_preferring = PrefersWriters(*thread, dependency.lock);
  }
  const pid_t tgid = thread->process->tgid;
  seen_in_[dependency.lock] = {tgid, thread->tid, true};
  seen_in_[dependency.site] = {tgid, thread->tid, false};
  for (const search::HeldLock& held : dependency.held) {
    seen_in_[held.lock] = {tgid, thread->tid, true};
    seen_in_[held.site] = {tgid, thread->tid, false};
  }
  return request;
}

std::string ShimLockRequests::Name(uint64_t address) {
  auto found = seen_in_.find(address);
  if (found == seen_in_.end()) return {};
  const Seen& seen = found->second;
  ProcessSymbols& symbols = symbols_.Process(seen.tgid, seen.tid);
  char text[48];
  if (seen.lock) {
    if (auto data = symbols.Data(address)) return FormatDataSymbol(*data);
    std::snprintf(text, sizeof(text), "the lock at 0x%" PRIx64, address);
    return text;
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
