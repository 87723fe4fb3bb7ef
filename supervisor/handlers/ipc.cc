// SysV semaphores and message queues, POSIX message queues. A thread whose operation would
// wait is disabled until it could go on: the supervisor reads the semaphore values or the
// queue's size (semctl, msgctl) — these objects cannot be polled — and polls a POSIX queue's
// descriptor like a pipe.
#include <poll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/syscall.h>

#include <cerrno>
#include <variant>
#include <vector>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// kRemoved: the object is gone (IPC_STAT fails with EINVAL or EIDRM).
enum class Outlook { kProceeds, kWaits, kKernelDecides, kRemoved };

Outlook Gone() { return errno == EINVAL || errno == EIDRM ? Outlook::kRemoved : Outlook::kKernelDecides; }

// More operations than this in one semop are E2BIG, or not worth reading (SEMOPM is 500).
constexpr uint64_t kMaxSemops = 500;

// Whether semop would wait: the operations applied in order to the current values.
Outlook Semop(SyscallContext& ctx) {
  const int id = static_cast<int>(ctx.Arg(0));
  const uint64_t count = ctx.Arg(2);
  if (count == 0 || count > kMaxSemops) return Outlook::kKernelDecides;
  std::vector<sembuf> ops(count);
  if (!ctx.Memory().Read(ctx.Arg(1), ops.data(), count * sizeof(sembuf))) return Outlook::kKernelDecides;
  semid_ds info{};
  if (semctl(id, 0, IPC_STAT, &info) != 0) return Gone();  // gone, or not ours to see
  std::vector<unsigned short> values(info.sem_nsems);
  if (semctl(id, 0, GETALL, values.data()) != 0) return Outlook::kKernelDecides;
  for (const sembuf& op : ops) {
    if (op.sem_num >= values.size()) return Outlook::kKernelDecides;  // EFBIG
    unsigned short& value = values[op.sem_num];
    const bool waits = op.sem_op < 0 ? value < -op.sem_op : op.sem_op == 0 && value != 0;
    if (waits) return (op.sem_flg & IPC_NOWAIT) ? Outlook::kKernelDecides : Outlook::kWaits;
    value = static_cast<unsigned short>(value + op.sem_op);
  }
  return Outlook::kProceeds;
}

Outlook MessageQueue(SyscallContext& ctx) {
  const bool send = ctx.thread.call.nr == SYS_msgsnd;
  const uint64_t flags = send ? ctx.Arg(3) : ctx.Arg(4);
  if (flags & IPC_NOWAIT) return Outlook::kKernelDecides;
  msqid_ds info{};
  if (msgctl(static_cast<int>(ctx.Arg(0)), IPC_STAT, &info) != 0) return Gone();
  if (send) {
    const bool room = ctx.Arg(2) + info.__msg_cbytes <= info.msg_qbytes && info.msg_qnum + 1 <= info.msg_qbytes;
    return room ? Outlook::kProceeds : Outlook::kWaits;
  }
  // A receive of a type that is not queued still waits in the kernel, where the watchdog
  // finds it; any message at all is the common case.
  return info.msg_qnum > 0 ? Outlook::kProceeds : Outlook::kWaits;
}

Outlook Look(SyscallContext& ctx) {
  if (!ctx.services.IpcVisible()) {
    ctx.services.Notice("SysV semaphores and message queues live in the program's own IPC namespace, "
                        "which chess-trace cannot enter without root: their waits are found by the "
                        "watchdog, and a deadlock on them is reported as a hang");
    return Outlook::kKernelDecides;
  }
  switch (ctx.thread.call.nr) {
    case SYS_semop:
    case SYS_semtimedop: return Semop(ctx);
    case SYS_msgsnd:
    case SYS_msgrcv: return MessageQueue(ctx);
    default: return Outlook::kKernelDecides;
  }
}

bool IsPosixQueue(int64_t nr) { return nr == SYS_mq_timedsend || nr == SYS_mq_timedreceive; }

Disposition IpcEntry(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  const RemoteMemory memory = ctx.Memory();
  int error = 0;
  if (IsPosixQueue(nr)) {
    const int fd = static_cast<int>(ctx.Arg(0));
    const FdCopy copy = ctx.CopyFd(fd);
    if (!copy || copy.Nonblocking()) return Disposition::Native();
    std::optional<MonoNanos> deadline;
    if (ctx.Arg(4) != 0) {
      auto absolute = ReadTimespec(memory, ctx.Arg(4), &error);
      if (!absolute) return Disposition::Native();  // the kernel reports the bad timeout
      deadline = ctx.services.Time().ToMonotonic(CLOCK_REALTIME, *absolute);
    }
    const short events = nr == SYS_mq_timedsend ? POLLOUT : POLLIN;
    const bool ready = (copy.Poll(events) & (events | POLLERR | POLLHUP | POLLNVAL)) != 0;
    return ctx.WaitOnFds(IoWait{{{fd, events}}}, ready, deadline, -ETIMEDOUT, static_cast<uint64_t>(fd),
                         nr == SYS_mq_timedsend);
  }
  // The timeout runs from the call, not from when its operation is picked.
  Wait wait{ObjectWait{}, std::nullopt, -EAGAIN};
  if (nr == SYS_semtimedop && ctx.Arg(3) != 0) {
    auto timeout = ReadTimespec(memory, ctx.Arg(3), &error);
    if (!timeout) return Disposition::Native();
    wait.deadline = ctx.services.Time().Monotonic() + *timeout;
  }
  ctx.thread.wait = std::move(wait);
  return Disposition::Point(search::OpKind::kSyscall, ctx.Arg(0), true);
}

ExecuteAnswer IpcExecute(SyscallContext& ctx) {
  if (IsPosixQueue(ctx.thread.call.nr)) return RunWhenFdsReady(ctx);
  ObjectWait* wait = ctx.thread.wait ? std::get_if<ObjectWait>(&ctx.thread.wait->on) : nullptr;
  switch (Look(ctx)) {
    case Outlook::kWaits:
      if (wait != nullptr) wait->slept = true;
      return ExecuteAnswer::Block();  // the wait its entry recorded
    case Outlook::kRemoved:
      // Removed while the call slept on it, the kernel wakes it with EIDRM; the call made again
      // would see no such object (EINVAL), as one made after the removal does.
      if (wait != nullptr && wait->slept) return ExecuteAnswer::Complete(-EIDRM);
      return ExecuteAnswer::Native();
    case Outlook::kProceeds:
    case Outlook::kKernelDecides:
      return ExecuteAnswer::Native();
  }
  return ExecuteAnswer::Native();
}

bool IpcReady(SyscallContext& ctx) { return Look(ctx) != Outlook::kWaits; }

}  // namespace

FamilyHandler IpcHandler() { return {.on_entry = IpcEntry, .execute = IpcExecute, .ready = IpcReady}; }

}  // namespace chess::supervisor
