// Function calls of statement strings: the name is looked up in the op table
// (compiler/op_table.h; unknown names get PyPTO-aware diagnostics), the
// arguments bind by the table's parameter list, then one function per op form
// checks the operands and emits the ops.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/frontend/shape_rules.h"
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/fp8_rules.h"
#include "compiler/frontend/int64_rules.h"
#include "compiler/frontend/uint64_rules.h"
#include "compiler/frontend/pypto_keywords.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

namespace {

std::vector<std::string> split_params(std::string_view s) {
  std::vector<std::string> v;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) v.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return v;
}

// The spec language's function names, sorted (the order "did you mean" breaks ties in).
const std::vector<std::string>& function_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& r : op_table())
      if (r.form != OpForm::Internal) v.emplace_back(r.name);
    std::sort(v.begin(), v.end());
    return v;
  }();
  return names;
}

// NumPy / PyTorch spellings a port may bring along: the ptoc op that means
// the same, or "" when neither ptoc nor PyPTO has it (then `why` says what does).
struct ForeignName {
  std::string_view name, ptoc, why;
};
constexpr ForeignName kForeign[] = {
    {"clamp", "clip", ""},          {"power", "pow", ""},        {"greater", "gt", ""},
    {"greater_equal", "ge", ""},    {"less", "lt", ""},          {"less_equal", "le", ""},
    {"equal", "eq", ""},            {"not_equal", "ne", ""},     {"absolute", "abs", ""},
    {"negative", "neg", ""},        {"exponential", "exp", ""},  {"select", "where", ""},
    {"maximum_", "maximum", ""},    {"variance", "var", ""},     {"product", "prod", ""},
    {"sort", "", "PyPTO sorts with argsort and topk: argsort(x, dim) or 'v, i = topk(x, k)'"},
    {"square", "", "write x * x"},
    {"softplus", "", "write log1p(exp(x))"},
};

// A spelling neighbour that means something else: the two names differ by a
// prefix that changes the operation (argmax / amax, cumsum / sum, isnan / nan).
bool differs_in_meaning(std::string_view a, std::string_view b) {
  static const std::string_view kPrefixes[] = {"arg", "cum", "is", "bitwise_", "logical_", "a", "log"};
  for (auto p : kPrefixes) {
    auto strip = [&](std::string_view s) { return s.substr(0, p.size()) == p ? s.substr(p.size()) : s; };
    if ((strip(a) != a) != (strip(b) != b) && edit_distance(strip(a), strip(b)) <= 1) return true;
  }
  return false;
}

}  // namespace


EV Elaborator::unknown_function(const Expr& e) {
  const std::string& fn = e.name;
  const int fo = e.op_off, fl = int(fn.size());
  if (fn == "min" || fn == "max" || fn == "ceil_div") {
    // Scalar folding is allowed; tensors need maximum/minimum.
    std::vector<EV> vals;
    for (const auto& a : e.args) vals.push_back(expr(*a.value));
    for (const auto& v : vals) if (!v.ok()) return EV::poison();
    bool all_scalar = vals.size() == 2;
    for (const auto& v : vals) all_scalar = all_scalar && v.is_scalar();
    if (all_scalar) {
      double x = vals[0].scalar, y = vals[1].scalar;
      bool ints = vals[0].is_int && vals[1].is_int;
      if (fn == "ceil_div") {
        if (!ints || y == 0) {
          err(fo, fl, "ceil_div needs two integers, the second non-zero");
          return EV::poison();
        }
        return EV::number(double(-floor_div_i64(-int64_t(x), int64_t(y))), true);
      }
      return EV::number(fn == "min" ? std::min(x, y) : std::max(x, y), ints);
    }
    err(fo, fl, "'" + fn + "' is a dim function",
        fn == "ceil_div" ? std::string("tensors have no ceil_div")
                         : "for tensors use " + std::string(fn == "min" ? "minimum" : "maximum") + "(a, b)");
    return EV::poison();
  }
  if (fn == "tensor") {
    err(fo, fl, "tensor(shape, dtype) declares a local tensor and is a statement of its own",
        "write 't = tensor([16, 64], fp32)', assemble into it with 't[...] = v', then use 't'");
    return EV::poison();
  }
  if (fn == "is_loop_begin" || fn == "is_loop_end") {
    err(fo, fl, "'" + fn + "' is a condition: use it in {if: \"" + fn + "(j)\", then: [...]}",
        "a tensor expression cannot branch; put the statements in the if's branches");
    return EV::poison();
  }
  // The catalogue's rows that cannot mean anything inside a spec (docs/CATALOGUE.md says why).
  if (fn == "function") {
    err(fo, fl, "'function' is PyPTO's 'with pypto.function(name, *tensors):', a block, not a value",
        "write it as a function statement: '- function: main', 'args: [a, b]' and 'body: [...]' beside it "
        "(or leave it out: the spec's body is that function)");
    return EV::poison();
  }
  if (fn == "get_operation_options") {
    err(fo, fl, "'get_operation_options' returns a Python dict of the options in force; nothing in a spec can read one",
        "the options in force are the ones the spec sets: options: and set_operation_options(...) statements");
    return EV::poison();
  }
  if (const PyptoOp* p = find_pypto_op(fn)) {
    std::string hint = p->ptoc.empty() ? "docs/OPERATIONS.md lists PyPTO's operations and which ptoc supports"
                                       : "in ptoc write it as " + std::string(p->ptoc);
    err(fo, fl, "'" + fn + "' is a PyPTO operation that ptoc does not support yet", hint);
    return EV::poison();
  }
  for (const auto& f : kForeign) {
    if (f.name != fn) continue;
    if (!f.ptoc.empty()) {
      err(fo, fl, "unknown function '" + fn + "'", "did you mean '" + std::string(f.ptoc) + "'? (PyPTO's name)");
    } else {
      err(fo, fl, "'" + fn + "' is not an operation of ptoc or PyPTO", std::string(f.why));
    }
    return EV::poison();
  }
  std::string best = closest(fn, function_names());
  std::string hint = best.empty() || differs_in_meaning(fn, best) ? "" : "did you mean '" + best + "'?";
  err(fo, fl, "unknown function '" + fn + "'", hint);
  return EV::poison();
}

