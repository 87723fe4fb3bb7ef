// Computes the FutexKey the kernel would use for an address, so emulated waits and wakes meet
// exactly when real ones would.
#pragma once

#include <cstdint>

#include "supervisor/handlers/futex_table.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// A private futex is keyed by address space and address. A shared one on a MAP_SHARED mapping
// is keyed by the backing object (found in /proc/TID/maps), so processes mapping the same file
// or shared memory at different addresses meet; on private memory it stays per address space.
FutexKey MakeFutexKey(const Thread& thread, uint64_t address, bool shared);

}  // namespace chess::supervisor
