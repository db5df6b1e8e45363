// Exact integer element access to a TensorData (TensorData::get/set go
// through double, which rounds an int64 past 2^53). Integer and bool dtypes
// only. Used by the evaluator's input/output copies and by --check.
#pragma once
#include <cstdint>

#include "compiler/eval/eval_elem.h"
#include "runtime/core/tensor_data.h"

namespace ptoc::eval {

int64_t get_int(const TensorData& t, int64_t flat_index);
void set_int(TensorData& t, int64_t flat_index, int64_t v);  // wrapped to the dtype (bool: v != 0)
// Every element of t into out[0, numel) as the evaluator holds it: integers and bool exactly as int64
// (get_int), floats as the double TensorData::get gives; one dtype switch per tensor, not per element.
void to_elems(const TensorData& t, Elem* out);

}  // namespace ptoc::eval
