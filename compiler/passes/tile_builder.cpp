// The shared machinery of tile expansion: values as GM boxes, UB tiles,
// aliases or constants; GM homes and temps; reading any box of any value as a
// UB tile (one-to-one reuse when the producer's tile matches, a GM round trip
// otherwise); and the per-root dispatch over the tensor-graph ops.
#include <algorithm>

#include "compiler/passes/gm_box_axes.h"
#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

std::optional<int64_t> const_of(const DimExpr& e) { return e.as_const(); }

DimExpr clip_extent(int64_t ext, const DimExpr& rem) {
  if (auto c = rem.as_const()) return DimExpr(std::max<int64_t>(0, std::min(ext, *c)));
  // A valid extent already written as min(c, x) with c <= ext (a view's tail) stays as it is.
  if (rem.kind() == DimExpr::Kind::Min)
    for (auto& a : rem.args())
      if (auto c = a.as_const(); c && *c <= ext) return rem;
  return max(DimExpr(0), min(DimExpr(ext), rem));
}

DimExpr rename_symbol(const DimExpr& e, const std::string& from, const std::string& to) {
  using K = DimExpr::Kind;
  const auto& a = e.args();
  auto r = [&](int i) { return rename_symbol(a[i], from, to); };
  switch (e.kind()) {
    case K::Const: return e;
    case K::Sym: return e.name() == from ? DimExpr::sym(to) : e;
    case K::Add: return r(0) + r(1);
    case K::Sub: return r(0) - r(1);
    case K::Mul: return r(0) * r(1);
    case K::FloorDiv: return floordiv(r(0), r(1));
    case K::Mod: return mod(r(0), r(1));
    case K::Neg: return -r(0);
    case K::CeilDiv: return ceil_div(r(0), r(1));
    case K::Min: return min(r(0), r(1));
    case K::Max: return max(r(0), r(1));
  }
  return e;
}

Builder::Builder(const Program& p, const Platform& pl, DiagEngine& d, TileRoot& r, TilingStats& s, bool size_values)
    : prog(p), plat(pl), diags(d), root(r), stats(s) {
  cap = {0, pl.ub, pl.l1, pl.l0a, pl.l0b, pl.l0c};
  align = {1, pl.align_ub, pl.align_l1, pl.align_l0a, pl.align_l0b, pl.align_l0c};
  if (size_values) {
    vals.resize(p.values.size());
    home_assemble.assign(p.values.size(), -1);
  }
}

int Builder::new_tile(MemKind m, DType t, std::vector<int64_t> shape, std::vector<DimExpr> valid, Format f) {
  LocalTile lt;
  lt.id = int(root.tiles.size());
  lt.mem = m;
  lt.dtype = t;
  lt.shape = std::move(shape);
  lt.valid = std::move(valid);
  lt.layout = f;
  root.tiles.push_back(std::move(lt));
  return root.tiles.back().id;
}

int Builder::emit(TileOp op) {
  op.id = int(root.ops.size());
  if (op.seq < 0) op.seq = double(op.id);  // expansion emits in program order
  if (op.source_op < 0) op.source_op = cur_op;
  root.ops.push_back(std::move(op));
  note_emitted(root.ops.back().id, root.ops.back().id + 1);
  return root.ops.back().id;
}

void Builder::settle_copied_writers() {
  for (const PendingWriters& w : pending_writers) {
    if (tile_writer.size() < w.tiles) tile_writer.resize(w.tiles, -1);
    if (tile_written_at.size() < w.tiles) tile_written_at.resize(w.tiles, -1);
    for (int k = w.tile_begin; k < w.tile_end; ++k) {
      const int wr = tile_writer[size_t(k)];
      if (wr < 0) continue;
      tile_writer[size_t(k + w.tile_shift)] = wr + w.op_shift;
      tile_written_at[size_t(k + w.tile_shift)] = tile_written_at[size_t(k)] + double(w.op_shift);
    }
  }
  pending_writers.clear();
}

void Builder::note_emitted(int begin, int end) {
  if (!pending_writers.empty()) settle_copied_writers();
  for (int i = begin; i < end; ++i) {
    const TileOp& op = root.ops[size_t(i)];
    if ((op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut) && op.gm.tensor >= 0) {
      if (int(gm_version.size()) <= op.gm.tensor) gm_version.resize(size_t(op.gm.tensor) + 1, 0);
      ++gm_version[size_t(op.gm.tensor)];
    }
    if (op.dst >= 0) {
      if (int(tile_writer.size()) <= op.dst) tile_writer.resize(op.dst + 1, -1);
      if (tile_writer[op.dst] < 0) tile_writer[op.dst] = op.id;
      if (int(tile_written_at.size()) <= op.dst) tile_written_at.resize(op.dst + 1, -1);
      tile_written_at[op.dst] = std::max(tile_written_at[op.dst], op.seq);
    }
  }
}

int Builder::new_temp(DType t, const std::vector<int64_t>& shape, const std::string& what) {
  GmTensor g;
  g.name = "tmp" + std::to_string(magic) + "_" + std::to_string(root.temps.size()) + "_" + what;
  g.role = GmTensor::Role::Temp;
  g.dtype = t;
  for (auto d : shape) g.shape.push_back(DimExpr(d));
  g.root = root.root;
  root.temps.push_back(std::move(g));
  const int id = temp_base + int(root.temps.size()) - 1;
  if (root.gm_static_shapes.size() <= size_t(id)) root.gm_static_shapes.resize(size_t(id) + 1);
  root.gm_static_shapes[size_t(id)] = shape;
  return id;
}

