// Detection of tile families and their partition by one representative
// (the conditions are in tile_families.h).
#include "compiler/passes/tile_families.h"
#include "compiler/passes/affine_box.h"
#include "compiler/passes/block_family_proof.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

namespace {

int64_t const_or_symbolic(const DimExpr& e) { return e.as_const().value_or(std::numeric_limits<int64_t>::min()); }

// Equal as LeafShaper keys read them: the same constants, or both symbolic.
bool extents_alike(const std::vector<DimExpr>& a, const std::vector<DimExpr>& a0) {
  if (a.size() != a0.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (const_or_symbolic(a[i]) != const_or_symbolic(a0[i])) return false;
  return true;
}

bool same_exprs(const std::vector<DimExpr>& a, const std::vector<DimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same(b[i])) return false;
  return true;
}

// Op `o` is op `o0` of member 0 with its tiles mapped by `tile` (program positions: seq_order_alike).
template <class TileMap>
bool same_op(const TileOp& o, const TileOp& o0, TileMap&& tile) {
  auto mapped = [&](int t0) { return t0 < 0 ? -1 : tile(t0); };
  if (o.kind != o0.kind || o.vop != o0.vop || o.dst != mapped(o0.dst) || o.srcs.size() != o0.srcs.size()) return false;
  for (size_t i = 0; i < o.srcs.size(); ++i)
    if (o.srcs[i] != mapped(o0.srcs[i])) return false;
  if (o.gm.tensor != o0.gm.tensor || o.gm.offset.size() != o0.gm.offset.size() ||
      o.gm.extent.size() != o0.gm.extent.size() || !same_exprs(o.gm.view, o0.gm.view))
    return false;
  return o.axes == o0.axes && o.scalar == o0.scalar && o.scalar_first == o0.scalar_first && o.fill == o0.fill &&
         o.dtype == o0.dtype && o.trans_a == o0.trans_a && o.trans_b == o0.trans_b &&
         o.accumulate == o0.accumulate && o.atomic_add == o0.atomic_add && o.sub_offset == o0.sub_offset &&
         o.source_op == o0.source_op && o.chain == o0.chain;
}

bool same_tile(const LocalTile& t, const LocalTile& t0) {
  return t.mem == t0.mem && t.dtype == t0.dtype && t.shape == t0.shape && t.layout == t0.layout;
}

bool is_write(const TileOp& op) { return op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut; }

// A GM write as the hazard test sees it (subgraph_edges.cpp): per axis the symbolic part, the
// constant and the static extent bound.
struct WriteBox {
  int op = -1, tensor = -1;
  bool atomic = false;
  std::vector<std::pair<std::string, int64_t>> off;
  std::vector<std::optional<int64_t>> ext;
};

bool boxes_overlap(const WriteBox& a, const WriteBox& b) { return affine_boxes_overlap(a.off, a.ext, b.off, b.ext); }

bool hazard(const WriteBox& a, const WriteBox& b) {
  if (a.tensor != b.tensor) return false;
  if (a.atomic && b.atomic) return false;  // atomic adds commute
  return boxes_overlap(a, b);
}

// GM conditions: nothing reads what the root writes; members' writes hazard each other alike and
// never across members. Returns "" when they hold, else the reason.
std::string check_gm(const TileRoot& r, const TileFamily& f) {
  const int B = f.members;
  // The tensors read and written, and the writes in id order, which is each member's local order
  // (segment by segment). Member k's op j has member 0's kind and GM tensor (same_op), so member 0's ops say which ops
  // of every member write or read which tensor: the ops visited are member 0's and every member's
  // writes, in id order (segment by segment, member by member), not the whole root.
  std::set<int> written, read;
  std::vector<int> writes, reads;  // write ops; tensors read, in first-read order
  for (const FamilySegment& seg : f.segments) {
    std::vector<int> seg_writes;  // of member 0, as offsets in the segment's block
    for (int j = 0; j < seg.ops_per; ++j) {
      const TileOp& op = r.ops[size_t(seg.op_begin + j)];
      if (is_write(op)) {
        written.insert(op.gm.tensor);
        seg_writes.push_back(j);
      } else if (op.kind == TileOpKind::CopyIn && read.insert(op.gm.tensor).second) {
        reads.push_back(op.gm.tensor);
      }
    }
    for (int k = 0; k < B; ++k)
      for (int j : seg_writes) writes.push_back(seg.op_begin + k * seg.ops_per + j);
  }
  for (int t : reads)
    if (written.count(t)) return "a tile op reads GM tensor " + std::to_string(t) + " that the root writes";
  // Per member its writes; per tensor one symbolic part per axis for every write.
  std::vector<std::vector<WriteBox>> boxes(static_cast<size_t>(B));
  std::map<int, std::vector<std::string>> sym_of;  // tensor -> symbolic part per axis
  TileOp scratch;  // a described copy's op, read without building its block (lazy_array.h)
  for (int id : writes) {
    const TileOp& op = r.ops.peek(size_t(id), scratch);
    const auto [k, i] = f.op_member(id);
    if (k < 0) return "a GM write is in no member";
    WriteBox w;
    w.op = i;
    w.tensor = op.gm.tensor;
    w.atomic = op.atomic_add;
    std::vector<std::string> syms;
    for (auto& x : op.gm.offset) {
      w.off.push_back(gm_split(x));
      syms.push_back(w.off.back().first);
    }
    for (auto& x : op.gm.extent) {
      w.ext.push_back(gm_extent_bound(x));
      if (!w.ext.back()) return "a GM write has an extent without a static bound";
    }
    if (w.off.size() != w.ext.size()) return "a GM write has offsets and extents of different ranks";
    auto [it, fresh] = sym_of.try_emplace(w.tensor, syms);
    if (!fresh && it->second != syms) return "the GM writes of one tensor move along different symbols";
    boxes[size_t(k)].push_back(std::move(w));
  }
  // Hazards inside a member: member 0's pattern in every member.
  if (boxes[0].size() > 16) return "more than 16 GM writes per member";
  auto pattern = [&](const std::vector<WriteBox>& ws) {
    std::vector<char> p;
    for (size_t j = 0; j < ws.size(); ++j)
      for (size_t i = 0; i < j; ++i) p.push_back(hazard(ws[i], ws[j]));
    return p;
  };
  const std::vector<char> p0 = pattern(boxes[0]);
  for (int k = 1; k < B; ++k)
    if (pattern(boxes[size_t(k)]) != p0) return "the GM writes of member " + std::to_string(k) + " overlap differently";
  // Across members: per tensor the bounding box of each member's writes (empty writes skipped),
  // swept along the axis with the most distinct starts.
  std::map<int, std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>> bbox;  // tensor -> (lo, hi)
  for (int k = 0; k < B; ++k) {
    std::map<int, std::pair<std::vector<int64_t>, std::vector<int64_t>>> mine;
    for (const WriteBox& w : boxes[size_t(k)]) {
      bool empty = false;
      for (auto& e : w.ext) empty |= *e == 0;
      if (empty) continue;
      auto [it, fresh] = mine.try_emplace(w.tensor);
      auto& [lo, hi] = it->second;
      for (size_t d = 0; d < w.off.size(); ++d) {
        int64_t a = w.off[d].second, z = a + *w.ext[d];
        if (fresh) {
          lo.push_back(a);
          hi.push_back(z);
        } else {
          lo[d] = std::min(lo[d], a);
          hi[d] = std::max(hi[d], z);
        }
      }
    }
    for (auto& [t, b] : mine) bbox[t].push_back(b);
  }
  for (auto& [t, list] : bbox) {
    size_t rank = list[0].first.size(), axis = 0, best = 0;
    for (size_t d = 0; d < rank; ++d) {
      std::set<int64_t> starts;
      for (auto& b : list) starts.insert(b.first[d]);
      if (starts.size() > best) best = starts.size(), axis = d;
    }
    std::sort(list.begin(), list.end(), [&](auto& x, auto& y) { return x.first[axis] < y.first[axis]; });
    for (size_t i = 0; i < list.size(); ++i)
      for (size_t j = i + 1; j < list.size() && list[j].first[axis] < list[i].second[axis]; ++j) {
        bool apart = false;
        for (size_t d = 0; d < rank && !apart; ++d)
          apart = list[j].second[d] <= list[i].first[d] || list[i].second[d] <= list[j].first[d];
        if (!apart) return "the GM writes of two members overlap";
      }
  }
  return "";
}

// Segment search state: the segments found so far and each member's program-position shift.
struct Search {
  const TileRoot& r;
  std::vector<int> first_writer;  // tile -> first op writing it (-1: none)
  std::vector<FamilySegment> segs;
  int64_t budget = 0;
  std::vector<char> alike, cur_alike;  // per member: extents as member 0's (all segments found; the last blocks() call)

