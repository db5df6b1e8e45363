// The backend's speed-ups must not change a byte of output:
// - planning one leaf per structural class (LeafShaper key) and copying the plan
//   gives exactly the plans, kernels, leaves and task graphs that planning
//   every leaf alone gives (PipelineOptions::share_leaf_plans off), also for
//   the errors of leaves that do not fit;
// - the streamed bundle encoder and program.json writer write the bytes of
//   their nlohmann references.
// Over every library spec (the GEMM 6144 excepted: it is the benchmark).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/program/bundle_reference.h"
#include "compiler/codegen/graph_emit.h"
#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/program/bundle.h"
#include "runtime/program/program_json.h"
#include "runtime/core/platform.h"
#include "test/codegen/tile_fixture.h"
#include "test/library_specs.h"

namespace fs = std::filesystem;
using ptoc::test::library_specs;
using ptoc::test::source_root;
using namespace ptoc;

namespace {


struct Compiled {
  std::optional<PipelineResult> r;
  std::string diags;
};

Compiled compile(const std::string& spec, bool share, bool lazy = false) {
  std::ifstream in(spec, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  DiagEngine diags(spec, ss.str());
  Compiled c;
  std::optional<Program> prog = parse_spec(diags, FrontendOptions{});
  if (prog && !diags.has_errors()) {
    if (const Platform* plat = find_platform(prog->target)) {
      PipelineOptions po;
      po.share_leaf_plans = share;
      po.lazy_leaf_copies = lazy;
      po.program_json_text = !lazy;  // the lazy run leaves program.json to program_json_text()
      c.r = run_pipeline(std::move(*prog), *plat, diags, po);
    }
  }
  std::ostringstream os;
  diags.print(os);
  c.diags = os.str();
  return c;
}

std::string dims(const std::vector<DimExpr>& v) {
  std::string s;
  for (const auto& e : v) s += e.str() + ";";
  return s;
}

// Everything the backend decides per leaf, as text.
std::string plan_text(const LeafPlan& p) {
  std::ostringstream o;
  o << p.root << " " << p.subgraph << " " << p.leaf << " " << int(p.core) << " " << p.interleaved << " " << p.hash
    << " " << p.kernel << " " << p.est_cycles << "\n";
  for (const LeafStep& s : p.steps) {
    o << " step " << s.op << " " << int(s.pipe);
    for (const auto& x : s.before) o << " b" << int(x.kind) << int(x.src) << int(x.dst) << x.event;
    for (const auto& x : s.after) o << " a" << int(x.kind) << int(x.src) << int(x.dst) << x.event;
    o << "\n";
  }
  for (const BufferSlot& b : p.buffers)
    o << " buf " << b.tile << " " << int(b.mem) << " " << b.addr << " " << b.size << " " << b.first << " " << b.last << "\n";
  for (int64_t x : p.peak) o << " " << x;
  for (int64_t x : p.pipe_cycles) o << " " << x;
  for (int64_t x : p.step_start) o << " " << x;
  for (int64_t x : p.step_end) o << " " << x;
  o << "\n args " << dims(p.args.values);
  for (int x : p.args.gm_tensors) o << " g" << x;
  for (int x : p.args.step_gm_slot) o << " s" << x;
  for (int x : p.args.step_offset_arg) o << " o" << x;
  for (int x : p.args.step_extent_arg) o << " e" << x;
  for (int x : p.args.slot_shape_arg) o << " h" << x;
  for (int x : p.args.buffer_valid_arg) o << " v" << x;
  for (const auto& v : p.args.slot_view) o << " [" << dims(v) << "]";
  o << "\n";
  return o.str();
}

}  // namespace

TEST_CASE("leaf classes: shared plans equal per-leaf plans on every library spec", "[backend][leaf_classes]") {
  const auto specs = library_specs({"gemm_6144.yaml", "decode_attention_gears.yaml"});
  REQUIRE(specs.size() >= 10);
  int compared = 0, shared_leaves = 0;
  for (const auto& spec : specs) {
    INFO(spec);
    Compiled a = compile(spec, true), b = compile(spec, false);
    CHECK(a.diags == b.diags);
    REQUIRE(a.r.has_value() == b.r.has_value());
    if (!a.r) continue;
    const CompiledProgram &ca = a.r->compiled, &cb = b.r->compiled;
    REQUIRE(a.r->plans.size() == b.r->plans.size());
    for (size_t i = 0; i < a.r->plans.size(); ++i) {
      INFO("leaf " << i);
      REQUIRE(plan_text(a.r->plans[i]) == plan_text(b.r->plans[i]));
      shared_leaves += a.r->plans[i].canonical.empty();
    }
    CHECK(a.r->sequential_fallbacks == b.r->sequential_fallbacks);
    // The whole compiled program, through the bundle bytes (no host twin).
    CHECK(runtime::encode_bundle(ca, {}) == runtime::encode_bundle(cb, {}));
    // Lazy copies (no steps, buffers or arguments stored for a class's other leaves) and program.json
    // left to be assembled from its blocks: the same bundle and program.json, and the copies really
    // were left empty.
    Compiled z = compile(spec, true, true);
    REQUIRE(z.r.has_value());
    CHECK(z.diags == b.diags);
    CHECK(runtime::encode_bundle(z.r->compiled, {}) == runtime::encode_bundle(cb, {}));
    CHECK(z.r->compiled.graph_json.empty());
    CHECK(z.r->compiled.graph_from_blocks);
    CHECK(program_json_text(z.r->compiled) == cb.graph_json);
    for (size_t i = 0; i < z.r->plans.size(); ++i)
      if (a.r->plans[i].canonical.empty()) {
        INFO("lazy leaf " << i);
        CHECK(z.r->plans[i].steps.empty());
        CHECK(z.r->plans[i].args.values.empty());
      }
    ++compared;
  }
  CHECK(compared >= 10);
  CHECK(shared_leaves > 0);  // some spec has isomorphic leaves, so sharing was exercised
}

TEST_CASE("bundle and program.json: the streamed writers write the bytes of the JSON reference", "[bundle][encode]") {
  int compared = 0;
  for (const auto& spec : library_specs({"gemm_6144.yaml", "decode_attention_gears.yaml"})) {
    INFO(spec);
    Compiled a = compile(spec, true);
    if (!a.r) continue;
    CompiledProgram& cp = a.r->compiled;
    cp.spec_source = "spec text";
    cp.graph_json = "{\"graph\": 1}";
    const std::vector<uint8_t> twin = {1, 2, 3, 0, 255};
    CHECK(runtime::encode_bundle(cp, twin) == test::encode_bundle_reference(cp, twin));
    CHECK(runtime::encode_bundle(cp, twin, {9, 9}) == test::encode_bundle_reference(cp, twin, {9, 9}));
    CHECK(emit_program_json(*a.r) == emit_program_json_reference(*a.r));
    ++compared;
  }
  CHECK(compared >= 10);
}

TEST_CASE("bundle: strings with escapes, UTF-8 and empty containers encode like the reference", "[bundle][encode]") {
  CompiledProgram p;
  p.name = "q\"uote\\back\tslash\n\x01\x1f\x7f";
  p.target = "ascend910b1";
  p.doc = "résumé 中文 \xF0\x9F\x98\x80 \b\f\r";
  p.spec_source = "a: 1\n";
  p.set_overrides = {"runtime.stitch_function_max_num=7", ""};
  DimDecl d;
  d.name = "B";
  d.dynamic = true;
  d.max = 64;
  p.dims.push_back(d);
  GmTensor t;
  t.name = "x";
  t.shape = {DimExpr::sym("B"), DimExpr(128)};
  p.tensors.push_back(t);
  RootFunction rf;
  rf.name = "LOOP_B";
  rf.hash = ~uint64_t(0);
  rf.loop_vars = {"b"};
  Task tk;
  tk.leaf = 0;
  tk.args = {DimExpr::sym("b") * DimExpr(128), DimExpr(-5)};
  tk.reads.push_back(Region{0, {DimExpr::sym("b"), DimExpr(0)}, {DimExpr(1), DimExpr(128)}});
  rf.tasks.push_back(tk);
  rf.tasks.push_back(Task{});
  p.roots.push_back(rf);
  p.roots.push_back(RootFunction{});
  LoopNode loop;
  loop.kind = LoopNode::Kind::Loop;
  loop.var = "b";
  loop.end = DimExpr::sym("B");
  loop.step = DimExpr(1);
  Gear g;
  g.factor = 4;
  LoopNode leaf;
  leaf.kind = LoopNode::Kind::Root;
  leaf.root = 0;
  g.body.push_back(leaf);
  loop.gears.push_back(g);
  loop.gears.push_back(Gear{});
  p.control.push_back(loop);
  LeafFunction lf;
  lf.hash = 1ull << 63;
  lf.merge_info = "l1ReuseInfo hashOrder: func8_0";
  p.leaves.push_back(lf);
  Kernel k;
  k.name = "k";
  k.source = "PTO_KERNEL(k) {\n  // \"quoted\"\n}\n";
  p.kernels.push_back(k);
  MergeSetting::Entry e;
  e.name = "DEFAULT";
  e.side = "left";
  p.options.vec_nbuffer_setting.entries.push_back(e);
  CHECK(runtime::encode_bundle(p, {}) == test::encode_bundle_reference(p, {}));

  // Not UTF-8: the reference refuses it, and so does the writer.
  p.doc = "bad \xC3\x28 byte";
  CHECK_THROWS(test::encode_bundle_reference(p, {}));
  CHECK_THROWS(runtime::encode_bundle(p, {}));
  p.doc = "overlong \xC0\xAF and surrogate \xED\xA0\x80";
  CHECK_THROWS(runtime::encode_bundle(p, {}));
  p.doc = "cut \xE4\xB8";
  CHECK_THROWS(runtime::encode_bundle(p, {}));
}

namespace {

DiagEngine fixture_diags() {
  std::string src;
  for (int i = 1; i <= 20; ++i) src += "line " + std::to_string(i) + " of the spec, some text here\n";
  return DiagEngine("test.yaml", src);
}

// Runs the backend on a copy of the fixture's roots, with or without shared plans.
struct BackendRun {
  bool ok = false;
  std::string diags, plans;
  int fallbacks = 0;
};
BackendRun run_fixture(const test::Fixture& f, bool share) {
  PipelineResult r = f.r;
  DiagEngine diags = fixture_diags();
  PassTimer timer;
  PipelineOptions po;
  po.share_leaf_plans = share;
  po.lazy_leaf_copies = false;  // every plan materialised, to compare them
  BackendRun b;
  b.ok = run_backend(r, test::fixed_platform(), diags, timer, po);
  std::ostringstream os;
  diags.print(os);
  b.diags = os.str();
  for (const auto& p : r.plans) b.plans += plan_text(p);
  b.fallbacks = r.sequential_fallbacks;
  return b;
}

}  // namespace

TEST_CASE("leaf classes: isomorphic leaves that do not fit report their op once", "[backend][leaf_classes]") {
  test::Fixture f(1024, 128, DType::fp32, 256, 128);
  // Three leaves of one class at different rows (different tile ids and offsets): [256, 128] fp32 in and
  // out of a gelu (never written in place) need 256 KiB of the 192 KiB UB. The three are tile instances
  // of one spec op: one error at that op, with or without shared plans.
  for (int k = 0; k < 3; ++k) {
    int a = f.tile(MemKind::UB, DType::fp32, {256, 128});
    int b = f.tile(MemKind::UB, DType::fp32, {256, 128});
    f.subgraph(CoreType::AIV, {f.copy_in(0, a, {256 * k, 0}, {256, 128}), f.vec(OpKind::Gelu, {a}, b),
                               f.copy_out(2, b, {256 * k, 0}, {256, 128})});
  }
  BackendRun shared = run_fixture(f, true), alone = run_fixture(f, false);
  CHECK_FALSE(shared.ok);
  CHECK(shared.diags == alone.diags);
  size_t errors = 0;
  for (size_t at = shared.diags.find("error:"); at != std::string::npos; at = shared.diags.find("error:", at + 1)) ++errors;
  CHECK(errors == 1);
}

TEST_CASE("leaf classes: tails, fallbacks and repeated leaves plan as if alone", "[backend][leaf_classes]") {
  test::Fixture f;
  // Two merged leaves that fit only in sequential order (one class), then vector leaves whose
  // tails differ (5 and 16 valid rows: two classes) and repeat (same class at other rows).
  for (int k = 0; k < 2; ++k) {
    std::vector<int> ops;
    for (int c = 0; c < 2; ++c) {
      auto ch = f.exp_chain(768 * k + 384 * c, 384, c, 384, 64, OpKind::Gelu);  // gelu: never in place
      ops.insert(ops.end(), ch.begin(), ch.end());
    }
    f.subgraph(CoreType::AIV, ops, 2);
  }
  for (int64_t row : {0, 16, 32, 48})
    f.subgraph(CoreType::AIV, f.exp_chain(row, row == 48 ? 5 : 16, 0));
  BackendRun shared = run_fixture(f, true), alone = run_fixture(f, false);
  REQUIRE(shared.ok);
  REQUIRE(alone.ok);
  CHECK(shared.fallbacks == 2);
  CHECK(shared.fallbacks == alone.fallbacks);
  CHECK(shared.plans == alone.plans);
  CHECK(shared.diags == alone.diags);
}
