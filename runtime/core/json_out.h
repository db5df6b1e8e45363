// JsonOut: JSON text byte-identical to nlohmann::json::dump() / dump(indent)
// of the same document, written straight into one string without building the
// DOM (a std::map per object, a heap allocation per key and value). Callers
// write an object's keys in sorted byte order (the order nlohmann's std::map
// keeps), values in document order. ok() is false after a string that is not
// well-formed UTF-8, which dump() would have refused: the caller then falls
// back to the DOM to get the same behaviour. Used for the bundle sections
// (runtime/bundle.cpp) and program.json (graph_emit.cpp).
#pragma once
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/core/dim_expr.h"

namespace ptoc {

class JsonOut {
 public:
  explicit JsonOut(int indent) : indent_(indent) {}

  // An object's keys must come in sorted (byte-wise) order.
  JsonOut& key(std::string_view k) {
    separate();
    put_string(k);
    out_ += indent_ < 0 ? ":" : ": ";
    pending_key_ = true;
    return *this;
  }
  JsonOut& begin_object() { return open('{'); }
  JsonOut& end_object() { return close('}'); }
  JsonOut& begin_array() { return open('['); }
  JsonOut& end_array() { return close(']'); }
  JsonOut& value(std::string_view v) {
    separate();
    put_string(v);
    return *this;
  }
  JsonOut& value(const char* v) { return value(std::string_view(v)); }
  JsonOut& value(const std::string& v) { return value(std::string_view(v)); }
  JsonOut& value(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  template <typename I>
    requires std::is_integral_v<I>
  JsonOut& value(I v) {
    separate();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
    return *this;
  }
  JsonOut& value(const DimExpr& e) { return value(std::string_view(e.str())); }
  template <typename T>
  JsonOut& array(const T& items) {
    begin_array();
    for (const auto& x : items) value(x);
    return end_array();
  }

  // A value rendered elsewhere at this same depth (its text without the separator before it).
  JsonOut& raw_value(std::string_view text) {
    separate();
    out_ += text;
    return *this;
  }
  size_t size() const { return out_.size(); }
  std::string_view text() const { return out_; }

  bool ok() const { return ok_; }
  std::string take() { return std::move(out_); }
  void reserve(size_t n) { out_.reserve(n); }

 private:
  struct Level {
    char close;
    size_t count = 0;
  };

  // Before a value or a key: the comma and (pretty) the newline and indent
  // of an element, except for the value that follows its key.
  void separate() {
    if (pending_key_) {
      pending_key_ = false;
      return;
    }
    if (stack_.empty()) return;
    Level& l = stack_.back();
    if (l.count++ > 0) out_ += ',';
    if (indent_ >= 0) {
      out_ += '\n';
      out_.append(size_t(indent_) * stack_.size(), ' ');
    }
  }
  JsonOut& open(char c) {
    separate();
    out_ += c;
    stack_.push_back({c == '{' ? '}' : ']'});
    return *this;
  }
  JsonOut& close(char c) {
    const size_t n = stack_.back().count;
    stack_.pop_back();
    if (n > 0 && indent_ >= 0) {
      out_ += '\n';
      out_.append(size_t(indent_) * stack_.size(), ' ');
    }
    out_ += c;
    return *this;
  }
  void put_string(std::string_view v) {
    out_ += '"';
    size_t run = 0;  // start of the bytes not yet copied
    for (size_t i = 0; i < v.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(v[i]);
      if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) continue;
      out_.append(v.data() + run, i - run);
      run = i + 1;
      switch (c) {
        case '"': out_ += "\\\""; continue;
        case '\\': out_ += "\\\\"; continue;
        case '\b': out_ += "\\b"; continue;
        case '\f': out_ += "\\f"; continue;
        case '\n': out_ += "\\n"; continue;
        case '\r': out_ += "\\r"; continue;
        case '\t': out_ += "\\t"; continue;
        default: break;
      }
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
        out_ += buf;
        continue;
      }
      // Non-ASCII: copied as is when it is one well-formed UTF-8 sequence.
      const size_t len = utf8_length(v, i);
      if (len == 0) {
        ok_ = false;
        return;
      }
      out_.append(v.data() + i, len);
      i += len - 1;
      run = i + 1;
    }
    out_.append(v.data() + run, v.size() - run);
    out_ += '"';
  }
  // Length of the well-formed UTF-8 sequence at v[i] (Unicode table 3-7), 0 if none.
  static size_t utf8_length(std::string_view v, size_t i) {
    auto at = [&](size_t k) -> int { return i + k < v.size() ? static_cast<unsigned char>(v[i + k]) : -1; };
    const int c = at(0);
    auto cont = [&](size_t k, int lo = 0x80, int hi = 0xBF) { int b = at(k); return b >= lo && b <= hi; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
    if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
    if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
    if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    return 0;
  }

  int indent_;  // -1: compact
  std::string out_;
  std::vector<Level> stack_;
  bool pending_key_ = false;
  bool ok_ = true;
};

}  // namespace ptoc
