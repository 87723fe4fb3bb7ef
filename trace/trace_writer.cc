#include "trace/trace_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trace/container.h"

namespace chess::trace {
namespace {

// A message or report cut to what a reader accepts, with a note that it was.
std::string Fitting(const std::string& text) {
  if (text.size() <= kMaxRecordString) return text;
  const std::string note = "\n  … (cut: the rest did not fit in the trace)\n";
  return text.substr(0, kMaxRecordString - note.size()) + note;
}

}  // namespace

TraceWriter::~TraceWriter() {
  if (fd_ >= 0) close(fd_);
  if (!temporary_.empty()) unlink(temporary_.c_str());
}

Result<void> TraceWriter::Open(const std::string& path, bool replace, const std::string& tool_version) {
  // A failure is kept: a writer that never opened finishes with the same error, not a trace.
  Result<void> opened = OpenFile(path, replace, tool_version);
  if (!opened) error_ = Error{opened.error()};
  return opened;
}

Result<void> TraceWriter::OpenFile(const std::string& path, bool replace, const std::string& tool_version) {
  path_ = path;
  replace_ = replace;
  struct stat existing{};
  if (!replace && stat(path.c_str(), &existing) == 0) {
    return Error{path + " exists; give --force to replace it"};
  }
  temporary_ = path + ".tmp.XXXXXX";
  fd_ = mkostemp(temporary_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const std::string reason = std::strerror(errno);
    temporary_.clear();
    return Error{"cannot write the trace " + path + ": " + reason};
  }
  // mkostemp makes the file private; a trace is an ordinary file, as the umask says.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd_, 0666 & ~mask);
  const std::string header = ContainerHeader(tool_version, kFormatVersion);
  if (write(fd_, header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
    return Error{"cannot write the trace " + path + ": " + std::strerror(errno)};
  }
  return frame_.Open(fd_);
}

void TraceWriter::Emit(RecordType type, const std::string& payload) {
  if (error_ || fd_ < 0) return;
  ByteWriter record;
  record.U8(static_cast<uint8_t>(type));
  record.Varint(payload.size());
  record.bytes() += payload;
  stream_length_ += record.bytes().size();
  ++records_;
  if (auto written = frame_.Write(record.bytes()); !written) error_ = Error{written.error()};
}

void TraceWriter::FlushRepeats() {
  if (repeats_ == 0) return;
  scratch_.Clear();
  scratch_.Varint(repeats_);
  repeats_ = 0;
  Emit(RecordType::kRepeat, scratch_.bytes());
}

void TraceWriter::WriteCommand(const Command& command) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.String(command.path);
  scratch_.Varint(command.argv.size());
  for (const std::string& arg : command.argv) scratch_.String(arg);
  scratch_.String(command.cwd);
  scratch_.Varint(command.env.size());
  for (const std::string& variable : command.env) scratch_.String(variable);
  Emit(RecordType::kCommand, scratch_.bytes());
}

void TraceWriter::WriteOptions(const Options& options) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.String(options.strategy);
  scratch_.Varint(options.seed);
  scratch_.U8(options.epoch ? 1 : 0);
  scratch_.Signed(options.epoch.value_or(0));
  scratch_.Varint(options.isolation);
  scratch_.Varint(options.slice_nanos);
  scratch_.U8(options.io_points ? 1 : 0);
  scratch_.Varint(options.visible_cpus);
  scratch_.U8(options.sync_points ? 1 : 0);
  scratch_.U8(options.atomic_points ? 1 : 0);
  scratch_.U8(options.race_points ? 1 : 0);
  Emit(RecordType::kOptions, scratch_.bytes());
}

void TraceWriter::WriteStandardInput(const StandardInput& input) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.U8(static_cast<uint8_t>(input.kind));
  scratch_.String(input.bytes);
  Emit(RecordType::kStandardInput, scratch_.bytes());
}

