// CCE emission. The kernel text is a straight line of tile-library calls:
//   header comment (function hash, buffers, arguments)
//   PTO_KERNEL(name) {
//     [PMU head stamps]
//     GM slot pointers and row strides from the argument block
//     buffers bound at their planned addresses, with their valid extents
//     per step: wait_flags, the tile call, set_flags
//     [PMU tail stamps]
//   }
// Tiles of rank > 2 run as loops over their leading axes around the 2-D
// calls of kernels/pto_tile.h, so tails on any axis stay exact. A reduction
// over a leading axis views the tile as [P, A, Q] (reduce_leading); a
// transpose of two axes other than the last two is a loop of strided plane
// copies (transpose_any, TCOPY2D).
#include "compiler/codegen/cce_emit.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string ctype(DType t) {
  switch (t) {
    case DType::fp32: return "pto_f32";
    case DType::fp16: return "pto_f16";
    case DType::bf16: return "pto_bf16";
    case DType::int32: return "pto_i32";
    case DType::int8: return "pto_i8";
    case DType::uint8: return "pto_u8";
    case DType::boolean: return "pto_bool";
  }
  return "pto_f32";
}

std::string mem_macro(MemKind m) {
  switch (m) {
    case MemKind::UB: return "UB";
    case MemKind::L1: return "L1";
    case MemKind::L0A: return "L0A";
    case MemKind::L0B: return "L0B";
    case MemKind::L0C: return "L0C";
    case MemKind::GM: return "GM";
  }
  return "UB";
}

