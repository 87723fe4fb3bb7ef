// CHESS_CHECK: a broken invariant of the supervisor itself. It aborts after dumping the thread
// table (PTRACE_O_EXITKILL then kills the tree); a tracee's misbehaviour never takes this path.
#pragma once

#include "supervisor/thread_table.h"

namespace chess::supervisor {

class InvariantContext {
 public:
  static void Set(const ThreadTable* table);
  [[noreturn]] static void Fail(const char* condition, const char* message, const char* file,
                                int line);
};

#define CHESS_CHECK(condition, message)                                                   \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      ::chess::supervisor::InvariantContext::Fail(#condition, message, __FILE__, __LINE__); \
    }                                                                                     \
  } while (false)

}  // namespace chess::supervisor