DType Builder::tensor_dtype(int tensor) const {
  if (tensor < int(prog.tensors.size())) return prog.tensors[tensor].dtype;
  return root.temps[tensor - temp_base].dtype;
}

Format Builder::tensor_format(int tensor) const {
  if (tensor < int(prog.tensors.size())) return prog.tensors[tensor].format;
  return Format::ND;
}

void Builder::error(const Op& op, const std::string& msg, const std::string& hint) {
  diags.error(op.loc, msg, hint);
  failed = true;
}

std::optional<std::vector<int64_t>> Builder::static_shape(int value, const Op& op) {
  std::vector<int64_t> out;
  const Value& v = prog.values[value];
  for (size_t d = 0; d < v.shape.size(); ++d) {
    auto c = sub(v.shape[d]).as_const();
    if (!c) {
      error(op,
            "'" + std::string(op_kind_name(op.kind)) + "': axis " + std::to_string(d) + " of " +
                (v.name.empty() ? std::string("its operand") : "'" + v.name + "'") + " has the dynamic extent " +
                v.shape[d].str() + "; tiles need static shapes inside a root function",
            "slice a static window inside a dynamic loop (x[b*64:(b+1)*64, :]); tails are handled by valid shapes");
      return std::nullopt;
    }
    out.push_back(*c);
  }
  return out;
}

std::vector<DimExpr> Builder::valid_of(int value) const {
  const Value& v = prog.values[value];
  std::vector<DimExpr> out;
  for (size_t d = 0; d < v.shape.size(); ++d) out.push_back(sub(d < v.valid.size() ? v.valid[d] : v.shape[d]));
  return out;
}

Box Builder::value_box(int value, const std::vector<int64_t>& off, const std::vector<int64_t>& ext) const {
  Box b;
  auto valid = valid_of(value);
  for (size_t d = 0; d < off.size(); ++d) {
    b.off.push_back(DimExpr(off[d]));
    b.ext.push_back(ext[d]);
    b.valid.push_back(clip_extent(ext[d], valid[d] - DimExpr(off[d])));
  }
  return b;
}

GmRef Builder::gm_ref(const GmLoc& loc, const Box& b) const {
  GmRef r;
  r.tensor = loc.tensor;
  r.view = loc.view;
  for (size_t e = 0; e < loc.base.size(); ++e) {
    int m = loc.map[e];
    r.offset.push_back(m >= 0 ? loc.base[e] + b.off[m] : loc.base[e]);
    r.extent.push_back(m >= 0 ? b.valid[m] : DimExpr(1));
  }
  return r;
}

GmLoc Builder::home_of(int value) {
  ValueInfo& vi = vals[value];
  if (vi.gm.tensor >= 0) return vi.gm;
  const Value& v = prog.values[value];
  GmLoc loc;
  int asm_op = home_assemble[value];
  if (asm_op >= 0) {
    const Op& a = prog.ops[asm_op];
    loc.tensor = a.tensor;
    size_t trank = prog.tensors[a.tensor].shape.size();
    size_t lead = trank - v.shape.size();
    for (size_t e = 0; e < trank; ++e) {
      loc.base.push_back(e < a.offsets.size() ? sub(a.offsets[e]) : DimExpr(0));
      loc.map.push_back(e < lead ? -1 : int(e - lead));
    }
  } else {
    std::vector<int64_t> shape;
    for (auto& d : v.shape) shape.push_back(sub(d).as_const().value_or(1));
    loc.tensor = new_temp(v.dtype, shape, v.name.empty() ? "v" + std::to_string(value) : v.name);
    for (size_t e = 0; e < shape.size(); ++e) {
      loc.base.push_back(DimExpr(0));
      loc.map.push_back(int(e));
    }
  }
  vi.gm = loc;
  return loc;
}

void Builder::store_tile(int value, const std::vector<int64_t>& off) {
  ValueInfo& vi = vals[value];
  if (vi.stored.count(off)) return;
  GmLoc home = home_of(value);
  int t = vi.tiles.at(off);
  Box b = value_box(value, off, root.tiles[t].shape);
  TileOp op;
  op.kind = TileOpKind::CopyOut;
  op.srcs = {t};
  op.gm = gm_ref(home, b);
  if (!pending_writers.empty()) settle_copied_writers();
  op.source_op = root.ops[tile_writer[t]].source_op;  // the producer's op (scope, location)
  // In program order the store is part of the producer, wherever it is emitted (at the assemble,
  // or later for a misaligned reader): the home is a temp of its own, or a tensor no op touches
  // between the definition and the assemble (plan_assemble_homes).
  op.seq = tile_written_at[size_t(t)] + 0.25;
  emit(std::move(op));
  vals[value].stored.insert(off);
  vals[value].home_version = version_of(home.tensor);
}

