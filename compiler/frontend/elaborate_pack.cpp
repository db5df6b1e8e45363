// --- pack / unpack --- PyPTO's byte reinterpretation (docs/zh/api/operation/pypto-pack.md, -unpack.md),
// written as one op of kind Bitcast (the same row-major bytes read as another dtype: same rank, the last
// axis scaled by the size ratio) and, for pack of a rank-2+ input, a reshape to 1-D:
//   pack(x)                  bitcast(x, uint8) [.., n * s], then reshape [numel * s]   (s = sizeof x)
//   unpack(x, dstDataType)   bitcast(x, dst)   [n / s]                                  (s = sizeof dst)
// The vec_tile in force is PyPTO's TileShape: the input's rank, on the input's axes. A tile of the input is
// a contiguous byte range of each of its rows, so the bitcast tiles like an elementwise op (its tile is the
// input's with the last entry scaled) and any tile works; the general reshape of pack then goes through a
// GM temp (tile_builder.cpp's expand_reshape), which is where the non-contiguous tiles are resolved.
#include <cstdint>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

EV Elaborator::call_pack_unpack(const Call& c) {
  const std::string& fn = c.fn;
  const bool pack = fn == "pack";
  const Expr* x = c.args[0];
  EV a = tensor_arg(c, x, "its input");
  if (!a.ok() || !check_nz(a, *x, fn)) return EV::poison();
  const Value in = p_.values[size_t(a.value)];
  const size_t rank = in.shape.size();
  DType dst = DType::uint8;
  if (pack) {
    if (in.dtype == DType::boolean) {
      err(x->off, x->len, "'pack' takes bf16, fp16, fp32, int32, int64, int8 or uint8 (PyPTO's DT_BF16 ... DT_UINT8), not bool",
          "cast(" + text_of(*x) + ", uint8) first: a bool is one byte of 0 or 1");
      return EV::poison();
    }
  } else {
    if (in.dtype != DType::uint8) {
      err(x->off, x->len, "'unpack' takes a uint8 input (PyPTO's DT_UINT8), got " + std::string(dtype_name(in.dtype)),
          "pack(" + text_of(*x) + ") gives the uint8 bytes of a tensor");
      return EV::poison();
    }
    if (rank != 1) {
      err(x->off, x->len, "'unpack' takes a 1-D input (PyPTO's rule), got rank " + std::to_string(rank),
          "reshape(" + text_of(*x) + ", [n]) first, or pack a 1-D value");
      return EV::poison();
    }
    const Expr* d = c.args[1];
    auto dt = dtype_arg(d, DType::uint8);
    if (!dt) return EV::poison();
    if (*dt == DType::boolean) {
      err(d->off, d->len, "'unpack' gives uint8, int8, int32, int64, fp16, bf16 or fp32 (PyPTO's list), not bool",
          "unpack to uint8 and compare with 0 (x != 0) for a bool");
      return EV::poison();
    }
    dst = *dt;
  }
  // PyPTO's TileShape: the input's rank, on the input's axes.
  std::string where;
  auto vt = input_vec_tile(c, fn, rank, "PyPTO's TileShape",
                           pack ? "the tile cuts the input's axes; the 1-D output follows it"
                                : "write {vec_tile: [t]} with t a multiple of " + std::to_string(dtype_size(dst)),
                           where);
  if (!vt) return EV::poison();
  std::vector<int64_t> tile = *vt;
  const int64_t sa = dtype_size(in.dtype), sd = dtype_size(dst);
  Shape sh = in.shape, va = in.valid;
  if (!pack && sd > 1) {
    const std::string ds(dtype_name(dst));
    const std::string rule = " must be a multiple of sizeof(" + ds + ") = " + std::to_string(sd) + " (PyPTO's rule)";
    if (!multiple_of(in.shape[0], sd)) {
      err(x->off, x->len, "the length " + in.shape[0].str() + " of '" + text_of(*x) + "' given to 'unpack'" + rule,
          in.shape[0].as_const() ? "pad the byte tensor to a multiple of " + std::to_string(sd)
                                 : "declare the dim with divisible_by: " + std::to_string(sd));
      return EV::poison();
    }
    if (!multiple_of(in.valid[0], sd)) {
      err(x->off, x->len, "the valid length " + in.valid[0].str() + " of '" + text_of(*x) + "' given to 'unpack'" + rule,
          "view a whole number of " + ds + " elements");
      return EV::poison();
    }
    if (tile[0] % sd != 0) {
      err(c.fo, c.fl, "the vec_tile " + ints_str(tile) + where + " of 'unpack'" + rule,
          "write {vec_tile: [" + std::to_string((tile[0] + sd - 1) / sd * sd) + "]}");
      return EV::poison();
    }
    sh[0] = floordiv(sh[0], DimExpr(sd));
    va[0] = floordiv(va[0], DimExpr(sd));
    tile[0] /= sd;
  } else {
    sh.back() = sh.back() * DimExpr(sa);
    va.back() = va.back() * DimExpr(sa);
    tile.back() *= sa;
  }
  // PyPTO's limit: at most INT32_MAX bytes.
  int64_t bytes = 1;
  bool known = true;
  for (const auto& d : in.shape) {
    if (auto k = d.as_const()) bytes *= *k; else known = false;
  }
  if (known && bytes * sa > INT32_MAX) {
    err(x->off, x->len, "'" + fn + "' of " + std::to_string(bytes * sa) + " bytes (PyPTO's limit: 2147483647, INT32_MAX)");
    return EV::poison();
  }
  // A flattened valid region is a prefix only when every axis after the first is whole.
  if (pack && rank >= 2)
    for (size_t k = 1; k < rank; ++k)
      if (simplify_all({in.valid[k]})[0].str() != simplify_all({in.shape[k]})[0].str()) {
        err(x->off, x->len, "'pack' of a value whose axis " + std::to_string(k) + " is only partly valid (" +
                                in.valid[k].str() + " of " + in.shape[k].str() + "): its bytes are not one run",
            "pack a whole-row view, or view the valid part into a tensor of its own first");
        return EV::poison();
      }
  int v = emit_bitcast(a.value, dst, sh, va, tile, c.fo, c.fl);
  if (v < 0) return EV::poison();
  if (pack && rank >= 2) {
    DimExpr n(1), nv(1);
    for (size_t k = 0; k < rank; ++k) {
      n = n * sh[k];
      nv = nv * (k == 0 ? va[k] : sh[k]);
    }
    v = reshape_to(v, simplify_all({n}), simplify_all({nv}), c.fo);
  }
  return EV::tensor(v);
}

}  // namespace ptoc::fe
