// int64 arithmetic for dims that never wraps: a result outside int64 throws
// DimEvalError("dim arithmetic overflows int64: A op B"), which the front end
// reports at the expression and the run-time dim evaluation as a bad binding.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/core/dim_expr.h"

namespace ptoc {

[[noreturn]] inline void dim_overflow(int64_t a, const char* op, int64_t b) {
  throw DimEvalError("dim arithmetic overflows int64: " + std::to_string(a) + " " + op + " " + std::to_string(b));
}
inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) dim_overflow(a, "+", b);
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) dim_overflow(a, "-", b);
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) dim_overflow(a, "*", b);
  return r;
}
inline int64_t checked_neg(int64_t a) {
  if (a == INT64_MIN) dim_overflow(0, "-", a);
  return -a;
}
// The prefix of the message DimEvalError carries for an overflow.
inline bool is_overflow_message(const std::string& what) { return what.rfind("dim arithmetic overflows int64", 0) == 0; }

}  // namespace ptoc
