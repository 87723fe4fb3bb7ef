#include "trace/recorder.h"

namespace chess::trace {

search::ThreadId TraceRecorder::PickThread(const search::SchedulingContext& context) {
  const search::ThreadId picked = Inner().PickThread(context);
  writer_.WriteDecision(search::Decided(context, picked));
  return picked;
}

void TraceRecorder::ObjectNamed(int64_t pid, uint64_t address, const std::string& name) {
  writer_.WriteObjectName({pid, address, name});
  names_.Add({pid, address, name});
}

void TraceRecorder::ThreadStarted(search::ThreadId thread, int64_t pid, int64_t tid) {
  writer_.WriteThread({thread, pid, tid});
  names_.AddThread(thread, pid);
}

int64_t TraceRecorder::OutsideWait(uint64_t decision, int64_t measured) {
  if (measured > 0) writer_.WriteOutsideWait({decision, measured});
  return measured;
}

ReplayLog::ReplayLog(const std::vector<trace::OutsideWait>& waits) {
  for (const trace::OutsideWait& wait : waits) waits_[wait.decision] += wait.nanos;
}

int64_t ReplayLog::OutsideWait(uint64_t decision, int64_t) {
  auto it = waits_.find(decision);
  if (it == waits_.end()) return 0;
  const int64_t nanos = it->second;
  waits_.erase(it);
  return nanos;
}

}  // namespace chess::trace
