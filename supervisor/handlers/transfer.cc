#include "supervisor/handlers/transfer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace chess::supervisor {
namespace {

// Below the red zone of the thread's stack: memory the kernel itself would use for a signal
// frame, so nothing the program holds lives there while it is inside a syscall.
constexpr uint64_t kRedZone = 128;
// A rewound writev or sendmsg names its remaining buffers in an iovec array built there.
constexpr size_t kMaxScratchIovecs = 64;

enum class Shape : uint8_t { kBuffer, kIovec, kMessage };

struct CallShape {
  Shape shape;
  int flags_arg;  // the MSG_* flags argument, or -1 (write, writev: O_NONBLOCK instead)
};

CallShape ShapeOf(int64_t nr) {
  switch (nr) {
    case SYS_writev: return {Shape::kIovec, -1};
    case SYS_sendto: return {Shape::kBuffer, 3};
    case SYS_recvfrom: return {Shape::kBuffer, 3};
    case SYS_sendmsg: return {Shape::kMessage, 2};
    default: return {Shape::kBuffer, -1};  // write
  }
}

bool IsRestart(int64_t result) { return result <= -512 && result >= -516; }

// The iovec array a call names (writev's, or the one in sendmsg's msghdr).
std::optional<std::vector<iovec>> ReadIovecs(const RemoteMemory& memory, uint64_t address, uint64_t count) {
  if (count > IOV_MAX) return std::nullopt;
  std::vector<iovec> iovecs(count);
  if (!memory.Read(address, iovecs.data(), count * sizeof(iovec))) return std::nullopt;
  return iovecs;
}

std::optional<std::vector<iovec>> CallIovecs(const RemoteMemory& memory, const Registers& regs, Shape shape,
                                             msghdr* header) {
  if (shape == Shape::kIovec) return ReadIovecs(memory, regs.Arg(1), regs.Arg(2));
  if (!memory.Read(regs.Arg(1), header, sizeof(*header))) return std::nullopt;
  return ReadIovecs(memory, reinterpret_cast<uint64_t>(header->msg_iov), header->msg_iovlen);
}

uint64_t TotalLength(const std::vector<iovec>& iovecs) {
  uint64_t total = 0;
  for (const iovec& v : iovecs) total += v.iov_len;
  return total;
}

// The registers that make the call again for what is left after `done` bytes.
bool RemainderRegisters(const Thread& thread, Registers& regs) {
  const Thread::Transfer& t = *thread.transfer;
  const CallShape shape = ShapeOf(t.original.SyscallNr());
  regs = t.original;
  if (shape.shape == Shape::kBuffer) {
    regs.SetArg(1, t.original.Arg(1) + t.done);
    regs.SetArg(2, t.total - t.done);
    return true;
  }
  const RemoteMemory memory(thread.tid);
  msghdr header{};
  auto iovecs = CallIovecs(memory, t.original, shape.shape, &header);
  if (!iovecs) return false;
  std::vector<iovec> rest;
  uint64_t skip = t.done;
  for (const iovec& v : *iovecs) {
    if (skip >= v.iov_len) {
      skip -= v.iov_len;
      continue;
    }
    rest.push_back({static_cast<char*>(v.iov_base) + skip, v.iov_len - skip});
    skip = 0;
  }
  if (rest.empty() || rest.size() > kMaxScratchIovecs) return false;
  const uint64_t iov_bytes = rest.size() * sizeof(iovec);
  uint64_t scratch = (t.original.Sp() - kRedZone - iov_bytes - sizeof(msghdr)) & ~uint64_t{15};
  if (!memory.Write(scratch, rest.data(), iov_bytes)) return false;
  if (shape.shape == Shape::kIovec) {
    regs.SetArg(1, scratch);
    regs.SetArg(2, rest.size());
    return true;
  }
  // The control data (descriptors, credentials) went with the first piece.
  header.msg_iov = reinterpret_cast<iovec*>(scratch);
  header.msg_iovlen = rest.size();
  header.msg_control = nullptr;
  header.msg_controllen = 0;
  const uint64_t header_address = scratch + iov_bytes;
  if (!memory.Write(header_address, header)) return false;
  regs.SetArg(1, header_address);
  return true;
}

void RestoreStatusFlags(Thread::Transfer& t) {
  if (t.restore_fd < 0) return;
  fcntl(t.restore_fd, F_SETFL, t.restore_flags);
  close(t.restore_fd);
  t.restore_fd = -1;
}

// The call is to return `result` (passed through), with every register as the program left it
// but rax: the transfer is over.
int64_t Finish(Thread& thread, int64_t result) {
  thread.regs = thread.transfer->original;
  thread.transfer.reset();
  return result;
}

}  // namespace

