// Casts with PyPTO's rounding and saturation modes, and the quantisation ops
// (quantize, dequantize, scaled_mm). All of them are written as existing ops
// (round/floor/ceil/trunc, maximum/minimum, mul/add, cast, matmul), so the
// evaluator, tiling, leaf programs and cost model see nothing new and the
// numbers of every layer agree by construction.
#include <cmath>
#include <limits>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

namespace {

// PyPTO's CastMode, in its spelling. kOmitted is ptoc's first-release cast
// (round half to even for float -> integer), kept when no mode is written.
enum CastMode : int { kOmitted = -1, kNone, kRint, kRound, kFloor, kCeil, kTrunc };

struct ModeName {
  std::string_view name;
  int mode;
};
constexpr ModeName kModes[] = {{"CAST_NONE", kNone},   {"CAST_RINT", kRint}, {"CAST_ROUND", kRound},
                               {"CAST_FLOOR", kFloor}, {"CAST_CEIL", kCeil}, {"CAST_TRUNC", kTrunc}};

bool is_int_type(DType t) { return dtype_is_int(t); }

// [lo, hi] of an integer dtype.
std::pair<double, double> int_range(DType t) {
  switch (t) {
    case DType::int8: return {-128, 127};
    case DType::uint8: return {0, 255};
    case DType::int64: return {-9223372036854775808.0, 9223372036854775807.0};
    case DType::int16: return {-32768, 32767};
    case DType::uint16: return {0, 65535};
    case DType::uint32: return {0, 4294967295.0};
    case DType::uint64: return {0, 18446744073709551615.0};  // 2^64 as a double: the clip is the store's
    default: return {-2147483648.0, 2147483647.0};
  }
}

// The largest value of float type `s` that is <= hi (saturation bounds must be
// exact in the source type, or the clip itself would round past the range).
double largest_at_most(DType s, double hi) {
  double v = round_to_dtype(hi, s);
  if (v <= hi) return v;
  switch (s) {  // v > 0 here: its predecessor is one less in the bits
    case DType::fp16: return double(half_to_float(uint16_t(float_to_half(float(v)) - 1)));
    case DType::bf16: return double(bf16_to_float(uint16_t(float_to_bf16(float(v)) - 1)));
    default: return double(std::nextafter(float(v), -INFINITY));
  }
}

// Finite extent of a float dtype.
double float_max(DType s) {
  switch (s) {
    case DType::fp16: return 65504.0;
    case DType::bf16: return double(bf16_to_float(0x7f7f));
    default: return double(std::numeric_limits<float>::max());
  }
}

}  // namespace

