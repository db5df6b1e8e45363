// In-place outputs in the bundle (GmTensor::inplace): the field round-trips, the verifier refuses a pair that
// cannot be one buffer, and layout_gm gives the output its input's memory.
#include <catch2/catch.hpp>

#include "programs.h"
#include "runtime/control_flow.h"
#include "runtime/program/bundle.h"

using namespace ptoc;
using namespace ptoc::runtime;

namespace {

// flip_program's tensors: x (input 0), y (input 1), ws, out (output 3), temps.
CompiledProgram inplace_program() {
  CompiledProgram p = test::flip_program();
  p.tensors[3].inplace = 1;
  return p;
}

std::string error_of(const CompiledProgram& p) {
  try {
    decode_bundle(encode_bundle(p, {}), "op.bundle");
  } catch (const BundleError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("inplace: round trip, and absent when not declared", "[inplace]") {
  const CompiledProgram p = inplace_program();
  const LoadedBundle b = decode_bundle(encode_bundle(p, {}), "op.bundle");
  CHECK(b.program.tensors[3].inplace == 1);
  CHECK(b.program.tensors[0].inplace == -1);
  CHECK(b.program.tensors[1].inplace == -1);
  // A bundle without in-place outputs has no "inplace" key: its bytes are those of before the field.
  const auto plain = encode_bundle(test::flip_program(), {});
  CHECK(std::string(plain.begin(), plain.end()).find("\"inplace\"") == std::string::npos);
}

TEST_CASE("inplace: the verifier refuses what cannot be one buffer", "[inplace]") {
  CHECK(error_of(inplace_program()).empty());
  CompiledProgram p = inplace_program();
  p.tensors[3].inplace = 2;  // the workspace
  CHECK_THAT(error_of(p), Catch::Contains("tensor 'out' (#3): in place of tensor #2, which is not an input"));
  p = inplace_program();
  p.tensors[3].inplace = 99;
  CHECK_THAT(error_of(p), Catch::Contains("in place of tensor #99, which is not an input"));
  p = inplace_program();
  p.tensors[0].inplace = 1;  // on an input
  CHECK_THAT(error_of(p), Catch::Contains("tensor 'x' (#0): in place of tensor #1"));
  p = inplace_program();
  p.tensors[1].dtype = DType::fp16;
  CHECK_THAT(error_of(p), Catch::Contains("output 'out' is in place of input 'y' but their dtype, shape or format differ"));
  p = inplace_program();
  p.tensors[1].shape[1] = DimExpr(32);
  CHECK_THAT(error_of(p), Catch::Contains("their dtype, shape or format differ"));
  p = inplace_program();
  p.tensors[2].role = GmTensor::Role::Output;
  p.tensors[2].inplace = 1;
  CHECK_THAT(error_of(p), Catch::Contains("input 'y' is updated in place by two outputs, 'ws' and 'out'"));
}

TEST_CASE("inplace: layout_gm gives the output its input's base", "[inplace]") {
  const CompiledProgram p = inplace_program();
  const DimExpr::Env env{{"N", 32}, {"C", 64}};
  const GmLayout l = layout_gm(p, env);
  const GmLayout plain = layout_gm(test::flip_program(), env);
  CHECK(l.base[3] == l.base[1]);
  CHECK(l.base[0] != l.base[1]);
  CHECK(l.base[2] != l.base[1]);
  CHECK(plain.base[3] != plain.base[1]);
  // The output takes no memory of its own: the pool starts no later than without it.
  CHECK(l.pool_base <= plain.pool_base);
}
