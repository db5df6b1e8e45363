// Timing-only walks build tasks without their GM accesses (ControlFlowOptions::lazy_accesses) and
// rebuild a task's accesses when the simulator runs it (issue 14: timing-only memory follows the
// tasks running, not every task of the device task in flight). Over every library spec with static
// dims, a lazy walk gives the eager walk's device tasks field by field, edges and waits included
// (they are found from the same accesses at build time), and task_accesses() gives each task the
// accesses the eager walk stored.
#include <catch2/catch.hpp>

#include <sstream>

#include "runtime/control_flow.h"
#include "runtime/program/bundle.h"
#include "test/library_specs.h"
#include "test/program/compile_spec_file.h"

using ptoc::test::library_specs;
using namespace ptoc;
using namespace ptoc::runtime;

namespace {

std::string task_text(const TaskInstance& t, const std::vector<GmAccess>& acc) {
  std::ostringstream o;
  o << t.root_instance << " " << t.task << " " << t.leaf << " " << t.cls << " " << t.task_id << " p" << t.pred_count
    << " gm";
  for (auto g : t.gm) o << " " << g;
  o << " args " << t.args.size() << " acc";
  for (const GmAccess& a : acc)
    o << " " << a.tensor << (a.write ? "w" : "r") << (a.atomic ? "a" : "") << "@" << a.addr << "x" << a.rows << "*"
      << a.row_bytes << "/" << a.row_stride;
  o << " succ";
  for (auto s : t.succ) o << " " << s;
  return o.str() + "\n";
}

// Every device task of a walk as text; a lazy walk's accesses asked of task_accesses() (in reverse
// task order, so no rebuild leans on state left by the one before).
std::string walk_text(const CompiledProgram& p, const DimExpr::Env& env, bool lazy, size_t* stored = nullptr) {
  ControlFlowOptions o = ControlFlowOptions::from(p.options);
  o.resolve_args = false;
  o.lazy_accesses = lazy;
  ControlFlow cf(p, env, o);
  std::string out;
  DeviceTask dt;
  while (cf.next(dt)) {
    std::ostringstream h;
    h << "seq " << dt.seq << " ws " << dt.workspace_bytes << " roots " << dt.roots.size() << " waits";
    for (int w : dt.waits_for) h << " " << w;
    std::vector<std::string> lines(dt.tasks.size());
    for (size_t i = dt.tasks.size(); i-- > 0;) {
      std::vector<GmAccess> acc;
      const bool rebuilt = cf.task_accesses(dt, uint32_t(i), acc);
      REQUIRE(rebuilt == lazy);
      if (stored) *stored += dt.tasks[i].accesses.size();
      lines[i] = task_text(dt.tasks[i], lazy ? acc : dt.tasks[i].accesses);
    }
    out += h.str() + "\n";
    for (auto& l : lines) out += l;
    cf.release(dt.seq);
    if (lazy) {
      std::vector<GmAccess> acc;
      if (!dt.tasks.empty()) CHECK_THROWS_AS(cf.task_accesses(dt, 0, acc), ControlFlowError);  // released
    }
  }
  return out;
}

}  // namespace

TEST_CASE("lazy accesses: a timing-only walk rebuilds the accesses the eager walk stores", "[instances]") {
  int compared = 0;
  for (const auto& spec : library_specs()) {
    INFO(spec);
    auto r = ptoc::test::compile_spec_file(spec);
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
    // The bundle's compact roots, as ptorun runs them.
    const LoadedBundle lb = decode_bundle(encode_bundle(cp, {}), "b");
    size_t eager_stored = 0, lazy_stored = 0;
    const std::string want = walk_text(lb.program, env, false, &eager_stored);
    CHECK(walk_text(lb.program, env, true, &lazy_stored) == want);
    CHECK(lazy_stored == 0);  // the lazy walk's tasks hold no accesses
    if (eager_stored > 0) ++compared;
  }
  CHECK(compared >= 15);
}
