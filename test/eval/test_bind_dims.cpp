// Binding dims from input shapes and --dim: static dims, dynamic dims,
// conflicts naming both tensors and axes, max / divisible_by, static axes,
// plus the seeded input generator and NAME=VALUE parsing.
#include <catch2/catch.hpp>

#include <cmath>

#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

std::string bind_error(const Program& p, const std::map<std::string, std::vector<int64_t>>& arrays,
                       const std::map<std::string, int64_t>& dims = {}) {
  try {
    bind_dims(p.dims, p.tensors, arrays, dims);
  } catch (const BindError& e) {
    return e.what();
  }
  return "(no error)";
}

ProgramBuilder two_inputs() {
  ProgramBuilder b;
  b.dyn_dim("B");
  b.dyn_dim("S", 1024, 16);
  b.dim("H", 8);
  b.input("x", DType::fp32, {S("B"), S("H")});
  b.input("y", DType::fp16, {S("S"), S("B")});
  b.input("z", DType::fp32, {S("B") * 2});
  b.output("o", DType::fp32, {S("B"), S("S")});
  return b;
}

}  // namespace

TEST_CASE("static dims bind to their value and dynamic dims from input shapes", "[bind]") {
  auto b = two_inputs();
  auto env = bind_dims(b.p.dims, b.p.tensors, {{"x", {5, 8}}, {"y", {32, 5}}, {"z", {10}}}, {});
  CHECK(env.at("H") == 8);
  CHECK(env.at("B") == 5);
  CHECK(env.at("S") == 32);
  CHECK(concrete_shape(b.p.tensors[3], env) == std::vector<int64_t>{5, 32});
  CHECK(concrete_shape(b.p.tensors[2], env) == std::vector<int64_t>{10});
}

TEST_CASE("--dim binds a dim no given input binds, and must agree with the inputs", "[bind]") {
  auto b = two_inputs();
  auto env = bind_dims(b.p.dims, b.p.tensors, {{"x", {5, 8}}}, {{"S", 48}});
  CHECK(env.at("S") == 48);
  CHECK(bind_error(b.p, {{"x", {5, 8}}}, {{"B", 6}, {"S", 16}}) ==
        "dim B: --dim B=6 but input x axis 0 has 5");
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8}}}, {{"H", 9}, {"S", 16}}),
             Catch::Contains("--dim H=9: dim H is static with value 8"));
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8}}}, {{"Q", 1}}), Catch::Contains("no dim 'Q' (dims: B, S, H)"));
}

TEST_CASE("conflicting bindings name both tensors and axes", "[bind]") {
  auto b = two_inputs();
  CHECK(bind_error(b.p, {{"x", {64, 8}}, {"y", {32, 32}}}) == "dim B: input x axis 0 has 64 but input y axis 1 has 32");
}

TEST_CASE("a dim used only in an expression is checked against the binding", "[bind]") {
  auto b = two_inputs();
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8}}, {"y", {16, 5}}, {"z", {11}}}),
             Catch::Contains("input z axis 0 has 11") && Catch::Contains("B * 2 = 10"));
}

TEST_CASE("static axes must match, ranks must match", "[bind]") {
  auto b = two_inputs();
  CHECK_THAT(bind_error(b.p, {{"x", {5, 9}}, {"y", {16, 5}}}),
             Catch::Contains("input x axis 1 has 9") && Catch::Contains("declared [B, H] with H = 8"));
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8, 1}}}),
             Catch::Contains("input x: array has rank 3 (5, 8, 1) but the tensor is declared with rank 2 [B, H]"));
}

TEST_CASE("max and divisible_by are enforced", "[bind]") {
  auto b = two_inputs();
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8}}, {"y", {2048, 5}}}),
             Catch::Contains("dim S = 2048 (from input y axis 0) exceeds its declared max 1024"));
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8}}, {"y", {40, 5}}}),
             Catch::Contains("dim S = 40 (from input y axis 0) is not divisible by 16"));
}

