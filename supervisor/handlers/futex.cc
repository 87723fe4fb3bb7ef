// The futex family, emulated entirely: futex(2) with every operation, futex_waitv(2) and the
// Linux 6.7 futex2 calls. The real syscall never runs, so a wait never sleeps in the kernel and
// the supervisor always knows who is blocked on what.
//
// A wait whose value matches blocks at once (its step has no effect other threads could see);
// wakes, requeues and lock hand-overs are visible operations, executed when the thread is picked.
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cerrno>

#include "seccomp/arch.h"
#include "supervisor/handlers/futex_key.h"
#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

using search::OpKind;

constexpr uint32_t kTidMask = FUTEX_TID_MASK;
constexpr uint32_t kWaitersBit = FUTEX_WAITERS;
constexpr uint32_t kOwnerDiedBit = FUTEX_OWNER_DIED;
constexpr uint32_t kBitsetAll = FUTEX_BITSET_MATCH_ANY;

// futex2 flags (include/uapi/linux/futex.h, Linux 6.7).
constexpr uint32_t kFutex2SizeMask = 0x3;
constexpr uint32_t kFutex2SizeU32 = 0x2;
constexpr uint32_t kFutex2Numa = 0x4;
constexpr uint32_t kFutex2Private = 128;
constexpr uint32_t kWaitvMax = 128;

struct WaitvEntry {
  uint64_t val;
  uint64_t uaddr;
  uint32_t flags;
  uint32_t reserved;
};

// --- small helpers -------------------------------------------------------------------------

pid_t VisibleTid(const Thread& thread) { return thread.program_tid; }

FutexWaiter MakeWaiter(const SyscallContext& ctx, uint32_t bitset = kBitsetAll) {
  FutexWaiter waiter;
  waiter.tid = ctx.thread.tid;
  waiter.bitset = bitset;
  return waiter;
}

Thread* Waiter(SyscallContext& ctx, pid_t tid) { return ctx.services.Threads().Find(tid); }

// Reads a futex word of 1, 2, 4 or 8 bytes; 0 or a negative errno.
int64_t ReadWord(SyscallContext& ctx, uint64_t address, unsigned size, uint64_t& value) {
  if (address % size != 0) return -EINVAL;
  value = 0;
  if (!ctx.Memory().Read(address, &value, size)) return -EFAULT;
  return 0;
}

int64_t ReadWord32(SyscallContext& ctx, uint64_t address, uint32_t& value) {
  uint64_t wide = 0;
  const int64_t rc = ReadWord(ctx, address, 4, wide);
  value = static_cast<uint32_t>(wide);
  return rc;
}

bool WriteWord32(SyscallContext& ctx, uint64_t address, uint32_t value) {
  return ctx.Memory().Write(address, value);
}

// A timeout argument as a monotonic deadline. `absolute` timeouts are read on `clock`.
bool Deadline(SyscallContext& ctx, uint64_t timespec_address, bool absolute, clockid_t clock,
              std::optional<MonoNanos>& deadline, int64_t& error) {
  deadline.reset();
  if (timespec_address == 0) return true;
  int err = 0;
  auto ns = ReadTimespec(ctx.Memory(), timespec_address, &err);
  if (!ns) {
    error = -err;
    return false;
  }
  const Clock& time = ctx.services.Time();
  deadline = absolute ? time.ToMonotonic(clock, *ns) : time.Monotonic() + *ns;
  return true;
}

int64_t WakeWaiters(SyscallContext& ctx, const FutexKey& key, int64_t count, uint32_t bitset) {
  auto woken = ctx.services.Futexes().Wake(key, count, bitset);
  for (const FutexWaiter& waiter : woken) {
    if (Thread* thread = Waiter(ctx, waiter.tid)) ctx.services.Wake(*thread, waiter.index);
  }
  return static_cast<int64_t>(woken.size());
}

Disposition WaitOn(SyscallContext& ctx, uint64_t address, unsigned size, uint64_t expected,
                   bool shared, const FutexWaiter& waiter, std::optional<MonoNanos> deadline) {
  uint64_t value = 0;
  if (int64_t rc = ReadWord(ctx, address, size, value); rc < 0) return Disposition::Complete(rc);
  const uint64_t mask = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
  if (value != (expected & mask)) return Disposition::Complete(-EAGAIN);
  ctx.services.Futexes().Enqueue(MakeFutexKey(ctx.thread, address, shared), waiter);
  return ctx.BlockUntil({FutexWordWait{}, deadline, -ETIMEDOUT});
}

