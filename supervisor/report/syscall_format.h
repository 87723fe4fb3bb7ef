// Renders a trapped syscall the way strace would, for reports: "futex(0x7ffd…, FUTEX_WAIT_PRIVATE, 2, NULL)".
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "supervisor/thread_table.h"

namespace chess::supervisor {

// With `tid`, file descriptors are shown with what they are: "read(3<pipe:[1234]>, …)". A sync
// operation the preload shim announced names its object `object` when given ("a mutex lock on
// balance_lock (bank), announced by the preload shim"), its address otherwise.
std::string FormatCall(const TrappedCall& call, pid_t tid = 0, std::string_view object = {});

// What the call waits on, in words: "futex 0x55d0…", "fd 0", "a vfork child".
std::string DescribeResource(const Thread& thread);

}  // namespace chess::supervisor
