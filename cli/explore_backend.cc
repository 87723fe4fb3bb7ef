#include "cli/explore_backend.h"

#include "search/lock_watching_strategy.h"

#include <cstring>
#include <vector>

#include "search/byte_codec.h"
#include "search/non_preemptive_strategy.h"

namespace chess::cli {
namespace {

std::vector<std::string> LastLines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  while (end > 0 && lines.size() < count) {
    const size_t start = text.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    lines.insert(lines.begin(), text.substr(from, end - from));
    if (start == std::string::npos) break;
    end = start;
  }
  return lines;
}

// Where each thread stopped, for the report of a divergence: its call and the top of its stack
// (the preload shim's own frames left out: the program's start at the call it made).
std::vector<search::StoppedThread> StoppedThreads(const supervisor::ExecutionResult& result) {
  constexpr size_t kFrames = 8;
  std::vector<search::StoppedThread> threads;
  for (const supervisor::ThreadReport& report : result.threads) {
    search::StoppedThread thread;
    thread.thread = report.thread;
    thread.call = report.call;
    size_t first = 0;
    while (first + 1 < report.frames.size() && report.frames[first].module == "libchess_preload.so") ++first;
    for (size_t i = first; i < report.frames.size() && i < first + kFrames; ++i) {
      thread.stack.push_back(supervisor::FormatFrame(report.frames[i]));
    }
    threads.push_back(std::move(thread));
  }
  return threads;
}

}  // namespace

std::string OutputTail(const supervisor::CapturedOutput& output, size_t lines) {
  std::string text;
  for (const std::string& line : LastLines(output.out, lines)) text += "    stdout| " + line + "\n";
  for (const std::string& line : LastLines(output.err, lines)) text += "    stderr| " + line + "\n";
  return text;
}

std::string BugSignature(const supervisor::ExecutionResult& result, search::Outcome outcome) {
  std::string signature(search::OutcomeName(outcome));
  if (result.exit_status) signature += " status " + std::to_string(*result.exit_status);
  if (result.signal) signature += " signal " + std::to_string(*result.signal);
  for (const supervisor::ThreadReport& thread : result.threads) {
    signature += "\n" + thread.state + " " + thread.syscall;
    for (size_t i = 0; i < thread.frames.size() && i < 6; ++i) {
      signature += " " + (thread.frames[i].function.empty() ? thread.frames[i].module : thread.frames[i].function);
    }
  }
  return signature;
}

search::Outcome SupervisorBackend::Judge(const supervisor::ExecutionResult& result, std::string* message) const {
  search::Outcome judged = result.outcome;
  if ((result.outcome == search::Outcome::kOk || result.outcome == search::Outcome::kExitStatus) && result.exit_status) {
    judged = *result.exit_status == expect_exit_ ? search::Outcome::kOk : search::Outcome::kExitStatus;
  }
  return refusals_.Judge(result, judged, message);
}

search::Outcome SupervisorBackend::JudgeWithOracles(const supervisor::ExecutionResult& result,
                                                    const supervisor::CapturedOutput& output,
                                                    std::string* message) const {
  return judge_.Judge(Judge(result, message), result, output, message);
}

Result<void> SupervisorBackend::RunReference() {
  if (!capture_.Active()) {
    if (auto begun = capture_.Begin(); !begun) return Error{begun.error()};
  }
  search::NonPreemptiveStrategy strategy;
  supervisor::ExecutionResult result = cli::Execute(execution_, execution_.options, strategy, &isolated_);
  const supervisor::CapturedOutput output = capture_.Take();
  std::string message = result.message;
  const search::Outcome outcome = Judge(result, &message);
  if (outcome != search::Outcome::kOk) {
    reference_problem_ = "the non-preemptive execution, --same-output's reference, ended " +
                         std::string(search::OutcomeName(outcome)) + (message.empty() ? "" : " (" + message + ")");
    return Error{reference_problem_};
  }
  if (auto taken = judge_.TakeReference(result, output); !taken) {
    reference_problem_ = taken.error();
    return taken;
  }
  return {};
}

bool SupervisorBackend::WatchLocks(bool on) {
  if (on && (runner_logs_ || !execution_.options.preload_shim)) return false;
  watch_locks_ = on;
  return true;
}

