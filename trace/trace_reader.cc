#include "trace/trace_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "trace/codec.h"
#include "trace/compression.h"
#include "trace/container.h"

namespace chess::trace {
namespace {

// Bounds that no real trace comes near, so damage cannot ask for unbounded work or memory.
constexpr size_t kMaxFile = size_t{1} << 32;
constexpr size_t kMaxStream = size_t{1} << 33;
constexpr size_t kMaxDecisions = 10'000'000;
constexpr size_t kMaxString = kMaxRecordString;
constexpr size_t kMaxInput = size_t{1} << 31;  // standard input (chess-trace reads at most 256 MiB)
constexpr size_t kMaxStrings = 1 << 20;


Error Damaged(const std::string& what) { return Error{"the trace is damaged: " + what}; }

class Decoder {
 public:
  explicit Decoder(Trace& trace) : trace_(trace) {}

  Result<void> Record(RecordType type, ByteReader& in) {
    switch (type) {
      case RecordType::kCommand: return Command(in);
      case RecordType::kOptions: return Options(in);
      case RecordType::kThread: {
        ThreadInfo thread;
        const uint64_t number = in.Varint();
        if (number > UINT32_MAX) return Damaged("a thread number out of range");
        thread.thread.value = static_cast<uint32_t>(number);
        thread.pid = in.Signed();
        thread.tid = in.Signed();
        trace_.threads.push_back(thread);
        return {};
      }
      case RecordType::kDecision: return Decision(in);
      case RecordType::kRepeat: return Repeat(in);
      case RecordType::kOutsideWait: {
        OutsideWait wait;
        wait.decision = in.Varint();
        wait.nanos = in.Signed();
        if (wait.nanos < 0) return Damaged("a negative wait");
        trace_.outside_waits.push_back(wait);
        return {};
      }
      case RecordType::kOutcome: return Outcome(in);
      case RecordType::kEnd: return {};  // checked by the caller
      case RecordType::kStandardInput: return StandardInput(in);
      case RecordType::kObjectName: {
        if (trace_.object_names.size() >= kMaxDecisions) return Damaged("too many object names");
        ObjectName name;
        name.pid = in.Signed();
        name.address = in.Varint();
        name.name = in.String(kMaxObjectName);
        if (in.ok() && name.name.empty()) return Damaged("an object name record without a name");
        trace_.object_names.push_back(std::move(name));
        return {};
      }
      case RecordType::kStandardDescriptors: return StandardDescriptors(in);
      case RecordType::kAtomicSites: return AtomicSites(in);
      case RecordType::kRaceSites: return RaceSites(in);
      case RecordType::kOracle: return Oracle(in);
    }
    return Damaged("an unknown record");
  }

  bool HasCommand() const { return has_command_; }
  bool HasOptions() const { return has_options_; }

 private:
  Result<void> Command(ByteReader& in) {
    if (has_command_) return Damaged("two command records");
    has_command_ = true;
    trace::Command& command = trace_.command;
    command.path = in.String(kMaxString);
    const uint64_t argc = in.Varint();
    if (argc > kMaxStrings || argc > in.Remaining()) return Damaged("an argument count of " + std::to_string(argc));
    for (uint64_t i = 0; i < argc && in.ok(); ++i) command.argv.push_back(in.String(kMaxString));
    command.cwd = in.String(kMaxString);
    const uint64_t envc = in.Varint();
    if (envc > kMaxStrings || envc > in.Remaining()) return Damaged("an environment of " + std::to_string(envc) + " variables");
    for (uint64_t i = 0; i < envc && in.ok(); ++i) command.env.push_back(in.String(kMaxString));
    if (in.ok() && command.argv.empty()) return Damaged("a command without arguments");
    return {};
  }

