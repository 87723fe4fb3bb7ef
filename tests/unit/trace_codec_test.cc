// trace/codec: varints and zigzag at their edges, and a ByteReader that fails — and keeps
// failing — instead of reading past its end, whatever the bytes claim.
#include "trace/codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/unit/trace_test_support.h"

namespace chess::trace {
namespace {

using test_support::GuardedBuffer;

std::string EncodeVarint(uint64_t value) {
  ByteWriter writer;
  writer.Varint(value);
  return writer.bytes();
}

std::string EncodeSigned(int64_t value) {
  ByteWriter writer;
  writer.Signed(value);
  return writer.bytes();
}

// Decodes one varint from a buffer that ends exactly at the end of readable memory.
struct Decoded {
  uint64_t value;
  bool ok;
  size_t position;
};
Decoded DecodeVarint(const std::string& bytes) {
  GuardedBuffer buffer(bytes);
  ByteReader reader(buffer.data(), buffer.size());
  const uint64_t value = reader.Varint();
  return {value, reader.ok(), reader.Position()};
}

TEST(TraceCodec, VarintRoundTripsAtTheEdges) {
  const std::vector<uint64_t> values = {0,
                                        1,
                                        127,
                                        128,
                                        255,
                                        16383,
                                        16384,
                                        (uint64_t{1} << 32) - 1,
                                        uint64_t{1} << 32,
                                        (uint64_t{1} << 56) - 1,
                                        uint64_t{1} << 56,
                                        (uint64_t{1} << 63) - 1,
                                        uint64_t{1} << 63,
                                        (uint64_t{1} << 63) + 1,
                                        std::numeric_limits<uint64_t>::max() - 1,
                                        std::numeric_limits<uint64_t>::max()};
  for (uint64_t value : values) {
    const std::string bytes = EncodeVarint(value);
    const Decoded decoded = DecodeVarint(bytes);
    EXPECT_TRUE(decoded.ok) << value;
    EXPECT_EQ(decoded.value, value);
    EXPECT_EQ(decoded.position, bytes.size()) << value;
  }
}

TEST(TraceCodec, VarintLengths) {
  EXPECT_EQ(EncodeVarint(0), std::string(1, '\0'));
  EXPECT_EQ(EncodeVarint(127), "\x7f");
  EXPECT_EQ(EncodeVarint(128), "\x80\x01");
  EXPECT_EQ(EncodeVarint(300), "\xac\x02");
  EXPECT_EQ(EncodeVarint(16383).size(), 2u);
  EXPECT_EQ(EncodeVarint(16384).size(), 3u);
  EXPECT_EQ(EncodeVarint((uint64_t{1} << 63) - 1).size(), 9u);
  EXPECT_EQ(EncodeVarint(uint64_t{1} << 63), std::string("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 10));
  EXPECT_EQ(EncodeVarint(std::numeric_limits<uint64_t>::max()), std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10));
}

TEST(TraceCodec, ZigzagRoundTripsAtTheEdges) {
  const std::vector<int64_t> values = {0,
                                       1,
                                       -1,
                                       63,
                                       -64,
                                       64,
                                       -65,
                                       std::numeric_limits<int32_t>::max(),
                                       std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int64_t>::max() - 1,
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min() + 1,
                                       std::numeric_limits<int64_t>::min()};
  for (int64_t value : values) {
    const std::string bytes = EncodeSigned(value);
    GuardedBuffer buffer(bytes);
    ByteReader reader(buffer.data(), buffer.size());
    EXPECT_EQ(reader.Signed(), value);
    EXPECT_TRUE(reader.ok()) << value;
    EXPECT_TRUE(reader.AtEnd()) << value;
  }
}

TEST(TraceCodec, ZigzagMapsSmallMagnitudesToSmallCodes) {
  // 0 → 0, -1 → 1, 1 → 2, -2 → 3 …: every value in [-64, 63] is one byte.
  EXPECT_EQ(EncodeSigned(0), std::string(1, '\0'));
  EXPECT_EQ(EncodeSigned(-1), "\x01");
  EXPECT_EQ(EncodeSigned(1), "\x02");
  EXPECT_EQ(EncodeSigned(-2), "\x03");
  EXPECT_EQ(EncodeSigned(63), "\x7e");
  EXPECT_EQ(EncodeSigned(-64), "\x7f");
  EXPECT_EQ(EncodeSigned(64).size(), 2u);
  EXPECT_EQ(EncodeSigned(-65).size(), 2u);
  EXPECT_EQ(EncodeSigned(std::numeric_limits<int64_t>::max()), EncodeVarint(std::numeric_limits<uint64_t>::max() - 1));
  EXPECT_EQ(EncodeSigned(std::numeric_limits<int64_t>::min()), EncodeVarint(std::numeric_limits<uint64_t>::max()));
}

TEST(TraceCodec, VarintLongerThanTenBytesFails) {
  // Eleven bytes: ten continuation bytes, then a terminator.
  std::string eleven(10, '\x80');
  eleven.push_back('\x00');
  Decoded decoded = DecodeVarint(eleven);
  EXPECT_FALSE(decoded.ok);
  EXPECT_EQ(decoded.value, 0u);
  EXPECT_LE(decoded.position, eleven.size());
  // Continuation bits forever: stops after at most ten bytes.
  std::string endless(64, '\xff');
  decoded = DecodeVarint(endless);
  EXPECT_FALSE(decoded.ok);
  EXPECT_LE(decoded.position, 10u);
}

TEST(TraceCodec, TenthByteMayCarryOnlyTheTopBit) {
  std::string bytes(9, '\x80');
  bytes.push_back('\x01');
  EXPECT_TRUE(DecodeVarint(bytes).ok);
  EXPECT_EQ(DecodeVarint(bytes).value, uint64_t{1} << 63);
  for (int tenth : {0x02, 0x03, 0x40, 0x7f}) {
    bytes.back() = static_cast<char>(tenth);
    const Decoded decoded = DecodeVarint(bytes);
    EXPECT_FALSE(decoded.ok) << "tenth byte " << tenth;
    EXPECT_EQ(decoded.value, 0u);
  }
  // A tenth byte with its continuation bit: an eleventh would follow.
  bytes.back() = '\x81';
  bytes.push_back('\x00');
  EXPECT_FALSE(DecodeVarint(bytes).ok);
}

TEST(TraceCodec, TruncatedVarintFailsWithoutReadingPastTheEnd) {
  // Each proper prefix of a multi-byte varint ends in a continuation byte. The buffer ends at an
  // inaccessible page, so a read past the end would crash the test.
  for (uint64_t value : {uint64_t{128}, uint64_t{1} << 35, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()}) {
    const std::string bytes = EncodeVarint(value);
    for (size_t length = 0; length < bytes.size(); ++length) {
      const Decoded decoded = DecodeVarint(bytes.substr(0, length));
      EXPECT_FALSE(decoded.ok) << value << " cut to " << length;
      EXPECT_EQ(decoded.value, 0u);
      EXPECT_LE(decoded.position, length);
    }
  }
}

TEST(TraceCodec, ReaderOverAPrefixIgnoresTheBytesAfterIt) {
  // The reader's size, not the memory behind it, is the end: "\x80\x01" is 128, but only its
  // first byte is given.
  const std::string bytes = "\x80\x01";
  ByteReader reader(bytes.data(), 1);
  EXPECT_EQ(reader.Varint(), 0u);
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.Position(), 1u);
}

TEST(TraceCodec, FailureSticks) {
  const std::string bytes = std::string("\x80", 1) + "abcdef";
  ByteReader reader(bytes.data(), 1);
  EXPECT_EQ(reader.Varint(), 0u);
  EXPECT_FALSE(reader.ok());
  // Nothing succeeds afterwards, even reads that would fit.
  ByteReader again(bytes.data(), bytes.size());
  again.Fail();
  EXPECT_EQ(again.U8(), 0u);
  EXPECT_EQ(again.Varint(), 0u);
  EXPECT_EQ(again.String(100), "");
  EXPECT_TRUE(again.Bytes(1).empty());
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(again.Position(), 0u);
}

TEST(TraceCodec, EmptyInput) {
  GuardedBuffer buffer("");
  ByteReader reader(buffer.data(), 0);
  EXPECT_TRUE(reader.AtEnd());
  EXPECT_EQ(reader.Remaining(), 0u);
  EXPECT_EQ(reader.U8(), 0u);
  EXPECT_FALSE(reader.ok());
  ByteReader null_reader(nullptr, 0);
  EXPECT_EQ(null_reader.Varint(), 0u);
  EXPECT_FALSE(null_reader.ok());
}

TEST(TraceCodec, StringsRoundTripAnyBytes) {
  const std::vector<std::string> texts = {"", "a", std::string("nul\0inside", 10), "\xff\xfe\x80 non-ASCII \xc3\xa9",
                                          std::string(127, 'x'), std::string(128, 'y'), std::string(70000, 'z')};
  ByteWriter writer;
  for (const std::string& text : texts) writer.String(text);
  GuardedBuffer buffer(writer.bytes());
  ByteReader reader(buffer.data(), buffer.size());
  for (const std::string& text : texts) EXPECT_EQ(reader.String(text.size()), text);
  EXPECT_TRUE(reader.ok());
  EXPECT_TRUE(reader.AtEnd());
}

TEST(TraceCodec, StringAtItsLimitIsReadAndOneByteOverFails) {
  ByteWriter writer;
  writer.String("12345");
  {
    ByteReader reader(writer.bytes().data(), writer.bytes().size());
    EXPECT_EQ(reader.String(5), "12345");
    EXPECT_TRUE(reader.ok());
  }
  {
    ByteReader reader(writer.bytes().data(), writer.bytes().size());
    EXPECT_EQ(reader.String(4), "");
    EXPECT_FALSE(reader.ok());
  }
  {
    ByteReader reader(writer.bytes().data(), writer.bytes().size());
    EXPECT_EQ(reader.String(0), "");
    EXPECT_FALSE(reader.ok());
  }
}

TEST(TraceCodec, StringLongerThanWhatRemainsFailsWithoutReadingIt) {
  ByteWriter writer;
  writer.String("hello, world");
  const std::string& bytes = writer.bytes();
  // Every cut of the string's bytes: the length says more than remains.
  for (size_t length = 0; length < bytes.size(); ++length) {
    GuardedBuffer buffer(bytes.substr(0, length));
    ByteReader reader(buffer.data(), buffer.size());
    EXPECT_EQ(reader.String(1000), "") << length;
    EXPECT_FALSE(reader.ok()) << length;
  }
}

TEST(TraceCodec, HugeStringLengthFailsWithoutAllocating) {
  // A length of 2^63 or 2^64-1 with a generous limit: refused because it exceeds what remains
  // (an attempt to allocate it would throw or crash).
  for (uint64_t length : {uint64_t{1} << 40, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()}) {
    ByteWriter writer;
    writer.Varint(length);
    writer.Raw("abc", 3);
    GuardedBuffer buffer(writer.bytes());
    ByteReader reader(buffer.data(), buffer.size());
    EXPECT_EQ(reader.String(std::numeric_limits<size_t>::max()), "");
    EXPECT_FALSE(reader.ok());
  }
}

TEST(TraceCodec, BytesNeverPassTheEnd) {
  const std::string bytes = "0123456789";
  GuardedBuffer buffer(bytes);
  ByteReader reader(buffer.data(), buffer.size());
  EXPECT_EQ(reader.Bytes(4), "0123");
  EXPECT_EQ(reader.Remaining(), 6u);
  EXPECT_EQ(reader.Bytes(6), "456789");
  EXPECT_TRUE(reader.AtEnd());
  EXPECT_TRUE(reader.ok());
  EXPECT_TRUE(reader.Bytes(0).empty());
  EXPECT_TRUE(reader.ok());
  EXPECT_TRUE(reader.Bytes(1).empty());
  EXPECT_FALSE(reader.ok());

  ByteReader huge(buffer.data(), buffer.size());
  EXPECT_TRUE(huge.Bytes(std::numeric_limits<size_t>::max()).empty());
  EXPECT_FALSE(huge.ok());
  EXPECT_EQ(huge.Position(), 0u);
}

TEST(TraceCodec, MixedSequenceRoundTrips) {
  ByteWriter writer;
  writer.U8(0);
  writer.U8(255);
  writer.Varint(std::numeric_limits<uint64_t>::max());
  writer.Signed(std::numeric_limits<int64_t>::min());
  writer.String("\xe2\x96\xb6 runs");
  writer.Raw("\x01\x02", 2);
  writer.Signed(-1);
  GuardedBuffer buffer(writer.bytes());
  ByteReader reader(buffer.data(), buffer.size());
  EXPECT_EQ(reader.U8(), 0u);
  EXPECT_EQ(reader.U8(), 255u);
  EXPECT_EQ(reader.Varint(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(reader.Signed(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(reader.String(64), "\xe2\x96\xb6 runs");
  EXPECT_EQ(reader.Bytes(2), "\x01\x02");
  EXPECT_EQ(reader.Signed(), -1);
  EXPECT_TRUE(reader.ok());
  EXPECT_TRUE(reader.AtEnd());
  // One more read: fails, position unchanged.
  EXPECT_EQ(reader.U8(), 0u);
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.Position(), writer.bytes().size());
}

TEST(TraceCodec, Fnv1a64KnownValues) {
  // The published FNV-1a 64 test vectors.
  EXPECT_EQ(Fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar", 6), 0x85944171f73967e8ull);
  // Incremental hashing equals hashing the whole.
  EXPECT_EQ(Fnv1a64("bar", 3, Fnv1a64("foo", 3)), Fnv1a64("foobar", 6));
}

}  // namespace
}  // namespace chess::trace
