// The local-memory footprint of each leaf-program call; see leaf_footprint.h. Each case mirrors the
// loops of its host kernel (kernels/host/pto_host_ops.h).
#include "runtime/program/leaf_footprint.h"

#include <algorithm>

namespace ptoc::leaf {

namespace {

using i128 = __int128;

// vr rows of vc elements at a row pitch of `pitch`: [0, (vr-1)*pitch + vc), nothing when either is 0.
i128 rows(i128 vr, i128 vc, i128 pitch) { return vr > 0 && vc > 0 ? (vr - 1) * pitch + vc : 0; }

// PTO_BC_NONE, ROW, COL, SCALAR (kernels/pto_tile.h): the elements of a broadcast operand of an
// R x C op that vr x vc reads.
i128 bc_reach(int64_t bc, i128 vr, i128 vc, i128 C) {
  if (vr <= 0 || vc <= 0) return 0;
  return bc == 0 ? rows(vr, vc, C) : bc == 1 ? vc : bc == 2 ? vr : 1;
}

struct Out {
  Footprint* f;
  int n = 0;
  void add(int operand, i128 lo, i128 hi) {
    if (n < kMaxFootprints) f[n++] = Footprint{operand, lo, hi};
  }
  // [0, max(tile, reach)): what the kernel writes whole (a padded load's tile) and the walk from the pointer.
  void from0(int operand, i128 tile, i128 reach) { add(operand, 0, std::max(tile, reach)); }
};

}  // namespace

int call_footprints(const Instr& in, const int64_t* v, Footprint* f) {
  Out o{f};
  // Inputs clamped to +-2^60, so that no product or sum below leaves __int128 (a crafted value is
  // refused all the same: no buffer has 2^60 elements).
  const auto clamp = [](i128 x) { return std::clamp<i128>(x, -(i128(1) << 60), i128(1) << 60); };
  const auto tp = [&](size_t i) -> i128 { return i < in.tparams.size() ? clamp(in.tparams[i].v) : 0; };
  const auto val = [&](size_t k) -> i128 { return k < in.operands.size() && k < size_t(kMaxFootprints) ? clamp(v[k]) : 0; };
  switch (in.fn) {
    case Fn::TLOAD: {  // {T, R, C, PAD}: dst rows of C; with PAD_ZERO the rest of each row and the tile
      const i128 R = tp(1), C = tp(2), vr = val(4), vc = val(5);
      i128 reach = rows(vr, vc, C);
      if (tp(3) != 0 && vr > 0) reach = std::max(reach, vr * C);
      o.from0(0, R * C, reach);
      break;
    }
    case Fn::TSTORE:  // {T, R, C, ATOMIC}: src rows of C
    case Fn::TFIXPIPE:
      o.from0(1, 0, rows(val(4), val(5), tp(2)));
      break;
    case Fn::TBINARY:
    case Fn::TCMP: {  // {OP, T, R, C, BA, BB}: dst, a, b
      const i128 C = tp(3), vr = val(3), vc = val(4);
      o.from0(0, 0, rows(vr, vc, C));
      o.from0(1, 0, bc_reach(int64_t(tp(4)), vr, vc, C));
      o.from0(2, 0, bc_reach(int64_t(tp(5)), vr, vc, C));
      break;
    }
    case Fn::TBINARY_S:
    case Fn::TCMP_S: {  // {OP, T, R, C, ...}: dst, src
      const i128 reach = rows(val(3), val(4), tp(3));
      o.from0(0, 0, reach);
      o.from0(1, 0, reach);
      break;
    }
    case Fn::TUNARY:
    case Fn::TPRED: {  // {OP, T, R, C}: dst, src
      const i128 reach = rows(val(2), val(3), tp(3));
      o.from0(0, 0, reach);
      o.from0(1, 0, reach);
      break;
    }
    case Fn::TRANDOM: {  // --- random ops --- {TD, R, C, MODE}: dst, idx
      const i128 reach = rows(val(2), val(3), tp(2));
      o.from0(0, 0, reach);
      o.from0(1, 0, reach);
      break;
    }
    case Fn::TBITCAST: {  // --- pack / unpack --- {TD, TS, R, CD, CS}: rows of CS source / CD dst elements
      const i128 CD = tp(3), CS = tp(4), vr = val(2), vc = val(3);
      const i128 vd = CS == 0 ? 0 : (vc * CD + CS - 1) / CS;  // the dst elements the vc source elements fill
      o.from0(0, 0, rows(vr, vd, CD));
      o.from0(1, 0, rows(vr, vc, CS));
      break;
    }
    case Fn::TSORT:
    case Fn::TSORT_IDX: {  // --- sort --- {TD, T, R, C, K, ...}: dst vr rows of K; src (and idx) vr rows of C
      const bool with_idx = in.fn == Fn::TSORT_IDX;
      const i128 C = tp(3), K = tp(4), vr = val(with_idx ? 3 : 2), vc = val(with_idx ? 4 : 3);
      o.from0(0, 0, rows(vr, K, K));
      o.from0(1, 0, rows(vr, vc, C));
      if (with_idx) o.from0(2, 0, rows(vr, vc, C));
      break;
    }
    case Fn::TCAST: {  // {TD, TS, R, C}
      const i128 reach = rows(val(2), val(3), tp(3));
      o.from0(0, 0, reach);
      o.from0(1, 0, reach);
      break;
    }
    case Fn::TFILL:  // {T, R, C}: dst
      o.from0(0, 0, rows(val(2), val(3), tp(2)));
      break;
    case Fn::TSELECT: {  // {T, R, C, BC, BA, BB}: dst, cond, a, b
      const i128 C = tp(2), vr = val(4), vc = val(5);
      o.from0(0, 0, rows(vr, vc, C));
      for (int k = 1; k <= 3; ++k)
        o.from0(k, 0, bc_reach(int64_t(tp(size_t(2 + k))), vr, vc, C));
      break;
    }
    case Fn::TREDUCE:
    case Fn::TARGREDUCE: {  // {OP, T, R, C, AXIS}: src rows of C; dst one value per row (AXIS 1) or column
      const i128 C = tp(3), vr = val(2), vc = val(3);
      const bool along_rows = tp(4) == 1;
      o.from0(0, 0, along_rows ? std::max<i128>(vr, 0) : std::max<i128>(vc, 0));
      o.from0(1, 0, rows(vr, vc, C));
      break;
    }
    case Fn::TTRANSPOSE: {  // {T, R, C}: dst[j*R + i] = src[i*C + j]
      const i128 R = tp(1), C = tp(2), vr = val(2), vc = val(3);
      o.from0(0, 0, rows(vc, vr, R));
      o.from0(1, 0, rows(vr, vc, C));
      break;
    }
    case Fn::TCOPY: {  // {T, RS, CS, RD, CD}: dst + (row_off + i)*CD + col_off <- src + i*CS, vr x vc
      const i128 CS = tp(2), CD = tp(4), vr = val(2), vc = val(3), ro = val(4), co = val(5);
      if (vr > 0 && vc > 0) o.add(0, ro * CD + co, (ro + vr - 1) * CD + co + vc);
      o.from0(1, 0, rows(vr, vc, CS));
      break;
    }
    case Fn::TCOPY2D: {  // {T, DS0, DS1, SS0, SS1}: n0 x n1 elements at strides (S0, S1) on each side
      const i128 n0 = val(2), n1 = val(3);
      if (n0 <= 0 || n1 <= 0) break;
      for (int side = 0; side < 2; ++side) {
        const i128 s0 = tp(size_t(1 + 2 * side)), s1 = tp(size_t(2 + 2 * side));
        const i128 a = (n0 - 1) * s0, b = (n1 - 1) * s1;
        o.add(side, std::min<i128>(0, a) + std::min<i128>(0, b), std::max<i128>(0, a) + std::max<i128>(0, b) + 1);
      }
      break;
    }
    case Fn::TLOAD_L1: {  // {T, R, C, NZ}: dst rows of C, each padded to C, then the tile
      const i128 R = tp(1), C = tp(2), vr = val(6), vc = val(7);
      o.from0(0, R * C, vr > 0 && vc > 0 ? (vr - 1) * C + std::max(vc, C) : 0);
      break;
    }
    case Fn::TEXTRACT_L0A:
    case Fn::TEXTRACT_L0B: {  // {T, RL1, CL1, A, B, TRANS}: dst A x B; src rows of CL1 from (row_off, col_off)
      const i128 CL1 = tp(2), A = tp(3), B = tp(4), ro = val(2), co = val(3);
      o.from0(0, 0, A * B);  // dst: A rows of B, contiguous
      // L0A: M rows of K (TRANS: K rows of M); L0B: K rows of N (TRANS: N rows of K).
      const bool trans = tp(5) != 0;
      const i128 nrows = trans ? B : A, ncols = trans ? A : B;
      if (nrows > 0 && ncols > 0) o.add(1, ro * CL1 + co, (ro + nrows - 1) * CL1 + co + ncols);
      break;
    }
    case Fn::TMMAD: {  // {T, M, K, N}: c vm x vn at pitch N, a vm x vk at pitch K, b vk x vn at pitch N
      const i128 K = tp(2), N = tp(3), vm = val(3), vk = val(4), vn = val(5);
      o.from0(0, 0, rows(vm, vn, N));
      o.from0(1, 0, rows(vm, vk, K));
      o.from0(2, 0, rows(vk, vn, N));
      break;
    }
  }
  return o.n;
}

}  // namespace ptoc::leaf
