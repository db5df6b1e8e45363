// Load-time verification of a decoded bundle's cross references (issue 12: the reader trusts
// nothing). decode_bundle checks each section on its own (checksums, layout, the instance records
// against their templates, the leaf programs); this checks what ties the sections together, so
// that no index a crafted bundle holds can reach past an array at run time.
#pragma once
#include <string>

#include "runtime/program/compiled_program.h"

namespace ptoc::runtime {

// "" when every index is in range, else what is wrong and where ("root function 'f' (#0) task 3:
// ..."). Checks: leaf classes (id, kernel), tensors (rank of every region, the owning root of a
// temp), every task (class; at least the GM slots and arguments its kernel reads), the temps of
// each root, window-check axes and every root index of the loop nest (walked with a stack).
std::string verify_program_indices(const CompiledProgram& p);

}  // namespace ptoc::runtime
