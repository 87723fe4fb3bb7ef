// The variables a trace's sync operations worked on, looked up by the thread that stopped at
// the operation: "acquire 0x555555558080" becomes "acquire balance_lock (atomicity_buggy)".
// Names are per process (two programs of one tree may hold different variables at one address).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "search/thread_id.h"
#include "trace/format.h"

namespace chess::trace {

class ObjectNames {
 public:
  static ObjectNames Of(const Trace& trace) {
    ObjectNames names;
    for (const ThreadInfo& thread : trace.threads) names.AddThread(thread.thread, thread.pid);
    for (const ObjectName& name : trace.object_names) names.Add(name);
    return names;
  }

  void AddThread(search::ThreadId thread, int64_t pid) { pids_[thread.value] = pid; }
  void Add(const ObjectName& name) { names_[{name.pid, name.address}] = name.name; }

  // The name of `address` in the process of `thread`, or "" when the trace has none.
  std::string Find(search::ThreadId thread, uint64_t address) const {
    auto pid = pids_.find(thread.value);
    if (pid == pids_.end()) return {};
    auto name = names_.find({pid->second, address});
    return name == names_.end() ? std::string() : name->second;
  }
  bool Empty() const { return names_.empty(); }
  const std::map<std::pair<int64_t, uint64_t>, std::string>& All() const { return names_; }

 private:
  std::map<uint32_t, int64_t> pids_;
  std::map<std::pair<int64_t, uint64_t>, std::string> names_;
};

}  // namespace chess::trace
