// Bundle encoding and decoding; see bundle.h for the layout.
#include "runtime/program/bundle.h"

#include "runtime/program/leaf_program.h"
#include "runtime/program/leaf_tiles.h"

#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>
#include <string_view>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/core/atomic_file.h"
#include "runtime/core/dim_expr_parse.h"
#include "runtime/core/json_out.h"
#include "runtime/core/resource_limits.h"
#include "runtime/program/bundle_bytes.h"
#include "runtime/program/bundle_verify.h"
#include "runtime/program/json_stream.h"
#include "runtime/program/knobs.h"
#include "runtime/program/task_instances.h"

namespace ptoc::runtime {

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr size_t kHeaderBytes = 16;
constexpr size_t kEntryBytes = 48;
constexpr size_t kNameBytes = 16;
constexpr size_t kSectionAlign = 64;

// ---------------------------------------------------------------- the writer
//
// JsonOut (runtime/core/json_out.h) streams the JSON text of each section straight into one buffer:
// objects with their keys in sorted order, as nlohmann's dump() writes them, so any JSON reader
// reads the sections back. An nlohmann DOM took most of the bundle write on a GEMM with a thousand
// tasks; a DOM writer of the same bytes is kept as the reference the tests compare against
// (test/program/bundle_reference.cpp). A string that is not well-formed UTF-8 is refused.

void put_loc(JsonOut& o, const SrcLoc& l) { o.begin_array().value(l.line).value(l.col).end_array(); }

void put_setting(JsonOut& o, const MergeSetting& s) {
  o.begin_object().key("entries").begin_array();
  for (auto& x : s.entries) {
    o.begin_object();
    o.key("count").value(x.count);
    o.key("func_magic").value(x.func_magic);
    o.key("func_order").value(x.func_order);
    o.key("key").value(merge_key_name(x.key));
    o.key("loc");
    put_loc(o, x.loc);
    o.key("name").value(x.name);
    o.key("side").value(x.side);
    o.end_object();
  }
  o.end_array();
  o.key("given").value(s.given);
  o.end_object();
}

// The knob table's rows (runtime/program/knobs.h), groups and keys in sorted order like every object here.
void put_options(JsonOut& o, const Options& op) {
  std::map<std::string_view, std::map<std::string_view, const Knob*>> groups;
  for (const Knob& k : knobs()) groups[k.group][k.key] = &k;
  o.begin_object();
  for (const auto& [group, keys] : groups) {
    o.key(group).begin_object();
    for (const auto& [key, k] : keys) {
      o.key(key);
      switch (k->type) {
        case Knob::Type::Int: o.value(k->get(op)); break;
        case Knob::Type::Bool: o.value(k->get(op) != 0); break;
        case Knob::Type::Setting: put_setting(o, op.*(k->setting)); break;
      }
    }
    o.end_object();
  }
  o.end_object();
}

std::string manifest_text(const CompiledProgram& p, bool& ok) {
  JsonOut o(1);
  o.reserve(p.spec_source.size() + 256 * p.tensors.size() + 4096);
  o.begin_object();
  o.key("dims").begin_array();
  for (auto& d : p.dims) {
    o.begin_object();
    o.key("divisible_by").value(d.divisible_by);
    o.key("dynamic").value(d.dynamic);
    o.key("loc");
    put_loc(o, d.loc);
    o.key("max").value(d.max);
    o.key("name").value(d.name);
    o.key("value").value(d.value);
    o.end_object();
  }
  o.end_array();
  o.key("doc").value(p.doc);
  o.key("name").value(p.name);
  o.key("options");
  put_options(o, p.options);
  o.key("set_overrides").array(p.set_overrides);
  o.key("spec_file").value(p.spec_file);
  o.key("spec_source").value(p.spec_source);
  o.key("target").value(p.target);
  o.key("tensors").begin_array();
  for (auto& t : p.tensors) {
    o.begin_object();
    o.key("dtype").value(dtype_name(t.dtype));
    o.key("format").value(t.format == Format::NZ ? "NZ" : "ND");
    if (t.inplace >= 0) o.key("inplace").value(int64_t(t.inplace));  // keys sorted; absent: its own memory
    o.key("l2_bypass").value(t.l2_bypass);
    o.key("name").value(t.name);
    o.key("role").value(gm_role_name(t.role));
    o.key("root").value(t.root);
    o.key("shape").array(t.shape);
    if (t.values_hi >= t.values_lo) o.key("values").begin_array().value(t.values_lo).value(t.values_hi).end_array();
    o.end_object();
  }
  o.end_array();
  o.key("toolchain").begin_object();
  o.key("bundle_format").value(kBundleFormatVersion);
  o.key("compiler").value(std::string("ptoc ") + PTOC_VERSION);
  o.end_object();
  o.end_object();
  ok = o.ok();
  return o.take();
}

void put_region(JsonOut& o, const Region& r) {
  o.begin_object();
  o.key("extent").array(r.extent);
  if (r.loc.valid()) o.key("loc").begin_array().value(r.loc.line).value(r.loc.col).end_array();
  o.key("offset").array(r.offset);
  o.key("tensor").value(r.tensor);
  o.end_object();
}

// Run-time values of a node (absent when it reads none, so bundles without them are unchanged).
void put_loads(JsonOut& o, const LoopNode& n) {
  if (n.loads.empty()) return;
  o.key("loads").begin_array();
  for (auto& l : n.loads) {
    o.begin_object();
    o.key("index").array(l.index);
    o.key("loc");
    put_loc(o, l.loc);
    o.key("sym").value(l.sym);
    o.key("tensor").value(l.tensor);
    o.key("text").value(l.text);
    o.end_object();
  }
  o.end_array();
}

void put_loop(JsonOut& o, const LoopNode& n) {
  o.begin_object();
  if (n.kind == LoopNode::Kind::Root) {
    o.key("kind").value("root");
    put_loads(o, n);
    o.key("root").value(n.root);
    o.end_object();
    return;
  }
  o.key("begin").value(n.begin);
  o.key("end").value(n.end);
  o.key("factor_var").value(n.factor_var);
  o.key("gears").begin_array();
  for (auto& g : n.gears) {
    o.begin_object().key("body").begin_array();
    for (auto& b : g.body) put_loop(o, b);
    o.end_array().key("factor").value(g.factor).end_object();
  }
  o.end_array();
  o.key("kind").value("loop");
  put_loads(o, n);
  o.key("loc");
  put_loc(o, n.loc);
  o.key("name").value(n.name);
  o.key("step").value(n.step);
  o.key("var").value(n.var);
  o.end_object();
}

void put_task_body(JsonOut& o, const std::vector<DimExpr>& args, int cls, const std::vector<int>& gm,
                   const std::vector<Region>& reads) {
  o.key("args").array(args);
  o.key("class").value(cls);
  o.key("gm").array(gm);
  o.key("reads").begin_array();
  for (auto& x : reads) put_region(o, x);
  o.end_array();
}
void put_writes(JsonOut& o, const std::vector<Region>& writes) {
  o.key("writes").begin_array();
  for (auto& x : writes) put_region(o, x);
  o.end_array();
}

// Tasks as templates + instance records (task_instances.h). An instance is the array
// [template, leaf, hash_order, label, successors, deltas]; template -1 with deltas [k]: explicit task k.
void put_compact_root(JsonOut& o, const CompactRoot& cr) {
  o.key("explicit").begin_array();
  for (auto& x : cr.explicit_tasks) {
    o.begin_object();
    put_task_body(o, x.args, x.cls, x.gm, x.reads);
    put_writes(o, x.writes);
    o.end_object();
  }
  o.end_array();
}
void put_instances(JsonOut& o, const CompactRoot& cr) {
  o.key("instances").begin_array();
  for (auto& r : cr.instances) {
    o.begin_array().value(r.tmpl).value(r.leaf).value(r.hash_order).value(r.label).array(r.succ);
    if (r.tmpl >= 0) o.array(r.deltas);
    else o.begin_array().value(r.explicit_task).end_array();
    o.end_array();
  }
  o.end_array();
  o.key("labels").array(cr.labels);
}
void put_templates(JsonOut& o, const CompactRoot& cr) {
  o.key("op_magic_base").value(cr.op_magic_base);
  o.key("op_magics").array(cr.op_magics);
  o.key("pred_counts").array(cr.pred_counts);
  o.key("templates").begin_array();
  for (auto& t : cr.templates) {
    o.begin_object();
    o.key("args").array(t.args);
    o.key("class").value(t.cls);
    o.key("gm").array(t.gm);
    o.key("group_of").array(t.group_of);
    o.key("groups").value(t.groups);
    o.key("reads").begin_array();
    for (auto& x : t.reads) put_region(o, x);
    o.end_array();
    put_writes(o, t.writes);
    o.end_object();
  }
  o.end_array();
}

std::string roots_text(const CompiledProgram& p, bool& ok) {
  JsonOut o(-1);
  o.reserve(64 * 1024);
  o.begin_object();
  o.key("control").begin_array();
  for (auto& n : p.control) put_loop(o, n);
  o.end_array();
  o.key("roots").begin_array();
  for (auto& r : p.roots) {
    CompactRoot scratch;
    const CompactRoot& cr = compact_of(p, r, scratch);
    o.begin_object();
    put_compact_root(o, cr);
    o.key("factor").value(r.factor);
    o.key("hash").value(r.hash);
    o.key("index").value(r.index);
    put_instances(o, cr);
    o.key("loop_vars").array(r.loop_vars);
    o.key("name").value(r.name);
    put_templates(o, cr);
    o.key("temps").array(r.temps);
    if (!r.window_checks.empty()) {  // absent when there are none: older bundles read the same
      o.key("window_checks").begin_array();
      for (auto& w : r.window_checks) {
        o.begin_object();
        o.key("axis").value(w.axis);
        o.key("bound").array(std::vector<DimExpr>{w.bound});
        o.key("extent").array(std::vector<DimExpr>{w.extent});
        o.key("loc");
        put_loc(o, w.loc);
        o.key("source").value(w.source);
        o.key("start").array(std::vector<DimExpr>{w.start});
        o.end_object();
      }
      o.end_array();
    }
    o.end_object();
  }
  o.end_array();
  o.end_object();
  ok = o.ok();
  return o.take();
}

std::string leaves_text(const CompiledProgram& p, bool& ok) {
  JsonOut o(1);
  o.reserve(400 * p.leaves.size() + 64);
  o.begin_array();
  for (auto& l : p.leaves) {
    o.begin_object();
    o.key("chains").value(l.chains);
    o.key("core").value(core_type_name(l.core));
    o.key("est_cycles").value(l.est_cycles);
    o.key("hash").value(l.hash);
    o.key("id").value(l.id);
    o.key("kernel").value(l.kernel);
    o.key("l0a_bytes").value(l.l0a_bytes);
    o.key("l0b_bytes").value(l.l0b_bytes);
    o.key("l0c_bytes").value(l.l0c_bytes);
    o.key("l1_bytes").value(l.l1_bytes);
    o.key("merge_info").value(l.merge_info);
    o.key("num_ops").value(l.num_ops);
    o.key("pipe_cycles").array(l.pipe_cycles);
    o.key("ub_bytes").value(l.ub_bytes);
    o.end_object();
  }
  o.end_array();
  ok = o.ok();
  return o.take();
}

std::string kernels_text(const CompiledProgram& p, bool& ok) {
  JsonOut o(1);
  size_t bytes = 64;
  for (auto& k : p.kernels) bytes += k.source.size() + k.source.size() / 8 + 128;
  o.reserve(bytes);
  o.begin_array();
  for (auto& k : p.kernels) {
    o.begin_object();
    o.key("core").value(core_type_name(k.core));
    o.key("name").value(k.name);
    o.key("num_args").value(k.num_args);
    o.key("num_gm").value(k.num_gm);
    o.key("source").value(k.source);
    o.key("source_hash").value(k.source_hash);
    o.end_object();
  }
  o.end_array();
  ok = o.ok();
  return o.take();
}

// ---------------------------------------------------------------- from JSON

// Expressions read while a roots section is decoded, by text: a task's arguments and regions
// repeat the same few expressions thousands of times, and a DimExpr is an immutable tree of shared
// nodes, so each distinct text is parsed once and its nodes shared (a parsed expression takes about
// 20 times its text). Bounded, so that a crafted section of distinct texts cannot double its memory.
class DimTextCache {
 public:
  static constexpr size_t kMaxEntries = size_t(1) << 20;
  DimExpr parse(const std::string& text) {
    if (auto it = cache_.find(text); it != cache_.end()) return it->second;
    DimExpr e = parse_dim_expr(text);
    if (!e.is_const() && cache_.size() < kMaxEntries) cache_.emplace(text, e);
    return e;
  }

