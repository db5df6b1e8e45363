// int16, uint16, uint32 and uint64 (PyPTO's DT_INT16 DT_UINT16 DT_UINT32 DT_UINT64, issue 13): names, sizes,
// rounding, .npy <i2 <u2 <u4 <u8 read and written bit-exact, and the evaluator's integer semantics
// (unsigned ordering past 2^31 / 2^63, NumPy's wrapping, uint64 division and saturating casts).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "program_builder.h"
#include "runtime/core/dtype.h"
#include "runtime/core/tensor_data.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

constexpr uint64_t k63 = uint64_t(1) << 63;

template <class T>
TensorData tensor_of(DType t, const std::vector<T>& v) {
  TensorData d = TensorData::zeros(t, {int64_t(v.size())});
  REQUIRE(d.bytes.size() == v.size() * sizeof(T));
  std::memcpy(d.bytes.data(), v.data(), d.bytes.size());
  return d;
}
template <class T>
std::vector<T> ints_of(const TensorData& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

std::string npy_error(const std::string& path, DType t) {
  try {
    read_npy_as(path, t, "w");
  } catch (const NpyError& e) {
    return e.what();
  }
  return "";
}

// y = k(a, b) over two vectors of dtype t, result dtype rt.
template <class T, class R = T>
std::vector<R> bin(OpKind k, DType t, const std::vector<T>& a, const std::vector<T>& b, DType rt) {
  ProgramBuilder pb;
  const int64_t n = int64_t(a.size());
  pb.input("a", t, {n});
  pb.input("b", t, {n});
  pb.output("y", rt, {n});
  const int v = pb.bin(k, pb.ref("a"), pb.ref("b"));
  pb.p.values.back().dtype = rt;
  pb.assemble("y", v, {0});
  return ints_of<R>(run(pb.p, {{"a", tensor_of(t, a)}, {"b", tensor_of(t, b)}}).at("y"));
}

}  // namespace

TEST_CASE("the new integer dtypes: names, sizes, signedness, rounding", "[dtype16]") {
  CHECK(parse_dtype("int16") == DType::int16);
  CHECK(parse_dtype("uint16") == DType::uint16);
  CHECK(parse_dtype("uint32") == DType::uint32);
  CHECK(parse_dtype("uint64") == DType::uint64);
  // appended: the numbering of the others (bundles, leaf programs) is unchanged
  CHECK(int(DType::int64) == 7);
  CHECK(int(DType::int16) == 8);
  CHECK(int(DType::uint64) == 11);
  CHECK(dtype_size(DType::int16) == 2);
  CHECK(dtype_size(DType::uint16) == 2);
  CHECK(dtype_size(DType::uint32) == 4);
  CHECK(dtype_size(DType::uint64) == 8);
  for (DType t : {DType::int16, DType::uint16, DType::uint32, DType::uint64}) {
    CHECK(dtype_is_int(t));
    CHECK_FALSE(dtype_is_float(t));
  }
  CHECK(dtype_is_unsigned(DType::uint16));
  CHECK(dtype_is_unsigned(DType::uint64));
  CHECK_FALSE(dtype_is_unsigned(DType::int16));
  // wrap like NumPy's astype of an integral value
  CHECK(round_to_dtype(32768.0, DType::int16) == -32768.0);
  CHECK(round_to_dtype(-1.0, DType::uint16) == 65535.0);
  CHECK(round_to_dtype(4294967296.0 + 3, DType::uint32) == 3.0);
  CHECK(round_to_dtype(-2.75, DType::uint32) == 4294967294.0);
  CHECK(round_to_dtype(1e30, DType::uint64) == 18446744073709551615.0);
  CHECK(round_to_dtype(NAN, DType::uint64) == 0.0);
}

