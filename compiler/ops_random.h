// --- random ops --- The scalar meaning of PyPTO's uniform / normal (OpKind::Uniform, OpKind::Normal):
// what element `index` (the flat index in the whole output) of an output of dtype `dt` is, for the
// 64-bit key and counter[1]; shared by the evaluator and the front end. The attributes ride in
// Op::axes / TileOp::axes as four 32-bit words {key_lo, key_hi, ctr_lo, ctr_hi}.
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/ir.h"

namespace ptoc {

struct PhiloxArgs {
  uint64_t key = 0, counter = 0;
};
std::vector<int> philox_axes(const PhiloxArgs& a);       // the four words, as Op::axes holds them
PhiloxArgs philox_args(const std::vector<int>& axes);    // and back
bool is_random_op(OpKind k);                               // Uniform or Normal
// The element as a double holding an fp32 value (exact in fp16 / bf16 for uniform).
double random_value(OpKind k, DType dt, const PhiloxArgs& a, uint64_t index);

}  // namespace ptoc
