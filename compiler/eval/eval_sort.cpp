// --- sort --- The evaluator's row sort: see eval_sort.h.
#include "compiler/eval/eval_sort.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ptoc::eval {
namespace {

// The pad of a row with fewer than k candidates: what ranks last.
Elem pad_value(DType t, bool largest) {
  if (!held_as_int(t)) return Elem::of_f(largest ? -INFINITY : INFINITY);
  switch (t) {
    case DType::int8: return Elem::of_i(largest ? -128 : 127);
    case DType::uint8: return Elem::of_i(largest ? 0 : 255);
    case DType::int16: return Elem::of_i(largest ? -32768 : 32767);
    case DType::uint16: return Elem::of_i(largest ? 0 : 65535);
    case DType::int32: return Elem::of_i(largest ? INT32_MIN : INT32_MAX);
    case DType::uint32: return Elem::of_i(largest ? 0 : int64_t(UINT32_MAX));
    case DType::uint64: return Elem::of_i(largest ? 0 : -1);  // the bit pattern of 2^64 - 1
    default: return Elem::of_i(largest ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
  }
}

}  // namespace

void sort_row(const Elem* row, const Elem* carried, int64_t base, int64_t n, int64_t k, bool largest, DType t,
              Elem* out_values, Elem* out_indices) {
  struct Cand {
    int64_t at, tie;
  };
  std::vector<Cand> c;
  c.reserve(size_t(std::max<int64_t>(n, 0)));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t tie = carried ? carried[j].i() : base + j;
    if (tie >= 0) c.push_back({j, tie});
  }
  const bool integer = held_as_int(t);
  auto before = [&](const Cand& a, const Cand& b) {
    const Elem x = row[a.at], y = row[b.at];
    if (integer) {
      if (x.i() != y.i()) return largest ? int_less(y.i(), x.i(), t) : int_less(x.i(), y.i(), t);
    } else {
      const double u = x.f(), v = y.f();
      const bool nu = std::isnan(u), nv = std::isnan(v);
      if (nu != nv) return largest ? nu : nv;  // NaN ranks above every number
      if (!nu && u != v) return largest ? u > v : u < v;
    }
    return a.tie < b.tie;
  };
  const size_t take = std::min(size_t(std::max<int64_t>(k, 0)), c.size());
  std::partial_sort(c.begin(), c.begin() + std::ptrdiff_t(take), c.end(), before);
  const Elem pad = pad_value(t, largest);
  for (int64_t p = 0; p < k; ++p) {
    const bool real = size_t(p) < take;
    if (out_values) out_values[p] = real ? row[c[size_t(p)].at] : pad;
    if (out_indices) out_indices[p] = Elem::of_i(real ? c[size_t(p)].tie : -1);
  }
}

}  // namespace ptoc::eval
