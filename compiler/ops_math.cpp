// The scalar meaning of the math binary ops (PyPTO's atan2 fmod remainder floor_div ceil_div gcd
// bitwise_left_shift bitwise_right_shift), the same rules as kernels/host/pto_host_ops.h's binop_math:
// the evaluator and the front end's folding use it, the conformance references restate it in NumPy.
#include <cmath>
#include <cstdint>

#include "compiler/ir.h"

namespace ptoc {

namespace {

// Floor division of integers; x // 0 is 0 (PyPTO leaves it to the chip).
int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return int64_t(0 - uint64_t(a));
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t gcd_abs(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - uint64_t(a) : uint64_t(a), y = b < 0 ? 0 - uint64_t(b) : uint64_t(b);
  while (y != 0) {
    const uint64_t t = x % y;
    x = y;
    y = t;
  }
  return int64_t(x);
}

}  // namespace

std::optional<double> scalar_binary_math(OpKind k, double a, double b, bool integer) {
  if (integer) {
    const int64_t x = int64_t(a), y = int64_t(b);
    switch (k) {
      case OpKind::Remainder: return y == 0 ? 0.0 : double(x - y * floor_div(x, y));
      case OpKind::FloorDiv: return double(floor_div(x, y));
      case OpKind::CeilDiv: return y == 0 ? 0.0 : double(-floor_div(-x, y));
      case OpKind::Gcd: return double(gcd_abs(x, y));
      // The low 32 bits (every shiftable dtype is at most 32 bits wide; the result wraps to it).
      case OpKind::BitwiseLeftShift: return y < 0 || y >= 32 ? 0.0 : double(int32_t(uint32_t(uint64_t(x) << y)));
      case OpKind::BitwiseRightShift: return y < 0 || y >= 64 ? (x < 0 ? -1.0 : 0.0) : double(x >> y);
      default: break;
    }
  }
  switch (k) {
    case OpKind::Atan2: return std::atan2(a, b);
    case OpKind::Fmod: return std::fmod(a, b);
    case OpKind::Remainder: {
      // a - b * floor(a / b) computed exactly: fmod, then moved into the divisor's sign (NumPy's rule).
      double r = std::fmod(a, b);
      if (r != 0) {
        if ((r < 0) != (b < 0)) r += b;
      } else {
        r = std::copysign(0.0, b);
      }
      return r;
    }
    case OpKind::FloorDiv: return double(std::floor(float(a) / float(b)));
    case OpKind::CeilDiv: return double(std::ceil(float(a) / float(b)));
    default: return std::nullopt;
  }
}

}  // namespace ptoc
