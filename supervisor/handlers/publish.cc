// Calls that publish or look up a name other processes share — a socket's address (bind,
// listen, connect, shutdown), a file system entry (open with O_CREAT, unlink, rename, mkdir,
// mknod, link). They never wait for another thread, but their order decides what another
// process finds: whether the server listens yet when the client connects, whether the lock
// file exists yet. With cross-process points each is a scheduling point; the kernel then runs
// it as it is.
#include "search/fnv1a.h"
#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// One object for every name: two such calls never commute for the state cache, which is the
// safe answer when a path or an address may reach the same entry by another spelling.
const uint64_t kSharedNames = search::Fnv1a64("names", 5);

Disposition PublishEntry(SyscallContext& ctx) {
  if (!ctx.services.IoPoints()) return Disposition::Native();
  return Disposition::Point(search::OpKind::kSyscall, kSharedNames, true);
}

// Just before the kernel runs it: what the call finds depends on what ran before.
ExecuteAnswer PublishExecute(SyscallContext& ctx) {
  ctx.services.NoteSharedNames(ctx.thread);
  return ExecuteAnswer::Native();
}

}  // namespace

FamilyHandler PublishHandler() { return {.on_entry = PublishEntry, .execute = PublishExecute}; }

}  // namespace chess::supervisor