EV Elaborator::call(const Expr& e) {
  if (e.name == "index_select") return call_index_select(e);  // lowered to views (elaborate_index.cpp)
  if (e.name == "float") return float_call(e);  // float("-inf") (elaborate_pypto_spellings.cpp)
  if (e.name == "full")
    if (auto v = full_valid_shape(e)) return *v;  // full(..., valid_shape=) (elaborate_pypto_spellings.cpp)
  const OpSpec* spec = find_op(e.name);
  if (!spec) {
    tuple_target_ = false;
    return unknown_function(e);
  }
  // PyPTO's zeros(*size, dtype=None) / ones: variadic sizes do not bind by the parameter list.
  if (spec->form == OpForm::Composite && (e.name == "zeros" || e.name == "ones")) return call_zeros_ones(e, *spec);
  // A call written as an operator (`a @ b`) is located at the operator token, a call at its name.
  Call c{e, *spec, e.name, e.op_off, int(e.op.empty() ? e.name.size() : e.op.size()), split_params(spec->params), {}};
  c.two_targets = tuple_target_;
  tuple_target_ = false;  // arguments are single values
  const std::string& fn = c.fn;
  c.args.assign(c.names.size(), nullptr);
  size_t positional = 0;
  bool bad = false;
  for (const auto& a : e.args) {
    if (a.name.empty()) {
      if (positional >= c.names.size()) {
        err(a.value->off, a.value->len, "too many arguments to '" + fn + "' (it takes " +
                                            std::to_string(c.names.size()) + ")");
        bad = true;
        break;
      }
      c.args[positional++] = a.value.get();
      continue;
    }
    size_t k = 0;
    while (k < c.names.size() && c.names[k] != a.name) ++k;
    if (k == c.names.size()) {  // PyPTO's spelling of the keyword (pypto_keywords.cpp)
      const std::string alias = pypto_keyword_alias(fn, a.name);
      k = 0;
      while (!alias.empty() && k < c.names.size() && c.names[k] != alias) ++k;
      if (alias.empty()) k = c.names.size();
    }
    if (k == c.names.size()) {
      std::string hint = did_you_mean(a.name, c.names);
      if (hint.empty()) {
        hint = fn + " takes";
        for (size_t i = 0; i < c.names.size(); ++i) hint += (i ? ", " : " ") + c.names[i];
      }
      err(a.name_off, int(a.name.size()), "unknown argument '" + a.name + "' to '" + fn + "'", hint);
      bad = true;
      continue;
    }
    if (c.args[k]) {
      err(a.name_off, int(a.name.size()), "argument '" + a.name + "' of '" + fn + "' given twice");
      bad = true;
      continue;
    }
    c.args[k] = a.value.get();
  }
  if (bad) return EV::poison();
  for (size_t k = 0; k < size_t(spec->required); ++k)
    if (!c.args[k]) {
      std::string sig;
      for (size_t i = 0; i < c.names.size(); ++i) { if (i) sig += ", "; sig += c.names[i]; }
      err(e.op_off, e.len, "'" + fn + "' is missing its argument '" + c.names[k] + "'",
          "signature: " + fn + "(" + sig + ")");
      return EV::poison();
    }

  switch (spec->form) {
    case OpForm::Binary: return call_binary(c);
    case OpForm::Unary: return call_unary(c);
    case OpForm::Reduce: return call_reduce(c);
    case OpForm::Select: return call_select(c);
    case OpForm::Cast: return call_cast(c);
    case OpForm::Matmul: return call_matmul(c);
    case OpForm::Transpose: return call_transpose(c);
    case OpForm::Reshape: return call_reshape(c);
    case OpForm::View: return call_view(c);
    case OpForm::Concat: return call_concat(c);
    case OpForm::Full: return call_full(c);
    case OpForm::Composite: return call_composite(c);
    case OpForm::Internal: break;
  }
  return EV::poison();
}

// --- argument helpers ---------------------------------------------------------

EV Elaborator::tensor_arg(const Call& c, const Expr* x, const std::string& what) {
  EV v = expr(*x);
  if (v.is_scalar()) {
    err(x->off, x->len, "'" + c.fn + "' needs a tensor as " + what + ", got the scalar '" + text_of(*x) + "'");
    return EV::poison();
  }
  return v;
}