GmLoc Builder::gm_of(int value) {
  ValueInfo& vi = vals[value];
  switch (vi.kind) {
    case ValueInfo::Kind::Gm: return vi.gm;
    case ValueInfo::Kind::Local: {
      if (vi.gm.tensor >= 0 && !vi.stored.empty() && vi.home_version != version_of(vi.gm.tensor)) {
        // The home was written by someone else since this value's store: the bytes there are no
        // longer this value. Its tiles are still valid: store them again into a temp of its own.
        const Value& v = prog.values[value];
        std::vector<int64_t> shape;
        for (auto& d : v.shape) shape.push_back(sub(d).as_const().value_or(1));
        GmLoc tmp;
        tmp.tensor = new_temp(v.dtype, shape, v.name.empty() ? "v" + std::to_string(value) : v.name);
        for (size_t e = 0; e < shape.size(); ++e) {
          tmp.base.push_back(DimExpr(0));
          tmp.map.push_back(int(e));
        }
        vals[value].gm = tmp;
        vals[value].stored.clear();
      }
      GmLoc home = home_of(value);
      // Every reader of a GM copy asks for it: once each tile is stored (stored is a subset of
      // tiles' keys) there is nothing to walk. Walking every tile per reader tile was quadratic
      // (fuzz seed 9100006: 65 % of its compile in set lookups).
      if (vals[value].stored.size() == vals[value].tiles.size()) return home;
      std::vector<std::vector<int64_t>> keys;
      for (auto& [k, t] : vals[value].tiles) keys.push_back(k);
      for (auto& k : keys) store_tile(value, k);
      return home;
    }
    case ValueInfo::Kind::Alias: {
      GmLoc s = gm_of(vi.src);
      // Compose: tensor axis e follows source axis s.map[e], which follows our axis alias.map[...].
      GmLoc out;
      out.tensor = s.tensor;
      out.view = s.view;
      for (size_t e = 0; e < s.base.size(); ++e) {
        int m = s.map[e];
        out.base.push_back(m >= 0 ? s.base[e] + vi.alias.base[m] : s.base[e]);
        out.map.push_back(m >= 0 ? vi.alias.map[m] : -1);
      }
      return out;
    }
    case ValueInfo::Kind::Full: {
      // A constant read by the cube: write it out once, tile by tile.
      const Value& v = prog.values[value];
      std::vector<int64_t> shape;
      for (auto& d : v.shape) shape.push_back(sub(d).as_const().value_or(1));
      int tensor = new_temp(v.dtype, shape, "full");
      GmLoc loc{tensor, {}, {}};
      for (size_t e = 0; e < shape.size(); ++e) {
        loc.base.push_back(DimExpr(0));
        loc.map.push_back(int(e));
      }
      const Op& fop = prog.ops[vi.src];
      auto tile = fop.vec_tile ? fop.vec_tile->shape : shape;
      if (tile.size() != shape.size()) tile = shape;
      std::vector<int64_t> off(shape.size(), 0);
      while (true) {
        std::vector<int64_t> ext;
        for (size_t d = 0; d < shape.size(); ++d) ext.push_back(std::min(tile[d], shape[d]));
        Box b = value_box(value, off, ext);
        int t = get_tile(value, b);
        TileOp st;
        st.kind = TileOpKind::CopyOut;
        st.srcs = {t};
        st.gm = gm_ref(loc, b);
        st.source_op = vi.src;
        emit(std::move(st));
        size_t d = shape.size();
        while (d > 0) {
          --d;
          off[d] += tile[d];
          if (off[d] < shape[d]) break;
          off[d] = 0;
          if (d == 0) { d = SIZE_MAX; break; }
        }
        if (d == SIZE_MAX || shape.empty()) break;
      }
      vi.kind = ValueInfo::Kind::Gm;
      vi.gm = loc;
      return loc;
    }
    case ValueInfo::Kind::None: break;
  }
  return {};
}

