// The preload shim's hypercalls (seccomp/hypercall_abi.h), made as system calls or as traps
// (sandbox.cc recognises those). A sync operation it announces is a scheduling point with
// CHESS's bits: acquiring a lock writes it, releasing it (an unlock, a signal, a post) is a
// release; a reader's lock only reads it. The real call follows in the program, untouched:
// chess-trace only chooses who runs first.
#include <cerrno>

#include "seccomp/arch.h"
#include "seccomp/hypercall_abi.h"
#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

struct SyncBits {
  bool known = false;
  bool is_write = false;
  bool is_release = false;
};

SyncBits BitsOf(uint64_t op) {
  switch (op & CHESS_OP_KIND_MASK) {
    case CHESS_OP_MUTEX_LOCK: case CHESS_OP_MUTEX_TRYLOCK: case CHESS_OP_MUTEX_TIMEDLOCK:
    case CHESS_OP_RWLOCK_WRLOCK: case CHESS_OP_SPIN_LOCK: case CHESS_OP_SEM_WAIT: case CHESS_OP_ONCE:
      return {true, true, false};
    case CHESS_OP_RWLOCK_RDLOCK:
      return {true, false, false};
    case CHESS_OP_MUTEX_UNLOCK: case CHESS_OP_RWLOCK_UNLOCK: case CHESS_OP_SPIN_UNLOCK: case CHESS_OP_SEM_POST:
    case CHESS_OP_COND_SIGNAL: case CHESS_OP_COND_BROADCAST:
      return {true, true, true};
    case CHESS_OP_COND_WAIT: case CHESS_OP_BARRIER_WAIT:
      return {true, true, true};  // releases the mutex (or arrives), then waits
    default:
      return {};
  }
}

Disposition HypercallEntry(SyscallContext& ctx) {
  switch (ctx.thread.call.nr - seccomp::kHypercallFirst) {
    case CHESS_HC_SYNC_OP: {
      const SyncBits bits = BitsOf(ctx.Arg(0));
      if (!bits.known) return Disposition::Complete(-EINVAL);
      ctx.thread.announced_op = static_cast<uint32_t>(ctx.Arg(0));
      ctx.thread.announced_object = ctx.Arg(1);
      return Disposition::Point(search::OpKind::kSyncOp, ctx.Arg(1), bits.is_write, bits.is_release);
    }
    case CHESS_HC_THREAD_STATE:
      ctx.thread.shim_state = ctx.Arg(0);
      return Disposition::Complete(0);
    default:
      return Disposition::Complete(-ENOSYS);
  }
}

ExecuteAnswer HypercallExecute(SyscallContext&) { return ExecuteAnswer::Complete(0); }

}  // namespace

FamilyHandler HypercallHandler() { return {HypercallEntry, HypercallExecute}; }

}  // namespace chess::supervisor
