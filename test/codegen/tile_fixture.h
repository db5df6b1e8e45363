// Hand-built tile graphs for the backend tests: a small Program (for names
// and source positions), one TileRoot, and a platform with fixed numbers so
// that hand-computed costs do not move when the platform table is tuned.
#pragma once
#include <string>
#include <vector>

#include "compiler/passes/backend.h"
#include "compiler/pipeline.h"

namespace ptoc::test {

inline Platform fixed_platform() {
  Platform p;
  p.name = "test910";
  p.arch = "dav_2201";
  p.aic = 24;
  p.aiv = 48;
  p.ub = 196608;
  p.l1 = 524288;
  p.l0a = 65536;
  p.l0b = 65536;
  p.l0c = 131072;
  p.align_ub = 32;
  p.align_l1 = 32;
  p.align_l0a = 512;
  p.align_l0b = 512;
  p.align_l0c = 64;
  p.gm_read_bpc = 32;
  p.gm_write_bpc = 32;
  p.ub_to_gm_bpc = 64;
  p.l0c_to_gm_bpc = 64;
  p.l1_to_l0a_bpc = 512;
  p.l1_to_l0b_bpc = 256;
  p.cube_m = p.cube_n = p.cube_k = 16;
  p.vec_bytes_per_cycle = 256;
  p.dma_startup_cycles = 50;
  p.l1_dma_startup_cycles = 200;
  return p;
}

struct Fixture {
  PipelineResult r;
  TileRoot& root() { return r.roots.at(0); }

  // Program: inputs x [rows, cols] and w, output y; op 0 = exp at line 12
  // col 9 under vec_tile [vt0, vt1] at line 9; op 1 = matmul at line 14 col 9
  // under cube_tile at line 13.
  explicit Fixture(int64_t rows = 64, int64_t cols = 128, DType dt = DType::fp32, int64_t vt0 = 16,
                   int64_t vt1 = 128) {
    Program& p = r.program;
    p.file = "test.yaml";
    p.name = "t";
    p.target = "test910";
    p.tensors.push_back({"x", TensorRole::Input, dt, {rows, cols}, Format::ND, false, {}});
    p.tensors.push_back({"w", TensorRole::Input, dt, {cols, rows}, Format::ND, false, {}});
    p.tensors.push_back({"y", TensorRole::Output, dt, {rows, cols}, Format::ND, false, {}});
    p.tensors.push_back({"c", TensorRole::Output, DType::fp32, {rows, rows}, Format::ND, false, {}});
    Op e;
    e.id = 0;
    e.kind = OpKind::Exp;
    e.loc = {12, 9};
    e.vec_tile = VecTile{{vt0, vt1}, {9, 5}};
    p.ops.push_back(e);
    Op m;
    m.id = 1;
    m.kind = OpKind::Matmul;
    m.loc = {14, 9};
    CubeTile ct;
    ct.m = {32, 32};
    ct.n = {32, 32};
    ct.k = {64, 64, 64};
    ct.loc = {13, 5};
    m.cube_tile = ct;
    p.ops.push_back(m);
    RootTemplate rt;
    rt.index = 0;
    rt.name = "top_0";
    p.roots.push_back(rt);
    LoopNode n;
    n.kind = LoopNode::Kind::Root;
    n.root = 0;
    p.body.push_back(n);
    TileRoot tr;
    tr.root = 0;
    r.roots.push_back(tr);
  }

