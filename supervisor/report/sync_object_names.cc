#include "supervisor/report/sync_object_names.h"

#include "supervisor/report/symbolizer.h"

namespace chess::supervisor {

void SyncObjectNames::Name(const Thread& thread, search::ExecutionLog& log) {
  if (!log.WantsObjectNames()) return;
  const uint64_t address = thread.point.resource;
  if (!named_.emplace(thread.process->address_space, address).second) return;
  if (auto data = ProcessSymbols(thread.tid).Data(address)) {
    log.ObjectNamed(thread.process->program_pid, address, FormatDataSymbol(*data));
  }
}

}  // namespace chess::supervisor
