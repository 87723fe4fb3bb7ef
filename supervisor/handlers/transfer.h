// Transfers carried out in pieces. A blocking write larger than the free space of a pipe or a
// socket, or a receive with MSG_WAITALL, would sleep in the kernel while the one running thread
// holds the CPU, until the watchdog noticed. Instead the kernel moves what it can without
// blocking; between pieces the thread stays inside the call (its registers rewound onto the
// syscall instruction with the remainder) and is disabled until the descriptor is ready again;
// at the end the call returns what one blocking call would have returned.
#pragma once

#include <optional>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {

// At a seccomp stop of write, writev, sendto, sendmsg or recvfrom(MSG_WAITALL) on a blocking
// pipe or socket: starts a transfer, or recognises the re-entry of the one in progress.
void StartTransfer(SyscallContext& ctx, const FdCopy& file, int fd);

// The deferred operation: waits until the descriptor is ready, then runs one piece that cannot
// block, stopping at its syscall exit.
ExecuteAnswer RunTransferPiece(SyscallContext& ctx);

// At the entry (or re-entry) of a transfer: a scheduling point when I/O makes points, else
// the next piece at once.
Disposition ContinueTransfer(SyscallContext& ctx, uint64_t resource, bool is_write = false);

// The syscall-exit stop of a piece: the call returns, or the thread stays inside it.
ExitAnswer FinishTransferPiece(SyscallContext& ctx);

// The descriptor's timeout (SO_SNDTIMEO, SO_RCVTIMEO) passed: the call returns what it moved,
// or EAGAIN.
TimeoutAnswer TransferTimedOut(SyscallContext& ctx);

// Ends a transfer early for a signal, as the kernel would: with what was moved if anything was
// (the registers are set for that), or by letting the kernel run the call afresh.
void AbandonTransfer(Thread& thread);

// The thread is gone: the descriptor gets its flags back, and the transfer is forgotten.
void DropTransfer(Thread& thread);

// Whether the thread is in a transfer of this very call (a re-entry after a piece).
bool ReentersTransfer(const Thread& thread);

}  // namespace chess::supervisor
