// ByteWriter and ByteReader: plain binary messages between chess-trace processes running the
// same binary (the workers of -j): values as they lie in memory, texts and lists with their
// sizes first. A reader that runs past the end, or finds a size larger than what is left, is no
// longer Whole() and yields empty values from then on.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chess::search {

class ByteWriter {
 public:
  template <typename T>
  void Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof value);
    std::memcpy(bytes_.data() + at, &value, sizeof value);
  }
  void Text(const std::string& text) {
    Put<uint64_t>(text.size());
    bytes_ += text;
  }
  template <typename T, typename F>
  void List(const std::vector<T>& items, F each) {
    Put<uint64_t>(items.size());
    for (const T& item : items) each(*this, item);
  }
  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value{};
    if (!Need(sizeof value)) return value;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string Text() {
    const uint64_t size = Get<uint64_t>();
    if (!Need(size)) return {};
    std::string text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }
  template <typename T, typename F>
  std::vector<T> List(F each) {
    const uint64_t size = Get<uint64_t>();
    std::vector<T> items;
    // Every item takes at least a byte: a count beyond what is left is damage, not a list.
    if (!Need(0) || size > bytes_.size() - at_) {
      ok_ = false;
      return items;
    }
    items.reserve(size);
    for (uint64_t i = 0; i < size && ok_; ++i) items.push_back(each(*this));
    return items;
  }
  bool Whole() const { return ok_ && at_ == bytes_.size(); }

 private:
  bool Need(uint64_t size) {
    if (!ok_ || size > bytes_.size() - at_) ok_ = false;
    return ok_;
  }
  const std::string& bytes_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace chess::search
