// Exact integer element access to a TensorData (TensorData::get/set go
// through double, which rounds an int64 past 2^53). Integer and bool dtypes
// only. Used by the evaluator's input/output copies and by --check.
#pragma once
#include <cstdint>

#include "runtime/core/tensor_data.h"

namespace ptoc::eval {

int64_t get_int(const TensorData& t, int64_t flat_index);
void set_int(TensorData& t, int64_t flat_index, int64_t v);  // wrapped to the dtype (bool: v != 0)

}  // namespace ptoc::eval