 private:
  std::unordered_map<std::string, DimExpr> cache_;
};
thread_local DimTextCache* tl_dim_cache = nullptr;

// Installs a cache for the decode of one section.
struct DimCacheScope {
  DimTextCache cache;
  DimCacheScope() { tl_dim_cache = &cache; }
  ~DimCacheScope() { tl_dim_cache = nullptr; }
  DimCacheScope(const DimCacheScope&) = delete;
  DimCacheScope& operator=(const DimCacheScope&) = delete;
};

DimExpr dim_from(const std::string& text) { return tl_dim_cache ? tl_dim_cache->parse(text) : parse_dim_expr(text); }

std::vector<DimExpr> dims_from(const json& a) {
  std::vector<DimExpr> v;
  v.reserve(a.size());
  for (auto& s : a) v.push_back(s.is_string() ? dim_from(s.get_ref<const std::string&>()) : dim_from(s.get<std::string>()));
  return v;
}
SrcLoc loc_from(const json& a) { return SrcLoc{a.at(0).get<int>(), a.at(1).get<int>()}; }

template <class E>
E enum_from(const json& s, std::initializer_list<std::pair<const char*, E>> names, const char* what) {
  std::string v = s.get<std::string>();
  for (auto& [n, e] : names)
    if (v == n) return e;
  throw std::runtime_error(std::string("unknown ") + what + " '" + v + "'");
}

CoreType core_from(const json& s) { return enum_from<CoreType>(s, {{"AIV", CoreType::AIV}, {"AIC", CoreType::AIC}}, "core type"); }

MergeSetting setting_from(const json& j) {
  MergeSetting s;
  s.given = j.at("given").get<bool>();
  for (auto& e : j.at("entries")) {
    MergeSetting::Entry x;
    x.key = enum_from<MergeSetting::Entry::Key>(e.at("key"),
                                                {{"global", MergeSetting::Entry::Key::Global},
                                                 {"default", MergeSetting::Entry::Key::Default},
                                                 {"func", MergeSetting::Entry::Key::Func},
                                                 {"label", MergeSetting::Entry::Key::Label}},
                                                "merge-setting key");
    x.name = e.at("name").get<std::string>();
    x.func_magic = e.at("func_magic").get<int64_t>();
    x.func_order = e.at("func_order").get<int64_t>();
    x.count = e.at("count").get<int64_t>();
    x.side = e.at("side").get<std::string>();
    x.loc = loc_from(e.at("loc"));
    s.entries.push_back(std::move(x));
  }
  return s;
}

Options options_from(const json& j) {
  Options o;
  for (const Knob& k : knobs()) {
    const json& v = j.at(std::string(k.group)).at(std::string(k.key));
    switch (k.type) {
      case Knob::Type::Int: k.set(o, v.get<int64_t>()); break;
      case Knob::Type::Bool: k.set(o, v.get<bool>()); break;
      case Knob::Type::Setting: o.*(k.setting) = setting_from(v); break;
    }
  }
  return o;
}

Region region_from(const json& j) {
  Region r;
  r.tensor = j.at("tensor").get<int>();
  r.offset = dims_from(j.at("offset"));
  r.extent = dims_from(j.at("extent"));
  if (auto it = j.find("loc"); it != j.end() && it->is_array() && it->size() == 2) {
    r.loc.line = (*it)[0].get<int>();
    r.loc.col = (*it)[1].get<int>();
  }
  return r;
}

void loads_from(const json& j, LoopNode& n) {
  auto it = j.find("loads");
  if (it == j.end()) return;
  for (auto& l : *it) {
    ScalarLoad x;
    x.sym = l.at("sym").get<std::string>();
    x.tensor = l.at("tensor").get<int>();
    x.index = dims_from(l.at("index"));
    x.text = l.at("text").get<std::string>();
    x.loc = loc_from(l.at("loc"));
    n.loads.push_back(std::move(x));
  }
}

// The loop nest's depth, walked with an explicit stack before anything recurses over it
// (loop_from, the control flow, `ptorun info`): a crafted nest 20 000 deep is refused here.
void check_loop_depth(const json& control) {
  const int64_t cap = limits::get(limits::Id::loop_depth);
  std::vector<std::pair<const json*, int64_t>> stack;
  if (!control.is_array()) throw std::runtime_error("'control' is not a list of loop nodes");
  for (const json& n : control) stack.emplace_back(&n, 1);
  while (!stack.empty()) {
    auto [n, depth] = stack.back();
    stack.pop_back();
    if (depth > cap)
      throw std::runtime_error("the control-flow loop nest is deeper than the loop_depth limit of " +
                               std::to_string(cap) + " levels; " + limits::raise_hint(limits::Id::loop_depth));
    if (!n->is_object()) throw std::runtime_error("a control-flow node is not an object");
    auto g = n->find("gears");
    if (g == n->end()) continue;
    if (!g->is_array()) throw std::runtime_error("a loop's 'gears' is not a list");
    for (const json& gear : *g) {
      if (!gear.is_object()) throw std::runtime_error("a gear is not an object");
      auto b = gear.find("body");
      if (b == gear.end()) continue;
      if (!b->is_array()) throw std::runtime_error("a gear's 'body' is not a list");
      for (const json& c : *b) stack.emplace_back(&c, depth + 1);
    }
  }
}

LoopNode loop_from(const json& j) {
  LoopNode n;
  loads_from(j, n);
  if (j.at("kind").get<std::string>() == "root") {
    n.kind = LoopNode::Kind::Root;
    n.root = j.at("root").get<int>();
    return n;
  }
  n.kind = LoopNode::Kind::Loop;
  n.var = j.at("var").get<std::string>();
  n.name = j.at("name").get<std::string>();
  n.factor_var = j.at("factor_var").get<std::string>();
  n.begin = parse_dim_expr(j.at("begin").get<std::string>());
  n.end = parse_dim_expr(j.at("end").get<std::string>());
  n.step = parse_dim_expr(j.at("step").get<std::string>());
  n.loc = loc_from(j.at("loc"));
  for (auto& g : j.at("gears")) {
    Gear gear;
    gear.factor = g.at("factor").get<int64_t>();
    for (auto& b : g.at("body")) gear.body.push_back(loop_from(b));
    n.gears.push_back(std::move(gear));
  }
  return n;
}

void manifest_from(const json& j, CompiledProgram& p, std::string& toolchain) {
  p.name = j.at("name").get<std::string>();
  p.target = j.at("target").get<std::string>();
  p.doc = j.at("doc").get<std::string>();
  for (auto& d : j.at("dims")) {
    DimDecl x;
    x.name = d.at("name").get<std::string>();
    x.dynamic = d.at("dynamic").get<bool>();
    x.value = d.at("value").get<int64_t>();
    x.max = d.at("max").get<int64_t>();
    x.divisible_by = d.at("divisible_by").get<int64_t>();
    x.loc = loc_from(d.at("loc"));
    p.dims.push_back(std::move(x));
  }
  for (auto& t : j.at("tensors")) {
    GmTensor x;
    x.name = t.at("name").get<std::string>();
    x.role = enum_from<GmTensor::Role>(t.at("role"),
                                       {{"input", GmTensor::Role::Input}, {"output", GmTensor::Role::Output},
                                        {"workspace", GmTensor::Role::Workspace}, {"temp", GmTensor::Role::Temp}},
                                       "tensor role");
    auto dt = parse_dtype(t.at("dtype").get<std::string>());
    if (!dt) throw std::runtime_error("unknown dtype '" + t.at("dtype").get<std::string>() + "'");
    x.dtype = *dt;
    x.shape = dims_from(t.at("shape"));
    x.format = enum_from<Format>(t.at("format"), {{"ND", Format::ND}, {"NZ", Format::NZ}}, "format");
    x.l2_bypass = t.at("l2_bypass").get<bool>();
    x.root = t.at("root").get<int>();
    if (auto v = t.find("values"); v != t.end() && v->is_array() && v->size() == 2) {
      x.values_lo = (*v)[0].get<int64_t>();
      x.values_hi = (*v)[1].get<int64_t>();
    }
    if (auto v = t.find("inplace"); v != t.end()) x.inplace = v->get<int>();
    p.tensors.push_back(std::move(x));
  }
  p.options = options_from(j.at("options"));
  toolchain = j.at("toolchain").at("compiler").get<std::string>();
  p.spec_file = j.at("spec_file").get<std::string>();
  p.spec_source = j.at("spec_source").get<std::string>();
  p.set_overrides = j.at("set_overrides").get<std::vector<std::string>>();
}

void task_body_from(const json& t, Task& k) {
  k.cls = t.at("class").get<int>();
  k.gm = t.at("gm").get<std::vector<int>>();
  k.args = dims_from(t.at("args"));
  for (auto& g : t.at("reads")) k.reads.push_back(region_from(g));
  for (auto& g : t.at("writes")) k.writes.push_back(region_from(g));
}

// The parts of a root function's compact form other than its instances and explicit tasks,
// which arrive one at a time (RootsReader below).
void compact_root_rest(const json& r, CompactRoot& cr) {
  for (auto& t : r.at("templates")) {
    TaskTemplate tp;
    Task body;
    task_body_from(t, body);
    tp.cls = body.cls;
    tp.gm = std::move(body.gm);
    tp.args = std::move(body.args);
    tp.reads = std::move(body.reads);
    tp.writes = std::move(body.writes);
    tp.group_of = t.at("group_of").get<std::vector<int>>();
    tp.groups = t.at("groups").get<int>();
    cr.templates.push_back(std::move(tp));
  }
  cr.labels = r.at("labels").get<std::vector<std::string>>();
  cr.op_magic_base = r.at("op_magic_base").get<int>();
  cr.op_magics = r.at("op_magics").get<std::vector<int>>();
  cr.pred_counts = r.at("pred_counts").get<std::vector<int>>();
}

TaskInstanceRecord instance_from(const json& a) {
  if (!a.is_array() || a.size() != 6) throw std::runtime_error("an instance record is not [template, leaf, hash_order, label, successors, deltas]");
  TaskInstanceRecord x;
  x.tmpl = a[0].get<int>();
  x.leaf = a[1].get<int>();
  x.hash_order = a[2].get<int>();
  x.label = a[3].get<int>();
  x.succ = a[4].get<std::vector<int>>();
  if (x.tmpl >= 0) {
    x.deltas = a[5].get<std::vector<int64_t>>();
  } else {
    if (a[5].size() != 1) throw std::runtime_error("an explicit instance's last field is not [task index]");
    x.explicit_task = a[5][0].get<int>();
  }
  return x;
}

// The root function of `r` (its keys but the streamed ones) and `cr`, verified against the classes
// and tensors and kept in compact form (RootFunction::compact; root_tasks.h reads it).
RootFunction root_from(const json& r, CompactRoot& cr, const CompiledProgram& p, const std::string& who) {
  RootFunction x;
  x.index = r.at("index").get<int>();
  x.name = r.at("name").get<std::string>();
  x.hash = r.at("hash").get<uint64_t>();
  x.loop_vars = r.at("loop_vars").get<std::vector<std::string>>();
  x.factor = r.at("factor").get<int64_t>();
  x.temps = r.at("temps").get<std::vector<int>>();
  if (auto it = r.find("window_checks"); it != r.end())
    for (auto& w : *it) {
      WindowCheck c;
      c.axis = w.at("axis").get<int>();
      auto one = [&](const char* k) {
        auto v = dims_from(w.at(k));
        if (v.size() != 1) throw std::runtime_error(std::string("window check: '") + k + "' must hold one expression");
        return v[0];
      };
      c.bound = one("bound");
      c.extent = one("extent");
      c.start = one("start");
      c.loc = loc_from(w.at("loc"));
      c.source = w.at("source").get<std::string>();
      x.window_checks.push_back(std::move(c));
    }
  compact_root_rest(r, cr);
  if (std::string bad = validate_compact_root(cr, p.leaves.size(), p.tensors.size()); !bad.empty())
    throw BundleError(who + "corrupted bundle: root function '" + x.name + "' (#" + std::to_string(p.roots.size()) +
                      "): " + bad + "; recompile the spec");
  x.compact = std::make_shared<const CompactRoot>(std::move(cr));
  return x;
}

// The roots section, {"control": [...], "roots": [{..., "explicit": [...], "instances": [...], ...}]},
// decoded incrementally (json_stream.h): each root function's instance records and explicit tasks
// are decoded one at a time and each root is kept as its records when it ends, so the memory is the decoded
// program, not a DOM of the whole section (about 30 bytes per byte of text).
class RootsReader : public JsonStreamReader {
 public:
  RootsReader(CompiledProgram& p, const std::string& who) : p_(p), who_(who) {}