int Builder::get_tile(int value, const Box& b) {
  ValueInfo& vi = vals[value];
  const Value& v = prog.values[value];
  switch (vi.kind) {
    case ValueInfo::Kind::Local: {
      std::vector<int64_t> key;
      bool all_const = true;
      for (auto& o : b.off) {
        auto c = o.as_const();
        if (!c) { all_const = false; break; }
        key.push_back(*c);
      }
      if (all_const) {
        auto it = vi.tiles.find(key);
        if (it != vi.tiles.end() && root.tiles[it->second].shape == b.ext) return it->second;  // one-to-one
      }
      break;  // misaligned: through GM below
    }
    case ValueInfo::Kind::Alias: {
      Box sb;
      const Value& s = prog.values[vi.src];
      auto svalid = valid_of(vi.src);
      for (size_t e = 0; e < s.shape.size(); ++e) {
        int m = vi.alias.map[e];
        sb.off.push_back(m >= 0 ? vi.alias.base[e] + b.off[m] : vi.alias.base[e]);
        sb.ext.push_back(m >= 0 ? b.ext[m] : 1);
        sb.valid.push_back(m >= 0 ? b.valid[m] : DimExpr(1));
      }
      int t = get_tile(vi.src, sb);
      const auto& ts = root.tiles[t].shape;
      if (ts == b.ext) return t;
      // Same bytes with leading size-1 axes added or dropped (x[i, :], y[i, :] = v):
      // elementwise consumers and stores align operands to the right, so the
      // source tile serves as it is. Other consumers index axes: through GM.
      if (cur_op >= 0) {
        const Op& c = prog.ops[cur_op];
        bool right_aligned = c.kind == OpKind::Assemble || is_binary(c.kind) || is_unary(c.kind) ||
                             c.kind == OpKind::Cast;
        const auto& lo = ts.size() < b.ext.size() ? ts : b.ext;
        const auto& hi = ts.size() < b.ext.size() ? b.ext : ts;
        bool lead_ones = true;
        for (size_t d = 0; d < hi.size(); ++d) {
          size_t pad = hi.size() - lo.size();
          lead_ones &= d < pad ? hi[d] == 1 : hi[d] == lo[d - pad];
        }
        // A store needs the tile's rank <= the GM box rank.
        if (right_aligned && lead_ones && (c.kind != OpKind::Assemble || ts.size() <= b.ext.size())) return t;
      }
      break;
    }
    case ValueInfo::Kind::Full: {
      const Op& fop = prog.ops[vi.src];
      TileOp op;
      op.kind = TileOpKind::Vec;
      op.vop = OpKind::Full;
      op.fill = fop.fill;
      op.dtype = v.dtype;
      op.dst = new_tile(MemKind::UB, v.dtype, b.ext, b.valid);
      op.source_op = vi.src;
      emit(std::move(op));
      return root.ops.back().dst;
    }
    case ValueInfo::Kind::Gm:
    case ValueInfo::Kind::None: break;
  }
  GmLoc loc = gm_of(value);
  TileOp op;
  op.kind = TileOpKind::CopyIn;
  op.gm = gm_ref(loc, b);
  std::vector<DimExpr> gm_shape;  // the tensor's shape in op.gm's addressing
  if (op.gm.tensor >= 0) {
    gm_shape = op.gm.view;
    if (gm_shape.empty())
      gm_shape = op.gm.tensor < int(prog.tensors.size()) ? prog.tensors[op.gm.tensor].shape
                                                         : root.temps[op.gm.tensor - temp_base].shape;
  }
  if (op.gm.tensor >= 0 && size_one_axes_after_mapped(loc, b.ext.size(), &gm_shape)) {
    // Size-1 axes added after a mapped axis ([M] -> [M, 1], [M, N] -> [M, 1, N]) or dropped after one
    // ([N, 1] -> [1, N]): the copy pairs tile and GM axes from the right, so give the GM box the
    // tile's axes in the tile's order.
    op.gm = with_value_axes(op.gm, loc, b.ext.size(), gm_shape);
  } else if (op.gm.tensor >= 0 && op.gm.offset.size() < b.ext.size()) {
    // A tile with more (size-1) axes than its GM box (an unsqueezed alias read
    // through GM): address the tensor under a view with leading 1s, same bytes.
    size_t pad = b.ext.size() - op.gm.offset.size();
    std::vector<DimExpr> shape = op.gm.view;
    if (shape.empty())
      shape = op.gm.tensor < int(prog.tensors.size()) ? prog.tensors[op.gm.tensor].shape
                                                      : root.temps[op.gm.tensor - temp_base].shape;
    op.gm.view.assign(pad, DimExpr(1));
    op.gm.view.insert(op.gm.view.end(), shape.begin(), shape.end());
    op.gm.offset.insert(op.gm.offset.begin(), pad, DimExpr(0));
    op.gm.extent.insert(op.gm.extent.begin(), pad, DimExpr(1));
  }
  // One load per GM box: later readers share it (partition reloads it where groups differ).
  std::string key = std::to_string(op.gm.tensor) + ":" + std::to_string(int(v.dtype));
  for (auto& o : op.gm.offset) key += "," + o.str();
  for (auto& e : op.gm.extent) key += ";" + e.str();
  for (auto e : b.ext) key += "/" + std::to_string(e);
  for (auto& e : op.gm.view) key += "@" + e.str();
  key += "#" + std::to_string(version_of(op.gm.tensor));
  if (auto it = loaded.find(key); it != loaded.end()) return it->second;
  op.dst = new_tile(MemKind::UB, v.dtype, b.ext, b.valid);
  emit(std::move(op));
  loaded[key] = root.ops.back().dst;
  return root.ops.back().dst;
}

std::optional<std::vector<int64_t>> Builder::vec_tile_for(const Op& op, size_t rank) {
  if (!op.vec_tile) {
    error(op, "'" + std::string(op_kind_name(op.kind)) + "' has no vec_tile in force",
          "add {vec_tile: [...]} before this statement");
    return std::nullopt;
  }
  if (op.vec_tile->shape.size() != rank) {
    error(op,
          "vec_tile has rank " + std::to_string(op.vec_tile->shape.size()) + " but '" +
              std::string(op_kind_name(op.kind)) + "' works on rank " + std::to_string(rank),
          "give one tile extent per axis");
    return std::nullopt;
  }
  for (auto t : op.vec_tile->shape)
    if (t <= 0) {
      error(op, "vec_tile extents must be positive");
      return std::nullopt;
    }
  return op.vec_tile->shape;
}

// Reshape that only adds or removes size-1 axes: per source axis, the result axis it becomes.
static std::optional<std::vector<int>> squeeze_map(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  std::vector<int> map(from.size(), -1);
  size_t j = 0;
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] == 1) {
      // keep it if the target has a 1 here that the next non-1 source axis does not need
      if (j < to.size() && to[j] == 1) map[i] = int(j++);
      continue;
    }
    while (j < to.size() && to[j] == 1) ++j;
    if (j >= to.size() || to[j] != from[i]) return std::nullopt;
    map[i] = int(j++);
  }
  while (j < to.size() && to[j] == 1) ++j;
  if (j != to.size()) return std::nullopt;
  return map;
}