  // Member k's copy of member 0's tile t0 (of a segment found so far or of `cur`); -1: none.
  // Segments come in tile order (disjoint member-0 ranges, tile_begin never decreasing), so the
  // one that can hold t0 is the last that starts at or before it: a binary search (a scan of every
  // segment per tile reference was 91 % of fuzz seed 9101331's compile, thousands of segments).
  int map_tile(int k, int t0, const FamilySegment& cur) const {
    auto it = std::upper_bound(segs.begin(), segs.end(), t0,
                               [](int t, const FamilySegment& s) { return t < s.tile_begin; });
    if (it != segs.begin()) {
      const FamilySegment& s = *(it - 1);
      if (t0 >= s.tile_begin && t0 < s.tile_begin + s.tiles_per) return t0 + k * s.tiles_per;
    }
    if (t0 >= cur.tile_begin && t0 < cur.tile_begin + cur.tiles_per) return t0 + k * cur.tiles_per;
    return -1;
  }

  // How many blocks of P ops from `pos` repeat block 0 (at most `want` when B is known, else as
  // many as there are); 0: block 0 does not qualify. `seg` gets block 0's tiles: those it writes first, contiguous from tpos.
  int blocks(int pos, int P, int tpos, FamilySegment& seg, int want) {
    const int n = int(r.ops.size()), nt = int(r.tiles.size());
    int T = 0;
    while (tpos + T < nt && first_writer[size_t(tpos + T)] >= pos && first_writer[size_t(tpos + T)] < pos + P) ++T;
    seg = FamilySegment{pos, P, tpos, T};
    for (int i = pos; i < pos + P; ++i) {
      const TileOp& op = r.ops[size_t(i)];
      if (op.dst >= 0 && map_tile(0, op.dst, seg) < 0) return 0;
      for (int t : op.srcs)
        if (t < 0 || map_tile(0, t, seg) < 0) return 0;
    }
    int k = 1;
    cur_alike.assign(1, 1);
    for (; (want == 0 || k < want) && pos + (k + 1) * P <= n; ++k) {
      budget -= P;
      if (budget < 0) return 0;
      bool ok = true, same_ext = true;
      for (int i = 0; i < P && ok; ++i) {
        const TileOp& o = r.ops[size_t(pos + k * P + i)];
        const TileOp& o0 = r.ops[size_t(pos + i)];
        ok = same_op(o, o0, [&](int t0) { return map_tile(k, t0, seg); });
        same_ext = same_ext && extents_alike(o.gm.extent, o0.gm.extent);
      }
      for (int t = 0; t < T && ok; ++t) {
        const int tk = tpos + k * T + t;
        ok = tk < nt && same_tile(r.tiles[size_t(tk)], r.tiles[size_t(tpos + t)]) &&
             first_writer[size_t(tk)] >= pos + k * P && first_writer[size_t(tk)] < pos + (k + 1) * P;
        same_ext = same_ext && ok && extents_alike(r.tiles[size_t(tk)].valid, r.tiles[size_t(tpos + t)].valid);
      }
      if (!ok) break;
      cur_alike.push_back(same_ext);
    }
    return k;
  }
};

}  // namespace

