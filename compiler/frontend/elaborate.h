// SpecAst -> Program: every semantic rule of the spec language is checked
// here while the tensor graph is built (names, dtypes, shapes, tile state,
// loops, `if`, scopes, labels, cache policy). Static loops are unrolled;
// dynamic loops become LoopNodes with one body per unroll gear; runs of
// statements between loops become root-function templates.
#pragma once
#include <optional>
#include <string>

#include "compiler/frontend/reporter.h"
#include "compiler/frontend/spec_ast.h"
#include "compiler/ir.h"

namespace ptoc::fe {

std::optional<Program> elaborate(const SpecAst& ast, const std::string& file, const std::string& target_override,
                                 Reporter& r);

}  // namespace ptoc::fe
