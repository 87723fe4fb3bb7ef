#include "supervisor/handler.h"

#include "supervisor/invariant.h"

namespace chess::supervisor {

Disposition NoDeferredOperation(SyscallContext& context) {
  CHESS_CHECK(false, "a family without deferred operations was asked to execute one");
  (void)context;
  return Disposition::Native();
}

}  // namespace chess::supervisor
