#include "search/scheduling_point.h"

namespace chess::search {

std::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kThreadStart: return "thread-start";
    case OpKind::kFutexWait: return "futex-wait";
    case OpKind::kFutexWake: return "futex-wake";
    case OpKind::kThreadCreate: return "thread-create";
    case OpKind::kThreadExit: return "thread-exit";
    case OpKind::kProcessExit: return "process-exit";
    case OpKind::kYield: return "yield";
    case OpKind::kSleep: return "sleep";
    case OpKind::kInterrupted: return "interrupted";
    case OpKind::kSignal: return "signal";
    case OpKind::kSyncOp: return "sync-op";
    case OpKind::kSyscall: return "syscall";
  }
  return "unknown";
}

}  // namespace chess::search
