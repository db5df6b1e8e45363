// Pass: the kernel parameter block of a leaf.
//
// Everything that differs between isomorphic leaves (GM tensors, offsets,
// valid extents of tails, dynamic tensor shapes) is passed at run time, so the
// kernel text depends only on the leaf's structure and one kernel serves all
// of them. GM tensors become slots in order of first use; the int64 block is,
// in order: per GM step its offsets then its extents, per slot the tensor's
// shape, per buffer its valid shape. No expression is shared between two
// positions even when equal, so the layout is the same for every isomorphic
// leaf (sharing would depend on values).
#include "compiler/passes/backend.h"

namespace ptoc {

static bool same_view(const std::vector<DimExpr>& a, const std::vector<DimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].str() != b[i].str()) return false;
  return true;
}

void layout_kernel_args(const TileRoot& root, const std::vector<GmTensor>& tensors, LeafPlan& plan) {
  LeafArgs& a = plan.args;
  a = LeafArgs{};
  const int n = int(plan.steps.size());
  a.step_gm_slot.assign(n, -1);
  a.step_offset_arg.assign(n, -1);
  a.step_extent_arg.assign(n, -1);
  a.values.reserve(size_t(4 * n) + 3 * plan.buffers.size());  // a GEMM leaf: ~400 arguments
  a.buffer_valid_arg.reserve(plan.buffers.size());
  auto push = [&](const DimExpr& e) {
    a.values.push_back(e);
    return int(a.values.size()) - 1;
  };
  for (int i = 0; i < n; ++i) {
    const TileOp& op = tile_op(root, plan.steps[i].op);
    if (op.kind != TileOpKind::CopyIn && op.kind != TileOpKind::CopyOut && op.kind != TileOpKind::FixOut) continue;
    int slot = -1;
    for (int s = 0; s < int(a.gm_tensors.size()); ++s)
      if (a.gm_tensors[s] == op.gm.tensor && same_view(a.slot_view[s], op.gm.view)) slot = s;
    if (slot < 0) {
      slot = int(a.gm_tensors.size());
      a.gm_tensors.push_back(op.gm.tensor);
      a.slot_view.push_back(op.gm.view);
    }
    a.step_gm_slot[i] = slot;
    for (size_t d = 0; d < op.gm.offset.size(); ++d) {
      int k = push(op.gm.offset[d]);
      if (d == 0) a.step_offset_arg[i] = k;
    }
    for (size_t d = 0; d < op.gm.extent.size(); ++d) {
      int k = push(op.gm.extent[d]);
      if (d == 0) a.step_extent_arg[i] = k;
    }
  }
  for (int s = 0; s < int(a.gm_tensors.size()); ++s) {
    const GmTensor& t = tensors.at(a.gm_tensors[s]);
    a.slot_shape_arg.push_back(int(a.values.size()));
    const auto& shape = a.slot_view[s].empty() ? t.shape : a.slot_view[s];
    for (size_t d = 0; d < shape.size(); ++d)
      push(shape[d]);
  }
  for (const BufferSlot& b : plan.buffers) {
    const LocalTile& lt = local_tile(root, b.tile);
    a.buffer_valid_arg.push_back(int(a.values.size()));
    for (size_t d = 0; d < lt.shape.size(); ++d) {
      if (d < lt.valid.size())
        a.values.push_back(lt.valid[d]);
      else
        a.values.emplace_back(lt.shape[d]);
    }
  }
}

}  // namespace ptoc
