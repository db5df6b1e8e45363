#include "test/program/bundle_reference.h"

#include <nlohmann/json.hpp>

#include "runtime/program/bundle.h"
#include "runtime/program/task_instances.h"

namespace ptoc::test {

namespace {

using json = nlohmann::json;
using runtime::kBundleFormatVersion;

json dims_json(const std::vector<DimExpr>& v) {
  json a = json::array();
  for (auto& e : v) a.push_back(e.str());
  return a;
}
json loc_json(const SrcLoc& l) { return json::array({l.line, l.col}); }

json setting_json(const MergeSetting& s) {
  json e = json::array();
  for (auto& x : s.entries)
    e.push_back({{"key", merge_key_name(x.key)}, {"name", x.name}, {"func_magic", x.func_magic},
                 {"func_order", x.func_order}, {"count", x.count}, {"side", x.side}, {"loc", loc_json(x.loc)}});
  return {{"given", s.given}, {"entries", e}};
}

json options_json(const Options& o) {
  return {{"runtime",
           {{"stitch_function_max_num", o.stitch_function_max_num},
            {"device_sched_mode", o.device_sched_mode},
            {"max_workspace_kb", o.max_workspace_kb}}},
          {"pass",
           {{"cube_l1_reuse_setting", setting_json(o.cube_l1_reuse_setting)},
            {"cube_nbuffer_setting", setting_json(o.cube_nbuffer_setting)},
            {"vec_nbuffer_setting", setting_json(o.vec_nbuffer_setting)}}},
          {"codegen", {{"enable_pmu_trace", o.enable_pmu_trace}}},
          {"debug", {{"runtime_debug_mode", o.runtime_debug_mode}}}};
}

json region_json(const Region& r) {
  json j = {{"tensor", r.tensor}, {"offset", dims_json(r.offset)}, {"extent", dims_json(r.extent)}};
  if (r.loc.valid()) j["loc"] = {r.loc.line, r.loc.col};
  return j;
}

// Run-time values of a node; absent when it reads none.
void add_loads(json& j, const LoopNode& n) {
  if (n.loads.empty()) return;
  json loads = json::array();
  for (auto& l : n.loads)
    loads.push_back({{"sym", l.sym}, {"tensor", l.tensor}, {"index", dims_json(l.index)}, {"text", l.text},
                     {"loc", loc_json(l.loc)}});
  j["loads"] = loads;
}

json loop_json(const LoopNode& n) {
  if (n.kind == LoopNode::Kind::Root) {
    json j = {{"kind", "root"}, {"root", n.root}};
    add_loads(j, n);
    return j;
  }
  json gears = json::array();
  for (auto& g : n.gears) {
    json body = json::array();
    for (auto& b : g.body) body.push_back(loop_json(b));
    gears.push_back({{"factor", g.factor}, {"body", body}});
  }
  json j = {{"kind", "loop"}, {"var", n.var}, {"name", n.name}, {"factor_var", n.factor_var},
            {"begin", n.begin.str()}, {"end", n.end.str()}, {"step", n.step.str()}, {"gears", gears},
            {"loc", loc_json(n.loc)}};
  add_loads(j, n);
  return j;
}

json manifest_json(const CompiledProgram& p) {
  json dims = json::array();
  for (auto& d : p.dims)
    dims.push_back({{"name", d.name}, {"dynamic", d.dynamic}, {"value", d.value}, {"max", d.max},
                    {"divisible_by", d.divisible_by}, {"loc", loc_json(d.loc)}});
  json tensors = json::array();
  for (auto& t : p.tensors) {
    json j = {{"name", t.name}, {"role", gm_role_name(t.role)}, {"dtype", std::string(dtype_name(t.dtype))},
              {"shape", dims_json(t.shape)}, {"format", t.format == Format::NZ ? "NZ" : "ND"},
              {"l2_bypass", t.l2_bypass}, {"root", t.root}};
    if (t.values_hi >= t.values_lo) j["values"] = {t.values_lo, t.values_hi};
    if (t.inplace >= 0) j["inplace"] = t.inplace;
    tensors.push_back(j);
  }
  return {{"name", p.name},
          {"target", p.target},
          {"doc", p.doc},
          {"dims", dims},
          {"tensors", tensors},
          {"options", options_json(p.options)},
          {"toolchain", {{"compiler", std::string("ptoc ") + PTOC_VERSION}, {"bundle_format", kBundleFormatVersion}}},
          {"spec_file", p.spec_file},
          {"spec_source", p.spec_source},
          {"set_overrides", p.set_overrides}};
}

json task_body_json(const std::vector<DimExpr>& args, int cls, const std::vector<int>& gm,
                    const std::vector<Region>& rd, const std::vector<Region>& wr) {
  json reads = json::array(), writes = json::array();
  for (auto& x : rd) reads.push_back(region_json(x));
  for (auto& x : wr) writes.push_back(region_json(x));
  return {{"args", dims_json(args)}, {"class", cls}, {"gm", gm}, {"reads", reads}, {"writes", writes}};
}

json roots_json(const CompiledProgram& p) {
  json roots = json::array();
  for (auto& r : p.roots) {
    const CompactRoot cr = compact_root(p, r);
    json templates = json::array(), explicit_tasks = json::array(), instances = json::array();
    for (auto& t : cr.templates) {
      json j = task_body_json(t.args, t.cls, t.gm, t.reads, t.writes);
      j["group_of"] = t.group_of;
      j["groups"] = t.groups;
      templates.push_back(j);
    }
    for (auto& x : cr.explicit_tasks) explicit_tasks.push_back(task_body_json(x.args, x.cls, x.gm, x.reads, x.writes));
    for (auto& x : cr.instances)
      instances.push_back({x.tmpl, x.leaf, x.hash_order, x.label, x.succ,
                           x.tmpl >= 0 ? json(x.deltas) : json::array({x.explicit_task})});
    json root = {{"index", r.index}, {"name", r.name}, {"hash", r.hash}, {"loop_vars", r.loop_vars},
                 {"factor", r.factor}, {"templates", templates}, {"explicit", explicit_tasks},
                 {"instances", instances}, {"labels", cr.labels}, {"op_magic_base", cr.op_magic_base},
                 {"op_magics", cr.op_magics}, {"pred_counts", cr.pred_counts}, {"temps", r.temps}};
    if (!r.window_checks.empty()) {
      json checks = json::array();
      for (auto& w : r.window_checks)
        checks.push_back({{"axis", w.axis}, {"bound", dims_json({w.bound})}, {"extent", dims_json({w.extent})},
                          {"loc", loc_json(w.loc)}, {"source", w.source}, {"start", dims_json({w.start})}});
      root["window_checks"] = checks;
    }
    roots.push_back(root);
  }
  json control = json::array();
  for (auto& n : p.control) control.push_back(loop_json(n));
  return {{"roots", roots}, {"control", control}};
}

json leaves_json(const CompiledProgram& p) {
  json leaves = json::array();
  for (auto& l : p.leaves)
    leaves.push_back({{"id", l.id}, {"hash", l.hash}, {"core", core_type_name(l.core)}, {"kernel", l.kernel},
                      {"pipe_cycles", l.pipe_cycles}, {"est_cycles", l.est_cycles}, {"chains", l.chains},
                      {"ub_bytes", l.ub_bytes}, {"l1_bytes", l.l1_bytes}, {"l0a_bytes", l.l0a_bytes},
                      {"l0b_bytes", l.l0b_bytes}, {"l0c_bytes", l.l0c_bytes}, {"num_ops", l.num_ops},
                      {"merge_info", l.merge_info}});
  return leaves;
}

json kernels_json(const CompiledProgram& p) {
  json ks = json::array();
  for (auto& k : p.kernels)
    ks.push_back({{"name", k.name}, {"core", core_type_name(k.core)}, {"source", k.source}, {"source_hash", k.source_hash},
                  {"num_args", k.num_args}, {"num_gm", k.num_gm}});
  return ks;
}

}  // namespace

std::vector<uint8_t> encode_bundle_reference(const CompiledProgram& p, const std::vector<uint8_t>& host_twin_so,
                                             const std::vector<uint8_t>& device_binaries) {
  return runtime::pack_bundle(p, manifest_json(p).dump(1), roots_json(p).dump(), leaves_json(p).dump(1),
                              kernels_json(p).dump(1), host_twin_so, device_binaries);
}

}  // namespace ptoc::test
