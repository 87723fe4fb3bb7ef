// SchedulingPoint: a thread stopped just before a visible operation (CHESS's task/resource/op).
#pragma once

#include <cstdint>

#include "search/thread_id.h"

namespace chess::search {

// What the stopped thread is about to do, at the granularity the search cares about.
enum class OpKind : uint8_t {
  kThreadStart,   // a new thread, before its first instruction
  kFutexWait,     // waits on a futex word (or several)
  kFutexWake,     // wakes, requeues or hands a PI lock over
  kThreadCreate,  // clone, clone3, fork, vfork
  kThreadExit,    // exit (wakes the clear-child-tid word)
  kProcessExit,   // exit_group
  kYield,         // sched_yield
  kSleep,         // nanosleep, clock_nanosleep
  kInterrupted,   // the backstop stopped a thread that ran a whole slice
  kSignal,        // sends a signal to another task
  kSyncOp,        // announced by the preload shim
  kIo,            // moves data through a pipe or socket another thread can see
  kSyscall,       // any other trapped syscall that is a scheduling point
  kFairnessYield, // gave way at a syscall that would not have stopped it: its slice was used up
  kAtomic,        // before an atomic instruction of the program's code (a breakpoint, not a syscall)
  kRacyAccess,    // before a plain memory access a learning execution found racing (a breakpoint)
};

struct SchedulingPoint {
  ThreadId thread;
  OpKind op = OpKind::kSyscall;
  uint64_t resource = 0;  // futex address, fd, pid… — what two operations conflict on
  bool is_write = false;
  bool is_release = false;
  int64_t syscall = -1;   // the syscall the thread stopped in (an opaque number here), or -1
  uint64_t index = 0;     // after how many of its trapped syscalls the thread stopped here
  // kAtomic, kRacyAccess: the instruction's address in the program (resource is the memory it
  // touches, is_write whether it writes there: a read-modify-write or a store; a fence touches none).
  uint64_t instruction = 0;
};

inline constexpr OpKind kLastOpKind = OpKind::kRacyAccess;

// A point before an instruction of the program's code (a breakpoint's stop, not a syscall's).
inline constexpr bool AtInstruction(OpKind op) { return op == OpKind::kAtomic || op == OpKind::kRacyAccess; }

}  // namespace chess::search