std::string literal(double v) {
  if (std::isnan(v)) return "__builtin_nan(\"\")";
  if (std::isinf(v)) return v > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string arg(int i) { return fmt::format("PTO_ARG({})", i); }

int64_t prod(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

// A tile seen as the 2-D library tile: rows x cols of its last two axes.
struct View2 {
  int64_t rows = 1, cols = 1;
};
View2 view2(const std::vector<int64_t>& shape) {
  View2 v;
  if (shape.size() >= 1) v.cols = shape.back();
  if (shape.size() >= 2) v.rows = shape[shape.size() - 2];
  return v;
}

std::string sync_line(const SyncInstr& s) {
  switch (s.kind) {
    case SyncInstr::Kind::SetFlag:
      return fmt::format("PTO_SET_FLAG({}, {}, {});", pipe_name(s.src), pipe_name(s.dst), s.event);
    case SyncInstr::Kind::WaitFlag:
      return fmt::format("PTO_WAIT_FLAG({}, {}, {});", pipe_name(s.src), pipe_name(s.dst), s.event);
    case SyncInstr::Kind::Barrier: return fmt::format("PTO_PIPE_BARRIER({});", pipe_name(s.src));
    case SyncInstr::Kind::BarrierAll: return "PTO_PIPE_BARRIER(ALL);";
  }
  return "";
}

const char* bin_op(OpKind k) {
  switch (k) {
    case OpKind::Add: return "PTO_ADD";
    case OpKind::Sub: return "PTO_SUB";
    case OpKind::Mul: return "PTO_MUL";
    case OpKind::Div: return "PTO_DIV";
    case OpKind::Maximum: return "PTO_MAX";
    case OpKind::Minimum: return "PTO_MIN";
    case OpKind::Pow: return "PTO_POW";
    case OpKind::BitwiseAnd: return "PTO_BAND";
    case OpKind::BitwiseOr: return "PTO_BOR";
    case OpKind::BitwiseXor: return "PTO_BXOR";
    default: return nullptr;
  }
}

const char* un_op(OpKind k) {
  switch (k) {
    case OpKind::Exp: return "PTO_EXP";
    case OpKind::Log: return "PTO_LOG";
    case OpKind::Sqrt: return "PTO_SQRT";
    case OpKind::Rsqrt: return "PTO_RSQRT";
    case OpKind::Abs: return "PTO_ABS";
    case OpKind::Neg: return "PTO_NEG";
    case OpKind::Reciprocal: return "PTO_RECIPROCAL";
    case OpKind::Relu: return "PTO_RELU";
    case OpKind::Sigmoid: return "PTO_SIGMOID";
    case OpKind::Tanh: return "PTO_TANH";
    case OpKind::Gelu: return "PTO_GELU";
    case OpKind::Silu: return "PTO_SILU";
    case OpKind::Exp2: return "PTO_EXP2";
    case OpKind::Log2: return "PTO_LOG2";
    case OpKind::Log1p: return "PTO_LOG1P";
    case OpKind::Expm1: return "PTO_EXPM1";
    case OpKind::Sin: return "PTO_SIN";
    case OpKind::Cos: return "PTO_COS";
    case OpKind::Erf: return "PTO_ERF";
    case OpKind::Round: return "PTO_ROUND";
    case OpKind::Floor: return "PTO_FLOOR";
    case OpKind::Ceil: return "PTO_CEIL";
    case OpKind::Trunc: return "PTO_TRUNC";
    case OpKind::Sign: return "PTO_SIGN";
    case OpKind::BitwiseNot: return "PTO_BNOT";
    default: return nullptr;
  }
}

const char* red_op(OpKind k) {
  switch (k) {
    case OpKind::Sum: return "PTO_RSUM";
    case OpKind::Amax: return "PTO_RMAX";
    case OpKind::Amin: return "PTO_RMIN";
    case OpKind::Mean: return "PTO_RMEAN";
    case OpKind::Prod: return "PTO_RPROD";
    case OpKind::Argmax: return "PTO_RARGMAX";
    case OpKind::Argmin: return "PTO_RARGMIN";
    default: return nullptr;
  }
}

// Ops with a bool result: two operands (TCMP) or one (TPRED).
const char* cmp_op(OpKind k) {
  switch (k) {
    case OpKind::Eq: return "PTO_EQ";
    case OpKind::Ne: return "PTO_NE";
    case OpKind::Lt: return "PTO_LT";
    case OpKind::Le: return "PTO_LE";
    case OpKind::Gt: return "PTO_GT";
    case OpKind::Ge: return "PTO_GE";
    case OpKind::LogicalAnd: return "PTO_LAND";
    case OpKind::LogicalOr: return "PTO_LOR";
    default: return nullptr;
  }
}
const char* pred_op(OpKind k) {
  switch (k) {
    case OpKind::Isfinite: return "PTO_ISFINITE";
    case OpKind::LogicalNot: return "PTO_LNOT";
    default: return nullptr;
  }
}
bool is_index_reduction(OpKind k) { return k == OpKind::Argmax || k == OpKind::Argmin; }

class Emitter {
 public:
  Emitter(const TileRoot& root, const std::vector<GmTensor>& tensors, const LeafPlan& plan)
      : root_(root), tensors_(tensors), plan_(plan) {}

  std::string kernel(const std::string& name, const CceOptions& opts) {
    const LeafArgs& a = plan_.args;
    line(fmt::format("// ptoc kernel {} ({}), {} tile ops", name, plan_.core == CoreType::AIC ? "AIC" : "AIV",
                     plan_.steps.size()));
    line(fmt::format("// funcHash: {:016x}", plan_.hash));
    line(fmt::format("// buffers: UB {} B, L1 {} B, L0A {} B, L0B {} B, L0C {} B; {} GM slots, {} int64 args",
                     plan_.peak[int(MemKind::UB)], plan_.peak[int(MemKind::L1)], plan_.peak[int(MemKind::L0A)],
                     plan_.peak[int(MemKind::L0B)], plan_.peak[int(MemKind::L0C)], a.gm_tensors.size(),
                     a.values.size()));
    line(fmt::format("// estimated cycles: {} (MTE2 {}, MTE1 {}, M {}, FIX {}, V {}, MTE3 {})", plan_.est_cycles,
                     plan_.pipe_cycles[0], plan_.pipe_cycles[1], plan_.pipe_cycles[2], plan_.pipe_cycles[3],
                     plan_.pipe_cycles[4], plan_.pipe_cycles[5]));
    line("#include \"pto_tile.h\"");
    line("");
    line(fmt::format("PTO_KERNEL({}) {{", name));
    ++indent_;
    if (opts.pmu_trace) pmu(PipeId::MTE2, 100);
    for (size_t s = 0; s < a.gm_tensors.size(); ++s) {
      const GmTensor& t = tensors_.at(a.gm_tensors[s]);
      line(fmt::format("PTO_GM_PTR({0}) gm{1} = PTO_GM({0}, {1});", ctype(t.dtype), s));
      const size_t g = a.slot_view[s].empty() ? t.shape.size() : a.slot_view[s].size();
      // Row-major element strides of the ND tensor (NZ operands use their fractal ld).
      for (size_t d = 0; d < g; ++d) {
        std::string st = "1";
        for (size_t e = d + 1; e < g; ++e) st = (st == "1" ? "" : st + " * ") + arg(a.slot_shape_arg[s] + int(e));
        line(fmt::format("const int64_t gm{}_st{} = {};", s, d, st));
      }
    }
    for (size_t b = 0; b < plan_.buffers.size(); ++b) {
      const BufferSlot& bs = plan_.buffers[b];
      const LocalTile& lt = local_tile(root_, bs.tile);
      std::string dims;
      for (size_t d = 0; d < lt.shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(lt.shape[d]);
      line(fmt::format("PTO_{0}_PTR({1}) b{2} = PTO_{0}({1}, {3});  // tile {4} [{5}] {6}, {7} B, steps {8}-{9}",
                       mem_macro(bs.mem), ctype(lt.dtype), b, bs.addr, bs.tile, dims, dtype_name(lt.dtype), bs.size,
                       bs.first, bs.last));
      for (size_t d = 0; d < lt.shape.size(); ++d)
        line(fmt::format("const int64_t b{}_v{} = {};", b, d, arg(a.buffer_valid_arg[b] + int(d))));
    }
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const LeafStep& st = plan_.steps[i];
      for (const auto& s : st.before) line(sync_line(s));
      step(int(i));
      for (const auto& s : st.after) line(sync_line(s));
    }
    if (opts.pmu_trace) pmu(PipeId::MTE3, 1000);
    --indent_;
    line("}");
    return os_.str();
  }

 private:
  void line(const std::string& s) { os_ << std::string(2 * indent_, ' ') << s << "\n"; }

  void pmu(PipeId pipe, int nops) {
    int id = pmu_id(plan_.hash);  // compiler/compiled_program.h: PyPTO's GenPMUId, main block
    line("PTO_PIPE_BARRIER(ALL);");
    line(fmt::format("PTO_MARK_STAMP({}, {});", pipe_name(pipe), id));
    line(fmt::format("PTO_NOPS({});", nops));
    line(fmt::format("PTO_MARK_STAMP({}, {});", pipe_name(pipe), id));
  }

  const LocalTile& tile(int id) const { return local_tile(root_, id); }
  std::string buf(int tile_id) const {
    int b = plan_.buffer_index(tile_id);
    if (b < 0) throw Unsupported("tile " + std::to_string(tile_id) + " has no on-chip buffer");
    return "b" + std::to_string(b);
  }
  std::string valid(int tile_id, int axis_from_end) const {
    const LocalTile& t = tile(tile_id);
    int d = int(t.shape.size()) - axis_from_end;
    if (d < 0) return "1";
    return buf(tile_id) + "_v" + std::to_string(d);
  }
  std::string vr(int t) const { return valid(t, 2); }
  std::string vc(int t) const { return valid(t, 1); }

  // Opens loops over the leading axes (all but the last two) of a tile whose
  // valid extents bound them; returns the index names.
  std::vector<std::string> open_loops(int step, const std::vector<std::string>& counts) {
    std::vector<std::string> idx;
    for (size_t a = 0; a < counts.size(); ++a) {
      std::string i = fmt::format("i{}_{}", step, a);
      line(fmt::format("for (int64_t {0} = 0; {0} < {1}; ++{0}) {{", i, counts[a]));
      ++indent_;
      idx.push_back(i);
    }
    return idx;
  }
  void close_loops(size_t n) {
    for (size_t a = 0; a < n; ++a) {
      --indent_;
      line("}");
    }
  }
  std::vector<std::string> lead_counts(int tile_id) const {
    const LocalTile& t = tile(tile_id);
    std::vector<std::string> c;
    for (size_t a = 0; a + 2 < t.shape.size(); ++a) c.push_back(buf(tile_id) + "_v" + std::to_string(a));
    return c;
  }
  // Element offset of batch index `idx` inside a tile (an operand of rank
  // <= the loop rank is aligned to the right; size-1 axes broadcast).
  std::string batch_off(int tile_id, const std::vector<std::string>& idx, int loop_rank,
                        const std::vector<int64_t>& extra = {}) const {
    const LocalTile& t = tile(tile_id);
    const int r = int(t.shape.size());
    std::string s;
    for (int a = 0; a < int(idx.size()); ++a) {
      int ax = a - (loop_rank - r);  // the tile's own axis
      if (ax < 0 || t.shape[ax] == 1) continue;
      std::string i = idx[a];
      if (a < int(extra.size()) && extra[a] != 0) i = fmt::format("({} + {})", i, extra[a]);
      s += fmt::format(" + {} * {}", i, prod(t.shape, ax + 1, r));
    }
    return s;
  }

  void step(int i) {
    const LeafStep& st = plan_.steps[i];
    const TileOp& op = tile_op(root_, st.op);
    line(fmt::format("// step {}: op {} ({})", i, op.id, pipe_name(st.pipe)));
    switch (op.kind) {
      case TileOpKind::CopyIn: copy_in(i, op); break;
      case TileOpKind::CopyOut: copy_out(i, op); break;
      case TileOpKind::FixOut: fix_out(i, op); break;
      case TileOpKind::L1ToL0A:
      case TileOpKind::L1ToL0B: extract(op); break;
      case TileOpKind::Mmad: mmad(op); break;
      case TileOpKind::Vec: vec(i, op); break;
    }
  }

  std::string gm_offset(int i, const TileOp& op, size_t upto) const {
    const int s = plan_.args.step_gm_slot[i], o = plan_.args.step_offset_arg[i];
    std::string e;
    for (size_t d = 0; d < upto && d < op.gm.offset.size(); ++d)
      e += fmt::format("{}{} * gm{}_st{}", e.empty() ? "" : " + ", arg(o + int(d)), s, d);
    return e.empty() ? "0" : e;
  }
  std::string gm_ext(int i, const TileOp& op, int axis_from_end) const {
    int d = int(op.gm.extent.size()) - axis_from_end;
    return d < 0 ? "1" : arg(plan_.args.step_extent_arg[i] + d);
  }

  // The GM axis each tile axis moves along. A tile may have fewer axes than its
  // GM box only by size-1 box axes (tiling.h); they may sit anywhere (e.g. the
  // kept axis of a keepdim reduction reshaped away), so match from the last
  // axis and drop a size-1 box axis wherever the tile axis is not also 1.
  std::vector<int> tile_to_gm_axes(const TileOp& op, const LocalTile& t) const {
    const int r = int(t.shape.size()), g = int(op.gm.extent.size());
    std::vector<int> map(size_t(r), 0);
    int extra = g - r, j = g - 1;
    for (int a = r - 1; a >= 0; --a) {
      while (extra > 0 && j > 0 && t.shape[size_t(a)] != 1 && op.gm.extent[size_t(j)].as_const() == 1) {
        --j;
        --extra;
      }
      map[size_t(a)] = j--;
    }
    return map;
  }

  // GM <-> UB moves: loops over the tile's leading axes, 2-D boxes inside.
  void ub_move(int i, const TileOp& op, int tile_id, bool load) {
    const int s = plan_.args.step_gm_slot[i];
    const LocalTile& t = tile(tile_id);
    const int r = int(t.shape.size()), g = int(op.gm.offset.size());
    if (g < r) throw Unsupported("a tile of higher rank than its GM tensor");
    const std::vector<int> gm_axis = tile_to_gm_axes(op, t);
    std::vector<std::string> counts;
    for (int a = 0; a + 2 < r; ++a) counts.push_back(arg(plan_.args.step_extent_arg[i] + gm_axis[size_t(a)]));
    auto idx = open_loops(i, counts);
    std::string off = gm_offset(i, op, g);
    for (int a = 0; a < int(idx.size()); ++a) off += fmt::format(" + {} * gm{}_st{}", idx[a], s, gm_axis[size_t(a)]);
    std::string local = buf(tile_id) + batch_off(tile_id, idx, r);
    View2 v = view2(t.shape);
    const int row_axis = r >= 2 ? gm_axis[size_t(r - 2)] : g - 2, col_axis = r >= 1 ? gm_axis[size_t(r - 1)] : g - 1;
    std::string row_stride = g >= 2 ? fmt::format("gm{}_st{}", s, row_axis) : "0";
    std::string vrs = gm_ext(i, op, g - row_axis), vcs = gm_ext(i, op, g - col_axis);
    if (r < 2) vrs = "1";
    if (load) {
      bool full = true;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        auto c = d < t.valid.size() ? t.valid[d].as_const() : std::optional<int64_t>(t.shape[d]);
        full &= c && *c == t.shape[d];
      }
      line(fmt::format("TLOAD<{}, {}, {}, {}>({}, gm{}, {}, {}, {}, {});", ctype(t.dtype), v.rows, v.cols,
                       full ? "PTO_PAD_LEAVE" : "PTO_PAD_ZERO", local, s, off, row_stride, vrs, vcs));
    } else {
      line(fmt::format("TSTORE<{}, {}, {}, {}>(gm{}, {}, {}, {}, {}, {});", ctype(t.dtype), v.rows, v.cols,
                       op.atomic_add ? 1 : 0, s, local, off, row_stride, vrs, vcs));
    }
    close_loops(idx.size());
  }

  void copy_in(int i, const TileOp& op) {
    const LocalTile& t = tile(op.dst);
    if (t.mem == MemKind::UB) return ub_move(i, op, op.dst, true);
    if (t.mem != MemKind::L1) throw Unsupported("copy-in into " + std::string(mem_kind_name(t.mem)));
    const int s = plan_.args.step_gm_slot[i];
    const GmTensor& gt = tensors_.at(plan_.args.gm_tensors[s]);
    const int g = int(op.gm.offset.size());
    if (g < 2) throw Unsupported("a matmul operand of rank < 2");
    const int sh = plan_.args.slot_shape_arg[s], o = plan_.args.step_offset_arg[i];
    const bool nz = gt.format == Format::NZ;
    std::string ld, batch;
    if (nz) {
      // FRACTAL_NZ: ld = rows rounded up to 16; one matrix = ld x cols rounded up to C0.
      const int c0 = 32 / dtype_size(gt.dtype);
      ld = fmt::format("(({} + 15) / 16 * 16)", arg(sh + g - 2));
      std::string mat = fmt::format("{} * (({} + {}) / {} * {})", ld, arg(sh + g - 1), c0 - 1, c0, c0);
      for (int d = g - 3; d >= 0; --d) {
        std::string stride = mat;
        for (int e = d + 1; e < g - 2; ++e) stride += " * " + arg(sh + e);
        batch += fmt::format("{}{} * {}", batch.empty() ? "" : " + ", arg(o + d), stride);
      }
    } else {
      ld = fmt::format("gm{}_st{}", s, g - 2);
      batch = gm_offset(i, op, g - 2);
    }
    if (batch.empty()) batch = "0";
    View2 v = view2(t.shape);
    line(fmt::format("TLOAD_L1<{}, {}, {}, {}>({}, gm{}, {}, {}, {}, {}, {}, {});", ctype(t.dtype), v.rows, v.cols,
                     nz ? 1 : 0, buf(op.dst), s, batch, arg(o + g - 2), arg(o + g - 1), ld, gm_ext(i, op, 2),
                     gm_ext(i, op, 1)));
  }

  void copy_out(int i, const TileOp& op) { ub_move(i, op, op.srcs.at(0), false); }

  void fix_out(int i, const TileOp& op) {
    const int s = plan_.args.step_gm_slot[i];
    const GmTensor& gt = tensors_.at(plan_.args.gm_tensors[s]);
    const int g = int(op.gm.offset.size());
    const LocalTile& c = tile(op.srcs.at(0));
    View2 v = view2(c.shape);
    line(fmt::format("TFIXPIPE<{}, {}, {}, {}>(gm{}, {}, {}, {}, {}, {});", ctype(gt.dtype), v.rows, v.cols,
                     op.atomic_add ? 1 : 0, s, buf(op.srcs.at(0)), gm_offset(i, op, g),
                     g >= 2 ? fmt::format("gm{}_st{}", s, g - 2) : "0", gm_ext(i, op, 2), gm_ext(i, op, 1)));
  }

  void extract(const TileOp& op) {
    const LocalTile& src = tile(op.srcs.at(0));
    const LocalTile& dst = tile(op.dst);
    View2 l1 = view2(src.shape), l0 = view2(dst.shape);
    int64_t ro = op.sub_offset.size() >= 2 ? op.sub_offset[op.sub_offset.size() - 2] : 0;
    int64_t co = op.sub_offset.empty() ? 0 : op.sub_offset.back();
    const bool a = op.kind == TileOpKind::L1ToL0A;
    line(fmt::format("TEXTRACT_{}<{}, {}, {}, {}, {}, {}>({}, {}, {}, {});", a ? "L0A" : "L0B", ctype(dst.dtype),
                     l1.rows, l1.cols, l0.rows, l0.cols, (a ? op.trans_a : op.trans_b) ? 1 : 0, buf(op.dst),
                     buf(op.srcs[0]), ro, co));
  }

  void mmad(const TileOp& op) {
    int ta = -1, tb = -1;
    for (int s : op.srcs) {
      if (tile(s).mem == MemKind::L0A) ta = s;
      if (tile(s).mem == MemKind::L0B) tb = s;
    }
    if (ta < 0 || tb < 0) throw Unsupported("a matmul step without L0A and L0B operands");
    View2 a = view2(tile(ta).shape), b = view2(tile(tb).shape);
    line(fmt::format("TMMAD<{}, {}, {}, {}>({}, {}, {}, {}, {}, {}, {});", ctype(tile(ta).dtype), a.rows, a.cols,
                     b.cols, buf(op.dst), buf(ta), buf(tb), vr(ta), vc(ta), vc(tb), op.accumulate ? 0 : 1));
  }

  // Broadcast kind of operand `x` against the destination's last two axes.
  std::string bcast(int x, int dst) const {
    View2 xv = view2(tile(x).shape), dv = view2(tile(dst).shape);
    if (xv.rows == dv.rows && xv.cols == dv.cols) return "PTO_BC_NONE";
    if (xv.rows == 1 && xv.cols == 1) return "PTO_BC_SCALAR";
    if (xv.rows == 1 && xv.cols == dv.cols) return "PTO_BC_ROW";
    if (xv.cols == 1 && xv.rows == dv.rows) return "PTO_BC_COL";
    throw Unsupported("a broadcast the tile library cannot express");
  }

  // A reduction over axis k < rank - 2 of a dense row-major tile: the tile is
  // [P, A, Q] (P = the axes before k, A = axis k, Q = the axes after), and
  // each [A, Q] block reduces its rows with the first-axis TREDUCE into
  // dst + p * Q (dst is [P, Q] whether or not the axis is kept). Loops run over
  // the valid extents of the axes before k; the block's rows are the valid
  // extent of A (padding never enters a result) and its columns cover the
  // valid rows of axis k + 1 in full, so columns in the padding of later
  // axes only compute into dst's padding.
  void reduce_leading(int i, const TileOp& op, const char* red, int axis) {
    const int a = op.srcs.at(0), d = op.dst;
    const LocalTile& at = tile(a);
    const int rs = int(at.shape.size());
    const int64_t A = at.shape[axis], Q = prod(at.shape, axis + 1, rs);
    std::vector<std::string> counts;
    for (int k = 0; k < axis; ++k) counts.push_back(buf(a) + "_v" + std::to_string(k));
    auto idx = open_loops(i, counts);
    std::string src_off, dst_off;
    for (int k = 0; k < axis; ++k) {
      src_off += fmt::format(" + {} * {}", idx[k], prod(at.shape, k + 1, rs));
      dst_off += fmt::format(" + {} * {}", idx[k], prod(at.shape, k + 1, axis) * Q);
    }
    const std::string cols =
        fmt::format("{}_v{} * {}", buf(a), axis + 1, prod(at.shape, axis + 2, rs));
    line(fmt::format("{}<{}, {}, {}, {}, 0>({}, {}, {}_v{}, {});", is_index_reduction(op.vop) ? "TARGREDUCE" : "TREDUCE", red, ctype(at.dtype), A, Q,
                     buf(d) + dst_off, buf(a) + src_off, buf(a), axis, cols));
    close_loops(idx.size());
  }

  // A swap of axes d0 < d1 (not the last two) of a dense row-major tile: src
  // axis x lands on dst axis perm(x) (d0 <-> d1), so with element strides
  // Ss / Sd of the two tiles, element [..x..] of src goes to
  // sum(i_x * Sd[perm(x)]). Loops run over the valid extents of every src axis
  // but two, and a strided 2-D copy (TCOPY2D) moves the plane of src axis
  // `in` (d1, or d0 when d1 is the last axis) by the last axis, whose src
  // elements are contiguous. Only valid elements are written, each to its
  // permuted place, so dst's valid extents are src's permuted.
  void transpose_any(int i, const TileOp& op, int d0, int d1) {
    const int a = op.srcs.at(0), d = op.dst;
    const LocalTile& at = tile(a);
    const LocalTile& dt = tile(d);
    const int rs = int(at.shape.size());
    if (int(dt.shape.size()) != rs) throw Unsupported("a transpose whose result has another rank");
    auto perm = [&](int x) { return x == d0 ? d1 : x == d1 ? d0 : x; };
    auto src_stride = [&](int x) { return prod(at.shape, x + 1, rs); };
    auto dst_stride = [&](int x) { return prod(dt.shape, perm(x) + 1, rs); };
    const int in = d1 != rs - 1 ? d1 : d0, last = rs - 1;
    std::vector<int> outer;
    std::vector<std::string> counts;
    for (int x = 0; x < rs; ++x)
      if (x != in && x != last) {
        outer.push_back(x);
        counts.push_back(buf(a) + "_v" + std::to_string(x));
      }
    auto idx = open_loops(i, counts);
    std::string src_off, dst_off;
    for (size_t k = 0; k < outer.size(); ++k) {
      src_off += fmt::format(" + {} * {}", idx[k], src_stride(outer[k]));
      dst_off += fmt::format(" + {} * {}", idx[k], dst_stride(outer[k]));
    }
    line(fmt::format("TCOPY2D<{}, {}, {}, {}, {}>({}, {}, {}_v{}, {}_v{});", ctype(at.dtype), dst_stride(in),
                     dst_stride(last), src_stride(in), src_stride(last), buf(d) + dst_off, buf(a) + src_off, buf(a),
                     in, buf(a), last));
    close_loops(idx.size());
  }

  void vec(int i, const TileOp& op) {
    const int d = op.dst;
    const LocalTile& dt = tile(d);
    const int r = int(dt.shape.size());
    View2 dv = view2(dt.shape);
    const std::string T = ctype(dt.dtype);
    if (const char* b = bin_op(op.vop)) {
      auto idx = open_loops(i, lead_counts(d));
      std::string dp = buf(d) + batch_off(d, idx, r);
      if (op.scalar) {
        int a = op.srcs.at(0);
        line(fmt::format("TBINARY_S<{}, {}, {}, {}, {}>({}, {}, {}, {}, {});", b, T, dv.rows, dv.cols,
                         op.scalar_first ? 1 : 0, dp, buf(a) + batch_off(a, idx, r), literal(*op.scalar), vr(d),
                         vc(d)));
      } else {
        int a = op.srcs.at(0), c = op.srcs.at(1);
        line(fmt::format("TBINARY<{}, {}, {}, {}, {}, {}>({}, {}, {}, {}, {});", b, T, dv.rows, dv.cols, bcast(a, d),
                         bcast(c, d), dp, buf(a) + batch_off(a, idx, r), buf(c) + batch_off(c, idx, r), vr(d),
                         vc(d)));
      }
      close_loops(idx.size());
      return;
    }
    if (const char* c = cmp_op(op.vop)) {
      auto idx = open_loops(i, lead_counts(d));
      std::string dp = buf(d) + batch_off(d, idx, r);
      int a = op.srcs.at(0);
      const std::string S = ctype(tile(a).dtype);
      if (op.scalar) {
        line(fmt::format("TCMP_S<{}, {}, {}, {}, {}>({}, {}, {}, {}, {});", c, S, dv.rows, dv.cols,
                         op.scalar_first ? 1 : 0, dp, buf(a) + batch_off(a, idx, r), literal(*op.scalar), vr(d), vc(d)));
      } else {
        int b = op.srcs.at(1);
        line(fmt::format("TCMP<{}, {}, {}, {}, {}, {}>({}, {}, {}, {}, {});", c, S, dv.rows, dv.cols, bcast(a, d),
                         bcast(b, d), dp, buf(a) + batch_off(a, idx, r), buf(b) + batch_off(b, idx, r), vr(d), vc(d)));
      }
      close_loops(idx.size());
      return;
    }
    if (const char* p = pred_op(op.vop)) {
      int a = op.srcs.at(0);
      auto idx = open_loops(i, lead_counts(d));
      line(fmt::format("TPRED<{}, {}, {}, {}>({}, {}, {}, {});", p, ctype(tile(a).dtype), dv.rows, dv.cols,
                       buf(d) + batch_off(d, idx, r), buf(a) + batch_off(a, idx, r), vr(d), vc(d)));
      close_loops(idx.size());
      return;
    }
    if (op.vop == OpKind::Where) {
      const int cd = op.srcs.at(0), a = op.srcs.at(1), b = op.srcs.at(2);
      auto idx = open_loops(i, lead_counts(d));
      line(fmt::format("TSELECT<{}, {}, {}, {}, {}, {}>({}, {}, {}, {}, {}, {});", T, dv.rows, dv.cols, bcast(cd, d),
                       bcast(a, d), bcast(b, d), buf(d) + batch_off(d, idx, r), buf(cd) + batch_off(cd, idx, r),
                       buf(a) + batch_off(a, idx, r), buf(b) + batch_off(b, idx, r), vr(d), vc(d)));
      close_loops(idx.size());
      return;
    }
    if (const char* u = un_op(op.vop)) {
      int a = op.srcs.at(0);
      auto idx = open_loops(i, lead_counts(d));
      line(fmt::format("TUNARY<{}, {}, {}, {}>({}, {}, {}, {});", u, T, dv.rows, dv.cols, buf(d) + batch_off(d, idx, r),
                       buf(a) + batch_off(a, idx, r), vr(d), vc(d)));
      close_loops(idx.size());
      return;
    }
    if (const char* red = red_op(op.vop)) {
      int a = op.srcs.at(0);
      const LocalTile& at = tile(a);
      const int rs = int(at.shape.size());
      int axis = op.axes.empty() ? rs - 1 : op.axes[0];
      if (axis < 0) axis += rs;
      int lib_axis;
      if (axis == rs - 1) lib_axis = 1;
      else if (axis == rs - 2) lib_axis = 0;
      else return reduce_leading(i, op, red, axis);
      View2 av = view2(at.shape);
      auto idx = open_loops(i, lead_counts(a));
      std::string dst_off;
      for (int k = 0; k < int(idx.size()); ++k)
        dst_off += fmt::format(" + {} * {}", idx[k], prod(at.shape, k + 1, rs - 2) * (lib_axis == 1 ? av.rows : av.cols));
      line(fmt::format("{}<{}, {}, {}, {}, {}>({}, {}, {}, {});", is_index_reduction(op.vop) ? "TARGREDUCE" : "TREDUCE", red, ctype(at.dtype), av.rows, av.cols, lib_axis,
                       buf(d) + dst_off, buf(a) + batch_off(a, idx, rs), vr(a), vc(a)));
      close_loops(idx.size());
      return;
    }
    switch (op.vop) {
      case OpKind::Cast: {
        int a = op.srcs.at(0);
        auto idx = open_loops(i, lead_counts(d));
        line(fmt::format("TCAST<{}, {}, {}, {}>({}, {}, {}, {});", T, ctype(tile(a).dtype), dv.rows, dv.cols,
                         buf(d) + batch_off(d, idx, r), buf(a) + batch_off(a, idx, r), vr(d), vc(d)));
        close_loops(idx.size());
        return;
      }
      case OpKind::Transpose: {
        int a = op.srcs.at(0);
        const int rs = int(tile(a).shape.size());
        if (rs >= 2 && op.axes.size() == 2) {
          int d0 = op.axes[0] < 0 ? op.axes[0] + rs : op.axes[0], d1 = op.axes[1] < 0 ? op.axes[1] + rs : op.axes[1];
          if (d0 < 0 || d1 < 0 || d0 >= rs || d1 >= rs) throw Unsupported("a transpose of axes out of range");
          if (std::min(d0, d1) != rs - 2 || std::max(d0, d1) != rs - 1)
            return transpose_any(i, op, std::min(d0, d1), std::max(d0, d1));
        }
        View2 av = view2(tile(a).shape);
        auto idx = open_loops(i, lead_counts(a));
        line(fmt::format("TTRANSPOSE<{}, {}, {}>({}, {}, {}, {});", T, av.rows, av.cols, buf(d) + batch_off(d, idx, rs),
                         buf(a) + batch_off(a, idx, rs), vr(a), vc(a)));
        close_loops(idx.size());
        return;
      }
      case OpKind::Full: {
        auto idx = open_loops(i, lead_counts(d));
        line(fmt::format("TFILL<{}, {}, {}>({}, {}, {}, {});", T, dv.rows, dv.cols, buf(d) + batch_off(d, idx, r),
                         literal(op.fill), vr(d), vc(d)));
        close_loops(idx.size());
        return;
      }
      case OpKind::Concat: {
        int a = op.srcs.at(0);
        const LocalTile& at = tile(a);
        View2 av = view2(at.shape);
        std::vector<int64_t> sub = op.sub_offset;
        sub.resize(dt.shape.size(), 0);
        auto idx = open_loops(i, lead_counts(a));
        int64_t ro = r >= 2 ? sub[r - 2] : 0, co = r >= 1 ? sub[r - 1] : 0;
        line(fmt::format("TCOPY<{}, {}, {}, {}, {}>({}, {}, {}, {}, {}, {});", T, av.rows, av.cols, dv.rows, dv.cols,
                         buf(d) + batch_off(d, idx, r, sub), buf(a) + batch_off(a, idx, r), vr(a), vc(a), ro, co));
        close_loops(idx.size());
        return;
      }
      default: break;
    }
    throw Unsupported("vector op '" + std::string(op_kind_name(op.vop)) + "' has no tile-library call");
  }

  const TileRoot& root_;
  const std::vector<GmTensor>& tensors_;
  const LeafPlan& plan_;
  std::ostringstream os_;
  int indent_ = 0;
};

}  // namespace