// a (tensor) -> dtype `to`, rounding float -> integer by `mode` and clipping
// to the target's range first when `saturate`.
EV Elaborator::rounded_cast(const EV& a, DType to, int mode, bool saturate, const Expr& ea, int op_off, int op_len) {
  if (!a.ok()) return EV::poison();
  const DType s = p_.values[size_t(a.value)].dtype;
  const std::string sp = "cast";
  if (dtype_is_fp8(s) || dtype_is_fp8(to)) return fp8_cast(a, to, mode, ea, op_off, op_len);
  EV x = a;
  if (dtype_is_float(s) && (is_int_type(to) || (to == s && mode != kOmitted && mode != kNone))) {
    // Float -> integer: PyPTO's CAST_NONE truncates; ptoc's cast without a mode rounds half to even.
    // Float -> the same float type with a mode rounds to an integral value (PyPTO's same-type rounding).
    int m = mode == kOmitted ? kRint : mode == kNone ? kTrunc : mode;
    switch (m) {
      case kRint: x = unary(OpKind::Round, x, ea, op_off, sp); break;
      case kFloor: x = unary(OpKind::Floor, x, ea, op_off, sp); break;
      case kCeil: x = unary(OpKind::Ceil, x, ea, op_off, sp); break;
      case kTrunc: x = unary(OpKind::Trunc, x, ea, op_off, sp); break;
      case kRound: {
        // Half away from zero, exactly: t = trunc(x); t + trunc(2 * (x - t)). x - t is exact
        // (the fraction of a float is a float) and so is its double; trunc of it is -1, 0 or 1.
        EV t = unary(OpKind::Trunc, x, ea, op_off, sp);
        EV f = binary(OpKind::Sub, x, t, ea, ea, op_off, op_len, sp);
        EV f2 = binary(OpKind::Mul, f, EV::number(2, true), ea, ea, op_off, op_len, sp);
        EV d = unary(OpKind::Trunc, f2, ea, op_off, sp);
        x = binary(OpKind::Add, t, d, ea, ea, op_off, op_len, sp);
        break;
      }
      default: break;
    }
    if (!x.ok()) return EV::poison();
  } else if (dtype_is_float(s) && dtype_is_float(to) && mode != kOmitted && mode != kNone && mode != kRint) {
    err(op_off, op_len, "cast from " + std::string(dtype_name(s)) + " to " + std::string(dtype_name(to)) +
                            " rounds to nearest even only; its mode cannot be chosen yet",
        "drop the mode, or write mode=CAST_RINT");
    return EV::poison();
  }
  if (saturate && s == DType::uint64 && to == DType::int64) {
    // 2^63 - 1 is no double, so the clip below cannot name it: clip to 2^63 (exact in uint64), cast (2^63
    // wraps to INT64_MIN, the only negative value left), then y - (y < 0) turns INT64_MIN into INT64_MAX
    // (wrapping) and leaves [0, 2^63) alone. Every step is exact integer arithmetic.
    x = binary(OpKind::Minimum, x, EV::number(9223372036854775808.0, true), ea, ea, op_off, op_len, sp);
    if (!x.ok()) return EV::poison();
    const Value xv = p_.values[size_t(x.value)];
    Op cop;
    cop.kind = OpKind::Cast;
    cop.inputs = {x.value};
    cop.dtype = to;
    EV y = EV::tensor(emit(cop, to, xv.shape, xv.valid, op_off, op_len));
    const bool saved = int64_lowering_;
    int64_lowering_ = true;
    EV neg = binary(OpKind::Lt, y, EV::number(0, true), ea, ea, op_off, op_len, sp);
    EV z = EV::poison();
    if (neg.ok()) {
      const Value nv = p_.values[size_t(neg.value)];
      Op bop;
      bop.kind = OpKind::Cast;
      bop.inputs = {neg.value};
      bop.dtype = to;
      EV one = EV::tensor(emit(bop, to, nv.shape, nv.valid, op_off, op_len));
      z = binary(OpKind::Sub, y, one, ea, ea, op_off, op_len, sp);
    }
    int64_lowering_ = saved;
    return z;
  }
  if (saturate && is_int_type(to)) {
    auto [lo, hi] = int_range(to);
    double slo, shi;
    if (dtype_is_float(s)) {
      slo = -float_max(s);
      shi = float_max(s);
      hi = largest_at_most(s, hi);  // int32 from fp32: 2147483520, the largest fp32 below 2^31
    } else {
      std::tie(slo, shi) = int_range(s);
    }
    // Only bounds inside the source's range: a literal takes the operand's dtype.
    // An int64 source is clipped by ptoc itself (PyPTO's int64 -> int32 saturation), not the user's maximum.
    const bool saved = int64_lowering_;
    int64_lowering_ = s == DType::int64 || s == DType::uint64;
    if (lo > slo) x = binary(OpKind::Maximum, x, EV::number(lo, true), ea, ea, op_off, op_len, sp);
    if (hi < shi) x = binary(OpKind::Minimum, x, EV::number(hi, true), ea, ea, op_off, op_len, sp);
    int64_lowering_ = saved;
    if (!x.ok()) return EV::poison();
  }
  const Value v = p_.values[size_t(x.value)];
  if (v.dtype == to && x.value != a.value) return x;  // same-type rounding: no cast op left to do
  Op op;
  op.kind = OpKind::Cast;
  op.inputs = {x.value};
  op.dtype = to;
  return EV::tensor(emit(op, to, v.shape, v.valid, op_off, op_len));
}

