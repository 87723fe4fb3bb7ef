// ExecutionLog: what an execution takes from outside the program's control besides its
// schedule, as it happens — for a trace to record it and for a replay to give it back. The
// supervisor calls it; a recorder keeps the values, a replayer answers with the recorded ones.
#pragma once

#include <cstdint>

#include "search/thread_id.h"

namespace chess::search {

class ExecutionLog {
 public:
  virtual ~ExecutionLog() = default;

  // A thread appeared: its logical id, and the ids the program sees for it and its process.
  virtual void ThreadStarted(ThreadId thread, int64_t pid, int64_t tid) {
    (void)thread;
    (void)pid;
    (void)tid;
  }

  // Real time passed while the tree waited on the outside world (it moves virtual time), before
  // scheduling decision `decision`. Returns the nanoseconds to use: what was measured when
  // recording, what was recorded when replaying.
  virtual int64_t OutsideWait(uint64_t decision, int64_t measured) {
    (void)decision;
    return measured;
  }
};

}  // namespace chess::search