search::ExecutionSummary SupervisorBackend::Execute(search::Strategy& strategy) {
  ++executions_;
  search::ExecutionSummary summary;
  // One capture for the whole search: executions forked from a template write to the files
  // the template has.
  if (!capture_.Active()) {
    if (auto begun = capture_.Begin(); !begun) {
      setup_error_ = begun.error();
      summary.message = begun.error();
      return summary;
    }
  }
  // Its decisions are kept, so that one a Ctrl-C cuts short can still be saved as a trace.
  search::LockWatchingStrategy watcher(strategy);
  search::RecordingStrategy recorder(watch_locks_ ? static_cast<search::Strategy&>(watcher) : strategy);
  supervisor::ExecutionResult result = cli::Execute(execution_, execution_.options, recorder, &isolated_);
  const supervisor::CapturedOutput output = capture_.Take();
  if (result.forked) ++forked_;
  visibility_.Add(result.images);
  visibility_.AddAtomics(result.atomics);
  last_forked_ = result.forked;
  last_images_ = result.images;
  last_atomics_ = result.atomics;
  if (result.stopped_by_signal != 0) interrupted_ = InterruptedRun{executions_, recorder.Decisions(), strategy.Describe()};
  summary.message = result.message;
  summary.outcome = Judge(result, &summary.message);
  // --same-output: the first, non-preemptive execution is the reference the others must equal.
  if (reference_from_first_ && executions_ == 1 && judge_.AwaitingReference()) {
    if (summary.outcome != search::Outcome::kOk) {
      reference_problem_ = "the first, non-preemptive execution, --same-output's reference, ended " +
                           std::string(search::OutcomeName(summary.outcome));
    } else if (auto taken = judge_.TakeReference(result, output); !taken) {
      reference_problem_ = taken.error();
      summary.outcome = search::Outcome::kError;
      summary.message = taken.error();
    }
  }
  summary.outcome = judge_.Judge(summary.outcome, result, output, &summary.message);
  refusals_.Learn(result, summary.outcome);
  summary.names = std::move(result.names);
  if (watch_locks_) summary.locks = watcher.Take();
  if (summary.outcome == search::Outcome::kDivergence) summary.threads = StoppedThreads(result);
  if (result.exec_errno) {
    summary.outcome = search::Outcome::kError;
    summary.message = "cannot execute " + execution_.spec.path + ": " + std::strerror(*result.exec_errno);
  }
  if (!search::IsBug(summary.outcome)) return summary;
  summary.signature = BugSignature(result, summary.outcome);
  // Wrong output is told apart by what was wrong: the lines the verdict quotes.
  if (summary.outcome == search::Outcome::kWrongOutput || summary.outcome == search::Outcome::kCheckFailed) {
    summary.signature += "\n" + summary.message;
  }
  summary.details = BugRun{std::move(result), OutputTail(output, 20)};
  return summary;
}

std::string SupervisorBackend::TakeObservation() {
  search::ByteWriter w;
  w.Put<uint8_t>(last_forked_);
  w.Put(isolated_);
  w.List(last_images_, [](search::ByteWriter& out, const supervisor::ProgramImage& image) {
    out.Text(image.path);
    out.Put(static_cast<uint8_t>(image.linking));
    out.Put<uint8_t>(image.multithreaded);
    out.Put(image.sync_ops);
    out.Put(image.decisions);
    out.Put(image.replaced);
  });
  // What AtomicPointsSeen::Add sums of an execution's count.
  const search::AtomicPointCount& a = last_atomics_;
  w.Put(a.planted);
  w.Put(a.stops);
  w.Put(a.points);
  w.Put<uint8_t>(a.capped);
  w.List(std::vector<std::string>(a.refused.begin(), a.refused.end()),
         [](search::ByteWriter& out, const std::string& refused) { out.Text(refused); });
  w.Put(a.sampled_sites);
  w.Put(a.sampled_accesses);
  w.Put(a.watched_accesses);
  w.Put<uint8_t>(a.sampling_capped);
  w.Put<uint8_t>(a.race_detection_cut_short);
  w.Put(a.race_points);
  return w.Take();
}

void SupervisorBackend::Absorb(const std::string& observed) {
  search::ByteReader r(observed);
  const bool forked = r.Get<uint8_t>() != 0;
  const uint64_t isolated = r.Get<uint64_t>();
  std::vector<supervisor::ProgramImage> images = r.List<supervisor::ProgramImage>([](search::ByteReader& in) {
    supervisor::ProgramImage image;
    image.path = in.Text();
    image.linking = static_cast<supervisor::Linking>(in.Get<uint8_t>());
    image.multithreaded = in.Get<uint8_t>() != 0;
    image.sync_ops = in.Get<uint64_t>();
    image.decisions = in.Get<uint64_t>();
    image.replaced = in.Get<uint64_t>();
    return image;
  });
  search::AtomicPointCount a;
  a.planted = r.Get<uint64_t>();
  a.stops = r.Get<uint64_t>();
  a.points = r.Get<uint64_t>();
  a.capped = r.Get<uint8_t>() != 0;
  for (std::string& refused : r.List<std::string>([](search::ByteReader& in) { return in.Text(); })) {
    a.refused.insert(std::move(refused));
  }
  a.sampled_sites = r.Get<uint64_t>();
  a.sampled_accesses = r.Get<uint64_t>();
  a.watched_accesses = r.Get<uint64_t>();
  a.sampling_capped = r.Get<uint8_t>() != 0;
  a.race_detection_cut_short = r.Get<uint8_t>() != 0;
  a.race_points = r.Get<uint64_t>();
  if (!r.Whole()) return;  // a run that failed in the pool carries none
  ++executions_;
  if (forked) ++forked_;
  isolated_ = isolated;
  visibility_.Add(images);
  visibility_.AddAtomics(a);
}

BugRun TakeBugRun(search::ExecutionSummary& summary) {
  BugRun* run = std::any_cast<BugRun>(&summary.details);
  if (run == nullptr) return {};
  BugRun taken = std::move(*run);
  summary.details.reset();
  return taken;
}

}  // namespace chess::cli