  bool stream(const JsonPath& path, bool is_array) override {
    if (path.empty()) return !is_array;
    const std::string& top = path[0].key;
    if (path.size() == 1 && top == "roots") {
      if (is_array) once(seen_roots_, "roots");
      return is_array;
    }
    if (top != "roots") return false;
    if (path.size() == 2) {
      if (is_array) return false;
      rest_ = json::object();
      cr_ = CompactRoot();
      seen_instances_ = seen_explicit_ = false;
      return true;
    }
    if (path.size() == 3 && is_array) {
      if (path[2].key == "instances") return once(seen_instances_, "instances"), true;
      if (path[2].key == "explicit") return once(seen_explicit_, "explicit"), true;
    }
    return false;
  }

  void value(const JsonPath& path, json&& v) override {
    if (path.empty()) throw std::runtime_error("the section is not an object");
    const std::string& top = path[0].key;
    if (path.size() == 1) {
      if (top == "roots") throw std::runtime_error("'roots' is not a list");
      if (top == "control") {
        once(seen_control_, "control");
        control_ = std::move(v);
      }
      return;  // other keys are not read
    }
    if (path.size() == 2) throw std::runtime_error("a root function is not an object");
    const std::string& key = path[2].key;
    if (path.size() == 3) {
      if (key == "instances" || key == "explicit") throw std::runtime_error("'" + key + "' is not a list");
      rest_[key] = std::move(v);
      return;
    }
    if (key == "instances") cr_.instances.push_back(instance_from(v));
    else task_body_from(v, cr_.explicit_tasks.emplace_back());
  }

