// Pass: estimated cycles of a leaf, per pipe and end to end.
//
// Per op, from the platform table (runtime/platform.h) and PyPTO's analytic
// model (interface/operation/cycles.cpp, see pypto-architecture.md section 6):
//   copy-in   GM->UB: dma_startup + dma; GM->L1: l1_dma_startup + dma, dma = max(bytes / gm_read_bpc,
//             rows x dma_burst_min_cycles): one burst per row of the last axis, each at least the floor
//   copy-out  UB->GM: dma_startup + max(bytes / ub_to_gm_bpc, rows x floor)
//   fix-out   L0C->GM: l1_dma_startup + max(bytes / l0c_to_gm_bpc, rows x floor) (bytes of the GM dtype)
//   L1->L0A/B bytes / l1_to_l0{a,b}_bpc
//   mmad      ceil(m/16) * ceil(n/16) * ceil(k/k0): one 16x16xk0 fractal per cycle,
//             k0 = 16 for 16-bit inputs, 8 for fp32, 32 for 8-bit
//   vector    per instruction: start-up + ceil(bytes / 256); composite ops
//             (sigmoid, tanh, gelu, silu, mean) are several instructions.
// Extents are the valid ones when they are compile-time constants (tails
// cost less), else the full tile. The leaf's end-to-end estimate replays the
// steps over the pipes: a step starts when its pipe is free and every flag it
// waits for has been set; set_flag fires when the work queued before it on
// its pipe is done.
#include <algorithm>
#include <cmath>
#include <map>

#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

int64_t ceil_div_i(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

// Elements actually moved or computed: the valid extents when constant.
int64_t tile_elems(const LocalTile& t) {
  int64_t n = 1;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t e = t.shape[d];
    if (d < t.valid.size())
      if (auto c = t.valid[d].as_const()) e = std::min(e, std::max<int64_t>(*c, 0));
    n *= e;
  }
  return n;
}

int64_t transfer(int64_t bytes, double bpc) { return bpc > 0 ? int64_t(std::ceil(double(bytes) / bpc)) : bytes; }

// Extents of a GM box as moved: the constant valid extents, else the tile's.
std::vector<int64_t> gm_extents(const GmRef& g, const LocalTile& t) {
  std::vector<int64_t> e;
  if (g.extent.empty()) {
    for (size_t d = 0; d < t.shape.size(); ++d) {
      int64_t x = t.shape[d];
      if (d < t.valid.size())
        if (auto c = t.valid[d].as_const()) x = std::min(x, std::max<int64_t>(*c, 0));
      e.push_back(x);
    }
    return e;
  }
  for (size_t d = 0; d < g.extent.size(); ++d) {
    auto c = g.extent[d].as_const();
    e.push_back(c ? std::max<int64_t>(*c, 0) : (d < t.shape.size() ? t.shape[d] : 1));
  }
  return e;
}

// Cycles of a GM <-> core DMA: the kernels issue one burst per row of the last axis (nd2nz rows,
// nBurst rows of copy_*_align, FixPipe NZ->ND rows), and each burst takes at least the platform's
// burst floor, so short rows (a 16-wide fp16 matrix: 32 B) move far below the per-core byte rate.
// (A GM tensor stored NZ is read in longer bursts; its rows are costed as ND rows, which only
// matters below ~170 B per row.)
int64_t dma_cycles(const GmRef& g, const LocalTile& t, int64_t esize, double bpc, const Platform& plat) {
  const std::vector<int64_t> e = gm_extents(g, t);
  int64_t elems = 1, rows = 1;
  for (size_t d = 0; d < e.size(); ++d) {
    elems *= e[d];
    if (d + 1 < e.size()) rows *= e[d];
  }
  const int64_t by_bytes = transfer(elems * esize, bpc);
  if (elems == 0 || plat.dma_burst_min_cycles <= 0) return by_bytes;
  const int64_t by_bursts = int64_t(std::ceil(double(rows) * plat.dma_burst_min_cycles));
  return std::max(by_bytes, by_bursts);
}

