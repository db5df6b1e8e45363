// One function call being elaborated: the op-table row it binds to and its
// arguments by parameter (shared by elaborate_calls.cpp and the composite
// ops' files such as elaborate_quant.cpp).
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
};

}  // namespace ptoc::fe