  void end(const JsonPath& path) override {
    if (path.size() == 2) {
      if (!seen_instances_) throw std::runtime_error("key 'instances' not found");
      if (!seen_explicit_) throw std::runtime_error("key 'explicit' not found");
      p_.roots.push_back(root_from(rest_, cr_, p_, who_));
      rest_ = json();
      cr_ = CompactRoot();
    }
  }

  // After the parse: the loop nest.
  void finish() {
    if (!seen_roots_) throw std::runtime_error("key 'roots' not found");
    if (!seen_control_) throw std::runtime_error("key 'control' not found");
    check_loop_depth(control_);
    for (auto& n : control_) p_.control.push_back(loop_from(n));
  }

 private:
  // A key the reader walks into or keeps may appear once (a DOM would keep the last one silently).
  static void once(bool& seen, const char* key) {
    if (seen) throw std::runtime_error(std::string("key '") + key + "' appears twice");
    seen = true;
  }

  CompiledProgram& p_;
  const std::string& who_;
  json control_, rest_;
  CompactRoot cr_;
  bool seen_roots_ = false, seen_control_ = false, seen_instances_ = false, seen_explicit_ = false;
};

void roots_from(BundleBytes& src, const BundleSection& s, CompiledProgram& p, const std::string& who) {
  DimCacheScope dims;
  RootsReader r(p, who);
  src.parse(s.offset, s.length, r);
  r.finish();
}

void leaves_from(const json& j, CompiledProgram& p) {
  for (auto& l : j) {
    LeafFunction x;
    x.id = l.at("id").get<int>();
    x.hash = l.at("hash").get<uint64_t>();
    x.core = core_from(l.at("core"));
    x.kernel = l.at("kernel").get<int>();
    x.pipe_cycles = l.at("pipe_cycles").get<std::array<int64_t, kNumPipes>>();
    x.est_cycles = l.at("est_cycles").get<int64_t>();
    x.chains = l.at("chains").get<int>();
    x.ub_bytes = l.at("ub_bytes").get<int64_t>();
    x.l1_bytes = l.at("l1_bytes").get<int64_t>();
    x.l0a_bytes = l.at("l0a_bytes").get<int64_t>();
    x.l0b_bytes = l.at("l0b_bytes").get<int64_t>();
    x.l0c_bytes = l.at("l0c_bytes").get<int64_t>();
    x.num_ops = l.at("num_ops").get<int>();
    x.merge_info = l.at("merge_info").get<std::string>();
    p.leaves.push_back(std::move(x));
  }
}

void kernels_from(const json& j, CompiledProgram& p) {
  for (auto& k : j) {
    Kernel x;
    x.name = k.at("name").get<std::string>();
    x.core = core_from(k.at("core"));
    x.source = k.at("source").get<std::string>();
    x.source_hash = k.at("source_hash").get<uint64_t>();
    x.num_args = k.at("num_args").get<int>();
    x.num_gm = k.at("num_gm").get<int>();
    p.kernels.push_back(std::move(x));
  }
}

// ---------------------------------------------------------------- binary helpers

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
uint64_t get_u64_of(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(b[at + size_t(i)])) << (8 * i);
  return v;
}

}  // namespace

