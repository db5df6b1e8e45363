// Tile expansion of vector ops: one tile op per vec_tile box of the output,
// operands read box by box (broadcast axes read their size-1 box), tails
// clipped by valid shapes; reductions over an axis the tile splits reduce
// partially, go through a GM temp and are combined by a second step; assemble
// stores a value's tiles into a spec tensor.
#include <algorithm>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

static std::vector<int64_t> clip_tile(const std::vector<int64_t>& tile, const std::vector<int64_t>& shape) {
  std::vector<int64_t> t(tile.size());
  for (size_t d = 0; d < tile.size(); ++d) t[d] = std::min(tile[d], shape[d]);
  return t;
}

// The box of operand `u` (NumPy broadcasting against an output box of rank R).
static Box operand_box(Builder& b, int u, const std::vector<int64_t>& ushape, const std::vector<int64_t>& off,
                       const std::vector<int64_t>& ext) {
  size_t R = off.size(), r = ushape.size();
  std::vector<int64_t> uo(r), ue(r);
  for (size_t e = 0; e < r; ++e) {
    size_t d = e + R - r;
    if (ushape[e] == 1) {  // broadcast (or extent 1 anyway): its only row, also when the tile has extent 1 there
      uo[e] = 0;
      ue[e] = 1;
    } else {
      uo[e] = off[d];
      ue[e] = ext[d];
    }
  }
  return b.value_box(u, uo, ue);
}

void Builder::expand_vector(const Op& op) {
  int w = op.output;
  auto S = static_shape(w, op);
  if (!S) return;
  auto T0 = vec_tile_for(op, S->size());
  if (!T0) return;
  auto T = clip_tile(*T0, *S);
  std::vector<std::vector<int64_t>> ushapes;
  for (int u : op.inputs) {
    auto us = static_shape(u, op);
    if (!us) return;
    ushapes.push_back(*us);
  }
  ValueInfo& vi = vals[w];
  vi.kind = ValueInfo::Kind::Local;
  vi.tile = T;
  const Value& wv = prog.values[w];
  for_each_tile(*S, *T0, [&](const std::vector<int64_t>& off, const std::vector<int64_t>&) {
    Box ob = value_box(w, off, T);
    TileOp t;
    t.kind = TileOpKind::Vec;
    t.vop = op.kind;
    t.dtype = op.kind == OpKind::Cast ? op.dtype : wv.dtype;
    t.scalar = op.scalar;
    t.scalar_first = op.scalar_first;
    t.fill = op.fill;
    if (op.kind == OpKind::Uniform || op.kind == OpKind::Normal) t.axes = op.axes;  // --- random ops --- key, counter
    if (op.kind == OpKind::Transpose) {
      int d0 = op.axes.at(0), d1 = op.axes.at(1);
      auto io = off;
      auto ie = T;
      std::swap(io[d0], io[d1]);
      std::swap(ie[d0], ie[d1]);
      t.axes = {d0, d1};
      t.srcs = {get_tile(op.inputs[0], value_box(op.inputs[0], io, ie))};
      t.dst = new_tile(MemKind::UB, t.dtype, T, ob.valid);
      vals[w].tiles[off] = t.dst;
      emit(std::move(t));
      return;
    }
    if (op.kind == OpKind::Concat) {
      int dim = op.axes.at(0);
      int dst = new_tile(MemKind::UB, t.dtype, T, ob.valid);
      int64_t start = 0;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        int64_t len = ushapes[i][dim];
        int64_t lo = std::max(off[dim], start), hi = std::min(off[dim] + T[dim], start + len);
        if (lo < hi) {
          auto io = off;
          auto ie = T;
          io[dim] = lo - start;
          ie[dim] = hi - lo;
          TileOp c = t;
          c.axes = {dim};
          c.srcs = {get_tile(op.inputs[i], value_box(op.inputs[i], io, ie))};
          c.dst = dst;
          c.sub_offset.assign(T.size(), 0);
          c.sub_offset[dim] = lo - off[dim];
          emit(std::move(c));
        }
        start += len;
      }
      vals[w].tiles[off] = dst;
      return;
    }
    if (op.kind == OpKind::Bitcast) {  // --- pack / unpack --- the same bytes: the last axis scaled back
      t.dtype = op.dtype;
      const int64_t sa = dtype_size(prog.values[op.inputs[0]].dtype), sd = dtype_size(op.dtype);
      auto io = off;
      auto ie = T;
      io.back() = io.back() * sd / sa;
      ie.back() = ie.back() * sd / sa;
      t.srcs = {get_tile(op.inputs[0], value_box(op.inputs[0], io, ie))};
      t.dst = new_tile(MemKind::UB, t.dtype, T, ob.valid);
      vals[w].tiles[off] = t.dst;
      emit(std::move(t));
      return;
    }
    if (op.kind == OpKind::SortValues || op.kind == OpKind::SortIndices) {
      // --- sort --- each output tile holds whole rows of k; its operands are the same rows, the whole
      // sorted (last) axis (the front end keeps it whole in the op's vec_tile).
      t.axes = op.axes;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        auto ie = T;
        ie.back() = ushapes[i].back();
        t.srcs.push_back(get_tile(op.inputs[i], value_box(op.inputs[i], off, ie)));
      }
      t.dst = new_tile(MemKind::UB, t.dtype, T, ob.valid);
      vals[w].tiles[off] = t.dst;
      emit(std::move(t));
      return;
    }
    for (size_t i = 0; i < op.inputs.size(); ++i)
      t.srcs.push_back(get_tile(op.inputs[i], operand_box(*this, op.inputs[i], ushapes[i], off, T)));
    t.dst = new_tile(MemKind::UB, t.dtype, T, ob.valid);
    vals[w].tiles[off] = t.dst;
    emit(std::move(t));
  });
  for (auto& [off, t] : vals[w].tiles) tile_origin[t] = {w, off};
}

