// A small hand-built leaf program for the leaf-program tests: y[0:vr, 0:vc] = x + x
// over an 8 x 16 fp32 UB tile (TLOAD, TBINARY, TSTORE), args = {vr, vc}, GM row stride 16.
#pragma once
#include "runtime/program/leaf_program.h"

namespace ptoc::leaf::test {

inline Expr c(int64_t v) { return Expr{{{ExprOp::Const, v}}}; }
inline Expr a(int64_t i) { return Expr{{{ExprOp::Arg, i}}}; }
inline Expr l(int64_t i) { return Expr{{{ExprOp::Local, i}}}; }

inline Instr call(Fn fn, std::vector<TParam> tp, std::vector<Operand> ops) {
  Instr in;
  in.kind = InstrKind::Call;
  in.fn = fn;
  in.tparams = std::move(tp);
  in.operands = std::move(ops);
  return in;
}
inline Operand buf(int b, Expr off = {}) { return Operand{OperandKind::Buf, b, std::move(off), 0}; }
inline Operand gm(int s) { return Operand{OperandKind::Gm, s, {}, 0}; }
inline Operand val(Expr e) { return Operand{OperandKind::Int, 0, std::move(e), 0}; }
inline TParam ti(int64_t v) { return TParam{TParamKind::Int, v}; }

inline LeafProgram sample_program() {
  LeafProgram p;
  p.kernel = "sample_0";
  p.num_args = 2;
  p.num_gm = 2;
  p.gm_dtypes = {ElemType::f32, ElemType::f32};
  p.locals = {{LocalKind::GmStride, 0, 0}, {LocalKind::BufValid, 0, 0}, {LocalKind::BufValid, 0, 1}};
  p.buffers = {{Memory::UB, ElemType::f32, 0, 8 * 16 * 4}};
  auto instr = [](InstrKind k, int32_t x = 0, int32_t y = 0, Expr e = {}) {
    Instr in;
    in.kind = k;
    in.a = x;
    in.b = y;
    in.expr = std::move(e);
    return in;
  };
  Instr kb = instr(InstrKind::KernelBegin);
  kb.text = "sample_0";
  p.instrs.push_back(kb);
  p.instrs.push_back(instr(InstrKind::GmPtr, 0, int32_t(ElemType::f32)));
  p.instrs.push_back(instr(InstrKind::GmPtr, 1, int32_t(ElemType::f32)));
  p.instrs.push_back(instr(InstrKind::DefLocal, 0, 0, c(16)));
  p.instrs.push_back(instr(InstrKind::BufPtr, 0));
  p.instrs.push_back(instr(InstrKind::DefLocal, 1, 0, a(0)));
  p.instrs.push_back(instr(InstrKind::DefLocal, 2, 0, a(1)));
  const TParam f32{TParamKind::DType, int64_t(ElemType::f32)};
  p.instrs.push_back(call(Fn::TLOAD, {f32, ti(8), ti(16), TParam{TParamKind::Pad, 1}},
                          {buf(0), gm(0), val(c(0)), val(l(0)), val(l(1)), val(l(2))}));
  p.instrs.push_back(call(Fn::TBINARY,
                          {TParam{TParamKind::BinOp, 0}, f32, ti(8), ti(16), TParam{TParamKind::Bcast, 0},
                           TParam{TParamKind::Bcast, 0}},
                          {buf(0), buf(0), buf(0), val(l(1)), val(l(2))}));
  p.instrs.push_back(call(Fn::TSTORE, {f32, ti(8), ti(16), ti(0)}, {gm(1), buf(0), val(c(0)), val(l(0)), val(l(1)), val(l(2))}));
  p.instrs.push_back(instr(InstrKind::KernelEnd));
  return p;
}

}  // namespace ptoc::leaf::test
