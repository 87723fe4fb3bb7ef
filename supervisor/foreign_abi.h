// Syscalls a 64-bit program makes with `int $0x80`, through the i386 ABI. The filter lets most
// fail with ENOSYS and some run in the kernel (seccomp/filter.cc); only the two exits stop, as
// the exit family's, and are served as their x86_64 twins: a thread or a process ends however it
// asked to, and the supervisor knows which (rr's cross_arch ends with an i386 exit).
#pragma once

#include "supervisor/thread_table.h"

namespace chess::supervisor {

// At a seccomp stop whose registers were just read into `thread.call`: if the call is an i386
// exit, it becomes the x86_64 one (number and status); the kernel still runs the i386 call, whose
// registers are left as they are. A native call costs a comparison: a `syscall` instruction
// leaves its return address in rcx, which `int $0x80` does not, and only then is the kernel
// asked for the call's ABI.
void TranslateI386Exit(Thread& thread);

}  // namespace chess::supervisor
