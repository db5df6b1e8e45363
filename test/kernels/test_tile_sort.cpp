// --- sort --- TSORT / TSORT_IDX (kernels/host/pto_host_sort.h) against hand results and the evaluator's
// row sort (compiler/eval/eval_sort.cpp, written separately): the order (larger first, NaN above every
// number, ties by the lower index), the valid columns alone, the pad (-inf / +inf, index -1), the index
// base, carried indices (negative: no candidate), and a per-tile sort plus merge equal to one sort.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "compiler/eval/eval_sort.h"
#include "tile_test_util.h"

using namespace tt;

namespace {

template <typename T> T* ub(int64_t addr) { return PTO_UB(T, addr); }

}  // namespace

TEST_CASE("TSORT: larger first, NaN above every number, ties by the lower index, pads past the valid columns",
          "[kernels]") {
  constexpr int R = 2, C = 8, K = 6;
  float* s = ub<float>(0);
  const float nan = NAN, inf = INFINITY;
  const float rows[R][C] = {{1, 3, nan, 3, -inf, 3, 9, 9}, {2, 2, 2, -1, 5, 0, 0, 0}};
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) s[i * C + j] = rows[i][j];
  float* v = ub<float>(4096);
  int32_t* x = ub<int32_t>(8192);
  // Row 0's valid part is its first 6 columns (the 9s are padding); row 1's first 3 valid columns are
  // fewer than K: pads.
  TSORT<float, float, R, C, K, 1, 0, 0>(v, s, 1, 6);
  TSORT<int32_t, float, R, C, K, 1, 1, 0>(x, s, 1, 6);
  REQUIRE(std::isnan(v[0]));
  const float want_v[K - 1] = {3, 3, 3, 1, -inf};
  for (int p = 1; p < K; ++p) REQUIRE(v[p] == want_v[p - 1]);
  const int32_t want_x[K] = {2, 1, 3, 5, 0, 4};
  for (int p = 0; p < K; ++p) REQUIRE(x[p] == want_x[p]);
  // Smallest, index base 100, row 1 (3 valid): 2, 2, 2 then pads +inf / -1.
  TSORT<float, float, 1, C, K, 0, 0, 100>(v, s + C, 1, 3);
  TSORT<int32_t, float, 1, C, K, 0, 1, 100>(x, s + C, 1, 3);
  for (int p = 0; p < 3; ++p) REQUIRE((v[p] == 2 && x[p] == 100 + p));
  for (int p = 3; p < K; ++p) REQUIRE((v[p] == inf && x[p] == -1));
  // Smallest with a NaN: the NaN last.
  TSORT<int32_t, float, 1, C, K, 0, 1, 0>(x, s, 1, 6);
  const int32_t want_small[K] = {4, 0, 1, 3, 5, 2};
  for (int p = 0; p < K; ++p) REQUIRE(x[p] == want_small[p]);
}

TEST_CASE("TSORT_IDX merges candidates by their carried index and skips pads", "[kernels]") {
  constexpr int C = 6, K = 4;
  int32_t* s = ub<int32_t>(0);
  int32_t* c = ub<int32_t>(1024);
  int32_t* v = ub<int32_t>(2048);
  int32_t* x = ub<int32_t>(3072);
  // Two tiles' candidates: {7 @ 40, 5 @ 2, pad} and {7 @ 9, 7 @ 11, pad}: ties by the carried index.
  const int32_t vals[C] = {7, 5, INT32_MIN, 7, 7, INT32_MIN}, idx[C] = {40, 2, -1, 9, 11, -1};
  for (int j = 0; j < C; ++j) {
    s[j] = vals[j];
    c[j] = idx[j];
  }
  TSORT_IDX<int32_t, int32_t, 1, C, K, 1, 0, 0>(v, s, c, 1, C);
  TSORT_IDX<int32_t, int32_t, 1, C, K, 1, 1, 0>(x, s, c, 1, C);
  const int32_t want_v[K] = {7, 7, 7, 5}, want_x[K] = {9, 11, 40, 2};
  for (int p = 0; p < K; ++p) REQUIRE((v[p] == want_v[p] && x[p] == want_x[p]));
}

TEST_CASE("TSORT equals the evaluator's row sort, and per-tile sorts plus a merge equal one sort", "[kernels]") {
  constexpr int C = 512, T = 128, K = 96;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> few(-4, 4);  // many ties
  float* s = ub<float>(0);
  std::vector<ptoc::eval::Elem> row(C);
  for (int j = 0; j < C; ++j) {
    s[j] = j % 37 == 0 ? -INFINITY : float(few(rng)) * 0.5f;
    row[size_t(j)] = ptoc::eval::Elem::of_f(s[j]);
  }
  for (int largest = 0; largest < 2; ++largest) {
    int32_t* whole = ub<int32_t>(8192);
    if (largest) TSORT<int32_t, float, 1, C, K, 1, 1, 0>(whole, s, 1, C);
    else TSORT<int32_t, float, 1, C, K, 0, 1, 0>(whole, s, 1, C);
    std::vector<ptoc::eval::Elem> ev(K), ei(K);
    ptoc::eval::sort_row(row.data(), nullptr, 0, C, K, largest != 0, ptoc::DType::fp32, ev.data(), ei.data());
    for (int p = 0; p < K; ++p) REQUIRE(whole[p] == ei[size_t(p)].i());
    // Four tiles of 128, K candidates each with their original index, then the merge.
    float* cv = ub<float>(16384);
    int32_t* ci = ub<int32_t>(32768);
    for (int t = 0; t < C / T; ++t) {
      if (largest) {
        pto::host::tsort<float>(1, T, K, true, false, t * T, cv + t * K, s + t * T, nullptr, 1, T);
        pto::host::tsort<float>(1, T, K, true, true, t * T, ci + t * K, s + t * T, nullptr, 1, T);
      } else {
        pto::host::tsort<float>(1, T, K, false, false, t * T, cv + t * K, s + t * T, nullptr, 1, T);
        pto::host::tsort<float>(1, T, K, false, true, t * T, ci + t * K, s + t * T, nullptr, 1, T);
      }
    }
    int32_t* merged = ub<int32_t>(49152);
    pto::host::tsort<float>(1, C / T * K, K, largest != 0, true, 0, merged, cv, ci, 1, C / T * K);
    for (int p = 0; p < K; ++p) REQUIRE(merged[p] == whole[p]);
  }
}