// Reshape. Adding or removing size-1 axes keeps the value where it is (a GM
// box with one axis fewer or more, or an alias of UB tiles). Any other
// reshape reinterprets row-major bytes: the value must be a whole ND GM
// tensor (an input, a workspace, or the temp its producer stores to), and
// the result is that tensor under a reshaped view (GmRef::view). A value that
// is only a window of a tensor is first copied into a temp of its own.
void Builder::expand_reshape(const Op& op) {
  int u = op.inputs[0];
  const Value& in = prog.values[u];
  const Value& outv = prog.values[op.output];
  auto consts = [&](const std::vector<DimExpr>& sh) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> r;
    for (auto& d : sh) {
      auto c = sub(d).as_const();
      if (!c) return std::nullopt;
      r.push_back(*c);
    }
    return r;
  };
  auto from = consts(in.shape), to = consts(outv.shape);
  ValueInfo& src = vals[u];
  // A GM window whose innermost kept tensor axis is followed by a dropped one of extent > 1 in the tensor
  // (reshape(view(reshape(x, [4, 8, 2]), [4, 8, 1], ...), [4, 8]): every other element) is a strided read
  // the right-aligned copy cannot express: it is copied into a temp of its own first, as a window is below.
  auto strided_drop = [&](const std::vector<int>& map) {
    if (src.kind != ValueInfo::Kind::Gm || src.gm.tensor < 0) return false;
    std::vector<DimExpr> tshape = src.gm.view;
    if (tshape.empty())
      tshape = src.gm.tensor < int(prog.tensors.size()) ? prog.tensors[src.gm.tensor].shape
                                                        : root.temps[src.gm.tensor - temp_base].shape;
    int last_kept = -1;
    for (size_t e = 0; e < src.gm.map.size(); ++e)
      if (src.gm.map[e] >= 0 && map[size_t(src.gm.map[e])] >= 0) last_kept = int(e);
    for (size_t e = size_t(last_kept + 1); e < src.gm.map.size() && e < tshape.size(); ++e)
      if (src.gm.map[e] >= 0 && map[size_t(src.gm.map[e])] < 0 && sub(tshape[e]).as_const() != 1) return true;
    return false;
  };
  if (from && to) {
    auto map = squeeze_map(*from, *to);
    if (map && !strided_drop(*map)) {
      ValueInfo& vi = vals[op.output];
      if (src.kind == ValueInfo::Kind::Gm) {
        vi.kind = ValueInfo::Kind::Gm;
        vi.gm = src.gm;
        for (auto& m : vi.gm.map) m = m >= 0 ? (*map)[m] : -1;
      } else if (src.kind == ValueInfo::Kind::Full) {
        vi = src;
      } else {
        vi.kind = ValueInfo::Kind::Alias;
        vi.src = u;
        vi.alias.base.assign(from->size(), DimExpr(0));
        vi.alias.map = *map;
      }
      return;
    }
  }
  if (src.kind == ValueInfo::Kind::Full) {
    vals[op.output] = src;
    return;
  }
  DimExpr::Env senv = env;
  for (const DimDecl& d : prog.dims)
    if (!d.dynamic) senv[d.name] = d.value;
  auto same = [&](const DimExpr& a, const DimExpr& b) {
    auto ca = a.substitute(senv).as_const(), cb = b.substitute(senv).as_const();
    if (ca && cb) return *ca == *cb;
    return sub(a).str() == sub(b).str();
  };
  // Is `loc` the whole value `u` laid row-major over all of its tensor?
  auto whole = [&](const GmLoc& loc) {
    if (loc.tensor < 0 || tensor_format(loc.tensor) != Format::ND) return false;
    std::vector<DimExpr> tshape = loc.view;
    if (tshape.empty()) {
      if (loc.tensor < int(prog.tensors.size()))
        tshape = prog.tensors[loc.tensor].shape;
      else
        tshape = root.temps[loc.tensor - temp_base].shape;
    }
    if (tshape.size() != in.shape.size() || loc.map.size() != in.shape.size()) return false;
    for (size_t e = 0; e < tshape.size(); ++e) {
      auto b = sub(loc.base[e]).as_const();
      if (loc.map[e] != int(e) || !b || *b != 0 || !same(tshape[e], in.shape[e])) return false;
    }
    return true;
  };
  if (reshape_home.count(u)) {
    // u was produced straight into the bytes this reshape is assembled to.
    gm_of(u);
    ValueInfo& vi = vals[op.output];
    vi.kind = ValueInfo::Kind::Gm;
    vi.gm = home_of(op.output);
    return;
  }
  GmLoc loc = gm_of(u);
  if (!whole(loc)) {
    // Only a window of its tensor: copy it into a temp of its own, tile by tile.
    if (!from) {
      static_shape(u, op);
      return;
    }
    auto tile = vec_tile_for(op, from->size());
    if (!tile) return;
    GmLoc tmp;
    tmp.tensor = new_temp(in.dtype, *from, in.name.empty() ? "reshape" : in.name);
    for (size_t e = 0; e < from->size(); ++e) {
      tmp.base.push_back(DimExpr(0));
      tmp.map.push_back(int(e));
    }
    std::vector<int64_t> t = *tile;
    for (size_t d = 0; d < t.size(); ++d) t[d] = std::min(t[d], (*from)[d]);
    for_each_tile(*from, t, [&](const std::vector<int64_t>& off, const std::vector<int64_t>& ext) {
      Box b = value_box(u, off, ext);
      int lt = get_tile(u, b);
      TileOp st;
      st.kind = TileOpKind::CopyOut;
      st.srcs = {lt};
      st.gm = gm_ref(tmp, b);
      emit(std::move(st));
    });
    loc = tmp;
  }
  ValueInfo& vi = vals[op.output];
  vi.kind = ValueInfo::Kind::Gm;
  vi.gm.tensor = loc.tensor;
  vi.gm.base.assign(outv.shape.size(), DimExpr(0));
  vi.gm.map.clear();
  vi.gm.view.clear();
  for (size_t e = 0; e < outv.shape.size(); ++e) {
    vi.gm.map.push_back(int(e));
    vi.gm.view.push_back(sub(outv.shape[e]));
  }
}