// --- futex(2) ---------------------------------------------------------------------------------

struct FutexCall {
  int cmd;
  bool shared;
  bool clock_realtime;
  uint64_t uaddr;
  uint32_t val;
  uint64_t timeout;  // a timespec pointer, or val2 for the requeue and wake-op commands
  uint64_t uaddr2;
  uint32_t val3;
};

FutexCall Decode(const SyscallContext& ctx) {
  const int op = static_cast<int>(ctx.Arg(1));
  return {op & FUTEX_CMD_MASK,          (op & FUTEX_PRIVATE_FLAG) == 0,
          (op & FUTEX_CLOCK_REALTIME) != 0, ctx.Arg(0),
          static_cast<uint32_t>(ctx.Arg(2)), ctx.Arg(3),
          ctx.Arg(4),                    static_cast<uint32_t>(ctx.Arg(5))};
}

FutexKey Key(const SyscallContext& ctx, uint64_t address, bool shared) {
  return MakeFutexKey(ctx.thread, address, shared);
}

Disposition FutexWait(SyscallContext& ctx, const FutexCall& call) {
  const bool bitset_op = call.cmd == FUTEX_WAIT_BITSET;
  const uint32_t bitset = bitset_op ? call.val3 : kBitsetAll;
  if (bitset == 0) return Disposition::Complete(-EINVAL);
  std::optional<MonoNanos> deadline;
  int64_t error = 0;
  // FUTEX_WAIT's timeout is relative; FUTEX_WAIT_BITSET's is absolute on the chosen clock.
  const clockid_t clock = call.clock_realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
  if (!Deadline(ctx, call.timeout, bitset_op, clock, deadline, error)) {
    return Disposition::Complete(error);
  }
  return WaitOn(ctx, call.uaddr, 4, call.val, call.shared, MakeWaiter(ctx, bitset), deadline);
}

Disposition FutexWaitRequeuePi(SyscallContext& ctx, const FutexCall& call) {
  if (call.uaddr == call.uaddr2) return Disposition::Complete(-EINVAL);
  std::optional<MonoNanos> deadline;
  int64_t error = 0;
  const clockid_t clock = call.clock_realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
  if (!Deadline(ctx, call.timeout, true, clock, deadline, error)) return Disposition::Complete(error);
  FutexWaiter waiter = MakeWaiter(ctx);
  waiter.requeue_pi_target = Key(ctx, call.uaddr2, call.shared);
  waiter.requeue_pi_address = call.uaddr2;
  return WaitOn(ctx, call.uaddr, 4, call.val, call.shared, waiter, deadline);
}

// Takes the PI lock at `address` for `owner` if it is free. Returns 1 if taken, 0 if another
// thread owns it, or a negative errno.
int64_t TryTakePi(SyscallContext& ctx, uint64_t address, const FutexKey& key, const Thread& owner) {
  uint32_t word = 0;
  if (int64_t rc = ReadWord32(ctx, address, word); rc < 0) return rc;
  const pid_t holder = static_cast<pid_t>(word & kTidMask);
  if (holder == VisibleTid(owner)) return -EDEADLK;
  if (holder != 0) return 0;
  const bool others_wait = ctx.services.Futexes().Waiters(key) > 0;
  const uint32_t taken = static_cast<uint32_t>(VisibleTid(owner)) | (word & kOwnerDiedBit) |
                         (others_wait ? kWaitersBit : 0);
  return WriteWord32(ctx, address, taken) ? 1 : -EFAULT;
}