namespace {

// Lays the sections out behind the header and section table (bundle.h).
std::vector<uint8_t> pack_sections(const std::vector<std::pair<std::string, std::string_view>>& sections) {
  size_t table_end = kHeaderBytes + kEntryBytes * sections.size() + 8;
  size_t pos = (table_end + kSectionAlign - 1) / kSectionAlign * kSectionAlign;
  std::vector<size_t> offsets;
  for (auto& s : sections) {
    offsets.push_back(pos);
    pos = (pos + s.second.size() + kSectionAlign - 1) / kSectionAlign * kSectionAlign;
  }
  size_t total = offsets.empty() ? table_end : offsets.back() + sections.back().second.size();
  std::vector<uint8_t> out(total, 0);
  std::memcpy(out.data(), kBundleMagic, 8);
  put_u32(out, 8, kBundleFormatVersion);
  put_u32(out, 12, uint32_t(sections.size()));
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t e = kHeaderBytes + kEntryBytes * i;
    auto& [name, data] = sections[i];
    std::memcpy(out.data() + e, name.data(), std::min(name.size(), kNameBytes - 1));
    put_u64(out, e + 16, offsets[i]);
    put_u64(out, e + 24, data.size());
    put_u64(out, e + 32, XXH64(data.data(), data.size(), 0));
    if (!data.empty()) std::memcpy(out.data() + offsets[i], data.data(), data.size());
  }
  put_u64(out, table_end - 8, XXH64(out.data(), table_end - 8, 0));
  return out;
}