  int tile(MemKind m, DType t, std::vector<int64_t> shape, std::vector<DimExpr> valid = {}) {
    LocalTile lt;
    lt.id = int(root().tiles.size());
    lt.mem = m;
    lt.dtype = t;
    if (valid.empty())
      for (auto d : shape) valid.push_back(DimExpr(d));
    lt.shape = std::move(shape);
    lt.valid = std::move(valid);
    root().tiles.push_back(lt);
    return lt.id;
  }
  int op(TileOp o) {
    o.id = int(root().ops.size());
    root().ops.push_back(o);
    return o.id;
  }
  int copy_in(int tensor, int dst, std::vector<DimExpr> off, std::vector<DimExpr> ext, int chain = 0, int src_op = 0) {
    TileOp o;
    o.kind = TileOpKind::CopyIn;
    o.dst = dst;
    o.gm = {tensor, std::move(off), std::move(ext)};
    o.chain = chain;
    o.source_op = src_op;
    return op(o);
  }
  int copy_out(int tensor, int src, std::vector<DimExpr> off, std::vector<DimExpr> ext, int chain = 0) {
    TileOp o;
    o.kind = TileOpKind::CopyOut;
    o.srcs = {src};
    o.gm = {tensor, std::move(off), std::move(ext)};
    o.chain = chain;
    o.source_op = 0;
    return op(o);
  }
  int vec(OpKind k, std::vector<int> srcs, int dst, int chain = 0) {
    TileOp o;
    o.kind = TileOpKind::Vec;
    o.vop = k;
    o.srcs = std::move(srcs);
    o.dst = dst;
    o.chain = chain;
    o.source_op = 0;
    return op(o);
  }
  // x[row0 : row0 + valid_rows, :] -> UB -> exp -> y: three ops.
  std::vector<int> exp_chain(int64_t row0, int64_t valid_rows, int chain, int64_t tile_rows = 16,
                             int64_t cols = 128, OpKind k = OpKind::Exp) {
    int a = tile(MemKind::UB, DType::fp32, {tile_rows, cols}, {valid_rows, cols});
    int b = tile(MemKind::UB, DType::fp32, {tile_rows, cols}, {valid_rows, cols});
    return {copy_in(0, a, {row0, 0}, {valid_rows, cols}, chain), vec(k, {a}, b, chain),
            copy_out(2, b, {row0, 0}, {valid_rows, cols}, chain)};
  }
  // c[0:32, 0:32] = x[0:32, 0:64] @ w[0:64, 0:32] through L1 / L0.
  std::vector<int> matmul_leaf(DType in = DType::fp32) {
    int a1 = tile(MemKind::L1, in, {32, 64});
    int b1 = tile(MemKind::L1, in, {64, 32});
    int a0 = tile(MemKind::L0A, in, {32, 64});
    int b0 = tile(MemKind::L0B, in, {64, 32});
    int c0 = tile(MemKind::L0C, DType::fp32, {32, 32});
    std::vector<int> ops;
    ops.push_back(copy_in(0, a1, {0, 0}, {32, 64}, 0, 1));
    ops.push_back(copy_in(1, b1, {0, 0}, {64, 32}, 0, 1));
    TileOp la;
    la.kind = TileOpKind::L1ToL0A;
    la.srcs = {a1};
    la.dst = a0;
    la.sub_offset = {0, 0};
    la.source_op = 1;
    ops.push_back(op(la));
    TileOp lb = la;
    lb.kind = TileOpKind::L1ToL0B;
    lb.srcs = {b1};
    lb.dst = b0;
    ops.push_back(op(lb));
    TileOp mm;
    mm.kind = TileOpKind::Mmad;
    mm.srcs = {a0, b0};
    mm.dst = c0;
    mm.source_op = 1;
    ops.push_back(op(mm));
    TileOp fx;
    fx.kind = TileOpKind::FixOut;
    fx.srcs = {c0};
    fx.gm = {3, {0, 0}, {32, 32}};
    fx.dtype = DType::fp32;
    fx.source_op = 1;
    ops.push_back(op(fx));
    return ops;
  }
  int subgraph(CoreType core, std::vector<int> ops, int chains = 1, std::vector<int> succ = {}, int hash_order = 0) {
    Subgraph s;
    s.id = int(root().subgraphs.size());
    s.core = core;
    s.ops = std::move(ops);
    s.chains = chains;
    s.succ = std::move(succ);
    s.hash_order = hash_order;
    root().subgraphs.push_back(s);
    return s.id;
  }

  // Runs the backend passes; returns false on error (diagnostics in `diags`).
  bool run(DiagEngine& diags, const Platform& plat = fixed_platform()) {
    PassTimer timer;
    return run_backend(r, plat, diags, timer);
  }
};

inline std::vector<int> concat(std::initializer_list<std::vector<int>> parts) {
  std::vector<int> v;
  for (const auto& p : parts) v.insert(v.end(), p.begin(), p.end());
  return v;
}

// y = (x - amax(x, -1, keepdim)) * 0.5 over a 16 x 128 fp32 tile with 5 valid rows at row 48 of GM
// tensor 0, stored to tensor 2: a tail, a broadcast row and a reduction in one vector leaf.
inline void build_tail_reduce_leaf(Fixture& f) {
  int x = f.tile(MemKind::UB, DType::fp32, {16, 128}, {5, 128});
  int m = f.tile(MemKind::UB, DType::fp32, {16, 1}, {5, 1});
  int s = f.tile(MemKind::UB, DType::fp32, {16, 128}, {5, 128});
  int y = f.tile(MemKind::UB, DType::fp32, {16, 128}, {5, 128});
  std::vector<int> ops = {f.copy_in(0, x, {48, 0}, {5, 128})};
  ops.push_back(f.vec(OpKind::Amax, {x}, m));
  f.root().ops.back().axes = {1};
  ops.push_back(f.vec(OpKind::Sub, {x, m}, s));
  ops.push_back(f.vec(OpKind::Mul, {s}, y));
  f.root().ops.back().scalar = 0.5;
  ops.push_back(f.copy_out(2, y, {48, 0}, {5, 128}));
  f.subgraph(CoreType::AIV, ops);
}

}  // namespace ptoc::test
