#include "compiler/passes/buffer_liveness.h"

#include <algorithm>
#include <sstream>

namespace ptoc {

namespace {

int64_t align_to(int64_t v, int64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// The last two axes as the tile library sees them (cce_emit.cpp view2).
std::pair<int64_t, int64_t> rows_cols(const std::vector<int64_t>& s) {
  return {s.size() >= 2 ? s[s.size() - 2] : 1, s.empty() ? 1 : s.back()};
}

// A column or scalar broadcast of `x` against `d`: the device applies it as a
// vector-scalar op (TBINARY's last branch), which may stage the scalar in dst.
bool col_or_scalar(const LocalTile& x, const LocalTile& d) {
  auto xv = rows_cols(x.shape), dv = rows_cols(d.shape);
  return xv != dv && xv.second == 1;
}

}  // namespace

int in_place_source(const TileRoot& root, const TileOp& op) {
  if (op.kind != TileOpKind::Vec || op.dst < 0 || op.srcs.empty()) return -1;
  const LocalTile& d = root.tiles[size_t(op.dst)];
  if (d.mem != MemKind::UB) return -1;
  auto same_buffer = [&](int s) {
    if (s < 0 || s == op.dst) return false;
    const LocalTile& t = root.tiles[size_t(s)];
    return t.mem == d.mem && t.shape == d.shape && t.layout == d.layout && dtype_size(t.dtype) == dtype_size(d.dtype);
  };
  const OpKind k = op.vop;
  if (k == OpKind::Cast) {
    // Same width only (a widening cast would overrun elements not yet read); a
    // same-type cast is a plain copy (memcpy on the host: no aliasing).
    const int s = op.srcs[0];
    return same_buffer(s) && root.tiles[size_t(s)].dtype != d.dtype ? s : -1;
  }
  if (is_unary(k)) {
    if (k == OpKind::Gelu || k == OpKind::Silu) return -1;  // composed in dst, then the input is read again
    return same_buffer(op.srcs[0]) ? op.srcs[0] : -1;
  }
  if (!is_binary(k)) return -1;  // reductions, transpose, concat, full: never in place
  if (op.scalar) {
    // dst = a OP s: a staged literal (div; s - a) goes into dst before a is read.
    if (k == OpKind::Div || (k == OpKind::Sub && op.scalar_first)) return -1;
    return same_buffer(op.srcs[0]) ? op.srcs[0] : -1;
  }
  if (op.srcs.size() != 2) return -1;
  const LocalTile& a = root.tiles[size_t(op.srcs[0])];
  const LocalTile& b = root.tiles[size_t(op.srcs[1])];
  // Column/scalar broadcasts become vector-scalar ops; div (and sub with the
  // broadcast first) stage the scalar in dst.
  if (col_or_scalar(b, d) && k == OpKind::Div) return -1;
  if (!col_or_scalar(b, d) && col_or_scalar(a, d) && (k == OpKind::Div || k == OpKind::Sub)) return -1;
  if (same_buffer(op.srcs[0])) return op.srcs[0];
  if (same_buffer(op.srcs[1])) return op.srcs[1];
  return -1;
}

std::vector<TileLive> tile_lives(const TileRoot& root, const std::vector<int>& ops,
                                 const std::array<int64_t, 6>& align, bool inplace) {
  std::vector<TileLive> lives;
  std::vector<int> slot(root.tiles.size(), -1);
  auto touch = [&](int t, int pos) {
    if (t < 0) return;
    const LocalTile& lt = root.tiles[size_t(t)];
    if (lt.mem == MemKind::GM) return;
    int& s = slot[size_t(t)];
    if (s < 0) {
      s = int(lives.size());
      TileLive l;
      l.tile = t;
      l.first = l.last = pos;
      l.bytes = lt.bytes();
      l.padding = align_to(l.bytes, align[size_t(lt.mem)]) - l.bytes;
      lives.push_back(l);
    } else {
      lives[size_t(s)].last = pos;
    }
  };
  for (int i = 0; i < int(ops.size()); ++i) {
    const TileOp& op = root.ops[size_t(ops[size_t(i)])];
    for (int s : op.srcs) touch(s, i);
    touch(op.dst, i);
  }
  if (!inplace) return lives;
  for (int i = 0; i < int(ops.size()); ++i) {
    const TileOp& op = root.ops[size_t(ops[size_t(i)])];
    const int c = in_place_source(root, op);
    if (c < 0 || slot[size_t(c)] < 0 || slot[size_t(op.dst)] < 0) continue;
    const TileLive& src = lives[size_t(slot[size_t(c)])];
    TileLive& dst = lives[size_t(slot[size_t(op.dst)])];
    if (src.last == i && dst.first == i && src.size() == dst.size()) dst.inherits = c;
  }
  return lives;
}

PeakPoint peak_point(const TileRoot& root, const std::vector<TileLive>& lives, MemKind mem, int n_ops) {
  std::vector<int64_t> delta(size_t(n_ops) + 2, 0);
  for (const TileLive& l : lives) {
    if (root.tiles[size_t(l.tile)].mem != mem) continue;
    const int from = l.inherits >= 0 ? l.first + 1 : l.first;
    if (from > l.last) continue;
    delta[size_t(from)] += l.size();
    delta[size_t(l.last) + 1] -= l.size();
  }
  PeakPoint p;
  int64_t cur = 0;
  for (int i = 0; i < n_ops; ++i) {
    cur += delta[size_t(i)];
    if (cur > p.bytes) p = {i, cur};
  }
  return p;
}

std::string tile_shape_text(const LocalTile& t) {
  std::string r = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) r += (i ? ", " : "") + std::to_string(t.shape[i]);
  return r + "] " + std::string(dtype_name(t.dtype));
}

std::string tile_label(const Program& prog, const TileRoot& root, const std::vector<int>& ops, int tile) {
  // The writer among `ops`, else anywhere in the root (a group's fit is checked
  // before the tiles it reads from other groups are cut into loads).
  const TileOp* writer = nullptr;
  for (int o : ops)
    if (root.ops[size_t(o)].dst == tile) {
      writer = &root.ops[size_t(o)];
      break;
    }
  for (size_t o = 0; o < root.ops.size() && !writer; ++o)
    if (root.ops[o].dst == tile) writer = &root.ops[o];
  if (!writer) return "tile " + std::to_string(tile);
  if (writer->kind == TileOpKind::CopyIn) {
    const int t = writer->gm.tensor;
    if (t >= 0 && t < int(prog.tensors.size())) return "load of " + prog.tensors[size_t(t)].name;
    return "reload of an intermediate";
  }
  const Op* src = writer->source_op >= 0 && writer->source_op < int(prog.ops.size())
                      ? &prog.ops[size_t(writer->source_op)] : nullptr;
  if (!src) return "tile " + std::to_string(tile);
  if (writer->kind == TileOpKind::Vec && src->output >= 0 && !prog.values[size_t(src->output)].name.empty())
    return prog.values[size_t(src->output)].name;
  std::string what = writer->kind == TileOpKind::Vec ? "result" : std::string(mem_kind_name(root.tiles[size_t(tile)].mem)) + " tile";
  return "'" + std::string(op_kind_name(src->kind)) + "' " + what;
}

std::string live_buffer_list(const Program& prog, const TileRoot& root, const std::vector<int>& ops,
                             const std::vector<TileLive>& lives, MemKind mem, int pos, int64_t* total) {
  std::vector<const TileLive*> at;
  for (const TileLive& l : lives)
    if (root.tiles[size_t(l.tile)].mem == mem && holds_at(l, pos)) at.push_back(&l);
  std::stable_sort(at.begin(), at.end(), [](auto* x, auto* y) { return x->size() > y->size(); });
  std::ostringstream os;
  int64_t sum = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    const TileLive& l = *at[i];
    os << (i ? "; " : "") << tile_label(prog, root, ops, l.tile) << " " << tile_shape_text(root.tiles[size_t(l.tile)])
       << " " << l.bytes;
    if (l.padding) os << " + " << l.padding << " alignment padding";
    for (const TileLive& o : lives)
      if (o.inherits == l.tile && o.first == pos)
        os << " (" << tile_label(prog, root, ops, o.tile) << " is written over it in place)";
    sum += l.size();
  }
  if (total) *total = sum;
  return os.str();
}

