#include "search/branch_codec.h"

#include "search/byte_codec.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace chess::search {
namespace {

using Writer = ByteWriter;
using Reader = ByteReader;


void PutPoint(Writer& w, const SchedulingPoint& p) {
  w.Put(p.thread.value);
  w.Put(static_cast<uint8_t>(p.op));
  w.Put(p.resource);
  w.Put<uint8_t>(p.is_write);
  w.Put<uint8_t>(p.is_release);
  w.Put(p.syscall);
  w.Put(p.index);
  w.Put(p.instruction);
}

SchedulingPoint GetPoint(Reader& r) {
  SchedulingPoint p;
  p.thread.value = r.Get<uint32_t>();
  p.op = static_cast<OpKind>(r.Get<uint8_t>());
  p.resource = r.Get<uint64_t>();
  p.is_write = r.Get<uint8_t>() != 0;
  p.is_release = r.Get<uint8_t>() != 0;
  p.syscall = r.Get<int64_t>();
  p.index = r.Get<uint64_t>();
  p.instruction = r.Get<uint64_t>();
  return p;
}

void PutThread(Writer& w, const std::optional<ThreadId>& thread) {
  w.Put<uint8_t>(thread.has_value());
  w.Put(thread ? thread->value : 0u);
}

std::optional<ThreadId> GetThread(Reader& r) {
  const bool has = r.Get<uint8_t>() != 0;
  const uint32_t value = r.Get<uint32_t>();
  return has ? std::optional<ThreadId>(ThreadId{value}) : std::nullopt;
}

void PutDecision(Writer& w, const RecordedDecision& d) {
  PutThread(w, d.current);
  w.Put(static_cast<uint8_t>(d.stop));
  PutPoint(w, d.point);
  w.Put(d.picked.value);
  w.Put<uint8_t>(d.fired_early);
}

RecordedDecision GetDecision(Reader& r) {
  RecordedDecision d;
  d.current = GetThread(r);
  d.stop = static_cast<StopReason>(r.Get<uint8_t>());
  d.point = GetPoint(r);
  d.picked.value = r.Get<uint32_t>();
  d.fired_early = r.Get<uint8_t>() != 0;
  return d;
}

void PutEvent(Writer& w, const SyscallEvent& e) {
  w.Put(e.thread.value);
  w.Put(e.index);
  w.Put(e.syscall);
  w.Put<uint8_t>(e.exit);
  w.Put(e.result);
  w.Put(e.digest);
  w.Text(e.sample);
  w.Text(e.target);
  w.Put<uint8_t>(e.incidental);
  w.Put(e.ip);
}

SyscallEvent GetEvent(Reader& r) {
  SyscallEvent e;
  e.thread.value = r.Get<uint32_t>();
  e.index = r.Get<uint64_t>();
  e.syscall = r.Get<int64_t>();
  e.exit = r.Get<uint8_t>() != 0;
  e.result = r.Get<int64_t>();
  e.digest = r.Get<uint64_t>();
  e.sample = r.Text();
  e.target = r.Text();
  e.incidental = r.Get<uint8_t>() != 0;
  e.ip = r.Get<uint64_t>();
  return e;
}

void PutDecisions(Writer& w, const std::vector<RecordedDecision>& decisions) {
  w.List(decisions, [](Writer& out, const RecordedDecision& d) { PutDecision(out, d); });
}

std::vector<RecordedDecision> GetDecisions(Reader& r) {
  return r.List<RecordedDecision>([](Reader& in) { return GetDecision(in); });
}

}  // namespace

std::string EncodeBranchRequest(const Branch& branch, bool retry) {
  Writer w;
  w.Put(branch.serial);
  w.Put<uint8_t>(retry);
  w.Put(branch.spent);
  w.Put<uint64_t>(branch.decision);
  w.Put(branch.choice.value);
  w.Put<uint8_t>(branch.path != nullptr);
  if (branch.path) {
    const std::vector<RecordedDecision>& path = branch.path->decisions;
    const size_t prefix = std::min(path.size(), branch.decision + 1);
    PutDecisions(w, std::vector<RecordedDecision>(path.begin(), path.begin() + static_cast<ptrdiff_t>(prefix)));
  }
  return w.Take();
}

std::optional<BranchRequest> DecodeBranchRequest(const std::string& bytes) {
  Reader r(bytes);
  BranchRequest request;
  request.serial = r.Get<uint64_t>();
  request.retry = r.Get<uint8_t>() != 0;
  request.branch.serial = request.serial;
  request.branch.spent = r.Get<uint32_t>();
  request.branch.decision = r.Get<uint64_t>();
  request.branch.choice.value = r.Get<uint32_t>();
  if (r.Get<uint8_t>() != 0) {
    auto path = std::make_shared<ExecutionPath>();
    path->decisions = GetDecisions(r);
    if (path->decisions.size() != request.branch.decision + 1) return std::nullopt;
    request.branch.path = std::move(path);
  }
  if (!r.Whole()) return std::nullopt;
  return request;
}

std::string EncodeSampleRequest(uint64_t serial, const SampleRequest& sample, bool retry) {
  Writer w;
  w.Put(serial);
  w.Put<uint8_t>(retry);
  w.Put(static_cast<uint8_t>(sample.kind));
  w.Put(sample.index);
  w.Put(sample.seed);
  w.Put(sample.pct_depth);
  w.Put(sample.estimated_steps);
  return w.Take();
}

