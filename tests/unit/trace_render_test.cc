// trace/render: the text timeline, the JSON records and the Chrome trace events of a small
// trace. Two disabled tests document reported bugs: text columns are padded by bytes, not by
// characters, and JSON copies bytes that are not UTF-8 into its strings.
#include "trace/render.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/trace_test_support.h"

namespace chess::trace {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Characters on a terminal: UTF-8 code points (every character here is one column wide).
size_t Columns(const std::string& text) {
  size_t columns = 0;
  for (unsigned char c : text) columns += (c & 0xc0) != 0x80 ? 1 : 0;
  return columns;
}

// Whether `text` is well-formed UTF-8 (no stray continuation bytes, no truncated sequences,
// no bytes 0xc0, 0xc1, 0xf5-0xff).
bool ValidUtf8(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >= 0xc2 && c <= 0xdf) ? 2 : (c >= 0xe0 && c <= 0xef) ? 3 : (c >= 0xf0 && c <= 0xf4) ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

TEST(TraceRender, TextHasTheHeaderARowPerDecisionAndTheOutcome) {
  const Trace trace = test_support::SmallTrace(4, 0);
  const std::string text = RenderText(trace);
  EXPECT_NE(text.find("trace of yield_ping_pong --rounds 4"), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(trace.decisions.size()) + " decisions, 2 threads"), std::string::npos) << text;
  EXPECT_NE(text.find("T0 (2/2)"), std::string::npos) << text;
  EXPECT_NE(text.find("T1 (2/3)"), std::string::npos) << text;
  EXPECT_NE(text.find("outcome: ok, exit status 0"), std::string::npos) << text;
  EXPECT_NE(text.find("waited 1 µs on the outside world"), std::string::npos) << text;
  size_t rows = 0;
  for (const std::string& line : Lines(text)) {
    if (!line.empty() && line[0] >= '0' && line[0] <= '9') ++rows;
  }
  EXPECT_EQ(rows, trace.decisions.size());
}

// Two threads taking the same lock, which the trace names.
Trace LockTrace(bool named) {
  Trace trace = test_support::SmallTrace(2, 0);
  for (uint32_t t : {0u, 1u}) {
    auto d = test_support::MakeDecision(t, search::OpKind::kSyncOp, 1001, 10 + t, 1 - t, search::StopReason::kReachedPoint);
    d.point.resource = 0x555555558080;
    d.point.is_write = true;
    trace.decisions.insert(trace.decisions.end() - 2, d);
  }
  if (named) trace.object_names = {{2, 0x555555558080, "balance_lock (bank)"}};
  return trace;
}