bool ReentersTransfer(const Thread& thread) {
  if (!thread.transfer) return false;
  const Thread::Transfer& t = *thread.transfer;
  if (thread.regs.Ip() != t.original.Ip() || thread.call.nr != t.original.SyscallNr()) return false;
  for (int i = 0; i < 6; ++i) {
    if (thread.call.args[i] != t.reentry_args[i]) return false;
  }
  return true;
}

void StartTransfer(SyscallContext& ctx, const FdCopy& file, int fd) {
  Thread& thread = ctx.thread;
  if (ReentersTransfer(thread)) return;
  if (thread.transfer) RestoreStatusFlags(*thread.transfer);
  Thread::Transfer& t = thread.transfer.emplace();
  t.original = thread.regs;
  t.fd = fd;
  t.io_point = ctx.services.IoPointOn(file);
  t.events = thread.call.nr == SYS_recvfrom ? POLLIN : POLLOUT;
  for (int i = 0; i < 6; ++i) t.reentry_args[i] = thread.call.args[i];
  const Shape shape = ShapeOf(thread.call.nr).shape;
  if (shape == Shape::kBuffer) {
    t.total = thread.call.args[2];
  } else {
    msghdr header{};
    auto iovecs = CallIovecs(ctx.Memory(), thread.regs, shape, &header);
    t.total = iovecs ? TotalLength(*iovecs) : 0;  // unreadable: the kernel reports EFAULT
  }
}

Disposition ContinueTransfer(SyscallContext& ctx, uint64_t resource, bool is_write) {
  if (ctx.thread.transfer->io_point) return Disposition::Point(search::OpKind::kIo, resource, is_write);
  return RunTransferPiece(ctx);
}

ExecuteAnswer RunTransferPiece(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  Thread::Transfer& t = *thread.transfer;
  FdCopy copy = ctx.CopyFd(t.fd);
  if (!copy) {
    // Closed by another thread meanwhile: the kernel answers EBADF, or the call returns what
    // it moved.
    if (t.done > 0) return ExecuteAnswer::Complete(Finish(thread, static_cast<int64_t>(t.done)));
    thread.regs = t.original;
    thread.transfer.reset();
    return ExecuteAnswer::NativeWithRegisters();
  }
  const short revents = copy.Poll(t.events);
  if ((revents & (t.events | POLLERR | POLLHUP | POLLNVAL)) == 0) {
    IoWait wait{{{t.fd, t.events}}};
    wait.held.push_back(std::move(copy));
    thread.wait = Wait{std::move(wait)};
    return ExecuteAnswer::Block();
  }
  if (t.may_block) return ExecuteAnswer::NativeThenExit();  // the kernel may sleep; the watchdog covers it
  const CallShape shape = ShapeOf(thread.call.nr);
  // A flag of the call's own where it has one — unless the program's own seccomp filter
  // refuses the call with the flags changed; then the descriptor's, which no filter sees.
  Registers changed = thread.regs;
  if (shape.flags_arg >= 0) {
    uint64_t flags = thread.regs.Arg(shape.flags_arg) | MSG_DONTWAIT;
    if (thread.call.nr == SYS_recvfrom) flags &= ~uint64_t{MSG_WAITALL};
    changed.SetArg(shape.flags_arg, flags);
  }
  if (shape.flags_arg >= 0 && ctx.FiltersPermitChange(changed)) {
    thread.regs = changed;
  } else {
    // No other tracee runs during the piece, so nobody else sees the flag come and go.
    const int flags = copy.StatusFlags();
    if (flags >= 0 && fcntl(copy.get(), F_SETFL, flags | O_NONBLOCK) == 0) {
      t.restore_flags = flags;
      t.restore_fd = copy.Release();
    }
  }
  return ExecuteAnswer::NativeThenExit();
}