std::optional<SampleRunRequest> DecodeSampleRequest(const std::string& bytes) {
  Reader r(bytes);
  SampleRunRequest request;
  request.serial = r.Get<uint64_t>();
  request.retry = r.Get<uint8_t>() != 0;
  const auto kind = static_cast<StrategyKind>(r.Get<uint8_t>());
  if (kind != StrategyKind::kPct && kind != StrategyKind::kRandom) return std::nullopt;
  request.sample.kind = kind;
  request.sample.index = r.Get<uint64_t>();
  request.sample.seed = r.Get<uint64_t>();
  request.sample.pct_depth = r.Get<uint32_t>();
  request.sample.estimated_steps = r.Get<uint64_t>();
  if (!r.Whole()) return std::nullopt;
  return request;
}

std::string EncodeBranchRun(uint64_t serial, const BranchRun& run) {
  Writer w;
  w.Put(serial);
  const ExecutionSummary& s = run.summary;
  w.Put(static_cast<uint8_t>(s.outcome));
  w.Text(s.message);
  w.Text(s.signature);
  w.List(s.names, [](Writer& out, const SyscallEvent& e) { PutEvent(out, e); });
  w.List(s.threads, [](Writer& out, const StoppedThread& t) {
    out.Put(t.thread);
    out.Text(t.call);
    out.List(t.stack, [](Writer& o, const std::string& frame) { o.Text(frame); });
  });
  PutDecisions(w, run.decisions);
  w.List(run.alternatives, [](Writer& out, const Alternative& a) {
    out.Put<uint64_t>(a.decision);
    out.Put(a.choice.value);
    out.Put(a.cost);
  });
  w.List(run.visits, [](Writer& out, const StateVisit& v) {
    out.Put<uint64_t>(v.decision);
    out.Put(v.state);
    out.Put(v.last.thread);
    out.Put<uint8_t>(v.last.may_go_on);
    out.Put(v.spent);
  });
  w.Put(run.preemptions);
  w.Put(run.spent);
  w.List(run.preemption_decisions, [](Writer& out, size_t d) { out.Put<uint64_t>(d); });
  w.Text(run.strategy);
  w.Put<uint8_t>(run.diverged.has_value());
  if (run.diverged) {
    const DivergencePoint& d = *run.diverged;
    w.Put<uint64_t>(d.decision);
    w.Put<uint8_t>(d.expected.has_value());
    if (d.expected) PutDecision(w, *d.expected);
    PutThread(w, d.found_thread);
    PutPoint(w, d.found_point);
    w.Text(d.message);
  }
  w.Text(run.observed);
  w.Put(run.choice_steps);
  return w.Take();
}

std::optional<std::pair<uint64_t, BranchRun>> DecodeBranchRun(const std::string& bytes) {
  Reader r(bytes);
  const uint64_t serial = r.Get<uint64_t>();
  BranchRun run;
  ExecutionSummary& s = run.summary;
  const uint8_t outcome = r.Get<uint8_t>();
  if (outcome > static_cast<uint8_t>(kLastOutcome)) return std::nullopt;
  s.outcome = static_cast<Outcome>(outcome);
  s.message = r.Text();
  s.signature = r.Text();
  s.names = r.List<SyscallEvent>([](Reader& in) { return GetEvent(in); });
  s.threads = r.List<StoppedThread>([](Reader& in) {
    StoppedThread t;
    t.thread = in.Get<uint32_t>();
    t.call = in.Text();
    t.stack = in.List<std::string>([](Reader& i) { return i.Text(); });
    return t;
  });
  run.decisions = GetDecisions(r);
  run.alternatives = r.List<Alternative>([](Reader& in) {
    Alternative a;
    a.decision = in.Get<uint64_t>();
    a.choice.value = in.Get<uint32_t>();
    a.cost = in.Get<uint32_t>();
    return a;
  });
  run.visits = r.List<StateVisit>([](Reader& in) {
    StateVisit v;
    v.decision = in.Get<uint64_t>();
    v.state = in.Get<uint64_t>();
    v.last.thread = in.Get<uint32_t>();
    v.last.may_go_on = in.Get<uint8_t>() != 0;
    v.spent = in.Get<uint32_t>();
    return v;
  });
  run.preemptions = r.Get<uint32_t>();
  run.spent = r.Get<uint32_t>();
  run.preemption_decisions = r.List<size_t>([](Reader& in) { return static_cast<size_t>(in.Get<uint64_t>()); });
  run.strategy = r.Text();
  if (r.Get<uint8_t>() != 0) {
    DivergencePoint d;
    d.decision = r.Get<uint64_t>();
    if (r.Get<uint8_t>() != 0) d.expected = GetDecision(r);
    d.found_thread = GetThread(r);
    d.found_point = GetPoint(r);
    d.message = r.Text();
    run.diverged = std::move(d);
  }
  run.observed = r.Text();
  run.choice_steps = r.Get<uint64_t>();
  if (!r.Whole()) return std::nullopt;
  return std::make_pair(serial, std::move(run));
}

}  // namespace chess::search
