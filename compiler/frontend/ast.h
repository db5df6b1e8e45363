// Expression AST of statement strings, `if` conditions and dim expressions
// (spec-language.md section 7). Positions are byte offsets into the string
// the expression was parsed from; a PosMap turns them into file positions.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/diag.h"

namespace ptoc::fe {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Arg {
  std::string name;  // keyword name; empty for positional arguments
  int name_off = -1;
  ExprPtr value;
};

struct Slice {
  enum class Kind { Index, Range, Ellipsis } kind = Kind::Range;
  ExprPtr start, stop;  // Range: either may be null (`:`, `a:`, `:b`); Index: start only
  int off = 0, len = 1;
};

struct Expr {
  enum class Kind {
    Number,     // 3, 1.5, 1e-5
    Name,       // x, B, true
    Call,       // name(args)
    Binary,     // lhs op rhs: + - * / // % ** @
    Neg,        // -operand
    List,       // [a, b, ...]
    Subscript,  // base[slices]
    Compare,    // lhs op rhs: == != < <= > >=   (if conditions only)
    BoolOp,     // lhs and/or rhs                (if conditions only)
    Not,        // not operand                   (if conditions only)
  };
  Kind kind = Kind::Number;
  int off = 0, len = 1;  // the whole expression
  double number = 0;
  bool is_int = false;
  int64_t ival = 0;
  std::string name;      // Name, Call: the identifier; a quoted Name: the string's characters
  bool quoted = false;   // Name written as a string literal ("constant"): PyPTO's string arguments
  bool method = false;   // Call written as a method, `x.f(args)`: args[0] is x (PyPTO's Tensor methods)
  std::string op;        // Binary, Compare, BoolOp: the operator spelling
  int op_off = 0;        // Binary, Compare, BoolOp: the operator token; Call: the name; Subscript: '['
  std::vector<ExprPtr> items;  // Binary/Compare/BoolOp: {lhs, rhs}; Neg/Not: {operand}; List: elements; Subscript: {base}
  std::vector<Arg> args;       // Call
  std::vector<Slice> slices;   // Subscript
  int depth = 1;               // levels of the tree from this node down (the parser bounds it: expr_depth)
};

// One statement string `NAME = EXPR` or `NAME[SLICES] = EXPR`.
struct AssignAst {
  std::string target;
  int target_off = 0, target_len = 1;
  bool subscript = false;
  std::vector<Slice> slices;
  // `v, i = topk(x, 8)`: the names after the first, for a call with two results.
  struct Name {
    std::string text;
    int off = 0, len = 1;
  };
  std::vector<Name> more_targets;
  int eq_off = 0;
  ExprPtr value;
};

// A syntax error inside a string: where (offset, length) and what.
struct SyntaxError {
  int off = 0, len = 1;
  std::string message, hint;
};

}  // namespace ptoc::fe
