#include "compiler/frontend/static_tiles.h"

#include <map>
#include <set>
#include <string>

#include "compiler/op_table.h"

namespace ptoc::fe {

namespace {

// The compile-time symbols of each root template: the unroll factor of every enclosing gear
// (build_tile_roots binds the same ones before tiling).
void collect_env(const std::vector<LoopNode>& nodes, const DimExpr::Env& cur, std::map<int, DimExpr::Env>& out) {
  for (auto& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) {
      out[n.root] = cur;
      continue;
    }
    for (auto& g : n.gears) {
      DimExpr::Env e = cur;
      if (!n.factor_var.empty()) e[n.factor_var] = g.factor;
      collect_env(g.body, e, out);
    }
  }
}

// Ops that only name GM bytes or a constant (no tile of their own): the tiler takes the static
// shapes of their readers, not theirs.
bool tiles_nothing(OpKind k) {
  return k == OpKind::TensorRef || k == OpKind::View || k == OpKind::Reshape || k == OpKind::Full;
}

}  // namespace

void check_static_tile_shapes(const Program& p, Reporter& r) {
  std::map<int, DimExpr::Env> envs;
  collect_env(p.body, {}, envs);
  std::set<int> reported_values;
  for (size_t ri = 0; ri < p.roots.size(); ++ri) {
    const DimExpr::Env& env = envs[int(ri)];
    for (int o : p.roots[ri].ops) {
      const Op& op = p.ops[size_t(o)];
      if (tiles_nothing(op.kind)) continue;
      // One error per chain: the readers of a value already reported say nothing more.
      bool after_error = false;
      for (int v : op.inputs) after_error = after_error || (v >= 0 && reported_values.count(v));
      if (after_error) {
        if (op.output >= 0) reported_values.insert(op.output);
        continue;
      }
      // The order the tiler looks: the output of an elementwise op, then its inputs.
      std::vector<int> vs;
      if (op.kind != OpKind::Assemble && op.output >= 0) vs.push_back(op.output);
      for (int v : op.inputs)
        if (v >= 0) vs.push_back(v);
      bool reported = false;
      // argmax / argmin keep the reduced axis whole in vec_tile (tile_expand_vector's rule, PyPTO's too).
      if ((op.kind == OpKind::Argmax || op.kind == OpKind::Argmin) && op.vec_tile && !op.inputs.empty() &&
          op.inputs[0] >= 0 && op.axes.size() == 1) {
        const auto& in = p.values[size_t(op.inputs[0])].shape;
        int a = op.axes[0] < 0 ? op.axes[0] + int(in.size()) : op.axes[0];
        const auto& t = op.vec_tile->shape;
        auto extent = a >= 0 && a < int(in.size()) ? in[size_t(a)].substitute(env).as_const() : std::nullopt;
        // A tile of the output's rank (keepdim=false) gets the whole axis added.
        const bool whole_added = t.size() + 1 == in.size() && !op.keepdim;
        if (extent && !whole_added && t.size() == in.size() && t[size_t(a)] < *extent) {
          r.error(op.loc,
                  std::string(op_kind_name(op.kind)) + " over axis " + std::to_string(a) + " (extent " +
                      std::to_string(*extent) + ") is split by vec_tile (" + std::to_string(t[size_t(a)]) +
                      " on that axis)",
                  "keep the reduced axis whole in vec_tile");
          if (op.output >= 0) reported_values.insert(op.output);
          continue;
        }
      }
      for (int v : vs) {
        const Value& val = p.values[size_t(v)];
        for (size_t d = 0; d < val.shape.size() && !reported; ++d) {
          if (val.shape[d].substitute(env).as_const()) continue;
          r.error(op.loc,
                  "'" + std::string(op_kind_name(op.kind)) + "': axis " + std::to_string(d) + " of " +
                      (!val.name.empty() ? "'" + val.name + "'"
                       : v == op.output  ? std::string("its result")
                                         : std::string("its operand")) +
                      " has the dynamic extent " + val.shape[d].str() +
                      "; tiles need static shapes inside a root function",
                  "slice a static window inside a dynamic loop over blocks of that axis "
                  "(loop: {var: b, count: \"ceil_div(" + val.shape[d].str() + ", 64)\"} with x[b*64:(b+1)*64, :]); "
                  "tails are handled by valid shapes");
          reported = true;
          if (op.output >= 0) reported_values.insert(op.output);
        }
        if (reported) break;
      }
    }
  }
}

}  // namespace ptoc::fe
