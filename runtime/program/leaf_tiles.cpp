#include "runtime/program/leaf_tiles.h"

#include <algorithm>

#include "runtime/program/leaf_footprint.h"

namespace ptoc::leaf {

TileUse tile_use(Fn f) {
  switch (f) {
    case Fn::TLOAD: return {0, 4, 5};
    case Fn::TSTORE: return {1, 4, 5};
    case Fn::TLOAD_L1: return {0, 6, 7};
    case Fn::TFIXPIPE: return {1, 4, 5};
    case Fn::TBINARY: case Fn::TBINARY_S: case Fn::TCMP: case Fn::TCMP_S: return {0, 3, 4};
    case Fn::TUNARY: case Fn::TPRED: case Fn::TCAST: case Fn::TFILL: return {0, 2, 3};
    case Fn::TRANDOM: return {0, 2, 3};  // --- random ops ---
    case Fn::TSELECT: return {0, 4, 5};
    default: return {};
  }
}

bool constant_expr(const Expr& e) {
  for (const ExprTok& t : e.toks)
    if (t.op == ExprOp::Arg || t.op == ExprOp::Local) return false;
  return true;
}

bool tiles_depend_on_args(const Instr& in) {
  const TileUse use = tile_use(in.fn);
  for (size_t k = 0; k < in.operands.size(); ++k) {
    const Operand& o = in.operands[k];
    if (o.kind == OperandKind::Buf && !constant_expr(o.expr)) return true;
    if ((int(k) == use.vr || int(k) == use.vc) && !constant_expr(o.expr)) return true;
  }
  return false;
}

std::string verify_leaf_tiles(const LeafProgram& p) {
  for (size_t at = 0; at < p.instrs.size(); ++at) {
    const Instr& in = p.instrs[at];
    if (in.kind != InstrKind::Call) continue;
    const std::string where = "leaf program instruction " + std::to_string(at) + " (" + fn_name(in.fn) + ")";
    const TileUse use = tile_use(in.fn);
    int64_t shape[2] = {0, 0};
    int ns = 0;
    for (const TParam& t : in.tparams)
      if (t.kind == TParamKind::Int && ns < 2) shape[ns++] = t.v;
    for (size_t k = 0; k < in.operands.size(); ++k) {
      const Operand& o = in.operands[k];
      if (o.kind != OperandKind::Buf || o.index < 0 || size_t(o.index) >= p.buffers.size()) continue;
      const Buffer& b = p.buffers[size_t(o.index)];
      const __int128 eb = elem_bytes(b.dtype);
      const __int128 tile = int(k) == use.buf && ns == 2 ? __int128(shape[0]) * shape[1] * eb : 0;
      const __int128 offset = constant_expr(o.expr) ? __int128(eval_expr(o.expr, nullptr, nullptr)) * eb : 0;
      if (offset < 0 || offset > b.bytes)
        return where + ": operand " + std::to_string(k) + " points " + std::to_string(int64_t(offset)) +
               " bytes into buffer " + std::to_string(o.index) + ", which has " + std::to_string(b.bytes) + " bytes";
      if (offset + tile > b.bytes)
        return where + ": its " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " tile of " +
               std::to_string(int(eb)) + "-byte elements at byte " + std::to_string(int64_t(offset)) + " of buffer " +
               std::to_string(o.index) + " runs past its end (" + std::to_string(b.bytes) + " bytes at byte " +
               std::to_string(b.addr) + " of a " + std::to_string(memory_bytes(b.mem)) + "-byte local memory)";
      if (!tile || tiles_depend_on_args(in)) continue;
      // Constant valid extents: the rows they walk at a pitch of C (kernels/host/pto_host_ops.h).
      const __int128 vr = eval_expr(in.operands[size_t(use.vr)].expr, nullptr, nullptr);
      const __int128 vc = eval_expr(in.operands[size_t(use.vc)].expr, nullptr, nullptr);
      if (vr > 0 && vc > 0 && offset + ((vr - 1) * shape[1] + vc) * eb > b.bytes)
        return where + ": valid extent " + std::to_string(int64_t(vr)) + " x " + std::to_string(int64_t(vc)) +
               " of its " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) +
               " tile runs past the end of buffer " + std::to_string(o.index) + " (" + std::to_string(b.bytes) +
               " bytes)";
    }
    // Every buffer window the call's kernel walks (leaf_footprint.h), when all its operands are
    // constants; the run's preflight checks the others per task.
    bool constant = true;
    int64_t vals[kMaxFootprints] = {};
    for (size_t k = 0; k < in.operands.size(); ++k) {
      const Operand& o = in.operands[k];
      if (o.kind != OperandKind::Int && o.kind != OperandKind::Buf) continue;
      if (!constant_expr(o.expr) || k >= size_t(kMaxFootprints)) {
        constant = false;
        break;
      }
      vals[k] = o.expr.toks.empty() ? 0 : eval_expr(o.expr, nullptr, nullptr);
    }
    if (!constant) continue;
    Footprint fp[kMaxFootprints];
    const int nf = call_footprints(in, vals, fp);
    for (int i = 0; i < nf; ++i) {
      const Operand& o = in.operands[size_t(fp[i].operand)];
      if (fp[i].hi <= fp[i].lo || o.kind != OperandKind::Buf || o.index < 0 || size_t(o.index) >= p.buffers.size())
        continue;
      const Buffer& b = p.buffers[size_t(o.index)];
      const __int128 eb = elem_bytes(b.dtype), at = __int128(b.addr) + __int128(vals[fp[i].operand]) * eb;
      const __int128 lo = at + fp[i].lo * eb, hi = at + fp[i].hi * eb;
      // The memory bounds it, not the buffer: ptoc's K-tail extracts read past their L1 tile.
      if (lo >= 0 && hi <= memory_bytes(b.mem)) continue;
      auto num = [](__int128 x) { return std::to_string(int64_t(std::clamp<__int128>(x, INT64_MIN, INT64_MAX))); };
      return where + ": operand " + std::to_string(fp[i].operand) + " (buffer " + std::to_string(o.index) + ", " +
             std::to_string(b.bytes) + " bytes at byte " + std::to_string(b.addr) + ") reaches bytes [" + num(lo) +
             ", " + num(hi) + "), outside its " + std::to_string(memory_bytes(b.mem)) + "-byte local memory";
    }
  }
  return "";
}

}  // namespace ptoc::leaf
