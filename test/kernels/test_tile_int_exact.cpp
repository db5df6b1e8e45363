// Integer tile ops of the host twin are exact (issue 13): a cast between integer types keeps the low bits of an
// int64 past 2^53 (NumPy's astype), an int32 multiply wraps its full product, and integer reductions sum /
// multiply in wrapping int64 (through double each of these rounded first).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "tile_test_util.h"

namespace {
constexpr int64_t k62 = int64_t(1) << 62;
}

TEST_CASE("TCAST int64 -> int32 / int8 keeps the low bits past 2^53", "[kernels][int_exact]") {
  alignas(64) int64_t s[8] = {k62 + 5, k62 + (int64_t(1) << 32) - 1, -k62 - 129, k62 + 2, (int64_t(1) << 53) + 1,
                              -1, INT64_MIN, INT64_MAX};
  alignas(64) int32_t d[8] = {};
  alignas(64) int8_t b[8] = {};
  alignas(64) int64_t back[8] = {};
  TCAST<int32_t, int64_t, 1, 8>(d, s, 1, 8);
  TCAST<int8_t, int64_t, 1, 8>(b, s, 1, 8);
  TCAST<int64_t, int32_t, 1, 8>(back, d, 1, 8);
  CHECK(std::vector<int32_t>(d, d + 8) == std::vector<int32_t>{5, -1, -129, 2, 1, -1, 0, -1});
  CHECK(std::vector<int8_t>(b, b + 8) == std::vector<int8_t>{5, -1, 127, 2, 1, -1, 0, -1});
  CHECK(std::vector<int64_t>(back, back + 8) == std::vector<int64_t>{5, -1, -129, 2, 1, -1, 0, -1});
}

TEST_CASE("TBINARY / TBINARY_S int32 mul wraps the full product", "[kernels][int_exact]") {
  alignas(64) int32_t a[8] = {2147483647, -2147483647 - 1, 46341, 3, -7, 65536, 65537, 0};
  alignas(64) int32_t d[8] = {}, e[8] = {};
  TBINARY<PTO_MUL, int32_t, 1, 8, PTO_BC_NONE, PTO_BC_NONE>(d, a, a, 1, 8);
  // NumPy: np.int32 products wrap: (2^31 - 1)^2 -> 1, (-2^31)^2 -> 0, 46341^2 -> -2147479015
  CHECK(std::vector<int32_t>(d, d + 8) ==
        std::vector<int32_t>{1, 0, -2147479015, 9, 49, 0, 131073, 0});
  TBINARY_S<PTO_MUL, int32_t, 1, 8, 0>(e, a, 2147483647.0, 1, 8);
  CHECK(e[0] == 1);
  CHECK(e[2] == int32_t(uint32_t(uint64_t(46341) * 2147483647u)));
}

TEST_CASE("TREDUCE of int64 and int32 is exact and wraps", "[kernels][int_exact]") {
  alignas(64) int64_t x[2 * 8] = {k62 + 1, 2, 3, 4, 5, 6, 7, 8, k62 + 1, k62, k62, k62, 1, 0, 0, 0};
  alignas(64) int64_t rows[2] = {}, cols[8] = {}, mx[2] = {};
  TREDUCE<PTO_RSUM, int64_t, 2, 8, 1>(rows, x, 2, 8);
  CHECK(rows[0] == k62 + 36);
  CHECK(rows[1] == int64_t(uint64_t(4) * uint64_t(k62) + 2));  // 2^64 + 2 wraps to 2
  TREDUCE<PTO_RSUM, int64_t, 2, 8, 0>(cols, x, 2, 8);
  CHECK(cols[0] == int64_t(uint64_t(2) * uint64_t(k62) + 2));
  CHECK(cols[1] == k62 + 2);
  TREDUCE<PTO_RMAX, int64_t, 2, 8, 1>(mx, x, 2, 8);
  CHECK(mx[0] == k62 + 1);
  alignas(64) int32_t p[8] = {65536, 65536, 3, 1, 1, 1, 1, 1};
  alignas(64) int32_t pr[1] = {};
  TREDUCE<PTO_RPROD, int32_t, 1, 8, 1>(pr, p, 1, 8);
  CHECK(pr[0] == 0);  // 2^32 * 3 wraps to 0 in int32
}