int TileFamily::op_slow(int k, int j) const {
  for (const FamilySegment& s : segments) {
    if (j < s.ops_per) return s.op_begin + k * s.ops_per + j;
    j -= s.ops_per;
  }
  return -1;
}

int TileFamily::tile_slow(int k, int t) const {
  for (const FamilySegment& s : segments) {
    if (t < s.tiles_per) return s.tile_begin + k * s.tiles_per + t;
    t -= s.tiles_per;
  }
  return -1;
}

std::pair<int, int> TileFamily::op_member(int o) const {
  int local = 0;
  for (const FamilySegment& s : segments) {
    if (o >= s.op_begin && o < s.op_begin + members * s.ops_per)
      return {(o - s.op_begin) / s.ops_per, local + (o - s.op_begin) % s.ops_per};
    local += s.ops_per;
  }
  return {-1, -1};
}

std::pair<int, int> TileFamily::tile_member_slow(int t) const {
  int local = 0;
  for (const FamilySegment& s : segments) {
    if (s.tiles_per > 0 && t >= s.tile_begin && t < s.tile_begin + members * s.tiles_per)
      return {(t - s.tile_begin) / s.tiles_per, local + (t - s.tile_begin) % s.tiles_per};
    local += s.tiles_per;
  }
  return {-1, -1};
}

