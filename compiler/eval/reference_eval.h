// The reference evaluator: computes a spec's outputs straight from the tensor
// graph, op by op, rounding to each result's dtype as the device does, and
// honouring valid shapes. The golden model for compiled kernels; it shares no
// code with the tiling passes on purpose.
#pragma once
#include <map>
#include <stdexcept>
#include <string>

#include "compiler/ir.h"
#include "runtime/core/tensor_data.h"

namespace ptoc {

struct EvalError : std::runtime_error {
  using std::runtime_error::runtime_error;  // a run-time problem (bad binding, out-of-range slice), says where
};

// `inputs`: one entry per input tensor (by name), already in the tensor's dtype.
// `dims`: every dim bound (see bind_dims). Returns outputs by name (and workspaces are not returned).
std::map<std::string, TensorData> evaluate(const Program& p, const std::map<std::string, TensorData>& inputs,
                                           const DimExpr::Env& dims);

struct EvalOptions {
  // Also check every value's valid extent against the front end's symbolic Value::valid (a consistency
  // check between the front end, which the tiling passes follow, and this golden model); a mismatch
  // throws EvalError naming the op. For tests.
  bool check_valid = false;
};
std::map<std::string, TensorData> evaluate(const Program& p, const std::map<std::string, TensorData>& inputs,
                                           const DimExpr::Env& dims, const EvalOptions& opts);

}  // namespace ptoc
