// SyncObjectNames: for a log that keeps them (a trace), the names of the variables the program's
// sync operations work on ("acct+40 (bank_transfer)"), each looked up once.
#pragma once

#include <cstdint>
#include <set>
#include <utility>

#include "search/execution_log.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class SyncObjectNames {
 public:
  // Names to `log` the variable the sync operation `thread` stopped at works on, the first time
  // its process uses it, while the process is there to ask.
  void Name(const Thread& thread, search::ExecutionLog& log);

 private:
  std::set<std::pair<uint64_t, uint64_t>> named_;  // (address space, address) looked up
};

}  // namespace chess::supervisor
