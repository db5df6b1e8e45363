// The op table: every op of the spec language declared once, with its
// spelling, call form, parameters, dtype rules and a one-line doc. ir.cpp
// (names and kind predicates), the front end (which functions exist, how
// their arguments bind, the float-only rule), the evaluator (via the kind
// predicates) and the op table of specs/README.md (checked by
// test/frontend/test_op_table.cpp) all read it. PyPTO's catalogue, for the
// "not supported yet" diagnostics and docs/OPERATIONS.md, is listed here too.
#pragma once
#include <optional>
#include <span>
#include <string_view>

#include "compiler/ir.h"

namespace ptoc {

enum class OpForm : uint8_t {
  Internal,   // not a function of the spec language: tensor references, assemble
  Binary,     // f(a, b): elementwise with broadcasting; one operand may be a literal
  Unary,      // f(a)
  Reduce,     // f(a, dim, keepdim=false): over one axis
  Select,     // where(condition, input, other)
  Cast, Matmul, Transpose, Reshape, View, Concat, Full,
  Composite,  // the front end writes it as other ops (clip, var); no op kind of its own
};

// Which operand dtypes an op accepts.
enum class OperandRule : uint8_t {
  Any,      // every dtype
  Float,    // fp32, fp16, bf16 ("needs a floating-point operand")
  Integer,  // int32, int8, uint8 (bitwise ops)
  Numeric,  // every dtype but bool
};

// The result dtype.
enum class ResultRule : uint8_t {
  Operand,    // the (value) operands' dtype
  Bool,       // comparisons, logical ops, isfinite
  Int32,      // argmax, argmin
  Attribute,  // an argument says: cast's dtype, matmul's out_dtype, full's dtype
};

struct OpSpec {
  std::string_view name;        // the spec spelling
  std::optional<OpKind> kind;   // none for Composite
  OpForm form;
  OperandRule operands;
  ResultRule result;
  std::string_view params;      // parameter names, space-separated, in positional order
  int required;                 // how many leading parameters must be given
  std::string_view doc;         // one line, for docs and --help style listings
};

// Every row, in the order of specs/README.md's op table.
std::span<const OpSpec> op_table();
// The row of an op kind (every kind has exactly one).
const OpSpec& op_spec(OpKind k);
// The row of a function name; nullptr if the spec language has no such function.
const OpSpec* find_op(std::string_view name);

// PyPTO's operation catalogue (docs/zh/api/operation/ of hicann/pypto), one
// row per operation: its name and, when ptoc has it (possibly under another
// spelling), ptoc's name; an empty `ptoc` means not supported yet.
struct PyptoOp {
  std::string_view name;
  std::string_view ptoc;
};
std::span<const PyptoOp> pypto_catalogue();
const PyptoOp* find_pypto_op(std::string_view name);

}  // namespace ptoc
