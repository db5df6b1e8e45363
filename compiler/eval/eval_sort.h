// --- sort --- The evaluator's row sort (OpKind::SortValues / SortIndices): the order of the tile
// kernels (kernels/host/pto_host_sort.h), kept here once for the reference. Private to compiler/eval.
#pragma once
#include <cstdint>

#include "compiler/eval/eval_elem.h"

namespace ptoc::eval {

// The first k of a sort of the n elements at `row` (stride 1) of dtype t: larger first when `largest`,
// NaN above every number, equal values by the lower index. `carried` (or null): each element's int32
// index, the tie-break and the index reported; a negative one is no candidate. Without it element j
// reports base + j. Writes k values into
// `out_values` and k int32 indices into `out_indices` (either may be null); past the candidates,
// the lowest (largest) or highest value of t (-inf / +inf for floats) and index -1.
void sort_row(const Elem* row, const Elem* carried, int64_t base, int64_t n, int64_t k, bool largest, DType t,
              Elem* out_values, Elem* out_indices);

}  // namespace ptoc::eval
