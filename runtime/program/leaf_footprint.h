// What a leaf-program call touches in local memory (issue 12: a crafted valid extent or offset of a
// reduction, transpose, copy, extract or matmul must not walk outside its buffers). For each buffer
// operand: the element range [lo, hi) relative to the operand's pointer, in the buffer's element
// type, given the call's template parameters and the values of its integer operands. The ranges are
// what the loops of the host kernels (kernels/host/pto_host_ops.h) touch, not the tiles they declare:
// ptoc passes a pointer into an L1 tile with the offsets of a window inside it (TEXTRACT), so a
// declared tile may reach past its buffer where no element is touched.
#pragma once
#include <cstdint>

#include "runtime/program/leaf_program.h"

namespace ptoc::leaf {

struct Footprint {
  int operand = -1;       // index into Instr::operands (a Buf operand)
  __int128 lo = 0, hi = 0;  // elements [lo, hi) from the operand's pointer; empty when hi <= lo
};
inline constexpr int kMaxFootprints = 8;

// Fills out[] and returns how many; `vals[k]` is the value of operand k when it is an Int operand
// (other entries are not read). A call with no buffer operand returns 0.
int call_footprints(const Instr& call, const int64_t* vals, Footprint* out);

}  // namespace ptoc::leaf
