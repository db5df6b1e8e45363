// --- pack / unpack --- The evaluator's byte reinterpretation (OpKind::Bitcast): the row-major
// elements of `from` as little-endian bytes of dtype `a`, read back as elements of dtype `b`.
// Private to compiler/eval.
#pragma once
#include <vector>

#include "compiler/eval/eval_elem.h"

namespace ptoc::eval {

// `src` holds n elements of `a`; the result n * size(a) / size(b) elements of `b` (the byte count must
// divide). Floats go through their storage format (fp16 / bf16 / fp32 bits), integers their low bytes.
std::vector<Elem> bitcast_elems(const std::vector<Elem>& src, DType a, DType b);

}  // namespace ptoc::eval
