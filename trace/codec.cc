#include "trace/codec.h"

namespace chess::trace {

void ByteWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    bytes_.push_back(static_cast<char>(static_cast<uint8_t>(value) | 0x80));
    value >>= 7;
  }
  bytes_.push_back(static_cast<char>(value));
}

void ByteWriter::String(std::string_view text) {
  Varint(text.size());
  bytes_.append(text);
}

uint8_t ByteReader::U8() {
  if (!ok_ || position_ >= size_) {
    ok_ = false;
    return 0;
  }
  return static_cast<uint8_t>(data_[position_++]);
}

uint64_t ByteReader::Varint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const uint8_t byte = U8();
    if (!ok_) return 0;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      // The tenth byte may only carry the top bit.
      if (shift == 63 && byte > 1) break;
      return value;
    }
  }
  ok_ = false;
  return 0;
}

std::string ByteReader::String(size_t limit) {
  const uint64_t length = Varint();
  if (!ok_ || length > limit || length > Remaining()) {
    ok_ = false;
    return {};
  }
  std::string text(data_ + position_, length);
  position_ += length;
  return text;
}

std::string_view ByteReader::Bytes(size_t size) {
  if (!ok_ || size > Remaining()) {
    ok_ = false;
    return {};
  }
  std::string_view view(data_ + position_, size);
  position_ += size;
  return view;
}

}  // namespace chess::trace
