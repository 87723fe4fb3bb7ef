// ExecutionLog: what an execution takes from outside the program's control besides its
// schedule, as it happens — for a trace to record it and for a replay to give it back. The
// supervisor calls it; a recorder keeps the values, a replayer answers with the recorded ones.
#pragma once

#include <cstdint>
#include <string>

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

  // Whether the log keeps the names of the objects sync operations work on (a trace does, for
  // `show`): only then are they looked up, once per object and process.
  virtual bool WantsObjectNames() const { return false; }
  // The object at `address` in process `pid` (as the program sees it) is the variable `name`:
  // "balance_lock (atomicity_buggy)", "acct+40 (bank_transfer)".
  virtual void ObjectNamed(int64_t pid, uint64_t address, const std::string& name) {
    (void)pid;
    (void)address;
    (void)name;
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