// `t[o:o+n, :] = reshape(u, ...)` with whole trailing axes is a contiguous run
// of t's bytes: u gets that run, under u's own shape, as its GM home, so its
// producer (a matmul's FixOut, a vector store) writes the final bytes.
void Builder::plan_reshape_homes(const RootTemplate& rt) {
  // Static dims folded in, so that [M, N] compares with [16384, 16].
  DimExpr::Env senv = env;
  for (const DimDecl& d : prog.dims)
    if (!d.dynamic) senv[d.name] = d.value;
  auto sub = [&](const DimExpr& e) { return e.substitute(senv); };
  std::set<int> in_root;
  for (int oid : rt.ops) in_root.insert(oid);
  for (int oid : rt.ops) {
    const Op& a = prog.ops[oid];
    if (a.kind != OpKind::Assemble || a.inputs.empty() || home_assemble[a.inputs[0]] != oid) continue;
    int v = a.inputs[0];
    int rop = prog.values[v].def_op;
    if (rop < 0 || !in_root.count(rop) || prog.ops[rop].kind != OpKind::Reshape) continue;
    int u = prog.ops[rop].inputs[0];
    int uop = prog.values[u].def_op;
    if (uop < 0 || !in_root.count(uop) || prog.ops[uop].kind == OpKind::TensorRef ||
        prog.ops[uop].kind == OpKind::View || prog.ops[uop].kind == OpKind::Reshape || prog.ops[uop].kind == OpKind::Full)
      continue;
    if (home_assemble[u] >= 0 || vals[u].gm.tensor >= 0) continue;
    const TensorDecl& t = prog.tensors[a.tensor];
    const Value &vv = prog.values[v], &uv = prog.values[u];
    if (t.format != Format::ND || t.shape.size() != vv.shape.size() || uv.shape.empty() || vv.shape.empty()) continue;
    bool ok = true;
    int64_t rowS = 1, rowU = 1;
    for (size_t d = 1; d < vv.shape.size() && ok; ++d) {
      auto cv = sub(vv.shape[d]).as_const(), ct = sub(t.shape[d]).as_const();
      auto off = d < a.offsets.size() ? sub(a.offsets[d]).as_const() : std::optional<int64_t>(0);
      ok = cv && ct && *cv == *ct && off && *off == 0;
      if (ok) rowS *= *cv;
    }
    for (size_t d = 1; d < uv.shape.size() && ok; ++d) {
      auto c = sub(uv.shape[d]).as_const();
      ok = c.has_value();
      if (ok) rowU *= *c;
    }
    auto n0 = sub(vv.shape[0]).as_const();
    if (!ok || !n0 || (*n0 * rowS) % rowU != 0) continue;
    // The run must start on a row of u's shape: offset0 * rowS divisible by rowU.
    DimExpr o0 = a.offsets.empty() ? DimExpr(0) : sub(a.offsets[0]);
    bool aligned = false;
    if (auto c = o0.as_const()) aligned = (*c * rowS) % rowU == 0;
    else if (o0.kind() == DimExpr::Kind::Mul)
      for (auto& x : o0.args())
        if (auto c = x.as_const()) aligned |= (*c * rowS) % rowU == 0;
    // The tensor's element count must also be whole rows of u's shape.
    DimExpr total = sub(t.shape[0]) * DimExpr(rowS);
    if (auto c = total.as_const(); c && *c % rowU != 0) aligned = false;
    if (!aligned) continue;
    GmLoc loc;
    loc.tensor = a.tensor;
    loc.base.push_back(floordiv(o0 * DimExpr(rowS), DimExpr(rowU)));
    loc.view.push_back(floordiv(total, DimExpr(rowU)));
    loc.map.push_back(0);
    for (size_t d = 1; d < uv.shape.size(); ++d) {
      loc.base.push_back(DimExpr(0));
      loc.view.push_back(sub(uv.shape[d]));
      loc.map.push_back(int(d));
    }
    vals[u].gm = loc;
    reshape_home.insert(u);
  }
}

