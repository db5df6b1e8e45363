// program.json and graph.dot. program.json follows PyPTO's Program::DumpJsonFile
// as its tools read it (pypto-profiling.md section 1.3): one function per root
// (graphtype 2, EXECUTE_GRAPH) whose operations are the CALLs of its tasks,
// then one function per distinct kernel (graphtype 3, BLOCK_GRAPH) whose
// operations are the tile ops in schedule order. Task regions are the root's
// tensors (magic) over the GM tensors (rawmagic). As PyPTO writes them:
// hashes are decimal strings, datatype/format are PyPTO's DataType/TileOpFormat
// numbers, constant dims are integers (a symbolic dim stays its text), and every
// function, leaves included, lists the GM tensors it touches in `rawtensors`
// (draw_swim_lane.py resolves root and callee functions by hash string and reads
// each leaf's rawtensors). A task's L1Reuse/NBuffer order is in its CALL op_attr
// under PyPTO's keys (l1_reuse_hashOrder / _subgraphCount ...).
#include "compiler/codegen/graph_emit.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/core/json_out.h"
#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

using nlohmann::json;

constexpr int kExecuteGraph = 2, kBlockGraph = 3;

json dim(const DimExpr& e) {
  if (auto c = e.as_const()) return *c;
  return e.str();
}
json exprs(const std::vector<DimExpr>& v) {
  json a = json::array();
  for (const auto& e : v) a.push_back(dim(e));
  return a;
}
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
  }
  return 20;  // BOTTOM
}

std::string hash_text(uint64_t h) { return std::to_string(h); }

// The GM tensors a leaf touches: over every task that calls it, sorted.
std::vector<std::vector<int>> leaf_gm_tensors(const CompiledProgram& cp) {
  std::vector<std::vector<int>> out(cp.leaves.size());
  for (const RootFunction& rf : cp.roots)
    for (const Task& t : rf.tasks)
      if (t.leaf >= 0 && size_t(t.leaf) < out.size())
        for (const auto* v : {&t.reads, &t.writes})
          for (const Region& g : *v) out[size_t(t.leaf)].push_back(g.tensor);
  for (auto& v : out) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return out;
}