std::string fitting_vec_tile(const Program& prog, const TileRoot& root, const std::vector<int>& ops,
                             const std::vector<TileLive>& lives, MemKind mem, int pos, int64_t cap,
                             const std::array<int64_t, 6>& align, const VecTileCheck& verify) {
  if (mem != MemKind::UB || pos < 0 || pos >= int(ops.size())) return {};
  const TileOp& op = root.ops[size_t(ops[size_t(pos)])];
  if (op.source_op < 0 || op.source_op >= int(prog.ops.size())) return {};
  const Op& src = prog.ops[size_t(op.source_op)];
  if (!src.vec_tile || src.vec_tile->shape.empty()) return {};
  const std::vector<int64_t>& vt = src.vec_tile->shape;
  // The axis to shrink: the widest, but keep the last (contiguous) axis wide while rows can shrink.
  size_t ax = 0;
  for (size_t d = 1; d < vt.size(); ++d)
    if (vt[d] > vt[ax]) ax = d;
  if (vt.size() > 1 && ax == vt.size() - 1 && vt[0] > 1) ax = 0;
  // The op's own extent on that axis: tiles with that extent there scale with the knob.
  int ref = op.dst >= 0 ? op.dst : (op.srcs.empty() ? -1 : op.srcs[0]);
  if (ref < 0) return {};
  const LocalTile& rt = root.tiles[size_t(ref)];
  if (rt.shape.size() != vt.size()) return {};
  const int64_t ext = rt.shape[ax];
  if (ext <= 1) return {};
  auto need = [&](int64_t v) {
    int64_t sum = 0;
    for (const TileLive& l : lives) {
      const LocalTile& t = root.tiles[size_t(l.tile)];
      if (t.mem != mem || !holds_at(l, pos)) continue;
      int64_t b = l.bytes;
      if (t.shape.size() == vt.size() && t.shape[ax] == ext) b = b / ext * v;
      sum += align_to(b, align[size_t(mem)]);
    }
    return sum;
  };
  std::vector<int64_t> nv = vt;
  auto shape = [&](int64_t v) {
    nv[ax] = v;
    return nv;
  };
  // The extent the arithmetic says fits, verified by re-tiling when a check is given: at most a few
  // proposals are tried (each a whole tiling), the estimate's first, then halving.
  int64_t best = 0, tries = 0;
  for (int64_t v = ext - 1; v >= 1 && !best; --v) {
    if (need(v) > cap) continue;
    if (!verify || verify(vt, shape(v))) {
      best = v;
      break;
    }
    if (++tries >= 4) return {};
    v = std::max<int64_t>(1, v / 2) + 1;  // the loop's --v makes it v / 2
  }
  if (!best) return {};
  auto text = [&](int64_t v) {
    shape(v);
    std::string t = "[";
    for (size_t i = 0; i < nv.size(); ++i) t += (i ? ", " : "") + std::to_string(nv[i]);
    return t + "]";
  };
  std::ostringstream os;
  os << "vec_tile " << text(best);
  if (src.vec_tile->loc.valid()) os << " at line " << src.vec_tile->loc.line;
  os << " fits (" << need(best) << " bytes live here)";
  // A round extent too: whole 8-row blocks, or 128-byte multiples on the last axis (verified as well).
  const int64_t g = ax + 1 == vt.size() ? std::max<int64_t>(1, 128 / dtype_size(rt.dtype)) : 8;
  if (best > g && best % g && (!verify || verify(vt, shape(best / g * g))))
    os << ", " << text(best / g * g) << " in whole blocks of " << g;
  return os.str();
}

bool overflow_reported(const DiagEngine& diags, SrcLoc loc) {
  for (const Diagnostic& d : diags.diagnostics())
    if (d.severity == Diagnostic::Severity::Error && d.loc.line == loc.line && d.loc.col == loc.col &&
        d.message.find("does not fit") != std::string::npos)
      return true;
  return false;
}

}  // namespace ptoc
