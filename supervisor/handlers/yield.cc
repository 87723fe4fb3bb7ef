// sched_yield: the thread lets the others run first (a free switch, design §3).

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

Disposition YieldEntry(SyscallContext&) { return Disposition::Yield(0); }

}  // namespace

FamilyHandler YieldHandler() { return {YieldEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
