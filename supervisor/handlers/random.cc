// getrandom and reads of /dev/urandom and /dev/random, answered from the run's seeded
// generator, so a program's random choices repeat with its seed.
#include <sys/syscall.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// The most getrandom returns in one call, as the kernel's own limit (MAX_RW_COUNT is larger,
// but urandom reads are capped at this).
constexpr uint64_t kMaxRandomRead = 33'554'431;

Disposition Deliver(SyscallContext& ctx, uint64_t address, uint64_t length) {
  std::vector<uint8_t> bytes(std::min(length, kMaxRandomRead));
  ctx.services.Random()->Fill(bytes.data(), bytes.size());
  if (!ctx.Memory().Write(address, bytes.data(), bytes.size())) return Disposition::Complete(-EFAULT);
  return Disposition::Complete(static_cast<int64_t>(bytes.size()));
}

Disposition RandomEntry(SyscallContext& ctx) {
  if (ctx.services.Random() == nullptr) return Disposition::Native();
  return Deliver(ctx, ctx.Arg(0), ctx.Arg(1));
}

}  // namespace

Disposition ReadRandomDevice(SyscallContext& ctx) {
  if (ctx.thread.call.nr == SYS_read) return Deliver(ctx, ctx.Arg(1), ctx.Arg(2));
  // readv: the iovecs in order, as the kernel fills them.
  const uint64_t count = ctx.Arg(2);
  if (count > IOV_MAX) return Disposition::Complete(-EINVAL);
  std::vector<iovec> iovecs(count);
  if (!ctx.Memory().Read(ctx.Arg(1), iovecs.data(), count * sizeof(iovec))) return Disposition::Complete(-EFAULT);
  int64_t total = 0;
  for (const iovec& v : iovecs) {
    const Disposition part = Deliver(ctx, reinterpret_cast<uint64_t>(v.iov_base), v.iov_len);
    if (part.value < 0) return total > 0 ? Disposition::Complete(total) : part;
    total += part.value;
  }
  return Disposition::Complete(total);
}

FamilyHandler RandomHandler() { return {.on_entry = RandomEntry}; }

}  // namespace chess::supervisor