// GM hazards point along program positions (TileOp::seq, ties by op id): every member's GM
// accesses must come in member 0's order.
static bool seq_order_alike(const TileRoot& r, const TileFamily& f) {
  std::vector<int> acc;  // member 0's GM accesses (local index), in hazard order
  for (int j = 0; j < f.ops_per; ++j)
    if (r.ops[size_t(f.op(0, j))].gm.tensor >= 0) acc.push_back(j);
  std::stable_sort(acc.begin(), acc.end(),
                   [&](int x, int y) { return r.ops[size_t(f.op(0, x))].seq < r.ops[size_t(f.op(0, y))].seq; });
  TileOp scratch;  // a described copy's op, read without building its block (lazy_array.h)
  for (int k = 1; k < f.members; ++k)
    for (size_t i = 1; i < acc.size(); ++i) {
      const double a = r.ops.peek(size_t(f.op(k, acc[i - 1])), scratch).seq;
      const double b = r.ops.peek(size_t(f.op(k, acc[i])), scratch).seq;
      if (a > b || (a == b && acc[i - 1] > acc[i])) return false;
    }
  return true;
}

namespace {

FamilyCheck find_family(const Program& prog, const TileRoot& r, const RootTemplate* rt,
                        const std::vector<int>* first_writer, const EmittedBlocks* emitted,
                        const BlockCopies* copies);

}  // namespace

FamilyCheck find_tile_family(const Program& prog, const TileRoot& r) {
  return find_family(prog, r, nullptr, nullptr, nullptr, nullptr);
}

FamilyCheck find_tile_family(const Program& prog, const TileRoot& r, const RootTemplate& rt,
                             const std::vector<int>& first_writer, const EmittedBlocks* emitted,
                             const BlockCopies* copies) {
  return find_family(prog, r, &rt, &first_writer, emitted, copies);
}

bool emitted_blocks_cover(const EmittedBlocks& eb, const TileRoot& r) {
  return !eb.broken && eb.blocks >= 2 && eb.seg.op_begin == 0 && eb.seg.tile_begin == 0 &&
         int64_t(eb.blocks) * eb.seg.ops_per == int64_t(r.ops.size()) &&
         int64_t(eb.blocks) * eb.seg.tiles_per == int64_t(r.tiles.size()) && int(eb.alike.size()) == eb.blocks;
}

void check_emitted_block(const TileRoot& r, const std::vector<int>& first_writer, int op_begin, int op_end,
                         EmittedBlocks& eb) {
  if (eb.broken) return;
  const int P = eb.blocks == 0 ? op_end - op_begin : eb.seg.ops_per;
  if (P <= 0 || op_end - op_begin != P || op_begin != eb.blocks * P || op_end > int(r.ops.size()) ||
      first_writer.size() < r.tiles.size()) {
    eb.broken = true;
    return;
  }
  // The same tests as Search::blocks on one segment from op 0 and tile 0.
  Search s{r, {}, {}, 0};  // for map_tile only (no segment found yet: block 0's tiles only)
  if (eb.blocks == 0) {
    FamilySegment seg;
    const int nt = int(r.tiles.size());
    int T = 0;
    while (T < nt && first_writer[size_t(T)] >= 0 && first_writer[size_t(T)] < P) ++T;
    seg = FamilySegment{0, P, 0, T};
    for (int i = 0; i < P; ++i) {
      const TileOp& op = r.ops[size_t(i)];
      bool ok = op.dst < 0 || s.map_tile(0, op.dst, seg) >= 0;
      for (int t : op.srcs) ok = ok && t >= 0 && s.map_tile(0, t, seg) >= 0;
      if (!ok) {
        eb.broken = true;
        return;
      }
    }
    eb.seg = seg;
    eb.blocks = 1;
    eb.alike.assign(1, 1);
    return;
  }
  const FamilySegment& seg = eb.seg;
  const int k = eb.blocks, T = seg.tiles_per, nt = int(r.tiles.size());
  bool ok = true, same_ext = true;
  for (int i = 0; i < P && ok; ++i) {
    const TileOp& o = r.ops[size_t(k * P + i)];
    const TileOp& o0 = r.ops[size_t(i)];
    ok = same_op(o, o0, [&](int t0) { return s.map_tile(k, t0, seg); });
    same_ext = same_ext && extents_alike(o.gm.extent, o0.gm.extent);
  }
  for (int t = 0; t < T && ok; ++t) {
    const int tk = k * T + t;
    ok = tk < nt && same_tile(r.tiles[size_t(tk)], r.tiles[size_t(t)]) && first_writer[size_t(tk)] >= k * P &&
         first_writer[size_t(tk)] < (k + 1) * P;
    same_ext = same_ext && ok && extents_alike(r.tiles[size_t(tk)].valid, r.tiles[size_t(t)].valid);
  }
  if (!ok) {
    eb.broken = true;
    return;
  }
  eb.alike.push_back(same_ext);
  ++eb.blocks;
}

