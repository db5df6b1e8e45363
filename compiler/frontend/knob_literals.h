// Names bound to Python literals at the top of the body, for PyPTO's configuration calls that pass a knob's value
// by name (`nbuf = {"DEFAULT": 8}`, then `pypto.set_pass_options(vec_nbuffer_setting=nbuf)`, as PyPTO's models
// pass `configs.vec_nbuffer_setting`). The reader records every top-level `NAME = LITERAL` statement here;
// elaborate_config_calls.cpp reads a knob value that is a name from it. A dict literal has no other meaning in
// a spec, so its statement is only this binding; other literals (numbers, True / False, lists) are also the
// compile-time constants the elaborator binds.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "runtime/core/src_loc.h"

namespace ptoc::fe {

struct KnobLiteral {
  std::string text;  // the literal as written (`{"DEFAULT": 8}`)
  SrcLoc loc;        // the binding statement
};
using KnobLiterals = std::map<std::string, KnobLiteral>;

// `NAME = LITERAL` split into (NAME, LITERAL) when the right side is one Python literal: a number, a string,
// True / False / None, or a dict, list or tuple of them (nested); nullopt otherwise.
std::optional<std::pair<std::string, std::string>> literal_binding(const std::string& stmt);

}  // namespace ptoc::fe
