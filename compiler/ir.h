// The tensor graph: what a spec means, after the front end has checked and
// elaborated it. Ops on whole tensors with symbolic shapes; `if` resolved,
// static loops unrolled, dynamic loops kept as a nest whose bodies are
// root-function templates (one per unroll gear). The reference evaluator and
// the compiler passes both start from here.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "runtime/core/dim_expr.h"
#include "runtime/core/dtype.h"
#include "runtime/program/program_decls.h"

namespace ptoc {

struct CubeTile {
  std::array<int64_t, 2> m{}, n{};  // [L0, L1]
  std::array<int64_t, 3> k{};       // [L0, L1 of A, L1 of B]; two given values mean kB = kA
  bool split_k = false;
  SrcLoc loc;
};

struct VecTile {
  std::vector<int64_t> shape;
  SrcLoc loc;  // the {vec_tile: ...} statement, for "reduce vec_tile on axis 0 at line 9"
};

struct ScopeInfo {
  int64_t id = -1;  // -1: unscoped
  bool parallel_merge = false;
  bool cross_scope_merge = false;
};

enum class OpKind : uint8_t {
  TensorRef,  // the whole GM tensor `tensor` as a value (inputs, outputs, workspaces)
  Full,       // full(shape, value, dtype)
  // binary elementwise (broadcasting); one operand may be a scalar literal
  Add, Sub, Mul, Div, Maximum, Minimum,
  // unary elementwise
  Exp, Log, Sqrt, Rsqrt, Abs, Neg, Reciprocal, Relu, Sigmoid, Tanh, Gelu, Silu,
  // reductions over one axis
  Sum, Amax, Amin, Mean,
  Cast, Matmul, Transpose, Reshape, View, Concat,
  Assemble,   // writes inputs[0] into tensor `tensor` at `offsets`; no result value
  // Added after the first release, at the end so the kinds above keep their
  // numbers (leaf hashes mix them in). compiler/op_table.h says which form each has.
  Pow, Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, BitwiseAnd, BitwiseOr, BitwiseXor,
  Exp2, Log2, Log1p, Expm1, Sin, Cos, Erf, Round, Floor, Ceil, Trunc, Sign, Isfinite, LogicalNot, BitwiseNot,
  Prod, Argmax, Argmin,
  Where,      // where(condition, input, other): inputs {condition (bool), input, other}
  // --- math ops --- (compiler/ops_math.cpp: their scalar meaning)
  Acos, Asin, Atan, Acosh, Asinh, Atanh, Sinh, Cosh, Tan, Cbrt, Erfc, Signbit,
  Atan2, Fmod, Remainder, FloorDiv, CeilDiv, Gcd, BitwiseLeftShift, BitwiseRightShift,
  // --- random ops --- (compiler/ops_random.h) uniform / normal: inputs {the int32 flat element index},
  // axes {key lo, key hi, counter lo, counter hi}, dtype the output's
  Uniform, Normal,
  // --- pack / unpack --- (compiler/frontend/elaborate_pack.cpp) the input's bytes reinterpreted as `dtype`:
  // same rank and leading axes, the last axis scaled by sizeof(input) / sizeof(dtype)
  Bitcast,
  // --- sort --- (compiler/frontend/elaborate_catalog.cpp: topk, argsort) the first `shape.back()` entries
  // of a sort of each row along the last axis (its valid part), axes {last axis, largest (1) or
  // smallest (0) first, index base (column j reports base + j)}: values (SortValues, the input's dtype) or int32 indices (SortIndices); inputs
  // {x} or {x, carried int32 indices} (a merge of per-tile candidates: those are the tie-break and the
  // indices returned, a negative one a pad). Order: NaN above every number, equal values by the lower
  // index. Rows with fewer candidates are padded: lowest (highest) value, index -1. compiler/eval/eval_sort.h.
  SortValues, SortIndices,
};

// Spelling, form and dtype rules of each kind: compiler/op_table.h (the one list).
std::string_view op_kind_name(OpKind k);  // spec spelling: "add", "exp", "matmul", "view", ...
bool is_binary(OpKind k);
bool is_unary(OpKind k);
bool is_reduction(OpKind k);
// Ops that move data and need a vec_tile: elementwise, where, reductions, cast, transpose, concat, full.
bool is_vector_op(OpKind k);
// The scalar meaning of a unary elementwise op, in double (gelu is the tanh form); shared by the
// evaluator and the front end's constant folding. Throws std::logic_error for a non-unary kind.
double scalar_unary(OpKind k, double x);
// --- math ops --- The scalar meaning of the math binary ops (atan2 fmod remainder
// floor_div ceil_div gcd bitwise_left_shift bitwise_right_shift), shared by the evaluator and the front
// end's constant folding: integers (`integer`) exact in int64 (x // 0, x % 0 and ceil_div(x, 0) are 0,
// shifts as NumPy), floats in double except floor_div / ceil_div, which round the quotient to fp32 as the
// tile library does. nullopt for any other kind.
std::optional<double> scalar_binary_math(OpKind k, double a, double b, bool integer);

struct Value {
  int id = -1;
  std::string name;             // the spec name it was bound to ("" for temporaries)
  DType dtype = DType::fp32;
  std::vector<DimExpr> shape;
  std::vector<DimExpr> valid;   // valid shape (== shape unless a view/slice clipped it)
  int def_op = -1;
};

struct Op {
  int id = -1;
  OpKind kind = OpKind::Add;
  std::vector<int> inputs;  // value ids
  int output = -1;          // value id; -1 for Assemble