std::string emit_cce(const Program& prog, const TileRoot& root, const std::vector<GmTensor>& tensors,
                     const LeafPlan& plan, const std::string& kernel_name, const CceOptions& opts, DiagEngine& diags) {
  try {
    Emitter e(root, tensors, plan);
    return e.kernel(kernel_name, opts);
  } catch (const Unsupported& u) {
    // Locate the first op of the leaf that carries a spec position.
    SrcLoc loc;
    for (const LeafStep& st : plan.steps) {
      int so = tile_op(root, st.op).source_op;
      if (so >= 0 && so < int(prog.ops.size()) && prog.ops[so].loc.valid()) {
        loc = prog.ops[so].loc;
        break;
      }
    }
    diags.error(loc, "cannot generate code for kernel " + kernel_name + ": " + u.what(),
                "change the tile shapes or the op so that it works on the last two axes");
    return {};
  }
}

bool emit_all_kernels(const Program& prog, const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans,
                      const CceOptions& opts, CompiledProgram& out, DiagEngine& diags) {
  std::vector<bool> done(out.kernels.size(), false);
  bool ok = true;
  for (const LeafPlan& p : plans) {
    if (p.kernel < 0 || done[p.kernel]) continue;
    done[p.kernel] = true;
    Kernel& k = out.kernels[p.kernel];
    k.source = emit_cce(prog, roots.at(p.root), out.tensors, p, k.name, opts, diags);
    if (k.source.empty()) ok = false;
    k.source_hash = XXH64(k.source.data(), k.source.size(), 0);
  }
  return ok;
}

CceOptions cce_options(const Program& prog, const Platform& plat, DiagEngine& diags) {
  CceOptions cce;
  if (prog.options.enable_pmu_trace) {
    if (plat.is_950())
      cce.pmu_trace = true;
    else
      diags.warning(SrcLoc{},
                    "codegen.enable_pmu_trace is ignored on target '" + plat.name +
                        "': PMU stamps exist only on 950 targets",
                    "compile with --target ascend950pr or ascend950dt to get them");
  }
  return cce;
}

}  // namespace ptoc