  Result<void> Options(ByteReader& in) {
    if (has_options_) return Damaged("two option records");
    has_options_ = true;
    trace::Options& options = trace_.options;
    options.strategy = in.String(256);
    options.seed = in.Varint();
    const uint8_t has_epoch = in.U8();
    const int64_t epoch = in.Signed();
    if (has_epoch > 1) return Damaged("an option record with a bad flag");
    if (has_epoch) options.epoch = epoch;
    options.isolation = in.Varint();
    options.slice_nanos = in.Varint();
    const uint8_t io_points = in.U8();
    if (io_points > 1) return Damaged("an option record with a bad flag");
    options.io_points = io_points != 0;
    options.visible_cpus = in.Varint();
    if (!in.AtEnd()) {  // absent from the first traces: no sync points then
      const uint8_t sync_points = in.U8();
      if (sync_points > 1) return Damaged("an option record with a bad flag");
      options.sync_points = sync_points != 0;
    }
    if (!in.AtEnd()) {  // absent before format 3: no atomic points then
      const uint8_t atomic_points = in.U8();
      if (atomic_points > 1 || trace_.format_version < kFirstAtomicFormat) {
        return Damaged("an option record with a bad flag");
      }
      options.atomic_points = atomic_points != 0;
    }
    if (!in.AtEnd()) {  // absent before format 4: no race points then
      const uint8_t race_points = in.U8();
      if (race_points > 1 || trace_.format_version < kFirstRaceFormat) return Damaged("an option record with a bad flag");
      options.race_points = race_points != 0;
    }
    return {};
  }

  Result<void> AtomicSites(ByteReader& in) {
    if (trace_.format_version < kFirstAtomicFormat) {
      return Damaged("an atomic sites record in a format " + std::to_string(trace_.format_version) + " trace");
    }
    if (trace_.atomic_points) return Damaged("two atomic sites records");
    search::AtomicPointPlan plan;
    plan.mode = search::AtomicPointPlan::Mode::kPoints;
    plan.max_points = in.Varint();
    if (in.ok() && plan.max_points == 0) return Damaged("atomic sites with a cap of 0 points");
    if (auto sites = Sites(in, "an atomic sites record", "an atomic site", plan.alone_sites); !sites) return sites;
    trace_.atomic_points = std::move(plan);
    return {};
  }

  Result<void> RaceSites(ByteReader& in) {
    if (trace_.format_version < kFirstRaceFormat) {
      return Damaged("a race sites record in a format " + std::to_string(trace_.format_version) + " trace");
    }
    // Written after the atomic sites, whose plan they complete.
    if (!trace_.atomic_points) return Damaged("race sites before the atomic sites");
    if (has_race_sites_) return Damaged("two race sites records");
    has_race_sites_ = true;
    return Sites(in, "a race sites record", "a race site", trace_.atomic_points->race_sites);
  }

  Result<void> Oracle(ByteReader& in) {
    if (trace_.format_version < kFirstOracleFormat) {
      return Damaged("an oracle record in a format " + std::to_string(trace_.format_version) + " trace");
    }
    if (trace_.oracle) return Damaged("two oracle records");
    trace::Oracle oracle;
    oracle.expect_exit = in.Signed();
    const uint8_t flags = in.U8();
    std::string regex = in.String(kMaxString);
    std::string expected = in.String(kMaxString);
    oracle.output.expected_stdout_name = in.String(kMaxString);
    std::string check = in.String(kMaxString);
    const uint64_t files = in.Varint();
    if (!in.ok()) return {};  // the caller names the malformed record
    if (files > kMaxOracleFiles) return Damaged("an oracle record with " + std::to_string(files) + " files");
    for (uint64_t i = 0; i < files && in.ok(); ++i) {
      search::ExpectedFile file;
      file.path = in.String(kMaxString);
      const uint8_t present = in.U8();
      std::string content = in.String(kMaxString);
      if (present > 1) return Damaged("an oracle record's file with unknown flags");
      if (present) file.content = std::move(content);
      oracle.output.expected_files.push_back(std::move(file));
    }
    if (!in.ok()) return {};
    if (flags > 7 || (flags == 0 && files == 0)) return Damaged("an oracle record with unknown flags");
    if (oracle.expect_exit < 0 || oracle.expect_exit > 255) return Damaged("an oracle record expecting exit " + std::to_string(oracle.expect_exit));
    if (flags & 1) {
      if (auto compiled = search::OutputOracle::Make({regex, std::nullopt, "", {}, std::nullopt}); !compiled) {
        return Damaged("an oracle record with a bad regex");
      }
      oracle.output.fail_on_output = std::move(regex);
    }
    if (flags & 2) oracle.output.expected_stdout = std::move(expected);
    if (flags & 4) oracle.output.check_command = std::move(check);
    trace_.oracle = std::move(oracle);
    return {};
  }

