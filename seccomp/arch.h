// The architecture seam: everything that differs between x86_64 and (later) aarch64 in how the
// filter names syscalls. Numbers newer than the C library's headers are spelled out here.
#pragma once

#include <linux/audit.h>
#include <sys/syscall.h>

#include <cstdint>

namespace chess::seccomp {

#if defined(__x86_64__)
inline constexpr const char* kArchName = "x86_64";
// struct seccomp_data's `arch` for a native syscall.
inline constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
// Linux 6.7 futex2 calls; Debian 12's headers predate them.
inline constexpr long kSysFutexWake = 454;
inline constexpr long kSysFutexWait = 455;
inline constexpr long kSysFutexRequeue = 456;
inline constexpr long kSysFutexWaitv = 449;
#else
#error "chess-trace supports x86_64 only for now; add this architecture's numbers to seccomp/arch.h"
#endif

// Syscall numbers private to chess-trace: the preload shim announces sync operations with them.
// The kernel would answer ENOSYS; the filter traps them before it can.
inline constexpr long kHypercallFirst = 1000;
inline constexpr long kHypercallCount = 8;

}  // namespace chess::seccomp
