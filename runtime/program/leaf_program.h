// Leaf programs: the compact, serialisable description of one generated
// kernel, exactly what its CCE text is rendered from (compiler/codegen/
// cce_emit.cpp builds the program and renders every line from it). A program
// is a straight list of instructions: GM slot pointers, int64 locals (GM row
// strides, buffer valid extents, loop indices), buffers bound at planned
// addresses, sync flags, loops over leading tile axes and tile-library calls
// whose template parameters (op, dtype, broadcast, pad, atomic, axis, tile
// shape) and arguments (buffer + element offset, GM slot, int64 expression,
// fp literal) are data. ptorun runs it with runtime/leaf_exec.h, calling the
// same kernels/host function bodies the compiled twin runs.
//
// Encoding (little-endian, versioned): "PTLP" u32 version, then the fields in
// declaration order; integers as zig-zag LEB128 varints, doubles as 8 raw bytes.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptoc::leaf {

inline constexpr uint32_t kLeafProgramVersion = 1;

// An int64 expression in postfix form. Paren only marks where the rendered C++
// text has parentheses (evaluation ignores it), so the text and the value the
// executor computes follow one token list.
enum class ExprOp : uint8_t { Const, Arg, Local, Add, Mul, Div, Paren };
struct ExprTok {
  ExprOp op = ExprOp::Const;
  int64_t v = 0;  // Const: value; Arg: PTO_ARG index; Local: local index
};
struct Expr {
  std::vector<ExprTok> toks;
  bool empty() const { return toks.empty(); }
};

// Named int64 values of the kernel body: gm{a}_st{b}, b{a}_v{b}, i{a}_{b}.
enum class LocalKind : uint8_t { GmStride, BufValid, LoopIndex };
struct Local {
  LocalKind kind = LocalKind::GmStride;
  int32_t a = 0, b = 0;
};

// Element types, in the order of ptoc::DType (runtime/core/dtype.h).
// In DType's order (the codegen casts one to the other).
// Numbered as DType (ElemType(dtype)); new types are appended.
enum class ElemType : uint8_t { f32, f16, bf16, i32, i8, u8, boolean, i64, i16, u16, u32, u64, f8e4m3, f8e5m2, f8e8m0 };
inline constexpr int kNumElemTypes = 15;
int elem_bytes(ElemType t);

// Local memories, in the order of the compiler's MemKind (GM is not a buffer memory).
enum class Memory : uint8_t { UB, L1, L0A, L0B, L0C };
inline constexpr int kNumMemories = 5;
int64_t memory_bytes(Memory m);  // the host stand-in sizes (kernels/host/pto_host.h)

struct Buffer {
  Memory mem = Memory::UB;
  ElemType dtype = ElemType::f32;
  int64_t addr = 0;   // byte offset in its memory
  int64_t bytes = 0;  // planned size
};

// The tile-library functions of kernels/pto_tile.h a program calls.
enum class Fn : uint8_t {
  TLOAD, TSTORE, TBINARY, TBINARY_S, TUNARY, TREDUCE, TARGREDUCE, TCMP, TCMP_S, TPRED, TSELECT, TCAST,
  TTRANSPOSE, TFILL, TCOPY, TCOPY2D, TLOAD_L1, TEXTRACT_L0A, TEXTRACT_L0B, TMMAD, TFIXPIPE,
  // --- random ops ---
  TRANDOM,  // {TD, R, C, MODE}: dst, idx (int32), vr, vc, key_lo, key_hi, ctr_lo, ctr_hi (kernels/pto_tile.h)
  // --- pack / unpack ---
  TBITCAST,  // {TD, TS, R, CD, CS}: dst, src, vr, vc (source elements): the same bytes per row
  // --- sort --- {TD, T, R, C, K, LARGEST, OUT_INDEX, BASE}: dst (R x K), src, [idx (int32),] vr, vc
  TSORT, TSORT_IDX,
};
inline constexpr int kNumFns = 25;
const char* fn_name(Fn f);

// How a template parameter renders: a number, an element type, or a name from
// one of the enums of kernels/pto_tile.h.
enum class TParamKind : uint8_t { Int, DType, BinOp, UnOp, RedOp, CmpOp, PredOp, Bcast, Pad };
struct TParam {
  TParamKind kind = TParamKind::Int;
  int64_t v = 0;
};

enum class OperandKind : uint8_t { Buf, Gm, Int, Real };
struct Operand {
  OperandKind kind = OperandKind::Int;
  int32_t index = 0;  // Buf: buffer index; Gm: GM slot
  Expr expr;          // Buf: element offset (may be empty); Int: the value
  double real = 0;    // Real: the literal
};

enum class InstrKind : uint8_t { Comment, GmPtr, DefLocal, BufPtr, Sync, Pmu, LoopBegin, LoopEnd, Call, KernelBegin, KernelEnd };
struct Instr {
  InstrKind kind = InstrKind::Comment;
  std::string text;                 // Comment: the line; BufPtr: its trailing comment; KernelBegin: kernel name
  int32_t a = 0, b = 0, c = 0, d = 0;  // GmPtr: slot, dtype; DefLocal/LoopBegin: local; BufPtr: buffer;
                                       // Sync: kind, src pipe, dst pipe, event; Pmu: pipe, id, nops
  Expr expr;                        // DefLocal: value; LoopBegin: trip count
  Fn fn = Fn::TLOAD;                // Call
  std::vector<TParam> tparams;      // Call
  std::vector<Operand> operands;    // Call
};

struct LeafProgram {
  std::string kernel;        // the kernel's name (messages)
  int32_t num_args = 0;      // int64 arguments it reads
  int32_t num_gm = 0;        // GM slots
  std::vector<ElemType> gm_dtypes;  // per slot
  std::vector<Local> locals;
  std::vector<Buffer> buffers;
  std::vector<Instr> instrs;
};

struct LeafProgramError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> encode_leaf_program(const LeafProgram& p);
// Throws LeafProgramError on truncated or malformed bytes (does not verify).
LeafProgram decode_leaf_program(const uint8_t* data, size_t size);

// Checks that every index, opcode and range is inside what the program
// declares: buffers inside their memory, locals defined before use, PTO_ARG
// indices below num_args, GM slots below num_gm, each call's template
// parameters and operands of the kinds and count its function takes, loops
// balanced, expressions well formed. Throws LeafProgramError naming the
// kernel and the instruction.
void verify_leaf_program(const LeafProgram& p);

// The signature of each function: template parameter kinds and operand kinds.
struct FnSignature {
  std::vector<TParamKind> tparams;
  std::vector<OperandKind> operands;
};
const FnSignature& fn_signature(Fn f);

// Evaluates `e` with the given args and locals (no checks: verify first).
int64_t eval_expr(const Expr& e, const int64_t* args, const int64_t* locals);

}  // namespace ptoc::leaf