  // Attributes; which ones apply depends on `kind`.
  int tensor = -1;                  // TensorRef, Assemble: index into Program::tensors
  std::vector<int> axes;            // reductions: {axis}; Transpose: {d0, d1}; Concat: {dim} (non-negative)
  bool keepdim = false;
  DType dtype = DType::fp32;        // Cast target; Matmul out_dtype; Full dtype
  bool trans_a = false, trans_b = false;
  std::optional<double> scalar;     // binary op with a literal operand
  bool scalar_first = false;        // literal is the left operand (`2 - x`)
  double fill = 0;                  // Full value
  std::vector<DimExpr> offsets;     // View / Assemble
  std::vector<DimExpr> shape;       // View window / Reshape target / Full shape
  std::vector<DimExpr> valid;       // View: valid= (empty: computed by clipping to the source)
  bool inplace = false;             // Reshape

  // Tile state in force when the op was written.
  std::optional<VecTile> vec_tile;
  std::optional<CubeTile> cube_tile;
  ScopeInfo scope;
  std::string label;
  SrcLoc loc;     // the operator token inside the statement string
  int stmt = -1;  // index of the source statement (for grouping in printouts)
};

// A root-function template: the body of one dynamic-loop path (one unroll
// gear), or a run of top-level statements outside loops.
struct RootTemplate {
  int index = -1;                  // the function magic shown as func{index}_{order}
  std::string name;                // e.g. "LOOP_B_k4" or "top_0"
  std::vector<int> ops;            // op ids in program order
  std::vector<std::string> loop_vars;  // enclosing dynamic loop variables, outermost first
  int64_t factor = 1;              // the gear's unroll factor (1 when not unrolled)
};

struct Program {
  std::string file, name, doc, target = "ascend910b1";
  std::vector<DimDecl> dims;
  std::vector<TensorDecl> tensors;  // inputs, then outputs, then workspaces, each in spec order
  Options options;
  std::vector<Value> values;
  std::vector<Op> ops;
  std::vector<RootTemplate> roots;
  std::vector<LoopNode> body;       // top level: Root nodes and Loop nodes in program order

  int find_tensor(const std::string& name) const;  // -1 if absent
  const DimDecl* find_dim(const std::string& name) const;
};

// Stable text form (`ptoc SPEC --emit ir`), pinned by golden tests.
std::string print_ir(const Program& p);

}  // namespace ptoc