void TraceWriter::WriteStandardDescriptors(const StandardDescriptors& descriptors) {
  FlushRepeats();
  scratch_.Clear();
  for (const StandardDescriptor& fd : descriptors) {
    scratch_.U8(static_cast<uint8_t>(fd.kind));
    scratch_.U8(static_cast<uint8_t>(fd.same_file_as + 1));
    scratch_.U8(static_cast<uint8_t>(fd.same_description_as + 1));
    if (fd.kind == StandardDescriptor::Kind::kTerminal) {
      for (uint16_t value : {fd.rows, fd.columns, fd.x_pixels, fd.y_pixels}) scratch_.Varint(value);
    } else if (fd.kind == StandardDescriptor::Kind::kDevice) {
      scratch_.Varint(fd.major);
      scratch_.Varint(fd.minor);
    }
  }
  Emit(RecordType::kStandardDescriptors, scratch_.bytes());
}

void TraceWriter::WriteThread(const ThreadInfo& thread) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.Varint(thread.thread.value);
  scratch_.Signed(thread.pid);
  scratch_.Signed(thread.tid);
  Emit(RecordType::kThread, scratch_.bytes());
}

void TraceWriter::WriteObjectName(const ObjectName& name) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.Signed(name.pid);
  scratch_.Varint(name.address);
  scratch_.String(name.name.substr(0, kMaxObjectName));
  Emit(RecordType::kObjectName, scratch_.bytes());
}

void TraceWriter::WriteAtomicSites(const search::AtomicPointPlan& plan) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.Varint(plan.max_points);
  WriteSites(plan.alone_sites);
  Emit(RecordType::kAtomicSites, scratch_.bytes());
}

void TraceWriter::WriteRaceSites(const std::set<search::CodeLocation>& sites) {
  FlushRepeats();
  scratch_.Clear();
  WriteSites(sites);
  Emit(RecordType::kRaceSites, scratch_.bytes());
}

void TraceWriter::WriteOracle(const Oracle& oracle) {
  if (!oracle.output.Any()) return;  // nothing to judge by: a reader calls such a record damage
  FlushRepeats();
  scratch_.Clear();
  const search::OutputOracleSpec& output = oracle.output;
  scratch_.Signed(oracle.expect_exit);
  scratch_.U8(static_cast<uint8_t>((output.fail_on_output ? 1 : 0) | (output.expected_stdout ? 2 : 0) |
                                   (output.check_command ? 4 : 0)));
  scratch_.String(output.fail_on_output.value_or("").substr(0, kMaxRecordString));
  scratch_.String(output.expected_stdout.value_or("").substr(0, kMaxRecordString));
  scratch_.String(output.expected_stdout_name.substr(0, kMaxRecordString));
  scratch_.String(output.check_command.value_or("").substr(0, kMaxRecordString));
  scratch_.Varint(std::min(output.expected_files.size(), kMaxOracleFiles));
  for (size_t i = 0; i < output.expected_files.size() && i < kMaxOracleFiles; ++i) {
    const search::ExpectedFile& file = output.expected_files[i];
    scratch_.String(file.path.substr(0, kMaxRecordString));
    scratch_.U8(file.content ? 1 : 0);
    scratch_.String(file.content.value_or("").substr(0, kMaxRecordString));
  }
  Emit(RecordType::kOracle, scratch_.bytes());
}

void TraceWriter::WriteSites(const std::set<search::CodeLocation>& sites) {
  scratch_.Varint(sites.size());
  for (const search::CodeLocation& site : sites) {
    scratch_.String(site.module.substr(0, kMaxSiteModule));
    scratch_.Varint(site.address);
  }
}