// Which spec tensor each value is a window of (TensorRef, View, Reshape chains), the positions
// of the ops that read or write each tensor, and every value's last reader.
namespace {
struct TensorTouches {
  std::unordered_map<int, int> base;            // value -> tensor it views
  std::map<int, std::vector<int>> at;           // tensor -> positions touching it, ascending
  std::unordered_map<int, int> pos_of_op;       // tensor-graph op -> position in the root
  // Is tensor t touched at a position in [from, to)?
  bool touched(int t, int from, int to) const {
    auto it = at.find(t);
    if (it == at.end()) return false;
    auto p = std::lower_bound(it->second.begin(), it->second.end(), from);
    return p != it->second.end() && *p < to;
  }
};

TensorTouches tensor_touches(const Program& prog, const RootTemplate& rt, std::unordered_map<int, int>& last_use) {
  TensorTouches tt;
  for (size_t p = 0; p < rt.ops.size(); ++p) {
    const Op& op = prog.ops[rt.ops[p]];
    tt.pos_of_op[rt.ops[p]] = int(p);
    for (int v : op.inputs) last_use[v] = int(p);
    auto mark = [&](int t) {
      auto& v = tt.at[t];
      if (v.empty() || v.back() != int(p)) v.push_back(int(p));
    };
    if (op.kind == OpKind::TensorRef) {
      tt.base[op.output] = op.tensor;
      continue;
    }
    if (op.kind == OpKind::View || op.kind == OpKind::Reshape) {
      if (auto it = tt.base.find(op.inputs[0]); it != tt.base.end()) {
        tt.base[op.output] = it->second;
        if (op.kind == OpKind::Reshape) mark(it->second);  // may copy a window into a temp
      }
      continue;
    }
    for (int v : op.inputs)
      if (auto it = tt.base.find(v); it != tt.base.end()) mark(it->second);
    if (op.kind == OpKind::Assemble) mark(op.tensor);
  }
  return tt;
}
}  // namespace

void Builder::plan_assemble_homes(const RootTemplate& rt) {
  TensorTouches tt = tensor_touches(prog, rt, last_use);
  // A value assembled into a spec tensor lives there (its GM copy is the assemble itself), unless
  // another op touches that tensor between the value's definition and the assemble: a store made
  // early (a misaligned reader, a cut) would then be read, or overwritten, out of program order.
  for (size_t p = 0; p < rt.ops.size(); ++p) {
    int oid = rt.ops[p];
    const Op& op = prog.ops[oid];
    if (op.kind != OpKind::Assemble || op.inputs.empty() || home_assemble[op.inputs[0]] >= 0) continue;
    const Value& v = prog.values[op.inputs[0]];
    if (prog.tensors[op.tensor].shape.size() < v.shape.size()) continue;
    auto d = tt.pos_of_op.find(v.def_op);
    int from = d == tt.pos_of_op.end() ? 0 : d->second;
    if (tt.touched(op.tensor, from, int(p))) continue;
    // Nor may the tensor be written again while the value is still to be read: a value that lives
    // only in GM (a cube result written by its fixpipe) would be read back overwritten.
    if (auto lu = last_use.find(op.inputs[0]); lu != last_use.end() && lu->second > int(p) &&
        tt.touched(op.tensor, int(p) + 1, lu->second))
      continue;
    home_assemble[op.inputs[0]] = oid;
  }
  plan_reshape_homes(rt);
  // A reshape home is a run of the assembled tensor: the same rule.
  for (auto it = reshape_home.begin(); it != reshape_home.end();) {
    int u = *it;
    auto d = tt.pos_of_op.find(prog.values[u].def_op);
    int t = vals[u].gm.tensor;
    int from = d == tt.pos_of_op.end() ? 0 : d->second;
    int to = int(rt.ops.size());
    // The assemble of the reshape of u: the last op writing t after u's definition.
    if (auto at = tt.at.find(t); at != tt.at.end())
      for (int q : at->second)
        if (q > from && prog.ops[rt.ops[size_t(q)]].kind == OpKind::Assemble &&
            prog.ops[rt.ops[size_t(q)]].tensor == t) {
          to = q;
          break;
        }
    if (tt.touched(t, from, to)) {
      vals[u].gm = GmLoc{};
      it = reshape_home.erase(it);
    } else {
      ++it;
    }
  }
}

void Builder::snapshot(int u, const Op& at) {
  const Value& v = prog.values[u];
  std::vector<int64_t> S;
  for (auto& d : v.shape) {
    auto c = sub(d).as_const();
    if (!c) return;  // a whole dynamic tensor is only windowed by views, never read itself
    S.push_back(*c);
  }
  if (S.empty()) return;
  std::vector<int64_t> T = S;
  const Op* def = v.def_op >= 0 ? &prog.ops[size_t(v.def_op)] : nullptr;
  if (at.vec_tile && at.vec_tile->shape.size() == S.size())
    T = at.vec_tile->shape;
  else if (def && def->vec_tile && def->vec_tile->shape.size() == S.size())
    T = def->vec_tile->shape;
  for (size_t d = 0; d < T.size(); ++d) T[d] = std::max<int64_t>(1, std::min(T[d], S[d]));
  // Keep a copy tile within a quarter of UB: shrink the leading axes first.
  auto bytes = [&] {
    int64_t n = dtype_size(v.dtype);
    for (auto x : T) n *= x;
    return n;
  };
  for (size_t d = 0; d + 1 < T.size() && bytes() > cap[1] / 4; ++d) T[d] = 1;
  GmLoc tmp;
  tmp.tensor = new_temp(v.dtype, S, v.name.empty() ? "snap" : v.name + "_snap");
  for (size_t e = 0; e < S.size(); ++e) {
    tmp.base.push_back(DimExpr(0));
    tmp.map.push_back(int(e));
  }
  for_each_tile(S, T, [&](const std::vector<int64_t>& off, const std::vector<int64_t>& ext) {
    Box b = value_box(u, off, ext);
    TileOp st;
    st.kind = TileOpKind::CopyOut;
    st.srcs = {get_tile(u, b)};
    st.gm = gm_ref(tmp, b);
    emit(std::move(st));
  });
  ValueInfo& vi = vals[u];
  vi.gm = tmp;
}

