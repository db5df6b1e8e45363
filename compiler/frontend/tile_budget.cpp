#include "compiler/frontend/tile_budget.h"

#include <algorithm>
#include <string>

#include "runtime/core/resource_limits.h"

namespace ptoc::fe {

namespace {

constexpr int64_t kSat = INT64_MAX;

int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSat : r;
}
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? kSat : r;
}
// Tiles of `t` along an extent (one when the extent is symbolic).
int64_t along(const DimExpr& extent, int64_t t) {
  auto c = extent.as_const();
  if (!c || *c <= 0 || t <= 0) return 1;
  return *c / t + (*c % t != 0);
}
int64_t grid(const std::vector<DimExpr>& shape, const std::vector<int64_t>& tile) {
  if (shape.size() != tile.size()) return 1;
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) n = sat_mul(n, along(shape[i], tile[i]));
  return n;
}

std::string shape_text(const std::vector<DimExpr>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + s[i].str();
  return r + "]";
}

}  // namespace

int64_t op_tile_count(const Program& p, const Op& op) {
  if (op.kind == OpKind::Matmul && op.cube_tile && op.inputs.size() >= 2 && op.output >= 0) {
    const CubeTile& c = *op.cube_tile;
    const auto& out = p.values[size_t(op.output)].shape;
    const auto& a = p.values[size_t(op.inputs[0])].shape;
    if (out.size() < 2 || a.size() < 2) return 1;
    int64_t n = 1;
    for (size_t i = 0; i + 2 < out.size(); ++i) n = sat_mul(n, along(out[i], 1));
    n = sat_mul(n, along(out[out.size() - 2], c.m[0]));
    n = sat_mul(n, along(out[out.size() - 1], c.n[0]));
    const DimExpr& k = op.trans_a ? a[a.size() - 2] : a[a.size() - 1];
    return sat_mul(n, along(k, c.k[0]));
  }
  // Reads of GM tensors, views and reshapes move no data by themselves and take no tile.
  if (!op.vec_tile || op.kind == OpKind::TensorRef || op.kind == OpKind::View || op.kind == OpKind::Reshape) return 0;
  const auto& tile = op.vec_tile->shape;
  int64_t n = 0;
  if (op.output >= 0) n = grid(p.values[size_t(op.output)].shape, tile);
  for (int v : op.inputs)
    if (v >= 0) n = std::max(n, grid(p.values[size_t(v)].shape, tile));
  return n;
}

void check_tile_budget(const Program& p, Reporter& r) {
  const int64_t cap = limits::get(limits::Id::tiles_per_root);
  for (const auto& rt : p.roots) {
    int64_t total = 0, most = -1;
    const Op* big = nullptr;
    for (int o : rt.ops) {
      const Op& op = p.ops[size_t(o)];
      int64_t n = op_tile_count(p, op);
      total = sat_add(total, n);
      if (n > most) most = n, big = &op;
    }
    if (total <= cap || !big) continue;
    auto num = [](int64_t v) { return v == kSat ? std::string("more than 9.2e18") : std::to_string(v); };
    std::string what = "root function '" + rt.name + "' has " + num(total) + " static tiles, more than the limit of " +
                       std::to_string(cap) + "; this op makes " + num(most);
    if (big->output >= 0) what += " over " + shape_text(p.values[size_t(big->output)].shape);
    r.error(big->loc, what,
            "use larger tiles, a dynamic dim (its tiles are walked at run time), or a dynamic loop; or " +
                limits::raise_hint(limits::Id::tiles_per_root));
  }
}

}  // namespace ptoc::fe