// FUTEX_LOCK_PI, LOCK_PI2, TRYLOCK_PI, whose lock word reads `word`: a free lock is taken, an
// owned one waited for.
ExecuteAnswer FutexLockPiAt(SyscallContext& ctx, const FutexCall& call, uint32_t word) {
  const FutexKey key = Key(ctx, call.uaddr, call.shared);
  const pid_t holder = static_cast<pid_t>(word & kTidMask);
  if (holder == VisibleTid(ctx.thread)) return ExecuteAnswer::Complete(-EDEADLK);
  if (holder == 0) {
    const int64_t taken = TryTakePi(ctx, call.uaddr, key, ctx.thread);
    return ExecuteAnswer::Complete(taken < 0 ? taken : 0);
  }
  if (call.cmd == FUTEX_TRYLOCK_PI) return ExecuteAnswer::Complete(-EAGAIN);
  Thread* owner = ctx.services.Threads().FindByProgramTid(holder);
  if (owner == nullptr || !owner->Alive()) {
    // The owner died without a robust list entry for this lock: the kernel answers ESRCH.
    if ((word & kOwnerDiedBit) == 0) return ExecuteAnswer::Complete(-ESRCH);
  }
  std::optional<MonoNanos> deadline;
  int64_t error = 0;
  // LOCK_PI's timeout is absolute CLOCK_REALTIME; LOCK_PI2's is CLOCK_MONOTONIC unless asked.
  const clockid_t clock =
      call.cmd == FUTEX_LOCK_PI || call.clock_realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
  if (!Deadline(ctx, call.timeout, true, clock, deadline, error)) return ExecuteAnswer::Complete(error);
  if ((word & kWaitersBit) == 0 && !WriteWord32(ctx, call.uaddr, word | kWaitersBit)) {
    return ExecuteAnswer::Complete(-EFAULT);
  }
  FutexWaiter waiter = MakeWaiter(ctx);
  waiter.pi = true;
  ctx.services.Futexes().Enqueue(key, waiter);
  return ctx.BlockUntil({FutexWordWait{}, deadline, -ETIMEDOUT});
}

// The deferred FUTEX_LOCK_PI, LOCK_PI2, TRYLOCK_PI, when the thread is picked.
ExecuteAnswer FutexLockPi(SyscallContext& ctx, const FutexCall& call) {
  uint32_t word = 0;
  if (int64_t rc = ReadWord32(ctx, call.uaddr, word); rc < 0) return ExecuteAnswer::Complete(rc);
  return FutexLockPiAt(ctx, call, word);
}

// FUTEX_LOCK_PI, LOCK_PI2 at entry: a free lock is a visible acquisition and becomes a
// scheduling point; an owned one blocks at once.
Disposition FutexLockPiEntry(SyscallContext& ctx, const FutexCall& call) {
  uint32_t word = 0;
  if (int64_t rc = ReadWord32(ctx, call.uaddr, word); rc < 0) return Disposition::Complete(rc);
  if ((word & kTidMask) == 0) return Disposition::Point(OpKind::kFutexWait, call.uaddr, true);
  return FutexLockPiAt(ctx, call, word);
}

// Hands a PI lock to its oldest waiter, or frees it.
int64_t FutexUnlockPi(SyscallContext& ctx, const FutexCall& call) {
  uint32_t word = 0;
  if (int64_t rc = ReadWord32(ctx, call.uaddr, word); rc < 0) return rc;
  if (static_cast<pid_t>(word & kTidMask) != VisibleTid(ctx.thread)) return -EPERM;
  const FutexKey key = Key(ctx, call.uaddr, call.shared);
  FutexTable& futexes = ctx.services.Futexes();
  auto next = futexes.Wake(key, 1);
  if (next.empty()) return WriteWord32(ctx, call.uaddr, 0) ? 0 : -EFAULT;
  Thread* heir = Waiter(ctx, next.front().tid);
  if (heir == nullptr) return WriteWord32(ctx, call.uaddr, 0) ? 0 : -EFAULT;
  const uint32_t handed = static_cast<uint32_t>(VisibleTid(*heir)) |
                          (futexes.Waiters(key) > 0 ? kWaitersBit : 0);
  if (!WriteWord32(ctx, call.uaddr, handed)) return -EFAULT;
  ctx.services.Wake(*heir, 0);
  return 0;
}