namespace {

FamilyCheck find_family(const Program& prog, const TileRoot& r, const RootTemplate* rt,
                        const std::vector<int>* first_writer, const EmittedBlocks* emitted,
                        const BlockCopies* copies) {
  FamilyCheck out;
  const int n = int(r.ops.size()), nt = int(r.tiles.size());
  if (n < 2) {
    out.reason = "fewer than two tile ops";
    return out;
  }
  const std::string packs = "a parallel_merge scope packs branches across members";
  Search s{r, {}, {}, 8 * int64_t(n)};
  // Expansion already checked its blocks one by one (EmittedBlocks): when they are the whole root,
  // they are the one segment, with no search and no second walk over the ops.
  // The tile writers are read only by the search (not when the blocks cover the root).
  const bool whole = rt && first_writer && emitted && emitted_blocks_cover(*emitted, r);
  if (rt && first_writer && (whole || first_writer->size() >= size_t(nt))) {
    for (int o : rt->ops)
      if (prog.ops[size_t(o)].scope.parallel_merge) {
        out.reason = packs;
        return out;
      }
    if (!whole) s.first_writer.assign(first_writer->begin(), first_writer->begin() + nt);  // the search's
  } else {
    // One walk over the ops: the parallel_merge scopes (looked up once per source op) and each
    // tile's first writer.
    s.first_writer.assign(size_t(nt), -1);
    int last_source = -1;
    for (const TileOp& op : r.ops) {
      if (op.source_op >= 0 && op.source_op != last_source) {
        last_source = op.source_op;
        if (prog.ops[size_t(op.source_op)].scope.parallel_merge) {
          out.reason = packs;
          return out;
        }
      }
      if (op.dst >= 0 && s.first_writer[size_t(op.dst)] < 0) s.first_writer[size_t(op.dst)] = op.id;
    }
  }
  // Segment by segment, the smallest block length that repeats (exactly B times once the first
  // segment fixed B). Candidates start where an op like the segment's first one recurs.
  int pos = 0, tpos = 0, B = 0;
  if (whole) {
    B = emitted->blocks;
    s.segs.push_back(emitted->seg);
    s.alike = emitted->alike;
    pos = n;
    tpos = nt;
  }
  while (pos < n) {
    bool found = false;
    for (int P = 1; B == 0 ? pos + 2 * P <= n : pos + B * P <= n; ++P) {
      const TileOp& a = r.ops[size_t(pos + P)];
      const TileOp& a0 = r.ops[size_t(pos)];
      if (a.kind != a0.kind || a.source_op != a0.source_op || a.vop != a0.vop) continue;
      FamilySegment seg;
      const int k = s.blocks(pos, P, tpos, seg, B);
      if (s.budget < 0) break;
      if (k < 2 || (B > 0 && k != B)) continue;
      B = k;
      s.segs.push_back(seg);
      if (s.alike.empty()) s.alike = s.cur_alike;
      for (int m = 0; m < B; ++m) s.alike[size_t(m)] &= s.cur_alike[size_t(m)];
      pos += B * P;
      tpos += B * seg.tiles_per;
      found = true;
      break;
    }
    if (!found || s.budget < 0) {
      out.reason = "the tile ops do not repeat";
      return out;
    }
  }
  if (tpos != nt) {
    out.reason = "the tile ops do not repeat";
    return out;
  }
  TileFamily f;
  f.members = B;
  f.segments = std::move(s.segs);
  f.alike = std::move(s.alike);
  for (const FamilySegment& g : f.segments) {
    f.ops_per += g.ops_per;
    f.tiles_per += g.tiles_per;
  }
  // Copied blocks are proved from block 0 and their deltas; otherwise member by member.
  const bool proved = whole && copies && copied_blocks_meet_family_conditions(r, f, *copies);
  std::string why = proved               ? ""
                    : seq_order_alike(r, f) ? check_gm(r, f)
                                            : "the members' GM accesses are ordered differently";
  if (!why.empty()) {
    out.reason = why;
    return out;
  }
  out.family = std::move(f);
  return out;
}

}  // namespace

