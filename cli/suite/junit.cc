#include "cli/suite/junit.h"

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <utility>

namespace chess::cli::suite {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

bool IsContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Appends one code point (known to be a scalar value) as UTF-8.
void AppendUtf8(std::string& out, uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

enum class XmlContext : uint8_t { kText, kAttribute };

// One ASCII character, escaped for its context. A C0 control other than tab, newline and carriage return
// cannot appear in XML 1.0 at all, not even as a character reference: it becomes its Unicode control
// picture (U+2400 + c: ESC shows as ␛), so the reader still sees which character the program wrote. In an
// attribute, tab, newline and carriage return are written as references because a parser normalizes them
// to spaces; in text a raw carriage return would be read as a newline.
void AppendAscii(std::string& out, char c, XmlContext context) {
  const bool attribute = context == XmlContext::kAttribute;
  switch (c) {
    case '&': out += "&amp;"; return;
    case '<': out += "&lt;"; return;
    case '>': out += "&gt;"; return;  // always, so text never holds "]]>"
    case '"': out += attribute ? "&quot;" : "\""; return;
    case '\'': out += attribute ? "&apos;" : "'"; return;
    case '\t': out += attribute ? "&#9;" : "\t"; return;
    case '\n': out += attribute ? "&#10;" : "\n"; return;
    case '\r': out += "&#13;"; return;
    default: break;
  }
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20) {
    AppendUtf8(out, 0x2400 + byte);
  } else {
    out += c;
  }
}

// The length of the UTF-8 sequence `lead` starts and the range its second byte must be in (which rules out
// overlong forms, UTF-16 surrogates and code points past U+10FFFF); 0 for a byte that starts none.
struct SequenceShape {
  size_t length = 0;
  unsigned char second_low = 0x80;
  unsigned char second_high = 0xBF;
};

SequenceShape ShapeOf(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return {2, 0x80, 0xBF};
  if (lead == 0xE0) return {3, 0xA0, 0xBF};
  if (lead == 0xED) return {3, 0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return {3, 0x80, 0xBF};
  if (lead == 0xF0) return {4, 0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return {4, 0x80, 0xBF};
  if (lead == 0xF4) return {4, 0x80, 0x8F};
  return {};
}

// `text` escaped for `context`, valid XML 1.0 whatever it holds: a broken UTF-8 sequence (its longest
// well-formed prefix, as Unicode recommends) and the noncharacters U+FFFE and U+FFFF become U+FFFD.
void AppendEscaped(std::string& out, std::string_view text, XmlContext context) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      AppendAscii(out, text[i], context);
      ++i;
      continue;
    }
    const SequenceShape shape = ShapeOf(lead);
    size_t length = 1;
    if (shape.length > 0 && i + 1 < text.size()) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      if (second >= shape.second_low && second <= shape.second_high) {
        length = 2;
        while (length < shape.length && i + length < text.size() &&
               IsContinuation(static_cast<unsigned char>(text[i + length]))) {
          ++length;
        }
      }
    }
    const std::string_view sequence = text.substr(i, length);
    i += length;
    if (length != shape.length || sequence == "\xEF\xBF\xBE" || sequence == "\xEF\xBF\xBF") {
      out += kReplacementCharacter;
    } else {
      out += sequence;
    }
  }
}

// Seconds with three decimals, whatever the locale; a negative or NaN duration is 0.
std::string Seconds(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), seconds, std::chars_format::fixed, 3);
  if (error != std::errc()) return "0.000";
  return std::string(buffer, end);
}

using Attributes = std::vector<std::pair<std::string_view, std::string>>;

void AppendStartTag(std::string& out, std::string_view element, const Attributes& attributes) {
  out += '<';
  out += element;
  for (const auto& [name, value] : attributes) {
    out += ' ';
    out += name;
    out += "=\"";
    AppendEscaped(out, value, XmlContext::kAttribute);
    out += '"';
  }
}

void AppendIndent(std::string& out, int depth) { out.append(static_cast<size_t>(depth) * 2, ' '); }

// `<element attributes>text</element>` on one indented line (the text's own newlines kept as they are);
// `<element attributes/>` when there is no text.
void AppendElement(std::string& out, int depth, std::string_view element, const Attributes& attributes,
                   std::string_view text) {
  AppendIndent(out, depth);
  AppendStartTag(out, element, attributes);
  if (text.empty()) {
    out += "/>\n";
    return;
  }
  out += '>';
  AppendEscaped(out, text, XmlContext::kText);
  out += "</";
  out += element;
  out += ">\n";
}

bool IsNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' ||
         c == '.';
}

// The classname rule. A `Suite.Name` name (GoogleTest's, and a dotted Catch2 or doctest name: letters, digits,
// '_' and '/' on both sides of its last '.', so a parametrized `Prefix/Suite.Name/0` too) is in the class
// before its last '.', as GoogleTest's own XML files it. Any other name — a pytest node id (`file.py::test`),
// a Rust path (`mod::test`), a Go test, a Catch2 sentence, a --tests command line with a space or a leading
// `./` — is in the suite's class.
// The testcase's name stays the whole name either way: the one `chess-trace test` prints and filters by.
std::string ClassName(std::string_view test, std::string_view suite) {
  const size_t dot = test.rfind('.');
  const bool dotted = dot != std::string_view::npos && dot > 0 && dot + 1 < test.size() && test[0] != '.' &&
                      test[0] != '/';
  if (!dotted) return std::string(suite);
  for (char c : test) {
    if (!IsNameCharacter(c)) return std::string(suite);
  }
  return std::string(test.substr(0, dot));
}

std::string WithoutTrailingNewlines(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return std::string(text);
}

