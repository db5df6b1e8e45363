#include "runtime/program/leaf_program.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace ptoc::leaf {

int elem_bytes(ElemType t) {
  switch (t) {
    case ElemType::i64:
    case ElemType::u64: return 8;
    case ElemType::f32:
    case ElemType::i32:
    case ElemType::u32: return 4;
    case ElemType::f16:
    case ElemType::bf16:
    case ElemType::i16:
    case ElemType::u16: return 2;
    default: return 1;
  }
}

int64_t memory_bytes(Memory m) {
  switch (m) {
    case Memory::UB: return 256 * 1024;
    case Memory::L1: return 512 * 1024;
    case Memory::L0A:
    case Memory::L0B: return 64 * 1024;
    case Memory::L0C: return 256 * 1024;
  }
  return 0;
}

const char* fn_name(Fn f) {
  static const char* const names[kNumFns] = {
      "TLOAD",      "TSTORE", "TBINARY", "TBINARY_S", "TUNARY",  "TREDUCE",      "TARGREDUCE",
      "TCMP",       "TCMP_S", "TPRED",   "TSELECT",   "TCAST",   "TTRANSPOSE",   "TFILL",
      "TCOPY",      "TCOPY2D", "TLOAD_L1", "TEXTRACT_L0A", "TEXTRACT_L0B", "TMMAD", "TFIXPIPE",
      "TRANDOM",  // --- random ops ---
      "TBITCAST",  // --- pack / unpack ---
      "TSORT",    "TSORT_IDX"};  // --- sort ---
  return int(f) < kNumFns ? names[int(f)] : "?";
}

