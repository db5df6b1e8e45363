#include "ir.h"

namespace ptoc {
// Replaced by the front-end work: the stable --emit ir text form.
std::string print_ir(const Program& p) { return "program " + p.name + "\n"; }
}  // namespace ptoc
