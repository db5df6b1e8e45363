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
#include <map>
#include <sstream>
#include <stdexcept>

#include "compiler/passes/backend.h"
#include "runtime/program/leaf_program.h"

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
    case DType::int64: return "pto_i64";
    case DType::int16: return "pto_i16";
    case DType::uint16: return "pto_u16";
    case DType::uint32: return "pto_u32";
    case DType::uint64: return "pto_u64";
    case DType::fp8e4m3: return "pto_f8e4m3";
    case DType::fp8e5m2: return "pto_f8e5m2";
    case DType::fp8e8m0: return "pto_f8e8m0";
  }
  return "pto_f32";
}

std::string literal(double v) {
  if (std::isnan(v)) return "__builtin_nan(\"\")";
  if (std::isinf(v)) return v > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

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

// Op codes: the enums of kernels/pto_tile.h (PtoBinOp ...), -1 when the op is not of that family.
int bin_op(OpKind k) {
  switch (k) {
    case OpKind::Add: return 0;
    case OpKind::Sub: return 1;
    case OpKind::Mul: return 2;
    case OpKind::Div: return 3;
    case OpKind::Maximum: return 4;
    case OpKind::Minimum: return 5;
    case OpKind::Pow: return 6;
    case OpKind::BitwiseAnd: return 7;
    case OpKind::BitwiseOr: return 8;
    case OpKind::BitwiseXor: return 9;
    // --- math ops ---
    case OpKind::Atan2: return 10;
    case OpKind::Fmod: return 11;
    case OpKind::Remainder: return 12;
    case OpKind::FloorDiv: return 13;
    case OpKind::CeilDiv: return 14;
    case OpKind::Gcd: return 15;
    case OpKind::BitwiseLeftShift: return 16;
    case OpKind::BitwiseRightShift: return 17;
    default: return -1;
  }
}

int un_op(OpKind k) {
  switch (k) {
    case OpKind::Exp: return 0;
    case OpKind::Log: return 1;
    case OpKind::Sqrt: return 2;
    case OpKind::Rsqrt: return 3;
    case OpKind::Abs: return 4;
    case OpKind::Neg: return 5;
    case OpKind::Reciprocal: return 6;
    case OpKind::Relu: return 7;
    case OpKind::Sigmoid: return 8;
    case OpKind::Tanh: return 9;
    case OpKind::Gelu: return 10;
    case OpKind::Silu: return 11;
    case OpKind::Exp2: return 12;
    case OpKind::Log2: return 13;
    case OpKind::Log1p: return 14;
    case OpKind::Expm1: return 15;
    case OpKind::Sin: return 16;
    case OpKind::Cos: return 17;
    case OpKind::Erf: return 18;
    case OpKind::Round: return 19;
    case OpKind::Floor: return 20;
    case OpKind::Ceil: return 21;
    case OpKind::Trunc: return 22;
    case OpKind::Sign: return 23;
    case OpKind::BitwiseNot: return 24;
    // --- math ops ---
    case OpKind::Acos: return 25;
    case OpKind::Asin: return 26;
    case OpKind::Atan: return 27;
    case OpKind::Acosh: return 28;
    case OpKind::Asinh: return 29;
    case OpKind::Atanh: return 30;
    case OpKind::Sinh: return 31;
    case OpKind::Cosh: return 32;
    case OpKind::Tan: return 33;
    case OpKind::Cbrt: return 34;
    case OpKind::Erfc: return 35;
    default: return -1;
  }
}

int red_op(OpKind k) {
  switch (k) {
    case OpKind::Sum: return 0;
    case OpKind::Amax: return 1;
    case OpKind::Amin: return 2;
    case OpKind::Mean: return 3;
    case OpKind::Prod: return 4;
    case OpKind::Argmax: return 5;
    case OpKind::Argmin: return 6;
    default: return -1;
  }
}

// Ops with a bool result: two operands (TCMP) or one (TPRED).
int cmp_op(OpKind k) {
  switch (k) {
    case OpKind::Eq: return 0;
    case OpKind::Ne: return 1;
    case OpKind::Lt: return 2;
    case OpKind::Le: return 3;
    case OpKind::Gt: return 4;
    case OpKind::Ge: return 5;
    case OpKind::LogicalAnd: return 6;
    case OpKind::LogicalOr: return 7;
    default: return -1;
  }
}
int pred_op(OpKind k) {
  switch (k) {
    case OpKind::Isfinite: return 0;
    case OpKind::LogicalNot: return 1;
    case OpKind::Signbit: return 2;  // --- math ops ---
    default: return -1;
  }
}
bool is_index_reduction(OpKind k) { return k == OpKind::Argmax || k == OpKind::Argmin; }

// ---- rendering a leaf program as CCE text ----

const char* const kBinNames[] = {"PTO_ADD", "PTO_SUB", "PTO_MUL", "PTO_DIV", "PTO_MAX",
                                 "PTO_MIN", "PTO_POW", "PTO_BAND", "PTO_BOR", "PTO_BXOR",
                                 // --- math ops ---
                                 "PTO_ATAN2", "PTO_FMOD", "PTO_REMAINDER", "PTO_FLOORDIV", "PTO_CEILDIV",
                                 "PTO_GCD", "PTO_SHL", "PTO_SHR"};
const char* const kUnNames[] = {"PTO_EXP",   "PTO_LOG",   "PTO_SQRT",  "PTO_RSQRT",   "PTO_ABS",
                                "PTO_NEG",   "PTO_RECIPROCAL", "PTO_RELU", "PTO_SIGMOID", "PTO_TANH",
                                "PTO_GELU",  "PTO_SILU",  "PTO_EXP2",  "PTO_LOG2",    "PTO_LOG1P",
                                "PTO_EXPM1", "PTO_SIN",   "PTO_COS",   "PTO_ERF",     "PTO_ROUND",
                                "PTO_FLOOR", "PTO_CEIL",  "PTO_TRUNC", "PTO_SIGN",    "PTO_BNOT",
                                // --- math ops ---
                                "PTO_ACOS", "PTO_ASIN", "PTO_ATAN", "PTO_ACOSH", "PTO_ASINH", "PTO_ATANH",
                                "PTO_SINH", "PTO_COSH", "PTO_TAN", "PTO_CBRT", "PTO_ERFC"};
const char* const kRedNames[] = {"PTO_RSUM", "PTO_RMAX", "PTO_RMIN", "PTO_RMEAN", "PTO_RPROD", "PTO_RARGMAX", "PTO_RARGMIN"};
const char* const kCmpNames[] = {"PTO_EQ", "PTO_NE", "PTO_LT", "PTO_LE", "PTO_GT", "PTO_GE", "PTO_LAND", "PTO_LOR"};
const char* const kPredNames[] = {"PTO_ISFINITE", "PTO_LNOT", "PTO_SIGNBIT" /* --- math ops --- */};
const char* const kBcastNames[] = {"PTO_BC_NONE", "PTO_BC_ROW", "PTO_BC_COL", "PTO_BC_SCALAR"};
const char* const kPadNames[] = {"PTO_PAD_LEAVE", "PTO_PAD_ZERO"};
const char* const kMemNames[] = {"UB", "L1", "L0A", "L0B", "L0C"};

std::string local_name(const leaf::Local& l) {
  switch (l.kind) {
    case leaf::LocalKind::GmStride: return fmt::format("gm{}_st{}", l.a, l.b);
    case leaf::LocalKind::BufValid: return fmt::format("b{}_v{}", l.a, l.b);
    case leaf::LocalKind::LoopIndex: return fmt::format("i{}_{}", l.a, l.b);
  }
  return "?";
}

std::string render_expr(const leaf::LeafProgram& p, const leaf::Expr& e) {
  std::vector<std::string> st;
  for (const leaf::ExprTok& t : e.toks) {
    switch (t.op) {
      case leaf::ExprOp::Const: st.push_back(std::to_string(t.v)); break;
      case leaf::ExprOp::Arg: st.push_back(fmt::format("PTO_ARG({})", t.v)); break;
      case leaf::ExprOp::Local: st.push_back(local_name(p.locals.at(size_t(t.v)))); break;
      case leaf::ExprOp::Paren: st.back() = "(" + st.back() + ")"; break;
      default: {
        std::string b = std::move(st.back());
        st.pop_back();
        const char* o = t.op == leaf::ExprOp::Add ? " + " : t.op == leaf::ExprOp::Mul ? " * " : " / ";
        st.back() += o + b;
      }
    }
  }
  return st.empty() ? "" : st.back();
}

std::string elem_ctype(int t) { return ctype(DType(t)); }

std::string render_tparam(const leaf::TParam& t) {
  switch (t.kind) {
    case leaf::TParamKind::Int: return std::to_string(t.v);
    case leaf::TParamKind::DType: return elem_ctype(int(t.v));
    case leaf::TParamKind::BinOp: return kBinNames[t.v];
    case leaf::TParamKind::UnOp: return kUnNames[t.v];
    case leaf::TParamKind::RedOp: return kRedNames[t.v];
    case leaf::TParamKind::CmpOp: return kCmpNames[t.v];
    case leaf::TParamKind::PredOp: return kPredNames[t.v];
    case leaf::TParamKind::Bcast: return kBcastNames[t.v];
    case leaf::TParamKind::Pad: return kPadNames[t.v];
  }
  return "?";
}

std::string render_operand(const leaf::LeafProgram& p, const leaf::Operand& o) {
  switch (o.kind) {
    case leaf::OperandKind::Buf:
      return fmt::format("b{}", o.index) + (o.expr.empty() ? "" : " + " + render_expr(p, o.expr));
    case leaf::OperandKind::Gm: return fmt::format("gm{}", o.index);
    case leaf::OperandKind::Int: return render_expr(p, o.expr);
    case leaf::OperandKind::Real: return literal(o.real);
  }
  return "?";
}

// The text lines of one instruction (without indentation).
std::vector<std::string> render_instr(const leaf::LeafProgram& p, const leaf::Instr& in) {
  using IK = leaf::InstrKind;
  auto pipe = [](int x) { return std::string(pipe_name(PipeId(x))); };
  switch (in.kind) {
    case IK::Comment: return {in.text};
    case IK::KernelBegin: return {fmt::format("PTO_KERNEL({}) {{", in.text)};
    case IK::KernelEnd:
    case IK::LoopEnd: return {"}"};
    case IK::GmPtr: return {fmt::format("PTO_GM_PTR({0}) gm{1} = PTO_GM({0}, {1});", elem_ctype(in.b), in.a)};
    case IK::DefLocal:
      return {fmt::format("const int64_t {} = {};", local_name(p.locals.at(size_t(in.a))), render_expr(p, in.expr))};
    case IK::BufPtr: {
      const leaf::Buffer& b = p.buffers.at(size_t(in.a));
      return {fmt::format("PTO_{0}_PTR({1}) b{2} = PTO_{0}({1}, {3});  // {4}", kMemNames[int(b.mem)],
                          elem_ctype(int(b.dtype)), in.a, b.addr, in.text)};
    }
    case IK::Sync:
      switch (SyncInstr::Kind(in.a)) {
        case SyncInstr::Kind::SetFlag: return {fmt::format("PTO_SET_FLAG({}, {}, {});", pipe(in.b), pipe(in.c), in.d)};
        case SyncInstr::Kind::WaitFlag: return {fmt::format("PTO_WAIT_FLAG({}, {}, {});", pipe(in.b), pipe(in.c), in.d)};
        case SyncInstr::Kind::Barrier: return {fmt::format("PTO_PIPE_BARRIER({});", pipe(in.b))};
        case SyncInstr::Kind::BarrierAll: return {"PTO_PIPE_BARRIER(ALL);"};
      }
      return {""};
    case IK::Pmu:
      return {"PTO_PIPE_BARRIER(ALL);", fmt::format("PTO_MARK_STAMP({}, {});", pipe(in.a), in.b),
              fmt::format("PTO_NOPS({});", in.c), fmt::format("PTO_MARK_STAMP({}, {});", pipe(in.a), in.b)};
    case IK::LoopBegin: {
      std::string i = local_name(p.locals.at(size_t(in.a)));
      return {fmt::format("for (int64_t {0} = 0; {0} < {1}; ++{0}) {{", i, render_expr(p, in.expr))};
    }
    case IK::Call: {
      std::string tp, ops;
      for (size_t t = 0; t < in.tparams.size(); ++t) tp += (t ? ", " : "") + render_tparam(in.tparams[t]);
      for (size_t o = 0; o < in.operands.size(); ++o) ops += (o ? ", " : "") + render_operand(p, in.operands[o]);
      return {fmt::format("{}<{}>({});", leaf::fn_name(in.fn), tp, ops)};
    }
  }
  return {""};
}

// ---- expression builders (postfix) ----

using leaf::Expr;
Expr ex_const(int64_t v) { return Expr{{{leaf::ExprOp::Const, v}}}; }
Expr ex_arg(int i) { return Expr{{{leaf::ExprOp::Arg, i}}}; }
Expr ex_local(int l) { return Expr{{{leaf::ExprOp::Local, l}}}; }
Expr ex_bin(Expr a, const Expr& b, leaf::ExprOp op) {
  a.toks.insert(a.toks.end(), b.toks.begin(), b.toks.end());
  a.toks.push_back({op, 0});
  return a;
}
Expr ex_add(Expr a, const Expr& b) { return ex_bin(std::move(a), b, leaf::ExprOp::Add); }
Expr ex_mul(Expr a, const Expr& b) { return ex_bin(std::move(a), b, leaf::ExprOp::Mul); }
Expr ex_div(Expr a, const Expr& b) { return ex_bin(std::move(a), b, leaf::ExprOp::Div); }
Expr ex_paren(Expr a) {
  a.toks.push_back({leaf::ExprOp::Paren, 0});
  return a;
}
// a + b, where an empty side is no term (a sum of terms built one by one).
Expr ex_sum(Expr a, const Expr& b) { return a.empty() ? b : b.empty() ? a : ex_add(std::move(a), b); }

leaf::TParam tp(leaf::TParamKind k, int64_t v) { return leaf::TParam{k, v}; }
leaf::TParam tp_int(int64_t v) { return tp(leaf::TParamKind::Int, v); }
leaf::TParam tp_dt(DType t) { return tp(leaf::TParamKind::DType, int64_t(t)); }
leaf::Operand op_buf(int b, Expr off = {}) { return leaf::Operand{leaf::OperandKind::Buf, b, std::move(off), 0}; }
leaf::Operand op_gm(int s) { return leaf::Operand{leaf::OperandKind::Gm, s, {}, 0}; }
leaf::Operand op_int(Expr e) { return leaf::Operand{leaf::OperandKind::Int, 0, std::move(e), 0}; }
leaf::Operand op_real(double v) { return leaf::Operand{leaf::OperandKind::Real, 0, {}, v}; }

class Emitter {
 public:
  Emitter(const TileRoot& root, const std::vector<GmTensor>& tensors, const LeafPlan& plan)
      : root_(root), tensors_(tensors), plan_(plan) {}

  std::string kernel(const std::string& name, const CceOptions& opts) {
    const LeafArgs& a = plan_.args;
    prog_.kernel = name;
    prog_.num_args = int32_t(a.values.size());
    prog_.num_gm = int32_t(a.gm_tensors.size());
    for (int t : a.gm_tensors) prog_.gm_dtypes.push_back(leaf::ElemType(tensors_.at(t).dtype));
    comment(fmt::format("// ptoc kernel {} ({}), {} tile ops", name, plan_.core == CoreType::AIC ? "AIC" : "AIV",
                        plan_.steps.size()));
    comment(fmt::format("// funcHash: {:016x}", plan_.hash));
    comment(fmt::format("// buffers: UB {} B, L1 {} B, L0A {} B, L0B {} B, L0C {} B; {} GM slots, {} int64 args",
                        plan_.peak[int(MemKind::UB)], plan_.peak[int(MemKind::L1)], plan_.peak[int(MemKind::L0A)],
                        plan_.peak[int(MemKind::L0B)], plan_.peak[int(MemKind::L0C)], a.gm_tensors.size(),
                        a.values.size()));
    comment(fmt::format("// estimated cycles: {} (MTE2 {}, MTE1 {}, M {}, FIX {}, V {}, MTE3 {})", plan_.est_cycles,
                        plan_.pipe_cycles[0], plan_.pipe_cycles[1], plan_.pipe_cycles[2], plan_.pipe_cycles[3],
                        plan_.pipe_cycles[4], plan_.pipe_cycles[5]));
    comment("#include \"pto_tile.h\"");
    comment("");
    leaf::Instr kb;
    kb.kind = leaf::InstrKind::KernelBegin;
    kb.text = name;
    emit(std::move(kb));
    if (opts.pmu_trace) pmu(PipeId::MTE2, 100);
    for (size_t s = 0; s < a.gm_tensors.size(); ++s) {
      const GmTensor& t = tensors_.at(a.gm_tensors[s]);
      leaf::Instr g;
      g.kind = leaf::InstrKind::GmPtr;
      g.a = int32_t(s);
      g.b = int32_t(t.dtype);
      emit(std::move(g));
      const size_t gr = a.slot_view[s].empty() ? t.shape.size() : a.slot_view[s].size();
      // Row-major element strides of the ND tensor (NZ operands use their fractal ld).
      for (size_t d = 0; d < gr; ++d) {
        Expr st;
        for (size_t e = d + 1; e < gr; ++e) st = st.empty() ? ex_arg(a.slot_shape_arg[s] + int(e)) : ex_mul(std::move(st), ex_arg(a.slot_shape_arg[s] + int(e)));
        if (st.empty()) st = ex_const(1);
        define(new_local(leaf::LocalKind::GmStride, int(s), int(d), gm_stride_), std::move(st));
      }
    }
    for (size_t b = 0; b < plan_.buffers.size(); ++b) {
      const BufferSlot& bs = plan_.buffers[b];
      const LocalTile& lt = local_tile(root_, bs.tile);
      if (bs.mem == MemKind::GM) throw Unsupported("a buffer in GM");
      prog_.buffers.push_back(leaf::Buffer{leaf::Memory(int(bs.mem) - 1), leaf::ElemType(lt.dtype), int64_t(bs.addr),
                                           int64_t(bs.size)});
      std::string dims;
      for (size_t d = 0; d < lt.shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(lt.shape[d]);
      leaf::Instr bp;
      bp.kind = leaf::InstrKind::BufPtr;
      bp.a = int32_t(b);
      bp.text = fmt::format("tile {} [{}] {}, {} B, steps {}-{}", bs.tile, dims, dtype_name(lt.dtype), bs.size,
                            bs.first, bs.last);
      emit(std::move(bp));
      for (size_t d = 0; d < lt.shape.size(); ++d)
        define(new_local(leaf::LocalKind::BufValid, int(b), int(d), buf_valid_), ex_arg(a.buffer_valid_arg[b] + int(d)));
    }
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const LeafStep& st = plan_.steps[i];
      for (const auto& s : st.before) sync(s);
      step(int(i));
      for (const auto& s : st.after) sync(s);
    }
    if (opts.pmu_trace) pmu(PipeId::MTE3, 1000);
    leaf::Instr ke;
    ke.kind = leaf::InstrKind::KernelEnd;
    emit(std::move(ke));
    return os_.str();
  }

  leaf::LeafProgram& program() { return prog_; }

 private:
  // Appends an instruction and renders its text: the CCE is the program's rendering.
  void emit(leaf::Instr in) {
    using IK = leaf::InstrKind;
    if (in.kind == IK::LoopEnd || in.kind == IK::KernelEnd) --indent_;
    for (const std::string& l : render_instr(prog_, in)) os_ << std::string(2 * size_t(indent_), ' ') << l << "\n";
    if (in.kind == IK::LoopBegin || in.kind == IK::KernelBegin) ++indent_;
    prog_.instrs.push_back(std::move(in));
  }
  void comment(std::string text) {
    leaf::Instr c;
    c.kind = leaf::InstrKind::Comment;
    c.text = std::move(text);
    emit(std::move(c));
  }
  void sync(const SyncInstr& s) {
    leaf::Instr in;
    in.kind = leaf::InstrKind::Sync;
    in.a = int32_t(s.kind);
    in.b = int32_t(s.src);
    in.c = int32_t(s.dst);
    in.d = s.event;
    emit(std::move(in));
  }
  void call(leaf::Fn fn, std::vector<leaf::TParam> tparams, std::vector<leaf::Operand> operands) {
    leaf::Instr in;
    in.kind = leaf::InstrKind::Call;
    in.fn = fn;
    in.tparams = std::move(tparams);
    in.operands = std::move(operands);
    emit(std::move(in));
  }
  int new_local(leaf::LocalKind k, int a, int b, std::map<std::pair<int, int>, int>& index) {
    int id = int(prog_.locals.size());
    prog_.locals.push_back(leaf::Local{k, a, b});
    index[{a, b}] = id;
    return id;
  }
  void define(int local, Expr value) {
    leaf::Instr in;
    in.kind = leaf::InstrKind::DefLocal;
    in.a = local;
    in.expr = std::move(value);
    emit(std::move(in));
  }

  void pmu(PipeId pipe, int nops) {
    leaf::Instr in;
    in.kind = leaf::InstrKind::Pmu;
    in.a = int32_t(pipe);
    in.b = pmu_id(plan_.hash);  // compiler/compiled_program.h: PyPTO's GenPMUId, main block
    in.c = nops;
    emit(std::move(in));
  }

  Expr gm_st(int s, int d) const { return ex_local(gm_stride_.at({s, d})); }
  Expr bv(int b, int d) const { return ex_local(buf_valid_.at({b, d})); }

  const LocalTile& tile(int id) const { return local_tile(root_, id); }
  int buf(int tile_id) const {
    int b = plan_.buffer_index(tile_id);
    if (b < 0) throw Unsupported("tile " + std::to_string(tile_id) + " has no on-chip buffer");
    return b;
  }
  Expr valid(int tile_id, int axis_from_end) const {
    const LocalTile& t = tile(tile_id);
    int d = int(t.shape.size()) - axis_from_end;
    if (d < 0) return ex_const(1);
    return bv(buf(tile_id), d);
  }
  Expr vr(int t) const { return valid(t, 2); }
  Expr vc(int t) const { return valid(t, 1); }

  // Opens loops over the leading axes (all but the last two) of a tile whose
  // valid extents bound them; returns the index locals.
  std::vector<int> open_loops(int step, std::vector<Expr> counts) {
    std::vector<int> idx;
    for (size_t a = 0; a < counts.size(); ++a) {
      int l = int(prog_.locals.size());
      prog_.locals.push_back(leaf::Local{leaf::LocalKind::LoopIndex, step, int(a)});
      leaf::Instr in;
      in.kind = leaf::InstrKind::LoopBegin;
      in.a = l;
      in.expr = std::move(counts[a]);
      emit(std::move(in));
      idx.push_back(l);
    }
    return idx;
  }
  void close_loops(size_t n) {
    for (size_t a = 0; a < n; ++a) {
      leaf::Instr in;
      in.kind = leaf::InstrKind::LoopEnd;
      emit(std::move(in));
    }
  }
  std::vector<Expr> lead_counts(int tile_id) const {
    const LocalTile& t = tile(tile_id);
    std::vector<Expr> c;
    for (size_t a = 0; a + 2 < t.shape.size(); ++a) c.push_back(bv(buf(tile_id), int(a)));
    return c;
  }
  // Element offset of batch index `idx` inside a tile (an operand of rank
  // <= the loop rank is aligned to the right; size-1 axes broadcast).
  Expr batch_off(int tile_id, const std::vector<int>& idx, int loop_rank, const std::vector<int64_t>& extra = {}) const {
    const LocalTile& t = tile(tile_id);
    const int r = int(t.shape.size());
    Expr s;
    for (int a = 0; a < int(idx.size()); ++a) {
      int ax = a - (loop_rank - r);  // the tile's own axis
      if (ax < 0 || t.shape[ax] == 1) continue;
      Expr i = ex_local(idx[a]);
      if (a < int(extra.size()) && extra[a] != 0) i = ex_paren(ex_add(std::move(i), ex_const(extra[a])));
      s = ex_sum(std::move(s), ex_mul(std::move(i), ex_const(prod(t.shape, ax + 1, r))));
    }
    return s;
  }
  leaf::Operand tile_at(int tile_id, const std::vector<int>& idx, int loop_rank, const std::vector<int64_t>& extra = {}) const {
    return op_buf(buf(tile_id), batch_off(tile_id, idx, loop_rank, extra));
  }

  void step(int i) {
    const LeafStep& st = plan_.steps[i];
    const TileOp& op = tile_op(root_, st.op);
    comment(fmt::format("// step {}: op {} ({})", i, op.id, pipe_name(st.pipe)));
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

  Expr gm_offset(int i, const TileOp& op, size_t upto) const {
    const int s = plan_.args.step_gm_slot[i], o = plan_.args.step_offset_arg[i];
    Expr e;
    for (size_t d = 0; d < upto && d < op.gm.offset.size(); ++d) e = ex_sum(std::move(e), ex_mul(ex_arg(o + int(d)), gm_st(s, int(d))));
    return e.empty() ? ex_const(0) : e;
  }
  Expr gm_ext(int i, const TileOp& op, int axis_from_end) const {
    int d = int(op.gm.extent.size()) - axis_from_end;
    return d < 0 ? ex_const(1) : ex_arg(plan_.args.step_extent_arg[i] + d);
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
    std::vector<Expr> counts;
    for (int a = 0; a + 2 < r; ++a) counts.push_back(ex_arg(plan_.args.step_extent_arg[i] + gm_axis[size_t(a)]));
    auto idx = open_loops(i, std::move(counts));
    Expr off = gm_offset(i, op, g);
    for (int a = 0; a < int(idx.size()); ++a) off = ex_add(std::move(off), ex_mul(ex_local(idx[a]), gm_st(s, gm_axis[size_t(a)])));
    leaf::Operand local = tile_at(tile_id, idx, r);
    View2 v = view2(t.shape);
    const int row_axis = r >= 2 ? gm_axis[size_t(r - 2)] : g - 2, col_axis = r >= 1 ? gm_axis[size_t(r - 1)] : g - 1;
    Expr row_stride = g >= 2 ? gm_st(s, row_axis) : ex_const(0);
    Expr vrs = gm_ext(i, op, g - row_axis), vcs = gm_ext(i, op, g - col_axis);
    if (r < 2) vrs = ex_const(1);
    if (load) {
      bool full = true;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        auto c = d < t.valid.size() ? t.valid[d].as_const() : std::optional<int64_t>(t.shape[d]);
        full &= c && *c == t.shape[d];
      }
      call(leaf::Fn::TLOAD, {tp_dt(t.dtype), tp_int(v.rows), tp_int(v.cols), tp(leaf::TParamKind::Pad, full ? 0 : 1)},
           {std::move(local), op_gm(s), op_int(std::move(off)), op_int(std::move(row_stride)), op_int(std::move(vrs)),
            op_int(std::move(vcs))});
    } else {
      call(leaf::Fn::TSTORE, {tp_dt(t.dtype), tp_int(v.rows), tp_int(v.cols), tp_int(op.atomic_add ? 1 : 0)},
           {op_gm(s), std::move(local), op_int(std::move(off)), op_int(std::move(row_stride)), op_int(std::move(vrs)),
            op_int(std::move(vcs))});
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
    Expr ld, batch;
    if (nz) {
      // FRACTAL_NZ: ld = rows rounded up to 16; one matrix = ld x cols rounded up to C0.
      const int c0 = 32 / dtype_size(gt.dtype);
      ld = ex_paren(ex_mul(ex_div(ex_paren(ex_add(ex_arg(sh + g - 2), ex_const(15))), ex_const(16)), ex_const(16)));
      Expr mat = ex_mul(ld, ex_paren(ex_mul(ex_div(ex_paren(ex_add(ex_arg(sh + g - 1), ex_const(c0 - 1))), ex_const(c0)),
                                            ex_const(c0))));
      for (int d = g - 3; d >= 0; --d) {
        Expr stride = mat;
        for (int e = d + 1; e < g - 2; ++e) stride = ex_mul(std::move(stride), ex_arg(sh + e));
        batch = ex_sum(std::move(batch), ex_mul(ex_arg(o + d), stride));
      }
    } else {
      ld = gm_st(s, g - 2);
      batch = gm_offset(i, op, g - 2);
    }
    if (batch.empty()) batch = ex_const(0);
    View2 v = view2(t.shape);
    call(leaf::Fn::TLOAD_L1, {tp_dt(t.dtype), tp_int(v.rows), tp_int(v.cols), tp_int(nz ? 1 : 0)},
         {op_buf(buf(op.dst)), op_gm(s), op_int(std::move(batch)), op_int(ex_arg(o + g - 2)), op_int(ex_arg(o + g - 1)),
          op_int(std::move(ld)), op_int(gm_ext(i, op, 2)), op_int(gm_ext(i, op, 1))});
  }

  void copy_out(int i, const TileOp& op) { ub_move(i, op, op.srcs.at(0), false); }

  void fix_out(int i, const TileOp& op) {
    const int s = plan_.args.step_gm_slot[i];
    const GmTensor& gt = tensors_.at(plan_.args.gm_tensors[s]);
    const int g = int(op.gm.offset.size());
    const LocalTile& c = tile(op.srcs.at(0));
    View2 v = view2(c.shape);
    call(leaf::Fn::TFIXPIPE, {tp_dt(gt.dtype), tp_int(v.rows), tp_int(v.cols), tp_int(op.atomic_add ? 1 : 0)},
         {op_gm(s), op_buf(buf(op.srcs.at(0))), op_int(gm_offset(i, op, g)),
          op_int(g >= 2 ? gm_st(s, g - 2) : ex_const(0)), op_int(gm_ext(i, op, 2)), op_int(gm_ext(i, op, 1))});
  }

  void extract(const TileOp& op) {
    const LocalTile& src = tile(op.srcs.at(0));
    const LocalTile& dst = tile(op.dst);
    View2 l1 = view2(src.shape), l0 = view2(dst.shape);
    int64_t ro = op.sub_offset.size() >= 2 ? op.sub_offset[op.sub_offset.size() - 2] : 0;
    int64_t co = op.sub_offset.empty() ? 0 : op.sub_offset.back();
    const bool a = op.kind == TileOpKind::L1ToL0A;
    call(a ? leaf::Fn::TEXTRACT_L0A : leaf::Fn::TEXTRACT_L0B,
         {tp_dt(dst.dtype), tp_int(l1.rows), tp_int(l1.cols), tp_int(l0.rows), tp_int(l0.cols),
          tp_int((a ? op.trans_a : op.trans_b) ? 1 : 0)},
         {op_buf(buf(op.dst)), op_buf(buf(op.srcs[0])), op_int(ex_const(ro)), op_int(ex_const(co))});
  }

  void mmad(const TileOp& op) {
    int ta = -1, tb = -1;
    for (int s : op.srcs) {
      if (tile(s).mem == MemKind::L0A) ta = s;
      if (tile(s).mem == MemKind::L0B) tb = s;
    }
    if (ta < 0 || tb < 0) throw Unsupported("a matmul step without L0A and L0B operands");
    View2 a = view2(tile(ta).shape), b = view2(tile(tb).shape);
    call(leaf::Fn::TMMAD, {tp_dt(tile(ta).dtype), tp_int(a.rows), tp_int(a.cols), tp_int(b.cols)},
         {op_buf(buf(op.dst)), op_buf(buf(ta)), op_buf(buf(tb)), op_int(vr(ta)), op_int(vc(ta)), op_int(vc(tb)),
          op_int(ex_const(op.accumulate ? 0 : 1))});
  }

  // Broadcast kind of operand `x` against the destination's last two axes.
  leaf::TParam bcast(int x, int dst) const {
    View2 xv = view2(tile(x).shape), dv = view2(tile(dst).shape);
    auto bc = [](int v) { return tp(leaf::TParamKind::Bcast, v); };
    if (xv.rows == dv.rows && xv.cols == dv.cols) return bc(0);
    if (xv.rows == 1 && xv.cols == 1) return bc(3);
    if (xv.rows == 1 && xv.cols == dv.cols) return bc(1);
    if (xv.cols == 1 && xv.rows == dv.rows) return bc(2);
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
  void reduce_leading(int i, const TileOp& op, int red, int axis) {
    const int a = op.srcs.at(0), d = op.dst;
    const LocalTile& at = tile(a);
    const int rs = int(at.shape.size());
    const int64_t A = at.shape[axis], Q = prod(at.shape, axis + 1, rs);
    std::vector<Expr> counts;
    for (int k = 0; k < axis; ++k) counts.push_back(bv(buf(a), k));
    auto idx = open_loops(i, std::move(counts));
    Expr src_off, dst_off;
    for (int k = 0; k < axis; ++k) {
      src_off = ex_sum(std::move(src_off), ex_mul(ex_local(idx[k]), ex_const(prod(at.shape, k + 1, rs))));
      dst_off = ex_sum(std::move(dst_off), ex_mul(ex_local(idx[k]), ex_const(prod(at.shape, k + 1, axis) * Q)));
    }
    Expr cols = ex_mul(bv(buf(a), axis + 1), ex_const(prod(at.shape, axis + 2, rs)));
    call(is_index_reduction(op.vop) ? leaf::Fn::TARGREDUCE : leaf::Fn::TREDUCE,
         {tp(leaf::TParamKind::RedOp, red), tp_dt(at.dtype), tp_int(A), tp_int(Q), tp_int(0)},
         {op_buf(buf(d), std::move(dst_off)), op_buf(buf(a), std::move(src_off)), op_int(bv(buf(a), axis)),
          op_int(std::move(cols))});
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
    std::vector<Expr> counts;
    for (int x = 0; x < rs; ++x)
      if (x != in && x != last) {
        outer.push_back(x);
        counts.push_back(bv(buf(a), x));
      }
    auto idx = open_loops(i, std::move(counts));
    Expr src_off, dst_off;
    for (size_t k = 0; k < outer.size(); ++k) {
      src_off = ex_sum(std::move(src_off), ex_mul(ex_local(idx[k]), ex_const(src_stride(outer[k]))));
      dst_off = ex_sum(std::move(dst_off), ex_mul(ex_local(idx[k]), ex_const(dst_stride(outer[k]))));
    }
    call(leaf::Fn::TCOPY2D,
         {tp_dt(at.dtype), tp_int(dst_stride(in)), tp_int(dst_stride(last)), tp_int(src_stride(in)),
          tp_int(src_stride(last))},
         {op_buf(buf(d), std::move(dst_off)), op_buf(buf(a), std::move(src_off)), op_int(bv(buf(a), in)),
          op_int(bv(buf(a), last))});
    close_loops(idx.size());
  }

  void vec(int i, const TileOp& op) {
    using TK = leaf::TParamKind;
    const int d = op.dst;
    const LocalTile& dt = tile(d);
    const int r = int(dt.shape.size());
    View2 dv = view2(dt.shape);
    if (int b = bin_op(op.vop); b >= 0) {
      auto idx = open_loops(i, lead_counts(d));
      int a = op.srcs.at(0);
      if (op.scalar) {
        call(leaf::Fn::TBINARY_S, {tp(TK::BinOp, b), tp_dt(dt.dtype), tp_int(dv.rows), tp_int(dv.cols), tp_int(op.scalar_first ? 1 : 0)},
             {tile_at(d, idx, r), tile_at(a, idx, r), op_real(*op.scalar), op_int(vr(d)), op_int(vc(d))});
      } else {
        int c = op.srcs.at(1);
        call(leaf::Fn::TBINARY, {tp(TK::BinOp, b), tp_dt(dt.dtype), tp_int(dv.rows), tp_int(dv.cols), bcast(a, d), bcast(c, d)},
             {tile_at(d, idx, r), tile_at(a, idx, r), tile_at(c, idx, r), op_int(vr(d)), op_int(vc(d))});
      }
      close_loops(idx.size());
      return;
    }
    if (int c = cmp_op(op.vop); c >= 0) {
      auto idx = open_loops(i, lead_counts(d));
      int a = op.srcs.at(0);
      const DType S = tile(a).dtype;
      if (op.scalar) {
        call(leaf::Fn::TCMP_S, {tp(TK::CmpOp, c), tp_dt(S), tp_int(dv.rows), tp_int(dv.cols), tp_int(op.scalar_first ? 1 : 0)},
             {tile_at(d, idx, r), tile_at(a, idx, r), op_real(*op.scalar), op_int(vr(d)), op_int(vc(d))});
      } else {
        int b = op.srcs.at(1);
        call(leaf::Fn::TCMP, {tp(TK::CmpOp, c), tp_dt(S), tp_int(dv.rows), tp_int(dv.cols), bcast(a, d), bcast(b, d)},
             {tile_at(d, idx, r), tile_at(a, idx, r), tile_at(b, idx, r), op_int(vr(d)), op_int(vc(d))});
      }
      close_loops(idx.size());
      return;
    }
    if (int p = pred_op(op.vop); p >= 0) {
      int a = op.srcs.at(0);
      auto idx = open_loops(i, lead_counts(d));
      call(leaf::Fn::TPRED, {tp(TK::PredOp, p), tp_dt(tile(a).dtype), tp_int(dv.rows), tp_int(dv.cols)},
           {tile_at(d, idx, r), tile_at(a, idx, r), op_int(vr(d)), op_int(vc(d))});
      close_loops(idx.size());
      return;
    }
    if (op.vop == OpKind::Where) {
      const int cd = op.srcs.at(0), a = op.srcs.at(1), b = op.srcs.at(2);
      auto idx = open_loops(i, lead_counts(d));
      call(leaf::Fn::TSELECT, {tp_dt(dt.dtype), tp_int(dv.rows), tp_int(dv.cols), bcast(cd, d), bcast(a, d), bcast(b, d)},
           {tile_at(d, idx, r), tile_at(cd, idx, r), tile_at(a, idx, r), tile_at(b, idx, r), op_int(vr(d)), op_int(vc(d))});
      close_loops(idx.size());
      return;
    }
    if (int u = un_op(op.vop); u >= 0) {
      int a = op.srcs.at(0);
      auto idx = open_loops(i, lead_counts(d));
      call(leaf::Fn::TUNARY, {tp(TK::UnOp, u), tp_dt(dt.dtype), tp_int(dv.rows), tp_int(dv.cols)},
           {tile_at(d, idx, r), tile_at(a, idx, r), op_int(vr(d)), op_int(vc(d))});
      close_loops(idx.size());
      return;
    }
    if (int red = red_op(op.vop); red >= 0) {
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
      Expr dst_off;
      for (int k = 0; k < int(idx.size()); ++k)
        dst_off = ex_sum(std::move(dst_off), ex_mul(ex_local(idx[k]), ex_const(prod(at.shape, k + 1, rs - 2) *
                                                                                 (lib_axis == 1 ? av.rows : av.cols))));
      call(is_index_reduction(op.vop) ? leaf::Fn::TARGREDUCE : leaf::Fn::TREDUCE,
           {tp(TK::RedOp, red), tp_dt(at.dtype), tp_int(av.rows), tp_int(av.cols), tp_int(lib_axis)},
           {op_buf(buf(d), std::move(dst_off)), tile_at(a, idx, rs), op_int(vr(a)), op_int(vc(a))});
      close_loops(idx.size());
      return;
    }
    switch (op.vop) {
      case OpKind::Uniform: case OpKind::Normal: {  // --- random ops --- from the int32 index tile
        int a = op.srcs.at(0);
        if (op.axes.size() != 4) throw Unsupported("a uniform / normal without its key and counter");
        auto idx = open_loops(i, lead_counts(d));
        auto word = [&](size_t k) { return op_int(ex_const(int64_t(uint32_t(op.axes[k])))); };
        call(leaf::Fn::TRANDOM, {tp_dt(dt.dtype), tp_int(dv.rows), tp_int(dv.cols), tp_int(op.vop == OpKind::Normal ? 1 : 0)},
             {tile_at(d, idx, r), tile_at(a, idx, r), op_int(vr(d)), op_int(vc(d)), word(0), word(1), word(2), word(3)});
        close_loops(idx.size());
        return;
      }
      case OpKind::Cast: {
        int a = op.srcs.at(0);
        auto idx = open_loops(i, lead_counts(d));
        call(leaf::Fn::TCAST, {tp_dt(dt.dtype), tp_dt(tile(a).dtype), tp_int(dv.rows), tp_int(dv.cols)},
             {tile_at(d, idx, r), tile_at(a, idx, r), op_int(vr(d)), op_int(vc(d))});
        close_loops(idx.size());
        return;
      }
      case OpKind::Bitcast: {  // --- pack / unpack --- the same bytes per row read as another dtype (TBITCAST)
        int a = op.srcs.at(0);
        const LocalTile& at = tile(a);
        View2 av = view2(at.shape);
        auto idx = open_loops(i, lead_counts(d));
        call(leaf::Fn::TBITCAST, {tp_dt(dt.dtype), tp_dt(at.dtype), tp_int(av.rows), tp_int(dv.cols), tp_int(av.cols)},
             {tile_at(d, idx, r), tile_at(a, idx, r), op_int(vr(a)), op_int(vc(a))});
        close_loops(idx.size());
        return;
      }
      case OpKind::SortValues:
      case OpKind::SortIndices: {  // --- sort --- rows of the last axis (TSORT, TSORT_IDX with carried indices)
        int a = op.srcs.at(0);
        const LocalTile& at = tile(a);
        View2 av = view2(at.shape);
        if (op.axes.size() != 3 || av.rows != dv.rows) throw Unsupported("a sort whose tiles do not share their rows");
        auto idx = open_loops(i, lead_counts(d));
        std::vector<leaf::TParam> tps = {tp_dt(dt.dtype),          tp_dt(at.dtype),  tp_int(av.rows), tp_int(av.cols),
                                         tp_int(dv.cols),          tp_int(op.axes[1] != 0 ? 1 : 0),
                                         tp_int(op.vop == OpKind::SortIndices ? 1 : 0), tp_int(op.axes[2])};
        std::vector<leaf::Operand> ops = {tile_at(d, idx, r), tile_at(a, idx, r)};
        if (op.srcs.size() == 2) ops.push_back(tile_at(op.srcs[1], idx, r));
        ops.push_back(op_int(vr(a)));
        ops.push_back(op_int(vc(a)));
        call(op.srcs.size() == 2 ? leaf::Fn::TSORT_IDX : leaf::Fn::TSORT, std::move(tps), std::move(ops));
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
        call(leaf::Fn::TTRANSPOSE, {tp_dt(dt.dtype), tp_int(av.rows), tp_int(av.cols)},
             {tile_at(d, idx, rs), tile_at(a, idx, rs), op_int(vr(a)), op_int(vc(a))});
        close_loops(idx.size());
        return;
      }
      case OpKind::Full: {
        auto idx = open_loops(i, lead_counts(d));
        call(leaf::Fn::TFILL, {tp_dt(dt.dtype), tp_int(dv.rows), tp_int(dv.cols)},
             {tile_at(d, idx, r), op_real(op.fill), op_int(vr(d)), op_int(vc(d))});
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
        call(leaf::Fn::TCOPY, {tp_dt(dt.dtype), tp_int(av.rows), tp_int(av.cols), tp_int(dv.rows), tp_int(dv.cols)},
             {tile_at(d, idx, r, sub), tile_at(a, idx, r), op_int(vr(a)), op_int(vc(a)), op_int(ex_const(ro)),
              op_int(ex_const(co))});
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
  leaf::LeafProgram prog_;
  std::map<std::pair<int, int>, int> gm_stride_, buf_valid_;
  std::ostringstream os_;
  int indent_ = 0;
};

}  // namespace

std::string emit_cce(const Program& prog, const TileRoot& root, const std::vector<GmTensor>& tensors,
                     const LeafPlan& plan, const std::string& kernel_name, const CceOptions& opts, DiagEngine& diags,
                     leaf::LeafProgram* program) {
  try {
    Emitter e(root, tensors, plan);
    std::string text = e.kernel(kernel_name, opts);
    if (program) *program = std::move(e.program());
    return text;
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
    leaf::LeafProgram lp;
    k.source = emit_cce(prog, roots.at(p.root), out.tensors, p, k.name, opts, diags, &lp);
    if (k.source.empty()) ok = false;
    else k.program = leaf::encode_leaf_program(lp);
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