int64_t FutexCmpRequeuePi(SyscallContext& ctx, const FutexCall& call) {
  if (call.val != 1 || call.uaddr == call.uaddr2) return -EINVAL;
  uint32_t value = 0;
  if (int64_t rc = ReadWord32(ctx, call.uaddr, value); rc < 0) return rc;
  if (value != call.val3) return -EAGAIN;
  FutexTable& futexes = ctx.services.Futexes();
  const FutexKey from = Key(ctx, call.uaddr, call.shared);
  const FutexKey to = Key(ctx, call.uaddr2, call.shared);
  int64_t count = 0;
  int64_t requeue_budget = static_cast<int64_t>(call.timeout);
  if (auto first = futexes.Front(from)) {
    if (first->requeue_pi_target != to) return -EINVAL;
    Thread* waiter = Waiter(ctx, first->tid);
    const int64_t taken = waiter ? TryTakePi(ctx, call.uaddr2, to, *waiter) : 0;
    if (taken < 0) return taken;
    if (taken == 1) {
      futexes.Wake(from, 1);
      ctx.services.Wake(*waiter, 0);
      count = 1;
    } else {
      ++requeue_budget;  // the first waiter could not take the lock: it queues on it instead
    }
  }
  count += static_cast<int64_t>(futexes.Requeue(from, to, requeue_budget, true).size());
  if (futexes.Waiters(to) > 0) {
    uint32_t word = 0;
    if (ReadWord32(ctx, call.uaddr2, word) == 0 && (word & kWaitersBit) == 0) {
      WriteWord32(ctx, call.uaddr2, word | kWaitersBit);
    }
  }
  return count;
}

int64_t FutexRequeue(SyscallContext& ctx, const FutexCall& call) {
  if (call.cmd == FUTEX_CMP_REQUEUE) {
    uint32_t value = 0;
    if (int64_t rc = ReadWord32(ctx, call.uaddr, value); rc < 0) return rc;
    if (value != call.val3) return -EAGAIN;
  }
  const auto wake = static_cast<int32_t>(call.val);
  const auto requeue = static_cast<int32_t>(call.timeout);
  if (wake < 0 || requeue < 0) return -EINVAL;
  const FutexKey from = Key(ctx, call.uaddr, call.shared);
  const FutexKey to = Key(ctx, call.uaddr2, call.shared);
  const int64_t woken = WakeWaiters(ctx, from, wake, kBitsetAll);
  return woken + static_cast<int64_t>(ctx.services.Futexes().Requeue(from, to, requeue).size());
}

int64_t FutexWakeOp(SyscallContext& ctx, const FutexCall& call) {
  const uint32_t encoded = call.val3;
  const unsigned op = (encoded >> 28) & 0x7;
  const bool shift = ((encoded >> 28) & FUTEX_OP_OPARG_SHIFT) != 0;
  const unsigned cmp = (encoded >> 24) & 0xf;
  int32_t oparg = static_cast<int32_t>(encoded << 8) >> 20;  // sign-extended 12 bits
  const int32_t cmparg = static_cast<int32_t>(encoded << 20) >> 20;
  if (shift) {
    if (oparg < 0 || oparg > 31) return -EINVAL;
    oparg = static_cast<int32_t>(1u << oparg);
  }
  uint32_t old_value = 0;
  if (int64_t rc = ReadWord32(ctx, call.uaddr2, old_value); rc < 0) return rc;
  uint32_t new_value = 0;
  const auto arg = static_cast<uint32_t>(oparg);
  switch (op) {
    case FUTEX_OP_SET: new_value = arg; break;
    case FUTEX_OP_ADD: new_value = old_value + arg; break;
    case FUTEX_OP_OR: new_value = old_value | arg; break;
    case FUTEX_OP_ANDN: new_value = old_value & ~arg; break;
    case FUTEX_OP_XOR: new_value = old_value ^ arg; break;
    default: return -ENOSYS;
  }
  const auto old_signed = static_cast<int32_t>(old_value);
  bool condition = false;
  switch (cmp) {
    case FUTEX_OP_CMP_EQ: condition = old_signed == cmparg; break;
    case FUTEX_OP_CMP_NE: condition = old_signed != cmparg; break;
    case FUTEX_OP_CMP_LT: condition = old_signed < cmparg; break;
    case FUTEX_OP_CMP_LE: condition = old_signed <= cmparg; break;
    case FUTEX_OP_CMP_GT: condition = old_signed > cmparg; break;
    case FUTEX_OP_CMP_GE: condition = old_signed >= cmparg; break;
    default: return -ENOSYS;
  }
  if (!WriteWord32(ctx, call.uaddr2, new_value)) return -EFAULT;
  int64_t woken =
      WakeWaiters(ctx, Key(ctx, call.uaddr, call.shared), static_cast<int32_t>(call.val), kBitsetAll);
  if (condition) {
    woken += WakeWaiters(ctx, Key(ctx, call.uaddr2, call.shared),
                         static_cast<int32_t>(call.timeout), kBitsetAll);
  }
  return woken;
}

