// Tokens of statement strings (spec-language.md section 7).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "compiler/frontend/ast.h"

namespace ptoc::fe {

struct Token {
  enum class Kind { Number, Name, Op, End, String };
  Kind kind = Kind::End;
  std::string text;  // Op: the spelling ("+", "//", "<=", "...", "(", ...); String: the characters between the quotes
  int off = 0, len = 0;
  double number = 0;
  bool is_int = false;
  int64_t ival = 0;
};

// Splits `s` into tokens ending with an End token; a character that starts no
// token is a SyntaxError pointing at it.
bool tokenize(std::string_view s, std::vector<Token>& out, SyntaxError& err);
// Whether `name` is one of PyPTO's enum classes (`pypto.PrecisionType.INTRINSIC` is `INTRINSIC`).
bool is_pypto_enum(std::string_view name);

}  // namespace ptoc::fe
