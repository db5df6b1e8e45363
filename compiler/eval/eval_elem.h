// One element of a reference-evaluator value: a float value held as a double,
// or an integer / bool value held as an int64, chosen by the value's dtype.
// Integers are held exactly (an int64 past 2^53 keeps every bit), so data
// movement copies them unchanged and integer ops compute in integer
// arithmetic. Private to compiler/eval.
#pragma once
#include <cstdint>
#include <cstring>

#include "compiler/ir.h"
#include "runtime/core/dtype.h"

namespace ptoc::eval {

// Integer dtypes and bool: held as int64 (bool as 0 / 1); uint64 as its bit pattern (a value past 2^63
// reads negative through i(): its ordering, division and conversion to double ask `unsigned64`).
inline bool held_as_int(DType t) {  // inline: asked per element
  switch (t) {
    case DType::int32:
    case DType::int8:
    case DType::uint8:
    case DType::int64:
    case DType::int16:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64:
    case DType::boolean: return true;
    default: return false;
  }
}

struct Elem {
  uint64_t bits = 0;
  static Elem of_f(double v) {
    Elem e;
    std::memcpy(&e.bits, &v, sizeof v);
    return e;
  }
  static Elem of_i(int64_t v) { return Elem{uint64_t(v)}; }
  double f() const {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  int64_t i() const { return int64_t(bits); }
};
static_assert(sizeof(Elem) == 8);

// An int64 wrapped to the width of `t` (two's complement), as the kernels store integers; bool is x != 0.
int64_t wrap_int(int64_t x, DType t);
// A double into `t`'s representation: floats rounded (round_to_dtype); integers truncated toward zero,
// non-finite -> 0, int64 saturating at +-2^63, narrower types wrapped (round_to_dtype's rules, exact).
Elem int_from_double(double v, DType t);  // the integer and bool half of from_double
inline Elem from_double(double v, DType t) {
  return held_as_int(t) ? int_from_double(v, t) : Elem::of_f(round_to_dtype(v, t));
}
// The element's value as a double (exact for floats; an int64 past 2^53 rounds).
inline double to_double(Elem e, DType t) {
  if (t == DType::uint64) return double(e.bits);
  return held_as_int(t) ? double(e.i()) : e.f();
}
// An element of dtype `from` stored into dtype `to`, as assemble and a truncating store do:
// integer -> integer exact with wrap, otherwise through from_double.
Elem convert(Elem e, DType from, DType to);

// Integer meaning of a binary op on exact int64 operands, before the wrap to the result type;
// nullopt-like `ok = false` when the kind has no integer form here (the caller falls back to double).
struct IntResult {
  bool ok = false;
  int64_t v = 0;
};
// `unsigned64`: the operands are uint64 bit patterns (ordering, maximum / minimum and division unsigned;
// the other integer dtypes hold their values exactly in int64, so signed int64 arithmetic is right for them).
IntResult int_binary(OpKind k, int64_t a, int64_t b, bool unsigned64 = false);
IntResult int_unary(OpKind k, int64_t a, bool unsigned64 = false);
// a < b for two elements of integer dtype t (unsigned for uint64).
inline bool int_less(int64_t a, int64_t b, DType t) {
  return t == DType::uint64 ? uint64_t(a) < uint64_t(b) : a < b;
}

}  // namespace ptoc::eval
