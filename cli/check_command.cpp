// `ptoc check SPEC`: the front end only, and a one-line summary.
#include <iostream>

#include "cli/ptoc_commands.h"
#include "compiler/frontend/frontend.h"

namespace ptoc::driver {

int check(const SpecArgs& a) {
  FrontendOptions fo;
  fo.sets = a.sets;
  fo.target = a.target;
  auto p = load_spec_file(a.spec, fo, std::cerr);
  if (!p) return kSpecError;
  std::cout << summarize(*p) << "\n";
  return kOk;
}

}  // namespace ptoc::driver