std::shared_ptr<const FamilyReplicas> family_replicas(const TileRoot& r, const TileFamily& f,
                                                      const std::vector<SharedOps>& member0_subgraphs) {
  auto out = std::make_shared<FamilyReplicas>();
  out->family = f;
  const int S = int(member0_subgraphs.size()), n = int(r.subgraphs.size());
  if (int64_t(n) != int64_t(S) * f.members) return nullptr;
  std::vector<int> local_sg(size_t(f.ops_per), -1);  // member 0's op -> its subgraph
  for (int j = 0; j < S; ++j)
    for (int o : *member0_subgraphs[size_t(j)])
      if (o >= 0 && o < f.ops_per) local_sg[size_t(o)] = j;
  out->member.assign(size_t(n), -1);
  out->local.assign(size_t(n), -1);
  out->of_member0.assign(size_t(S), -1);
  for (int s = 0; s < n; ++s) {
    const Subgraph& sg = r.subgraphs[size_t(s)];
    if (sg.id != s || sg.ops.empty()) return nullptr;
    const auto [k, j0] = f.op_member(sg.ops[0]);
    if (k < 0 || j0 < 0) return nullptr;
    const int j = local_sg[size_t(j0)];
    if (j < 0) return nullptr;
    // A copy keeps member 0's op order (partition_family) and nothing merged since.
    const std::vector<int>& ops0 = *member0_subgraphs[size_t(j)];
    if (ops0.size() != sg.ops.size() || sg.ops.back() != f.op(k, ops0.back())) return nullptr;
    out->member[size_t(s)] = k;
    out->local[size_t(s)] = j;
    if (k == 0) out->of_member0[size_t(j)] = s;
  }
  for (int j = 0; j < S; ++j)
    if (out->of_member0[size_t(j)] < 0) return nullptr;
  return out;
}

