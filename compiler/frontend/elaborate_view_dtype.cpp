// --- view(dtype=) --- PyPTO's reinterpreting view (docs/zh/api/operation/pypto-view.md, OP_VIEW_TYPE):
// `view(x, dtype=DT_FP32)` reads the row-major bytes of the whole input as dtype, little-endian: the same rank,
// the last axis (and its valid extent) scaled by sizeof(x) / sizeof(dtype). It is the op kind Bitcast that
// pack / unpack use (elaborate_pack.cpp), so it runs through every layer they do.
//
// What it means on each kind of input (the choice ptoc makes, specs/README.md "view(x, dtype=)"):
//   - a GM tensor or a view of one: each tile of the reinterpretation is loaded from GM as the input's dtype
//     and its bytes copied in UB into a tile of the new dtype (TBITCAST); no element is converted;
//   - a computed value: the same cast-free bit copy of its UB tiles.
// In both cases the result is a value like any other (its padding never reaches an output).
//
// PyPTO's rules, each a located error here:
//   - with dtype, PyPTO reads the whole input and ignores shape / offsets / valid_shape (operation.py passes
//     only the dtype): giving them is an error, not a silent surprise; view the window first;
//   - a narrowing view (fp32 read as bf16 is widening the element count; int8 read as fp32 narrows it by
//     r = 4): the last axis, its valid extent and the vec_tile's last entry are multiples of r (FactorCheck,
//     "TileShape lastDim * factor must be int");
//   - the vec_tile in force is PyPTO's TileShape on the input's axes (TiledViewTypeOperation tiles the input);
//   - bool on either side is an error (its bytes are not 0 / 1 in general).
#include <cstdint>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

EV Elaborator::call_view_dtype(const Call& c) {
  const Expr* x = c.args[0];
  const Expr* d = c.args[4];
  for (size_t k = 1; k <= 3; ++k)
    if (c.args[k]) {
      const Expr* w = c.args[k];
      err(w->off, w->len, "view(..., dtype=) reads the whole input as the dtype; PyPTO ignores '" + c.names[k] +
                              "' beside it, ptoc does not take it",
          "take the window first, then reinterpret it: 'w = view(x, shape, offsets, valid_shape=...)' and "
          "'view(w, dtype=" + text_of(*d) + ")'");
      return EV::poison();
    }
  EV a = tensor_arg(c, x, "its input");
  auto dt = dtype_arg(d, DType::fp32);
  if (!a.ok() || !dt || !check_nz(a, *x, "view")) return EV::poison();
  const Value in = p_.values[size_t(a.value)];
  const DType dst = *dt;
  if (in.dtype == DType::boolean || dst == DType::boolean) {
    const bool from = in.dtype == DType::boolean;
    err(from ? x->off : d->off, from ? x->len : d->len,
        "view(..., dtype=) does not reinterpret bool" + std::string(from ? " input" : "") +
            ": a bool is a byte of 0 or 1, and other bytes are not bools",
        from ? "cast(" + text_of(*x) + ", uint8) first" : "reinterpret as uint8 and compare with 0 (x != 0) for a bool");
    return EV::poison();
  }
  if (dst == in.dtype) return a;  // the same bytes as the same dtype: the value itself
  const size_t rank = in.shape.size();
  std::string where;
  auto vt = input_vec_tile(c, "view(..., dtype=)", rank, "PyPTO's TileShape on the input's axes",
                           "write a vec_tile with " + std::to_string(rank) + " entries before this statement", where);
  if (!vt) return EV::poison();
  std::vector<int64_t> tile = *vt;
  const int64_t sa = dtype_size(in.dtype), sd = dtype_size(dst);
  Shape sh = in.shape, va = in.valid;
  if (sd > sa) {  // narrowing: r input elements make one
    const int64_t r = sd / sa;
    const std::string rule = " must be a multiple of sizeof(" + std::string(dtype_name(dst)) + ") / sizeof(" +
                             std::string(dtype_name(in.dtype)) + ") = " + std::to_string(r) + " (PyPTO's FactorCheck)";
    if (!multiple_of(in.shape.back(), r)) {
      err(x->off, x->len, "the last axis " + simplify(in.shape.back()).str() + " of '" + text_of(*x) +
                              "' read as " + std::string(dtype_name(dst)) + rule,
          in.shape.back().as_const() ? "view a window whose last axis is a multiple of " + std::to_string(r)
                                     : "declare the dim with divisible_by: " + std::to_string(r));
      return EV::poison();
    }
    if (!multiple_of(in.valid.back(), r)) {
      err(x->off, x->len, "the valid extent " + simplify(in.valid.back()).str() + " on the last axis of '" +
                              text_of(*x) + "' read as " + std::string(dtype_name(dst)) + rule,
          "give the view a valid_shape whose last entry is a whole number of " + std::string(dtype_name(dst)) +
              " elements");
      return EV::poison();
    }
    if (tile.back() % r != 0) {
      err(c.fo, c.fl, "the vec_tile " + ints_str(tile) + where + " of 'view(..., dtype=)': its last entry" + rule,
          "write a vec_tile whose last entry is " + std::to_string((tile.back() + r - 1) / r * r));
      return EV::poison();
    }
    sh.back() = simplify(floordiv(sh.back(), DimExpr(r)));
    va.back() = simplify(floordiv(va.back(), DimExpr(r)));
    tile.back() /= r;
  } else {  // widening: one input element makes r
    const int64_t r = sa / sd;
    sh.back() = simplify(sh.back() * DimExpr(r));
    va.back() = simplify(va.back() * DimExpr(r));
    tile.back() *= r;
  }
  const int v = emit_bitcast(a.value, dst, sh, va, tile, c.fo, c.fl);
  if (v < 0) return EV::poison();
  return EV::tensor(v);
}

}  // namespace ptoc::fe