  // A list of sites of `record` ("an atomic sites record"), each `site` ("an atomic site"): a
  // count, then each one's module and address.
  Result<void> Sites(ByteReader& in, const std::string& record, const std::string& site_word,
                     std::set<search::CodeLocation>& sites) {
    const uint64_t count = in.Varint();
    if (!in.ok()) return {};  // the caller names the malformed record
    // Each site takes two bytes at least: a count beyond that is damage, refused before reading.
    if (count > kMaxAtomicSites || count > in.Remaining() / 2) {
      return Damaged(record + " claiming " + std::to_string(count) + " sites");
    }
    for (uint64_t i = 0; i < count && in.ok(); ++i) {
      search::CodeLocation site;
      site.module = in.String(kMaxSiteModule);
      site.address = in.Varint();
      if (!in.ok()) break;
      if (site.module.empty()) return Damaged(site_word + " without a module");
      if (!sites.insert(std::move(site)).second) return Damaged(site_word + " listed twice");
    }
    return {};
  }

  Result<void> StandardInput(ByteReader& in) {
    if (trace_.standard_input) return Damaged("two standard input records");
    trace::StandardInput input;
    const uint8_t kind = in.U8();
    if (kind > kLastInputKind) return Damaged("a standard input of unknown kind " + std::to_string(kind));
    input.kind = static_cast<trace::StandardInput::Kind>(kind);
    input.bytes = in.String(kMaxInput);
    if (in.ok() && !input.bytes.empty() &&
        (input.kind == trace::StandardInput::Kind::kInherited || input.kind == trace::StandardInput::Kind::kClosed)) {
      return Damaged("bytes recorded for a standard input that was not read");
    }
    trace_.standard_input = std::move(input);
    return {};
  }

  Result<void> StandardDescriptors(ByteReader& in) {
    if (trace_.standard_descriptors) return Damaged("two standard descriptor records");
    trace::StandardDescriptors descriptors;
    for (int n = 0; n < 3 && in.ok(); ++n) {
      StandardDescriptor& fd = descriptors[n];
      const uint8_t kind = in.U8();
      const uint8_t same_file = in.U8();
      const uint8_t same_description = in.U8();
      if (!in.ok()) break;
      if (kind > kLastDescriptorKind) return Damaged("a standard descriptor of unknown kind " + std::to_string(kind));
      if (same_file > n || same_description > n) return Damaged("a standard descriptor the same as a later one");
      fd.kind = static_cast<StandardDescriptor::Kind>(kind);
      fd.same_file_as = static_cast<int8_t>(same_file - 1);
      fd.same_description_as = static_cast<int8_t>(same_description - 1);
      if (fd.kind == StandardDescriptor::Kind::kTerminal) {
        uint64_t size[4];
        for (uint64_t& value : size) value = in.Varint();
        if (in.ok() && (size[0] > UINT16_MAX || size[1] > UINT16_MAX || size[2] > UINT16_MAX || size[3] > UINT16_MAX)) {
          return Damaged("a terminal size out of range");
        }
        fd.rows = static_cast<uint16_t>(size[0]);
        fd.columns = static_cast<uint16_t>(size[1]);
        fd.x_pixels = static_cast<uint16_t>(size[2]);
        fd.y_pixels = static_cast<uint16_t>(size[3]);
      } else if (fd.kind == StandardDescriptor::Kind::kDevice) {
        const uint64_t major = in.Varint();
        const uint64_t minor = in.Varint();
        if (in.ok() && (major > UINT32_MAX || minor > UINT32_MAX)) return Damaged("a device number out of range");
        fd.major = static_cast<uint32_t>(major);
        fd.minor = static_cast<uint32_t>(minor);
      }
      if (auto problem = SharingProblem(descriptors, n)) return Damaged(*problem);
    }
    trace_.standard_descriptors = descriptors;
    return {};
  }