Disposition FutexEntry(SyscallContext& ctx) {
  const FutexCall call = Decode(ctx);
  switch (call.cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
      return FutexWait(ctx, call);
    case FUTEX_WAIT_REQUEUE_PI:
      return FutexWaitRequeuePi(ctx, call);
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
      return FutexLockPiEntry(ctx, call);
    case FUTEX_TRYLOCK_PI:
      return Disposition::Point(OpKind::kFutexWait, call.uaddr, true);
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
    case FUTEX_CMP_REQUEUE_PI:
      return Disposition::Point(OpKind::kFutexWake, call.uaddr, false, true);
    case FUTEX_WAKE_OP:
      return Disposition::Point(OpKind::kFutexWake, call.uaddr2, true, true);
    case FUTEX_UNLOCK_PI:
      return Disposition::Point(OpKind::kFutexWake, call.uaddr, true, true);
    default:
      return Disposition::Complete(-ENOSYS);
  }
}

ExecuteAnswer FutexExecute(SyscallContext& ctx) {
  const FutexCall call = Decode(ctx);
  switch (call.cmd) {
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET: {
      const uint32_t bitset = call.cmd == FUTEX_WAKE_BITSET ? call.val3 : kBitsetAll;
      if (bitset == 0) return ExecuteAnswer::Complete(-EINVAL);
      return ExecuteAnswer::Complete(WakeWaiters(ctx, Key(ctx, call.uaddr, call.shared),
                                                 static_cast<int32_t>(call.val), bitset));
    }
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
      return ExecuteAnswer::Complete(FutexRequeue(ctx, call));
    case FUTEX_WAKE_OP:
      return ExecuteAnswer::Complete(FutexWakeOp(ctx, call));
    case FUTEX_CMP_REQUEUE_PI:
      return ExecuteAnswer::Complete(FutexCmpRequeuePi(ctx, call));
    case FUTEX_UNLOCK_PI:
      return ExecuteAnswer::Complete(FutexUnlockPi(ctx, call));
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_TRYLOCK_PI:
      return FutexLockPi(ctx, call);
    default:
      return ExecuteAnswer::Complete(-ENOSYS);
  }
}

// --- futex_waitv(2) and the futex2 calls ---------------------------------------------------------

unsigned SizeOf(uint32_t flags) { return 1u << (flags & kFutex2SizeMask); }

bool ValidFutex2Flags(uint32_t flags) {
  return (flags & ~(kFutex2SizeMask | kFutex2Numa | kFutex2Private)) == 0 &&
         (flags & kFutex2Numa) == 0;
}

// futex_waitv and futex_wait (futex2) take an absolute timeout on a clock named by argument.
bool Futex2Deadline(SyscallContext& ctx, uint64_t timespec_address, uint64_t clock,
                    std::optional<MonoNanos>& deadline, int64_t& error) {
  deadline.reset();
  if (timespec_address == 0) return true;
  if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME) {
    error = -EINVAL;
    return false;
  }
  return Deadline(ctx, timespec_address, true, static_cast<clockid_t>(clock), deadline, error);
}

Disposition FutexWaitv(SyscallContext& ctx) {
  const uint64_t vector = ctx.Arg(0);
  const uint64_t count = ctx.Arg(1);
  if (ctx.Arg(2) != 0 || count == 0 || count > kWaitvMax) return Disposition::Complete(-EINVAL);
  std::vector<WaitvEntry> entries(count);
  if (!ctx.Memory().Read(vector, entries.data(), count * sizeof(WaitvEntry))) {
    return Disposition::Complete(-EFAULT);
  }
  std::optional<MonoNanos> deadline;
  int64_t error = 0;
  if (!Futex2Deadline(ctx, ctx.Arg(3), ctx.Arg(4), deadline, error)) return Disposition::Complete(error);
  for (const WaitvEntry& entry : entries) {
    if (entry.reserved != 0 || !ValidFutex2Flags(entry.flags) ||
        (entry.flags & kFutex2SizeMask) != kFutex2SizeU32) {
      return Disposition::Complete(-EINVAL);
    }
    uint64_t value = 0;
    if (int64_t rc = ReadWord(ctx, entry.uaddr, 4, value); rc < 0) return Disposition::Complete(rc);
    if (value != (entry.val & 0xffffffffu)) return Disposition::Complete(-EAGAIN);
  }
  for (uint32_t i = 0; i < count; ++i) {
    const bool shared = (entries[i].flags & kFutex2Private) == 0;
    FutexWaiter waiter = MakeWaiter(ctx);
    waiter.index = i;
    ctx.services.Futexes().Enqueue(MakeFutexKey(ctx.thread, entries[i].uaddr, shared), waiter);
  }
  return ctx.BlockUntil({FutexWordWait{}, deadline, -ETIMEDOUT});
}