std::optional<bool> Elaborator::bool_arg(const Call& c, size_t k, bool dflt) {
  const Expr* x = c.args[k];
  if (!x) return dflt;
  if (x->kind == Expr::Kind::Name && !x->quoted && (x->name == "true" || x->name == "True")) return true;
  if (x->kind == Expr::Kind::Name && !x->quoted && (x->name == "false" || x->name == "False")) return false;
  if (x->kind == Expr::Kind::Number && x->is_int && (x->ival == 0 || x->ival == 1)) return x->ival == 1;
  err(x->off, x->len, "'" + c.fn + "' argument " + c.names[k] + " must be true or false, got '" + text_of(*x) + "'");
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Elaborator::input_vec_tile(const Call& c, const std::string& what, size_t rank,
                                                               const std::string& note, const std::string& rank_hint,
                                                               std::string& where) {
  if (!ts_->vec) {
    if (!ts_->vec_broken)
      err(c.fo, c.fl, "no vec_tile in force for '" + what + "'",
          "add {vec_tile: [...]} with " + std::to_string(rank) + " entr" + (rank == 1 ? "y" : "ies") +
              " (the input's rank, " + note + ") before this statement");
    return std::nullopt;
  }
  const std::vector<int64_t>& tile = ts_->vec->shape;
  where = ts_->vec->loc.valid() ? " (set at line " + std::to_string(ts_->vec->loc.line) + ")" : "";
  if (tile.size() != rank) {
    err(c.fo, c.fl, "'" + what + "' needs a vec_tile of the input's rank " + std::to_string(rank) + " (" + note +
                        "), the one in force is " + ints_str(tile) + where,
        rank_hint);
    return std::nullopt;
  }
  return tile;
}

int Elaborator::emit_bitcast(int value, DType dst, Shape shape, Shape valid, const std::vector<int64_t>& tile,
                             int loc_off, int loc_len) {
  Op op;
  op.kind = OpKind::Bitcast;
  op.inputs = {value};
  op.dtype = dst;
  const std::optional<VecTile> saved = ts_->vec;
  ts_->vec->shape = tile;
  const int v = emit(op, dst, std::move(shape), std::move(valid), loc_off, loc_len);
  ts_->vec = saved;
  return v;
}

bool Elaborator::multiple_of(const DimExpr& e, int64_t s) const {
  const DimExpr d = simplify(e);
  if (auto k = d.as_const()) return *k % s == 0;
  if (auto it = divisible_.find(d.str()); it != divisible_.end()) return it->second % s == 0;
  return false;
}

std::optional<DType> Elaborator::dtype_arg(const Expr* x, DType dflt) {
  if (!x) return dflt;
  if (is_dtype_attribute(*x)) return dtype_of_name(*x);  // `cast(y, x.dtype)` (elaborate_tensor_shape.cpp)
  if (x->kind == Expr::Kind::Name && !x->quoted && seq_)   // `dtype = x.dtype` bound before
    if (auto it = seq_->frame.dtype_consts.find(x->name); it != seq_->frame.dtype_consts.end()) return it->second;
  std::optional<DType> named;
  if (x->kind == Expr::Kind::Name) named = parse_dtype(x->name);
  if (x->kind == Expr::Kind::Name && !named) named = pypto_dtype_name(x->name);  // PyPTO's DT_FP32 (pypto_keywords.cpp)
  if (named) {
    if (dtype_is_fp8(*named) && !fp8_target_ok(p_.target)) {
      err(x->off, x->len, fp8_target_message(*named, p_.target), std::string(kFp8TargetHint));
      return std::nullopt;
    }
    return *named;
  }
  if (x->kind == Expr::Kind::Name)
    if (std::string why = unsupported_dtype_why(x->name); !why.empty()) {
      err(x->off, x->len, why, "dtypes: fp32 fp16 bf16 int32 int8 uint8 bool int64 int16 uint16 uint32 uint64 fp8e4m3 fp8e5m2 fp8e8m0");
      return std::nullopt;
    }
  std::vector<std::string> names;
  for (DType t : kAllDTypes) names.emplace_back(dtype_name(t));
  std::string hint = x->kind == Expr::Kind::Name ? did_you_mean(x->name, names) : "";
  // the suggestion alone hides the list, and a near name (uint128 -> uint8) is often not the one meant
  const std::string all = "dtypes: fp32 fp16 bf16 int32 int8 uint8 bool int64 int16 uint16 uint32 uint64 fp8e4m3 fp8e5m2 fp8e8m0";
  err(x->off, x->len, "unknown dtype '" + text_of(*x) + "'", hint.empty() ? all : hint + " (" + all + ")");
  return std::nullopt;
}

std::optional<int> Elaborator::axis_arg(const Expr* x, size_t rank, const std::string& what) {
  auto c = const_int(*x, what);
  if (!c) return std::nullopt;
  int64_t ax = *c < 0 ? *c + int64_t(rank) : *c;
  if (ax < 0 || ax >= int64_t(rank)) {
    err(x->off, x->len, what + " " + std::to_string(*c) + " is out of range for a rank-" + std::to_string(rank) +
                            " value (" + std::to_string(-int64_t(rank)) + ".." + std::to_string(rank - 1) + ")");
    return std::nullopt;
  }
  return int(ax);
}

std::optional<Shape> Elaborator::list_arg(const Expr* x, const std::string& what) {
  if (x->kind == Expr::Kind::Name && x->name.size() > 6 && x->name.ends_with(".shape"))
    return shape_list_of(*x);  // `reshape(y, x.shape)`, `full(x.shape, 1.0, fp32)` (elaborate_tensor_shape.cpp)
  if (x->kind != Expr::Kind::List) {
    err(x->off, x->len, what + " must be a list such as [B, 64], got '" + text_of(*x) + "'");
    return std::nullopt;
  }
  Shape s;
  bool ok = true;
  for (const auto& item : x->items) {
    auto d = dim(*item, DimUse::Loop);
    if (!d) { ok = false; continue; }
    DimExpr sd = simplify(*d);
    if (auto c = sd.as_const(); c && *c <= 0) {
      err(item->off, item->len, what + " entries must be positive, got " + std::to_string(*c));
      ok = false;
      continue;
    }
    s.push_back(sd);
  }
  if (!ok) return std::nullopt;
  return s;
}

bool Elaborator::check_operand_dtype(const OpSpec& spec, DType t, const Expr& e, int op_off, int op_len,
                                     const std::string& spelling) {
  const std::string dt(dtype_name(t));
  if (t == DType::int64 && !int64_lowering_ && !int64_operand_ok(spec)) {
    err(op_off, op_len,
        "'" + spelling + "' does not take int64 operands, '" + text_of(e) + "' is int64 (PyPTO allows int64 in " +
            std::string(kInt64Ops) + ", and as the index of gather, index_select, index_add, index_put_, scatter and "
            "scatter_update)",
        "insert cast(" + text_of(e) + ", int32)");
    return false;
  }
  if (dtype_is_fp8(t) && !fp8_operand_ok(spec)) {
    err(op_off, op_len,
        "'" + spelling + "' does not take " + dt + " operands, '" + text_of(e) + "' is " + dt +
            " (the 8-bit floats are storage types: PyPTO computes nothing in them, ptoc takes them only in cast)",
        "insert cast(" + text_of(e) + ", fp32)");
    return false;
  }
  if (t == DType::uint64 && !uint64_operand_ok(spec)) {
    err(op_off, op_len,
        "'" + spelling + "' does not take uint64 operands, '" + text_of(e) + "' is uint64 (ptoc takes uint64 in " +
            std::string(kUint64Ops) + ")",
        "insert cast(" + text_of(e) + ", int32)");
    return false;
  }
  switch (spec.operands) {
    case OperandRule::Any: return true;
    case OperandRule::Float:
      if (dtype_is_float(t)) return true;
      if (spec.form == OpForm::Reduce)
        err(op_off, op_len, "'" + spelling + "' needs a floating-point operand", "insert cast(" + text_of(e) + ", fp32)");
      else
        err(op_off, op_len, "'" + spelling + "' needs a floating-point operand, '" + text_of(e) + "' is " + dt,
            "insert cast(" + text_of(e) + ", fp32)");
      return false;
    case OperandRule::Integer:
      if (dtype_is_int(t) && t != DType::int64) return true;
      err(op_off, op_len, "'" + spelling + "' takes integer operands (int32, int8, uint8, int16, uint16, uint32, uint64), '" + text_of(e) + "' is " + dt,
          "insert cast(" + text_of(e) + ", int32)");
      return false;
    case OperandRule::Numeric:
      if (t != DType::boolean) return true;
      err(op_off, op_len, "'" + spelling + "' does not take bool operands, '" + text_of(e) + "' is bool",
          "insert cast(" + text_of(e) + ", int32)");
      return false;
  }
  return true;
}

// --- forms ---------------------------------------------------------------------

EV Elaborator::call_binary(const Call& c) {
  EV a = expr(*c.args[0]);
  EV b = expr(*c.args[1]);
  if (!check_math_operands(c, a, &b)) return EV::poison();  // --- math ops ---
  return binary(*c.spec.kind, a, b, *c.args[0], *c.args[1], c.fo, c.fl, c.fn);
}

EV Elaborator::call_unary(const Call& c) {
  EV a = expr(*c.args[0]);
  if (!check_math_operands(c, a, nullptr)) return EV::poison();  // --- math ops ---
  if (c.spec.kind != OpKind::Round || c.args.size() < 2 || !c.args[1]) return unary(*c.spec.kind, a, *c.args[0], c.fo, c.fn);
  // round(x, decimals): NumPy's rint(x * 10^d) / 10^d (x / 10^-d, then * 10^-d, for d < 0).
  auto d = const_int(*c.args[1], "decimals");
  if (!d || !a.ok()) return EV::poison();
  if (*d == 0 || (a.is_tensor() && !dtype_is_float(p_.values[size_t(a.value)].dtype)))
    return unary(OpKind::Round, a, *c.args[0], c.fo, c.fn);
  if (*d > 15 || *d < -15) {
    err(c.args[1]->off, c.args[1]->len, "round decimals " + std::to_string(*d) + " is out of range (-15..15)");
    return EV::poison();
  }
  const double p = std::pow(10.0, double(*d > 0 ? *d : -*d));
  const Expr& x = *c.args[0];
  EV t = binary(*d > 0 ? OpKind::Mul : OpKind::Div, a, EV::number(p, true), x, *c.args[1], c.fo, c.fl, c.fn);
  EV r = unary(OpKind::Round, t, x, c.fo, c.fn);
  return binary(*d > 0 ? OpKind::Div : OpKind::Mul, r, EV::number(p, true), x, *c.args[1], c.fo, c.fl, c.fn);
}

// where(condition, input, other): a literal operand becomes a full() of
// extent 1 on every axis, which broadcasts like any size-1 operand.
EV Elaborator::call_select(const Call& c) {
  const auto& args = c.args;
  EV cond = tensor_arg(c, args[0], "its condition");
  EV a = expr(*args[1]);
  EV b = expr(*args[2]);
  if (!cond.ok() || !a.ok() || !b.ok()) return EV::poison();
  for (int k = 0; k < 3; ++k)
    if (!check_nz(k == 0 ? cond : k == 1 ? a : b, *args[size_t(k)], c.fn)) return EV::poison();
  const Value cv = p_.values[size_t(cond.value)];
  if (cv.dtype != DType::boolean) {
    err(args[0]->off, args[0]->len, "the condition of 'where' must be bool, '" + text_of(*args[0]) + "' is " +
                                        std::string(dtype_name(cv.dtype)),
        "compare it to get a bool tensor: " + text_of(*args[0]) + " != 0");
    return EV::poison();
  }
  DType dt = DType::fp32;
  if (a.is_tensor()) dt = p_.values[size_t(a.value)].dtype;
  else if (b.is_tensor()) dt = p_.values[size_t(b.value)].dtype;
  if (a.is_tensor() && b.is_tensor() && p_.values[size_t(b.value)].dtype != dt) {
    DType bt = p_.values[size_t(b.value)].dtype;
    DType to = wider(dt, bt);
    err(c.fo, c.fl,
        "operands of 'where' have different dtypes: " + std::string(dtype_name(dt)) + " and " +
            std::string(dtype_name(bt)) + " (no implicit promotion)",
        "insert cast(" + text_of(dt == to ? *args[2] : *args[1]) + ", " + std::string(dtype_name(to)) + ")");
    return EV::poison();
  }
  size_t rank = cv.shape.size();
  for (const EV* v : {&a, &b})
    if (v->is_tensor()) rank = std::max(rank, p_.values[size_t(v->value)].shape.size());
  auto operand = [&](const EV& v, const Expr& e) -> int {
    if (v.is_tensor()) return v.value;
    if (!dtype_is_float(dt) && !v.is_int && std::isfinite(v.scalar)) {
      err(e.off, e.len, "the literal " + text_of(e) + " is not an integer but the other operand of 'where' is " +
                            std::string(dtype_name(dt)),
          "a scalar literal takes the tensor's dtype; cast the tensor to a float type first");
      return -1;
    }
    Op f;
    f.kind = OpKind::Full;
    f.shape.assign(rank, DimExpr(1));
    f.fill = v.scalar;
    f.dtype = dt;
    return emit(f, dt, f.shape, f.shape, c.fo, c.fl);
  };
  int va = operand(a, *args[1]);
  int vb = operand(b, *args[2]);
  if (va < 0 || vb < 0) return EV::poison();
  Shape sh = cv.shape, valid = cv.valid;
  const Expr* es[] = {args[0], args[1], args[2]};
  int ids[] = {cond.value, va, vb};
  for (int k = 1; k < 3; ++k) {
    const Value& y = p_.values[size_t(ids[k])];
    Broadcast bc = broadcast(sh, valid, y.shape, y.valid);
    if (bc.bad_axis >= 0) {
      err(es[k]->off, es[k]->len, "shape " + shape_str(y.shape) + " of '" + text_of(*es[k]) +
                                      "' does not broadcast with " + shape_str(sh) + " in 'where' (axis " +
                                      std::to_string(bc.bad_axis) + ")",
          "broadcasting needs equal sizes or size 1 on each axis, aligned at the end");
      return EV::poison();
    }
    sh = bc.shape;
    valid = bc.valid;
  }
  Op op;
  op.kind = OpKind::Where;
  op.inputs = {cond.value, va, vb};
  return EV::tensor(emit(op, dt, sh, valid, c.fo, c.fl));
}

// clip(input, min=None, max=None) = minimum(maximum(input, min), max), as
// PyPTO defines it (min > max gives max; a NaN bound gives NaN).
EV Elaborator::call_clip(const Call& c) {
  EV x = tensor_arg(c, c.args[0], "its input");
  if (!x.ok()) return EV::poison();
  if (!check_operand_dtype(c.spec, p_.values[size_t(x.value)].dtype, *c.args[0], c.fo, c.fl, c.fn)) return EV::poison();
  const Expr* lo = c.args[1];
  const Expr* hi = c.args[2];
  if (lo) x = binary(OpKind::Maximum, x, expr(*lo), *c.args[0], *lo, c.fo, c.fl, c.fn);
  if (hi && x.ok()) x = binary(OpKind::Minimum, x, expr(*hi), *c.args[0], *hi, c.fo, c.fl, c.fn);
  return x;
}

// var(input, dim=None, *, correction=1, keepdim=false) = sum((x - mean(x))^2) / (N - correction) over the
// axes of dim (one, a list / tuple, or all when not given, PyPTO's prototype), N the product of their valid
// extents, each static (PyPTO: the axes are not split). PyPTO's examples spell unbiased=False / True
// (torch's): correction 0 / 1; both together is an error. Mean and sum run axis by axis at keepdim shapes.
EV Elaborator::call_var(const Call& c) {
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its input");
  if (!a.ok() || !check_nz(a, *args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (!check_operand_dtype(c.spec, x.dtype, *args[0], c.fo, c.fl, c.fn)) return EV::poison();
  const size_t rank = x.shape.size();
  std::vector<int> axes;
  if (!args[1]) {
    for (size_t i = 0; i < rank; ++i) axes.push_back(int(i));
  } else if (args[1]->kind == Expr::Kind::List) {  // a Python tuple (a, b) parses as a list too
    if (args[1]->items.empty()) {
      err(args[1]->off, args[1]->len, "var over an empty list of axes", "give at least one axis, or leave dim out for all");
      return EV::poison();
    }
    for (const auto& it : args[1]->items) {
      auto ax = axis_arg(it.get(), rank, "dim");
      if (!ax) return EV::poison();
      for (int b : axes)
        if (b == *ax) {
          err(it->off, it->len, "var axis " + std::to_string(*ax) + " given twice", "list each axis once");
          return EV::poison();
        }
      axes.push_back(*ax);
    }
  } else {
    auto ax = axis_arg(args[1], rank, "dim");
    if (!ax) return EV::poison();
    axes.push_back(*ax);
  }
  std::sort(axes.begin(), axes.end());
  auto keep = bool_arg(c, 3, false);
  double corr = 1;
  std::string corr_text = "1";
  if (args[2] && args[4]) {
    err(args[4]->off, args[4]->len, "var takes correction or unbiased, not both",
        "unbiased=False is correction=0, unbiased=True is correction=1: keep one");
    return EV::poison();
  }
  if (args[2]) {
    EV cv = expr(*args[2]);
    if (!cv.ok()) return EV::poison();
    if (!cv.is_scalar()) {
      err(args[2]->off, args[2]->len, "var correction must be a number, got '" + text_of(*args[2]) + "'");
      return EV::poison();
    }
    corr = cv.scalar;
    corr_text = text_of(*args[2]);
  }
  if (args[4]) {
    auto u = bool_arg(c, 4, true);
    if (!u) return EV::poison();
    corr = *u ? 1 : 0;
    corr_text = *u ? "1 (unbiased=True)" : "0 (unbiased=False)";
  }
  if (!keep) return EV::poison();
  int64_t n = 1;
  for (int ax : axes) {
    auto k = x.valid[size_t(ax)].as_const();
    if (!k) {
      err(c.fo, c.fl, "var over axis " + std::to_string(ax) + " needs a static valid extent, '" + text_of(*args[0]) +
                          "' has " + x.valid[size_t(ax)].str(),
          "reduce a whole static axis (PyPTO's var does not split it either)");
      return EV::poison();
    }
    n *= *k;
  }
  if (double(n) - corr <= 0) {
    err(c.fo, c.fl, "var over " + std::to_string(n) + " elements with correction " + corr_text +
                        " divides by zero or less");
    return EV::poison();
  }
  auto reduce1 = [&](OpKind k, int v, int ax) {
    const Value& in = p_.values[size_t(v)];
    Op op;
    op.kind = k;
    op.inputs = {v};
    op.axes = {ax};
    op.keepdim = true;
    Shape sh = in.shape, va = in.valid;
    sh[size_t(ax)] = DimExpr(1);
    va[size_t(ax)] = DimExpr(1);
    return EV::tensor(emit(op, in.dtype, sh, va, c.fo, c.fl));
  };
  auto reduce = [&](OpKind k, EV v) {
    for (int ax : axes) {
      if (!v.ok()) return v;
      v = reduce1(k, v.value, ax);
    }
    return v;
  };
  const Expr& e = *args[0];
  EV m = reduce(OpKind::Mean, a);  // equal valid counts per axis: the mean of means is the mean
  if (!m.ok()) return EV::poison();
  EV d = binary(OpKind::Sub, a, m, e, e, c.fo, c.fl, c.fn);
  if (!d.ok()) return EV::poison();
  EV sq = binary(OpKind::Mul, d, d, e, e, c.fo, c.fl, c.fn);
  if (!sq.ok()) return EV::poison();
  // The division runs at the keepdim shape (the tile in force is the input's rank), then the axes go.
  EV s = reduce(OpKind::Sum, sq);
  if (!s.ok()) return EV::poison();
  EV q = binary(OpKind::Div, s, EV::number(double(n) - corr, false), e, e, c.fo, c.fl, c.fn);
  if (!q.ok() || *keep) return q;
  const Value& qv = p_.values[size_t(q.value)];
  Shape sh, va;
  for (size_t i = 0; i < qv.shape.size(); ++i)
    if (std::find(axes.begin(), axes.end(), int(i)) == axes.end()) { sh.push_back(qv.shape[i]); va.push_back(qv.valid[i]); }
  if (sh.empty()) { sh.push_back(DimExpr(1)); va.push_back(DimExpr(1)); }
  return EV::tensor(reshape_to(q.value, sh, va, c.fo));
}

EV Elaborator::call_reduce(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its first argument");
  if (!a.ok()) return EV::poison();
  if (!check_nz(a, *args[0], fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  auto ax = axis_arg(args[1], x.shape.size(), "dim");
  auto keep = bool_arg(c, 2, false);
  if (!ax || !keep) return EV::poison();
  if (!check_operand_dtype(c.spec, x.dtype, *args[0], fo, fl, fn)) return EV::poison();
  Op op;
  op.kind = *c.spec.kind;
  op.inputs = {a.value};
  op.axes = {*ax};
  op.keepdim = *keep;
  Shape sh, va;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (int(i) == *ax) {
      if (*keep) { sh.push_back(DimExpr(1)); va.push_back(DimExpr(1)); }
      continue;
    }
    sh.push_back(x.shape[i]);
    va.push_back(x.valid[i]);
  }
  if (sh.empty()) {  // reducing a rank-1 value leaves one element
    sh.push_back(DimExpr(1));
    va.push_back(DimExpr(1));
  }
  return EV::tensor(emit(op, c.spec.result == ResultRule::Int32 ? DType::int32 : x.dtype, sh, va, fo, fl));
}

EV Elaborator::call_cast(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its first argument");
  auto dt = dtype_arg(args[1], DType::fp32);
  if (!a.ok() || !dt) return EV::poison();
  if (!check_nz(a, *args[0], fn)) return EV::poison();
  if (args[2] || args[3]) return cast_with_modes(c, a, *dt);  // elaborate_quant.cpp
  if (dtype_is_fp8(*dt) || dtype_is_fp8(p_.values[size_t(a.value)].dtype))
    return fp8_cast(a, *dt, -1, *args[0], fo, fl);  // elaborate_quant.cpp
  const Value x = p_.values[size_t(a.value)];
  Op op;
  op.kind = OpKind::Cast;
  op.inputs = {a.value};
  op.dtype = *dt;
  return EV::tensor(emit(op, *dt, x.shape, x.valid, fo, fl));
}

EV Elaborator::call_matmul(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its left operand");
  EV b = tensor_arg(c, args[1], "its right operand");
  if (!a.ok() || !b.ok()) return EV::poison();
  const Value x = p_.values[size_t(a.value)], y = p_.values[size_t(b.value)];
  const bool int8_mm = x.dtype == DType::int8 && y.dtype == DType::int8;
  // int8 x int8 accumulates in int32 and gives int32 (PyPTO's DT_INT32), the default out_dtype then.
  auto od = dtype_arg(args[2], int8_mm ? DType::int32 : DType::fp32);
  auto ta = bool_arg(c, 3, false), tb = bool_arg(c, 4, false);
  if (!od || !ta || !tb) return EV::poison();
  for (const auto* v : {&x, &y})
    if (v->dtype != DType::fp16 && v->dtype != DType::bf16 && v->dtype != DType::fp32 && v->dtype != DType::int8) {
      err(fo, fl, "matmul takes fp16, bf16, fp32 or int8 operands, got " + std::string(dtype_name(v->dtype)),
          v->dtype == DType::uint8 ? "the cube multiplies signed int8; cast to int8 or to fp16" : "");
      return EV::poison();
    }
  if (x.dtype != y.dtype) {
    DType to = wider(x.dtype, y.dtype);
    err(fo, fl, "matmul operands have different dtypes: " + std::string(dtype_name(x.dtype)) + " and " +
                    std::string(dtype_name(y.dtype)),
        "insert cast(" + text_of(x.dtype == to ? *args[1] : *args[0]) + ", " + std::string(dtype_name(to)) + ")");
    return EV::poison();
  }
  // PyPTO's extend_params, written as its keys (as conv's): scale= (per-tensor dequant in the fixpipe, int8
  // operands to fp16) and relu_type= (RELU / NO_RELU after it).
  const Expr* scale_e = args.size() > 5 ? args[5] : nullptr;
  const Expr* relu_e = args.size() > 6 ? args[6] : nullptr;
  if (scale_e && !int8_mm) {
    err(scale_e->off, scale_e->len, "matmul's scale= dequantizes an int8 x int8 product; the operands are " +
                                        std::string(dtype_name(x.dtype)),
        "drop scale=, or multiply the result");
    return EV::poison();
  }
  if (int8_mm && scale_e && *od != DType::fp16) {
    err(args[2]->off, args[2]->len, "an int8 matmul with scale= gives fp16 (PyPTO's dequant table: int8 x int8 -> fp16)",
        "write out_dtype=fp16");
    return EV::poison();
  }
  if (int8_mm && !scale_e && *od != DType::int32) {
    err(args[2]->off, args[2]->len, "an int8 matmul gives int32 (exact int32 accumulation); out_dtype must be int32",
        *od == DType::fp16 ? "for fp16, give the fixpipe's dequant scale: scale=0.5 (PyPTO: extend_params={'scale': 0.5})"
                           : "write out_dtype=int32, then cast or dequantize the result");
    return EV::poison();
  }
  std::optional<double> scale;
  if (scale_e) {
    scale = scale_e->kind == Expr::Kind::Number && scale_e->is_int ? std::optional<double>(double(scale_e->ival))
                                                                   : const_float_of(*scale_e);
    if (!scale || !std::isfinite(*scale)) {
      err(scale_e->off, scale_e->len, "matmul's scale must be a compile-time number, got '" + text_of(*scale_e) + "'",
          "PyPTO's per-tensor scale is a Python float: scale=1 / 2048.0; a per-channel scale_tensor is not supported");
      return EV::poison();
    }
  }
  if (scale_e && ts_->cube && ts_->cube->split_k) {
    err(scale_e->off, scale_e->len, "matmul's scale= cannot combine with split_k (PyPTO: no multi-core k split with scale)",
        "drop split_k from the cube_tile for this matmul");
    return EV::poison();
  }
  bool relu = false;
  if (relu_e) {
    if (relu_e->kind != Expr::Kind::Name || (relu_e->name != "RELU" && relu_e->name != "NO_RELU")) {
      err(relu_e->off, relu_e->len, "matmul's relu_type must be RELU or NO_RELU, got '" + text_of(*relu_e) + "'",
          "PyPTO's ReLuType.RELU is written RELU");
      return EV::poison();
    }
    relu = relu_e->name == "RELU";
    if (!scale_e) {
      err(relu_e->off, relu_e->len, "matmul's relu_type applies in the fixpipe after scale= here",
          "give scale= too, or apply relu(...) to the result");
      return EV::poison();
    }
  }
  if (!int8_mm && !dtype_is_float(*od)) {
    err(args[2]->off, args[2]->len, "matmul out_dtype must be fp32, fp16 or bf16");
    return EV::poison();
  }
  size_t ra = x.shape.size(), rb = y.shape.size();
  if (!((ra == 2 && rb == 2) || (ra == 3 && rb == 3))) {
    err(fo, fl, "matmul takes [M, K] x [K, N] or [G, M, K] x [G, K, N]; got ranks " + std::to_string(ra) +
                    " and " + std::to_string(rb));
    return EV::poison();
  }
  size_t o = ra - 2;
  size_t am = o + (*ta ? 1 : 0), ak = o + (*ta ? 0 : 1);
  size_t bk = o + (*tb ? 1 : 0), bn = o + (*tb ? 0 : 1);
  if (!provably_equal(x.shape[ak], y.shape[bk])) {
    err(fo, fl, "matmul inner dimensions differ: " + x.shape[ak].str() + " (" + text_of(*args[0]) + ") vs " +
                    y.shape[bk].str() + " (" + text_of(*args[1]) + ")",
        "shapes are " + shape_str(x.shape) + " and " + shape_str(y.shape) + "; use trans_a/trans_b for transposed operands");
    return EV::poison();
  }
  // The batch axis G broadcasts: an operand of batch extent 1 serves every batch of the other.
  auto is_one = [](const DimExpr& e) { return e.as_const() == std::optional<int64_t>(1); };
  const bool gx1 = o == 1 && is_one(x.shape[0]) && !is_one(y.shape[0]);
  const bool gy1 = o == 1 && is_one(y.shape[0]) && !is_one(x.shape[0]);
  if (o == 1 && !gx1 && !gy1 && !provably_equal(x.shape[0], y.shape[0])) {
    err(fo, fl, "batched matmul batch sizes differ: " + x.shape[0].str() + " (" + text_of(*args[0]) + ") vs " +
                    y.shape[0].str() + " (" + text_of(*args[1]) + ")",
        "the batch axes must be equal, or one of them 1 (it broadcasts)");
    return EV::poison();
  }
  Op op;
  op.kind = OpKind::Matmul;
  op.inputs = {a.value, b.value};
  op.dtype = scale ? DType::int32 : *od;
  op.trans_a = *ta;
  op.trans_b = *tb;
  Shape sh, va;
  if (gx1) { sh.push_back(y.shape[0]); va.push_back(y.valid[0]); }
  else if (gy1) { sh.push_back(x.shape[0]); va.push_back(x.valid[0]); }
  else if (o == 1) { sh.push_back(x.shape[0]); va.push_back(combine_valid(x.valid[0], y.valid[0])); }
  sh.push_back(x.shape[am]);
  va.push_back(x.valid[am]);
  sh.push_back(y.shape[bn]);
  va.push_back(y.valid[bn]);
  if (!scale) return EV::tensor(emit(op, *od, sh, va, fo, fl));
  // The fixpipe's per-tensor dequant of an int32 accumulator (PyPTO's matmul extend_params scale): the scale
  // keeps 1 sign, 8 exponent and 10 mantissa bits (the low 13 fp32 mantissa bits dropped, toward zero), then
  // fp16(relu?(fp32(acc) * scale)), each step rounded to nearest even. Written as cast / mul / relu / cast
  // under a vec_tile of the cube's L0 m x n (the fixpipe works on the L0C tile), so nothing below is new.
  const int acc = emit(op, DType::int32, sh, va, fo, fl);
  float s32 = float(*scale);
  uint32_t bits;
  std::memcpy(&bits, &s32, sizeof bits);
  bits &= ~uint32_t((1u << 13) - 1);
  std::memcpy(&s32, &bits, sizeof bits);
  const Value r = p_.values[size_t(acc)];
  std::optional<VecTile> saved = ts_->vec;
  VecTile l0c;
  l0c.shape.assign(r.shape.size(), 1);
  const auto m = r.shape[r.shape.size() - 2].as_const(), n = r.shape.back().as_const();
  l0c.shape[r.shape.size() - 2] = ts_->cube ? std::min(ts_->cube->m[0], m.value_or(ts_->cube->m[0])) : m.value_or(16);
  l0c.shape.back() = ts_->cube ? std::min(ts_->cube->n[0], n.value_or(ts_->cube->n[0])) : n.value_or(16);
  l0c.loc = ts_->cube ? ts_->cube->loc : SrcLoc{};
  ts_->vec = l0c;
  Op cf;
  cf.kind = OpKind::Cast;
  cf.inputs = {acc};
  cf.dtype = DType::fp32;
  int f = emit(cf, DType::fp32, r.shape, r.valid, c.fo, c.fl);
  EV prod = binary(OpKind::Mul, EV::tensor(f), EV::number(double(s32), false), c.e, c.e, c.fo, c.fl, "matmul scale");
  if (prod.ok() && relu) prod = unary(OpKind::Relu, prod, c.e, c.fo, "matmul relu_type");
  EV out = EV::poison();
  if (prod.ok()) {
    Op ch;
    ch.kind = OpKind::Cast;
    ch.inputs = {prod.value};
    ch.dtype = DType::fp16;
    out = EV::tensor(emit(ch, DType::fp16, r.shape, r.valid, c.fo, c.fl));
  }
  ts_->vec = saved;
  return out;
}

EV Elaborator::call_transpose(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its first argument");
  if (!a.ok() || !check_nz(a, *args[0], fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  auto d0 = axis_arg(args[1], x.shape.size(), "d0");
  auto d1 = axis_arg(args[2], x.shape.size(), "d1");
  if (!d0 || !d1) return EV::poison();
  Shape sh = x.shape, va = x.valid;
  std::swap(sh[size_t(*d0)], sh[size_t(*d1)]);
  std::swap(va[size_t(*d0)], va[size_t(*d1)]);
  Op op;
  op.kind = OpKind::Transpose;
  op.inputs = {a.value};
  op.axes = {*d0, *d1};
  return EV::tensor(emit(op, x.dtype, sh, va, fo, fl));
}

EV Elaborator::call_reshape(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its first argument");
  auto sh = list_arg(args[1], "reshape shape");
  auto inplace = bool_arg(c, 2, false);
  if (!a.ok() || !sh || !inplace) return EV::poison();
  if (!check_nz(a, *args[0], fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (sh->empty() || sh->size() > 4) {
    err(args[1]->off, args[1]->len, "reshape to rank " + std::to_string(sh->size()) + "; ranks 1 to 4 are supported");
    return EV::poison();
  }
  auto diff = const_difference(element_count(x.shape), element_count(*sh));
  if (diff && *diff != 0) {
    err(fo, fl, "reshape changes the element count: " + shape_str(x.shape) + " has " +
                    element_count(x.shape).str() + " elements, " + shape_str(*sh) + " has " +
                    element_count(*sh).str());
    return EV::poison();
  }
  Shape va = *sh;
  if (!fully_valid(x.shape, x.valid)) {
    // As the evaluator does: size-1 axes come and go freely; otherwise only a
    // valid prefix of the leading axis (rows) survives, as whole new rows.
    Shape big_src, big_valid, big_dst;
    for (size_t i = 0; i < x.shape.size(); ++i)
      if (x.shape[i].as_const() != 1) { big_src.push_back(x.shape[i]); big_valid.push_back(x.valid[i]); }
    for (const auto& d : *sh)
      if (d.as_const() != 1) big_dst.push_back(d);
    bool same = big_src.size() == big_dst.size();
    for (size_t i = 0; same && i < big_src.size(); ++i) same = provably_equal(big_src[i], big_dst[i]);
    if (same) {
      size_t j = 0;
      for (size_t i = 0; i < sh->size(); ++i) va[i] = (*sh)[i].as_const() == 1 ? DimExpr(1) : big_valid[j++];
    } else {
      bool prefix = true;
      for (size_t i = 1; i < x.shape.size(); ++i) prefix = prefix && provably_equal(x.shape[i], x.valid[i]);
      DimExpr nvalid = element_count(x.valid);
      DimExpr row = element_count(Shape(sh->begin() + 1, sh->end()));
      if (!prefix || !provably_equal(simplify(mod(nvalid, row)), DimExpr(0))) {
        err(fo, fl, "reshape of a partially valid value (shape " + shape_str(x.shape) + ", valid " +
                        shape_str(x.valid) + ") into " + shape_str(*sh) +
                        ": its valid elements do not map to whole rows",
            "reshape before slicing the tail, or keep the trailing axes unchanged");
        return EV::poison();
      }
      va[0] = simplify(floordiv(nvalid, row));
    }
  }
  Shape stated = va;  // PyPTO's valid_shape: equal to va or narrower (reshape_valid_shape.cpp)
  if (args.size() > 3 && args[3] && !reshape_valid_shape(c, *sh, stated)) return EV::poison();
  Op op;
  op.kind = OpKind::Reshape;
  op.inputs = {a.value};
  op.shape = *sh;
  op.inplace = *inplace;
  const int r = emit(op, x.dtype, *sh, va, fo, fl);
  bool same = true;
  for (size_t i = 0; i < va.size(); ++i) same = same && provably_equal(stated[i], va[i]);
  if (same) return EV::tensor(r, a.nz);
  return EV::tensor(narrow_valid(r, stated, fo, fl), a.nz);
}

EV Elaborator::call_view(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  if (args[4]) return call_view_dtype(c);  // --- view(dtype=) ---
  for (size_t k = 1; k <= 2; ++k)  // shape and offsets are required without dtype=
    if (!args[k]) {
      err(c.e.op_off, c.e.len, "'view' is missing its argument '" + c.names[k] + "'",
          "signature: view(a, shape, offsets, valid, dtype), or view(a, dtype=DT) to read a's bytes as DT");
      return EV::poison();
    }
  EV a = tensor_arg(c, args[0], "its first argument");
  auto sh = list_arg(args[1], "view shape");
  if (args[2]->kind != Expr::Kind::List) {
    err(args[2]->off, args[2]->len, "view offsets must be a list such as [0, b * 64]");
    return EV::poison();
  }
  std::optional<Shape> offs = Shape{};
  for (const auto& item : args[2]->items) {
    auto d = dim(*item, DimUse::Loop);
    if (!d) { offs.reset(); break; }
    offs->push_back(simplify(*d));
  }
  std::optional<Shape> given_valid;
  if (args[3]) {
    given_valid = list_arg(args[3], "view valid");
    if (!given_valid) return EV::poison();
  }
  if (!a.ok() || !sh || !offs) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  size_t rank = x.shape.size();
  if (sh->size() != rank || offs->size() != rank || (given_valid && given_valid->size() != rank)) {
    err(fo, fl, "view of a rank-" + std::to_string(rank) + " value needs " + std::to_string(rank) +
                    " entries in shape, offsets and valid");
    return EV::poison();
  }
  Shape va;
  for (size_t i = 0; i < rank; ++i) {
    auto over = const_difference((*offs)[i] + (*sh)[i], x.shape[i]);
    if (over && *over > 0) {
      err(args[1]->items[i]->off, args[1]->items[i]->len,
          "view window on axis " + std::to_string(i) + " ends at " + simplify((*offs)[i] + (*sh)[i]).str() +
              ", past the size " + x.shape[i].str());
      return EV::poison();
    }
    if (given_valid) {
      auto d = const_difference((*given_valid)[i], (*sh)[i]);
      if (d && *d > 0) {
        err(args[3]->items[i]->off, args[3]->items[i]->len, "view valid extent exceeds the window on axis " +
                                                                std::to_string(i));
        return EV::poison();
      }
      va.push_back((*given_valid)[i]);
    } else {
      va.push_back(simplify(min_in(simplify((*offs)[i] + (*sh)[i]), x.valid[i], ranges(), sym_ranges(), divisible_) - (*offs)[i]));
    }
  }
  Op op;
  op.kind = OpKind::View;
  op.inputs = {a.value};
  op.shape = *sh;
  op.offsets = *offs;
  if (given_valid) op.valid = *given_valid;
  return EV::tensor(emit(op, x.dtype, *sh, va, fo, fl), a.nz);
}

EV Elaborator::call_concat(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  const Expr* l = list_repeat(args[0]);  // `[x] * 4` (elaborate_pypto_spellings.cpp)
  if (!l) return EV::poison();
  if (l->kind != Expr::Kind::List || l->items.empty()) {
    err(l->off, l->len, "concat takes a list of tensors: concat([a, b], dim)");
    return EV::poison();
  }
  std::vector<EV> parts;
  bool ok = true;
  for (const auto& item : l->items) {
    EV v = tensor_arg(c, item.get(), "a list element");
    if (!v.ok() || !check_nz(v, *item, fn)) ok = false;
    parts.push_back(v);
  }
  if (!ok) return EV::poison();
  const Value x0 = p_.values[size_t(parts[0].value)];
  // PyPTO's concat(tensors, dim=0): the first axis when dim is not given.
  std::optional<int> ax = args[1] ? axis_arg(args[1], x0.shape.size(), "dim") : std::optional<int>(0);
  if (!ax) return EV::poison();
  Shape sh = x0.shape, va = x0.valid;
  DimExpr total(0), valid_total(0);
  bool prefix_full = true;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Value& xi = p_.values[size_t(parts[i].value)];
    const Expr& ei = *l->items[i];
    if (xi.dtype != x0.dtype) {
      err(ei.off, ei.len, "concat operands have different dtypes: " + std::string(dtype_name(x0.dtype)) + " and " +
                              std::string(dtype_name(xi.dtype)),
          "insert cast(" + text_of(ei) + ", " + std::string(dtype_name(x0.dtype)) + ")");
      return EV::poison();
    }
    if (xi.shape.size() != x0.shape.size()) {
      err(ei.off, ei.len, "concat operands have different ranks");
      return EV::poison();
    }
    for (size_t d = 0; d < sh.size(); ++d) {
      if (int(d) == *ax) continue;
      if (!provably_equal(xi.shape[d], x0.shape[d])) {
        err(ei.off, ei.len, "concat operand shape " + shape_str(xi.shape) + " differs from " +
                                shape_str(x0.shape) + " on axis " + std::to_string(d));
        return EV::poison();
      }
      va[d] = combine_valid(va[d], xi.valid[d]);
    }
    if (!prefix_full) {
      err(ei.off, ei.len, "concat after a partially valid operand would put padding inside the result",
          "only the last operand may have a partial valid extent on the concat axis");
      return EV::poison();
    }
    total = total + xi.shape[size_t(*ax)];
    valid_total = valid_total + xi.valid[size_t(*ax)];
    prefix_full = provably_equal(xi.shape[size_t(*ax)], xi.valid[size_t(*ax)]);
  }
  sh[size_t(*ax)] = simplify(total);
  va[size_t(*ax)] = simplify(valid_total);
  Op op;
  op.kind = OpKind::Concat;
  for (const auto& v : parts) op.inputs.push_back(v.value);
  op.axes = {*ax};
  return EV::tensor(emit(op, x0.dtype, sh, va, fo, fl));
}

EV Elaborator::call_full(const Call& c) {
  [[maybe_unused]] const std::string& fn = c.fn;
  [[maybe_unused]] const int fo = c.fo, fl = c.fl;
  const auto& args = c.args;
  auto sh = list_arg(args[0], "full shape");
  EV v = expr(*args[1]);
  auto dt = dtype_arg(args[2], DType::fp32);
  if (!sh || !v.ok() || !dt) return EV::poison();
  if (!v.is_scalar()) {
    err(args[1]->off, args[1]->len, "full takes a scalar value, got the tensor '" + text_of(*args[1]) + "'");
    return EV::poison();
  }
  if (sh->empty() || sh->size() > 4) {
    err(args[0]->off, args[0]->len, "full needs a shape of rank 1 to 4");
    return EV::poison();
  }
  Op op;
  op.kind = OpKind::Full;
  op.shape = *sh;
  op.fill = v.scalar;
  op.dtype = *dt;
  return EV::tensor(emit(op, *dt, *sh, *sh, fo, fl));
}

}  // namespace ptoc::fe
