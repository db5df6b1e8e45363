// CCE code generation: one kernel source per distinct leaf, calling the tile
// library of kernels/pto_tile.h in schedule order with the planned buffers,
// the inserted syncs and the argument block of compiler/passes/kernel_args.cpp.
#pragma once
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "compiler/passes/leaf_plan.h"
#include "runtime/core/platform.h"
#include "runtime/program/leaf_program.h"

namespace ptoc {

struct CceOptions {
  bool pmu_trace = false;  // codegen.enable_pmu_trace on a 950 target
};
// The options the program's knobs ask for on `plat` (a warning when PMU stamps cannot exist there).
CceOptions cce_options(const Program& prog, const Platform& plat, DiagEngine& diags);

// Source of the kernel `kernel_name` for `plan`. Ops the tile library cannot
// express (e.g. a reduction over a leading axis of a rank-3 tile) are
// reported to `diags` at the spec op; the result is then empty. The text is
// rendered line by line from the kernel's leaf program, stored in `program`
// when given (runtime/program/leaf_program.h): one source of truth.
std::string emit_cce(const Program& prog, const TileRoot& root, const std::vector<GmTensor>& tensors,
                     const LeafPlan& plan, const std::string& kernel_name, const CceOptions& opts, DiagEngine& diags,
                     leaf::LeafProgram* program = nullptr);

// Fills CompiledProgram::kernels[*].source, source_hash and program from the first
// leaf of each kernel. Returns false when an error was reported.
bool emit_all_kernels(const Program& prog, const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans,
                      const CceOptions& opts, CompiledProgram& out, DiagEngine& diags);

}  // namespace ptoc
