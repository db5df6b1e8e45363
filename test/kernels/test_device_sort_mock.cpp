// --- sort --- The device mapping of TSORT / TSORT_IDX (kernels/device/pto_device_sort.h), compiled for the
// host over stand-ins of the CCE names it uses (no toolkit here), against the evaluator's row sort
// (compiler/eval/eval_sort.cpp): the same order, pads and carried indices, for fp32, fp16-like and integers.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "compiler/eval/eval_sort.h"

#define __aicore__
#define __ubuf__
// fp16 / bf16 stand-ins: the device converts them to fp32 to compare (SortKey).
struct half {
  float f = 0;
  half() = default;
  half(float x) : f(x) {}
  operator float() const { return f; }
};
struct bfloat16_t {
  float f = 0;
  bfloat16_t() = default;
  bfloat16_t(float x) : f(x) {}
  operator float() const { return f; }
};
namespace pto_dev {
inline void scalar_begin() {}
inline void scalar_end() {}
template <typename T> struct IsFloat {
  static constexpr bool value = __is_same(T, float) || __is_same(T, half) || __is_same(T, bfloat16_t);
};
}  // namespace pto_dev
#include "kernels/device/pto_device_sort.h"

namespace {

constexpr int C = 40, K = 48;  // K past the valid columns: pads

template <typename T>
void check_rows(ptoc::DType dt, std::vector<T> row, int64_t vc, bool with_idx) {
  std::vector<int32_t> carried(C);
  for (int j = 0; j < C; ++j) carried[size_t(j)] = j % 5 == 4 ? -1 : 3 * j + 1;  // some pads
  std::vector<ptoc::eval::Elem> er(C), ec(C);
  for (int j = 0; j < C; ++j) {
    er[size_t(j)] = ptoc::eval::held_as_int(dt) ? ptoc::eval::Elem::of_i(int64_t(row[size_t(j)]))
                                                : ptoc::eval::Elem::of_f(double(float(row[size_t(j)])));
    ec[size_t(j)] = ptoc::eval::Elem::of_i(carried[size_t(j)]);
  }
  for (int largest = 0; largest < 2; ++largest) {
    std::vector<T> v(K);
    std::vector<int32_t> x(K);
    if (with_idx && largest) {
      TSORT_IDX<T, T, 1, C, K, 1, 0, 0>(v.data(), row.data(), carried.data(), 1, vc);
      TSORT_IDX<int32_t, T, 1, C, K, 1, 1, 0>(x.data(), row.data(), carried.data(), 1, vc);
    } else if (with_idx) {
      TSORT_IDX<T, T, 1, C, K, 0, 0, 0>(v.data(), row.data(), carried.data(), 1, vc);
      TSORT_IDX<int32_t, T, 1, C, K, 0, 1, 0>(x.data(), row.data(), carried.data(), 1, vc);
    } else if (largest) {
      TSORT<T, T, 1, C, K, 1, 0, 7>(v.data(), row.data(), 1, vc);
      TSORT<int32_t, T, 1, C, K, 1, 1, 7>(x.data(), row.data(), 1, vc);
    } else {
      TSORT<T, T, 1, C, K, 0, 0, 7>(v.data(), row.data(), 1, vc);
      TSORT<int32_t, T, 1, C, K, 0, 1, 7>(x.data(), row.data(), 1, vc);
    }
    std::vector<ptoc::eval::Elem> ev(K), ei(K);
    ptoc::eval::sort_row(er.data(), with_idx ? ec.data() : nullptr, 7, vc, K, largest != 0, dt, ev.data(), ei.data());
    for (int p = 0; p < K; ++p) {
      INFO("largest " << largest << " idx " << with_idx << " p " << p);
      REQUIRE(x[size_t(p)] == ei[size_t(p)].i());
      if (ptoc::eval::held_as_int(dt)) {
        REQUIRE(int64_t(v[size_t(p)]) == ev[size_t(p)].i());
      } else {
        const double a = double(float(v[size_t(p)])), b = ev[size_t(p)].f();
        REQUIRE(((std::isnan(a) && std::isnan(b)) || a == b));
      }
    }
  }
}

}  // namespace

TEST_CASE("the device TSORT matches the evaluator: order, NaN, ties, pads, carried indices", "[kernels]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> few(-3, 3);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t vc = 1 + trial % C;
    std::vector<float> f(C);
    std::vector<half> h(C);
    std::vector<int8_t> q(C);
    std::vector<int32_t> w(C);
    for (int j = 0; j < C; ++j) {
      const int r = few(rng);
      f[size_t(j)] = r == 3 ? NAN : r == -3 ? -INFINITY : float(r) * 0.5f;
      h[size_t(j)] = half(float(r));
      q[size_t(j)] = int8_t(r * 40);
      w[size_t(j)] = r * 1000003;
    }
    for (bool with_idx : {false, true}) {
      check_rows<float>(ptoc::DType::fp32, f, vc, with_idx);
      check_rows<half>(ptoc::DType::fp32, h, vc, with_idx);
      check_rows<int8_t>(ptoc::DType::int8, q, vc, with_idx);
      check_rows<int32_t>(ptoc::DType::int32, w, vc, with_idx);
    }
  }
}