ExitAnswer FinishTransferPiece(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  Thread::Transfer& t = *thread.transfer;
  RestoreStatusFlags(t);
  const int64_t result = thread.regs.Return();
  if (result > 0) t.done += static_cast<uint64_t>(result);
  const bool progress = result > 0;
  const bool more = t.done < t.total && (progress || result == -EAGAIN);
  if (!more) {
    if (t.done > 0) return ExitAnswer::Complete(Finish(thread, static_cast<int64_t>(t.done)));
    if (IsRestart(result)) {
      // Interrupted before moving anything: the kernel restarts the call or fails it with
      // EINTR, as the signal's handler says. The arguments must be the program's again.
      const Registers at_exit = thread.regs;
      thread.regs = t.original;
      thread.regs.SetReturn(result);
      thread.regs.raw().rip = at_exit.Ip();
      thread.transfer.reset();
      return ExitAnswer::NativeWithRegisters();
    }
    return ExitAnswer::Complete(Finish(thread, result));
  }
  // Nothing moved though the descriptor was ready (a datagram larger than the free space):
  // the next piece may block, as the call would have.
  t.may_block = !progress;
  Registers rewound;
  if (!RemainderRegisters(thread, rewound)) {
    // The remainder cannot be described (no room below the stack): a short count.
    if (t.done > 0) return ExitAnswer::Complete(Finish(thread, static_cast<int64_t>(t.done)));
    t.may_block = true;
    rewound = t.original;
  }
  rewound.raw().rip = thread.regs.Ip();
  rewound.RewindToSyscall(t.original.SyscallNr());
  // The remainder is a call the thread makes afresh, which its own seccomp filter judges: one
  // it would refuse is not made, and the call returns the count so far, as when the remainder
  // cannot be described.
  if (t.done > 0 && !ctx.FiltersPermitReentry(rewound)) {
    return ExitAnswer::Complete(Finish(thread, static_cast<int64_t>(t.done)));
  }
  for (int i = 0; i < 6; ++i) t.reentry_args[i] = rewound.Arg(i);
  thread.regs = rewound;
  if (t.may_block) return ExitAnswer::NativeWithRegisters();  // re-entered at once
  IoWait wait{{{t.fd, t.events}}};
  if (FdCopy copy = ctx.CopyFd(t.fd)) wait.held.push_back(std::move(copy));
  thread.wait = Wait{std::move(wait)};
  return ExitAnswer::StayInside();
}

TimeoutAnswer TransferTimedOut(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  if (!thread.transfer) return TimeoutAnswer::Complete(-EAGAIN);
  const uint64_t done = thread.transfer->done;
  return TimeoutAnswer::Complete(Finish(thread, done > 0 ? static_cast<int64_t>(done) : -EAGAIN));
}

void DropTransfer(Thread& thread) {
  if (!thread.transfer) return;
  RestoreStatusFlags(*thread.transfer);
  thread.transfer.reset();
}

void AbandonTransfer(Thread& thread) {
  if (!thread.transfer) return;
  Thread::Transfer& t = *thread.transfer;
  RestoreStatusFlags(t);
  if (t.done > 0) {
    // A blocking call interrupted after moving data returns the count; the signal is taken
    // when the thread leaves the call.
    thread.parked.result = Finish(thread, static_cast<int64_t>(t.done));
    return;
  }
  // Nothing moved: the kernel runs the call from the start and sees the signal itself.
  const Registers at_stop = thread.regs;
  thread.regs = t.original;
  if (thread.parked.at == ParkedCall::At::kExit) {
    thread.regs.raw().rip = at_stop.Ip();
    thread.regs.RewindToSyscall(t.original.SyscallNr());
    thread.native_once = true;
  }
  thread.parked.registers_dirty = true;
  thread.transfer.reset();
}

}  // namespace chess::supervisor