// "<head>: <message>", or the head alone when there is no message.
std::string Headed(std::string head, std::string_view message) {
  if (!message.empty()) {
    head += ": ";
    head += message;
  }
  return head;
}

// "OUTCOME with P preemptions: MESSAGE".
std::string ConcurrencyMessage(const TestResult& result) {
  std::string head = result.outcome.empty() ? "failure" : result.outcome;
  if (result.preemptions) {
    head += " with ";
    head += std::to_string(*result.preemptions);
    head += *result.preemptions == 1 ? " preemption" : " preemptions";
  }
  return Headed(std::move(head), result.message);
}

// The report as explore printed it, then the command that replays the failure.
std::string ConcurrencyText(const TestResult& result) {
  std::string text = WithoutTrailingNewlines(result.report);
  if (!result.replay_command.empty()) {
    if (!text.empty()) text += '\n';
    text += "replay: ";
    text += result.replay_command;
  }
  return text;
}

bool IsFailure(TestVerdict verdict) {
  return verdict == TestVerdict::kConcurrencyBug || verdict == TestVerdict::kPlainFailure;
}

// The trace as Jenkins' junit-attachments plugin and GitLab read it: on a line of its own, absolute.
std::string AttachmentLine(const std::string& trace_path) {
  std::error_code error;
  std::filesystem::path path = std::filesystem::absolute(trace_path, error);
  if (error) path = trace_path;
  std::string line = "[[ATTACHMENT|";
  line += path.string();
  line += "]]";
  return line;
}

std::string SystemOut(const TestResult& result) {
  std::string text = WithoutTrailingNewlines(result.coverage);
  if (IsFailure(result.verdict) && !result.trace_path.empty()) {
    if (!text.empty()) text += '\n';
    text += AttachmentLine(result.trace_path);
  }
  return text;
}

// Consumers need a name for the suite and for each test; a run or a listing without one still gets one.
std::string NameOr(const std::string& name, std::string_view fallback) {
  return name.empty() ? std::string(fallback) : name;
}

void AppendTestCase(std::string& out, const std::string& suite_name, const TestResult& result) {
  const int depth = 2;
  const std::string name = NameOr(result.name, "(unnamed)");
  const Attributes attributes = {
      {"name", name}, {"classname", ClassName(name, suite_name)}, {"time", Seconds(result.seconds)}};
  const std::string system_out = SystemOut(result);
  if (result.verdict == TestVerdict::kPassed && system_out.empty()) {
    AppendElement(out, depth, "testcase", attributes, "");
    return;
  }
  AppendIndent(out, depth);
  AppendStartTag(out, "testcase", attributes);
  out += ">\n";
  switch (result.verdict) {
    case TestVerdict::kPassed: break;
    case TestVerdict::kConcurrencyBug:
      AppendElement(out, depth + 1, "failure", {{"type", "concurrency"}, {"message", ConcurrencyMessage(result)}},
                    ConcurrencyText(result));
      break;
    case TestVerdict::kPlainFailure:
      AppendElement(out, depth + 1, "failure",
                    {{"type", "plain"}, {"message", Headed("fails without any preemption", result.message)}},
                    WithoutTrailingNewlines(result.output));
      break;
    case TestVerdict::kSkipped: {
      Attributes skipped;
      if (!result.skip_reason.empty()) skipped.emplace_back("message", result.skip_reason);
      AppendElement(out, depth + 1, "skipped", skipped, "");
      break;
    }
    case TestVerdict::kError:
      AppendElement(out, depth + 1, "error", {{"type", "chess-trace"}, {"message", result.message}},
                    WithoutTrailingNewlines(result.report.empty() ? result.output : result.report));
      break;
  }
  if (!system_out.empty()) AppendElement(out, depth + 1, "system-out", {}, system_out);
  AppendIndent(out, depth);
  out += "</testcase>\n";
}

struct Counts {
  size_t tests = 0;
  size_t failures = 0;  // concurrency bugs and plain failures
  size_t errors = 0;
  size_t skipped = 0;
};

Counts CountOf(const std::vector<TestResult>& results) {
  Counts counts;
  for (const TestResult& result : results) {
    ++counts.tests;
    if (IsFailure(result.verdict)) ++counts.failures;
    if (result.verdict == TestVerdict::kError) ++counts.errors;
    if (result.verdict == TestVerdict::kSkipped) ++counts.skipped;
  }
  return counts;
}

Attributes SummaryAttributes(const JunitSuite& suite, const Counts& counts) {
  return {{"name", NameOr(suite.name, "chess-trace")},
          {"tests", std::to_string(counts.tests)},
          {"failures", std::to_string(counts.failures)},
          {"errors", std::to_string(counts.errors)},
          {"skipped", std::to_string(counts.skipped)},
          {"time", Seconds(suite.seconds)}};
}

}  // namespace

std::string JunitXml(const JunitSuite& suite, const std::vector<TestResult>& results) {
  const Counts counts = CountOf(results);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  AppendStartTag(out, "testsuites", SummaryAttributes(suite, counts));
  out += ">\n";
  // Where the run began and on which machine: left out when unknown, as consumers allow.
  Attributes testsuite = SummaryAttributes(suite, counts);
  if (!suite.timestamp.empty()) testsuite.emplace_back("timestamp", suite.timestamp);
  if (!suite.hostname.empty()) testsuite.emplace_back("hostname", suite.hostname);
  AppendIndent(out, 1);
  AppendStartTag(out, "testsuite", testsuite);
  if (results.empty()) {
    out += "/>\n";
  } else {
    out += ">\n";
    for (const TestResult& result : results) AppendTestCase(out, NameOr(suite.name, "chess-trace"), result);
    AppendIndent(out, 1);
    out += "</testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace chess::cli::suite