TEST_CASE("an unbound dynamic dim says how to bind it", "[bind]") {
  auto b = two_inputs();
  CHECK_THAT(bind_error(b.p, {{"x", {5, 8}}}),
             Catch::Contains("dim S is dynamic and no input binds it (used by y, o)") && Catch::Contains("--dim S="));
}

TEST_CASE("random inputs are deterministic per seed, name and shape, and in range", "[bind]") {
  auto a = random_tensor(DType::fp32, {4, 16}, 7, "x");
  auto a2 = random_tensor(DType::fp32, {4, 16}, 7, "x");
  auto other_seed = random_tensor(DType::fp32, {4, 16}, 8, "x");
  auto other_name = random_tensor(DType::fp32, {4, 16}, 7, "y");
  CHECK(a.bytes == a2.bytes);
  CHECK(a.bytes != other_seed.bytes);
  CHECK(a.bytes != other_name.bytes);
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    lo = std::min(lo, a.get(i));
    hi = std::max(hi, a.get(i));
  }
  CHECK(lo >= -1);
  CHECK(hi < 1);
  CHECK(hi - lo > 1);  // spread over the range, not constant
  auto u = random_tensor(DType::uint8, {100}, 1, "u");
  auto bo = random_tensor(DType::boolean, {100}, 1, "m");
  int ones = 0;
  for (int64_t i = 0; i < 100; ++i) {
    CHECK(u.get(i) <= 16);
    ones += int(bo.get(i));
  }
  CHECK(ones > 20);
  CHECK(ones < 80);
}

TEST_CASE("random inputs hold the documented draw in every dtype, stored as TensorData::set stores it", "[bind]") {
  // The draw bind_dims.h documents, written out here: state = seed ^ FNV-1a(name), folded with the shape;
  // one splitmix64 per element; floats uniform in [-1, 1), signed integers -8..8, unsigned ones 0..16, bool r & 1.
  auto fnv1a = [](const std::string& s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
    return h;
  };
  auto splitmix64 = [](uint64_t& st) {
    uint64_t z = (st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const std::vector<int64_t> shape = {3, 37};
  for (DType t : kAllDTypes) {
    INFO(dtype_name(t));
    TensorData want = TensorData::zeros(t, shape);
    uint64_t st = 11 ^ fnv1a("w");
    for (int64_t e : shape) st = st * 0x100000001b3ull + uint64_t(e);
    for (int64_t i = 0; i < want.numel(); ++i) {
      const uint64_t r = splitmix64(st);
      const bool is_float = t == DType::fp32 || t == DType::fp16 || t == DType::bf16 || t == DType::fp8e4m3 ||
                            t == DType::fp8e5m2;
      const bool is_unsigned = t == DType::uint8 || t == DType::uint16 || t == DType::uint32 || t == DType::uint64;
      if (t == DType::fp8e8m0) {  // 2^-7 .. 2^7
        want.set(i, std::ldexp(1.0, int(r % 15) - 7));
        continue;
      }
      want.set(i, is_float ? double(r >> 11) * 0x1.0p-53 * 2.0 - 1.0
                  : is_unsigned ? double(r % 17) : t == DType::boolean ? double(r & 1) : double(int64_t(r % 17) - 8));
    }
    CHECK(random_tensor(t, shape, 11, "w").bytes == want.bytes);
  }
}

TEST_CASE("NAME=VALUE switches are parsed; malformed ones are refused", "[bind]") {
  auto m = parse_assignments({"x=a.npy", "y=b=c.npy"}, "--input");
  CHECK(m.at("x") == "a.npy");
  CHECK(m.at("y") == "b=c.npy");
  CHECK_THROWS_WITH(parse_assignments({"x"}, "--input"), "--input 'x': expected NAME=VALUE");
  CHECK_THROWS_WITH(parse_assignments({"=f.npy"}, "--output"), "--output '=f.npy': expected NAME=VALUE");
  CHECK_THROWS_WITH(parse_assignments({"x="}, "--dim"), "--dim 'x=': expected NAME=VALUE");
  CHECK_THROWS_WITH(parse_assignments({"x=1", "x=2"}, "--dim"), "--dim x is given twice");
}
