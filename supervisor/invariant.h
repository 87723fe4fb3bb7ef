// CHESS_CHECK: a broken invariant of the supervisor itself. It aborts after dumping the thread
// table (PTRACE_O_EXITKILL then kills the tree); a tracee's misbehaviour never takes this path.
// The crash reporter does the same for a fatal signal chess-trace itself receives (a fault in
// its own code, an abort in a library, or a signal another process sent it): it says which, and
// who sent it, so that a crash seen once in CI can be told from the program's own doing.
#pragma once

#include "supervisor/thread_table.h"

namespace chess::supervisor {

class InvariantContext {
 public:
  static void Set(const ThreadTable* table);
  [[noreturn]] static void Fail(const char* condition, const char* message, const char* file,
                                int line);
};

// Where an internal error and the crash reporter write: stderr, or while the program's output is
// captured (fd 2 is then the program's), a copy of chess-trace's own stderr. Without it, the last
// words of a chess-trace that dies during a search would go into the captured output, unread.
void SetDiagnosticDescriptor(int fd);

// Installs the handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on an alternate stack,
// so that a stack overflow is reported too): each writes what the signal was, where it came
// from, a backtrace and the thread table to stderr, then dies of the same signal.
void InstallCrashReporter();

#define CHESS_CHECK(condition, message)                                                   \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      ::chess::supervisor::InvariantContext::Fail(#condition, message, __FILE__, __LINE__); \
    }                                                                                     \
  } while (false)

}  // namespace chess::supervisor
