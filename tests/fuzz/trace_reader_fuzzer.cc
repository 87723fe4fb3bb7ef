// libFuzzer target for the trace reader: trace::ParseTrace must refuse any damaged input with a
// message, and never crash, read out of bounds, or hang (built with AddressSanitizer and
// UndefinedBehaviorSanitizer).
//
// Each input is parsed twice:
//  1. as a whole trace file, as it is;
//  2. as the record stream inside a valid container — header, zstd frame, trailer with the right
//     length and FNV-1a checksum — so that mutations reach the record decoder instead of
//     stopping at the checksums.
// A trace that parses must satisfy the format's invariants, render (text, JSON, Chrome) without
// crashing, and survive a round trip: written again with TraceWriter and read back, it is the
// same trace.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "trace/container.h"
#include "trace/format.h"
#include "trace/render.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace {

using chess::trace::Trace;

constexpr const char* kReaderVersion = "fuzz";
// Rendering and rewriting are linear in the decisions; bound them so an input that legitimately
// expands to millions of decisions (repeat records) stays fast.
constexpr size_t kMaxDecisionsToRender = 20'000;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "trace_reader_fuzzer: %s\n", what);
  std::abort();
}

std::string Wrap(std::string_view stream) {
  std::string file = chess::trace::ContainerHeader("fuzz", chess::trace::kFormatVersion);
  std::string frame(ZSTD_compressBound(stream.size()), '\0');
  const size_t compressed = ZSTD_compress(frame.data(), frame.size(), stream.data(), stream.size(), 1);
  if (ZSTD_isError(compressed)) Fail("ZSTD_compress failed");
  file.append(frame.data(), compressed);
  return file + chess::trace::ContainerTrailer(stream.size(), chess::trace::Fnv1a64(file.data(), file.size()),
                                               chess::trace::kFormatVersion);
}

bool SameDecision(const chess::search::RecordedDecision& a, const chess::search::RecordedDecision& b) {
  return a.current == b.current && a.stop == b.stop && a.picked == b.picked && a.point.thread == b.point.thread &&
         a.point.op == b.point.op && a.point.resource == b.point.resource && a.point.is_write == b.point.is_write &&
         a.point.is_release == b.point.is_release && a.point.syscall == b.point.syscall && a.point.index == b.point.index &&
         a.point.instruction == b.point.instruction;
}

bool SameTrace(const Trace& a, const Trace& b) {
  if (a.format_version != b.format_version || a.tool_version != b.tool_version) return false;
  if (a.command.path != b.command.path || a.command.argv != b.command.argv || a.command.cwd != b.command.cwd ||
      a.command.env != b.command.env) {
    return false;
  }
  const auto& o = a.options;
  const auto& p = b.options;
  if (o.strategy != p.strategy || o.seed != p.seed || o.epoch != p.epoch || o.isolation != p.isolation ||
      o.slice_nanos != p.slice_nanos || o.io_points != p.io_points || o.visible_cpus != p.visible_cpus) {
    return false;
  }
  if (a.threads.size() != b.threads.size() || a.decisions.size() != b.decisions.size() ||
      a.outside_waits.size() != b.outside_waits.size() || a.outcome.has_value() != b.outcome.has_value()) {
    return false;
  }
  if (a.options.sync_points != b.options.sync_points || a.standard_input.has_value() != b.standard_input.has_value() ||
      (a.standard_input && (a.standard_input->kind != b.standard_input->kind ||
                            a.standard_input->bytes != b.standard_input->bytes))) {
    return false;
  }
  if (a.standard_descriptors != b.standard_descriptors) return false;
  if (a.options.atomic_points != b.options.atomic_points || a.atomic_points.has_value() != b.atomic_points.has_value() ||
      (a.atomic_points && (a.atomic_points->mode != b.atomic_points->mode || a.atomic_points->alone_sites != b.atomic_points->alone_sites ||
                           a.atomic_points->max_points != b.atomic_points->max_points))) {
    return false;
  }
  for (size_t i = 0; i < a.threads.size(); ++i) {
    if (a.threads[i].thread != b.threads[i].thread || a.threads[i].pid != b.threads[i].pid || a.threads[i].tid != b.threads[i].tid) {
      return false;
    }
  }
  for (size_t i = 0; i < a.decisions.size(); ++i) {
    if (!SameDecision(a.decisions[i], b.decisions[i])) return false;
  }
  for (size_t i = 0; i < a.outside_waits.size(); ++i) {
    if (a.outside_waits[i].decision != b.outside_waits[i].decision || a.outside_waits[i].nanos != b.outside_waits[i].nanos) {
      return false;
    }
  }
  if (a.outcome) {
    const auto& x = *a.outcome;
    const auto& y = *b.outcome;
    if (x.outcome != y.outcome || x.exit_status != y.exit_status || x.signal != y.signal || x.message != y.message ||
        x.scheduling_points != y.scheduling_points || x.virtual_nanos != y.virtual_nanos || x.report != y.report) {
      return false;
    }
  }
  return true;
}

// Where the round trip writes its file (and the writer its temporary): tmpfs when there is one,
// since the writer syncs. Removed after each use, so nothing stays behind.
const std::string& RoundTripPath() {
  static const std::string path = [] {
    const char* tmp = getenv("TMPDIR");
    const std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
    return base + "/trace_reader_fuzzer." + std::to_string(getpid()) + ".trace";
  }();
  return path;
}