// Start-up cycles of the vector instructions one tile op expands to.
std::vector<int> vec_instrs(OpKind k) {
  switch (k) {
    case OpKind::Add: case OpKind::Sub: case OpKind::Maximum: case OpKind::Minimum:
    case OpKind::Abs: case OpKind::Relu: return {6};
    case OpKind::Mul: case OpKind::Neg: return {7};
    case OpKind::Div: case OpKind::Reciprocal: return {13};
    case OpKind::Exp: case OpKind::Log: case OpKind::Sqrt: return {12};
    case OpKind::Rsqrt: return {12, 13};                        // sqrt, then reciprocal
    case OpKind::Sigmoid: return {7, 12, 6, 13};                 // neg, exp, add 1, reciprocal
    case OpKind::Silu: return {7, 12, 6, 13, 7};                 // sigmoid, then mul
    case OpKind::Tanh: return {7, 12, 6, 13, 7, 6};              // 2*sigmoid(2x) - 1
    case OpKind::Gelu: return {7, 7, 7, 6, 7, 7, 12, 6, 13, 7, 6, 7};  // x^3, poly, tanh, 0.5*x*(1+t)
    case OpKind::Sum: case OpKind::Amax: case OpKind::Amin: return {20};
    case OpKind::Mean: return {20, 7};                           // sum, then scale
    case OpKind::Cast: return {9};
    case OpKind::Transpose: return {20};
    case OpKind::Full: case OpKind::Concat: return {6};          // vector dup / copy
    case OpKind::Bitcast: return {6};                            // --- pack / unpack --- a UB copy (TCOPY)
    // PyPTO's catalogue, first tranche: the device mapping's instruction sequences (kernels/device).
    case OpKind::Eq: case OpKind::Ne: case OpKind::Lt: case OpKind::Le: case OpKind::Gt: case OpKind::Ge:
      return {6, 6};                                             // vcmpv, then vsel of 1 / 0 into bool
    case OpKind::LogicalAnd: case OpKind::LogicalOr: return {6, 6, 6, 6};  // two compares with 0, and/or, select
    case OpKind::LogicalNot: case OpKind::Isfinite: return {6, 6};
    case OpKind::BitwiseAnd: case OpKind::BitwiseOr: case OpKind::BitwiseXor: case OpKind::BitwiseNot: return {6};
    case OpKind::Where: return {6};                              // vsel
    case OpKind::Pow: return {12, 7, 12};                        // ln, mul, exp
    case OpKind::Exp2: case OpKind::Log2: case OpKind::Log1p: case OpKind::Expm1: return {7, 12};
    case OpKind::Sin: case OpKind::Cos: case OpKind::Erf: return {7, 7, 7, 7, 7, 7, 7, 7};  // polynomial
    case OpKind::Round: case OpKind::Floor: case OpKind::Ceil: case OpKind::Trunc: return {9, 9};  // vconv there and back
    case OpKind::Sign: return {6, 6, 6};
    case OpKind::Prod: return {20};
    case OpKind::Argmax: case OpKind::Argmin: return {20, 20};   // reduce, then locate the index
    default: return {6};
  }
}

// --- math ops --- They run on the scalar unit (no vector instruction): per element, about the
// cycles of the libm routine, in a loop bracketed by full barriers.
int64_t math_scalar_cycles_per_elem(OpKind k) {
  switch (k) {
    case OpKind::Signbit: return 4;                               // a compare and a store
    case OpKind::Gcd: return 60;                                  // Euclid's loop, a few divisions
    case OpKind::BitwiseLeftShift: case OpKind::BitwiseRightShift: return 4;
    case OpKind::FloorDiv: case OpKind::CeilDiv: case OpKind::Remainder: case OpKind::Fmod: return 24;
    case OpKind::Acos: case OpKind::Asin: case OpKind::Atan: case OpKind::Acosh: case OpKind::Asinh:
    case OpKind::Atanh: case OpKind::Sinh: case OpKind::Cosh: case OpKind::Tan: case OpKind::Cbrt:
    case OpKind::Erfc: case OpKind::Atan2: return 40;                // polynomial and range reduction
    default: return 0;
  }
}

