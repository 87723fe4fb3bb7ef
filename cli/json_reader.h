// JsonValue: a minimal JSON reader for the reports chess-trace writes and reads back (`test` reads
// each test's explore report). RFC 8259: objects keep their order, numbers are doubles (with the
// integer kept exactly when it is one), strings are UTF-8 with \u escapes (surrogate pairs
// joined). Nesting is limited, so a hostile file cannot overflow the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "search/result.h"

namespace chess::cli {

class JsonValue {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  // The whole of `text`, one value with only whitespace around it; the error gives the offset.
  static Result<JsonValue> Parse(std::string_view text);

  Kind kind() const { return kind_; }
  bool IsNull() const { return kind_ == Kind::kNull; }
  // The member `key` of an object (the first, if repeated); nullptr when absent or not an object.
  const JsonValue* Find(std::string_view key) const;
  const std::vector<JsonValue>& Items() const { return items_; }  // an array's (empty otherwise)
  const std::vector<std::string>& Keys() const { return keys_; }   // an object's, beside Items()

  // The value as that type, or `fallback` when it is another.
  std::string String(std::string fallback = {}) const { return kind_ == Kind::kString ? text_ : fallback; }
  bool Bool(bool fallback = false) const { return kind_ == Kind::kBool ? boolean_ : fallback; }
  double Number(double fallback = 0) const { return kind_ == Kind::kNumber ? number_ : fallback; }
  std::optional<int64_t> Int() const;  // a number that is a whole number in range
  // Convenience: a member's string / int, empty when absent or of another type.
  std::string StringAt(std::string_view key) const;
  std::optional<int64_t> IntAt(std::string_view key) const;

 private:
  friend class JsonParser;
  Kind kind_ = Kind::kNull;
  bool boolean_ = false;
  double number_ = 0;
  std::optional<int64_t> integer_;
  std::string text_;
  std::vector<JsonValue> items_;                      // an array's elements, an object's values
  std::vector<std::string> keys_;                     // an object's keys, beside items_
};

}  // namespace chess::cli
