// Integers in the reference evaluator are exact (issue 13): int64 values past 2^53 survive data movement and
// integer ops compute in wrapping integer arithmetic, as NumPy's int64 / int32; --check's comparison of an
// integer output is bit for bit (through double, 2^62 + 1 and 2^62 compare equal).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "compiler/eval/eval_elem.h"
#include "compiler/eval/run_check.h"
#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

constexpr int64_t k62 = int64_t(1) << 62;

TensorData i64(std::vector<int64_t> shape, const std::vector<int64_t>& v) {
  TensorData t = TensorData::zeros(DType::int64, std::move(shape));
  REQUIRE(t.bytes.size() == v.size() * 8);
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}
template <class T>
std::vector<T> ints_of(const TensorData& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

// y = k(a, b) over two int64 vectors (the evaluator's own integer path; the front end refuses int64 arithmetic,
// but the lowering of casts and index clamps uses maximum / minimum on it).
std::vector<int64_t> bin64(OpKind k, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  ProgramBuilder pb;
  const int64_t n = int64_t(a.size());
  pb.input("a", DType::int64, {n});
  pb.input("b", DType::int64, {n});
  pb.output("y", DType::int64, {n});
  pb.assemble("y", pb.bin(k, pb.ref("a"), pb.ref("b")), {0});
  return ints_of<int64_t>(run(pb.p, {{"a", i64({n}, a)}, {"b", i64({n}, b)}}).at("y"));
}

}  // namespace

TEST_CASE("int64 past 2^53 survives transpose, concat, view and assemble bit for bit", "[int64exact]") {
  ProgramBuilder pb;
  pb.input("x", DType::int64, {2, 3});
  pb.output("t", DType::int64, {3, 2});
  pb.output("c", DType::int64, {4, 3});
  pb.output("v", DType::int64, {2, 3});
  const int x = pb.ref("x");
  pb.assemble("t", pb.transpose(x, 0, 1), {0, 0});
  pb.assemble("c", pb.concat({x, x}, 0), {0, 0});
  pb.assemble("v", x, {0, 0});
  pb.assemble("v", pb.view(x, {1, 2}, {1, 1}), {0, 0});
  const std::vector<int64_t> in = {k62 + 1, k62 + 2, -k62 - 3, std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min(), (int64_t(1) << 53) + 1};
  auto out = run(pb.p, {{"x", i64({2, 3}, in)}});
  CHECK(ints_of<int64_t>(out.at("t")) == std::vector<int64_t>{in[0], in[3], in[1], in[4], in[2], in[5]});
  CHECK(ints_of<int64_t>(out.at("c")) == std::vector<int64_t>{in[0], in[1], in[2], in[3], in[4], in[5],
                                                               in[0], in[1], in[2], in[3], in[4], in[5]});
  CHECK(ints_of<int64_t>(out.at("v")) == std::vector<int64_t>{in[4], in[5], in[2], in[3], in[4], in[5]});
}

TEST_CASE("int64 add, sub and mul wrap at 2^64; comparisons, max, min exact", "[int64exact]") {
  const int64_t mx = std::numeric_limits<int64_t>::max(), mn = std::numeric_limits<int64_t>::min();
  CHECK(bin64(OpKind::Add, {k62 + 1, mx, -1}, {k62, 1, mn}) == std::vector<int64_t>{mn + 1, mn, mx});
  CHECK(bin64(OpKind::Sub, {mn, k62 + 1}, {1, k62}) == std::vector<int64_t>{mx, 1});
  // (2^62 + 3) * 3 = 3 * 2^62 + 9 wraps to -2^62 + 9 (NumPy int64)
  CHECK(bin64(OpKind::Mul, {k62 + 3, (int64_t(1) << 32) + 1}, {3, (int64_t(1) << 32) - 1}) ==
        std::vector<int64_t>{-k62 + 9, -1});
  CHECK(bin64(OpKind::Maximum, {k62 + 1, -k62 - 2}, {k62, -k62 - 1}) == std::vector<int64_t>{k62 + 1, -k62 - 1});
  CHECK(bin64(OpKind::Minimum, {k62 + 1, -k62 - 2}, {k62, -k62 - 1}) == std::vector<int64_t>{k62, -k62 - 2});
  CHECK(bin64(OpKind::Div, {mn, k62 + 7, 5}, {-1, 2, 0}) == std::vector<int64_t>{mn, (k62 + 7) / 2, 0});
  // Through double, 2^62 + 1 == 2^62; exactly they differ.
  ProgramBuilder pb;
  pb.input("a", DType::int64, {2});
  pb.input("b", DType::int64, {2});
  pb.output("y", DType::boolean, {2});
  pb.assemble("y", pb.bin(OpKind::Eq, pb.ref("a"), pb.ref("b")), {0});
  pb.p.values.back().dtype = DType::boolean;
  auto out = run(pb.p, {{"a", i64({2}, {k62 + 1, k62})}, {"b", i64({2}, {k62, k62})}});
  CHECK(ints_of<uint8_t>(out.at("y")) == std::vector<uint8_t>{0, 1});
}