// --- sort --- PyPTO's MERGE_SORT on the vector unit: the row is sorted in blocks of 32 (VBS32), then
// merged four lists at a time (VMS4) until one list remains; every pass streams the row's (value, index)
// pairs (8 bytes an element for fp32) through the vector unit, a startup per pass and per row. The k
// kept are then extracted (one more streaming pass over k pairs).
int64_t sort_cycles(const LocalTile& src, const LocalTile& dst, const Platform& plat) {
  const int64_t cols = src.shape.empty() ? 1 : src.shape.back();
  const int64_t rows = std::max<int64_t>(1, tile_elems(src) / std::max<int64_t>(1, cols));
  const int64_t k = dst.shape.empty() ? 1 : dst.shape.back();
  int64_t passes = 1;  // VBS32
  for (int64_t lists = ceil_div_i(cols, 32); lists > 1; lists = ceil_div_i(lists, 4)) ++passes;  // VMS4
  const int64_t pair_bytes = 2 * std::max<int64_t>(4, dtype_size(src.dtype));
  const int64_t pass = 20 + ceil_div_i(cols * pair_bytes, plat.vec_bytes_per_cycle);
  return rows * (passes * pass + 20 + ceil_div_i(k * pair_bytes, plat.vec_bytes_per_cycle));
}

// --- random ops --- TRANDOM is a scalar loop on the device (kernels/device/pto_device_random.h):
// per element ten Philox rounds (two 32 x 32 -> 64 multiplies, xors, key adds: ~8 cycles each);
// normal adds the fp32 log, sqrt and sin / cos.
int64_t random_scalar_cycles_per_elem(OpKind k) {
  switch (k) {
    case OpKind::Uniform: return 84;
    case OpKind::Normal: return 84 + 110;
    default: return 0;
  }
}

}  // namespace

int64_t op_cycles(const TileRoot& root, const TileOp& op, const Platform& plat) {
  switch (op.kind) {
    case TileOpKind::CopyIn: {
      const LocalTile& d = local_tile(root, op.dst);
      int64_t start = d.mem == MemKind::UB ? plat.dma_startup_cycles : plat.l1_dma_startup_cycles;
      return start + dma_cycles(op.gm, d, dtype_size(d.dtype), plat.gm_read_bpc, plat);
    }
    case TileOpKind::CopyOut: {
      const LocalTile& s = local_tile(root, op.srcs.at(0));
      return plat.dma_startup_cycles + dma_cycles(op.gm, s, dtype_size(s.dtype), plat.ub_to_gm_bpc, plat);
    }
    case TileOpKind::FixOut: {
      const LocalTile& s = local_tile(root, op.srcs.at(0));
      return plat.l1_dma_startup_cycles + dma_cycles(op.gm, s, dtype_size(op.dtype), plat.l0c_to_gm_bpc, plat);
    }
    case TileOpKind::L1ToL0A:
    case TileOpKind::L1ToL0B: {
      const LocalTile& d = local_tile(root, op.dst);
      double bpc = op.kind == TileOpKind::L1ToL0A ? plat.l1_to_l0a_bpc : plat.l1_to_l0b_bpc;
      return transfer(tile_elems(d) * dtype_size(d.dtype), bpc);
    }
    case TileOpKind::Mmad: {
      const LocalTile& c = local_tile(root, op.dst);
      const LocalTile& a = local_tile(root, op.srcs.at(0));
      int64_t m = c.shape.size() >= 2 ? c.shape[c.shape.size() - 2] : 1;
      int64_t nn = c.shape.empty() ? 1 : c.shape.back();
      int64_t a_elems = 1;
      for (int64_t d : a.shape) a_elems *= d;
      int64_t batch = 1;
      for (size_t d = 0; d + 2 < c.shape.size(); ++d) batch *= c.shape[d];
      int64_t k = a_elems / std::max<int64_t>(1, m * batch);
      int64_t k0 = std::max<int64_t>(1, int64_t(plat.cube_k) * 2 / dtype_size(a.dtype));
      return batch * ceil_div_i(m, plat.cube_m) * ceil_div_i(nn, plat.cube_n) * ceil_div_i(k, k0);
    }
    case TileOpKind::Vec: {
      int64_t bytes = 0;
      if (op.dst >= 0) {
        const LocalTile& d = local_tile(root, op.dst);
        bytes = tile_elems(d) * dtype_size(d.dtype);
      }
      for (int s : op.srcs) {
        const LocalTile& t = local_tile(root, s);
        bytes = std::max(bytes, tile_elems(t) * dtype_size(t.dtype));
      }
      if (const int64_t per = random_scalar_cycles_per_elem(op.vop)) {  // --- random ops ---: scalar loop
        const LocalTile& d = local_tile(root, op.dst);
        return 2 * 20 + tile_elems(d) * per;
      }
      if (const int64_t per = math_scalar_cycles_per_elem(op.vop)) {  // --- math ops ---: scalar loops
        const LocalTile& d = local_tile(root, op.dst);
        return 2 * 20 + tile_elems(d) * per;  // two full barriers around the loop
      }
      if (op.vop == OpKind::SortValues || op.vop == OpKind::SortIndices)  // --- sort ---
        return sort_cycles(local_tile(root, op.srcs.at(0)), local_tile(root, op.dst), plat);
      int64_t repeats = ceil_div_i(bytes, plat.vec_bytes_per_cycle);
      int64_t c = 0;
      for (int start : vec_instrs(op.vop)) c += start + repeats;
      return c;
    }
  }
  return 0;
}

