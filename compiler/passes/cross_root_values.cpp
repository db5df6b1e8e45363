// Values that cross root functions. A root function is one kernel launch
// graph; on-chip data and per-instance temps do not survive it, so a value
// bound in one root (top level, an outer loop body) and used in another must
// be carried by GM. This rewrite of the tensor graph makes every root
// self-contained before tiling:
// - a value that is only a window of a spec tensor or a constant (chains of
//   TensorRef / Full / View / Reshape) is recomputed in the consuming root:
//   its defining ops are cloned there, which costs no GM traffic;
// - any other value is stored by its producing root into a program-level
//   workspace tensor `xroot_<value>` (role Workspace, the value's shape) and
//   the consuming roots read it back through a TensorRef. The runtime orders
//   the roots through the GM overlap of that tensor.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "compiler/passes/tiling.h"

namespace ptoc {

namespace {

bool cheap_def(const Program& p, int value, int depth = 0) {
  if (value < 0 || depth > 64) return false;
  int d = p.values[value].def_op;
  if (d < 0) return false;
  const Op& op = p.ops[d];
  switch (op.kind) {
    case OpKind::TensorRef:
    case OpKind::Full: return true;
    case OpKind::View:
    case OpKind::Reshape: return !op.inputs.empty() && cheap_def(p, op.inputs[0], depth + 1);
    default: return false;
  }
}

int add_value(Program& p, const Value& like, int def_op) {
  Value v = like;
  v.id = int(p.values.size());
  v.def_op = def_op;
  p.values.push_back(std::move(v));
  return p.values.back().id;
}

int add_op(Program& p, Op op) {
  op.id = int(p.ops.size());
  p.ops.push_back(std::move(op));
  return p.ops.back().id;
}

}  // namespace

int carry_cross_root_values(Program& p) {
  std::vector<int> root_of_op(p.ops.size(), -1);
  for (size_t r = 0; r < p.roots.size(); ++r)
    for (int o : p.roots[r].ops) root_of_op[o] = int(r);
  std::map<int, int> workspace;  // value -> tensor it is stored to
  int carried = 0;
  for (size_t r = 0; r < p.roots.size(); ++r) {
    std::map<int, int> local;  // foreign value -> its stand-in in this root
    std::vector<int> prologue;
    // Returns the stand-in of foreign value v inside root r (cloned or loaded).
    std::function<int(int)> stand_in = [&](int v) -> int {
      if (auto it = local.find(v); it != local.end()) return it->second;
      int d = p.values[v].def_op;
      int nv;
      if (cheap_def(p, v)) {
        Op op = p.ops[d];
        for (int& in : op.inputs) in = stand_in(in);
        nv = add_value(p, p.values[v], -1);
        op.output = nv;
        int id = add_op(p, std::move(op));
        p.values[nv].def_op = id;
        prologue.push_back(id);
      } else {
        auto w = workspace.find(v);
        if (w == workspace.end()) {
          const Value& val = p.values[v];
          TensorDecl t;
          t.name = "xroot_" + (val.name.empty() ? "v" + std::to_string(v) : val.name);
          while (p.find_tensor(t.name) >= 0) t.name += "_";
          t.role = TensorRole::Workspace;
          t.dtype = val.dtype;
          t.shape = val.shape;
          t.loc = p.ops[d].loc;
          p.tensors.push_back(std::move(t));
          int tensor = int(p.tensors.size()) - 1;
          w = workspace.emplace(v, tensor).first;
          // The producing root stores it right after its definition.
          Op st;
          st.kind = OpKind::Assemble;
          st.inputs = {v};
          st.tensor = tensor;
          st.offsets.assign(val.shape.size(), DimExpr(0));
          const Op& def = p.ops[d];
          st.vec_tile = def.vec_tile;
          st.cube_tile = def.cube_tile;
          st.scope = def.scope;
          st.label = def.label;
          st.loc = def.loc;
          int sid = add_op(p, std::move(st));
          auto& pops = p.roots[root_of_op[d]].ops;
          auto pos = std::find(pops.begin(), pops.end(), d);
          pops.insert(pos + 1, sid);
          ++carried;
        }
        Op ld;
        ld.kind = OpKind::TensorRef;
        ld.tensor = w->second;
        ld.loc = p.ops[d].loc;
        nv = add_value(p, p.values[v], -1);
        ld.output = nv;
        int id = add_op(p, std::move(ld));
        p.values[nv].def_op = id;
        prologue.push_back(id);
      }
      local[v] = nv;
      return nv;
    };
    std::vector<int> ops = p.roots[r].ops;
    for (int o : ops)
      for (size_t i = 0; i < p.ops[o].inputs.size(); ++i) {
        int v = p.ops[o].inputs[i];
        int d = v >= 0 ? p.values[v].def_op : -1;
        if (d < 0 || d >= int(root_of_op.size()) || root_of_op[d] == int(r) || root_of_op[d] < 0) continue;
        int nv = stand_in(v);
        p.ops[o].inputs[i] = nv;
      }
    if (!prologue.empty()) {
      auto& rops = p.roots[r].ops;
      rops.insert(rops.begin(), prologue.begin(), prologue.end());
    }
  }
  return carried;
}

}  // namespace ptoc
