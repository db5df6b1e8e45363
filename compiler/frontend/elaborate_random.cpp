// --- random ops --- PyPTO's uniform / normal: shape, key, counter, alg and dtype checked with PyPTO's
// rules (pypto/op/random.py and the operation docs), then one op of kind Uniform / Normal over the int32
// flat element index of the whole shape (an iota per axis times its stride, summed with broadcasting):
// each element is a function of (key, counter[1], its index) only, so tiles never change a number.
//   uniform(shape, key, counter, alg, dtype)   [k], [c0, c1] (c0 ignored, as PyPTO), [1] or [3]
//   normal(shape, key, counter, alg, dtype)    the same; the vec_tile must be the whole shape
#include <cstdint>

#include "compiler/frontend/elaborate_call.h"
#include "compiler/ops_random.h"

namespace ptoc::fe {

EV Elaborator::call_random(const Call& c) {
  const std::string& fn = c.fn;
  const char* names[] = {"shape", "key", "counter", "alg", "dtype"};
  for (int k = 0; k < 5; ++k)
    if (!c.args[size_t(k)]) {
      err(c.fo, c.fl, "'" + fn + "' is missing its argument '" + names[k] + "'",
          "signature: " + fn + "(shape, key, counter, alg, dtype), e.g. " + fn + "([4, 4], [1234], [0, 1], [1], fp32)");
      return EV::poison();
    }
  // A list of `n` constant integers (a list literal, as PyPTO's List[int]).
  auto int_list = [&](const Expr* x, const char* what, size_t lo, size_t hi) -> std::optional<std::vector<int64_t>> {
    if (x->kind != Expr::Kind::List) {
      err(x->off, x->len, std::string(what) + " of '" + fn + "' must be a list such as [" + (lo == 2 ? "0, 1" : "1") +
                              "], got '" + text_of(*x) + "'");
      return std::nullopt;
    }
    if (x->items.size() < lo || x->items.size() > hi) {
      const std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      err(x->off, x->len, std::string(what) + " of '" + fn + "' takes " + want + " entr" + (hi == 1 ? "y" : "ies") +
                              " (PyPTO's rule), got " + std::to_string(x->items.size()));
      return std::nullopt;
    }
    std::vector<int64_t> v;
    for (const auto& it : x->items) {
      auto n = const_int(*it, std::string(what) + " of '" + fn + "'");
      if (!n) return std::nullopt;
      if (*n < 0) {
        err(it->off, it->len, std::string(what) + " of '" + fn + "' must not be negative, got " + std::to_string(*n),
            "PyPTO takes it as an unsigned 64-bit number");
        return std::nullopt;
      }
      v.push_back(*n);
    }
    return v;
  };
  auto shape = int_list(c.args[0], "the shape", 1, 4);
  if (!shape) return EV::poison();
  int64_t total = 1;
  for (size_t a = 0; a < shape->size(); ++a) {
    if ((*shape)[a] < 1) {
      const Expr& it = *c.args[0]->items[a];
      err(it.off, it.len, "the shape of '" + fn + "' must have positive entries, got " + std::to_string((*shape)[a]));
      return EV::poison();
    }
    total *= (*shape)[a];
    if (total > INT32_MAX) {
      err(c.args[0]->off, c.args[0]->len, "'" + fn + "' of more than 2147483647 elements (PyPTO's limit: INT32_MAX)");
      return EV::poison();
    }
  }
  auto key = int_list(c.args[1], "the key", 1, 1);
  if (!key) return EV::poison();
  auto counter = int_list(c.args[2], "the counter", 2, 2);
  if (!counter) return EV::poison();
  auto alg = int_list(c.args[3], "alg", 1, 1);
  if (!alg) return EV::poison();
  if ((*alg)[0] != 1 && (*alg)[0] != 3) {
    const Expr& it = *c.args[3]->items[0];
    err(it.off, it.len, "alg of '" + fn + "' must be 1 (Philox) or 3 (auto_select, which selects Philox), got " +
                            std::to_string((*alg)[0]));
    return EV::poison();
  }
  auto dt = dtype_arg(c.args[4], DType::fp32);
  if (!dt) return EV::poison();
  if (*dt != DType::fp32 && *dt != DType::fp16 && *dt != DType::bf16) {
    err(c.args[4]->off, c.args[4]->len,
        "'" + fn + "' gives fp32, fp16 or bf16 (PyPTO's DT_FP32, DT_FP16, DT_BF16), not " + std::string(dtype_name(*dt)));
    return EV::poison();
  }
  // PyPTO's tile rules: the vec_tile's last entry a multiple of 4; normal: the vec_tile is the shape.
  const size_t rank = shape->size();
  if (ts_->vec && ts_->vec->shape.size() == rank) {
    const auto& t = ts_->vec->shape;
    const SrcLoc& tl = ts_->vec->loc;
    const std::string where = tl.line > 0 ? " (the vec_tile at line " + std::to_string(tl.line) + ")" : "";
    if (t[rank - 1] % 4 != 0) {
      err(c.fo, c.fl, "'" + fn + "' needs a vec_tile whose last entry is a multiple of 4 (PyPTO's rule), the one in "
                          "force has " + std::to_string(t[rank - 1]) + where,
          "set the vec_tile's last entry to " + std::to_string((t[rank - 1] + 3) / 4 * 4));
      return EV::poison();
    }
    if (c.spec.kind == OpKind::Normal)
      for (size_t a = 0; a < rank; ++a)
        if (t[a] != (*shape)[a]) {
          std::string s;
          for (size_t b = 0; b < rank; ++b) s += (b ? ", " : "") + std::to_string((*shape)[b]);
          err(c.fo, c.fl, "'normal' needs the vec_tile to be the whole shape [" + s + "] (PyPTO's rule: one tile), the "
                          "one in force has " + std::to_string(t[a]) + " on axis " + std::to_string(a) + where,
              "write {vec_tile: [" + s + "]} before this statement");
          return EV::poison();
        }
  }
  // The flat element index: sum over axes of iota(axis) * stride (int32, exact below 2^31).
  int v = iota(int(rank - 1), (*shape)[rank - 1], rank, DType::int32, c.e, c.fo, c.fl);
  if (v < 0) return EV::poison();
  EV idx = EV::tensor(v);
  int64_t stride = (*shape)[rank - 1];
  for (size_t a = rank - 1; a-- > 0;) {
    if ((*shape)[a] > 1) {
      int t = iota(int(a), (*shape)[a], rank, DType::int32, c.e, c.fo, c.fl);
      if (t < 0) return EV::poison();
      EV s = EV::tensor(t);
      if (stride != 1) s = binary(OpKind::Mul, s, EV::number(double(stride), true), c.e, c.e, c.fo, c.fl, "iota");
      if (!s.ok()) return EV::poison();
      idx = binary(OpKind::Add, idx, s, c.e, c.e, c.fo, c.fl, "iota");
      if (!idx.ok()) return EV::poison();
    }
    stride *= (*shape)[a];
  }
  Shape sh;
  for (int64_t d : *shape) sh.push_back(DimExpr(d));
  if (p_.values[size_t(idx.value)].shape.size() != rank) return EV::poison();
  Op op;
  op.kind = *c.spec.kind;
  op.inputs = {idx.value};
  op.dtype = *dt;
  op.axes = philox_axes(PhiloxArgs{uint64_t((*key)[0]), uint64_t((*counter)[1])});
  return EV::tensor(emit(op, *dt, sh, sh, c.fo, c.fl));
}

}  // namespace ptoc::fe
