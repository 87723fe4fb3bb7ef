// Backtraces of stopped tracee threads, symbolized, for deadlock and hang reports.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace chess::supervisor {

// A function the compiler inlined where a frame is, and the line within it.
struct InlinedFunction {
  std::string function;  // demangled
  std::string file;      // as the debug information names it; "" when unknown
  int line = 0;
};

struct StackFrame {
  uint64_t pc = 0;
  std::string function;        // demangled when it is a C++ symbol; empty when unknown
  uint64_t offset = 0;         // pc - start of function
  std::string module;          // basename of the mapped file ("libc.so.6", "mutex_deadlock"), or ""
  uint64_t module_offset = 0;  // pc as an offset in that file, for addr2line
  // The source line of the instruction (of the call, for a return address), from the debug
  // information; empty and 0 when there is none. `file` as the debug information names it:
  // absolute when it knows the build directory.
  std::string file;
  int line = 0;
  // The functions inlined at the pc, innermost first: the instruction is in inlined[0] at its
  // line, inlined[0] is called from inlined[1] at its line, and so on; the outermost is called
  // from the frame's function at `file`:`line`. Empty where nothing is inlined (or no debug
  // information says).
  std::vector<InlinedFunction> inlined;
  // The pc is where a call returns to, not the instruction the frame is at: every frame but the
  // innermost and one a signal interrupted. Its function and line are those of pc - 1.
  bool return_address = false;
};

class ProcessSymbols;

// Unwinds the user stack of `tid`, which must be in a ptrace-stop of the calling tracer, and
// names its frames through `symbols` (tid's process). Never crashes or throws on a corrupt
// stack: returns the frames it could read (<= max_frames), and none when `tid` does not exist or
// is not stopped by this tracer.
std::vector<StackFrame> CaptureBacktrace(pid_t tid, ProcessSymbols& symbols, size_t max_frames = 32);
// The same, reading tid's mappings for this one stack.
std::vector<StackFrame> CaptureBacktrace(pid_t tid, size_t max_frames = 32);

// Whether a frame is in the C or C++ runtime (libc, the dynamic loader, libpthread, libstdc++,
// libgcc_s): not the program's code, and named in more or less detail depending on whether the
// runtime's debug information is installed.
bool InRuntime(const StackFrame& frame);

// "pthread_mutex_lock+0x8e (libc.so.6)", or "?? (libc.so.6+0x91234)" when the function has no
// symbol (a stripped library's internal function), or "0x7f12… (?)" outside any file; then
// " at FILE:LINE" (the file's basename) when the debug information knows the line:
// "worker+0x2b (bank_transfer) at bank_transfer.c:41"; then, outside the runtime, the innermost
// inlined function that is not the system's (its file outside /usr), when there is one:
// "deposit+0x36 (bank) at bank.c:43 → write_balance at bank.c:35 (inlined)".
std::string FormatFrame(const StackFrame& frame);

}  // namespace chess::supervisor
