// Recording and replaying an execution's schedule and inputs. TraceRecorder sits between the
// supervisor and the real strategy: every decision passes through it into the trace, and the
// outside world's waits are noted as they happen. ReplayLog gives a replay those waits back.
#pragma once

#include <map>
#include <memory>

#include "search/execution_log.h"
#include "search/strategy.h"
#include "trace/object_names.h"
#include "trace/trace_writer.h"

namespace chess::trace {

class TraceRecorder final : public search::ForwardingStrategy, public search::ExecutionLog {
 public:
  TraceRecorder(search::Strategy& inner, TraceWriter& writer) : ForwardingStrategy(inner), writer_(writer) {}

  // search::Strategy: the inner strategy decides; the decision is written down.
  [[nodiscard]] search::ThreadId PickThread(const search::SchedulingContext& context) override;

  // search::ExecutionLog.
  void ThreadStarted(search::ThreadId thread, int64_t pid, int64_t tid) override;
  bool WantsObjectNames() const override { return true; }
  void ObjectNamed(int64_t pid, uint64_t address, const std::string& name) override;
  int64_t OutsideWait(uint64_t decision, int64_t measured) override;

  // The names written so far, for a report of the same execution.
  const ObjectNames& Names() const { return names_; }

 private:
  TraceWriter& writer_;
  ObjectNames names_;
};

// The waits a recording noted, given back at the same decisions: a decision's waits were one
// sum when recorded, and are one sum when replayed (the first wait before it gets it all).
class ReplayLog final : public search::ExecutionLog {
 public:
  explicit ReplayLog(const std::vector<trace::OutsideWait>& waits);
  int64_t OutsideWait(uint64_t decision, int64_t measured) override;

 private:
  std::map<uint64_t, int64_t> waits_;
};

}  // namespace chess::trace
