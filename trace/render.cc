#include "trace/render.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "trace/object_names.h"
#include "trace/standard_descriptors.h"

namespace chess::trace {
namespace {

constexpr size_t kColumnWidth = 26;

// The length of a valid UTF-8 sequence starting at `at`, or 0 if the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF are not).
size_t Utf8Sequence(const std::string& text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(at + i) & 0x3f);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  if (overlong || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return 0;
  return length;
}

// A JSON string body. Recorded strings are bytes (arguments, the environment, paths), not
// always UTF-8: a byte that is not part of valid UTF-8 is written as \udcXX, the lone low
// surrogate of the "surrogateescape" convention (Python's), so the output stays valid UTF-8
// and the original bytes can be recovered.
std::string Escape(const std::string& text) {
  std::string out;
  char buffer[8];
  for (size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    const size_t length = Utf8Sequence(text, at);
    if (length == 0) {
      std::snprintf(buffer, sizeof(buffer), "\\udc%02x", c);
      out += buffer;
      ++at;
      continue;
    }
    if (length > 1) {
      out.append(text, at, length);
      at += length;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          out += buffer;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++at;
  }
  return out;
}

std::string Quoted(const std::string& text) {
  // Appended, not `"\"" + Escape(text)`: GCC 12 at -O3 warns (-Wrestrict) on that insert.
  std::string quoted = "\"";
  quoted += Escape(text);
  quoted += '"';
  return quoted;
}

// The variable's name without its module, which the legend under the timeline gives: the
// timeline's columns are narrow.
std::string ShortName(const std::string& name) { return name.substr(0, name.find(" (")); }

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// [{"module": "/t/counter", "address": 4662}, …]
std::string SitesJson(const std::set<search::CodeLocation>& sites) {
  std::string text = "[";
  for (const search::CodeLocation& site : sites) {
    text += (text.size() > 1 ? ", " : "") + std::string("{\"module\": ") + Quoted(site.module) +
            ", \"address\": " + std::to_string(site.address) + "}";
  }
  return text + "]";
}

// The variable at the address a stopped thread's operation works on, if known.
std::string ObjectOf(const search::RecordedDecision& d, const ObjectNames& names) {
  return d.current ? ShortName(names.Find(*d.current, d.point.resource)) : "";
}

// Where a thread stopped, briefly; a sync operation's object by its variable's name if known.
// An atomic point by its instruction only: the timeline's columns are narrow, and the legend
// under it says what each instruction touched.
std::string Stopped(const search::RecordedDecision& d, const ObjectNames& names) {
  switch (d.point.op) {
    case search::OpKind::kAtomic: return "atomic " + Hex(d.point.instruction);
    case search::OpKind::kRacyAccess: return "racy access " + Hex(d.point.instruction);
    case search::OpKind::kThreadStart: return "start";
    case search::OpKind::kInterrupted: return "interrupted";
    case search::OpKind::kFairnessYield: return search::NameSyscall(d.point.syscall) + " (gives way)";
    case search::OpKind::kSyncOp:
      return search::DescribeSyncOp(d.point, ObjectOf(d, names));
    default: return search::NameSyscall(d.point.syscall);
  }
}

const char* StopName(search::StopReason stop) {
  switch (stop) {
    case search::StopReason::kReachedPoint: return "point";
    case search::StopReason::kYielded: return "yielded";
    case search::StopReason::kBlocked: return "blocked";
    case search::StopReason::kExited: return "exited";
  }
  return "unknown";
}

bool IsPreemption(const search::RecordedDecision& d) {
  return d.fired_early || (d.current && d.stop == search::StopReason::kReachedPoint && d.picked != *d.current &&
                           d.point.op != search::OpKind::kThreadStart);
}

// `text` cut or filled with spaces to `width` characters as a terminal shows them (one column
// per code point: the timeline uses no wide characters), whole UTF-8 sequences kept.
std::string Pad(const std::string& text, size_t width) {
  std::vector<size_t> starts;  // where each character begins
  for (size_t at = 0; at < text.size();) {
    starts.push_back(at);
    const size_t length = Utf8Sequence(text, at);
    at += length == 0 ? 1 : length;
  }
  std::string out;
  size_t shown = starts.size();
  if (shown > width - 1) {
    out = text.substr(0, starts[width - 2]) + "~";
    shown = width - 1;
  } else {
    out = text;
  }
  out.append(width - shown, ' ');
  return out;
}

const char* InputKindName(StandardInput::Kind kind) {
  switch (kind) {
    case StandardInput::Kind::kInherited: return "inherited";
    case StandardInput::Kind::kPipe: return "pipe";
    case StandardInput::Kind::kFile: return "file";
    case StandardInput::Kind::kClosed: return "closed";
  }
  return "unknown";
}

std::string OutcomeLine(const Outcome& outcome) {
  std::string line = std::string(search::OutcomeName(outcome.outcome));
  if (outcome.exit_status) line += ", exit status " + std::to_string(*outcome.exit_status);
  if (outcome.signal) line += ", signal " + std::to_string(*outcome.signal);
  if (!outcome.message.empty()) line += ": " + outcome.message;
  return line;
}

}  // namespace

std::string RenderText(const Trace& trace) {
  const ObjectNames names = ObjectNames::Of(trace);
  std::ostringstream out;
  out << "trace of";
  for (const std::string& arg : trace.command.argv) out << " " << arg;
  out << "\n  recorded by chess-trace " << trace.tool_version << " (trace format " << trace.format_version << "), strategy "
      << trace.options.strategy << ", seed " << trace.options.seed;
  if (trace.options.epoch) {
    out << ", epoch " << *trace.options.epoch / 1'000'000'000;
  } else {
    out << ", real time";
  }
  if (trace.standard_input) {
    const StandardInput& input = *trace.standard_input;
    out << "\n  standard input: ";
    switch (input.kind) {
      case StandardInput::Kind::kInherited: out << "a terminal or a device, not recorded"; break;
      case StandardInput::Kind::kClosed: out << "closed"; break;
      default: out << "a " << InputKindName(input.kind) << " of " << input.bytes.size() << " bytes"; break;
    }
  }
  out << "\n  standard descriptors: "
      << (trace.standard_descriptors ? StandardDescriptorsInWords(*trace.standard_descriptors)
                                     : std::string("not recorded (a trace from before chess-trace kept them)"));
  if (trace.options.atomic_points) {
    out << "\n  atomic points: "
        << (trace.atomic_points ? "every atomic instruction but " + std::to_string(trace.atomic_points->alone_sites.size()) +
                                      " that ran only alone, at most " + std::to_string(trace.atomic_points->max_points) +
                                      " points per execution"
                                : std::string("every atomic instruction met, none parked at (an execution that learned them)"));
  }
  if (trace.options.race_points) {
    out << "\n  race points: "
        << (trace.atomic_points ? "the " + std::to_string(trace.atomic_points->race_sites.size()) +
                                      " instructions of the data races the search found"
                                : std::string("none parked at (an execution that looked for data races)"));
  }
  if (trace.oracle) {
    const search::OutputOracleSpec& output = trace.oracle->output;
    out << "\n  output judged (expect exit " << trace.oracle->expect_exit << ")";
    if (output.fail_on_output) out << ": no line may match --fail-on-output '" << *output.fail_on_output << "'";
    if (output.expected_stdout) {
      out << (output.fail_on_output ? ";" : ":") << " stdout must be " << output.expected_stdout_name << ", "
          << output.expected_stdout->size() << " bytes";
    }
    for (const search::ExpectedFile& file : output.expected_files) {
      out << "; " << file.path << " must "
          << (file.content ? "hold the reference's " + std::to_string(file.content->size()) + " bytes"
                           : std::string("not be written"));
    }
    if (output.check_command) out << "; --check '" << *output.check_command << "' must exit 0";
  }
  out << "\n  " << trace.decisions.size() << " decisions, " << trace.threads.size() << " threads\n";
  // Columns in order of thread id.
  std::map<uint32_t, size_t> column;
  for (const ThreadInfo& thread : trace.threads) column.emplace(thread.thread.value, column.size());
  for (const auto& d : trace.decisions) column.emplace(d.picked.value, column.size());
  std::vector<std::string> headers(column.size());
  for (const auto& [id, index] : column) headers[index] = std::string("T").append(std::to_string(id));
  for (const ThreadInfo& thread : trace.threads) {
    headers[column[thread.thread.value]] += " (" + std::to_string(thread.pid) + "/" + std::to_string(thread.tid) + ")";
  }
  out << "\n" << Pad("decision", 10);
  for (const std::string& header : headers) out << Pad(header, kColumnWidth);
  out << "\n";
  std::map<uint64_t, int64_t> waits;
  for (const OutsideWait& wait : trace.outside_waits) waits[wait.decision] += wait.nanos;
  for (size_t k = 0; k < trace.decisions.size(); ++k) {
    const search::RecordedDecision& d = trace.decisions[k];
    if (auto wait = waits.find(k); wait != waits.end()) {
      out << Pad("", 10) << "(waited " << wait->second / 1000 << " µs on the outside world)\n";
    }
    std::vector<std::string> cells(column.size());
    if (d.current) {
      std::string cell = Stopped(d, names);
      if (d.stop == search::StopReason::kBlocked) cell += " (blocks)";
      if (d.stop == search::StopReason::kExited) cell = "exit";
      cells[column[d.current->value]] = cell;
    }
    if (!d.current || d.picked != *d.current) {
      std::string& cell = cells[column[d.picked.value]];
      cell = d.fired_early ? "▶ deadline fired early" : IsPreemption(d) ? "▶ runs (preempts)" : "▶ runs";
    }
    out << Pad(std::to_string(k), 10);
    for (const std::string& cell : cells) out << Pad(cell, kColumnWidth);
    out << "\n";
  }
  // Each atomic instruction and racing access the timeline names, once, with what it touched.
  for (const auto& [op, title] : {std::pair{search::OpKind::kAtomic, "atomic points above:"},
                                  std::pair{search::OpKind::kRacyAccess, "racing accesses above:"}}) {
    std::vector<std::string> lines;
    for (const search::RecordedDecision& d : trace.decisions) {
      if (!d.current || d.point.op != op) continue;
      const std::string line =
          "  thread " + std::to_string(d.current->value) + " " + search::DescribePoint(d.point, ObjectOf(d, names));
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
    if (lines.empty()) continue;
    out << "\n" << title << "\n";
    for (const std::string& line : lines) out << line << "\n";
  }
  if (!names.Empty()) {
    out << "\nobjects of the sync operations above:\n";
    for (const auto& [where, name] : names.All()) {
      char address[24];
      std::snprintf(address, sizeof(address), "0x%llx", static_cast<unsigned long long>(where.second));
      // "balance_lock (bank)": the module is what the parentheses hold.
      const std::string variable = ShortName(name);
      std::string module = name.size() > variable.size() + 3 ? name.substr(variable.size() + 2) : "";
      if (!module.empty()) module.pop_back();
      out << "  " << Pad(variable, 24) << address << (module.empty() ? "" : " in " + module) << ", pid " << where.first
          << "\n";
    }
  }
  out << "\noutcome: " << (trace.outcome ? OutcomeLine(*trace.outcome) : std::string("none recorded (the run was cut short)")) << "\n";
  if (trace.outcome && !trace.outcome->report.empty()) out << trace.outcome->report;
  return out.str();
}

std::string RenderJson(const Trace& trace) {
  const ObjectNames names = ObjectNames::Of(trace);
  std::ostringstream out;
  out << "{\"format_version\": " << trace.format_version << ", \"tool_version\": " << Quoted(trace.tool_version);
  out << ",\n \"command\": {\"path\": " << Quoted(trace.command.path) << ", \"argv\": [";
  for (size_t i = 0; i < trace.command.argv.size(); ++i) out << (i ? ", " : "") << Quoted(trace.command.argv[i]);
  out << "], \"cwd\": " << Quoted(trace.command.cwd) << ", \"env\": [";
  for (size_t i = 0; i < trace.command.env.size(); ++i) out << (i ? ", " : "") << Quoted(trace.command.env[i]);
  out << "]},\n \"options\": {\"strategy\": " << Quoted(trace.options.strategy) << ", \"seed\": " << trace.options.seed
      << ", \"epoch\": " << (trace.options.epoch ? std::to_string(*trace.options.epoch) : "null")
      << ", \"isolation\": " << trace.options.isolation << ", \"slice_nanos\": " << trace.options.slice_nanos
      << ", \"io_points\": " << (trace.options.io_points ? "true" : "false")
      << ", \"sync_points\": " << (trace.options.sync_points ? "true" : "false")
      << ", \"atomic_points\": " << (trace.options.atomic_points ? "true" : "false")
      << ", \"race_points\": " << (trace.options.race_points ? "true" : "false")
      << ", \"visible_cpus\": " << trace.options.visible_cpus << "},\n \"atomic_sites\": ";
  if (trace.atomic_points) {
    out << "{\"max_points\": " << trace.atomic_points->max_points << ", \"alone_sites\": "
        << SitesJson(trace.atomic_points->alone_sites) << ", \"race_sites\": " << SitesJson(trace.atomic_points->race_sites)
        << "}";
  } else {
    out << "null";
  }
  out << ",\n \"oracle\": ";
  if (trace.oracle) {
    const search::OutputOracleSpec& output = trace.oracle->output;
    out << "{\"expect_exit\": " << trace.oracle->expect_exit << ", \"fail_on_output\": "
        << (output.fail_on_output ? Quoted(*output.fail_on_output) : "null") << ", \"expected_stdout\": "
        << (output.expected_stdout ? Quoted(*output.expected_stdout) : "null")
        << ", \"expected_stdout_name\": " << Quoted(output.expected_stdout_name) << ", \"check\": "
        << (output.check_command ? Quoted(*output.check_command) : "null") << ", \"expected_files\": [";
    for (size_t i = 0; i < output.expected_files.size(); ++i) {
      const search::ExpectedFile& file = output.expected_files[i];
      out << (i ? ", " : "") << "{\"path\": " << Quoted(file.path) << ", \"content\": "
          << (file.content ? Quoted(*file.content) : "null") << "}";
    }
    out << "]}";
  } else {
    out << "null";
  }
  out << ",\n \"standard_input\": ";
  if (trace.standard_input) {
    out << "{\"kind\": \"" << InputKindName(trace.standard_input->kind) << "\", \"bytes\": "
        << Quoted(trace.standard_input->bytes) << "}";
  } else {
    out << "null";
  }
  out << ",\n \"standard_descriptors\": ";
  if (trace.standard_descriptors) {
    out << "[";
    for (int n = 0; n < 3; ++n) {
      const StandardDescriptor& fd = (*trace.standard_descriptors)[n];
      out << (n ? ", " : "") << "{\"fd\": " << n << ", \"kind\": \"" << DescriptorKindName(fd.kind) << "\"";
      if (fd.kind == StandardDescriptor::Kind::kTerminal) {
        out << ", \"rows\": " << fd.rows << ", \"columns\": " << fd.columns << ", \"x_pixels\": " << fd.x_pixels
            << ", \"y_pixels\": " << fd.y_pixels;
      } else if (fd.kind == StandardDescriptor::Kind::kDevice) {
        out << ", \"major\": " << fd.major << ", \"minor\": " << fd.minor;
      }
      auto link = [](int8_t fd) { return fd < 0 ? std::string("null") : std::to_string(fd); };
      out << ", \"same_file_as\": " << link(fd.same_file_as) << ", \"same_description_as\": " << link(fd.same_description_as)
          << "}";
    }
    out << "]";
  } else {
    out << "null";
  }
  out << ",\n \"threads\": [";
  for (size_t i = 0; i < trace.threads.size(); ++i) {
    const ThreadInfo& t = trace.threads[i];
    out << (i ? ", " : "") << "{\"thread\": " << t.thread.value << ", \"pid\": " << t.pid << ", \"tid\": " << t.tid << "}";
  }
  out << "],\n \"decisions\": [";
  for (size_t k = 0; k < trace.decisions.size(); ++k) {
    const search::RecordedDecision& d = trace.decisions[k];
    out << (k ? ",\n  " : "\n  ") << "{\"current\": " << (d.current ? std::to_string(d.current->value) : "null");
    if (d.current) {
      out << ", \"stop\": \"" << StopName(d.stop) << "\", \"op\": " << static_cast<int>(d.point.op)
          << ", \"syscall\": " << Quoted(Stopped(d, names)) << ", \"resource\": " << d.point.resource
          << ", \"index\": " << d.point.index;
      if (search::AtInstruction(d.point.op)) {
        out << ", \"instruction\": " << d.point.instruction << ", \"is_write\": " << (d.point.is_write ? "true" : "false")
            << ", " << (d.point.op == search::OpKind::kRacyAccess ? "\"racy_access\"" : "\"atomic\"") << ": "
            << Quoted(search::DescribePoint(d.point, ObjectOf(d, names)));
      }
    }
    out << ", \"picked\": " << d.picked.value << "}";
  }
  out << "],\n \"object_names\": [";
  for (size_t i = 0; i < trace.object_names.size(); ++i) {
    const ObjectName& name = trace.object_names[i];
    out << (i ? ", " : "") << "{\"pid\": " << name.pid << ", \"address\": " << name.address
        << ", \"name\": " << Quoted(name.name) << "}";
  }
  out << "],\n \"outside_waits\": [";
  for (size_t i = 0; i < trace.outside_waits.size(); ++i) {
    out << (i ? ", " : "") << "{\"decision\": " << trace.outside_waits[i].decision
        << ", \"nanos\": " << trace.outside_waits[i].nanos << "}";
  }
  out << "],\n \"outcome\": ";
  if (trace.outcome) {
    const Outcome& o = *trace.outcome;
    out << "{\"outcome\": " << Quoted(std::string(search::OutcomeName(o.outcome)))
        << ", \"exit_status\": " << (o.exit_status ? std::to_string(*o.exit_status) : "null")
        << ", \"signal\": " << (o.signal ? std::to_string(*o.signal) : "null") << ", \"message\": " << Quoted(o.message)
        << ", \"scheduling_points\": " << o.scheduling_points << ", \"virtual_nanos\": " << o.virtual_nanos
        << ", \"report\": " << Quoted(o.report) << "}";
  } else {
    out << "null";
  }
  out << "}\n";
  return out.str();
}

std::string RenderChrome(const Trace& trace) {
  const ObjectNames names = ObjectNames::Of(trace);
  std::ostringstream out;
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  bool first = true;
  auto event = [&](const std::string& body) {
    out << (first ? "\n  " : ",\n  ") << body;
    first = false;
  };
  std::map<uint32_t, ThreadInfo> info;
  for (const ThreadInfo& thread : trace.threads) info[thread.thread.value] = thread;
  auto pid_of = [&](uint32_t id) { return info.count(id) ? info[id].pid : 0; };
  for (const auto& [id, thread] : info) {
    event("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(thread.pid) + ", \"tid\": " +
          std::to_string(id) + ", \"args\": {\"name\": \"T" + std::to_string(id) + " (tid " + std::to_string(thread.tid) + ")\"}}");
  }
  // The thread picked at decision k runs until decision k+1, where it is the one that stopped.
  for (size_t k = 0; k < trace.decisions.size(); ++k) {
    const search::RecordedDecision& d = trace.decisions[k];
    std::string name = "runs";
    if (k + 1 < trace.decisions.size() && trace.decisions[k + 1].current == d.picked) {
      name = "until " + Stopped(trace.decisions[k + 1], names);
    }
    std::string args = "{\"decision\": " + std::to_string(k);
    if (IsPreemption(d)) args += ", \"preemption\": true";
    if (d.fired_early) args += ", \"deadline_fired_early\": true";
    args += "}";
    event("{\"ph\": \"X\", \"name\": " + Quoted(name) + ", \"pid\": " + std::to_string(pid_of(d.picked.value)) +
          ", \"tid\": " + std::to_string(d.picked.value) + ", \"ts\": " + std::to_string(k) + ", \"dur\": 1, \"args\": " +
          args + "}");
    if (d.current && search::AtInstruction(d.point.op)) {
      const std::string kind = d.point.op == search::OpKind::kRacyAccess ? "racy access" : "atomic";
      event("{\"ph\": \"i\", \"name\": \"" + kind + "\", \"s\": \"t\", \"pid\": " + std::to_string(pid_of(d.current->value)) +
            ", \"tid\": " + std::to_string(d.current->value) + ", \"ts\": " + std::to_string(k) +
            ", \"args\": {\"instruction\": \"" + Hex(d.point.instruction) + "\", \"address\": \"" + Hex(d.point.resource) +
            "\", \"is_write\": " + (d.point.is_write ? "true" : "false") +
            ", \"what\": " + Quoted(search::DescribePoint(d.point, ObjectOf(d, names))) + "}}");
    }
    if (d.current && d.point.op == search::OpKind::kInterrupted) {
      event("{\"ph\": \"i\", \"name\": \"interrupted\", \"s\": \"t\", \"pid\": " + std::to_string(pid_of(d.current->value)) +
            ", \"tid\": " + std::to_string(d.current->value) + ", \"ts\": " + std::to_string(k) + "}");
    }
  }
  if (trace.outcome) {
    event("{\"ph\": \"i\", \"name\": " + Quoted(OutcomeLine(*trace.outcome)) + ", \"s\": \"g\", \"pid\": 0, \"tid\": 0, \"ts\": " +
          std::to_string(trace.decisions.size()) + "}");
  }
  out << "\n]}\n";
  return out.str();
}

}  // namespace chess::trace