void TraceWriter::WriteDecision(const search::RecordedDecision& decision) {
  ++decisions_;
  ByteWriter encoded;
  const search::SchedulingPoint& point = decision.point;
  // Only a stopped thread's point has an instruction (an atomic point's).
  const bool instruction = decision.current && point.instruction != 0;
  encoded.U8(static_cast<uint8_t>((decision.current ? 1 : 0) | (point.is_write ? 2 : 0) | (point.is_release ? 4 : 0) |
                                  (static_cast<uint8_t>(decision.stop) << 3) | (decision.fired_early ? 32 : 0) |
                                  (instruction ? 64 : 0)));
  encoded.U8(static_cast<uint8_t>(point.op));
  if (decision.current) {
    // The point's index, relative to the one this thread's next point would have: 0 nearly
    // always, so that a run of the same situation encodes to the same bytes.
    uint64_t& expected = next_index_[decision.current->value];
    encoded.Varint(decision.current->value);
    encoded.Signed(point.syscall);
    encoded.Varint(point.resource);
    encoded.Signed(static_cast<int64_t>(point.index - expected));
    expected = point.index + 1;
    if (instruction) encoded.Varint(point.instruction);
  }
  encoded.Varint(decision.picked.value);
  if (encoded.bytes() == last_decision_) {
    ++repeats_;
    return;
  }
  FlushRepeats();
  last_decision_ = encoded.bytes();
  Emit(RecordType::kDecision, last_decision_);
}

void TraceWriter::WriteOutsideWait(const OutsideWait& wait) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.Varint(wait.decision);
  scratch_.Signed(wait.nanos);
  Emit(RecordType::kOutsideWait, scratch_.bytes());
}

void TraceWriter::WriteOutcome(const Outcome& outcome) {
  FlushRepeats();
  scratch_.Clear();
  scratch_.U8(static_cast<uint8_t>(outcome.outcome));
  scratch_.U8(static_cast<uint8_t>((outcome.exit_status ? 1 : 0) | (outcome.signal ? 2 : 0)));
  scratch_.Signed(outcome.exit_status.value_or(0));
  scratch_.Signed(outcome.signal.value_or(0));
  scratch_.String(Fitting(outcome.message));
  scratch_.Varint(outcome.scheduling_points);
  scratch_.Signed(outcome.virtual_nanos);
  scratch_.String(Fitting(outcome.report));
  Emit(RecordType::kOutcome, scratch_.bytes());
}

std::optional<uint64_t> TraceWriter::HashWritten() const {
  // Read back in pieces: memory stays bounded, as while writing.
  uint64_t hash = Fnv1a64(nullptr, 0);
  std::string buffer(1 << 16, '\0');
  for (off_t at = 0;;) {
    const ssize_t n = pread(fd_, buffer.data(), buffer.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return hash;
    hash = Fnv1a64(buffer.data(), static_cast<size_t>(n), hash);
    at += n;
  }
}

Result<void> TraceWriter::Finish() {
  if (error_) return *error_;
  if (fd_ < 0) return Error{"the trace " + path_ + " was never opened"};
  FlushRepeats();
  scratch_.Clear();
  scratch_.Varint(records_);
  Emit(RecordType::kEnd, scratch_.bytes());
  if (error_) return *error_;
  if (auto ended = frame_.Finish(); !ended) return ended;
  const std::optional<uint64_t> file_hash = HashWritten();
  if (!file_hash) return Error{"cannot write the trace " + path_ + ": reading it back: " + std::strerror(errno)};
  const std::string trailer = ContainerTrailer(stream_length_, *file_hash, kFormatVersion);
  const std::string where = "cannot write the trace " + path_ + ": ";
  if (write(fd_, trailer.data(), trailer.size()) != static_cast<ssize_t>(trailer.size()) || fsync(fd_) != 0) {
    return Error{where + std::strerror(errno)};
  }
  close(fd_);
  fd_ = -1;
  // Without --force, a file that appeared meanwhile is not replaced either.
  const int rc = replace_ ? rename(temporary_.c_str(), path_.c_str())
                          : renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
  if (rc != 0) return Error{errno == EEXIST ? path_ + " exists; give --force to replace it" : where + std::strerror(errno)};
  temporary_.clear();
  return {};
}

}  // namespace chess::trace
