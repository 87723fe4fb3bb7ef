// Backtraces of stopped tracee threads, symbolized, for deadlock and hang reports.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace chess::supervisor {

struct StackFrame {
  uint64_t pc = 0;
  std::string function;        // demangled when it is a C++ symbol; empty when unknown
  uint64_t offset = 0;         // pc - start of function
  std::string module;          // basename of the mapped file ("libc.so.6", "mutex_deadlock"), or ""
  uint64_t module_offset = 0;  // pc as an offset in that file, for addr2line
};

// Unwinds the user stack of `tid`, which must be in a ptrace-stop of the calling tracer.
// Never crashes or throws on a corrupt stack: returns the frames it could read (<= max_frames),
// and none when `tid` does not exist or is not stopped by this tracer.
std::vector<StackFrame> CaptureBacktrace(pid_t tid, size_t max_frames = 32);

// One code address of `tid`'s process as a frame: the file it is in and its offset there (for
// an address seen earlier, in this process or one with the same mappings).
StackFrame SymbolizeAddress(pid_t tid, uint64_t pc);

// "pthread_mutex_lock+0x8e (libc.so.6)", or "?? (libc.so.6+0x91234)" when the function has no
// symbol (a stripped library's internal function), or "0x7f12… (?)" outside any file.
std::string FormatFrame(const StackFrame& frame);

}  // namespace chess::supervisor
