#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

GmTensor::Role role_of(TensorRole r) {
  switch (r) {
    case TensorRole::Input: return GmTensor::Role::Input;
    case TensorRole::Output: return GmTensor::Role::Output;
    case TensorRole::Workspace: return GmTensor::Role::Workspace;
  }
  return GmTensor::Role::Input;
}

}  // namespace

void collect_tensors(const Program& prog, const std::vector<TileRoot>& roots, CompiledProgram& out) {
  out.tensors.clear();
  for (const TensorDecl& t : prog.tensors) {
    GmTensor g;
    g.name = t.name;
    g.role = role_of(t.role);
    g.dtype = t.dtype;
    g.shape = t.shape;
    g.format = t.format;
    g.l2_bypass = t.l2_bypass;
    g.values_lo = t.values_lo;
    g.values_hi = t.values_hi;
    if (!t.inplace.empty()) g.inplace = prog.find_tensor(t.inplace);
    out.tensors.push_back(std::move(g));
  }
  // GmRef::tensor of a temp = prog.tensors.size() + its position in the
  // concatenation of TileRoot::temps in root order (compiler/passes/tiling.h).
  for (int r = 0; r < int(roots.size()); ++r)
    for (GmTensor t : roots[r].temps) {
      t.role = GmTensor::Role::Temp;
      t.root = r;
      out.tensors.push_back(std::move(t));
    }
}

}  // namespace ptoc
