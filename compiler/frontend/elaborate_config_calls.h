// PyPTO's configuration calls written as statement strings (issue 13): set_vec_tile_shapes(...),
// set_cube_tile_shapes(...), set_pass_options(...), set_codegen_options(...), set_debug_options(...),
// with or without `pypto.`. Each reads into what the mapping statements and the `options:` keys mean:
// a VecTile / CubeTile statement, a Scope statement without a body (sg_set_scope=...), or knobs of the
// spec's options (the knob table's own checks and messages, options.cpp).
#pragma once
#include <string>

#include "compiler/frontend/knob_literals.h"
#include "compiler/frontend/reporter.h"
#include "compiler/frontend/spec_ast.h"

namespace ptoc::fe {

enum class ConfigCallResult {
  NotACall,  // the string is no configuration call: read it as `NAME = EXPR`
  Stmt,      // `s` is the statement the call means (VecTile, CubeTile, Scope)
  Consumed,  // the call set knobs of `options` (or was reported): no statement
};

struct ConfigCallContext {
  Options* options = nullptr;   // the spec's options (the `options:` section, already read)
  bool top_level = false;       // the statement stands in the spec's top-level body
  bool after_loop = false;      // ... after a loop of that body
  const KnobLiterals* literals = nullptr;  // names bound to literals so far at the top of the body
};

// Reads `text` (a statement string, positions by `pos`) if it is one of the calls above.
ConfigCallResult read_config_call(const std::string& text, const PosMapPtr& pos, Stmt& s,
                                  const ConfigCallContext& ctx, Reporter& r);

}  // namespace ptoc::fe