  // What is wrong with descriptor n's links to the ones before it, if anything: each names the
  // lowest descriptor it shares with, which is then of the same kind and size, and one open
  // file description is one file.
  static std::optional<std::string> SharingProblem(const trace::StandardDescriptors& descriptors, int n) {
    const StandardDescriptor& fd = descriptors[n];
    if (fd.same_file_as < 0) {
      if (fd.same_description_as >= 0) return "a standard descriptor that shares its description but not its file";
      return std::nullopt;
    }
    if (fd.kind == StandardDescriptor::Kind::kClosed) return "a closed standard descriptor the same as another";
    StandardDescriptor first = descriptors[fd.same_file_as];
    if (first.same_file_as >= 0) return "a standard descriptor the same as one that is not the first of its file";
    first.same_file_as = fd.same_file_as;
    first.same_description_as = fd.same_description_as;
    if (!(first == fd)) return "a standard descriptor the same file as one of another kind or size";
    if (fd.same_description_as >= 0) {
      const StandardDescriptor& shared = descriptors[fd.same_description_as];
      if (shared.same_description_as >= 0) {
        return "a standard descriptor the same as one that is not the first of its description";
      }
      const int8_t file_of_shared = shared.same_file_as >= 0 ? shared.same_file_as : fd.same_description_as;
      if (file_of_shared != fd.same_file_as) return "a standard descriptor whose description is not its file's";
    }
    return std::nullopt;
  }

  Result<void> Decision(ByteReader& in) {
    if (trace_.decisions.size() >= kMaxDecisions) return Damaged("more than " + std::to_string(kMaxDecisions) + " decisions");
    const uint8_t flags = in.U8();
    const uint8_t op = in.U8();
    const uint8_t stop = (flags >> 3) & 3;
    static_assert(static_cast<uint8_t>(search::kLastStopReason) <= 3, "the stop reason has two bits");
    // 64: the point names its instruction (format 3 on, a stopped thread's only).
    const bool instruction = (flags & 64) != 0;
    if ((flags & 0x80) != 0 || (instruction && (trace_.format_version < kFirstAtomicFormat || (flags & 1) == 0))) {
      return Damaged("a decision with unknown flags");
    }
    const bool known = op <= static_cast<uint8_t>(search::kLastOpKind) &&
                       (op != static_cast<uint8_t>(search::OpKind::kRacyAccess) || trace_.format_version >= kFirstRaceFormat);
    if (!known) return Damaged("a decision with an unknown operation " + std::to_string(op));
    search::RecordedDecision decision;
    decision.point.op = static_cast<search::OpKind>(op);
    decision.point.is_write = (flags & 2) != 0;
    decision.point.is_release = (flags & 4) != 0;
    decision.stop = static_cast<search::StopReason>(stop);
    decision.fired_early = (flags & 32) != 0;
    if (flags & 1) {
      const uint64_t current = in.Varint();
      if (current > UINT32_MAX) return Damaged("a thread number out of range");
      decision.current = search::ThreadId{static_cast<uint32_t>(current)};
      decision.point.thread = *decision.current;
      decision.point.syscall = in.Signed();
      decision.point.resource = in.Varint();
      index_delta_ = in.Signed();
      if (instruction) {
        decision.point.instruction = in.Varint();
        if (in.ok() && decision.point.instruction == 0) return Damaged("a decision at instruction 0");
      }
    }
    const uint64_t picked = in.Varint();
    if (picked > UINT32_MAX) return Damaged("a thread number out of range");
    decision.picked = search::ThreadId{static_cast<uint32_t>(picked)};
    last_ = decision;
    Append(decision);
    return {};
  }

  Result<void> Repeat(ByteReader& in) {
    const uint64_t count = in.Varint();
    if (!last_) return Damaged("a repeat with no decision before it");
    if (count > kMaxDecisions - trace_.decisions.size()) return Damaged("more than " + std::to_string(kMaxDecisions) + " decisions");
    for (uint64_t i = 0; i < count; ++i) Append(*last_);
    return {};
  }

  // The point's index from the thread's running count, as the writer encoded it.
  void Append(search::RecordedDecision decision) {
    if (decision.current) {
      uint64_t& expected = next_index_[decision.current->value];
      decision.point.index = expected + static_cast<uint64_t>(index_delta_);
      expected = decision.point.index + 1;
    }
    trace_.decisions.push_back(decision);
  }