void estimate_leaf_cost(const TileRoot& root, const Platform& plat, LeafPlan& plan) {
  plan.pipe_cycles.fill(0);
  const int n = int(plan.steps.size());
  plan.step_start.assign(n, 0);
  plan.step_end.assign(n, 0);
  std::array<int64_t, kNumPipes> pipe_free{};
  std::map<std::tuple<int, int, int>, int64_t> flag_time;  // (src, dst, event) -> when the set fires
  auto key = [](const SyncInstr& s) { return std::tuple<int, int, int>{int(s.src), int(s.dst), s.event}; };
  int64_t end = 0;
  auto apply = [&](const SyncInstr& s, int64_t& ready, PipeId pipe) {
    switch (s.kind) {
      case SyncInstr::Kind::SetFlag: flag_time[key(s)] = pipe_free[int(s.src)]; break;
      case SyncInstr::Kind::WaitFlag: {
        // The waiting pipe stalls until the flag fires; later work on it too.
        int64_t t = flag_time[key(s)];
        ready = std::max(ready, t);
        pipe_free[int(s.dst)] = std::max(pipe_free[int(s.dst)], t);
        break;
      }
      case SyncInstr::Kind::Barrier: ready = std::max(ready, pipe_free[int(pipe)]); break;
      case SyncInstr::Kind::BarrierAll:
        for (int64_t f : pipe_free) ready = std::max(ready, f);
        break;
    }
  };
  for (int i = 0; i < n; ++i) {
    LeafStep& st = plan.steps[i];
    int64_t ready = 0;
    for (const auto& s : st.before) apply(s, ready, st.pipe);
    int64_t c = op_cycles(root, tile_op(root, st.op), plat);
    int64_t start = std::max(ready, pipe_free[int(st.pipe)]);
    plan.step_start[i] = start;
    plan.step_end[i] = start + c;
    pipe_free[int(st.pipe)] = start + c;
    plan.pipe_cycles[int(st.pipe)] += c;
    end = std::max(end, start + c);
    for (const auto& s : st.after) apply(s, ready, st.pipe);
  }
  plan.est_cycles = end;
}

}  // namespace ptoc
