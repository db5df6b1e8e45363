// program.json from the compiled program; see program_json.h.
#include "runtime/program/program_json.h"

#include "runtime/program/root_tasks.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace ptoc::pjson {

void dims(JsonOut& o, const std::vector<DimExpr>& v) {
  o.begin_array();
  for (const auto& e : v) {
    if (auto c = e.as_const()) o.value(*c);
    else o.value(e.str());
  }
  o.end_array();
}

// PyPTO's DataType enum (function_json_convert.py DataType) and TileOpFormat (ND 0, NZ 1).
int pypto_datatype(DType t) {
  switch (t) {
    case DType::int8: return 1;
    case DType::int32: return 3;
    case DType::fp16: return 6;
    case DType::fp32: return 7;
    case DType::bf16: return 8;
    case DType::uint8: return 11;
    case DType::boolean: return 15;
    case DType::int64: return 4;
    case DType::int16: return 2;
    case DType::uint16: return 12;
    case DType::uint32: return 13;
    case DType::uint64: return 14;
    case DType::fp8e5m2: return 17;
    case DType::fp8e4m3: return 18;
    case DType::fp8e8m0: return 19;
  }
  return 20;  // BOTTOM
}

std::string hash_text(uint64_t h) { return std::to_string(h); }

// The GM tensors each kernel touches: over every task that calls a leaf of it, sorted (one
// BLOCK_GRAPH per kernel). One pass over the tasks, whatever the number of leaves or classes.
std::vector<std::vector<int>> kernel_gm_tensors(const CompiledProgram& cp) {
  std::vector<std::vector<int>> out(cp.kernels.size());
  // Each tensor entered once per kernel (a GEMM's tasks name the same few tensors thousands of times).
  const size_t nt = cp.tensors.size();
  std::vector<std::vector<char>> seen(cp.kernels.size());
  for (const RootFunction& rf : cp.roots)
    for (size_t ti = 0; ti < task_count(rf); ++ti) {
      const int c = task_class(rf, ti);
      const LeafFunction* lf = c >= 0 && size_t(c) < cp.leaves.size() ? &cp.leaves[size_t(c)] : nullptr;
      if (!lf || lf->kernel < 0 || size_t(lf->kernel) >= out.size()) continue;
      std::vector<char>& mine = seen[size_t(lf->kernel)];
      if (mine.empty()) mine.assign(nt, 0);
      for_each_region_tensor(rf, ti, [&](int g, bool) {
        if (g >= 0 && size_t(g) < nt) {
          if (mine[size_t(g)]) return;
          mine[size_t(g)] = 1;
        }
        out[size_t(lf->kernel)].push_back(g);
      });
    }
  for (auto& v : out) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return out;
}

// "l1ReuseInfo hashOrder: func8_0, subGraphCount: 24" (LeafFunction::merge_info; cubeNBufferInfo and
// vecNBufferInfo are PyPTO's cube_merge / vec_merge) as
// PyPTO's op_attr keys: {"l1_reuse_hashOrder": "func8_0", "l1_reuse_subgraphCount": 24}.
std::vector<std::pair<std::string, std::pair<std::string, int64_t>>> merge_attrs(const std::string& info) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"l1ReuseInfo", "l1_reuse"}, {"cubeNBufferInfo", "cube_merge"}, {"vecNBufferInfo", "vec_merge"},
      {"cubeMergeInfo", "cube_merge"}, {"vecMergeInfo", "vec_merge"}};
  std::vector<std::pair<std::string, std::pair<std::string, int64_t>>> out;
  size_t pos = 0;
  while (pos < info.size()) {
    size_t nl = info.find('\n', pos);
    std::string line = info.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? info.size() : nl + 1;
    for (auto [label, key] : kinds) {
      const std::string head = std::string(label) + " hashOrder: ";
      const std::string mid = ", subGraphCount: ";
      if (line.rfind(head, 0) != 0) continue;
      size_t m = line.find(mid, head.size());
      if (m == std::string::npos) continue;
      out.push_back({key, {line.substr(head.size(), m - head.size()), std::stoll(line.substr(m + mid.size()))}});
    }
  }
  return out;
}

const char* core_name(CoreType c) { return c == CoreType::AIC ? "AIC" : "AIV"; }


void put_raw_tensors(JsonOut& o, const CompiledProgram& cp, const std::vector<int>& used) {
  o.key("rawtensors").begin_array();
  for (int ti : used) {
    const GmTensor& g = cp.tensors.at(size_t(ti));
    static const char* roles[] = {"input", "output", "workspace", "temp"};
    o.begin_object();
    o.key("datatype").value(pypto_datatype(g.dtype));
    o.key("format").value(g.format == Format::NZ ? 1 : 0);
    o.key("rawmagic").value(ti);
    o.key("rawshape");
    dims(o, g.shape);
    o.key("role").value(roles[int(g.role)]);
    o.key("symbol").value(g.name);
    o.end_object();
  }
  o.end_array();
}