std::string_view view_of(const std::vector<uint8_t>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// "leaf_programs": u32 kernel count, then per kernel (CompiledProgram::kernels order) a u64
// length and its encoded leaf program (runtime/program/leaf_program.h). Absent when no kernel has one.
std::string leaf_programs_bytes(const CompiledProgram& p) {
  bool any = false;
  for (const Kernel& k : p.kernels) any |= !k.program.empty();
  if (!any) return {};
  std::string out;
  auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
  };
  put(p.kernels.size(), 4);
  for (const Kernel& k : p.kernels) {
    put(k.program.size(), 8);
    out.append(reinterpret_cast<const char*>(k.program.data()), k.program.size());
  }
  return out;
}

// Reads the section back into the kernels and verifies every program, so a corrupted one is
// refused at load like any other corrupted section.
void leaf_programs_from(const uint8_t* d, uint64_t n, CompiledProgram& p) {
  auto get = [&](uint64_t& at, int bytes) {
    if (n - at < uint64_t(bytes)) throw std::runtime_error("truncated");
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(d[at + uint64_t(i)]) << (8 * i);
    at += uint64_t(bytes);
    return v;
  };
  uint64_t at = 0;
  if (get(at, 4) != p.kernels.size()) throw std::runtime_error("its kernel count differs from the kernels section");
  for (Kernel& k : p.kernels) {
    uint64_t len = get(at, 8);
    if (len > n - at) throw std::runtime_error("truncated");
    k.program.assign(d + at, d + at + len);
    at += len;
    if (len == 0) continue;
    leaf::LeafProgram lp = leaf::decode_leaf_program(k.program.data(), k.program.size());
    if (lp.kernel != k.name || lp.num_args != k.num_args || lp.num_gm != k.num_gm)
      throw std::runtime_error("kernel '" + k.name + "': the leaf program does not match its kernel's name, args or slots");
    leaf::verify_leaf_program(lp);
    if (std::string bad = leaf::verify_leaf_tiles(lp); !bad.empty())
      throw std::runtime_error("kernel '" + k.name + "': " + bad);
  }
  if (at != n) throw std::runtime_error("trailing bytes");
}

// Every byte of the file is covered: the header and table by their checksum, each section by
// its own, and the rest must be what pack_sections writes, so nothing can hide in it. Sections
// sit in table order, each at the next multiple of 64 after the previous one ends; the padding
// bytes are zero and the file ends where the last section does (no trailing bytes).
void check_layout(BundleBytes& b, const std::vector<BundleSection>& sections, size_t table_end,
                  const std::string& who) {
  auto align = [](uint64_t x) { return (x + kSectionAlign - 1) / kSectionAlign * kSectionAlign; };
  uint64_t end = table_end;
  for (const BundleSection& s : sections) {
    const uint64_t expect = align(end);
    if (s.offset != expect)
      throw BundleError(who + "corrupted bundle: section '" + s.name + "' starts at byte " + std::to_string(s.offset) +
                        ", the layout puts it at " + std::to_string(expect) +
                        " (sections follow each other in table order, 64-byte aligned)");
    const std::string_view pad = b.view(end, s.offset - end);  // under 64 bytes: s.offset is align(end)
    for (uint64_t i = end; i < s.offset; ++i)
      if (pad[size_t(i - end)] != 0)
        throw BundleError(who + "corrupted bundle: padding byte " + std::to_string(i) + " before section '" + s.name +
                          "' is not 0");
    end = s.offset + s.length;
  }
  if (b.size() > end)
    throw BundleError(who + "corrupted bundle: " + std::to_string(b.size() - end) +
                      " trailing bytes after the last section (the file should end at byte " + std::to_string(end) +
                      ")");
}

}  // namespace