// Casts to and from the 8-bit floats (PyPTO's 950 cast table): fp32 / fp16 / bf16 -> fp8e4m3 / fp8e5m2
// round to nearest even once from the exact value (e4m3 saturating to +-448, e5m2 overflowing to inf);
// fp8e4m3 / fp8e5m2 -> fp32 / fp16 / bf16 and fp8e8m0 -> fp32 / bf16 are exact. One Cast op either way.
EV Elaborator::fp8_cast(const EV& a, DType to, int mode, const Expr& ea, int op_off, int op_len) {
  (void)ea;
  const DType s = p_.values[size_t(a.value)].dtype;
  const std::string from_n(dtype_name(s)), to_n(dtype_name(to));
  const bool wide = to == DType::fp32 || to == DType::fp16 || to == DType::bf16;
  bool ok;
  std::string takes;
  if (s == DType::fp8e8m0) {
    ok = to == DType::fp32 || to == DType::bf16 || to == s;
    takes = "fp8e8m0 casts to fp32 or bf16 (exact; fp16 cannot hold 2^-127 .. 2^127)";
  } else if (dtype_is_fp8(s)) {
    ok = wide || to == s;
    takes = from_n + " casts to fp32, fp16 or bf16 (exact)";
  } else if (to == DType::fp8e8m0) {
    ok = false;
    takes = "nothing casts to fp8e8m0 (PyPTO's cast has no E8M0 row; the MX quantisation makes them)";
  } else {
    ok = s == DType::fp32 || s == DType::fp16 || s == DType::bf16;
    takes = to_n + " is cast to from fp32, fp16 or bf16";
  }
  if (!ok) {
    err(op_off, op_len, "cast from " + from_n + " to " + to_n + " is not supported: " + takes,
        dtype_is_fp8(s) ? "cast to fp32 first"
        : to == DType::fp8e8m0 ? "keep the scale as fp32 (fp8e8m0 tensors are read, or produced by the MX ops)"
                               : "cast to fp32 first (integers: cast(x, fp32))");
    return EV::poison();
  }
  if (mode != -1 && mode != 0 && mode != 1) {  // omitted, CAST_NONE, CAST_RINT
    err(op_off, op_len, "cast from " + from_n + " to " + to_n + " rounds to nearest even only; its mode cannot be "
                        "chosen yet", "drop the mode, or write mode=CAST_RINT");
    return EV::poison();
  }
  const Value v = p_.values[size_t(a.value)];
  if (s == to) return a;
  Op op;
  op.kind = OpKind::Cast;
  op.inputs = {a.value};
  op.dtype = to;
  return EV::tensor(emit(op, to, v.shape, v.valid, op_off, op_len));
}

// cast(input, dtype, mode=CAST_NONE, satmode=OFF) with a mode or satmode written.
EV Elaborator::cast_with_modes(const Call& c, const EV& a, DType to) {
  int mode = kOmitted;
  if (const Expr* m = c.args[2]) {
    bool found = false;
    if (m->kind == Expr::Kind::Name)
      for (const auto& k : kModes)
        if (k.name == m->name) { mode = k.mode; found = true; }
    if (!found) {
      std::vector<std::string> names;
      for (const auto& k : kModes) names.emplace_back(k.name);
      std::string hint = m->kind == Expr::Kind::Name ? did_you_mean(m->name, names) : "";
      if (m->kind == Expr::Kind::Name && m->name == "CAST_ODD")
        err(m->off, m->len, "cast mode CAST_ODD (fp32 -> fp16 round to odd) is not supported yet",
            "modes: CAST_NONE CAST_RINT CAST_ROUND CAST_FLOOR CAST_CEIL CAST_TRUNC");
      else
        err(m->off, m->len, "unknown cast mode '" + text_of(*m) + "'",
            hint.empty() ? "modes (PyPTO's CastMode): CAST_NONE CAST_RINT CAST_ROUND CAST_FLOOR CAST_CEIL CAST_TRUNC"
                         : hint);
      return EV::poison();
    }
  }
  bool sat = false;
  if (const Expr* s = c.args[3]) {
    if (s->kind == Expr::Kind::Name && (s->name == "ON" || s->name == "true" || s->name == "True")) sat = true;
    else if (s->kind == Expr::Kind::Name && (s->name == "OFF" || s->name == "false" || s->name == "False")) sat = false;
    else {
      err(s->off, s->len, "cast satmode must be ON or OFF (PyPTO's SaturationMode), got '" + text_of(*s) + "'");
      return EV::poison();
    }
  }
  return rounded_cast(a, to, mode, sat, *c.args[0], c.fo, c.fl);
}

EV Elaborator::call_quant(const Call& c) {
  if (c.fn == "scaled_mm") return call_scaled_mm(c);
  return call_quantize(c, c.fn == "dequantize");
}