void Builder::expand_reduction(const Op& op) {
  int x = op.inputs[0], w = op.output;
  auto S = static_shape(x, op);
  auto SW = static_shape(w, op);
  if (!S || !SW) return;
  int a = op.axes.at(0);
  if (a < 0) a += int(S->size());
  // The tile covers the input; a tile of the output's rank (keepdim=false) gets the whole axis added.
  std::optional<std::vector<int64_t>> T0;
  if (op.vec_tile && op.vec_tile->shape.size() + 1 == S->size() && !op.keepdim) {
    auto t = op.vec_tile->shape;
    t.insert(t.begin() + a, (*S)[a]);
    T0 = t;
  } else {
    T0 = vec_tile_for(op, S->size());
  }
  if (!T0) return;
  auto T = clip_tile(*T0, *S);
  const Value& xv = prog.values[x];
  DType dt = xv.dtype;
  OpKind part_kind = op.kind == OpKind::Mean ? OpKind::Sum : op.kind;
  auto to_out = [&](std::vector<int64_t> v) {  // input-rank (keepdim form) -> output rank
    if (!op.keepdim) v.erase(v.begin() + a);
    return v;
  };
  ValueInfo& vi = vals[w];
  vi.kind = ValueInfo::Kind::Local;
  auto Tk = T;
  Tk[a] = 1;
  vi.tile = to_out(Tk);
  auto xvalid = valid_of(x);
  const bool index_red = op.kind == OpKind::Argmax || op.kind == OpKind::Argmin;
  const DType odt = prog.values[w].dtype;  // int32 for argmax / argmin
  if (index_red && T[a] < (*S)[a]) {
    // Partial indices would need their values carried to the combine step; PyPTO keeps the axis whole too.
    error(op, std::string(op_kind_name(op.kind)) + " over axis " + std::to_string(a) + " (extent " +
                  std::to_string((*S)[a]) + ") is split by vec_tile (" + std::to_string(T[a]) + " on that axis)",
          "keep the reduced axis whole in vec_tile");
    return;
  }

  if (T[a] >= (*S)[a]) {
    // Whole axis in one tile: one reduction per tile.
    for_each_tile(*S, *T0, [&](const std::vector<int64_t>& off, const std::vector<int64_t>&) {
      auto ooff = off;
      ooff[a] = 0;
      Box ob = value_box(w, to_out(ooff), to_out(Tk));
      TileOp t;
      t.kind = TileOpKind::Vec;
      t.vop = op.kind;
      t.dtype = odt;
      t.axes = {a};
      t.srcs = {get_tile(x, value_box(x, off, T))};
      t.dst = new_tile(MemKind::UB, odt, to_out(Tk), ob.valid);
      vals[w].tiles[to_out(ooff)] = t.dst;
      emit(std::move(t));
    });
  } else {
    // Split axis: partial results per tile into a GM temp, then a combine step (the extra round trip).
    int64_t n = (S->at(a) + T[a] - 1) / T[a];
    // A mean whose valid extent on the axis is known only at run time divides by a count taken the
    // way the sums are: partial sums of a tile of ones with each input tile's valid box, combined.
    const bool count_mean = op.kind == OpKind::Mean && !xvalid[a].as_const();
    // fp16/bf16 sums keep their partials in fp32, combined then rounded once, as a whole-axis
    // TREDUCE (fp32 accumulator) and the reference evaluator do: fp16 partials lose the result
    // to cancellation (fuzz seed 7000779). amax/amin are exact in any dtype.
    const DType pdt = part_kind == OpKind::Sum && (dt == DType::fp16 || dt == DType::bf16) ? DType::fp32 : dt;
    auto PS = *S;
    PS[a] = n;
    int ptensor = new_temp(pdt, PS, "partial");
    GmLoc ploc{ptensor, {}, {}};
    for (size_t e = 0; e < PS.size(); ++e) {
      ploc.base.push_back(DimExpr(0));
      ploc.map.push_back(int(e));
    }
    GmLoc cloc = ploc;
    if (count_mean) cloc.tensor = new_temp(pdt, PS, "count");
    // Partial reduction `kind` over axis a of tile `src` (valid box `ib`, dtype `sdt`) stored at box `ib` of `loc`.
    auto partial = [&](int src, DType sdt, const Box& ib, const std::vector<int64_t>& off, const GmLoc& loc,
                       OpKind kind) {
      if (sdt != pdt) {
        TileOp c;
        c.kind = TileOpKind::Vec;
        c.vop = OpKind::Cast;
        c.dtype = pdt;
        c.srcs = {src};
        c.dst = new_tile(MemKind::UB, pdt, T, ib.valid);
        src = c.dst;
        emit(std::move(c));
      }
      TileOp t;
      t.kind = TileOpKind::Vec;
      t.vop = kind;
      t.dtype = pdt;
      t.axes = {a};
      t.srcs = {src};
      auto pvalid = ib.valid;
      pvalid[a] = DimExpr(1);
      t.dst = new_tile(MemKind::UB, pdt, Tk, pvalid);
      int pt = t.dst;
      emit(std::move(t));
      Box pb = ib;
      pb.off[a] = DimExpr(off[a] / T[a]);
      pb.ext[a] = 1;
      pb.valid = pvalid;
      TileOp st;
      st.kind = TileOpKind::CopyOut;
      st.srcs = {pt};
      st.gm = gm_ref(loc, pb);
      emit(std::move(st));
    };
    // The combine of one output tile: load the partials at `cb` of `loc`, reduce them (`kind`) over axis a.
    auto combine = [&](const Box& cb, const std::vector<int64_t>& CT, const GmLoc& loc, const Box& ob, OpKind kind) {
      TileOp in;
      in.kind = TileOpKind::CopyIn;
      in.gm = gm_ref(loc, cb);
      in.dst = new_tile(MemKind::UB, pdt, CT, cb.valid);
      int src = in.dst;
      emit(std::move(in));
      TileOp t;
      t.kind = TileOpKind::Vec;
      t.vop = kind;
      t.dtype = pdt;
      t.axes = {a};
      t.srcs = {src};
      t.dst = new_tile(MemKind::UB, pdt, to_out(Tk), ob.valid);
      int res = t.dst;
      emit(std::move(t));
      return res;
    };
    if (count_mean) {
      for_each_tile(*S, *T0, [&](const std::vector<int64_t>& off, const std::vector<int64_t>&) {
        Box ib = value_box(x, off, T);
        TileOp ones;
        ones.kind = TileOpKind::Vec;
        ones.vop = OpKind::Full;
        ones.fill = 1;
        ones.dtype = pdt;
        ones.dst = new_tile(MemKind::UB, pdt, T, ib.valid);
        ones.source_op = cur_op;
        int o = ones.dst;
        emit(std::move(ones));
        partial(o, pdt, ib, off, cloc, OpKind::Sum);
      });
    }
    for_each_tile(*S, *T0, [&](const std::vector<int64_t>& off, const std::vector<int64_t>&) {
      Box ib = value_box(x, off, T);
      partial(get_tile(x, ib), dt, ib, off, ploc, part_kind);
    });
    auto CT = T;
    CT[a] = n;
    auto cgrid = *T0;
    cgrid[a] = n;
    for_each_tile(PS, cgrid, [&](const std::vector<int64_t>& off, const std::vector<int64_t>&) {
      Box cb;
      for (size_t d = 0; d < PS.size(); ++d) {
        cb.off.push_back(DimExpr(off[d]));
        cb.ext.push_back(CT[d]);
        cb.valid.push_back(d == size_t(a) ? ceil_div(xvalid[a], DimExpr(T[a]))
                                          : clip_extent(CT[d], xvalid[d] - DimExpr(off[d])));
      }
      auto ooff = to_out(off);
      Box ob = value_box(w, ooff, to_out(Tk));
      int res = combine(cb, CT, ploc, ob, part_kind);
      if (count_mean) {
        const int count = combine(cb, CT, cloc, ob, OpKind::Sum);
        TileOp m;
        m.kind = TileOpKind::Vec;
        m.vop = OpKind::Div;
        m.dtype = pdt;
        m.srcs = {res, count};
        m.dst = new_tile(MemKind::UB, pdt, to_out(Tk), ob.valid);
        res = m.dst;
        emit(std::move(m));
      } else if (op.kind == OpKind::Mean) {
        TileOp m;
        m.kind = TileOpKind::Vec;
        m.vop = OpKind::Mul;
        m.dtype = pdt;
        m.scalar = 1.0 / double(*xvalid[a].as_const());
        m.srcs = {res};
        m.dst = new_tile(MemKind::UB, pdt, to_out(Tk), ob.valid);
        res = m.dst;
        emit(std::move(m));
      }
      if (pdt != dt) {  // rounded once, to the value's dtype
        TileOp c;
        c.kind = TileOpKind::Vec;
        c.vop = OpKind::Cast;
        c.dtype = dt;
        c.srcs = {res};
        c.dst = new_tile(MemKind::UB, dt, to_out(Tk), ob.valid);
        res = c.dst;
        emit(std::move(c));
      }
      vals[w].tiles[ooff] = res;
    });
  }
  for (auto& [off, t] : vals[w].tiles) tile_origin[t] = {w, off};
}

