// PyPTO's `assemble(src, [offsets], dst)` statement as ptoc's `dst[o0:, o1:, ...] = src`.
#pragma once
#include <optional>

#include "compiler/frontend/ast.h"

namespace ptoc::fe {

// `a` is a call statement (empty target) whose value is a call of `assemble`: rewrite it into the
// assemble form `dst[o0:, o1:, ...] = src` (the valid region of src written at the offsets, as
// PyPTO's assemble does). A wrong argument form is a syntax error at the argument.
std::optional<SyntaxError> desugar_assemble_call(AssignAst& a);

}  // namespace ptoc::fe
