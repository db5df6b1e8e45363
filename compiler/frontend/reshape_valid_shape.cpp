// PyPTO's reshape(x, shape, valid_shape=[...]) states the result's valid shape, as Kimi's block
// attention residual does after a matmul of a partly valid block:
//   logits = reshape(logits_3d, [tile_bt, l_max], valid_shape=[tile_bt, l])
// ptoc derives a reshape's valid region from its input (size-1 axes come and go; a valid row prefix
// becomes whole rows: elaborate_calls.cpp). The stated valid shape must be that region or narrow it
// (then the result holds less: a whole-window view with valid= follows the reshape, so the evaluator and
// the compiled code narrow it alike); a larger one would make padding valid, and is an error naming the
// axis and both extents.
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_call.h"

namespace ptoc::fe {

bool Elaborator::reshape_valid_shape(const Call& c, const Shape& shape, Shape& valid) {
  const Expr* arg = c.args[3];
  auto given = list_arg(arg, "reshape valid_shape");
  if (!given) return false;
  if (given->size() != shape.size()) {
    err(arg->off, arg->len,
        "reshape valid_shape has " + std::to_string(given->size()) + " entries; the shape has " +
            std::to_string(shape.size()),
        "one valid extent per axis of the new shape");
    return false;
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const DimExpr g = simplify((*given)[i]);
    if (provably_equal(g, valid[i])) continue;
    auto over = const_difference(g, valid[i]);
    if (over && *over < 0) {
      valid[i] = g;  // narrows the valid region
      continue;
    }
    const Expr& e = arg->kind == Expr::Kind::List && i < arg->items.size() ? *arg->items[i] : *arg;
    err(e.off, e.len,
        "reshape valid_shape entry " + std::to_string(i) + " is " + g.str() + ", but the input's valid elements give " +
            valid[i].str() + " on that axis",
        "a valid shape may equal or narrow what the input holds: write " + valid[i].str());
    return false;
  }
  return true;
}

int Elaborator::narrow_valid(int value, const Shape& valid, int loc_off, int loc_len) {
  const Value v = p_.values[size_t(value)];
  Op op;
  op.kind = OpKind::View;
  op.inputs = {value};
  op.shape = v.shape;
  op.offsets = Shape(v.shape.size(), DimExpr(0));
  op.valid = valid;
  return emit(op, v.dtype, v.shape, valid, loc_off, loc_len);
}

}  // namespace ptoc::fe
