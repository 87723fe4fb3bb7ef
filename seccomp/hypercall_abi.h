/* The hypercall ABI between the preload shim (plain C) and the supervisor.
 * A hypercall is syscall(CHESS_HYPERCALL_BASE + n, args...). Numbers must match seccomp/arch.h. */
#ifndef CHESS_SECCOMP_HYPERCALL_ABI_H
#define CHESS_SECCOMP_HYPERCALL_ABI_H

#define CHESS_HYPERCALL_BASE 1000
#define CHESS_HYPERCALL_COUNT 8

/* syscall(CHESS_HYPERCALL_BASE + CHESS_HC_HELLO) returns CHESS_HC_MAGIC under chess-trace and
 * -1/ENOSYS natively, so the shim can stay silent when it is loaded without the supervisor. */
#define CHESS_HC_HELLO 0
#define CHESS_HC_SYNC_OP 1 /* args: (op kind, object address) */
#define CHESS_HC_MAGIC 0x43485353L /* "CHSS" */

#endif