// The GM tensors of a kernel's leaves (one BLOCK_GRAPH per kernel).
std::vector<int> kernel_gm_tensors(const CompiledProgram& cp, const std::vector<std::vector<int>>& per_leaf, int kernel) {
  std::vector<int> v;
  for (size_t l = 0; l < cp.leaves.size(); ++l)
    if (cp.leaves[l].kernel == kernel) v.insert(v.end(), per_leaf[l].begin(), per_leaf[l].end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
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

std::string tile_op_name(const TileOp& op) {
  switch (op.kind) {
    case TileOpKind::CopyIn: return "COPY_IN";
    case TileOpKind::CopyOut: return "COPY_OUT";
    case TileOpKind::L1ToL0A: return "L1_TO_L0A";
    case TileOpKind::L1ToL0B: return "L1_TO_L0B";
    case TileOpKind::Mmad: return op.accumulate ? "A_MULACC_B" : "A_MUL_B";
    case TileOpKind::FixOut: return "FIX_OUT";
    case TileOpKind::Vec: break;
  }
  std::string s(op_kind_name(op.vop));
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string emit_program_json_reference(const PipelineResult& r) {
  const CompiledProgram& cp = r.compiled;
  const auto per_leaf = leaf_gm_tensors(cp);
  auto raw_entry = [&](int ti) {
    const GmTensor& g = cp.tensors.at(ti);
    static const char* roles[] = {"input", "output", "workspace", "temp"};
    return json{{"rawmagic", ti}, {"symbol", g.name}, {"datatype", pypto_datatype(g.dtype)},
                {"rawshape", exprs(g.shape)}, {"format", g.format == Format::NZ ? 1 : 0},
                {"role", roles[int(g.role)]}};
  };
  json functions = json::array();
  for (const RootFunction& rf : cp.roots) {
    json f;
    f["hash"] = hash_text(rf.hash);
    f["func_magicname"] = fmt::format("{}_{}", rf.name, rf.index);
    f["funcmagic"] = rf.index;
    f["graphtype"] = kExecuteGraph;
    f["loop_vars"] = rf.loop_vars;
    f["factor"] = rf.factor;
    json raw = json::array();
    std::vector<int> used;
    for (const Task& t : rf.tasks)
      for (const auto* v : {&t.reads, &t.writes})
        for (const Region& g : *v)
          if (std::find(used.begin(), used.end(), g.tensor) == used.end()) used.push_back(g.tensor);
    std::sort(used.begin(), used.end());
    for (int ti : used) raw.push_back(raw_entry(ti));
    json tensors = json::array(), ops = json::array();
    int magic = 0;
    auto region = [&](const Region& g) {
      tensors.push_back({{"magic", magic}, {"rawtensor", g.tensor}, {"offset", exprs(g.offset)},
                         {"shape", exprs(g.extent)}});
      return magic++;
    };
    for (size_t ti = 0; ti < rf.tasks.size(); ++ti) {
      const Task& t = rf.tasks[ti];
      const LeafFunction& lf = cp.leaves.at(t.leaf);
      json in = json::array(), out = json::array();
      for (const Region& g : t.reads) in.push_back(region(g));
      for (const Region& g : t.writes) out.push_back(region(g));
      json attr = {{"taskIndex", ti},
                   {"leafIndex", t.leaf},
                   {"kernel", cp.kernels.at(lf.kernel).name},
                   {"coreType", core_name(lf.core)},
                   {"hashOrder", fmt::format("func{}_{}", rf.index, t.hash_order)},
                   {"successors", t.succ},
                   {"predCount", t.pred_count},
                   {"estCycles", lf.est_cycles},
                   {"chains", lf.chains}};
      if (!lf.merge_info.empty()) attr["mergeInfo"] = lf.merge_info;
      for (const auto& [key, v] : merge_attrs(lf.merge_info)) {
        attr[key + "_hashOrder"] = v.first;
        attr[key + "_subgraphCount"] = v.second;
      }
      json op = {{"opmagic", t.op_magic}, {"opcode", "CALL"}, {"ioperands", in}, {"ooperands", out},
                 {"calleehash", hash_text(lf.hash)}, {"op_attr", attr}};
      if (!t.label.empty()) op["semantic_label"] = {{"label", t.label}};
      ops.push_back(std::move(op));
    }
    f["rawtensors"] = std::move(raw);
    f["tensors"] = std::move(tensors);
    f["operations"] = std::move(ops);
    functions.push_back(std::move(f));
  }
  // One BLOCK_GRAPH per kernel, from its first leaf.
  std::vector<bool> done(cp.kernels.size(), false);
  for (const LeafPlan& p : r.plans) {
    if (p.kernel < 0 || done[p.kernel]) continue;
    done[p.kernel] = true;
    const TileRoot& root = r.roots.at(p.root);
    json f;
    f["hash"] = hash_text(p.hash);
    f["func_magicname"] = cp.kernels[p.kernel].name;
    json raw = json::array();
    for (int ti : kernel_gm_tensors(cp, per_leaf, p.kernel)) raw.push_back(raw_entry(ti));
    f["rawtensors"] = std::move(raw);
    f["graphtype"] = kBlockGraph;
    f["coreType"] = core_name(p.core);
    json tensors = json::array(), ops = json::array();
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      const BufferSlot& s = p.buffers[b];
      const LocalTile& lt = local_tile(root, s.tile);
      tensors.push_back({{"magic", b}, {"memtype", std::string(mem_kind_name(s.mem))},
                         {"datatype", std::string(dtype_name(lt.dtype))}, {"shape", lt.shape},
                         {"memoryrange", {s.addr, s.addr + s.size}}});
    }
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const TileOp& op = tile_op(root, p.steps[i].op);
      json in = json::array(), out = json::array();
      for (int s : op.srcs) in.push_back(p.buffer_index(s));
      if (op.dst >= 0) out.push_back(p.buffer_index(op.dst));
      ops.push_back({{"opmagic", i},
                     {"opcode", tile_op_name(op)},
                     {"ioperands", in},
                     {"ooperands", out},
                     {"op_attr", {{"pipe", std::string(pipe_name(p.steps[i].pipe))},
                                  {"cycles", p.step_end[i] - p.step_start[i]},
                                  {"start", p.step_start[i]}}}});
    }
    f["tensors"] = std::move(tensors);
    f["operations"] = std::move(ops);
    functions.push_back(std::move(f));
  }
  json doc = {{"name", cp.name}, {"target", cp.target}, {"functions", std::move(functions)}};
  return doc.dump(1) + "\n";
}

// The same text as emit_program_json_reference, streamed (JsonOut): keys in
// sorted order, so a root function's operations come before its tensors; the
// tensor magics the operations cite are counted the way the tensors are then
// written (every task's reads, then its writes, in task order).
std::string emit_program_json(const PipelineResult& r) {
  const CompiledProgram& cp = r.compiled;
  const auto per_leaf = leaf_gm_tensors(cp);
  auto raw_entries = [&](JsonOut& o, const std::vector<int>& used) {
    o.key("rawtensors").begin_array();
    for (int ti : used) {
      const GmTensor& g = cp.tensors.at(ti);
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
  };
  JsonOut o(1);
  size_t tasks = 0;
  for (const RootFunction& rf : cp.roots) tasks += rf.tasks.size();
  o.reserve(1024 * tasks + 4096);
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
    for (size_t ti = 0; ti < rf.tasks.size(); ++ti) {
      const Task& t = rf.tasks[ti];
      const LeafFunction& lf = cp.leaves.at(t.leaf);
      o.begin_object();
      o.key("calleehash").value(hash_text(lf.hash));
      o.key("ioperands").begin_array();
      for (size_t k = 0; k < t.reads.size(); ++k) o.value(magic++);
      o.end_array();
      o.key("ooperands").begin_array();
      for (size_t k = 0; k < t.writes.size(); ++k) o.value(magic++);
      o.end_array();
      const auto merges = merge_attrs(lf.merge_info);
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
      o.key("predCount").value(t.pred_count);
      o.key("successors").array(t.succ);
      o.key("taskIndex").value(ti);
      merge_keys("vec_merge");
      o.end_object();
      o.key("opcode").value("CALL");
      o.key("opmagic").value(t.op_magic);
      if (!t.label.empty()) o.key("semantic_label").begin_object().key("label").value(t.label).end_object();
      o.end_object();
    }
    o.end_array();
    std::vector<int> used;
    for (const Task& t : rf.tasks)
      for (const auto* v : {&t.reads, &t.writes})
        for (const Region& g : *v) used.push_back(g.tensor);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    raw_entries(o, used);
    o.key("tensors").begin_array();
    magic = 0;
    for (const Task& t : rf.tasks)
      for (const auto* v : {&t.reads, &t.writes})
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
  // One BLOCK_GRAPH per kernel, from its first leaf.
  std::vector<bool> done(cp.kernels.size(), false);
  for (const LeafPlan& p : r.plans) {
    if (p.kernel < 0 || done[p.kernel]) continue;
    done[p.kernel] = true;
    const TileRoot& root = r.roots.at(p.root);
    o.begin_object();
    o.key("coreType").value(core_name(p.core));
    o.key("func_magicname").value(cp.kernels[p.kernel].name);
    o.key("graphtype").value(kBlockGraph);
    o.key("hash").value(hash_text(p.hash));
    o.key("operations").begin_array();
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const TileOp& op = tile_op(root, p.steps[i].op);
      o.begin_object();
      o.key("ioperands").begin_array();
      for (int s : op.srcs) o.value(p.buffer_index(s));
      o.end_array();
      o.key("ooperands").begin_array();
      if (op.dst >= 0) o.value(p.buffer_index(op.dst));
      o.end_array();
      o.key("op_attr").begin_object();
      o.key("cycles").value(p.step_end[i] - p.step_start[i]);
      o.key("pipe").value(pipe_name(p.steps[i].pipe));
      o.key("start").value(p.step_start[i]);
      o.end_object();
      o.key("opcode").value(tile_op_name(op));
      o.key("opmagic").value(i);
      o.end_object();
    }
    o.end_array();
    raw_entries(o, kernel_gm_tensors(cp, per_leaf, p.kernel));
    o.key("tensors").begin_array();
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      const BufferSlot& s = p.buffers[b];
      const LocalTile& lt = local_tile(root, s.tile);
      o.begin_object();
      o.key("datatype").value(dtype_name(lt.dtype));
      o.key("magic").value(b);
      o.key("memoryrange").begin_array().value(s.addr).value(s.addr + s.size).end_array();
      o.key("memtype").value(mem_kind_name(s.mem));
      o.key("shape").array(lt.shape);
      o.end_object();
    }
    o.end_array();
    o.end_object();
  }
  o.end_array();
  o.key("name").value(cp.name);
  o.key("target").value(cp.target);
  o.end_object();
  if (!o.ok()) return emit_program_json_reference(r);  // not UTF-8: the reference's behaviour
  return o.take() + "\n";
}