  Result<void> Outcome(ByteReader& in) {
    if (trace_.outcome) return Damaged("two outcome records");
    trace::Outcome outcome;
    const uint8_t kind = in.U8();
    if (kind > static_cast<uint8_t>(search::kLastOutcome)) return Damaged("an unknown outcome " + std::to_string(kind));
    if (kind >= static_cast<uint8_t>(search::Outcome::kWrongOutput) && trace_.format_version < kFirstOracleFormat) {
      return Damaged("an oracle's outcome in a format " + std::to_string(trace_.format_version) + " trace");
    }
    outcome.outcome = static_cast<search::Outcome>(kind);
    const uint8_t flags = in.U8();
    if (flags > 3) return Damaged("an outcome with unknown flags");
    const int64_t exit_status = in.Signed();
    const int64_t signal = in.Signed();
    if (flags & 1) outcome.exit_status = exit_status;
    if (flags & 2) outcome.signal = signal;
    outcome.message = in.String(kMaxString);
    outcome.scheduling_points = in.Varint();
    outcome.virtual_nanos = in.Signed();
    if (!in.AtEnd()) outcome.report = in.String(kMaxString);  // absent from the first traces
    trace_.outcome = outcome;
    return {};
  }

  Trace& trace_;
  bool has_command_ = false;
  bool has_options_ = false;
  bool has_race_sites_ = false;
  std::optional<search::RecordedDecision> last_;
  int64_t index_delta_ = 0;
  std::map<uint32_t, uint64_t> next_index_;
};

}  // namespace

Result<Trace> ParseTrace(std::string_view bytes, const std::string& reader_version) {
  auto parts = SplitContainer(bytes, reader_version);
  if (!parts) return Error{parts.error()};
  Trace trace;
  trace.format_version = parts->format_version;
  trace.tool_version = parts->tool_version;
  const uint64_t stream_length = parts->stream_length;
  if (stream_length > kMaxStream) return Damaged("its trailer claims " + std::to_string(stream_length) + " bytes of records");
  size_t frame_size = 0;
  auto stream = DecompressFrame(parts->frame, stream_length, &frame_size);
  if (!stream) return Damaged(stream.error());
  if (frame_size != parts->frame.size()) return Damaged("there are bytes between the records and the trailer");
  if (stream->size() != stream_length) {
    return Damaged("the records are " + std::to_string(stream->size()) + " bytes, the trailer says " + std::to_string(stream_length));
  }

  Decoder decoder(trace);
  ByteReader records(stream->data(), stream->size());
  uint64_t count = 0;
  bool ended = false;
  while (!records.AtEnd()) {
    if (ended) return Damaged("records after the end record");
    const size_t at = records.Position();
    const uint8_t type = records.U8();
    const uint64_t length = records.Varint();
    if (!records.ok() || length > records.Remaining()) return Damaged("record " + std::to_string(count) + " is cut short");
    if (type == 0 || type > kLastRecordType) {
      return Damaged("record " + std::to_string(count) + " (at byte " + std::to_string(at) + ") has an unknown type " +
                     std::to_string(type));
    }
    const std::string_view payload = records.Bytes(length);
    ByteReader in(payload.data(), payload.size());
    if (static_cast<RecordType>(type) == RecordType::kEnd) {
      const uint64_t claimed = in.Varint();
      if (!in.ok() || !in.AtEnd() || claimed != count) return Damaged("the end record does not match the records before it");
      ended = true;
      ++count;
      continue;
    }
    if (auto decoded = decoder.Record(static_cast<RecordType>(type), in); !decoded) return Error{decoded.error()};
    if (!in.ok() || !in.AtEnd()) return Damaged("record " + std::to_string(count) + " (type " + std::to_string(type) + ") is malformed");
    ++count;
  }
  if (!ended) return Damaged("its records stop before the end record");
  if (!decoder.HasCommand() || !decoder.HasOptions()) return Damaged("it has no command or no options");
  if (trace.atomic_points && !trace.options.atomic_points) return Damaged("atomic sites in a trace without atomic points");
  if (trace.options.race_points && !trace.options.atomic_points) return Damaged("race points without atomic points");
  if (trace.atomic_points && !trace.atomic_points->race_sites.empty() && !trace.options.race_points) {
    return Damaged("race sites in a trace without race points");
  }
  return trace;
}

Result<Trace> ReadTrace(const std::string& path, const std::string& reader_version) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  if (size < 0 || static_cast<uint64_t>(size) > kMaxFile) return Error{path + ": not a trace chess-trace can read (size)"};
  file.seekg(0);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!file.read(bytes.data(), size)) return Error{"cannot read " + path};
  auto trace = ParseTrace(bytes, reader_version);
  if (!trace) return Error{path + ": " + trace.error()};
  return trace;
}

}  // namespace chess::trace
