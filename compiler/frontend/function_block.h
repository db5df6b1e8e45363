// PyPTO's `with pypto.function("main", a, b, c):` as a spec statement:
//
//   - function: main
//     args: [a, b, c]
//     body: [...]
//
// It opens the operator's body, as PyPTO's does the computation graph's: the statements of `body` are the spec's
// top-level statements (set_vec_tile_shapes and set_pass_options at its top hold for the whole operator, a loop in
// it is a top-level loop), spliced in order. `args` names the tensors the function takes, each a declared input,
// output or workspace. It stands in the spec's own body, not inside a loop, if, scope or another function.
#pragma once
#include <string>
#include <unordered_set>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "compiler/frontend/reporter.h"

namespace ptoc::fe {

// Whether the mapping `n` is a function statement (its first statement key is `function`).
bool is_function_block(const YAML::Node& n);

// Checks a function statement's keys, name and args against the declared tensor names; reports each problem
// where it is. True when its body may be read.
// `tensor_set` holds the same names as `tensor_names` (the vector is for suggestions): both are built once per
// spec by the caller, so many function statements or long args lists stay linear.
bool check_function_block(const YAML::Node& n, const std::vector<std::string>& tensor_names,
                          const std::unordered_set<std::string>& tensor_set, Reporter& r);

}  // namespace ptoc::fe