TEST_CASE("npy <i2 <u2 <u4 <u8 round trips bit-exact; values that do not fit are refused", "[dtype16]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("ptoc_dtype16_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/w.npy";
  SECTION("uint64 past 2^63") {
    TensorData t = tensor_of<uint64_t>(DType::uint64, {k63 + 1, UINT64_MAX, 0, (uint64_t(1) << 53) + 1});
    write_npy(path, t);
    TensorData back = read_npy_as(path, DType::uint64, "w");
    CHECK(back.bytes == t.bytes);
    CHECK(npy_error(path, DType::int64).find("element 0 = 9223372036854775809 does not fit int64") !=
          std::string::npos);
    // an <i8 file with a negative element into uint64
    write_npy(path, tensor_of<int64_t>(DType::int64, {5, -1}));
    CHECK(npy_error(path, DType::uint64).find("element 1 = -1 does not fit uint64 [0, 18446744073709551615]") !=
          std::string::npos);
    CHECK(ints_of<uint64_t>(tensor_of<uint64_t>(DType::uint64, {5})) == std::vector<uint64_t>{5});
  }
  SECTION("int16, uint16, uint32") {
    TensorData a = tensor_of<int16_t>(DType::int16, {-32768, 32767, -1});
    write_npy(path, a);
    CHECK(read_npy_as(path, DType::int16, "w").bytes == a.bytes);
    CHECK(npy_error(path, DType::uint16).find("element 0 = -32768 does not fit uint16 [0, 65535]") !=
          std::string::npos);
    TensorData b = tensor_of<uint16_t>(DType::uint16, {65535, 0});
    write_npy(path, b);
    CHECK(read_npy_as(path, DType::uint16, "w").bytes == b.bytes);
    CHECK(npy_error(path, DType::int16).find("element 0 = 65535 does not fit int16") != std::string::npos);
    CHECK(ints_of<int32_t>(read_npy_as(path, DType::int32, "w")) == std::vector<int32_t>{65535, 0});
    TensorData c = tensor_of<uint32_t>(DType::uint32, {4294967295u, 2147483648u, 7});
    write_npy(path, c);
    CHECK(read_npy_as(path, DType::uint32, "w").bytes == c.bytes);
    CHECK(ints_of<uint64_t>(read_npy_as(path, DType::uint64, "w")) ==
          std::vector<uint64_t>{4294967295u, 2147483648u, 7});
    CHECK(npy_error(path, DType::int32).find("element 0 = 4294967295 does not fit int32") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("uint64 compares, maximum and division are unsigned past 2^63", "[dtype16]") {
  const std::vector<uint64_t> a = {k63 + 1, k63, 5, UINT64_MAX}, b = {k63, 1, k63, UINT64_MAX - 1};
  CHECK(bin<uint64_t, uint8_t>(OpKind::Gt, DType::uint64, a, b, DType::boolean) == std::vector<uint8_t>{1, 1, 0, 1});
  CHECK(bin<uint64_t, uint8_t>(OpKind::Lt, DType::uint64, a, b, DType::boolean) == std::vector<uint8_t>{0, 0, 1, 0});
  CHECK(bin<uint64_t, uint8_t>(OpKind::Eq, DType::uint64, a, b, DType::boolean) == std::vector<uint8_t>{0, 0, 0, 0});
  CHECK(bin<uint64_t>(OpKind::Maximum, DType::uint64, a, b, DType::uint64) ==
        std::vector<uint64_t>{k63 + 1, k63, k63, UINT64_MAX});
  CHECK(bin<uint64_t>(OpKind::Minimum, DType::uint64, a, b, DType::uint64) ==
        std::vector<uint64_t>{k63, 1, 5, UINT64_MAX - 1});
  // NumPy: np.uint64(2**64-1) // np.uint64(2) == 2**63 - 1; x // 0 == 0
  CHECK(bin<uint64_t>(OpKind::Div, DType::uint64, {UINT64_MAX, 7, 9}, {2, 0, 4}, DType::uint64) ==
        std::vector<uint64_t>{k63 - 1, 0, 2});
  // add / mul wrap at 2^64
  CHECK(bin<uint64_t>(OpKind::Add, DType::uint64, {UINT64_MAX, k63}, {2, k63}, DType::uint64) ==
        std::vector<uint64_t>{1, 0});
  CHECK(bin<uint64_t>(OpKind::Mul, DType::uint64, {k63 + 3}, {2}, DType::uint64) == std::vector<uint64_t>{6});
}

TEST_CASE("uint32 orders above 2^31; int16 and uint16 wrap as NumPy's", "[dtype16]") {
  CHECK(bin<uint32_t, uint8_t>(OpKind::Gt, DType::uint32, {2147483648u, 1}, {2147483647u, 4294967295u},
                               DType::boolean) == std::vector<uint8_t>{1, 0});
  CHECK(bin<uint32_t>(OpKind::Add, DType::uint32, {4294967295u}, {2}, DType::uint32) == std::vector<uint32_t>{1});
  CHECK(bin<int16_t>(OpKind::Add, DType::int16, {32767, -32768}, {1, -1}, DType::int16) ==
        std::vector<int16_t>{-32768, 32767});
  CHECK(bin<int16_t>(OpKind::Mul, DType::int16, {300}, {300}, DType::int16) == std::vector<int16_t>{24464});
  CHECK(bin<uint16_t>(OpKind::Sub, DType::uint16, {0}, {1}, DType::uint16) == std::vector<uint16_t>{65535});
  CHECK(bin<uint16_t>(OpKind::BitwiseXor, DType::uint16, {0xf0f0}, {0xffff}, DType::uint16) ==
        std::vector<uint16_t>{0x0f0f});
}

TEST_CASE("uint64 reductions, argmax and casts", "[dtype16]") {
  ProgramBuilder pb;
  pb.input("x", DType::uint64, {4});
  pb.input("f", DType::fp32, {4});
  pb.output("mx", DType::uint64, {1});
  pb.output("mn", DType::uint64, {1});
  pb.output("sum", DType::uint64, {1});
  pb.output("am", DType::int32, {1});
  pb.output("lo", DType::uint32, {4});
  pb.output("tof", DType::fp32, {4});
  pb.output("fromf", DType::uint64, {4});
  const int x = pb.ref("x");
  pb.assemble("mx", pb.reduce(OpKind::Amax, x, 0, true), {0});
  pb.assemble("mn", pb.reduce(OpKind::Amin, x, 0, true), {0});
  pb.assemble("sum", pb.reduce(OpKind::Sum, x, 0, true), {0});
  const int am = pb.reduce(OpKind::Argmax, x, 0, true);
  pb.p.values.back().dtype = DType::int32;
  pb.assemble("am", am, {0});
  pb.assemble("lo", pb.cast(x, DType::uint32), {0});
  pb.assemble("tof", pb.cast(x, DType::fp32), {0});
  pb.assemble("fromf", pb.cast(pb.ref("f"), DType::uint64), {0});
  auto out = run(pb.p, {{"x", tensor_of<uint64_t>(DType::uint64, {7, k63 + 5, k63 + (uint64_t(1) << 32) + 9, 3})},
                        {"f", tensor_of<float>(DType::fp32, {1e30f, 9.5f, 1.8446742974197924e19f, 2.5f})}});
  CHECK(ints_of<uint64_t>(out.at("mx")) == std::vector<uint64_t>{k63 + (uint64_t(1) << 32) + 9});
  CHECK(ints_of<uint64_t>(out.at("mn")) == std::vector<uint64_t>{3});
  CHECK(ints_of<uint64_t>(out.at("sum")) == std::vector<uint64_t>{(uint64_t(1) << 32) + 24});  // wraps
  CHECK(ints_of<int32_t>(out.at("am")) == std::vector<int32_t>{2});
  CHECK(ints_of<uint32_t>(out.at("lo")) == std::vector<uint32_t>{7, 5, 9, 3});
  CHECK(ints_of<float>(out.at("tof"))[1] == 9223372036854775808.0f);
  // fp32 -> uint64: round half to even (ptoc's cast without a mode), saturating past 2^64
  CHECK(ints_of<uint64_t>(out.at("fromf")) ==
        std::vector<uint64_t>{UINT64_MAX, 10, 18446742974197923840ull, 2});
}
