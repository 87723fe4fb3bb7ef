// The byte-level encoding of records: unsigned LEB128 varints, zigzag for signed values,
// length-prefixed strings. ByteReader never reads past its end: every read can fail, and the
// first failure sticks, so a decoder checks once per record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace chess::trace {

class ByteWriter {
 public:
  void U8(uint8_t value) { bytes_.push_back(static_cast<char>(value)); }
  void Varint(uint64_t value);
  void Signed(int64_t value) { Varint((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63)); }
  void String(std::string_view text);
  void Raw(const void* data, size_t size) { bytes_.append(static_cast<const char*>(data), size); }

  const std::string& bytes() const { return bytes_; }
  std::string& bytes() { return bytes_; }
  void Clear() { bytes_.clear(); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  ByteReader(const char* data, size_t size) : data_(data), size_(size) {}

  uint8_t U8();
  uint64_t Varint();
  int64_t Signed() {
    const uint64_t raw = Varint();
    return static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
  }
  // A string no longer than `limit` bytes.
  std::string String(size_t limit);
  // A view of the next `size` bytes.
  std::string_view Bytes(size_t size);

  bool ok() const { return ok_; }
  bool AtEnd() const { return position_ == size_; }
  size_t Remaining() const { return size_ - position_; }
  size_t Position() const { return position_; }
  void Fail() { ok_ = false; }

 private:
  const char* data_;
  size_t size_;
  size_t position_ = 0;
  bool ok_ = true;
};

}  // namespace chess::trace
