#include "compiler/frontend/lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace ptoc::fe {

namespace {
bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
}  // namespace

bool is_pypto_enum(std::string_view name) {
  // pypto/enum.py: the enum classes PyPTO exports (`pypto.CastMode.CAST_RINT`).
  static const std::string_view kEnums[] = {
      "DataType",  "TileOpFormat", "CachePolicy",    "ReduceMode",    "CastMode",   "OpType",
      "OutType",   "TopKAlgo",     "ReLuType",       "TransMode",     "ScatterMode", "SaturationMode",
      "AtomicRMWMode", "AtomicType", "DequantScaleRoundingMode", "PrecisionType"};
  for (auto e : kEnums)
    if (e == name) return true;
  return false;
}

bool tokenize(std::string_view s, std::vector<Token>& out, SyntaxError& err) {
  out.clear();
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') { ++i; continue; }
    Token t;
    t.off = int(i);
    if (is_name_start(c)) {
      size_t j = i;
      while (j < s.size() && is_name_char(s[j])) ++j;
      // PyPTO's module prefix: `pypto.exp`, `pypto.DT_FP32` and `pypto.Enum.NAME` (`pypto.PrecisionType.INTRINSIC`)
      // are the names without it; the token starts at the name itself.
      if (j - i == 5 && s.substr(i, 5) == "pypto" && j + 1 < s.size() && s[j] == '.' && is_name_start(s[j + 1])) {
        size_t k = j + 1, m = k;
        while (m < s.size() && is_name_char(s[m])) ++m;
        if (m + 1 < s.size() && s[m] == '.' && is_name_start(s[m + 1]) && is_pypto_enum(s.substr(k, m - k))) k = m + 1;
        i = k;
        t.off = int(i);
        j = i;
        while (j < s.size() && is_name_char(s[j])) ++j;
      }
      // ... and `Enum.NAME` without the module (`from pypto import PrecisionType`: `PrecisionType.INTRINSIC`)
      if (is_pypto_enum(s.substr(i, j - i)) && j + 1 < s.size() && s[j] == '.' && is_name_start(s[j + 1])) {
        i = j + 1;
        t.off = int(i);
        j = i;
        while (j < s.size() && is_name_char(s[j])) ++j;
      }
      // PyPTO's `x.shape` (a tensor's extents) and `x.dtype`: one name token "x.shape" (elaborate_tensor_shape.cpp)
      if ((s.substr(j, 6) == ".shape" || s.substr(j, 6) == ".dtype") && (j + 6 == s.size() || !is_name_char(s[j + 6])))
        j += 6;
      t.kind = Token::Kind::Name;
      t.text = std::string(s.substr(i, j - i));
    } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      size_t j = i;
      bool is_float = false;
      while (j < s.size() && is_digit(s[j])) ++j;
      if (j < s.size() && s[j] == '.' && !(j + 1 < s.size() && s[j + 1] == '.')) {
        is_float = true;
        ++j;
        while (j < s.size() && is_digit(s[j])) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && is_digit(s[k])) {
          is_float = true;
          j = k;
          while (j < s.size() && is_digit(s[j])) ++j;
        }
      }
      if (j < s.size() && is_name_start(s[j])) {
        err = {int(i), int(j - i + 1), "malformed number '" + std::string(s.substr(i, j - i + 1)) + "'", {}};
        return false;
      }
      t.kind = Token::Kind::Number;
      t.text = std::string(s.substr(i, j - i));
      t.number = std::strtod(t.text.c_str(), nullptr);
      t.is_int = !is_float;
      if (t.is_int) {
        errno = 0;
        long long v = std::strtoll(t.text.c_str(), nullptr, 10);
        if (errno == ERANGE) {
          err = {int(i), int(j - i), "integer literal '" + t.text + "' is too large", {}};
          return false;
        }
        t.ival = v;
      }
    } else if (c == '"' || c == '\'') {
      // A string literal ("constant" or 'constant'), for the arguments PyPTO spells as strings (modes); no
      // escapes. The parser makes it a quoted name, so `mode="constant"` and `mode=constant` are one thing.
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) ++j;
      if (j >= s.size()) {
        err = {int(i), int(s.size() - i), std::string("string literal not closed: no ") + c + " after it",
               std::string("close it with ") + c};
        return false;
      }
      t.kind = Token::Kind::String;
      t.text = std::string(s.substr(i + 1, j - i - 1));
      t.len = int(j - i + 1);
      i = j + 1;
      out.push_back(std::move(t));
      continue;
    } else {
      // `**` (power), `@` (matmul) and `.` (a method: `x.exp()`) are PyPTO's Python operators.
      static const char* const kOps[] = {"...", "**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "(",
                                         ")",   "[",  "]",  ",",  ":",  "=",  "<",  ">", "@", "."};
      t.kind = Token::Kind::Op;
      for (const char* op : kOps) {
        std::string_view o(op);
        if (s.substr(i, o.size()) == o) {
          t.text = std::string(o);
          break;
        }
      }
      if (t.text.empty()) {
        std::string hint;
        if (c == '&') hint = "conditions use 'and'";
        else if (c == '|') hint = "conditions use 'or'";
        else if (c == '!') hint = "conditions use 'not'";
        err = {int(i), 1, std::string("unexpected character '") + c + "'", hint};
        return false;
      }
    }
    t.len = t.kind == Token::Kind::Op ? int(t.text.size()) : int(t.text.size());
    i += size_t(t.len);
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Token::Kind::End;
  end.off = int(s.size());
  out.push_back(end);
  return true;
}

}  // namespace ptoc::fe
