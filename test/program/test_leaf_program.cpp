// Leaf programs (runtime/program/leaf_program.h): encode/decode round trips, and verify refusing
// every kind of corruption with a message naming the kernel.
#include <catch2/catch.hpp>

#include "runtime/program/leaf_program.h"
#include "test/program/leaf_program_sample.h"

using namespace ptoc::leaf;
using namespace ptoc::leaf::test;

namespace {
std::string refusal(const LeafProgram& p) {
  try {
    verify_leaf_program(p);
  } catch (const LeafProgramError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("leaf program: encode, decode and encode again give the same bytes", "[leaf_program]") {
  LeafProgram p = sample_program();
  p.instrs.push_back(Instr{InstrKind::Comment, "// a comment"});
  std::vector<uint8_t> b = encode_leaf_program(p);
  REQUIRE(b.size() > 8);
  CHECK(std::string(b.begin(), b.begin() + 4) == "PTLP");
  LeafProgram q = decode_leaf_program(b.data(), b.size());
  CHECK(q.kernel == "sample_0");
  CHECK(q.num_args == 2);
  CHECK(q.instrs.size() == p.instrs.size());
  CHECK(q.instrs[7].fn == Fn::TLOAD);
  CHECK(q.instrs[7].tparams[1].v == 8);
  CHECK(encode_leaf_program(q) == b);
  CHECK_NOTHROW(verify_leaf_program(q));
}

TEST_CASE("leaf program: a real literal and negative constants survive the round trip", "[leaf_program]") {
  LeafProgram p = sample_program();
  Instr fill = call(Fn::TFILL, {TParam{TParamKind::DType, 0}, ti(8), ti(16)},
                    {buf(0), Operand{OperandKind::Real, 0, {}, -0.1}, val(c(-3)), val(c(16))});
  p.instrs.insert(p.instrs.end() - 1, fill);
  std::vector<uint8_t> b = encode_leaf_program(p);
  LeafProgram q = decode_leaf_program(b.data(), b.size());
  CHECK(q.instrs[q.instrs.size() - 2].operands[1].real == -0.1);
  CHECK(q.instrs[q.instrs.size() - 2].operands[2].expr.toks[0].v == -3);
}

TEST_CASE("leaf program: eval_expr follows the postfix tokens", "[leaf_program]") {
  const int64_t args[] = {5, 7};
  const int64_t locals[] = {3};
  // ((PTO_ARG(0) + 15) / 16 * 16) * l0 + PTO_ARG(1)
  Expr e{{{ExprOp::Arg, 0}, {ExprOp::Const, 15}, {ExprOp::Add, 0}, {ExprOp::Paren, 0}, {ExprOp::Const, 16},
          {ExprOp::Div, 0}, {ExprOp::Const, 16}, {ExprOp::Mul, 0}, {ExprOp::Paren, 0}, {ExprOp::Local, 0},
          {ExprOp::Mul, 0}, {ExprOp::Arg, 1}, {ExprOp::Add, 0}}};
  CHECK(eval_expr(e, args, locals) == 16 * 3 + 7);
}

TEST_CASE("leaf program: decode refuses truncated, foreign and trailing bytes", "[leaf_program]") {
  std::vector<uint8_t> b = encode_leaf_program(sample_program());
  CHECK_THROWS_WITH(decode_leaf_program(b.data(), b.size() - 3), Catch::Contains("truncated"));
  std::vector<uint8_t> x = b;
  x[0] = 'X';
  CHECK_THROWS_WITH(decode_leaf_program(x.data(), x.size()), Catch::Contains("PTLP"));
  x = b;
  x[4] = 9;  // version
  CHECK_THROWS_WITH(decode_leaf_program(x.data(), x.size()), Catch::Contains("version 9"));
  x = b;
  x.push_back(0);
  CHECK_THROWS_WITH(decode_leaf_program(x.data(), x.size()), Catch::Contains("trailing"));
}

TEST_CASE("leaf program: decode refuses an opcode out of range", "[leaf_program]") {
  LeafProgram p = sample_program();
  p.instrs[8].fn = Fn(77);
  std::vector<uint8_t> b = encode_leaf_program(p);
  CHECK_THROWS_WITH(decode_leaf_program(b.data(), b.size()), Catch::Contains("bad function 77"));
}

TEST_CASE("leaf program: verify refuses out-of-range indices, offsets and kinds", "[leaf_program]") {
  CHECK(refusal(sample_program()).empty());
  {
    LeafProgram p = sample_program();
    p.instrs[5].expr = a(5);  // PTO_ARG(5) of 2 args
    std::string m = refusal(p);
    CHECK_THAT(m, Catch::Contains("kernel 'sample_0'") && Catch::Contains("PTO_ARG(5)") && Catch::Contains("2 args"));
  }
  {
    LeafProgram p = sample_program();
    p.buffers[0].addr = 256 * 1024 - 16;  // runs past the UB
    CHECK_THAT(refusal(p), Catch::Contains("kernel 'sample_0'") && Catch::Contains("runs past"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs[8].operands[1].index = 3;  // buffer 3 of 1
    CHECK_THAT(refusal(p), Catch::Contains("buffer 3") && Catch::Contains("instruction 8"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs[9].operands[0].index = 2;  // GM slot 2 of 2
    CHECK_THAT(refusal(p), Catch::Contains("GM slot 2"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs[8].tparams[0].v = 18;  // PtoBinOp has 18 values (10, and mathops5's 8)
    CHECK_THAT(refusal(p), Catch::Contains("TBINARY") && Catch::Contains("out of range"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs[8].tparams[1].v = int64_t(ElemType::f16);  // buffers are fp32
    CHECK_THAT(refusal(p), Catch::Contains("another element type"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs[8].operands.pop_back();
    CHECK_THAT(refusal(p), Catch::Contains("wrong number"));
  }
  {
    LeafProgram p = sample_program();
    std::swap(p.instrs[5], p.instrs[7]);  // TLOAD reads b0_v0 before it is defined
    CHECK_THAT(refusal(p), Catch::Contains("before it is defined"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs[3].expr = Expr{{{ExprOp::Const, 1}, {ExprOp::Add, 0}}};
    CHECK_THAT(refusal(p), Catch::Contains("without two operands"));
  }
  {
    LeafProgram p = sample_program();
    p.instrs.pop_back();  // no kernel end
    CHECK_THAT(refusal(p), Catch::Contains("no complete kernel body"));
  }
}