// A scale or zero point of `x` along `axis` (PyPTO: axis -1 gives one per row,
// shape [..., row]; axis -2 one per column, [..., col]): rank - 1 with that
// axis left out, or the same rank with extent 1 there. Returns it reshaped to
// the same rank (extent 1 at `axis`) so that it broadcasts.
EV Elaborator::per_axis_operand(const Call& c, const Expr* e, const Value& x, int axis, const std::string& what) {
  EV s = tensor_arg(c, e, what);
  if (!s.ok() || !check_nz(s, *e, c.fn)) return EV::poison();
  const Value v = p_.values[size_t(s.value)];
  Shape want, want_valid;
  for (size_t i = 0; i < x.shape.size(); ++i)
    if (int(i) != axis) { want.push_back(x.shape[i]); want_valid.push_back(x.valid[i]); }
  Shape keep = x.shape;
  keep[size_t(axis)] = DimExpr(1);
  auto same = [](const Shape& a, const Shape& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!provably_equal(a[i], b[i])) return false;
    return true;
  };
  const std::string per = axis == int(x.shape.size()) - 1 ? "one per row" : "one per column";
  if (!same(v.shape, keep) && !same(v.shape, want)) {
    err(e->off, e->len, "'" + c.fn + "' " + what + " '" + text_of(*e) + "' has shape " + shape_str(v.shape) +
                            "; along axis " + std::to_string(axis - int(x.shape.size())) + " of " +
                            shape_str(x.shape) + " it must be " + shape_str(want) + " (" + per + ") or " +
                            shape_str(keep),
        "axis=-1 scales each row (per token), axis=-2 each column (per channel)");
    return EV::poison();
  }
  if (v.dtype != DType::fp32) {
    err(e->off, e->len, "'" + c.fn + "' " + what + " must be fp32, '" + text_of(*e) + "' is " +
                            std::string(dtype_name(v.dtype)),
        "insert cast(" + text_of(*e) + ", fp32)");
    return EV::poison();
  }
  if (same(v.shape, keep)) return s;
  Shape kv = v.valid;
  kv.insert(kv.begin() + axis, DimExpr(1));
  return EV::tensor(reshape_to(s.value, keep, kv, c.fo));
}

// quantize(input, scale, otype, axis, zero_points=None) = saturate(rint(input * scale + zero_points)) to otype
// dequantize(input, scale, otype, axis, zero_points=None) = (float(input) + zero_points) * scale
EV Elaborator::call_quantize(const Call& c, bool dequant) {
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its input");
  if (!a.ok() || !check_nz(a, *args[0], c.fn)) return EV::poison();
  const Value x = p_.values[size_t(a.value)];
  if (dequant ? !is_int_type(x.dtype) : x.dtype != DType::fp32) {
    err(args[0]->off, args[0]->len,
        "'" + c.fn + "' takes " + std::string(dequant ? "an int8, uint8 or int32" : "an fp32") + " input, '" +
            text_of(*args[0]) + "' is " + std::string(dtype_name(x.dtype)),
        dequant ? "dequantize reads quantized integers" : "insert cast(" + text_of(*args[0]) + ", fp32)");
    return EV::poison();
  }
  auto ot = dtype_arg(args[2], DType::fp32);
  if (!ot) return EV::poison();
  if (dequant ? *ot != DType::fp32 : (*ot != DType::int8 && *ot != DType::uint8)) {
    err(args[2]->off, args[2]->len,
        "'" + c.fn + "' otype must be " + std::string(dequant ? "fp32" : "int8 or uint8") + ", got " +
            std::string(dtype_name(*ot)));
    return EV::poison();
  }
  const int rank = int(x.shape.size());
  auto ax = const_int(*args[3], "axis");
  if (!ax) return EV::poison();
  if (!((*ax == -1 || *ax == rank - 1) || (rank >= 2 && (*ax == -2 || *ax == rank - 2)))) {
    err(args[3]->off, args[3]->len, "'" + c.fn + "' axis " + std::to_string(*ax) + " is not one of the last two axes of a rank-" +
                                        std::to_string(rank) + " input",
        rank >= 2 ? "axis=-1 (a scale per row) or axis=-2 (a scale per column)" : "a rank-1 input takes axis=-1");
    return EV::poison();
  }
  const int axis = *ax < 0 ? *ax + rank : int(*ax);
  EV s = per_axis_operand(c, args[1], x, axis, "scale");
  if (!s.ok()) return EV::poison();
  EV z = EV::poison();
  const Expr* ze = args[4];
  if (ze && ze->kind == Expr::Kind::Name && ze->name == "None") ze = nullptr;
  if (ze) {
    z = per_axis_operand(c, ze, x, axis, "zero_points");
    if (!z.ok()) return EV::poison();
  }
  const Expr& e = *args[0];
  if (dequant) {
    EV f = rounded_cast(a, DType::fp32, kOmitted, false, e, c.fo, c.fl);
    if (ze) f = binary(OpKind::Add, f, z, e, *ze, c.fo, c.fl, c.fn);
    return binary(OpKind::Mul, f, s, e, *args[1], c.fo, c.fl, c.fn);
  }
  EV m = binary(OpKind::Mul, a, s, e, *args[1], c.fo, c.fl, c.fn);
  if (ze) m = binary(OpKind::Add, m, z, e, *ze, c.fo, c.fl, c.fn);
  return rounded_cast(m, *ot, kRint, true, e, c.fo, c.fl);
}

