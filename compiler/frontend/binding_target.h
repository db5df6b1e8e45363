// The name a statement string `NAME = ...` binds, found by a plain scan: std::regex recurses once per character
// in libstdc++, so a long statement (up to the stmt_bytes limit) would overflow the stack.
#pragma once
#include <optional>
#include <string_view>

namespace ptoc::fe {

struct BindingTarget {
  int off = 0, len = 0;  // the name's offset and length in the statement
  int value = 0;         // offset of the first character after the '='
};

// `NAME = ...` (a single '=', not '=='): its target; nullopt for anything else.
std::optional<BindingTarget> binding_target(std::string_view stmt);

}  // namespace ptoc::fe
