#include "supervisor/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace chess::supervisor {
namespace {
const ThreadTable* g_table = nullptr;
}

void InvariantContext::Set(const ThreadTable* table) { g_table = table; }

void InvariantContext::Fail(const char* condition, const char* message, const char* file,
                            int line) {
  std::fprintf(stderr, "chess-trace: internal error at %s:%d: %s (%s)\n", file, line, message,
               condition);
  if (g_table != nullptr) {
    std::fprintf(stderr, "thread table:\n");
    for (const auto& [id, thread] : g_table->All()) {
      std::fprintf(stderr, "  thread %u tid %d pid %d %s syscall %lld %s\n", id, thread->tid,
                   thread->process->tgid, ThreadStateName(thread->state),
                   static_cast<long long>(thread->call.nr), ParkedAtName(thread->parked.at));
    }
  }
  std::fprintf(stderr, "Please report this with the command line that produced it.\n");
  std::abort();
}

}  // namespace chess::supervisor
