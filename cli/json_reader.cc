#include "cli/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace chess::cli {

// How deep arrays and objects may nest.
constexpr int kMaxDepth = 200;

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Result<JsonValue> Document() {
    JsonValue value;
    if (!Value(value, 0)) return Failure();
    SkipSpace();
    if (at_ != text_.size()) {
      error_ = "text after the value";
      return Failure();
    }
    return value;
  }

 private:
  Error Failure() const { return Error{"not JSON at byte " + std::to_string(at_) + ": " + error_}; }

  void SkipSpace() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  bool Literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) {
      error_ = "an unknown word";
      return false;
    }
    at_ += word.size();
    return true;
  }

  bool Value(JsonValue& value, int depth) {
    if (depth > kMaxDepth) {
      error_ = "nested too deeply";
      return false;
    }
    SkipSpace();
    if (at_ >= text_.size()) {
      error_ = "the text ends where a value belongs";
      return false;
    }
    switch (text_[at_]) {
      case 'n': value.kind_ = JsonValue::Kind::kNull; return Literal("null");
      case 't': value.kind_ = JsonValue::Kind::kBool; value.boolean_ = true; return Literal("true");
      case 'f': value.kind_ = JsonValue::Kind::kBool; value.boolean_ = false; return Literal("false");
      case '"': value.kind_ = JsonValue::Kind::kString; return StringBody(value.text_);
      case '[': return Array(value, depth);
      case '{': return Object(value, depth);
      default: return NumberValue(value);
    }
  }

  bool Array(JsonValue& value, int depth) {
    value.kind_ = JsonValue::Kind::kArray;
    ++at_;
    SkipSpace();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return true;
    }
    for (;;) {
      JsonValue item;
      if (!Value(item, depth + 1)) return false;
      value.items_.push_back(std::move(item));
      SkipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return true;
      }
      error_ = "an array without , or ]";
      return false;
    }
  }

  bool Object(JsonValue& value, int depth) {
    value.kind_ = JsonValue::Kind::kObject;
    ++at_;
    SkipSpace();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return true;
    }
    for (;;) {
      SkipSpace();
      std::string key;
      if (at_ >= text_.size() || text_[at_] != '"') {
        error_ = "an object key that is not a string";
        return false;
      }
      if (!StringBody(key)) return false;
      SkipSpace();
      if (at_ >= text_.size() || text_[at_] != ':') {
        error_ = "an object key without :";
        return false;
      }
      ++at_;
      JsonValue member;
      if (!Value(member, depth + 1)) return false;
      value.keys_.push_back(std::move(key));
      value.items_.push_back(std::move(member));
      SkipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return true;
      }
      error_ = "an object without , or }";
      return false;
    }
  }

  bool Hex4(uint32_t& code) {
    if (at_ + 4 > text_.size()) return false;
    code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[at_++];
      code <<= 4;
      if (c >= '0' && c <= '9') code |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') code |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') code |= static_cast<uint32_t>(c - 'A' + 10);
      else return false;
    }
    return true;
  }

  static void AppendUtf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  bool StringBody(std::string& out) {
    ++at_;  // the opening quote
    while (at_ < text_.size()) {
      const char c = text_[at_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        error_ = "a control character in a string";
        return false;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) break;
      const char escape = text_[at_++];
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t code = 0;
          if (!Hex4(code)) {
            error_ = "a bad \\u escape";
            return false;
          }
          // A high surrogate followed by a low one is one character; a lone one is U+FFFD.
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(at_, 2) == "\\u") {
            const size_t back = at_;
            at_ += 2;
            uint32_t low = 0;
            if (Hex4(low) && low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else {
              at_ = back;
              code = 0xFFFD;
            }
          } else if (code >= 0xD800 && code < 0xE000) {
            code = 0xFFFD;
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          error_ = "an unknown escape";
          return false;
      }
    }
    error_ = "a string without its closing quote";
    return false;
  }

  bool NumberValue(JsonValue& value) {
    const size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    const size_t digits = at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
    if (at_ == digits || (text_[digits] == '0' && at_ - digits > 1)) {
      error_ = "not a value";
      return false;
    }
    bool whole = true;
    if (at_ < text_.size() && text_[at_] == '.') {
      whole = false;
      const size_t fraction = ++at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      if (at_ == fraction) {
        error_ = "a number without digits after its point";
        return false;
      }
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      whole = false;
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      const size_t exponent = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      if (at_ == exponent) {
        error_ = "a number without digits in its exponent";
        return false;
      }
    }
    const std::string number(text_.substr(start, at_ - start));
    value.kind_ = JsonValue::Kind::kNumber;
    value.number_ = std::strtod(number.c_str(), nullptr);
    if (whole) {
      int64_t integer = 0;
      const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), integer);
      if (error == std::errc() && end == number.data() + number.size()) value.integer_ = integer;
    }
    return true;
  }

  std::string_view text_;
  size_t at_ = 0;
  std::string error_;
};

Result<JsonValue> JsonValue::Parse(std::string_view text) { return JsonParser(text).Document(); }

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (kind_ != Kind::kObject) return nullptr;
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

std::optional<int64_t> JsonValue::Int() const {
  if (kind_ != Kind::kNumber) return std::nullopt;
  return integer_;
}

std::string JsonValue::StringAt(std::string_view key) const {
  const JsonValue* member = Find(key);
  return member != nullptr ? member->String() : std::string();
}

std::optional<int64_t> JsonValue::IntAt(std::string_view key) const {
  const JsonValue* member = Find(key);
  return member != nullptr ? member->Int() : std::nullopt;
}

}  // namespace chess::cli