namespace {

using K = TParamKind;
using O = OperandKind;
constexpr int kFixed = 100;  // operand dtype rule: kFixed + ElemType
constexpr int kAcc = 200;    // the L0C accumulator: int32 for int8 operands / an int32 FixPipe, else fp32

struct Sig {
  FnSignature s;
  std::vector<int> dtype_rule;  // per operand: -1 none, tparam index, or kFixed + ElemType
};

const std::vector<Sig>& signatures() {
  static const std::vector<Sig> t = [] {
    const int B = kFixed + int(ElemType::boolean), I32 = kFixed + int(ElemType::i32);
    std::vector<Sig> v(kNumFns);
    auto set = [&](Fn f, std::vector<K> tp, std::vector<O> op, std::vector<int> rule) {
      v[size_t(f)] = Sig{FnSignature{std::move(tp), std::move(op)}, std::move(rule)};
    };
    set(Fn::TLOAD, {K::DType, K::Int, K::Int, K::Pad}, {O::Buf, O::Gm, O::Int, O::Int, O::Int, O::Int}, {0, 0, -1, -1, -1, -1});
    set(Fn::TSTORE, {K::DType, K::Int, K::Int, K::Int}, {O::Gm, O::Buf, O::Int, O::Int, O::Int, O::Int}, {0, 0, -1, -1, -1, -1});
    set(Fn::TBINARY, {K::BinOp, K::DType, K::Int, K::Int, K::Bcast, K::Bcast}, {O::Buf, O::Buf, O::Buf, O::Int, O::Int}, {1, 1, 1, -1, -1});
    set(Fn::TBINARY_S, {K::BinOp, K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Real, O::Int, O::Int}, {1, 1, -1, -1, -1});
    set(Fn::TUNARY, {K::UnOp, K::DType, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {1, 1, -1, -1});
    set(Fn::TREDUCE, {K::RedOp, K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {1, 1, -1, -1});
    set(Fn::TARGREDUCE, {K::RedOp, K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {I32, 1, -1, -1});
    set(Fn::TCMP, {K::CmpOp, K::DType, K::Int, K::Int, K::Bcast, K::Bcast}, {O::Buf, O::Buf, O::Buf, O::Int, O::Int}, {B, 1, 1, -1, -1});
    set(Fn::TCMP_S, {K::CmpOp, K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Real, O::Int, O::Int}, {B, 1, -1, -1, -1});
    set(Fn::TPRED, {K::PredOp, K::DType, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {B, 1, -1, -1});
    set(Fn::TSELECT, {K::DType, K::Int, K::Int, K::Bcast, K::Bcast, K::Bcast}, {O::Buf, O::Buf, O::Buf, O::Buf, O::Int, O::Int}, {0, B, 0, 0, -1, -1});
    set(Fn::TCAST, {K::DType, K::DType, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {0, 1, -1, -1});
    set(Fn::TTRANSPOSE, {K::DType, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {0, 0, -1, -1});
    set(Fn::TFILL, {K::DType, K::Int, K::Int}, {O::Buf, O::Real, O::Int, O::Int}, {0, -1, -1, -1});
    set(Fn::TCOPY, {K::DType, K::Int, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int, O::Int, O::Int}, {0, 0, -1, -1, -1, -1});
    set(Fn::TCOPY2D, {K::DType, K::Int, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {0, 0, -1, -1});
    set(Fn::TLOAD_L1, {K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Gm, O::Int, O::Int, O::Int, O::Int, O::Int, O::Int}, {0, 0, -1, -1, -1, -1, -1, -1});
    set(Fn::TEXTRACT_L0A, {K::DType, K::Int, K::Int, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {0, 0, -1, -1});
    set(Fn::TEXTRACT_L0B, {K::DType, K::Int, K::Int, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {0, 0, -1, -1});
    set(Fn::TMMAD, {K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Buf, O::Int, O::Int, O::Int, O::Int}, {kAcc, 0, 0, -1, -1, -1, -1});
    set(Fn::TFIXPIPE, {K::DType, K::Int, K::Int, K::Int}, {O::Gm, O::Buf, O::Int, O::Int, O::Int, O::Int}, {0, kAcc, -1, -1, -1, -1});
    // --- random ops ---
    set(Fn::TRANDOM, {K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int, O::Int, O::Int, O::Int, O::Int},
        {0, I32, -1, -1, -1, -1, -1, -1});
    // --- pack / unpack ---
    set(Fn::TBITCAST, {K::DType, K::DType, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int}, {0, 1, -1, -1});
    // --- sort ---
    set(Fn::TSORT, {K::DType, K::DType, K::Int, K::Int, K::Int, K::Int, K::Int, K::Int}, {O::Buf, O::Buf, O::Int, O::Int},
        {0, 1, -1, -1});
    set(Fn::TSORT_IDX, {K::DType, K::DType, K::Int, K::Int, K::Int, K::Int, K::Int, K::Int},
        {O::Buf, O::Buf, O::Buf, O::Int, O::Int}, {0, 1, I32, -1, -1});
    return v;
  }();
  return t;
}

// Number of values in each enum of kernels/pto_tile.h a template parameter names.
int64_t tparam_limit(TParamKind k) {
  switch (k) {
    case K::Int: return INT32_MAX;
    case K::DType: return kNumElemTypes;
    case K::BinOp: return 18;  // 10 + the math ops' 8
    case K::UnOp: return 36;  // 25 + the math ops' 11
    case K::RedOp: return 7;
    case K::CmpOp: return 8;
    case K::PredOp: return 3;  // 2 + signbit
    case K::Bcast: return 4;
    case K::Pad: return 2;
  }
  return 0;
}

// ---- encoding ----

struct Writer {
  std::vector<uint8_t> out;
  void u(uint64_t v) {
    do {
      uint8_t b = uint8_t(v & 0x7f);
      v >>= 7;
      out.push_back(uint8_t(b | (v ? 0x80 : 0)));
    } while (v);
  }
  void i(int64_t v) { u((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
  void d(double x) {
    uint8_t b[8];
    std::memcpy(b, &x, 8);
    out.insert(out.end(), b, b + 8);
  }
  void s(const std::string& x) {
    u(x.size());
    out.insert(out.end(), x.begin(), x.end());
  }
  void e(const Expr& x) {
    u(x.toks.size());
    for (const ExprTok& t : x.toks) {
      u(uint64_t(t.op));
      if (t.op == ExprOp::Const || t.op == ExprOp::Arg || t.op == ExprOp::Local) i(t.v);
    }
  }
};

struct Reader {
  const uint8_t* p;
  size_t n, at = 0;
  [[noreturn]] void fail(const std::string& what) const {
    throw LeafProgramError("leaf program is malformed at byte " + std::to_string(at) + ": " + what);
  }
  uint64_t u() {
    uint64_t v = 0;
    for (int sh = 0; sh < 64; sh += 7) {
      if (at >= n) fail("truncated");
      uint8_t b = p[at++];
      v |= uint64_t(b & 0x7f) << sh;
      if (!(b & 0x80)) return v;
    }
    fail("varint too long");
  }
  int64_t i() {
    uint64_t v = u();
    return int64_t(v >> 1) ^ -int64_t(v & 1);
  }
  int32_t i32() {
    int64_t v = i();
    if (v < INT32_MIN || v > INT32_MAX) fail("a 32-bit field out of range");
    return int32_t(v);
  }
  uint8_t small(unsigned limit, const char* what) {
    uint64_t v = u();
    if (v >= limit) fail(std::string("bad ") + what + " " + std::to_string(v));
    return uint8_t(v);
  }
  size_t count() {
    uint64_t v = u();
    if (v > n - at) fail("a count larger than the rest of the program");  // every element takes >= 1 byte
    return size_t(v);
  }
  double d() {
    if (n - at < 8) fail("truncated");
    double x;
    std::memcpy(&x, p + at, 8);
    at += 8;
    return x;
  }
  std::string s() {
    size_t len = count();
    std::string x(reinterpret_cast<const char*>(p + at), len);
    at += len;
    return x;
  }
  Expr e() {
    Expr x;
    x.toks.resize(count());
    for (ExprTok& t : x.toks) {
      t.op = ExprOp(small(7, "expression token"));
      if (t.op == ExprOp::Const || t.op == ExprOp::Arg || t.op == ExprOp::Local) t.v = i();
    }
    return x;
  }
};

}  // namespace

const FnSignature& fn_signature(Fn f) { return signatures().at(size_t(f)).s; }

std::vector<uint8_t> encode_leaf_program(const LeafProgram& p) {
  Writer w;
  w.out = {'P', 'T', 'L', 'P'};
  w.u(kLeafProgramVersion);
  w.s(p.kernel);
  w.i(p.num_args);
  w.i(p.num_gm);
  w.u(p.gm_dtypes.size());
  for (ElemType t : p.gm_dtypes) w.u(uint64_t(t));
  w.u(p.locals.size());
  for (const Local& l : p.locals) {
    w.u(uint64_t(l.kind));
    w.i(l.a);
    w.i(l.b);
  }
  w.u(p.buffers.size());
  for (const Buffer& b : p.buffers) {
    w.u(uint64_t(b.mem));
    w.u(uint64_t(b.dtype));
    w.i(b.addr);
    w.i(b.bytes);
  }
  w.u(p.instrs.size());
  for (const Instr& in : p.instrs) {
    w.u(uint64_t(in.kind));
    w.s(in.text);
    w.i(in.a);
    w.i(in.b);
    w.i(in.c);
    w.i(in.d);
    w.e(in.expr);
    w.u(uint64_t(in.fn));
    w.u(in.tparams.size());
    for (const TParam& t : in.tparams) {
      w.u(uint64_t(t.kind));
      w.i(t.v);
    }
    w.u(in.operands.size());
    for (const Operand& o : in.operands) {
      w.u(uint64_t(o.kind));
      w.i(o.index);
      w.e(o.expr);
      if (o.kind == OperandKind::Real) w.d(o.real);
    }
  }
  return w.out;
}

LeafProgram decode_leaf_program(const uint8_t* data, size_t size) {
  Reader r{data, size};
  if (size < 4 || std::memcmp(data, "PTLP", 4) != 0) r.fail("no PTLP magic");
  r.at = 4;
  uint64_t v = r.u();
  if (v != kLeafProgramVersion)
    throw LeafProgramError("leaf program format version " + std::to_string(v) + ", this ptorun reads version " +
                           std::to_string(kLeafProgramVersion) + ": recompile the bundle with this ptoc");
  LeafProgram p;
  p.kernel = r.s();
  p.num_args = r.i32();
  p.num_gm = r.i32();
  p.gm_dtypes.resize(r.count());
  for (ElemType& t : p.gm_dtypes) t = ElemType(r.small(kNumElemTypes, "element type"));
  p.locals.resize(r.count());
  for (Local& l : p.locals) {
    l.kind = LocalKind(r.small(3, "local kind"));
    l.a = r.i32();
    l.b = r.i32();
  }
  p.buffers.resize(r.count());
  for (Buffer& b : p.buffers) {
    b.mem = Memory(r.small(kNumMemories, "memory"));
    b.dtype = ElemType(r.small(kNumElemTypes, "element type"));
    b.addr = r.i();
    b.bytes = r.i();
  }
  p.instrs.resize(r.count());
  for (Instr& in : p.instrs) {
    in.kind = InstrKind(r.small(11, "instruction kind"));
    in.text = r.s();
    in.a = r.i32();
    in.b = r.i32();
    in.c = r.i32();
    in.d = r.i32();
    in.expr = r.e();
    in.fn = Fn(r.small(kNumFns, "function"));
    in.tparams.resize(r.count());
    for (TParam& t : in.tparams) {
      t.kind = TParamKind(r.small(9, "template parameter kind"));
      t.v = r.i();
    }
    in.operands.resize(r.count());
    for (Operand& o : in.operands) {
      o.kind = OperandKind(r.small(4, "operand kind"));
      o.index = r.i32();
      o.expr = r.e();
      if (o.kind == OperandKind::Real) o.real = r.d();
    }
  }
  if (r.at != size) r.fail(std::to_string(size - r.at) + " trailing bytes");
  return p;
}

namespace {

struct Verifier {
  const LeafProgram& p;
  size_t at = 0;
  std::vector<bool> defined;

  [[noreturn]] void fail(const std::string& what) const {
    throw LeafProgramError("kernel '" + p.kernel + "': leaf program instruction " + std::to_string(at) + ": " + what +
                           " (the bundle is corrupted or from another ptoc: recompile it)");
  }
  void expr(const Expr& e, bool allow_empty = false) {
    if (e.empty()) {
      if (!allow_empty) fail("an empty expression");
      return;
    }
    int depth = 0, max_depth = 0;
    for (const ExprTok& t : e.toks) {
      max_depth = std::max(max_depth, depth + 1);
      switch (t.op) {
        case ExprOp::Const: ++depth; break;
        case ExprOp::Arg:
          if (t.v < 0 || t.v >= p.num_args)
            fail("PTO_ARG(" + std::to_string(t.v) + ") but the kernel takes " + std::to_string(p.num_args) + " args");
          ++depth;
          break;
        case ExprOp::Local:
          if (t.v < 0 || t.v >= int64_t(p.locals.size())) fail("local " + std::to_string(t.v) + " does not exist");
          if (!defined[size_t(t.v)]) fail("local " + std::to_string(t.v) + " is used before it is defined");
          ++depth;
          break;
        case ExprOp::Add:
        case ExprOp::Mul:
        case ExprOp::Div:
          if (depth < 2) fail("an expression operator without two operands");
          --depth;
          break;
        case ExprOp::Paren:
          if (depth < 1) fail("a parenthesis without an operand");
          break;
      }
    }
    if (max_depth > 32) fail("an expression deeper than 32 values");
    if (depth != 1) fail("an expression that leaves " + std::to_string(depth) + " values");
  }
  void local_def(int32_t l) {
    if (l < 0 || l >= int32_t(p.locals.size())) fail("local " + std::to_string(l) + " does not exist");
    if (defined[size_t(l)]) fail("local " + std::to_string(l) + " is defined twice");
    defined[size_t(l)] = true;
  }
  void buffer(int32_t b) {
    if (b < 0 || b >= int32_t(p.buffers.size()))
      fail("buffer " + std::to_string(b) + " but the kernel declares " + std::to_string(p.buffers.size()));
  }
  void slot(int32_t s) {
    if (s < 0 || s >= p.num_gm) fail("GM slot " + std::to_string(s) + " but the kernel has " + std::to_string(p.num_gm));
  }
};

}  // namespace

void verify_leaf_program(const LeafProgram& p) {
  Verifier v{p};
  v.defined.assign(p.locals.size(), false);
  if (p.num_args < 0 || p.num_gm < 0 || p.gm_dtypes.size() != size_t(p.num_gm))
    v.fail("GM slot dtypes do not match the slot count");
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const Buffer& x = p.buffers[b];
    if (x.addr < 0 || x.bytes < 0 || x.addr + x.bytes > memory_bytes(x.mem))
      v.fail("buffer " + std::to_string(b) + " at byte " + std::to_string(x.addr) + " of " + std::to_string(x.bytes) +
             " bytes runs past its " + std::to_string(memory_bytes(x.mem)) + "-byte memory");
  }
  std::vector<bool> bound(p.buffers.size(), false), slot_bound(size_t(p.num_gm), false);
  std::vector<int32_t> loops;
  bool begun = false, ended = false;
  for (v.at = 0; v.at < p.instrs.size(); ++v.at) {
    const Instr& in = p.instrs[v.at];
    if (ended && in.kind != InstrKind::Comment) v.fail("an instruction after the kernel's end");
    switch (in.kind) {
      case InstrKind::Comment: break;
      case InstrKind::KernelBegin:
        if (begun) v.fail("a second kernel begin");
        begun = true;
        break;
      case InstrKind::KernelEnd:
        if (!begun || !loops.empty()) v.fail("the kernel ends inside a loop or before it begins");
        ended = true;
        break;
      case InstrKind::GmPtr:
        v.slot(in.a);
        if (in.b < 0 || in.b >= kNumElemTypes || ElemType(in.b) != p.gm_dtypes[size_t(in.a)])
          v.fail("GM slot " + std::to_string(in.a) + " bound with another dtype");
        slot_bound[size_t(in.a)] = true;
        break;
      case InstrKind::DefLocal:
        v.expr(in.expr);
        v.local_def(in.a);
        break;
      case InstrKind::BufPtr:
        v.buffer(in.a);
        bound[size_t(in.a)] = true;
        break;
      case InstrKind::Sync:
        if (in.a < 0 || in.a > 3 || in.b < 0 || in.b > 15 || in.c < 0 || in.c > 15 || in.d < 0 || in.d > 7)
          v.fail("a sync flag with a bad kind, pipe or event");
        break;
      case InstrKind::Pmu:
        if (in.a < 0 || in.a > 15) v.fail("a PMU stamp on a bad pipe");
        break;
      case InstrKind::LoopBegin:
        v.expr(in.expr);
        v.local_def(in.a);
        if (p.locals[size_t(in.a)].kind != LocalKind::LoopIndex) v.fail("a loop over a local that is no loop index");
        loops.push_back(in.a);
        break;
      case InstrKind::LoopEnd:
        if (loops.empty()) v.fail("a loop end without a loop");
        v.defined[size_t(loops.back())] = false;  // out of scope
        loops.pop_back();
        break;
      case InstrKind::Call: {
        if (!begun) v.fail("a call before the kernel begins");
        const Sig& sig = signatures()[size_t(in.fn)];
        const char* name = fn_name(in.fn);
        if (in.tparams.size() != sig.s.tparams.size() || in.operands.size() != sig.s.operands.size())
          v.fail(std::string(name) + " with the wrong number of template parameters or operands");
        for (size_t t = 0; t < in.tparams.size(); ++t) {
          if (in.tparams[t].kind != sig.s.tparams[t]) v.fail(std::string(name) + ": template parameter " + std::to_string(t) + " of the wrong kind");
          if (in.tparams[t].v < 0 || in.tparams[t].v >= tparam_limit(in.tparams[t].kind))
            v.fail(std::string(name) + ": template parameter " + std::to_string(t) + " out of range (" +
                   std::to_string(in.tparams[t].v) + ")");
          if (in.tparams[t].kind == K::Int && in.tparams[t].v > (int64_t(1) << 24))
            v.fail(std::string(name) + ": tile extent " + std::to_string(in.tparams[t].v) + " is implausible");
        }
        if ((in.fn == Fn::TMMAD) && ElemType(in.tparams[0].v) != ElemType::f32 && ElemType(in.tparams[0].v) != ElemType::f16 &&
            ElemType(in.tparams[0].v) != ElemType::bf16 && ElemType(in.tparams[0].v) != ElemType::i8)
          v.fail("TMMAD on a type other than fp32, fp16, bf16 and int8");
        for (size_t o = 0; o < in.operands.size(); ++o) {
          const Operand& x = in.operands[o];
          if (x.kind != sig.s.operands[o]) v.fail(std::string(name) + ": operand " + std::to_string(o) + " of the wrong kind");
          int rule = sig.dtype_rule[o];
          int want = rule < 0 ? -1 : rule >= kFixed ? rule - kFixed : int(in.tparams[size_t(rule)].v);
          if (rule == kAcc) {
            const ElemType t0 = ElemType(in.tparams[0].v);
            want = int(t0 == ElemType::i8 || t0 == ElemType::i32 ? ElemType::i32 : ElemType::f32);
          }
          ElemType have = ElemType::f32;
          switch (x.kind) {
            case O::Buf:
              v.buffer(x.index);
              if (!bound[size_t(x.index)]) v.fail(std::string(name) + ": buffer " + std::to_string(x.index) + " is not bound");
              v.expr(x.expr, true);
              have = p.buffers[size_t(x.index)].dtype;
              break;
            case O::Gm:
              v.slot(x.index);
              if (!slot_bound[size_t(x.index)]) v.fail(std::string(name) + ": GM slot " + std::to_string(x.index) + " is not bound");
              have = p.gm_dtypes[size_t(x.index)];
              break;
            case O::Int: v.expr(x.expr); break;
            case O::Real: break;
          }
          if (want >= 0 && int(have) != want)
            v.fail(std::string(name) + ": operand " + std::to_string(o) + " has another element type than the call");
        }
        break;
      }
    }
  }
  if (!begun || !ended) {
    v.at = p.instrs.size();
    v.fail("the program has no complete kernel body");
  }
}

int64_t eval_expr(const Expr& e, const int64_t* args, const int64_t* locals) {
  int64_t st[32];
  int n = 0;
  for (const ExprTok& t : e.toks) {
    switch (t.op) {
      case ExprOp::Const: st[n++] = t.v; break;
      case ExprOp::Arg: st[n++] = args[t.v]; break;
      case ExprOp::Local: st[n++] = locals[t.v]; break;
      case ExprOp::Add: --n; st[n - 1] = int64_t(uint64_t(st[n - 1]) + uint64_t(st[n])); break;
      case ExprOp::Mul: --n; st[n - 1] = int64_t(uint64_t(st[n - 1]) * uint64_t(st[n])); break;
      case ExprOp::Div: --n; st[n - 1] = st[n] == 0 ? 0 : st[n - 1] / st[n]; break;
      case ExprOp::Paren: break;
    }
  }
  return n ? st[n - 1] : 0;
}

}  // namespace ptoc::leaf