void RoundTrip(const Trace& trace) {
  const std::string& path = RoundTripPath();
  {
    chess::trace::TraceWriter writer;
    if (!writer.Open(path, /*replace=*/true, trace.tool_version).ok()) Fail("TraceWriter::Open failed");
    writer.WriteCommand(trace.command);
    if (trace.standard_input) writer.WriteStandardInput(*trace.standard_input);
    if (trace.atomic_points) writer.WriteAtomicSites(*trace.atomic_points);
    writer.WriteOptions(trace.options);
    if (trace.standard_descriptors) writer.WriteStandardDescriptors(*trace.standard_descriptors);
    for (const auto& thread : trace.threads) writer.WriteThread(thread);
    size_t wait = 0;
    for (size_t i = 0; i < trace.decisions.size(); ++i) {
      while (wait < trace.outside_waits.size() && trace.outside_waits[wait].decision <= i) {
        writer.WriteOutsideWait(trace.outside_waits[wait++]);
      }
      writer.WriteDecision(trace.decisions[i]);
    }
    while (wait < trace.outside_waits.size()) writer.WriteOutsideWait(trace.outside_waits[wait++]);
    if (trace.outcome) writer.WriteOutcome(*trace.outcome);
    if (!writer.Finish().ok()) Fail("TraceWriter::Finish failed");
  }
  auto again = chess::trace::ReadTrace(path, kReaderVersion);
  unlink(path.c_str());
  if (!again.ok()) {
    std::fprintf(stderr, "rewritten trace refused: %s\n", again.error().c_str());
    Fail("a trace that was read, written again, is refused");
  }
  // Outside waits are written in decision order, so compare against the same order; and the
  // writer writes the current format, whichever the trace was read in.
  Trace expected = trace;
  expected.format_version = chess::trace::kFormatVersion;
  std::stable_sort(expected.outside_waits.begin(), expected.outside_waits.end(),
                   [](const auto& a, const auto& b) { return a.decision < b.decision; });
  Trace reread = std::move(*again);
  std::stable_sort(reread.outside_waits.begin(), reread.outside_waits.end(),
                   [](const auto& a, const auto& b) { return a.decision < b.decision; });
  if (!SameTrace(expected, reread)) Fail("a trace read, written again and read back differs");
}

void Check(std::string_view bytes) {
  auto trace = chess::trace::ParseTrace(bytes, kReaderVersion);
  if (!trace.ok()) {
    if (trace.error().empty()) Fail("refused with an empty message");
    return;
  }
  // What ParseTrace promises about anything it accepts.
  if (trace->format_version == 0 || trace->format_version > chess::trace::kFormatVersion) Fail("accepted a bad format version");
  if (trace->command.argv.empty()) Fail("accepted a command without arguments");
  if (trace->decisions.size() > 10'000'000) Fail("accepted more than 10 million decisions");
  for (const auto& d : trace->decisions) {
    if (d.current && d.point.thread != *d.current) Fail("a decision's point belongs to another thread");
    if (static_cast<int>(d.point.op) > static_cast<int>(chess::search::kLastOpKind)) Fail("an operation out of range");
    if (static_cast<int>(d.stop) > static_cast<int>(chess::search::kLastStopReason)) Fail("a stop reason out of range");
    if (!d.current && d.point.instruction != 0) Fail("an instruction without a stopped thread");
  }
  if (trace->atomic_points) {
    if (!trace->options.atomic_points) Fail("atomic sites without atomic points");
    if (trace->atomic_points->max_points == 0) Fail("atomic sites with a cap of 0");
    for (const auto& site : trace->atomic_points->alone_sites) {
      if (site.module.empty()) Fail("an atomic site without a module");
    }
  }
  if (trace->format_version < chess::trace::kFirstAtomicFormat && (trace->options.atomic_points || trace->atomic_points)) {
    Fail("atomic points in a trace of a format before them");
  }
  for (const auto& wait : trace->outside_waits) {
    if (wait.nanos < 0) Fail("accepted a negative outside wait");
  }
  if (trace->outcome && static_cast<int>(trace->outcome->outcome) > static_cast<int>(chess::search::kLastOutcome)) {
    Fail("an outcome out of range");
  }
  if (trace->standard_descriptors) {
    const auto& fds = *trace->standard_descriptors;
    for (int n = 0; n < 3; ++n) {
      const auto& fd = fds[n];
      if (static_cast<int>(fd.kind) > chess::trace::kLastDescriptorKind) Fail("a descriptor kind out of range");
      if (fd.same_file_as >= n || fd.same_description_as >= n) Fail("a descriptor the same as a later one");
      if (fd.same_description_as >= 0 && fd.same_file_as < 0) Fail("one description that is not one file");
      if (fd.same_file_as >= 0 && fds[fd.same_file_as].kind != fd.kind) Fail("one file of two kinds");
      if (fd.same_file_as >= 0 && fd.kind == chess::trace::StandardDescriptor::Kind::kClosed) Fail("a closed file shared");
    }
  }
  if (trace->decisions.size() > kMaxDecisionsToRender) return;
  // Rendering bounded by threads × decisions in the text timeline.
  if (trace->decisions.size() * (trace->threads.size() + 1) <= 2'000'000) {
    if (chess::trace::RenderText(*trace).empty()) Fail("empty text rendering");
  }
  if (chess::trace::RenderJson(*trace).empty()) Fail("empty JSON rendering");
  if (chess::trace::RenderChrome(*trace).empty()) Fail("empty Chrome rendering");
  RoundTrip(*trace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Check(input);
  Check(Wrap(input));
  return 0;
}
