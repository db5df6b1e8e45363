// Loop merging (the guide's "merge loops that can be merged"): adjacent
// dynamic loops with equal bounds and equal unroll gears, neither touching a
// tensor the other writes, become one loop; their bodies' roots are joined so
// that both bodies' subgraphs can merge (merging never crosses roots).
#include <set>

#include "compiler/passes/tile_build.h"
#include "compiler/passes/tiling.h"

namespace ptoc {

namespace {

void roots_under(const std::vector<LoopNode>& nodes, std::vector<int>& out) {
  for (auto& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) out.push_back(n.root);
    for (auto& g : n.gears) roots_under(g.body, out);
  }
}

void tensors_of(const Program& p, const LoopNode& n, std::set<int>& read, std::set<int>& written) {
  std::vector<int> roots;
  roots_under({n}, roots);
  for (int r : roots)
    for (int o : p.roots[r].ops) {
      const Op& op = p.ops[o];
      if (op.kind == OpKind::TensorRef) read.insert(op.tensor);
      if (op.kind == OpKind::Assemble) written.insert(op.tensor);
    }
}

bool disjoint(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a)
    if (b.count(x)) return false;
  return true;
}

void rename_in_nodes(Program& p, std::vector<LoopNode>& nodes, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return;
  auto rn = [&](DimExpr& e) { e = tiling::rename_symbol(e, from, to); };
  for (auto& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) {
      RootTemplate& rt = p.roots[n.root];
      for (auto& v : rt.loop_vars)
        if (v == from) v = to;
      for (int o : rt.ops) {
        Op& op = p.ops[o];
        for (auto& e : op.offsets) rn(e);
        for (auto& e : op.shape) rn(e);
        for (auto& e : op.valid) rn(e);
        if (op.output >= 0) {
          for (auto& e : p.values[op.output].shape) rn(e);
          for (auto& e : p.values[op.output].valid) rn(e);
        }
      }
      continue;
    }
    rn(n.begin);
    rn(n.end);
    rn(n.step);
    for (auto& g : n.gears) rename_in_nodes(p, g.body, from, to);
  }
}

// Run-time values are read per node with indices over its loop variables: such loops stay apart.
bool reads_runtime_values(const LoopNode& n) {
  if (!n.loads.empty()) return true;
  for (auto& g : n.gears)
    for (auto& c : g.body)
      if (reads_runtime_values(c)) return true;
  return false;
}

bool mergeable(const Program& p, const LoopNode& a, const LoopNode& b) {
  if (a.kind != LoopNode::Kind::Loop || b.kind != LoopNode::Kind::Loop) return false;
  if (reads_runtime_values(a) || reads_runtime_values(b)) return false;
  if (!a.begin.same(b.begin) || !a.end.same(b.end) || !a.step.same(b.step)) return false;
  if (a.gears.size() != b.gears.size()) return false;
  for (size_t i = 0; i < a.gears.size(); ++i)
    if (a.gears[i].factor != b.gears[i].factor) return false;
  std::set<int> ra, wa, rb, wb;
  tensors_of(p, a, ra, wa);
  tensors_of(p, b, rb, wb);
  return disjoint(wa, rb) && disjoint(wa, wb) && disjoint(wb, ra);
}

int merge_in(Program& p, std::vector<LoopNode>& nodes, std::set<int>& dead) {
  int merges = 0;
  for (size_t i = 0; i + 1 < nodes.size();) {
    LoopNode& a = nodes[i];
    LoopNode& b = nodes[i + 1];
    if (!mergeable(p, a, b)) {
      ++i;
      continue;
    }
    for (size_t gi = 0; gi < a.gears.size(); ++gi) {
      auto& bb = b.gears[gi].body;
      rename_in_nodes(p, bb, b.var, a.var);
      if (!b.factor_var.empty()) {
        if (!a.factor_var.empty())
          rename_in_nodes(p, bb, b.factor_var, a.factor_var);
        else
          a.factor_var = b.factor_var;
      }
      auto& ab = a.gears[gi].body;
      if (ab.size() == 1 && bb.size() == 1 && ab[0].kind == LoopNode::Kind::Root &&
          bb[0].kind == LoopNode::Kind::Root) {
        auto& ra = p.roots[ab[0].root];
        auto& rb = p.roots[bb[0].root];
        ra.ops.insert(ra.ops.end(), rb.ops.begin(), rb.ops.end());
        dead.insert(bb[0].root);
      } else {
        ab.insert(ab.end(), bb.begin(), bb.end());
      }
    }
    nodes.erase(nodes.begin() + long(i) + 1);
    ++merges;
  }
  for (auto& n : nodes)
    for (auto& g : n.gears) merges += merge_in(p, g.body, dead);
  return merges;
}

void renumber(std::vector<LoopNode>& nodes, const std::vector<int>& new_index) {
  for (auto& n : nodes) {
    if (n.kind == LoopNode::Kind::Root) n.root = new_index[n.root];
    for (auto& g : n.gears) renumber(g.body, new_index);
  }
}

}  // namespace

int merge_loops(Program& prog) {
  std::set<int> dead;
  int merges = merge_in(prog, prog.body, dead);
  if (dead.empty()) return merges;
  std::vector<int> new_index(prog.roots.size(), -1);
  std::vector<RootTemplate> kept;
  for (size_t i = 0; i < prog.roots.size(); ++i) {
    if (dead.count(int(i))) continue;
    new_index[i] = int(kept.size());
    kept.push_back(std::move(prog.roots[i]));
    kept.back().index = int(kept.size()) - 1;
  }
  prog.roots = std::move(kept);
  renumber(prog.body, new_index);
  return merges;
}

}  // namespace ptoc