bool partition_family(Builder& b, const TileFamily& f) {
  TileRoot& r = b.root;
  const int B = f.members, P = f.ops_per, T = f.tiles_per;
  // Member 0 alone, renumbered in id order (ops [0, P), tiles [0, T)): the explicit partition of
  // the whole root does the same to every member, since no edge joins two members and every
  // decision depends on the order of ids, not their values.
  TileRoot rep;
  rep.root = r.root;
  rep.gm_static_shapes = r.gm_static_shapes;
  rep.ops.reserve(size_t(P));
  rep.tiles.reserve(size_t(T));
  auto local_tile = [&](int t) { return t < 0 ? -1 : f.tile_member(t).second; };
  for (int t = 0; t < T; ++t) {
    LocalTile lt = r.tiles[size_t(f.tile(0, t))];
    lt.id = t;
    rep.tiles.push_back(std::move(lt));
  }
  for (int j = 0; j < P; ++j) {
    TileOp op = r.ops[size_t(f.op(0, j))];
    op.id = j;
    op.dst = local_tile(op.dst);
    for (int& s : op.srcs) s = local_tile(s);
    rep.ops.push_back(std::move(op));
  }
  DiagEngine scratch(b.diags.file(), b.diags.source());
  TilingStats st;
  Builder rb(b.prog, b.plat, scratch, rep, st, false);
  rb.magic = b.magic;
  rb.temp_base = b.temp_base;
  rb.env = b.env;
  rb.tile_writer.assign(size_t(T), -1);
  rb.tile_written_at.assign(size_t(T), -1);
  for (int t = 0; t < T; ++t) {
    const int g = f.tile(0, t);
    if (size_t(g) < b.tile_writer.size() && b.tile_writer[size_t(g)] >= 0)
      rb.tile_writer[size_t(t)] = f.op_member(b.tile_writer[size_t(g)]).second;
    if (size_t(g) < b.tile_written_at.size()) rb.tile_written_at[size_t(t)] = b.tile_written_at[size_t(g)];
  }
  partition(rb);
  if (rb.failed || scratch.has_errors() || int(rep.ops.size()) != P || int(rep.tiles.size()) != T ||
      !rep.temps.empty() || st.cut_edges != 0 || rep.merges_applied.size() != 2)
    return false;  // a cut or reload (a new op), or an error: the explicit path decides and reports
  // Replicate: member k's copy of subgraph j has member 0's ops mapped to member k. The explicit
  // partition numbers subgraphs by their first op.
  const int S = int(rep.subgraphs.size());
  std::vector<int> first_op(size_t(S), 0);  // member 0's subgraph j -> its lowest op
  for (int j = 0; j < S; ++j) {
    const std::vector<int>& ops = rep.subgraphs[size_t(j)].ops.vec();
    if (!ops.empty()) first_op[size_t(j)] = *std::min_element(ops.begin(), ops.end());
  }
  std::vector<std::pair<int, int>> order;  // (first op, k * S + j)
  order.reserve(size_t(B) * size_t(S));
  for (int k = 0; k < B; ++k)
    for (int j = 0; j < S; ++j) order.push_back({f.op(k, first_op[size_t(j)]), k * S + j});
  std::sort(order.begin(), order.end());
  std::vector<int> id_of(order.size());
  r.subgraphs.clear();
  r.subgraphs.reserve(order.size());
  b.family_sg_member.assign(order.size(), 0);
  b.family_sg_local.assign(order.size(), 0);
  // One segment: member k's op is member 0's (all < P) moved by k * P, so every member's list is
  // member 0's described with a shift (op_list.h) instead of copied.
  std::vector<SharedOps>& rep_ops = b.family_rep_ops;
  rep_ops.clear();
  std::vector<Subgraph> protos;  // member 0's subgraphs without their ops, copied per member
  for (const Subgraph& s0 : rep.subgraphs) {
    rep_ops.push_back(std::make_shared<const std::vector<int>>(s0.ops.vec()));
    Subgraph p = s0;
    p.ops.clear();
    protos.push_back(std::move(p));
  }
  for (auto& [front, kj] : order) {
    const int k = kj / S, j = kj % S;
    Subgraph sg = protos[size_t(j)];
    sg.id = int(r.subgraphs.size());
    if (f.segments.size() == 1) {
      sg.ops = OpList::shifted(rep_ops[size_t(j)], f.segments[0].op_begin + k * f.segments[0].ops_per);
    } else {
      std::vector<int> ops = *rep_ops[size_t(j)];
      for (int& o : ops) o = f.op(k, o);
      sg.ops = std::move(ops);
    }
    id_of[size_t(kj)] = sg.id;
    b.family_sg_member[size_t(sg.id)] = k;
    b.family_sg_local[size_t(sg.id)] = j;
    r.subgraphs.push_back(std::move(sg));
  }
  // The graph between subgraphs: member 0's, in every member.
  SgGraph g0(rep);
  auto g = std::make_shared<SgGraph>();
  g->succ.assign(r.subgraphs.size(), {});
  g->pred.assign(r.subgraphs.size(), {});
  for (int k = 0; k < B; ++k)
    for (int j = 0; j < S; ++j) {
      const int id = id_of[size_t(k * S + j)];
      for (int x : g0.succ[size_t(j)]) g->succ[size_t(id)].insert(id_of[size_t(k * S + x)]);
      for (int x : g0.pred[size_t(j)]) g->pred[size_t(id)].insert(id_of[size_t(k * S + x)]);
    }
  b.family_graph = std::move(g);
  // Member k's copy of subgraph j hashes as member 0's (iso_hash reads kinds, attributes, chains and
  // the tiles' memory, dtype, shape and layout, all member 0's, and the def-use pattern, moved one to
  // one): each j is hashed once instead of walking every member's ops.
  compute_iso_hashes_by_class(r, b.family_sg_local);
  b.iso_fresh = true;
  b.family = f;
  // Statistics and merge lines as the explicit partition of all members gives them.
  b.stats.supernodes += B * st.supernodes;
  b.stats.depth_merges += B * st.depth_merges;
  b.stats.scope_merges += B * st.scope_merges;
  r.merges_applied.push_back("scope: " + std::to_string(b.stats.scope_merges) + " merges");
  r.merges_applied.push_back("depth: " + std::to_string(B * st.depth_merges) + " merges");
  return true;
}

}  // namespace ptoc::tiling