// scaled_mm(mat_a, mat_b, out_dtype, scale_a, scale_b, a_trans=false, b_trans=false):
// int8 x int8 -> int32 on the cube, then out = float(c) * scale_a (one per row of the
// result) * scale_b (one per column), rounded to out_dtype.
EV Elaborator::call_scaled_mm(const Call& c) {
  const auto& args = c.args;
  EV a = tensor_arg(c, args[0], "its left operand");
  EV b = tensor_arg(c, args[1], "its right operand");
  auto od = dtype_arg(args[2], DType::fp32);
  auto ta = bool_arg(c, 5, false), tb = bool_arg(c, 6, false);
  if (!a.ok() || !b.ok() || !od || !ta || !tb) return EV::poison();
  for (int k = 0; k < 2; ++k) {
    const Value& v = p_.values[size_t((k ? b : a).value)];
    if (v.dtype != DType::int8) {
      err(args[size_t(k)]->off, args[size_t(k)]->len,
          "'scaled_mm' takes int8 operands, '" + text_of(*args[size_t(k)]) + "' is " + std::string(dtype_name(v.dtype)),
          "PyPTO's fp8/fp4 MX formats are not supported; for float operands use matmul");
      return EV::poison();
    }
  }
  if (!dtype_is_float(*od)) {
    err(args[2]->off, args[2]->len, "'scaled_mm' out_dtype must be fp32, fp16 or bf16, got " +
                                        std::string(dtype_name(*od)));
    return EV::poison();
  }
  // The product through matmul's own checks (shapes, NZ, transposes).
  Op op;
  op.kind = OpKind::Matmul;
  const Value x = p_.values[size_t(a.value)], y = p_.values[size_t(b.value)];
  if (x.shape.size() != 2 || y.shape.size() != 2) {
    err(c.fo, c.fl, "'scaled_mm' takes [M, K] x [K, N]; got ranks " + std::to_string(x.shape.size()) + " and " +
                        std::to_string(y.shape.size()));
    return EV::poison();
  }
  size_t am = *ta ? 1 : 0, ak = *ta ? 0 : 1, bk = *tb ? 1 : 0, bn = *tb ? 0 : 1;
  if (!provably_equal(x.shape[ak], y.shape[bk])) {
    err(c.fo, c.fl, "'scaled_mm' inner dimensions differ: " + x.shape[ak].str() + " vs " + y.shape[bk].str(),
        "shapes are " + shape_str(x.shape) + " and " + shape_str(y.shape) + "; use a_trans/b_trans for transposed operands");
    return EV::poison();
  }
  op.inputs = {a.value, b.value};
  op.dtype = DType::int32;
  op.trans_a = *ta;
  op.trans_b = *tb;
  Shape sh = {x.shape[am], y.shape[bn]}, va = {x.valid[am], y.valid[bn]};
  EV mm = EV::tensor(emit(op, DType::int32, sh, va, c.fo, c.fl));
  const Value mv = p_.values[size_t(mm.value)];  // a copy: the scales' ops grow p_.values
  EV sa = per_axis_operand(c, args[3], mv, 1, "scale_a");
  EV sb = per_axis_operand(c, args[4], mv, 0, "scale_b");
  if (!sa.ok() || !sb.ok()) return EV::poison();
  const Expr& e = *args[0];
  EV f = rounded_cast(mm, DType::fp32, kOmitted, false, e, c.fo, c.fl);
  f = binary(OpKind::Mul, f, sa, e, *args[3], c.fo, c.fl, c.fn);
  f = binary(OpKind::Mul, f, sb, e, *args[4], c.fo, c.fl, c.fn);
  if (!f.ok() || *od == DType::fp32) return f;
  return rounded_cast(f, *od, kOmitted, false, e, c.fo, c.fl);
}

}  // namespace ptoc::fe
