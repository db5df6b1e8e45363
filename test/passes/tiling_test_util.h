// Helpers for the tiling tests: run the tiler, count things, check invariants.
#pragma once
#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "compiler/passes/tiling.h"
#include "test/passes/program_builder.h"

namespace ptoc::test {

struct Tiled {
  std::vector<TileRoot> roots;
  TilingStats stats;
  std::string errors;
  bool ok = true;
};

inline Tiled tile(const Program& p) {
  Tiled t;
  std::string src;
  for (int i = 0; i < 60; ++i) src += "line " + std::to_string(i + 1) + " of the spec\n";
  DiagEngine d("t.yaml", src);
  try {
    t.roots = build_tile_roots(p, tiling_platform("ascend910b1"), d, &t.stats);
  } catch (const CompileError&) {
    t.ok = false;
  }
  std::ostringstream os;
  d.print(os);
  t.errors = os.str();
  if (!t.errors.empty()) UNSCOPED_INFO(t.errors);
  return t;
}

inline int count_core(const TileRoot& r, CoreType c) {
  int n = 0;
  for (auto& sg : r.subgraphs) n += sg.core == c;
  return n;
}

inline int count_ops(const TileRoot& r, TileOpKind k, MemKind dst_mem = MemKind::GM) {
  int n = 0;
  for (auto& sg : r.subgraphs)
    for (int o : sg.ops) {
      const TileOp& op = r.ops[o];
      if (op.kind != k) continue;
      if (dst_mem != MemKind::GM && (op.dst < 0 || r.tiles[op.dst].mem != dst_mem)) continue;
      ++n;
    }
  return n;
}

// Invariants every TileRoot must satisfy: ids are positions, succ sorted, unique,
// pointing forward (topological ids), each live op in exactly one subgraph, one
// core type per subgraph, tiles read in a subgraph written earlier in it.
inline void check_invariants(const TileRoot& r) {
  std::vector<int> owner(r.ops.size(), -1);
  for (size_t i = 0; i < r.subgraphs.size(); ++i) {
    const Subgraph& sg = r.subgraphs[i];
    REQUIRE(sg.id == int(i));
    REQUIRE_FALSE(sg.ops.empty());
    for (size_t k = 0; k < sg.succ.size(); ++k) {
      REQUIRE(sg.succ[k] > sg.id);
      if (k) REQUIRE(sg.succ[k] > sg.succ[k - 1]);
    }
    std::set<int> written;
    for (int o : sg.ops) {
      REQUIRE(owner[o] == -1);
      owner[o] = sg.id;
      const TileOp& op = r.ops[o];
      bool cube = op.kind == TileOpKind::Mmad || op.kind == TileOpKind::FixOut || op.kind == TileOpKind::L1ToL0A ||
                  op.kind == TileOpKind::L1ToL0B ||
                  (op.kind == TileOpKind::CopyIn && r.tiles[op.dst].mem != MemKind::UB);
      REQUIRE((sg.core == CoreType::AIC) == cube);
      for (int s : op.srcs) REQUIRE(written.count(s));
      if (op.dst >= 0) written.insert(op.dst);
    }
  }
  for (size_t i = 0; i < r.tiles.size(); ++i) REQUIRE(r.tiles[i].id == int(i));
  for (size_t i = 0; i < r.ops.size(); ++i) REQUIRE(r.ops[i].id == int(i));
}

inline bool has_succ(const TileRoot& r, int a, int b) {
  for (int s : r.subgraphs[a].succ)
    if (s == b) return true;
  return false;
}

inline int preds_of(const TileRoot& r, int b) {
  int n = 0;
  for (auto& sg : r.subgraphs) n += has_succ(r, sg.id, b);
  return n;
}

}  // namespace ptoc::test
