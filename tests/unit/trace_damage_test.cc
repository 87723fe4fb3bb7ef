// ParseTrace on damaged traces: every truncation, every single bit flip, random garbage. Each
// must be refused with a message — never accepted as a different trace, never a crash, never a
// read past the end (the bytes sit at the end of readable memory: an over-read faults).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tests/unit/trace_test_support.h"
#include "trace/container.h"
#include "trace/trace_reader.h"

namespace chess::trace {
namespace {

using test_support::GuardedBuffer;

constexpr const char* kVersion = "0.1.0-test";

// The bytes of a real, small trace written by TraceWriter.
const std::string& SmallTraceBytes() {
  static const std::string bytes = [] {
    test_support::ScratchDirectory dir;
    const std::string path = dir.File("small.trace");
    if (!test_support::WriteWholeTrace(path, test_support::SmallTrace()).ok()) std::abort();
    return test_support::ReadFile(path);
  }();
  return bytes;
}

Result<Trace> ParseGuarded(std::string_view bytes) {
  GuardedBuffer buffer(bytes);
  return ParseTrace(buffer.view(), kVersion);
}

// Where the tool version sits in the header: the only bytes no length or checksum covers.
size_t ToolVersionBegin() { return ToolVersionSpan(SmallTraceBytes()).first; }
size_t ToolVersionEnd(const std::string& bytes) { return ToolVersionSpan(bytes).second; }

TEST(TraceDamage, TheUndamagedTraceParses) {
  const std::string& bytes = SmallTraceBytes();
  ASSERT_GT(bytes.size(), 2000u) << "a few KB, so that the damage covers many records";
  ASSERT_LT(bytes.size(), 16384u) << "the damage tests flip every bit: keep the trace small";
  auto trace = ParseGuarded(bytes);
  ASSERT_TRUE(trace.ok()) << trace.error();
  test_support::ExpectSameTrace(test_support::SmallTrace(), *trace);
}

TEST(TraceDamage, EveryTruncationIsRefused) {
  const std::string& bytes = SmallTraceBytes();
  for (size_t length = 0; length < bytes.size(); ++length) {
    auto trace = ParseGuarded(std::string_view(bytes).substr(0, length));
    ASSERT_FALSE(trace.ok()) << "accepted the first " << length << " of " << bytes.size() << " bytes";
    ASSERT_FALSE(trace.error().empty()) << length;
  }
}

TEST(TraceDamage, EveryTruncationFromTheFrontIsRefused) {
  const std::string& bytes = SmallTraceBytes();
  for (size_t skip = 1; skip <= bytes.size(); ++skip) {
    auto trace = ParseGuarded(std::string_view(bytes).substr(skip));
    ASSERT_FALSE(trace.ok()) << "accepted the bytes after the first " << skip;
    ASSERT_FALSE(trace.error().empty());
  }
}

// Damage a trace cannot notice is damage that changes nothing: zstd ignores some bits of its
// frame (the header's unused bit, slack in entropy tables), and the decoded records are what
// both checksums cover. So a damaged trace must be refused, or decode to exactly the original.
// The one exception is the tool version in the header, which no checksum covers (reported):
// damage there may change that string, and only that.
::testing::AssertionResult RefusedOrUnchanged(const std::string& bytes, bool in_tool_version, size_t* refused = nullptr) {
  auto trace = ParseGuarded(bytes);
  if (!trace.ok()) {
    if (refused != nullptr) ++*refused;
    if (trace.error().empty()) return ::testing::AssertionFailure() << "refused with an empty message";
    return ::testing::AssertionSuccess();
  }
  Trace expected = test_support::SmallTrace();
  if (in_tool_version) expected.tool_version = trace->tool_version;
  const bool failed_before = ::testing::Test::HasFailure();
  test_support::ExpectSameTrace(expected, *trace);
  if (!failed_before && ::testing::Test::HasFailure()) {
    return ::testing::AssertionFailure() << "accepted, and decoded to a different trace";
  }
  return ::testing::AssertionSuccess();
}

TEST(TraceDamage, EverySingleBitFlipIsRefusedOrChangesNothing) {
  const std::string& original = SmallTraceBytes();
  const size_t tool_begin = ToolVersionBegin();
  const size_t tool_end = ToolVersionEnd(original);
  std::string bytes = original;
  size_t refused = 0;
  for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    const size_t at = bit / 8;
    bytes[at] = static_cast<char>(bytes[at] ^ (1 << (bit % 8)));
    const bool in_tool_version = at >= tool_begin && at < tool_end;
    ASSERT_TRUE(RefusedOrUnchanged(bytes, in_tool_version, &refused)) << "bit " << bit % 8 << " of byte " << at;
    bytes[at] = original[at];
  }
  // Nearly every flip outside the tool version is noticed; the few that are not change nothing.
  const size_t outside = (original.size() - (tool_end - tool_begin)) * 8;
  EXPECT_GE(refused, outside * 98 / 100) << refused << " of " << outside;
}

TEST(TraceDamage, EveryByteSetToEachOfSomeValuesIsRefusedOrChangesNothing) {
  const std::string& original = SmallTraceBytes();
  const size_t tool_begin = ToolVersionBegin();
  const size_t tool_end = ToolVersionEnd(original);
  std::string bytes = original;
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (int value : {0x00, 0xff, 0x7f, 0x80}) {
      if (static_cast<uint8_t>(original[at]) == value) continue;
      bytes[at] = static_cast<char>(value);
      ASSERT_TRUE(RefusedOrUnchanged(bytes, at >= tool_begin && at < tool_end)) << "byte " << at << " set to " << value;
    }
    bytes[at] = original[at];
  }
}

