// Hand-made record streams inside a valid container (correct zstd frame, length and checksum),
// for the tests of the record decoder: damage a checksum cannot catch because the file was
// written that way. Shared by trace_records_test.cc and trace_race_sites_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/trace_test_support.h"
#include "trace/codec.h"
#include "trace/compression.h"
#include "trace/container.h"
#include "trace/trace_reader.h"

namespace chess::trace::record_streams {

inline constexpr const char* kVersion = "0.1.0-test";

// A whole trace file around `stream`: header, one zstd frame, trailer with its length and hash.
inline std::string Container(const std::string& stream, uint16_t format_version = kFormatVersion) {
  std::string file = ContainerHeader(kVersion, format_version);
  const int fd = memfd_create("frame", MFD_CLOEXEC);
  EXPECT_GE(fd, 0);
  {
    ZstdFrameWriter frame;
    EXPECT_TRUE(frame.Open(fd).ok());
    EXPECT_TRUE(frame.Write(stream).ok());
    EXPECT_TRUE(frame.Finish().ok());
  }
  const off_t size = lseek(fd, 0, SEEK_END);
  std::string compressed(static_cast<size_t>(size), '\0');
  EXPECT_EQ(pread(fd, compressed.data(), compressed.size(), 0), size);
  close(fd);
  file += compressed;
  return file + ContainerTrailer(stream.size(), Fnv1a64(file.data(), file.size()), format_version);
}

// An options record's payload, in the first layout (no sync points byte): the strategy, seed 1,
// `has_epoch`, and zeros.
inline ByteWriter OptionsPayload(const std::string& strategy, uint8_t has_epoch = 0) {
  ByteWriter w;
  w.String(strategy);
  w.Varint(1);
  w.U8(has_epoch);
  w.Signed(0);
  w.Varint(0);
  w.Varint(0);
  w.U8(0);
  w.Varint(0);
  return w;
}

// Builds a record stream: typed records, then (unless told otherwise) the end record.
class Stream {
 public:
  Stream& Record(uint8_t type, const std::string& payload) {
    out_.U8(type);
    out_.Varint(payload.size());
    out_.Raw(payload.data(), payload.size());
    ++records_;
    return *this;
  }
  Stream& Record(RecordType type, const ByteWriter& payload) { return Record(static_cast<uint8_t>(type), payload.bytes()); }

  Stream& Command(std::vector<std::string> argv = {"prog"}) {
    ByteWriter w;
    w.String("/bin/prog");
    w.Varint(argv.size());
    for (const auto& arg : argv) w.String(arg);
    w.String("/");
    w.Varint(1);
    w.String("A=b");
    return Record(RecordType::kCommand, w);
  }
  Stream& Options() {
    ByteWriter w;
    w.String("non-preemptive");
    w.Varint(1);
    w.U8(0);
    w.Signed(0);
    w.Varint(0);
    w.Varint(10'000'000);
    w.U8(0);
    w.Varint(2);
    return Record(RecordType::kOptions, w);
  }
  // A decision of `current` (or none) at syscall 24 with index delta `delta`, picking `picked`.
  Stream& Decision(std::optional<uint64_t> current, uint64_t picked, int64_t delta = 0, uint8_t flags_extra = 0,
                   uint8_t op = static_cast<uint8_t>(search::OpKind::kYield)) {
    ByteWriter w;
    w.U8(static_cast<uint8_t>((current ? 1 : 0) | flags_extra));
    w.U8(op);
    if (current) {
      w.Varint(*current);
      w.Signed(24);
      w.Varint(0);
      w.Signed(delta);
    }
    w.Varint(picked);
    return Record(RecordType::kDecision, w);
  }
  Stream& Repeat(uint64_t count) {
    ByteWriter w;
    w.Varint(count);
    return Record(RecordType::kRepeat, w);
  }
  Stream& End() { return EndClaiming(records_); }
  Stream& EndClaiming(uint64_t count) {
    ByteWriter w;
    w.Varint(count);
    return Record(RecordType::kEnd, w);
  }
  Stream& Raw(const std::string& bytes) {
    out_.Raw(bytes.data(), bytes.size());
    return *this;
  }

  const std::string& bytes() const { return out_.bytes(); }

 private:
  ByteWriter out_;
  uint64_t records_ = 0;
};

inline Result<Trace> Parse(const Stream& stream) {
  test_support::GuardedBuffer buffer(Container(stream.bytes()));
  return ParseTrace(buffer.view(), kVersion);
}

// Refused, with a message containing `expected`.
inline void ExpectRefused(const Stream& stream, const std::string& expected) {
  auto trace = Parse(stream);
  ASSERT_FALSE(trace.ok()) << "accepted; expected an error containing '" << expected << "'";
  EXPECT_NE(trace.error().find(expected), std::string::npos) << trace.error();
  EXPECT_NE(trace.error().find("damaged"), std::string::npos) << trace.error();
}

// An atomic-sites record's payload: the cap, the count, then each site's module and address.
inline ByteWriter SitesPayload(uint64_t max_points, uint64_t count,
                        const std::vector<std::pair<std::string, uint64_t>>& sites) {
  ByteWriter w;
  w.Varint(max_points);
  w.Varint(count);
  for (const auto& [module, address] : sites) {
    w.String(module);
    w.Varint(address);
  }
  return w;
}

// The options record with its last flag, atomic points, set.
inline ByteWriter AtomicOptionsPayload() {
  ByteWriter w = OptionsPayload("pb");
  w.U8(1);  // sync points
  w.U8(1);  // atomic points
  return w;
}

// A decision of thread 0 at an atomic instruction.
inline ByteWriter AtomicDecision(uint64_t instruction) {
  ByteWriter w;
  w.U8(1 | 2 | 64);  // a current thread, a write, an instruction
  w.U8(static_cast<uint8_t>(search::OpKind::kAtomic));
  w.Varint(0);
  w.Signed(-1);
  w.Varint(0x404040);
  w.Signed(0);
  w.Varint(instruction);
  w.Varint(1);
  return w;
}

}  // namespace chess::trace::record_streams