TEST_CASE("int32 mul and cumsum-like add chains wrap as NumPy's int32, past 2^53 products too", "[int64exact]") {
  ProgramBuilder pb;
  pb.input("a", DType::int32, {3});
  pb.output("m", DType::int32, {3});
  pb.output("s", DType::int32, {3});
  const int a = pb.ref("a");
  pb.assemble("m", pb.bin(OpKind::Mul, a, a), {0});
  pb.assemble("s", pb.bin(OpKind::Add, pb.bin(OpKind::Add, a, a), a), {0});
  TensorData in = TensorData::zeros(DType::int32, {3});
  const int32_t v[3] = {2147483647, -2147483647 - 1, 46341};
  std::memcpy(in.bytes.data(), v, sizeof v);
  auto out = run(pb.p, {{"a", in}});
  // NumPy: np.int32(2147483647) ** 2 -> 1; (-2^31) ** 2 -> 0; 46341 ** 2 = 2147488281 -> -2147479015
  CHECK(ints_of<int32_t>(out.at("m")) == std::vector<int32_t>{1, 0, -2147479015});
  CHECK(ints_of<int32_t>(out.at("s")) == std::vector<int32_t>{2147483645, -2147483647 - 1, 139023});
}

TEST_CASE("casts between integer types wrap exactly; int64 reductions exact", "[int64exact]") {
  ProgramBuilder pb;
  pb.input("x", DType::int64, {4});
  pb.output("lo", DType::int32, {4});
  pb.output("b8", DType::int8, {4});
  pb.output("sum", DType::int64, {1});
  pb.output("mx", DType::int64, {1});
  pb.output("f", DType::fp32, {4});
  const int x = pb.ref("x");
  pb.assemble("lo", pb.cast(x, DType::int32), {0});
  pb.assemble("b8", pb.cast(x, DType::int8), {0});
  pb.assemble("sum", pb.reduce(OpKind::Sum, x, 0, true), {0});
  pb.assemble("mx", pb.reduce(OpKind::Amax, x, 0, true), {0});
  pb.assemble("f", pb.cast(x, DType::fp32), {0});
  auto out = run(pb.p, {{"x", i64({4}, {k62 + 5, k62 + (int64_t(1) << 32) - 1, -k62 - 129, k62 + 2})}});
  CHECK(ints_of<int32_t>(out.at("lo")) == std::vector<int32_t>{5, -1, -129, 2});
  CHECK(ints_of<int8_t>(out.at("b8")) == std::vector<int8_t>{5, -1, 127, 2});
  // 2^62 + 5 + 2^62 + 2^32 - 1 - 2^62 - 129 + 2^62 + 2 = 2^63 + 2^32 - 123, wrapped
  CHECK(ints_of<int64_t>(out.at("sum")) ==
        std::vector<int64_t>{int64_t(uint64_t(1) << 63) + (int64_t(1) << 32) - 123});
  CHECK(ints_of<int64_t>(out.at("mx")) == std::vector<int64_t>{k62 + (int64_t(1) << 32) - 1});
  CHECK(ints_of<float>(out.at("f"))[0] == 4611686018427387904.0f);
}

TEST_CASE("--check compares integer outputs bit for bit", "[int64exact]") {
  TensorData ref = i64({2}, {k62 + 1, 7});
  TensorData same = i64({2}, {k62 + 1, 7});
  TensorData off = i64({2}, {k62, 7});  // equal through double
  CheckLine ok = compare_output("y", same, ref);
  CHECK(ok.ok);
  CHECK(ok.text.find("exact") != std::string::npos);
  CheckLine bad = compare_output("y", off, ref);
  CHECK_FALSE(bad.ok);
  CHECK(bad.text.find("1 of 2 elements off; first at [0]: got 4611686018427387904, expected 4611686018427387905") !=
        std::string::npos);
  CHECK(bad.text.find("max abs err 1 ") != std::string::npos);
  // bool and int8 outputs too
  TensorData b1 = TensorData::zeros(DType::int8, {3}), b2 = TensorData::zeros(DType::int8, {3});
  b2.bytes[2] = 0x80;
  CheckLine b = compare_output("q", b2, b1);
  CHECK_FALSE(b.ok);
  CHECK(b.text.find("first at [2]: got -128, expected 0") != std::string::npos);
}

TEST_CASE("eval_elem: from_double saturates int64 and wraps narrower types as round_to_dtype", "[int64exact]") {
  using namespace ptoc::eval;
  CHECK(from_double(1e30, DType::int64).i() == std::numeric_limits<int64_t>::max());
  CHECK(from_double(-1e30, DType::int64).i() == std::numeric_limits<int64_t>::min());
  CHECK(from_double(9223372036854775808.0, DType::int64).i() == std::numeric_limits<int64_t>::max());
  CHECK(from_double(-2.75, DType::int32).i() == -2);
  CHECK(from_double(4294967301.0, DType::int32).i() == 5);
  CHECK(from_double(NAN, DType::int8).i() == 0);
  CHECK(from_double(0.5, DType::boolean).i() == 1);
  for (double v : {-3.5, 1e10, 300.0, -129.0})
    for (DType t : {DType::int32, DType::int8, DType::uint8})
      CHECK(double(from_double(v, t).i()) == round_to_dtype(v, t));
}