Disposition Futex2Wait(SyscallContext& ctx) {
  const uint64_t address = ctx.Arg(0);
  const auto mask = static_cast<uint32_t>(ctx.Arg(2));
  const auto flags = static_cast<uint32_t>(ctx.Arg(3));
  if (!ValidFutex2Flags(flags) || mask == 0) return Disposition::Complete(-EINVAL);
  std::optional<MonoNanos> deadline;
  int64_t error = 0;
  if (!Futex2Deadline(ctx, ctx.Arg(4), ctx.Arg(5), deadline, error)) return Disposition::Complete(error);
  return WaitOn(ctx, address, SizeOf(flags), ctx.Arg(1), (flags & kFutex2Private) == 0,
                MakeWaiter(ctx, mask), deadline);
}

int64_t Futex2Wake(SyscallContext& ctx) {
  const auto mask = static_cast<uint32_t>(ctx.Arg(1));
  const auto flags = static_cast<uint32_t>(ctx.Arg(3));
  if (!ValidFutex2Flags(flags) || mask == 0) return -EINVAL;
  if (ctx.Arg(0) % SizeOf(flags) != 0) return -EINVAL;
  const bool shared = (flags & kFutex2Private) == 0;
  return WakeWaiters(ctx, Key(ctx, ctx.Arg(0), shared), static_cast<int32_t>(ctx.Arg(2)), mask);
}

int64_t Futex2Requeue(SyscallContext& ctx) {
  if (ctx.Arg(1) != 0) return -EINVAL;
  WaitvEntry pair[2];
  if (!ctx.Memory().Read(ctx.Arg(0), pair, sizeof(pair))) return -EFAULT;
  for (const WaitvEntry& entry : pair) {
    if (entry.reserved != 0 || !ValidFutex2Flags(entry.flags)) return -EINVAL;
  }
  uint64_t value = 0;
  if (int64_t rc = ReadWord(ctx, pair[0].uaddr, SizeOf(pair[0].flags), value); rc < 0) return rc;
  if (value != pair[0].val) return -EAGAIN;
  const FutexKey from = Key(ctx, pair[0].uaddr, (pair[0].flags & kFutex2Private) == 0);
  const FutexKey to = Key(ctx, pair[1].uaddr, (pair[1].flags & kFutex2Private) == 0);
  const int64_t woken = WakeWaiters(ctx, from, static_cast<int32_t>(ctx.Arg(2)), kBitsetAll);
  const auto requeue = static_cast<int32_t>(ctx.Arg(3));
  return woken + static_cast<int64_t>(ctx.services.Futexes().Requeue(from, to, requeue).size());
}

Disposition OnEntry(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  if (nr == SYS_futex) return FutexEntry(ctx);
  if (nr == seccomp::kSysFutexWaitv) return FutexWaitv(ctx);
  if (nr == seccomp::kSysFutexWait) return Futex2Wait(ctx);
  if (nr == seccomp::kSysFutexWake) {
    return Disposition::Point(OpKind::kFutexWake, ctx.Arg(0), false, true);
  }
  if (nr == seccomp::kSysFutexRequeue) {
    return Disposition::Point(OpKind::kFutexWake, ctx.Arg(0), false, true);
  }
  return Disposition::Complete(-ENOSYS);
}

ExecuteAnswer Execute(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  if (nr == SYS_futex) return FutexExecute(ctx);
  if (nr == seccomp::kSysFutexWake) return ExecuteAnswer::Complete(Futex2Wake(ctx));
  if (nr == seccomp::kSysFutexRequeue) return ExecuteAnswer::Complete(Futex2Requeue(ctx));
  return ExecuteAnswer::Complete(-ENOSYS);
}

}  // namespace

FamilyHandler FutexHandler() { return {OnEntry, Execute}; }

}  // namespace chess::supervisor