void Builder::expand_assemble(const Op& op) {
  int v = op.inputs.at(0);
  ValueInfo& vi = vals[v];
  if (home_assemble[v] == cur_op && vi.kind == ValueInfo::Kind::Local) {
    std::vector<std::vector<int64_t>> keys;
    for (auto& [k, t] : vi.tiles) keys.push_back(k);
    for (auto& k : keys) store_tile(v, k);  // the home is this assemble's target
    return;
  }
  if (assembled_in_place(v, op)) return;  // written in place (a reshape produced into its target)
  auto S = static_shape(v, op);
  if (!S) return;
  // Target location.
  const Value& val = prog.values[v];
  GmLoc loc;
  loc.tensor = op.tensor;
  size_t trank = prog.tensors[op.tensor].shape.size(), lead = trank - val.shape.size();
  for (size_t e = 0; e < trank; ++e) {
    loc.base.push_back(e < op.offsets.size() ? sub(op.offsets[e]) : DimExpr(0));
    loc.map.push_back(e < lead ? -1 : int(e - lead));
  }
  std::vector<int64_t> T;
  if (vi.kind == ValueInfo::Kind::Local) {
    T = vi.tile;
  } else if (op.vec_tile && op.vec_tile->shape.size() == S->size()) {
    T = clip_tile(op.vec_tile->shape, *S);
  } else if (const Op* f = vi.kind == ValueInfo::Kind::Full ? &prog.ops[size_t(vi.src)] : nullptr;
             f && f->vec_tile && f->vec_tile->shape.size() == S->size()) {
    // A full() made under a vec_tile (e.g. in a scope body) and stored where none is in force: its
    // own tile, as a computed value would be stored (one box was the whole tensor in UB).
    T = clip_tile(f->vec_tile->shape, *S);
  } else {
    T = *S;  // a plain copy with no tile in force: one box
  }
  for_each_tile(*S, T, [&](const std::vector<int64_t>& off, const std::vector<int64_t>&) {
    Box b = value_box(v, off, T);
    TileOp st;
    st.kind = TileOpKind::CopyOut;
    st.srcs = {get_tile(v, b)};
    st.gm = gm_ref(loc, b);
    emit(std::move(st));
  });
}

}  // namespace ptoc::tiling