TEST(TraceDamage, RandomMultiByteGarbageIsRefusedOrChangesNothing) {
  const std::string& original = SmallTraceBytes();
  const size_t body = ToolVersionEnd(original);
  std::mt19937_64 random(42);
  size_t refused = 0;
  size_t damaged = 0;
  constexpr int kRounds = 20000;
  for (int round = 0; round < kRounds; ++round) {
    std::string bytes = original;
    const int kind = round % 4;
    if (kind == 0) {
      // A few bytes overwritten at random places past the tool version.
      const int count = 2 + static_cast<int>(random() % 8);
      for (int i = 0; i < count; ++i) bytes[body + random() % (bytes.size() - body)] = static_cast<char>(random());
    } else if (kind == 1) {
      // A run of random bytes replacing part of the file.
      const size_t at = body + random() % (bytes.size() - body);
      const size_t length = std::min<size_t>(1 + random() % 64, bytes.size() - at);
      for (size_t i = 0; i < length; ++i) bytes[at + i] = static_cast<char>(random());
    } else if (kind == 2) {
      // Random bytes inserted or removed in the middle.
      const size_t at = body + random() % (bytes.size() - body);
      if (random() & 1) {
        std::string garbage(1 + random() % 32, '\0');
        for (char& c : garbage) c = static_cast<char>(random());
        bytes.insert(at, garbage);
      } else {
        bytes.erase(at, 1 + random() % 32);
      }
    } else {
      // A valid header, then nothing but noise of random length.
      bytes.resize(body + random() % 4096);
      for (size_t i = body; i < bytes.size(); ++i) bytes[i] = static_cast<char>(random());
    }
    if (bytes == original) continue;
    ++damaged;
    ASSERT_TRUE(RefusedOrUnchanged(bytes, false, &refused)) << "garbage round " << round;
  }
  EXPECT_GE(refused, damaged * 99 / 100) << refused << " of " << damaged;
}

TEST(TraceDamage, NoiseWithoutMagicIsNotATrace) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 1000; ++round) {
    std::string bytes(random() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    auto trace = ParseGuarded(bytes);
    ASSERT_FALSE(trace.ok());
    EXPECT_NE(trace.error().find("not a chess-trace trace"), std::string::npos) << trace.error();
  }
}

TEST(TraceDamage, TwoTracesGluedTogetherAreRefused) {
  const std::string& one = SmallTraceBytes();
  auto trace = ParseGuarded(one + one);
  ASSERT_FALSE(trace.ok());
  EXPECT_FALSE(trace.error().empty());
}

TEST(TraceDamage, TrailingBytesAreRefused) {
  const std::string& one = SmallTraceBytes();
  for (const std::string& tail : {std::string(1, '\0'), std::string("x"), std::string(24, '\0')}) {
    auto trace = ParseGuarded(one + tail);
    ASSERT_FALSE(trace.ok()) << tail.size();
    EXPECT_FALSE(trace.error().empty());
  }
}

std::string WithFormatVersion(uint16_t version) {
  std::string bytes = SmallTraceBytes();
  const size_t at = ToolVersionBegin() - 4;  // the version, then the tool version's length
  bytes[at] = static_cast<char>(version & 0xff);
  bytes[at + 1] = static_cast<char>(version >> 8);
  return bytes;
}

constexpr uint16_t kNewer = kFormatVersion + 1;
const std::string kNewerText = "format " + std::to_string(kNewer);

TEST(TraceDamage, NewerFormatVersionNamesBothVersions) {
  auto trace = ParseGuarded(WithFormatVersion(kNewer));
  ASSERT_FALSE(trace.ok());
  const std::string& message = trace.error();
  EXPECT_NE(message.find(kNewerText), std::string::npos) << message;
  EXPECT_NE(message.find("format " + std::to_string(kFormatVersion)), std::string::npos) << message;
  // Which chess-trace wrote it, and which one is reading.
  EXPECT_NE(message.find("0.1.0-test"), std::string::npos) << message;
  EXPECT_NE(message.find(kVersion), std::string::npos) << message;

  auto far_future = ParseGuarded(WithFormatVersion(0xffff));
  ASSERT_FALSE(far_future.ok());
  EXPECT_NE(far_future.error().find("format 65535"), std::string::npos) << far_future.error();
}

TEST(TraceDamage, FormatVersionZeroIsDamage) {
  auto trace = ParseGuarded(WithFormatVersion(0));
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().find("version 0"), std::string::npos) << trace.error();
}

TEST(TraceDamage, NewerFormatVersionIsRecognisedEvenWhenTheRestIsDifferent) {
  // A future format may change everything after the header: the version message must still win
  // over "damaged".
  std::string bytes = WithFormatVersion(kNewer);
  bytes.resize(ToolVersionEnd(bytes) + 5, 'x');
  auto trace = ParseGuarded(bytes);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().find(kNewerText), std::string::npos) << trace.error();
}

}  // namespace
}  // namespace chess::trace
