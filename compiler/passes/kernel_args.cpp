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

#include <stdexcept>

namespace ptoc {

static bool is_gm_step(const TileOp& op) {
  return op.kind == TileOpKind::CopyIn || op.kind == TileOpKind::CopyOut || op.kind == TileOpKind::FixOut;
}

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
  // Slots first, so that the values are reserved exactly (a GEMM leaf: ~400; 1152 leaves of
  // over-reserved blocks were a fifth of the compile's peak memory).
  size_t count = 0;
  for (int i = 0; i < n; ++i) {
    const TileOp& op = tile_op(root, plan.steps[i].op);
    if (!is_gm_step(op)) continue;
    int slot = -1;
    for (int s = 0; s < int(a.gm_tensors.size()); ++s)
      if (a.gm_tensors[s] == op.gm.tensor && same_view(a.slot_view[s], op.gm.view)) slot = s;
    if (slot < 0) {
      slot = int(a.gm_tensors.size());
      a.gm_tensors.push_back(op.gm.tensor);
      a.slot_view.push_back(op.gm.view);
      count += op.gm.view.empty() ? tensors.at(size_t(op.gm.tensor)).shape.size() : op.gm.view.size();
    }
    a.step_gm_slot[i] = slot;
    count += op.gm.offset.size() + op.gm.extent.size();
  }
  for (const BufferSlot& b : plan.buffers) count += local_tile(root, b.tile).shape.size();
  a.values.reserve(count);
  a.buffer_valid_arg.reserve(plan.buffers.size());
  auto push = [&](const DimExpr& e) {
    a.values.push_back(e);
    return int(a.values.size()) - 1;
  };
  for (int i = 0; i < n; ++i) {
    if (a.step_gm_slot[i] < 0) continue;
    const TileOp& op = tile_op(root, plan.steps[i].op);
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

void kernel_arg_values(const TileRoot& root, const std::vector<GmTensor>& tensors, const LeafArgs& rep,
                       const std::vector<int>& step_ops, const std::vector<int>& buffer_tiles, std::vector<int>& gm,
                       std::vector<DimExpr>& values) {
  // The same walk as layout_kernel_args with the slots taken from `rep`: equal LeafShaper keys give
  // equal (tensor, view) patterns, hence equal slots, ranks and argument positions.
  gm.assign(rep.gm_tensors.size(), -1);
  std::vector<const std::vector<DimExpr>*> view(rep.gm_tensors.size(), nullptr);
  values.clear();
  values.reserve(rep.values.size());
  for (size_t i = 0; i < step_ops.size(); ++i) {
    const int slot = rep.step_gm_slot[i];
    if (slot < 0) continue;
    const TileOp& op = tile_op(root, step_ops[i]);
    if (gm[size_t(slot)] < 0) {
      gm[size_t(slot)] = op.gm.tensor;
      view[size_t(slot)] = &op.gm.view;
    }
    values.insert(values.end(), op.gm.offset.begin(), op.gm.offset.end());
    values.insert(values.end(), op.gm.extent.begin(), op.gm.extent.end());
  }
  for (size_t s = 0; s < gm.size(); ++s) {
    const auto& shape = view[s]->empty() ? tensors.at(size_t(gm[s])).shape : *view[s];
    values.insert(values.end(), shape.begin(), shape.end());
  }
  for (int tile : buffer_tiles) {
    const LocalTile& lt = local_tile(root, tile);
    for (size_t d = 0; d < lt.shape.size(); ++d) {
      if (d < lt.valid.size())
        values.push_back(lt.valid[d]);
      else
        values.emplace_back(lt.shape[d]);
    }
  }
  if (values.size() != rep.values.size())
    throw std::logic_error("kernel_args: a leaf's arguments differ in number from its class representative's");
}

}  // namespace ptoc
