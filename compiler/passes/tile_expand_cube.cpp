// Tile expansion of matmul by cube_tile: per (g, n, m) L0 output tile a chain
// of k steps accumulating in L0C (Mmad), L1 tiles grouping kL1 of the k steps
// (GM -> L1 copies of A [mL0 x kAL1] and B [kBL1 x nL0]), L1 -> L0A/L0B per
// k step, FixOut to GM with the cast to the output dtype. split_k cuts K into
// independent partial chains whose FixOuts add atomically into a zero-filled
// fp32 output (int32 for int8 operands). Operands come from GM (a vector result is stored first).
#include <algorithm>

#include "compiler/passes/block_replica.h"
#include "compiler/passes/gm_box_axes.h"
#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

void Builder::expand_matmul(const Op& op) {
  int a = op.inputs.at(0), bv = op.inputs.at(1), w = op.output;
  auto SA = static_shape(a, op), SB = static_shape(bv, op), SW = static_shape(w, op);
  if (!SA || !SB || !SW) return;
  if (!op.cube_tile) {
    error(op, "'matmul' has no cube_tile in force", "add {cube_tile: {m: [..], k: [..], n: [..]}} before this statement");
    return;
  }
  const CubeTile& ct = *op.cube_tile;
  bool batched = SW->size() == 3;
  size_t ra = SA->size(), rb = SB->size();
  int64_t M = (*SW)[SW->size() - 2], N = (*SW)[SW->size() - 1];
  int64_t K = op.trans_a ? (*SA)[ra - 2] : (*SA)[ra - 1];
  int64_t G = batched ? (*SW)[0] : 1;
  int64_t mL0 = std::min(ct.m[0], M), nL0 = std::min(ct.n[0], N), kL0 = std::min(ct.k[0], K);
  int64_t kA = ct.k[1] > 0 ? ct.k[1] : ct.k[0];
  int64_t kB = ct.k[2] > 0 ? ct.k[2] : kA;
  if (mL0 <= 0 || nL0 <= 0 || kL0 <= 0 || kA % ct.k[0] != 0 || kB % ct.k[0] != 0) {
    diags.error(ct.loc.valid() ? ct.loc : op.loc, "cube_tile k L1 extents must be multiples of the k L0 extent",
                "e.g. k: [64, 256]");
    failed = true;
    return;
  }
  kA = std::min(kA, K);
  kB = std::min(kB, K);
  if (kA % kL0 != 0) kA = (kA + kL0 - 1) / kL0 * kL0;
  if (kB % kL0 != 0) kB = (kB + kL0 - 1) / kL0 * kL0;
  DType out = prog.values[w].dtype;
  const DType adt = prog.values[a].dtype, bdt = prog.values[bv].dtype;
  // split_k: independent K parts of min(kAL1, kBL1).
  int64_t chunk = K;
  if (ct.split_k) {
    // The partial sums add in GM at the output dtype: fp32, or int32 for int8 x int8 (exact: integer adds
    // commute, so the sum's bits never depend on the order the parts land in).
    const bool int_acc = out == DType::int32 && adt == DType::int8;
    if (out != DType::fp32 && !int_acc) {
      error(op, "split_k sums partial matmuls in GM and needs out_dtype=fp32, or int32 for int8 operands (this matmul gives " +
                    std::string(dtype_name(out)) + ")",
            "add out_dtype=fp32 and cast afterwards, or set split_k: false");
      return;
    }
    chunk = std::min(kA, kB);
  }
  int64_t parts = (K + chunk - 1) / chunk;
  bool split = parts > 1;

  GmLoc la = gm_of(a), lb = gm_of(bv);
  GmLoc lw = home_of(w);
  auto avalid = valid_of(a), bvalid = valid_of(bv), wvalid = valid_of(w);
  Format afmt = tensor_format(la.tensor), bfmt = tensor_format(lb.tensor);
  DimExpr Kvalid = op.trans_a ? avalid[ra - 2] : avalid[ra - 1];

  // A box [g?, rows, cols] of an operand of rank r; `rows/cols` in stored orientation.
  auto operand_box = [&](int v, size_t r, int64_t g, int64_t r0, int64_t rext, int64_t c0, int64_t cext,
                         const std::vector<DimExpr>& vvalid, const DimExpr& rmax, const DimExpr& cmax) {
    Box bx;
    if (r == 3) {
      bx.off.push_back(DimExpr(g));
      bx.ext.push_back(1);
      bx.valid.push_back(DimExpr(1));
    }
    (void)v;
    (void)vvalid;
    bx.off.push_back(DimExpr(r0));
    bx.ext.push_back(rext);
    bx.valid.push_back(clip_extent(rext, rmax - DimExpr(r0)));
    bx.off.push_back(DimExpr(c0));
    bx.ext.push_back(cext);
    bx.valid.push_back(clip_extent(cext, cmax - DimExpr(c0)));
    return bx;
  };
  // The L1 copy reads the box's last two axes: an operand with size-1 axes no tensor axis maps to
  // (reshape(w, [K, 1]) of a rank-1 w) gets them in its box.
  // A tensor axis of extent 1 that no operand axis maps to, after the first one that does (reshape(w, [K, N])
  // of w [K, N, 1, 1] or [K, 1, N]), would land in those last two axes: it is dropped from a reshaped view of
  // the same bytes (a 1x1 conv's weight read wrong numbers before).
  auto operand_ref = [&](const GmLoc& loc, const Box& bx) {
    GmRef g = gm_ref(loc, bx);
    if (g.tensor < 0) return g;
    std::vector<DimExpr> shape = g.view;
    if (shape.empty())
      shape = g.tensor < int(prog.tensors.size()) ? prog.tensors[size_t(g.tensor)].shape
                                                  : root.temps[size_t(g.tensor - temp_base)].shape;
    if (g.offset.size() < bx.ext.size()) return with_value_axes(g, loc, bx.ext.size(), shape);
    if (shape.size() != g.offset.size() || loc.map.size() != g.offset.size()) return g;
    if (tensor_format(g.tensor) != Format::ND) return g;
    size_t first = 0;
    while (first < loc.map.size() && loc.map[first] < 0) ++first;
    std::vector<size_t> drop;
    for (size_t e = first + 1; e < loc.map.size(); ++e)
      if (loc.map[e] < 0 && sub(shape[e]).as_const() == 1) drop.push_back(e);
    if (drop.empty()) return g;
    GmRef q;
    q.tensor = g.tensor;
    for (size_t e = 0; e < shape.size(); ++e) {
      if (std::find(drop.begin(), drop.end(), e) != drop.end()) continue;
      q.view.push_back(shape[e]);
      q.offset.push_back(g.offset[e]);
      q.extent.push_back(g.extent[e]);
    }
    return q;
  };
  auto last2 = [](const Box& bx) {
    return std::vector<DimExpr>(bx.valid.end() - 2, bx.valid.end());
  };

  // Room for every op and tile of this matmul up front: growing the arrays op by op
  // moved each TileOp about twice and faulted in fresh pages at every doubling.
  {
    int64_t ops_per = split ? 2 : 0, tiles_per = split ? 1 : 0;
    for (int64_t p = 0; p < parts; ++p) {
      int64_t len = std::min(K, p * chunk + chunk) - p * chunk;
      int64_t steps = (len + kL0 - 1) / kL0, la = (len + kA - 1) / kA, lb = (len + kB - 1) / kB;
      ops_per += la + lb + 3 * steps + 1;
      tiles_per += la + lb + 2 * steps + 1;
    }
    int64_t blocks = G * ((N + nL0 - 1) / nL0) * ((M + mL0 - 1) / mL0);
    auto grow = [](auto& v, size_t need) {  // never below doubling: many small matmuls stay amortized
      if (need > v.capacity()) v.reserve(std::max(need, 2 * v.capacity()));
    };
    grow(root.ops, root.ops.size() + size_t(blocks * ops_per));
    grow(root.tiles, root.tiles.size() + size_t(blocks * tiles_per));
  }
  // A batch axis of extent 1 broadcasts: every output batch g reads that operand's batch 0.
  const bool a_bcast = ra == 3 && (*SA)[0] == 1, b_bcast = rb != 3 || (*SB)[0] == 1;
  // A root that starts with this matmul: its output blocks are checked as family members right
  // after each is emitted (tile_families.h, EmittedBlocks); any other root leaves them broken.
  const bool check_blocks = root.ops.empty() && root.tiles.empty() && emitted_blocks.blocks == 0;
  if (!check_blocks) emitted_blocks.broken = true;
  auto out_box = [&](int64_t g, int64_t n0, int64_t m0) {
    Box wb;
    if (batched) {
      wb.off.push_back(DimExpr(g));
      wb.ext.push_back(1);
      wb.valid.push_back(DimExpr(1));
    }
    wb.off.push_back(DimExpr(m0));
    wb.ext.push_back(mL0);
    wb.valid.push_back(clip_extent(mL0, wvalid[wvalid.size() - 2] - DimExpr(m0)));
    wb.off.push_back(DimExpr(n0));
    wb.ext.push_back(nL0);
    wb.valid.push_back(clip_extent(nL0, wvalid[wvalid.size() - 1] - DimExpr(n0)));
    return wb;
  };
  // Block copies (block_replica.h): block 0 is recorded while it is emitted; a later block whose
  // m/n valid extents are block 0's is block 0 moved, each operand's GM offsets by the difference of
  // its first k step's references (offsets are constants, so they move linearly).
  BlockTemplate tmpl;
  bool recording = copy_blocks;
  auto put = [&](TileOp&& o, BlockOperand x) {
    if (recording) tmpl.operand.push_back(x);
    emit(std::move(o));
  };
  const DimExpr& aM = avalid[op.trans_a ? ra - 1 : ra - 2];
  const DimExpr& bN = bvalid[op.trans_b ? rb - 2 : rb - 1];
  auto block_edges = [&](int64_t n0, int64_t m0) {
    return std::array<DimExpr, 4>{clip_extent(mL0, wvalid[wvalid.size() - 2] - DimExpr(m0)),
                                  clip_extent(nL0, wvalid[wvalid.size() - 1] - DimExpr(n0)),
                                  clip_extent(mL0, aM - DimExpr(m0)), clip_extent(nL0, bN - DimExpr(n0))};
  };
  using Offsets = std::array<std::vector<int64_t>, 3>;
  // Operand x's first-k-step offsets as constants of the template's rank; nullopt: not copyable.
  auto const_offsets = [&](size_t x, const GmRef& ref) -> std::optional<std::vector<int64_t>> {
    if (int(ref.offset.size()) != tmpl.rank[x] && tmpl.rank[x] >= 0) return std::nullopt;
    std::vector<int64_t> o;
    for (const DimExpr& e : ref.offset) {
      auto c = e.as_const();
      if (!c) return std::nullopt;
      o.push_back(*c);
    }
    return o;
  };
  // A's reference depends on (g_a, m0) only and B's on (g_b, n0): each is built once per row or
  // column of blocks, not once per block (the template's rank is fixed before the first call).
  using Refs = std::optional<std::vector<int64_t>>;
  std::map<std::pair<int64_t, int64_t>, Refs> a_refs, b_refs;
  auto block_refs = [&](int64_t g, int64_t n0, int64_t m0) -> std::optional<Offsets> {
    const int64_t g_a = a_bcast ? 0 : g, g_b = b_bcast ? 0 : g, kend = std::min(K, chunk);
    auto [ia, fresh_a] = a_refs.try_emplace({g_a, m0});
    if (fresh_a) {
      const DimExpr kmax = min(Kvalid, DimExpr(kend));
      const int64_t ea = std::min(kA, kend);
      Box ba = op.trans_a ? operand_box(a, ra, g_a, 0, ea, m0, mL0, avalid, kmax, avalid[ra - 1])
                          : operand_box(a, ra, g_a, m0, mL0, 0, ea, avalid, avalid[ra - 2], kmax);
      ia->second = const_offsets(0, operand_ref(la, ba));
    }
    auto [ib, fresh_b] = b_refs.try_emplace({g_b, n0});
    if (fresh_b) {
      const DimExpr kmax = min(Kvalid, DimExpr(kend));
      const int64_t eb = std::min(kB, kend);
      Box bb = op.trans_b ? operand_box(bv, rb, g_b, n0, nL0, 0, eb, bvalid, bvalid[rb - 2], kmax)
                          : operand_box(bv, rb, g_b, 0, eb, n0, nL0, bvalid, kmax, bvalid[rb - 1]);
      ib->second = const_offsets(1, operand_ref(lb, bb));
    }
    if (!ia->second || !ib->second) return std::nullopt;
    Refs w = const_offsets(2, gm_ref(lw, out_box(g, n0, m0)));
    if (!w) return std::nullopt;
    return Offsets{*ia->second, *ib->second, std::move(*w)};
  };
  std::array<DimExpr, 4> edges0;
  Offsets refs0;
  BlockCopies* track = nullptr;  // this matmul's record of its copies (Builder::block_copies)
  for (int64_t g = 0; g < G; ++g)
    for (int64_t n0 = 0; n0 < N; n0 += nL0)
      for (int64_t m0 = 0; m0 < M; m0 += mL0) {
        const int block_begin = int(root.ops.size()), tile_begin = int(root.tiles.size());
        if (tmpl.usable) {
          const std::array<DimExpr, 4> e = block_edges(n0, m0);
          bool same = true;
          for (size_t i = 0; i < 4; ++i) same = same && e[i].same(edges0[i]);
          std::optional<Offsets> rk;
          if (same) rk = block_refs(g, n0, m0);
          if (rk) {
            for (size_t x = 0; x < 3; ++x)
              for (size_t i = 0; i < (*rk)[x].size(); ++i) (*rk)[x][i] -= refs0[x][i];
            emit_block_copy(*this, tmpl, *rk);
            ++stats.copied_blocks;
            if (track) {
              track->copied.push_back(1);
              track->delta.push_back(std::move(*rk));
            }
            if (check_blocks && !note_block_copy(tmpl, block_begin, tile_begin, emitted_blocks)) {
              settle_copied_writers();
              check_emitted_block(root, tile_writer, block_begin, int(root.ops.size()), emitted_blocks);
            }
            continue;
          }
        }
        if (track) {  // a block built: not a copy
          track->copied.push_back(0);
          track->delta.emplace_back();
        }
        Box wb = out_box(g, n0, m0);
        std::vector<DimExpr> cvalid = last2(wb);
        if (split) {
          // Zero the output tile first (AIV); the partial FixOuts add into it.
          TileOp z;
          z.kind = TileOpKind::Vec;
          z.vop = OpKind::Full;
          z.fill = 0;
          z.dtype = out;
          z.dst = new_tile(MemKind::UB, out, {mL0, nL0}, cvalid);
          int zt = z.dst;
          put(std::move(z), BlockOperand::None);
          TileOp zs;
          zs.kind = TileOpKind::CopyOut;
          zs.srcs = {zt};
          zs.gm = gm_ref(lw, wb);
          put(std::move(zs), BlockOperand::W);
        }
        for (int64_t p = 0; p < parts; ++p) {
          int64_t kbeg = p * chunk, kend = std::min(K, kbeg + chunk);
          int l1a = -1, l1b = -1, l0c = -1;
          int64_t ka0 = 0, kb0 = 0;
          const int64_t g_a = a_bcast ? 0 : g, g_b = b_bcast ? 0 : g;
          for (int64_t k0 = kbeg; k0 < kend; k0 += kL0) {
            DimExpr kmax = min(Kvalid, DimExpr(kend));
            if ((k0 - kbeg) % kA == 0) {
              int64_t ext = std::min(kA, kend - kbeg);
              Box bx = op.trans_a ? operand_box(a, ra, g_a, k0, ext, m0, mL0, avalid, kmax, avalid[ra - 1])
                                  : operand_box(a, ra, g_a, m0, mL0, k0, ext, avalid, avalid[ra - 2], kmax);
              TileOp in;
              in.kind = TileOpKind::CopyIn;
              in.gm = operand_ref(la, bx);
              std::vector<int64_t> shp(bx.ext.end() - 2, bx.ext.end());
              in.dst = new_tile(MemKind::L1, adt, shp, last2(bx), afmt);
              in.trans_a = op.trans_a;
              l1a = in.dst;
              ka0 = k0;
              put(std::move(in), BlockOperand::A);
            }
            if ((k0 - kbeg) % kB == 0) {
              int64_t ext = std::min(kB, kend - kbeg);
              Box bx = op.trans_b ? operand_box(bv, rb, g_b, n0, nL0, k0, ext, bvalid, bvalid[rb - 2], kmax)
                                  : operand_box(bv, rb, g_b, k0, ext, n0, nL0, bvalid, kmax, bvalid[rb - 1]);
              TileOp in;
              in.kind = TileOpKind::CopyIn;
              in.gm = operand_ref(lb, bx);
              std::vector<int64_t> shp(bx.ext.end() - 2, bx.ext.end());
              in.dst = new_tile(MemKind::L1, bdt, shp, last2(bx), bfmt);
              in.trans_b = op.trans_b;
              l1b = in.dst;
              kb0 = k0;
              put(std::move(in), BlockOperand::B);
            }
            DimExpr kv = clip_extent(kL0, kmax - DimExpr(k0));
            DimExpr mv = clip_extent(mL0, avalid[op.trans_a ? ra - 1 : ra - 2] - DimExpr(m0));
            DimExpr nv = clip_extent(nL0, bvalid[op.trans_b ? rb - 2 : rb - 1] - DimExpr(n0));
            TileOp la0;
            la0.kind = TileOpKind::L1ToL0A;
            la0.srcs = {l1a};
            la0.trans_a = op.trans_a;
            la0.sub_offset = op.trans_a ? std::vector<int64_t>{k0 - ka0, 0} : std::vector<int64_t>{0, k0 - ka0};
            la0.dst = new_tile(MemKind::L0A, adt, {mL0, kL0}, {mv, kv});
            int t0a = la0.dst;
            put(std::move(la0), BlockOperand::None);
            TileOp lb0;
            lb0.kind = TileOpKind::L1ToL0B;
            lb0.srcs = {l1b};
            lb0.trans_b = op.trans_b;
            lb0.sub_offset = op.trans_b ? std::vector<int64_t>{0, k0 - kb0} : std::vector<int64_t>{k0 - kb0, 0};
            lb0.dst = new_tile(MemKind::L0B, bdt, {kL0, nL0}, {kv, nv});
            int t0b = lb0.dst;
            put(std::move(lb0), BlockOperand::None);
            TileOp mm;
            mm.kind = TileOpKind::Mmad;
            mm.srcs = {t0a, t0b};
            mm.trans_a = op.trans_a;
            mm.trans_b = op.trans_b;
            if (l0c < 0) {
              // int8 x int8 accumulates exactly in int32 L0C (same 4 bytes as fp32).
              l0c = new_tile(MemKind::L0C, adt == DType::int8 ? DType::int32 : DType::fp32, {mL0, nL0}, cvalid);
            } else {
              mm.accumulate = true;
            }
            mm.dst = l0c;
            put(std::move(mm), BlockOperand::None);
          }
          TileOp fx;
          fx.kind = TileOpKind::FixOut;
          fx.srcs = {l0c};
          fx.dtype = out;
          fx.atomic_add = split;
          fx.gm = gm_ref(lw, wb);
          put(std::move(fx), BlockOperand::W);
        }
        // The block is complete (the body has no other way out than an exception).
        if (check_blocks) check_emitted_block(root, tile_writer, block_begin, int(root.ops.size()), emitted_blocks);
        if (recording) {
          recording = false;
          tmpl.op_begin = block_begin;
          tmpl.op_end = int(root.ops.size());
          tmpl.tile_begin = tile_begin;
          tmpl.tile_end = int(root.tiles.size());
          finish_block_template(root, tmpl);
          edges0 = block_edges(n0, m0);
          for (const DimExpr& e : edges0) tmpl.usable = tmpl.usable && e.is_const();
          std::optional<Offsets> r0 = tmpl.usable ? block_refs(g, n0, m0) : std::nullopt;
          tmpl.usable = tmpl.usable && r0;
          if (r0) refs0 = *r0;
          if (check_blocks && tmpl.usable && tmpl.op_begin == 0 && tmpl.tile_begin == 0) {
            block_copies = std::make_shared<BlockCopies>();
            block_copies->ops_per = tmpl.op_end;
            block_copies->tiles_per = tmpl.tile_end;
            block_copies->operand = tmpl.operand;
            block_copies->copied.push_back(0);
            block_copies->delta.emplace_back();
            track = block_copies.get();
          }
        }
      }
  ValueInfo& vi = vals[w];
  vi.kind = ValueInfo::Kind::Gm;
  vi.gm = lw;
}

}  // namespace ptoc::tiling
