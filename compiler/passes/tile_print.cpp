#include "compiler/passes/tile_print.h"

#include <fmt/format.h>

namespace ptoc {

namespace {

std::string_view tile_op_name(TileOpKind k) {
  switch (k) {
    case TileOpKind::CopyIn: return "copy_in";
    case TileOpKind::CopyOut: return "copy_out";
    case TileOpKind::L1ToL0A: return "l1_to_l0a";
    case TileOpKind::L1ToL0B: return "l1_to_l0b";
    case TileOpKind::Mmad: return "mmad";
    case TileOpKind::FixOut: return "fix_out";
    case TileOpKind::Vec: return "vec";
  }
  return "?";
}

std::string dims(const std::vector<DimExpr>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string ids(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::string print_tile_roots(const std::vector<TileRoot>& roots, const std::vector<LeafPlan>& plans) {
  std::string out;
  for (size_t r = 0; r < roots.size(); ++r) {
    const TileRoot& tr = roots[r];
    out += fmt::format("root {} (template {}): {} tiles, {} tile ops, {} subgraphs\n", r, tr.root, tr.tiles.size(),
                       tr.ops.size(), tr.subgraphs.size());
    for (const LocalTile& t : tr.tiles)
      out += fmt::format("  tile {} {} {} {} valid {}{}\n", t.id, mem_kind_name(t.mem), dtype_name(t.dtype),
                         ints(t.shape), dims(t.valid), t.layout == Format::NZ ? " NZ" : "");
    for (const TileOp& op : tr.ops) {
      out += fmt::format("  op {} {}", op.id, tile_op_name(op.kind));
      if (op.kind == TileOpKind::Vec) out += fmt::format(" {}", op_kind_name(op.vop));
      out += fmt::format(" ({}) -> {}", ids(op.srcs), op.dst);
      if (op.gm.tensor >= 0)
        out += fmt::format(" gm t{} at {} extent {}", op.gm.tensor, dims(op.gm.offset), dims(op.gm.extent));
      if (op.accumulate) out += " accumulate";
      if (op.atomic_add) out += " atomic_add";
      out += fmt::format(" chain {} src {}\n", op.chain, op.source_op);
    }
    for (const Subgraph& sg : tr.subgraphs)
      out += fmt::format("  subgraph {} {} ops ({}) succ ({}) chains {} scope {}{}{}\n", sg.id,
                         sg.core == CoreType::AIC ? "AIC" : "AIV", ids(sg.ops.vec()), ids(sg.succ), sg.chains, sg.scope,
                         sg.label.empty() ? "" : " label " + sg.label,
                         sg.merge_info.empty() ? "" : " [" + sg.merge_info + "]");
  }
  for (size_t i = 0; i < plans.size(); ++i) {
    const LeafPlan& p = plans[i];
    if (p.steps.empty()) continue;
    out += fmt::format("leaf plan {} (root {} subgraph {}){}\n", i, p.root, p.subgraph,
                       p.interleaved ? "" : " sequential order");
    out += "  steps";
    for (const LeafStep& s : p.steps) out += fmt::format(" {}:{}", s.op, pipe_name(s.pipe));
    out += "\n";
    for (const BufferSlot& b : p.buffers)
      out += fmt::format("  buffer tile {} {} @{} +{} live {}..{}\n", b.tile, mem_kind_name(b.mem), b.addr, b.size,
                         b.first, b.last);
  }
  return out;
}

}  // namespace ptoc
