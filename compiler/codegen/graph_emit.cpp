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
#include "runtime/program/program_json.h"
#include "runtime/program/root_tasks.h"
#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

using nlohmann::json;

using pjson::core_name;
using pjson::dims;
using pjson::hash_text;
using pjson::kBlockGraph;
using pjson::kExecuteGraph;
using pjson::kernel_gm_tensors;
using pjson::merge_attrs;
using pjson::pypto_datatype;

json dim(const DimExpr& e) {
  if (auto c = e.as_const()) return *c;
  return e.str();
}
json exprs(const std::vector<DimExpr>& v) {
  json a = json::array();
  for (const auto& e : v) a.push_back(dim(e));
  return a;
}
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
  const auto per_kernel = kernel_gm_tensors(cp);
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
    for (size_t ti = 0; ti < task_count(rf); ++ti)
      for_each_region_tensor(rf, ti, [&](int tensor, bool) {
        if (std::find(used.begin(), used.end(), tensor) == used.end()) used.push_back(tensor);
      });
    std::sort(used.begin(), used.end());
    for (int ti : used) raw.push_back(raw_entry(ti));
    json tensors = json::array(), ops = json::array();
    int magic = 0;
    auto region = [&](const Region& g) {
      tensors.push_back({{"magic", magic}, {"rawtensor", g.tensor}, {"offset", exprs(g.offset)},
                         {"shape", exprs(g.extent)}});
      return magic++;
    };
    const std::vector<int> preds = task_pred_counts(rf);
    for (size_t ti = 0; ti < task_count(rf); ++ti) {
      Task t = task_at(rf, ti, false);
      t.pred_count = preds[ti];
      const LeafFunction& lf = cp.leaves.at(size_t(cp.class_index(t)));
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
    for (int ti : per_kernel.at(size_t(p.kernel))) raw.push_back(raw_entry(ti));
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

// The BLOCK_GRAPH functions, one per kernel from its first leaf, each rendered (JsonOut, keys in
// sorted order) at its depth in program.json's functions array, without the separator before it.
std::vector<std::string> emit_program_json_blocks(const PipelineResult& r) {
  const CompiledProgram& cp = r.compiled;
  const auto per_kernel = kernel_gm_tensors(cp);
  std::vector<std::string> blocks;
  JsonOut o(1);
  o.begin_object();
  o.key("functions").begin_array();
  // One BLOCK_GRAPH per kernel, from its first leaf.
  std::vector<bool> done(cp.kernels.size(), false);
  for (const LeafPlan& p : r.plans) {
    if (p.kernel < 0 || done[p.kernel]) continue;
    done[p.kernel] = true;
    const TileRoot& root = r.roots.at(p.root);
    const size_t at = o.size();
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
    pjson::put_raw_tensors(o, cp, per_kernel.at(size_t(p.kernel)));
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
    std::string_view text = o.text().substr(at);
    blocks.emplace_back(text.substr(text.find('{')));
  }
  return blocks;
}

std::string emit_program_json(const PipelineResult& r) {
  bool ok = true;
  std::string text = pjson::assemble_program_json(r.compiled, emit_program_json_blocks(r), ok);
  if (!ok) return emit_program_json_reference(r);  // not UTF-8: the reference's behaviour
  return text;
}

std::string emit_graph_dot(const PipelineResult& r) {
  const CompiledProgram& cp = r.compiled;
  std::ostringstream os;
  os << "digraph \"" << cp.name << "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (size_t ri = 0; ri < cp.roots.size(); ++ri) {
    const RootFunction& rf = cp.roots[ri];
    os << "  subgraph cluster_" << ri << " {\n    label=\"" << rf.name << " (func" << rf.index << ")\";\n";
    for (size_t ti = 0; ti < task_count(rf); ++ti) {
      const Task t = task_at(rf, ti, false);
      const LeafFunction& lf = cp.leaves.at(size_t(cp.class_index(t)));
      os << "    r" << ri << "_t" << ti << " [label=\"" << cp.kernels.at(lf.kernel).name << "\\n"
         << (lf.core == CoreType::AIC ? "AIC" : "AIV") << " func" << rf.index << "_" << t.hash_order;
      if (!t.label.empty()) os << " " << t.label;
      os << "\\n" << lf.est_cycles << " cycles\"" << (lf.core == CoreType::AIC ? ", style=filled, fillcolor=\"#dde8ff\"" : "")
         << "];\n";
    }
    for (size_t ti = 0; ti < task_count(rf); ++ti)
      for (int s : task_succ(rf, ti)) os << "    r" << ri << "_t" << ti << " -> r" << ri << "_t" << s << ";\n";
    os << "  }\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace ptoc