std::string emit_graph_dot(const PipelineResult& r) {
  const CompiledProgram& cp = r.compiled;
  std::ostringstream os;
  os << "digraph \"" << cp.name << "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (size_t ri = 0; ri < cp.roots.size(); ++ri) {
    const RootFunction& rf = cp.roots[ri];
    os << "  subgraph cluster_" << ri << " {\n    label=\"" << rf.name << " (func" << rf.index << ")\";\n";
    for (size_t ti = 0; ti < rf.tasks.size(); ++ti) {
      const Task& t = rf.tasks[ti];
      const LeafFunction& lf = cp.leaves.at(t.leaf);
      os << "    r" << ri << "_t" << ti << " [label=\"" << cp.kernels.at(lf.kernel).name << "\\n"
         << (lf.core == CoreType::AIC ? "AIC" : "AIV") << " func" << rf.index << "_" << t.hash_order;
      if (!t.label.empty()) os << " " << t.label;
      os << "\\n" << lf.est_cycles << " cycles\"" << (lf.core == CoreType::AIC ? ", style=filled, fillcolor=\"#dde8ff\"" : "")
         << "];\n";
    }
    for (size_t ti = 0; ti < rf.tasks.size(); ++ti)
      for (int s : rf.tasks[ti].succ) os << "    r" << ri << "_t" << ti << " -> r" << ri << "_t" << s << ";\n";
    os << "  }\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace ptoc