bool Builder::assembled_in_place(int v, const Op& op) const {
  const ValueInfo& vi = vals[v];
  if (vi.kind != ValueInfo::Kind::Gm || vi.gm.tensor != op.tensor || !vi.gm.view.empty()) return false;
  size_t trank = prog.tensors[op.tensor].shape.size(), lead = trank - prog.values[v].shape.size();
  if (vi.gm.base.size() != trank) return false;
  for (size_t e = 0; e < trank; ++e) {
    DimExpr b = e < op.offsets.size() ? sub(op.offsets[e]) : DimExpr(0);
    if (vi.gm.map[e] != (e < lead ? -1 : int(e - lead)) || sub(vi.gm.base[e]).str() != b.str()) return false;
  }
  return true;
}

void Builder::snapshot_before_writes(const RootTemplate& rt, size_t pos, const Op& op) {
  (void)rt;
  // The tensors this op may write: an assemble's target, or the GM home its output is stored to.
  int targets[2] = {-1, -1};
  if (op.kind == OpKind::Assemble) targets[0] = op.tensor;
  if (op.output >= 0) {
    if (home_assemble[op.output] >= 0) targets[1] = prog.ops[home_assemble[op.output]].tensor;
    else if (reshape_home.count(op.output)) targets[1] = vals[op.output].gm.tensor;
  }
  for (int t : targets) {
    if (t < 0) continue;
    auto it = gm_values.find(t);
    if (it == gm_values.end()) continue;
    std::vector<int> keep;
    for (int u : it->second) {
      ValueInfo& vi = vals[u];
      if (vi.kind != ValueInfo::Kind::Gm || vi.gm.tensor != t) continue;  // already copied
      auto lu = last_use.find(u);
      if (lu == last_use.end() || lu->second < int(pos)) continue;  // dead: never read again
      // Read again at or after this write: it must see the bytes as they are now. (An assemble of
      // a value already at its target writes nothing.)
      if (!(op.kind == OpKind::Assemble && op.inputs[0] == u && assembled_in_place(u, op))) snapshot(u, op);
      if (vals[u].gm.tensor == t) keep.push_back(u);
    }
    it->second = std::move(keep);
  }
}

void Builder::expand_root(const RootTemplate& rt) {
  plan_assemble_homes(rt);
  for (size_t pos = 0; pos < rt.ops.size(); ++pos) {
    int oid = rt.ops[pos];
    if (diags.full()) break;
    const Op& op = prog.ops[oid];
    cur_op = oid;
    snapshot_before_writes(rt, pos, op);
    switch (op.kind) {
      case OpKind::TensorRef: {
        ValueInfo& vi = vals[op.output];
        vi.kind = ValueInfo::Kind::Gm;
        vi.gm.tensor = op.tensor;
        for (size_t e = 0; e < prog.tensors[op.tensor].shape.size(); ++e) {
          vi.gm.base.push_back(DimExpr(0));
          vi.gm.map.push_back(int(e));
        }
        gm_values[op.tensor].push_back(op.output);
        break;
      }
      case OpKind::Full: {
        vals[op.output].kind = ValueInfo::Kind::Full;
        vals[op.output].src = oid;
        break;
      }
      case OpKind::View: {
        int u = op.inputs[0];
        ValueInfo& src = vals[u];
        ValueInfo& vi = vals[op.output];
        std::vector<DimExpr> off;
        for (auto& o : op.offsets) off.push_back(sub(o));
        if (src.kind == ValueInfo::Kind::Gm) {
          vi.kind = ValueInfo::Kind::Gm;
          vi.gm = src.gm;
          for (size_t e = 0; e < vi.gm.base.size(); ++e)
            if (vi.gm.map[e] >= 0) vi.gm.base[e] = vi.gm.base[e] + off[vi.gm.map[e]];
          gm_values[vi.gm.tensor].push_back(op.output);
        } else if (src.kind == ValueInfo::Kind::Full) {
          vi = src;
        } else {
          vi.kind = ValueInfo::Kind::Alias;
          vi.src = u;
          vi.alias.base = off;
          for (size_t e = 0; e < off.size(); ++e) vi.alias.map.push_back(int(e));
        }
        break;
      }
      case OpKind::Reshape:
        expand_reshape(op);
        if (vals[op.output].kind == ValueInfo::Kind::Gm && vals[op.output].gm.tensor >= 0)
          gm_values[vals[op.output].gm.tensor].push_back(op.output);
        break;
      case OpKind::Assemble: expand_assemble(op); break;
      case OpKind::Matmul: expand_matmul(op); break;
      default:
        if (is_reduction(op.kind))
          expand_reduction(op);
        else
          expand_vector(op);
        break;
    }
  }
  cur_op = -1;
}

}  // namespace ptoc::tiling
