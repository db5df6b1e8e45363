// Integer semantics of the reference evaluator: exact int64 arithmetic that
// wraps (two's complement) like the kernels' integer stores, so results agree
// with NumPy's integer types bit for bit.
#include "compiler/eval/eval_elem.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptoc::eval {

int64_t wrap_int(int64_t x, DType t) {
  switch (t) {
    case DType::int32: return int32_t(uint32_t(uint64_t(x)));
    case DType::int8: return int8_t(uint8_t(uint64_t(x)));
    case DType::uint8: return uint8_t(uint64_t(x));
    case DType::int16: return int16_t(uint16_t(uint64_t(x)));
    case DType::uint16: return uint16_t(uint64_t(x));
    case DType::uint32: return int64_t(uint32_t(uint64_t(x)));
    case DType::boolean: return x != 0 ? 1 : 0;
    default: return x;
  }
}

Elem int_from_double(double v, DType t) {
  if (t == DType::boolean) return Elem::of_i(v != 0.0 ? 1 : 0);
  if (!std::isfinite(v)) return Elem::of_i(0);
  const double r = std::trunc(v);
  if (t == DType::int64) {
    // 2^63 itself does not fit; saturate as round_to_dtype does.
    if (r >= 9223372036854775808.0) return Elem::of_i(std::numeric_limits<int64_t>::max());
    if (r <= -9223372036854775808.0) return Elem::of_i(std::numeric_limits<int64_t>::min());
    return Elem::of_i(int64_t(r));
  }
  if (t == DType::uint64) {
    // [0, 2^64) exact; past the top saturates; a negative value in (-2^63, 0) wraps modulo 2^64 (as
    // round_to_dtype); below that 0.
    if (r >= 18446744073709551616.0) return Elem{~uint64_t(0)};
    if (r >= 0) return Elem{uint64_t(r)};
    if (r <= -9223372036854775808.0) return Elem{0};
    return Elem::of_i(int64_t(r));
  }
  // Narrow integers: through int64 and wrap (a value past int64 is already garbage on every side; clamp).
  const int64_t w = r >= 9223372036854775808.0    ? std::numeric_limits<int64_t>::max()
                    : r <= -9223372036854775808.0 ? std::numeric_limits<int64_t>::min()
                                                  : int64_t(r);
  return Elem::of_i(wrap_int(w, t));
}

Elem convert(Elem e, DType from, DType to) {
  if (held_as_int(from) && held_as_int(to)) return Elem::of_i(wrap_int(e.i(), to));
  return from_double(to_double(e, from), to);
}

namespace {
int64_t wadd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wsub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wmul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
}  // namespace

IntResult int_binary(OpKind k, int64_t a, int64_t b, bool u) {
  if (u) {
    const uint64_t x = uint64_t(a), y = uint64_t(b);
    switch (k) {
      case OpKind::Div: return {true, y == 0 ? 0 : int64_t(x / y)};  // NumPy: x // 0 is 0
      case OpKind::FloorDiv: return {true, y == 0 ? 0 : int64_t(x / y)};
      case OpKind::Remainder:
      case OpKind::Fmod: return {true, y == 0 ? 0 : int64_t(x % y)};
      case OpKind::CeilDiv: return {true, y == 0 ? 0 : int64_t(x / y + (x % y != 0))};
      case OpKind::Maximum: return {true, int64_t(std::max(x, y))};
      case OpKind::Minimum: return {true, int64_t(std::min(x, y))};
      case OpKind::Lt: return {true, x < y};
      case OpKind::Le: return {true, x <= y};
      case OpKind::Gt: return {true, x > y};
      case OpKind::Ge: return {true, x >= y};
      case OpKind::BitwiseRightShift: return {true, b < 0 || y >= 64 ? 0 : int64_t(x >> y)};  // logical
      case OpKind::BitwiseLeftShift: return {true, b < 0 || y >= 64 ? 0 : int64_t(x << y)};
      default: break;  // add sub mul, bitwise, eq / ne, logical: the same bits as signed
    }
  }
  switch (k) {
    case OpKind::Add: return {true, wadd(a, b)};
    case OpKind::Sub: return {true, wsub(a, b)};
    case OpKind::Mul: return {true, wmul(a, b)};
    case OpKind::Div:  // truncates toward zero; x / 0 is 0; INT64_MIN / -1 wraps
      if (b == 0) return {true, 0};
      if (b == -1) return {true, wsub(0, a)};
      return {true, a / b};
    case OpKind::Maximum: return {true, std::max(a, b)};
    case OpKind::Minimum: return {true, std::min(a, b)};
    case OpKind::BitwiseAnd: return {true, a & b};
    case OpKind::BitwiseOr: return {true, a | b};
    case OpKind::BitwiseXor: return {true, a ^ b};
    case OpKind::Eq: return {true, a == b};
    case OpKind::Ne: return {true, a != b};
    case OpKind::Lt: return {true, a < b};
    case OpKind::Le: return {true, a <= b};
    case OpKind::Gt: return {true, a > b};
    case OpKind::Ge: return {true, a >= b};
    case OpKind::LogicalAnd: return {true, a != 0 && b != 0};
    case OpKind::LogicalOr: return {true, a != 0 || b != 0};
    default: return {};
  }
}

IntResult int_unary(OpKind k, int64_t a, bool u) {
  if (u) {
    switch (k) {
      case OpKind::Abs:
      case OpKind::Relu: return {true, a};
      case OpKind::Sign: return {true, a != 0};
      case OpKind::Signbit: return {true, 0};
      default: break;
    }
  }
  switch (k) {
    case OpKind::Neg: return {true, wsub(0, a)};
    case OpKind::Abs: return {true, a < 0 ? wsub(0, a) : a};
    case OpKind::Relu: return {true, std::max<int64_t>(a, 0)};
    case OpKind::Sign: return {true, (a > 0) - (a < 0)};
    case OpKind::Isfinite: return {true, 1};
    case OpKind::LogicalNot: return {true, a == 0};
    case OpKind::BitwiseNot: return {true, ~a};
    case OpKind::Signbit: return {true, a < 0};
    case OpKind::Round:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Trunc: return {true, a};
    default: return {};
  }
}

}  // namespace ptoc::eval