// Keys in sorted order, so a root function's operations come before its tensors; the tensor magics
// the operations cite are counted the way the tensors are then written (every task's reads, then its
// writes, in task order).
std::string assemble_program_json(const CompiledProgram& cp, const std::vector<std::string>& blocks, bool& ok) {
  JsonOut o(1);
  size_t tasks = 0, block_bytes = 0;
  for (const RootFunction& rf : cp.roots) tasks += task_count(rf);
  for (auto& b : blocks) block_bytes += b.size() + 8;
  o.reserve(1024 * tasks + block_bytes + 4096);
  o.begin_object();
  o.key("functions").begin_array();
  for (const RootFunction& rf : cp.roots) {
    o.begin_object();
    o.key("factor").value(rf.factor);
    o.key("func_magicname").value(fmt::format("{}_{}", rf.name, rf.index));
    o.key("funcmagic").value(rf.index);
    o.key("graphtype").value(kExecuteGraph);
    o.key("hash").value(hash_text(rf.hash));
    o.key("loop_vars").array(rf.loop_vars);
    o.key("operations").begin_array();
    int magic = 0;
    const std::vector<int> pred_counts = task_pred_counts(rf);
    // Each task is resolved once: its regions are kept for the tensors list below.
    std::vector<std::pair<std::vector<Region>, std::vector<Region>>> regions;
    regions.reserve(task_count(rf));
    // merge_attrs of a leaf class, parsed once per class (a GEMM: one class, thousands of tasks).
    std::vector<std::optional<std::vector<std::pair<std::string, std::pair<std::string, int64_t>>>>> merges_of(
        cp.leaves.size());
    for (size_t ti = 0; ti < task_count(rf); ++ti) {
      Task t = task_at(rf, ti, false);
      const size_t cls = size_t(cp.class_index(t));
      const LeafFunction& lf = cp.leaves.at(cls);
      o.begin_object();
      o.key("calleehash").value(hash_text(lf.hash));
      o.key("ioperands").begin_array();
      for (size_t k = 0; k < t.reads.size(); ++k) o.value(magic++);
      o.end_array();
      o.key("ooperands").begin_array();
      for (size_t k = 0; k < t.writes.size(); ++k) o.value(magic++);
      o.end_array();
      if (!merges_of[cls]) merges_of[cls] = merge_attrs(lf.merge_info);
      const auto& merges = *merges_of[cls];
      auto merge_keys = [&](const char* kind) {
        for (const auto& [key, v] : merges)
          if (key == kind) {
            o.key(key + "_hashOrder").value(v.first);
            o.key(key + "_subgraphCount").value(v.second);
          }
      };
      o.key("op_attr").begin_object();
      o.key("chains").value(lf.chains);
      o.key("coreType").value(core_name(lf.core));
      merge_keys("cube_merge");
      o.key("estCycles").value(lf.est_cycles);
      o.key("hashOrder").value(fmt::format("func{}_{}", rf.index, t.hash_order));
      o.key("kernel").value(cp.kernels.at(lf.kernel).name);
      merge_keys("l1_reuse");
      o.key("leafIndex").value(t.leaf);
      if (!lf.merge_info.empty()) o.key("mergeInfo").value(lf.merge_info);
      o.key("predCount").value(pred_counts[ti]);
      o.key("successors").array(t.succ);
      o.key("taskIndex").value(ti);
      merge_keys("vec_merge");
      o.end_object();
      o.key("opcode").value("CALL");
      o.key("opmagic").value(t.op_magic);
      if (!t.label.empty()) o.key("semantic_label").begin_object().key("label").value(t.label).end_object();
      o.end_object();
      regions.emplace_back(std::move(t.reads), std::move(t.writes));
    }
    o.end_array();
    std::vector<int> used;
    for (size_t ti = 0; ti < task_count(rf); ++ti) for_each_region_tensor(rf, ti, [&](int g, bool) { used.push_back(g); });
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    put_raw_tensors(o, cp, used);
    o.key("tensors").begin_array();
    magic = 0;
    for (const auto& [reads, writes] : regions)
      for (const auto* v : {&reads, &writes})
        for (const Region& g : *v) {
          o.begin_object();
          o.key("magic").value(magic++);
          o.key("offset");
          dims(o, g.offset);
          o.key("rawtensor").value(g.tensor);
          o.key("shape");
          dims(o, g.extent);
          o.end_object();
        }
    o.end_array();
    o.end_object();
  }
  for (const std::string& b : blocks) o.raw_value(b);
  o.end_array();
  o.key("name").value(cp.name);
  o.key("target").value(cp.target);
  o.end_object();
  ok = o.ok();
  return o.take() + "\n";
}

}  // namespace ptoc::pjson

namespace ptoc {

std::string program_json_text(const CompiledProgram& cp) {
  if (!cp.graph_json.empty() || !cp.graph_from_blocks) return cp.graph_json;
  bool ok = true;
  return pjson::assemble_program_json(cp, cp.graph_blocks, ok);
}

}  // namespace ptoc
