// Binding dynamic dims from input shapes (shared by `ptoc eval` and `ptorun`).
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/program/program_decls.h"
#include "runtime/core/tensor_data.h"

namespace ptoc {

struct BindError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Binds every dim: static dims to their value; dynamic dims from `explicit_dims`
// ("NAME=V" already split) and from the shapes of `arrays` (input name -> shape).
// Conflicting bindings throw BindError naming both tensors and axes; an unbound
// dynamic dim, a value over `max`, or a shape mismatch on a static axis likewise.
DimExpr::Env bind_dims(const std::vector<DimDecl>& dims, const std::vector<TensorDecl>& tensors,
                       const std::map<std::string, std::vector<int64_t>>& arrays,
                       const std::map<std::string, int64_t>& explicit_dims);

// Concrete shape of a tensor under a binding.
std::vector<int64_t> concrete_shape(const TensorDecl& t, const DimExpr::Env& env);

// A deterministic pseudo-random input (uniform in [-1, 1) for floats, small integers otherwise)
// for tensors the user did not give; depends only on (seed, tensor name, shape).
TensorData random_tensor(DType dtype, const std::vector<int64_t>& shape, uint64_t seed, const std::string& name);
// An input generated for `d`: uniform integers in its `values: [lo, hi]` when it declares them, else random_tensor.
TensorData random_input(const TensorDecl& d, const std::vector<int64_t>& shape, uint64_t seed);

// Parses "NAME=VALUE" switches; throws BindError with the offending text on malformed ones.
std::map<std::string, std::string> parse_assignments(const std::vector<std::string>& items, const std::string& flag);
// The whole of `text` as a decimal integer; throws BindError("<what>: '<text>' is not an integer").
int64_t parse_integer(const std::string& text, const std::string& what);

}  // namespace ptoc