std::vector<uint8_t> pack_bundle(const CompiledProgram& p, const std::string& manifest, const std::string& roots,
                                 const std::string& leaves, const std::string& kernels,
                                 const std::vector<uint8_t>& host_twin_so,
                                 const std::vector<uint8_t>& device_binaries) {
  std::vector<std::pair<std::string, std::string_view>> sections;
  sections.emplace_back("manifest", manifest);
  sections.emplace_back("roots", roots);
  sections.emplace_back("leaves", leaves);
  sections.emplace_back("kernels", kernels);
  sections.emplace_back("host_twin", view_of(host_twin_so));
  const std::string leaf_programs = leaf_programs_bytes(p);
  if (!leaf_programs.empty()) sections.emplace_back("leaf_programs", leaf_programs);
  if (!device_binaries.empty()) sections.emplace_back("device_bin", view_of(device_binaries));
  // program.json: only its BLOCK_GRAPH functions; the reader rebuilds the rest from the tasks.
  std::string blocks;
  if (!p.graph_json.empty() || p.graph_from_blocks) {
    JsonOut o(-1);
    o.array(p.graph_blocks);
    blocks = o.take();
    sections.emplace_back("program_json", blocks);
  }
  return pack_sections(sections);
}


std::vector<uint8_t> encode_bundle(const CompiledProgram& p, const std::vector<uint8_t>& host_twin_so,
                                   const std::vector<uint8_t>& device_binaries) {
  bool ok[4];
  std::string manifest = manifest_text(p, ok[0]), roots = roots_text(p, ok[1]), leaves = leaves_text(p, ok[2]),
              kernels = kernels_text(p, ok[3]);
  if (!(ok[0] && ok[1] && ok[2] && ok[3]))
    throw BundleError("cannot write the bundle of '" + p.name +
                      "': a text in it (spec source, doc, label or name) is not well-formed UTF-8");
  return pack_bundle(p, manifest, roots, leaves, kernels, host_twin_so, device_binaries);
}

void write_bundle(const std::string& path, const CompiledProgram& p, const std::vector<uint8_t>& host_twin_so,
                  const std::vector<uint8_t>& device_binaries) {
  std::vector<uint8_t> bytes = encode_bundle(p, host_twin_so, device_binaries);
  // Regular files are replaced atomically; devices and pipes are written in place (atomic_file.h).
  try {
    write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const std::runtime_error& e) {
    // "cannot write PATH: REASON" -> "PATH: cannot write the bundle: REASON", as before.
    std::string why = e.what();
    const std::string lead = "cannot write " + path + ": ";
    if (why.rfind(lead, 0) == 0) why = why.substr(lead.size());
    throw BundleError(path + ": cannot write the bundle: " + why);
  }
}

