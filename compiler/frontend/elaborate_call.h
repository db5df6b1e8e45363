// Internal to the elaborator: one function call of a statement string with its
// arguments bound to the op table's parameters (elaborate_calls.cpp binds them;
// the per-form functions there and in elaborate_catalog.cpp / elaborate_quant.cpp read them).
#pragma once
#include <string>
#include <vector>

#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

struct Elaborator::Call {
  const Expr& e;
  const OpSpec& spec;
  std::string fn;                  // the name as written
  int fo = 0, fl = 1;              // its position in the statement
  std::vector<std::string> names;  // parameter names
  std::vector<const Expr*> args;   // bound arguments by parameter (nullptr: not given)
  bool two_targets = false;        // the whole right-hand side of `v, i = ...`
};

}  // namespace ptoc::fe
