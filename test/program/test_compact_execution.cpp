// A loaded bundle's roots stay compact (instance records, never expanded): the control flow resolves
// each task from its template and deltas when it builds a device task. Over every library spec with
// static dims, the device tasks walked from the compact program are the ones walked from the
// compiler's explicit tasks, field by field (arguments, GM addresses, accesses, edges), and the
// accessors of root_tasks.h read the same task from both forms.
#include <catch2/catch.hpp>

#include <fstream>
#include <optional>
#include <sstream>

#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/control_flow.h"
#include "runtime/core/platform.h"
#include "runtime/program/bundle.h"
#include "runtime/program/root_tasks.h"
#include "test/library_specs.h"
#include "test/program/compile_spec_file.h"

using ptoc::test::library_specs;
using namespace ptoc;
using namespace ptoc::runtime;

namespace {

// Every field of a device task's tasks, as text.
std::string device_task_text(const DeviceTask& dt, bool with_args) {
  std::ostringstream o;
  o << "seq " << dt.seq << " ws " << dt.workspace_bytes << " roots " << dt.roots.size() << " waits";
  for (int w : dt.waits_for) o << " " << w;
  o << "\n";
  for (const TaskInstance& t : dt.tasks) {
    o << t.root_instance << " " << t.task << " " << t.leaf << " " << t.cls << " " << t.task_id << " p" << t.pred_count
      << " gm";
    for (auto g : t.gm) o << " " << g;
    o << " args";
    if (with_args)
      for (auto a : t.args) o << " " << a;
    else
      o << (t.args.empty() ? " none" : " some");
    o << " acc";
    for (const GmAccess& a : t.accesses)
      o << " " << a.tensor << (a.write ? "w" : "r") << (a.atomic ? "a" : "") << "@" << a.addr << "x" << a.rows << "*"
        << a.row_bytes << "/" << a.row_stride;
    o << " succ";
    for (auto s : t.succ) o << " " << s;
    o << "\n";
  }
  return o.str();
}

std::string walk_text(const CompiledProgram& p, const DimExpr::Env& env, bool resolve_args, bool with_args = true) {
  ControlFlowOptions o = ControlFlowOptions::from(p.options);
  o.resolve_args = resolve_args;
  ControlFlow cf(p, env, o);
  std::string out;
  DeviceTask dt;
  while (cf.next(dt)) {
    out += device_task_text(dt, with_args);
    cf.release(dt.seq);
  }
  return out;
}

}  // namespace

TEST_CASE("compact execution: device tasks from instance records equal those from explicit tasks", "[instances]") {
  int compared = 0;
  for (const auto& spec : library_specs()) {
    INFO(spec);
    auto r = ptoc::test::compile_spec_file(spec, ptoc::test::explicit_tasks());
    if (!r) continue;
    const CompiledProgram& cp = r->compiled;
    if (!host_value_tensors(cp).empty()) continue;  // needs run-time values read from an input
    DimExpr::Env env;
    bool is_static = true;
    for (const DimDecl& d : cp.dims) {
      is_static = is_static && !d.dynamic;
      env[d.name] = d.value;
    }
    if (!is_static) continue;
    const LoadedBundle lb = decode_bundle(encode_bundle(cp, {}), "b");
    REQUIRE(lb.program.roots.size() == cp.roots.size());
    for (size_t ri = 0; ri < cp.roots.size(); ++ri) {
      const RootFunction& mem = cp.roots[ri];
      const RootFunction& rec = lb.program.roots[ri];
      REQUIRE(rec.compact);
      REQUIRE(rec.tasks.empty());  // never expanded
      REQUIRE(task_count(rec) == mem.tasks.size());
      const std::vector<int> preds = task_pred_counts(rec);
      for (size_t i = 0; i < mem.tasks.size(); ++i) {
        const Task& t = mem.tasks[i];
        CHECK(task_leaf(rec, i) == t.leaf);
        CHECK(task_class(rec, i) == cp.class_index(t));
        CHECK(task_succ(rec, i) == t.succ);
        CHECK(task_op_magic(rec, i) == t.op_magic);
        CHECK(task_gm(rec, i) == t.gm);
        CHECK(task_arg_count(rec, i) == t.args.size());
        CHECK(preds[i] == t.pred_count);
      }
    }
    const std::string want = walk_text(cp, env, true);
    CHECK(walk_text(lb.program, env, true) == want);
    // Without arguments (timing only): everything else the same.
    std::string want_no_args = walk_text(cp, env, true, false);
    for (size_t at; (at = want_no_args.find("args some")) != std::string::npos;) want_no_args.replace(at, 9, "args none");
    CHECK(walk_text(lb.program, env, false, false) == want_no_args);
    ++compared;
  }
  CHECK(compared >= 15);
}

TEST_CASE("compact execution: task_at resolves a task with its predecessor count", "[instances]") {
  auto r = ptoc::test::compile_spec_file(ptoc::test::source_root() + "/specs/rmsnorm.yaml", ptoc::test::explicit_tasks());
  REQUIRE(r);
  const CompiledProgram& cp = r->compiled;
  const LoadedBundle lb = decode_bundle(encode_bundle(cp, {}), "b");
  for (size_t ri = 0; ri < cp.roots.size(); ++ri)
    for (size_t i = 0; i < cp.roots[ri].tasks.size(); ++i) {
      const Task t = task_at(lb.program.roots[ri], i);
      const Task& w = cp.roots[ri].tasks[i];
      CHECK(t.pred_count == w.pred_count);
      CHECK(t.label == w.label);
      CHECK(t.args.size() == w.args.size());
      for (size_t a = 0; a < w.args.size(); ++a) CHECK(t.args[a].str() == w.args[a].str());
    }
}
