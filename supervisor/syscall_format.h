// Renders a trapped syscall the way strace would, for reports: "futex(0x7ffd…, FUTEX_WAIT_PRIVATE, 2, NULL)".
#pragma once

#include <string>

#include "supervisor/thread_table.h"

namespace chess::supervisor {

std::string FormatCall(const TrappedCall& call);

// What the call waits on, in words: "futex 0x55d0…", "fd 0", "a vfork child".
std::string DescribeResource(const Thread& thread);

}  // namespace chess::supervisor