namespace {

// The reader proper, over the bytes wherever they are (bundle_bytes.h).
LoadedBundle decode_from(BundleBytes& b, const std::string& path) {
  LoadedBundle lb;
  lb.path = path;
  lb.file_size = b.size();
  const std::string who = path + ": ";
  if (b.size() < 8 || std::memcmp(b.view(0, 8).data(), kBundleMagic, 8) != 0)
    throw BundleError(who + "not a ptoc bundle (wrong magic; expected a file written by `ptoc SPEC -o BUNDLE`)");
  if (b.size() < kHeaderBytes) throw BundleError(who + "truncated bundle (" + std::to_string(b.size()) + " bytes)");
  std::string head(b.view(0, kHeaderBytes));
  auto u32 = [&](size_t at) { return uint32_t(get_u64_of(head, at, 4)); };
  auto u64 = [&](size_t at) { return get_u64_of(head, at, 8); };
  lb.format_version = u32(8);
  if (lb.format_version != kBundleFormatVersion)
    throw BundleError(who + "bundle format " + std::to_string(lb.format_version) + ", this ptorun reads format " +
                      std::to_string(kBundleFormatVersion) + ": recompile with this ptoc");
  uint32_t n = u32(12);
  if (n > 64) throw BundleError(who + "corrupted bundle: implausible section count " + std::to_string(n));
  size_t table_end = kHeaderBytes + kEntryBytes * n + 8;
  if (b.size() < table_end)
    throw BundleError(who + "truncated bundle: " + std::to_string(b.size()) + " bytes, the section table alone needs " +
                      std::to_string(table_end));
  head.assign(b.view(0, table_end));
  if (XXH64(head.data(), table_end - 8, 0) != u64(table_end - 8))
    throw BundleError(who + "corrupted bundle: the header checksum does not match");
  for (uint32_t i = 0; i < n; ++i) {
    size_t e = kHeaderBytes + kEntryBytes * i;
    BundleSection s;
    const char* nm = head.data() + e;
    s.name.assign(nm, strnlen(nm, kNameBytes));
    s.offset = u64(e + 16);
    s.length = u64(e + 24);
    s.checksum = u64(e + 32);
    if (s.offset > b.size() || s.length > b.size() - s.offset)
      throw BundleError(who + "truncated bundle: section '" + s.name + "' needs bytes up to " +
                        std::to_string(s.offset + s.length) + ", the file has " + std::to_string(b.size()));
    if (b.hash(s.offset, s.length) != s.checksum)
      throw BundleError(who + "corrupted bundle: checksum mismatch in section '" + s.name + "'");
    if (u64(e + 40) != 0)
      throw BundleError(who + "corrupted bundle: section '" + s.name + "': the reserved field of its table entry is not 0");
    for (const BundleSection& o : lb.sections)
      if (o.name == s.name) throw BundleError(who + "corrupted bundle: section '" + s.name + "' appears twice");
    lb.sections.push_back(std::move(s));
  }
  check_layout(b, lb.sections, table_end, who);
  auto find = [&](const std::string& name, bool required) -> const BundleSection* {
    for (auto& s : lb.sections)
      if (s.name == name) return &s;
    if (required) throw BundleError(who + "corrupted bundle: section '" + name + "' is missing");
    return nullptr;
  };
  auto parse = [&](const BundleSection& s) {
    try {
      // No float anywhere: the writer has none, and get<int>() of one out of range is undefined.
      const std::string_view text = b.view(s.offset, s.length);
      return json::parse(text.begin(), text.end(), [&](int, json::parse_event_t ev, json& v) {
        if (ev == json::parse_event_t::value && v.is_number_float())
          throw BundleError(who + "corrupted bundle: section '" + s.name +
                            "' does not have the expected content: " + float_refusal(v.dump()));
        return true;
      });
    } catch (const json::exception& e) {
      throw BundleError(who + "corrupted bundle: section '" + s.name + "' is not valid JSON: " + e.what());
    }
  };
  std::string current;
  try {
    current = "manifest";
    manifest_from(parse(*find("manifest", true)), lb.program, lb.toolchain);
    current = "leaves";
    leaves_from(parse(*find("leaves", true)), lb.program);
    current = "roots";
    const BundleSection& rs = *find("roots", true);
    try {
      roots_from(b, rs, lb.program, who);
    } catch (const JsonSyntaxError& e) {
      throw BundleError(who + "corrupted bundle: section 'roots' is not valid JSON: " + e.what());
    }
    current = "kernels";
    kernels_from(parse(*find("kernels", true)), lb.program);
  } catch (const BundleError&) {
    throw;
  } catch (const std::bad_alloc&) {
    // Not corruption: the decoded JSON of a very large bundle (a compile of millions of tiles) takes
    // many times its bytes.
    const auto* s = find(current, false);
    throw BundleError(who + "out of memory decoding section '" + current + "' (" +
                      std::to_string(s ? s->length : 0) + " bytes of JSON): the bundle is too large for this " +
                      "machine's memory; compile the spec with larger tiles or a smaller static extent");
  } catch (const std::exception& e) {
    throw BundleError(who + "corrupted bundle: section '" + current + "' does not have the expected content: " +
                      e.what());
  }
  if (auto* s = find("host_twin", true)) {
    const std::string_view v = b.view(s->offset, s->length);
    lb.host_twin_so.assign(v.begin(), v.end());
  }
  if (auto* s = find("leaf_programs", false)) {
    try {
      const std::string_view v = b.view(s->offset, s->length);
      leaf_programs_from(reinterpret_cast<const uint8_t*>(v.data()), v.size(), lb.program);
    } catch (const std::exception& e) {
      throw BundleError(who + "corrupted bundle: section 'leaf_programs' is refused: " + e.what());
    }
  }
  if (auto* s = find("program_json", false)) {
    try {
      lb.program.graph_blocks = parse(*s).get<std::vector<std::string>>();
    } catch (const json::exception& e) {
      throw BundleError(who + "corrupted bundle: section 'program_json' is not a list of functions: " + e.what());
    }
    lb.program.graph_from_blocks = true;
  }
  if (auto* s = find("device_bin", false)) {
    const std::string_view v = b.view(s->offset, s->length);
    lb.device_binaries.assign(v.begin(), v.end());
  }
  if (std::string bad = verify_program_indices(lb.program); !bad.empty())
    throw BundleError(who + "corrupted bundle: " + bad + "; recompile the spec");
  return lb;
}

}  // namespace

LoadedBundle decode_bundle(const std::vector<uint8_t>& bytes, const std::string& path) {
  MemoryBundleBytes b(bytes.data(), bytes.size());
  return decode_from(b, path);
}

LoadedBundle read_bundle(const std::string& path) {
  const int64_t cap = limits::get(limits::Id::bundle_bytes);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw BundleError(path + ": cannot open the bundle: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw BundleError(path + ": is a directory, not a bundle: give the file `ptoc SPEC -o FILE` wrote");
  // A device has no size and may never end (/dev/zero); pipes are read up to the cap, as specs are.
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    throw BundleError(path + ": is a device, not a bundle: give the file `ptoc SPEC -o FILE` wrote");
  auto too_big = [&](const std::string& size) {
    return BundleError(path + ": " + size + " bytes, more than the bundle size limit of " + std::to_string(cap) +
                       " bytes; " + limits::raise_hint(limits::Id::bundle_bytes));
  };
  if (S_ISREG(st.st_mode) && st.st_size > cap) throw too_big("the file has " + std::to_string(st.st_size));
  if (S_ISREG(st.st_mode)) {
    // Read in pieces as it is decoded, never whole (bundle_bytes.h).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw BundleError(path + ": cannot open the bundle: " + std::strerror(errno));
    struct stat fst {};
    if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode) || fst.st_size > cap) {
      ::close(fd);
      throw BundleError(path + ": the bundle changed while it was opened: run again");
    }
    FileBundleBytes b(fd, uint64_t(fst.st_size), path);
    return decode_from(b, path);
  }
  // A pipe: read up to the cap.
  std::ifstream f(path, std::ios::binary);
  if (!f) throw BundleError(path + ": cannot open the bundle: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  char buf[1 << 16];
  while (f) {
    f.read(buf, sizeof buf);
    bytes.insert(bytes.end(), buf, buf + f.gcount());
    if (int64_t(bytes.size()) > cap) throw too_big("more than " + std::to_string(cap));
  }
  if (f.bad()) throw BundleError(path + ": cannot read the bundle: " + std::strerror(errno));
  return decode_bundle(bytes, path);
}

}  // namespace ptoc::runtime