TEST(TraceRender, SyncOperationsNameTheirObjectsWhereTheTraceDoes) {
  const std::string text = RenderText(LockTrace(true));
  EXPECT_NE(text.find("acquire balance_lock "), std::string::npos) << text;
  EXPECT_EQ(text.find("acquire 0x555555558080"), std::string::npos) << text;
  EXPECT_NE(text.find("objects of the sync operations above:\n  balance_lock            0x555555558080 in bank, pid 2\n"),
            std::string::npos)
      << text;
  const std::string json = RenderJson(LockTrace(true));
  EXPECT_NE(json.find(R"x("object_names": [{"pid": 2, "address": 93824992247936, "name": "balance_lock (bank)"}])x"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("syscall": "acquire balance_lock")"), std::string::npos) << json;
  // A trace without names (an older one, or a lock on the heap) shows the address.
  const std::string unnamed = RenderText(LockTrace(false));
  EXPECT_NE(unnamed.find("acquire 0x555555558080"), std::string::npos) << unnamed;
  EXPECT_EQ(unnamed.find("objects of the sync operations"), std::string::npos) << unnamed;
}

// A search's trace with atomic points: thread 1 stops before an atomic increment and is
// preempted there, thread 0 before a load.
Trace AtomicTrace() {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.options.atomic_points = true;
  trace.atomic_points = search::AtomicPointPlan{
      .mode = search::AtomicPointPlan::Mode::kPoints, .alone_sites = {{"/t/counter", 0x1236}, {"/t/counter", 0x1240}}, .max_points = 500,
      .detect_races = false, .max_sampled_sites = 50'000, .race_sites = {}};
  auto increment = test_support::MakeDecision(1, search::OpKind::kAtomic, -1, 10, 0, search::StopReason::kReachedPoint);
  increment.point.instruction = 0x401236;
  increment.point.resource = 0x404040;
  increment.point.is_write = true;
  auto load = test_support::MakeDecision(0, search::OpKind::kAtomic, -1, 11, 1, search::StopReason::kReachedPoint);
  load.point.instruction = 0x401240;
  load.point.resource = 0x404040;
  trace.decisions.insert(trace.decisions.end() - 2, {increment, load, increment});
  return trace;
}

TEST(TraceRender, AtomicPointsAreMarkedInTextJsonAndChrome) {
  const Trace trace = AtomicTrace();
  const std::string text = RenderText(trace);
  EXPECT_NE(text.find("atomic points: every atomic instruction but 2 that ran only alone, at most 500 points per execution"), std::string::npos) << text;
  EXPECT_NE(text.find("atomic 0x401236"), std::string::npos) << text;
  // The legend names each stop once, with what it touched.
  EXPECT_NE(text.find("atomic points above:\n  thread 1 at the atomic instruction 0x401236 writing 0x404040\n"
                      "  thread 0 at the atomic instruction 0x401240 reading 0x404040\n"),
            std::string::npos)
      << text;
  const std::string json = RenderJson(trace);
  EXPECT_NE(json.find(R"("atomic_points": true)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"x("atomic_sites": {"max_points": 500, "alone_sites": [{"module": "/t/counter", "address": 4662}, )x"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("instruction": 4198966, "is_write": true, "atomic": "at the atomic instruction 0x401236 writing 0x404040")"),
            std::string::npos)
      << json;
  const std::string chrome = RenderChrome(trace);
  EXPECT_NE(chrome.find(R"("name": "atomic", "s": "t", "pid": 2, "tid": 1)"), std::string::npos) << chrome;
  EXPECT_NE(chrome.find(R"("args": {"instruction": "0x401236", "address": "0x404040", "is_write": true,)"), std::string::npos)
      << chrome;
  // Without atomic points nothing is said of them.
  const Trace plain = test_support::SmallTrace(2, 0);
  EXPECT_EQ(RenderText(plain).find("atomic"), std::string::npos);
  EXPECT_NE(RenderJson(plain).find(R"("atomic_sites": null)"), std::string::npos);
}

TEST(TraceRender, StandardDescriptorsInTextAndJson) {
  Trace trace = test_support::SmallTrace(2, 0);
  EXPECT_NE(RenderText(trace).find("  standard descriptors: stdin /dev/null, stdout a terminal (80×24), stderr the same "
                                   "as stdout\n"),
            std::string::npos)
      << RenderText(trace);
  const std::string json = RenderJson(trace);
  EXPECT_NE(json.find("\"standard_descriptors\": [{\"fd\": 0, \"kind\": \"device\", \"major\": 1, \"minor\": 3, "
                      "\"same_file_as\": null, \"same_description_as\": null}, {\"fd\": 1, \"kind\": \"terminal\", "
                      "\"rows\": 24, \"columns\": 80, \"x_pixels\": 0, \"y_pixels\": 0, \"same_file_as\": null, "
                      "\"same_description_as\": null}, {\"fd\": 2, \"kind\": \"terminal\", \"rows\": 24, \"columns\": 80, "
                      "\"x_pixels\": 0, \"y_pixels\": 0, \"same_file_as\": 1, \"same_description_as\": 1}]"),
            std::string::npos)
      << json;
  using Kind = StandardDescriptor::Kind;
  trace.standard_descriptors = StandardDescriptors{
      StandardDescriptor{.kind = Kind::kClosed}, StandardDescriptor{.kind = Kind::kFile},
      StandardDescriptor{.kind = Kind::kFile, .same_file_as = 1}};
  EXPECT_NE(RenderText(trace).find("standard descriptors: stdin closed, stdout a file, stderr a file, the same one as "
                                   "stdout but opened apart\n"),
            std::string::npos)
      << RenderText(trace);
  trace.standard_descriptors.reset();
  EXPECT_NE(RenderText(trace).find("standard descriptors: not recorded"), std::string::npos);
  EXPECT_NE(RenderJson(trace).find("\"standard_descriptors\": null"), std::string::npos);
}

TEST(TraceRender, TextOfATraceCutShort) {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.outcome.reset();
  EXPECT_NE(RenderText(trace).find("outcome: none recorded"), std::string::npos);
}

// Disabled: Pad() in trace/render.cc counts bytes, so a cell holding "▶ runs" (3 bytes for one
// character) is two columns narrower than the others and every column after it shifts left.
// Reported; enable once the text timeline pads by characters.
TEST(TraceRender, TextRowsAreAligned) {
  const std::string text = RenderText(test_support::SmallTrace(4, 0));
  std::vector<size_t> widths;
  for (const std::string& line : Lines(text)) {
    if (!line.empty() && (line.rfind("decision", 0) == 0 || (line[0] >= '0' && line[0] <= '9'))) {
      widths.push_back(Columns(line));
    }
  }
  ASSERT_GT(widths.size(), 2u);
  for (size_t i = 1; i < widths.size(); ++i) EXPECT_EQ(widths[i], widths[0]) << "row " << i - 1;
}

TEST(TraceRender, JsonHasEveryRecordAndEscapesControlCharacters) {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.command.argv.push_back("quote\" backslash\\ newline\n tab\t bell\x07");
  trace.outcome->message = "line one\nline two";
  const std::string json = RenderJson(trace);
  EXPECT_NE(json.find("\"format_version\": " + std::to_string(kFormatVersion)), std::string::npos);
  EXPECT_NE(json.find("quote\\\" backslash\\\\ newline\\n tab\\t bell\\u0007"), std::string::npos) << json;
  EXPECT_NE(json.find("\"message\": \"line one\\nline two\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"epoch\": 1704067200000000000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"outside_waits\": [{\"decision\": 3, \"nanos\": 1500}"), std::string::npos) << json;
  // One object per decision.
  size_t decisions = 0;
  for (size_t at = json.find("{\"current\": "); at != std::string::npos; at = json.find("{\"current\": ", at + 1)) ++decisions;
  EXPECT_EQ(decisions, trace.decisions.size());
  EXPECT_EQ(json.find('\n', json.size() - 1), json.size() - 1);
  Trace no_epoch = trace;
  no_epoch.options.epoch.reset();
  no_epoch.outcome.reset();
  const std::string other = RenderJson(no_epoch);
  EXPECT_NE(other.find("\"epoch\": null"), std::string::npos);
  EXPECT_NE(other.find("\"outcome\": null"), std::string::npos);
}

// Disabled: Escape() in trace/render.cc copies bytes >= 0x80 as they are, so an argument or a
// variable that is not UTF-8 (Linux allows any bytes) makes `show --format json` print text
// that is not JSON (RFC 8259 requires UTF-8; Python's json.load refuses it). Reported; enable
// once such bytes are escaped or replaced.
TEST(TraceRender, JsonIsUtf8WhateverTheBytesRecorded) {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.command.argv.push_back("\xff\xfe latin-1 caf\xe9");
  trace.command.env.push_back("NAME=\xc3");
  const std::string json = RenderJson(trace);
  EXPECT_TRUE(ValidUtf8(json));
  // Bytes that are not UTF-8 are kept recoverable, as lone low surrogates (surrogateescape).
  EXPECT_NE(json.find("\\udcff\\udcfe latin-1 caf\\udce9"), std::string::npos) << json;
  EXPECT_NE(json.find("NAME=\\udcc3"), std::string::npos) << json;
}

TEST(TraceRender, JsonKeepsValidUtf8AsItIs) {
  Trace trace = test_support::SmallTrace(2, 0);
  trace.command.cwd = "/home/\xc3\xa9t\xc3\xa9";
  const std::string json = RenderJson(trace);
  EXPECT_TRUE(ValidUtf8(json));
  EXPECT_NE(json.find("/home/\xc3\xa9t\xc3\xa9"), std::string::npos);
}

TEST(TraceRender, ChromeHasThreadNamesAndOneSliceADecision) {
  const Trace trace = test_support::SmallTrace(4, 0);
  const std::string chrome = RenderChrome(trace);
  EXPECT_EQ(chrome.rfind("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", 0), 0u) << chrome.substr(0, 80);
  EXPECT_NE(chrome.find("\"name\": \"T1 (tid 3)\""), std::string::npos) << chrome;
  size_t slices = 0;
  for (size_t at = chrome.find("\"ph\": \"X\""); at != std::string::npos; at = chrome.find("\"ph\": \"X\"", at + 1)) ++slices;
  EXPECT_EQ(slices, trace.decisions.size());
  EXPECT_NE(chrome.find("\"name\": \"ok, exit status 0\""), std::string::npos) << chrome;
  EXPECT_TRUE(ValidUtf8(chrome));
}

TEST(TraceRender, EmptyTraceRenders) {
  Trace trace;
  trace.command.argv = {"x"};
  EXPECT_FALSE(RenderText(trace).empty());
  EXPECT_FALSE(RenderJson(trace).empty());
  EXPECT_FALSE(RenderChrome(trace).empty());
}

}  // namespace
}  // namespace chess::trace
