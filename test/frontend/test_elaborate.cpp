// Valid specs elaborate into the tensor graph ir.h documents: roots, gears,
// `if` per gear, static unrolling, valid shapes, tile state, scopes, labels,
// cache policy, options and overrides.
#include <cmath>

#include "spec_helpers.h"

using namespace ptoc;
using fe_test::run;
using fe_test::ok;

namespace {

std::string shape(const std::vector<DimExpr>& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += s[i].str();
  }
  return r;
}

std::vector<const Op*> ops_of(const Program& p, int root, OpKind k) {
  std::vector<const Op*> v;
  for (int id : p.roots.at(size_t(root)).ops)
    if (p.ops[size_t(id)].kind == k) v.push_back(&p.ops[size_t(id)]);
  return v;
}

const std::string kSoftmax = R"Y(ptoc: 1
name: softmax
dims:
  B: {dynamic: true, max: 65536, divisible_by: 16}
  H: 1024
inputs:
  x: {dtype: fp32, shape: [B, H]}
outputs:
  y: {dtype: fp32, shape: [B, H]}
body:
  - loop: {var: b, count: "ceil_div(B, 64)", unroll: [4, 16, 4, 2], factor: k, name: LOOP_B}
    body:
      - if: "k <= 2"
        then: [{vec_tile: [16, 1024]}]
        else: [{vec_tile: [64, 1024]}]
      - "t = x[b * 64:(b + k) * 64, :]"
      - "m = amax(t, -1, keepdim=true)"
      - "e = exp(t - m)"
      - "s = sum(e, 1, keepdim=true)"
      - "y[b * 64:, :] = e / s"
)Y";

}  // namespace

TEST_CASE("unroll gears: sorted, de-duplicated, factor 1 added, one root each", "[frontend][elaborate]") {
  Program p = ok(kSoftmax);
  REQUIRE(p.body.size() == 1);
  const LoopNode& l = p.body[0];
  CHECK(l.kind == LoopNode::Kind::Loop);
  CHECK(l.name == "LOOP_B");
  CHECK(l.var == "b");
  CHECK(l.factor_var == "k");
  CHECK(l.begin.str() == "0");
  CHECK(l.end.str() == "ceil_div(B, 64)");
  CHECK(l.step.str() == "1");
  REQUIRE(l.gears.size() == 4);
  std::vector<int64_t> factors;
  for (const auto& g : l.gears) factors.push_back(g.factor);
  CHECK(factors == std::vector<int64_t>{16, 4, 2, 1});
  REQUIRE(p.roots.size() == 4);
  for (size_t g = 0; g < 4; ++g) {
    REQUIRE(l.gears[g].body.size() == 1);
    const RootTemplate& r = p.roots[size_t(l.gears[g].body[0].root)];
    CHECK(r.index == int(g));  // creation order = func magic
    CHECK(r.factor == factors[g]);
    CHECK(r.loop_vars == std::vector<std::string>{"b"});
    CHECK(r.name == "LOOP_B_k" + std::to_string(factors[g]));
  }
}

TEST_CASE("if resolves per gear and the factor reaches slice bounds", "[frontend][elaborate]") {
  Program p = ok(kSoftmax);
  for (int root = 0; root < 4; ++root) {
    int64_t k = p.roots[size_t(root)].factor;
    auto views = ops_of(p, root, OpKind::View);
    REQUIRE(views.size() == 1);
    const Value& t = p.values[size_t(views[0]->output)];
    CHECK(t.name == "t");
    CHECK(shape(t.shape) == std::to_string(64 * k) + ",1024");
    // The tail of B is clipped: valid rows = min(B, (b + k) * 64) - b * 64.
    CHECK(shape(t.valid) == "min(B, b * 64 + " + std::to_string(64 * k) + ") - b * 64,1024");
    auto ex = ops_of(p, root, OpKind::Exp);
    REQUIRE(ex.size() == 1);
    REQUIRE(ex[0]->vec_tile);
    CHECK(ex[0]->vec_tile->shape == std::vector<int64_t>{k <= 2 ? 16 : 64, 1024});
    auto asm_ = ops_of(p, root, OpKind::Assemble);
    REQUIRE(asm_.size() == 1);
    CHECK(shape(asm_[0]->offsets) == "b * 64,0");
    CHECK(p.tensors[size_t(asm_[0]->tensor)].name == "y");
    auto red = ops_of(p, root, OpKind::Amax);
    REQUIRE(red.size() == 1);
    CHECK(red[0]->axes == std::vector<int>{1});  // -1 normalised
    CHECK(red[0]->keepdim);
  }
}

TEST_CASE("top-level runs and nested loops become root templates in creation order", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - "a = x[0:16, :] * 2"
  - "y[0:16, :] = a"
  - loop: {var: i, count: "B // 16", name: OUTER}
    body:
      - "c = x[i * 16:(i + 1) * 16, :] + 1"
      - loop: {var: j, count: 2, name: INNER}
        body:
          - "y[i * 16:, :] = c"
      - "d = c * 3"
  - "z = x[0:16, :] - 1"
)Y"));
  // top_0, OUTER (root before INNER, INNER body, root after INNER), top_1
  REQUIRE(p.body.size() == 3);
  CHECK(p.body[0].kind == LoopNode::Kind::Root);
  CHECK(p.roots[size_t(p.body[0].root)].name == "top_0");
  CHECK(p.body[2].kind == LoopNode::Kind::Root);
  CHECK(p.roots[size_t(p.body[2].root)].name == "top_1");
  const LoopNode& outer = p.body[1];
  REQUIRE(outer.gears.size() == 1);
  CHECK(outer.gears[0].factor == 1);
  const auto& ob = outer.gears[0].body;
  REQUIRE(ob.size() == 3);
  CHECK(ob[0].kind == LoopNode::Kind::Root);
  CHECK(ob[1].kind == LoopNode::Kind::Loop);
  CHECK(ob[2].kind == LoopNode::Kind::Root);
  CHECK(p.roots[size_t(ob[0].root)].name == "OUTER");
  CHECK(p.roots[size_t(ob[2].root)].name == "OUTER_1");
  const RootTemplate& inner = p.roots[size_t(ob[1].gears[0].body[0].root)];
  CHECK(inner.name == "INNER");
  CHECK(inner.loop_vars == std::vector<std::string>{"i", "j"});
  // Indices follow creation order: top_0=0, OUTER=1, INNER=2, OUTER_1=3, top_1=4.
  CHECK(p.roots[size_t(p.body[0].root)].index == 0);
  CHECK(p.roots[size_t(ob[0].root)].index == 1);
  CHECK(inner.index == 2);
  CHECK(p.roots[size_t(ob[2].root)].index == 3);
  CHECK(p.roots[size_t(p.body[2].root)].index == 4);
  for (size_t i = 0; i < p.roots.size(); ++i) CHECK(p.roots[i].index == int(i));
}

TEST_CASE("static loops unroll in place with the variable substituted", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - loop: {var: i, range: [0, 48, 16], kind: static}
    body:
      - "y[i:i + 16, :] = x[i:i + 16, :] * 2"
)Y"));
  REQUIRE(p.roots.size() == 1);
  CHECK(p.body.size() == 1);
  auto views = ops_of(p, 0, OpKind::View);
  REQUIRE(views.size() == 3);
  CHECK(shape(views[0]->offsets) == "0,0");
  CHECK(shape(views[1]->offsets) == "16,0");
  CHECK(shape(views[2]->offsets) == "32,0");
  // Valid rows of a static window over a dynamic dim: min(B, i + 16) - i.
  CHECK(shape(p.values[size_t(views[1]->output)].valid) == "min(B, 32) - 16,64");
  CHECK(ops_of(p, 0, OpKind::Assemble).size() == 3);
  // One TensorRef per root for x (reads are cached until x is written).
  CHECK(ops_of(p, 0, OpKind::TensorRef).size() == 1);
}

TEST_CASE("tile state: loop and scope bodies restore, if branches do not", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - {label: L1}
  - loop: {var: i, count: 2, kind: static}
    body:
      - {vec_tile: [8, 64]}
      - {label: INNER}
      - "a = x[0:16, :] * 2"
  - "b = x[0:16, :] * 3"
  - if: "H == 64"
    then: [{vec_tile: [4, 64]}, {label: IFL}]
  - "c = x[0:16, :] * 4"
  - scope: {id: 7, parallel_merge: true}
    body:
      - {vec_tile: [2, 64]}
      - "d = x[0:16, :] * 5"
  - "e = x[0:16, :] * 6"
  - {scope: 3}
  - "f = x[0:16, :] * 7"
  - {scope: -1}
  - "y[0:16, :] = b + c + d + e + f"
)Y"));
  auto muls = ops_of(p, 0, OpKind::Mul);
  REQUIRE(muls.size() == 7);  // a twice (static loop), b, c, d, e, f
  auto vec0 = [](const Op* o) { return o->vec_tile->shape[0]; };
  CHECK(vec0(muls[0]) == 8);
  CHECK(muls[0]->label == "INNER");
  CHECK(vec0(muls[2]) == 16);        // b: the loop restored the outer tile
  CHECK(muls[2]->label == "L1");     // ... and label
  CHECK(vec0(muls[3]) == 4);         // c: the if branch was spliced in place
  CHECK(muls[3]->label == "IFL");
  CHECK(vec0(muls[4]) == 2);         // d: inside the scope
  CHECK(muls[4]->scope.id == 7);
  CHECK(muls[4]->scope.parallel_merge);
  CHECK_FALSE(muls[4]->scope.cross_scope_merge);
  CHECK(vec0(muls[5]) == 4);         // e: the scope body restored the tile
  CHECK(muls[5]->scope.id == -1);
  CHECK(muls[6]->scope.id == 3);     // f: {scope: 3} without a body holds until -1
  auto adds = ops_of(p, 0, OpKind::Add);
  REQUIRE(adds.size() == 4);
  CHECK(adds[0]->scope.id == -1);
  // Names bound in an if branch or a scope body stay visible after it (d was used).
}

TEST_CASE("matmul shapes, transposes, batches and cube tiles", "[frontend][elaborate]") {
  Program p = ok(R"Y(ptoc: 1
name: mm
dims: {M: 128, K: 64, N: 32, G: 4}
inputs:
  a: {dtype: fp16, shape: [M, K]}
  bt: {dtype: fp16, shape: [N, K], format: NZ}
  ga: {dtype: bf16, shape: [G, M, K]}
  gb: {dtype: bf16, shape: [G, K, N]}
outputs:
  c: {dtype: fp32, shape: [M, N]}
  gc: {dtype: fp16, shape: [G, M, N]}
body:
  - {cube_tile: {m: [32, 64], k: [32, 64, 128], n: [32, 32], split_k: true}}
  - "c[:, :] = matmul(a, bt, trans_b=true)"
  - {cube_tile: {m: [16, 32], k: [16, 32], n: [16, 16]}}
  - "gc[...] = matmul(ga, gb, out_dtype=fp16)"
)Y");
  auto mms = ops_of(p, 0, OpKind::Matmul);
  REQUIRE(mms.size() == 2);
  const Value& c = p.values[size_t(mms[0]->output)];
  CHECK(shape(c.shape) == "128,32");
  CHECK(c.dtype == DType::fp32);  // out_dtype default
  CHECK(mms[0]->trans_b);
  REQUIRE(mms[0]->cube_tile);
  CHECK(mms[0]->cube_tile->k == std::array<int64_t, 3>{32, 64, 128});
  CHECK(mms[0]->cube_tile->split_k);
  CHECK(mms[1]->cube_tile->k == std::array<int64_t, 3>{16, 32, 32});  // kB = kA when two are given
  const Value& gc = p.values[size_t(mms[1]->output)];
  CHECK(shape(gc.shape) == "4,128,32");
  CHECK(gc.dtype == DType::fp16);
  CHECK(p.tensors[size_t(p.find_tensor("bt"))].format == Format::NZ);
}

TEST_CASE("views, reductions, reshape, concat and full", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - "v = view(x, [16, 64], [16, 0])"
  - "w2 = view(x, [16, 64], [0, 0], valid=[10, 64])"
  - "s = sum(v, 1)"
  - "f = full([32, 64], -inf, fp32)"
  - "f1 = full([16, 64], 1, fp32)"
  - "r = reshape(f1, [1024])"
  - "q = concat([f1, v], 0)"
  - "g = maximum(q, f)"
  - "y[0:32, :] = g"
  - "n2 = transpose(x[0:16, 0:32], 0, 1)"
  - {vec_tile: [16]}
  - "s2 = s * 2"
  - "r2 = r + 1"
)Y"));
  const Program& c = p;
  auto find = [&](const std::string& n) -> const Value& {
    for (const auto& v : c.values)
      if (v.name == n) return v;
    FAIL("no value " << n);
    return c.values[0];
  };
  CHECK(shape(find("v").valid) == "min(B, 32) - 16,64");
  CHECK(shape(find("w2").valid) == "10,64");
  CHECK(shape(find("s").shape) == "16");  // keepdim=false drops the axis
  CHECK(shape(find("r").shape) == "1024");
  CHECK(shape(find("q").shape) == "32,64");
  CHECK(shape(find("q").valid) == "min(B, 32),64");  // 16 + (min(B, 32) - 16)
  CHECK(shape(find("f").shape) == "32,64");
  CHECK(shape(find("n2").shape) == "32,16");
  auto fulls = ops_of(p, 0, OpKind::Full);
  REQUIRE(fulls.size() == 2);
  CHECK(std::isinf(fulls[0]->fill));
  CHECK(fulls[0]->fill < 0);
  auto views = ops_of(p, 0, OpKind::View);
  REQUIRE(views.size() >= 2);
  CHECK(shape(views[1]->valid) == "10,64");  // valid= given
}

TEST_CASE("scalar operands keep their side; static dims act as scalars", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - "a = 2 - x[0:16, :]"
  - "b = a / H"
  - "c = b * (1 / 4)"
  - "y[0:16, :] = c"
)Y"));
  auto subs = ops_of(p, 0, OpKind::Sub);
  REQUIRE(subs.size() == 1);
  CHECK(subs[0]->scalar == 2.0);
  CHECK(subs[0]->scalar_first);
  auto divs = ops_of(p, 0, OpKind::Div);
  REQUIRE(divs.size() == 1);
  CHECK(divs[0]->scalar == 64.0);
  CHECK_FALSE(divs[0]->scalar_first);
  auto muls = ops_of(p, 0, OpKind::Mul);
  REQUIRE(muls.size() == 1);
  CHECK(muls[0]->scalar == 0.25);
}

TEST_CASE("cache policy, options and --set overrides", "[frontend][elaborate][options]") {
  std::string y = fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - {cache_policy: {tensor: x, l2: bypass}}
  - {label: MM1}
  - "y[0:16, :] = x[0:16, :] * 2"
)Y",
                                R"Y(options:
  runtime: {stitch_function_max_num: 64, device_sched_mode: 1, max_workspace_kb: 2048}
  pass:
    cube_l1_reuse_setting: {DEFAULT: 4, func0_0: [1, left], MM1: [2, right], -1: 3}
    vec_nbuffer_setting: {DEFAULT: 2}
  codegen: {enable_pmu_trace: true}
  debug: {runtime_debug_mode: 4}
)Y");
  Program p = ok(y);
  CHECK(p.tensors[size_t(p.find_tensor("x"))].l2_bypass);
  CHECK_FALSE(p.tensors[size_t(p.find_tensor("y"))].l2_bypass);
  const Options& o = p.options;
  CHECK(o.stitch_function_max_num == 64);
  CHECK(o.device_sched_mode == 1);
  CHECK(o.max_workspace_kb == 2048);
  CHECK(o.enable_pmu_trace);
  CHECK(o.runtime_debug_mode == 4);
  const auto& l1 = o.cube_l1_reuse_setting;
  REQUIRE(l1.entries.size() == 4);
  CHECK(l1.entries[0].key == MergeSetting::Entry::Key::Default);
  CHECK(l1.entries[1].key == MergeSetting::Entry::Key::Func);
  CHECK(l1.entries[1].func_magic == 0);
  CHECK(l1.entries[1].side == "left");
  CHECK(l1.entries[2].key == MergeSetting::Entry::Key::Label);
  CHECK(l1.entries[2].count == 2);
  CHECK(l1.entries[3].key == MergeSetting::Entry::Key::Global);
  // Most specific wins: function key, then label, then global.
  CHECK(l1.lookup(0, 0, "MM1")->name == "func0_0");
  CHECK(l1.lookup(1, 0, "MM1")->name == "MM1");
  CHECK_FALSE(o.cube_nbuffer_setting.given);

  FrontendOptions fo;
  fo.sets = {"runtime.stitch_function_max_num=8", "pass.vec_nbuffer_setting={DEFAULT: 4, func0_1: 8}",
             "codegen.enable_pmu_trace=false"};
  fo.target = "ascend950pr";
  Program q = ok(y, fo);
  CHECK(q.options.stitch_function_max_num == 8);
  REQUIRE(q.options.vec_nbuffer_setting.entries.size() == 2);  // replaced, not merged
  CHECK(q.options.vec_nbuffer_setting.entries[1].count == 8);
  CHECK_FALSE(q.options.enable_pmu_trace);
  CHECK(q.options.device_sched_mode == 1);  // untouched
  CHECK(q.target == "ascend950pr");
  CHECK_FALSE(q.options.vec_nbuffer_setting.entries[0].loc.valid());  // not a position in the file
}

TEST_CASE("--set GROUP.SETTING.ENTRY=N sets one entry of a merge setting", "[frontend][elaborate][options]") {
  std::string y = fe_test::spec("  - {vec_tile: [16, 64]}\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n",
                                "options:\n  pass:\n    vec_nbuffer_setting: {DEFAULT: 2, func0_1: 4}\n");
  FrontendOptions fo;
  fo.sets = {"pass.vec_nbuffer_setting.DEFAULT=8", "pass.vec_nbuffer_setting.MM1=3",
             "pass.cube_l1_reuse_setting.func2_0=[1, right]"};
  Program q = ok(y, fo);
  const auto& v = q.options.vec_nbuffer_setting;
  REQUIRE(v.entries.size() == 3);  // DEFAULT replaced in place, func0_1 kept, MM1 added
  CHECK(v.entries[0].name == "DEFAULT");
  CHECK(v.entries[0].count == 8);
  CHECK(v.entries[1].name == "func0_1");
  CHECK(v.entries[1].count == 4);
  CHECK(v.entries[2].key == MergeSetting::Entry::Key::Label);
  CHECK(v.entries[2].count == 3);
  CHECK_FALSE(v.entries[2].loc.valid());
  const auto& l1 = q.options.cube_l1_reuse_setting;
  CHECK(l1.given);  // the spec gave none: the one entry is the whole map
  REQUIRE(l1.entries.size() == 1);
  CHECK(l1.entries[0].func_magic == 2);
  CHECK(l1.entries[0].side == "right");
}

TEST_CASE("labels never set are warned about, not refused", "[frontend][elaborate][options]") {
  auto r = run(fe_test::spec("  - {vec_tile: [16, 64]}\n  - {label: MM1}\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n",
                             "options:\n  pass: {vec_nbuffer_setting: {MM2: 2}}\n"));
  CHECK(r.prog.has_value());
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags[0].severity == Diagnostic::Severity::Warning);
  CHECK(r.diags[0].message == "'MM2' is not a label set by any {label: ...} statement");
  CHECK(r.diags[0].hint == "did you mean 'MM1'?");
}

TEST_CASE("print_ir is stable and shows the whole program", "[frontend][ir]") {
  Program p = ok(kSoftmax);
  std::string a = print_ir(p);
  CHECK(a == print_ir(ok(kSoftmax)));
  CHECK_THAT(a, Catch::StartsWith("program softmax\ntarget ascend910b1\ndims\n"
                                  "  B = dynamic max 65536 divisible_by 16\n  H = 1024\n"
                                  "tensors\n  input x : fp32[B, H]\n  output y : fp32[B, H]\n"));
  CHECK_THAT(a, Catch::Contains("loop LOOP_B: b in range(0, ceil_div(B, 64), 1) factor k\n    gear 16:\n"
                                "      root func0 LOOP_B_k16 (8 ops)\n"));
  CHECK_THAT(a, Catch::Contains("root func3 LOOP_B_k1 (loop vars: b; factor 1)\n"));
  CHECK_THAT(a, Catch::Contains(
                    "= view %21 offsets=[b * 64, 0] : fp32[64, 1024] valid=[min(B, b * 64 + 64) - b * 64, 1024]  @16:15\n"));
  CHECK_THAT(a, Catch::Contains("= exp %24 : fp32[64, 1024] valid=[min(B, b * 64 + 64) - b * 64, 1024]  {vec=[16, 1024]}"));
  CHECK_THAT(a, Catch::Contains("assemble %27 -> y offsets=[b * 64, 0]  @20:10\n"));
}

TEST_CASE("ptoc check prints a one-line summary", "[frontend][check]") {
  std::string out;
  CHECK(fe_test::check_status(kSoftmax, &out) == 0);
  CHECK(out == "softmax: ok: 28 ops, 1 loop, 4 root-function templates, dims: B=dynamic, H=1024\n");
  CHECK(summarize(ok(kSoftmax)) == "softmax: ok: 28 ops, 1 loop, 4 root-function templates, dims: B=dynamic, H=1024");
}

TEST_CASE("loop ranges prove slices inside the tensor; tails stay clipped", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [1, 64]}
  - loop: {var: b, range: [0, B]}
    body:
      - "y[b:b + 1, :] = x[b:b + 1, :] * 2"
  - loop: {var: c, count: "ceil_div(B, 16)"}
    body:
      - "y[c * 16:, :] = x[c * 16:(c + 1) * 16, :] * 3"
)Y"));
  auto v0 = ops_of(p, 0, OpKind::View);
  REQUIRE(v0.size() == 1);
  const Value& full_rows = p.values[size_t(v0[0]->output)];
  CHECK(shape(full_rows.valid) == shape(full_rows.shape));  // b < B for every iteration
  auto v1 = ops_of(p, 1, OpKind::View);
  REQUIRE(v1.size() == 1);
  CHECK(shape(p.values[size_t(v1[0]->output)].valid) == "min(B, c * 16 + 16) - c * 16,64");  // the tail
}

TEST_CASE("reshape keeps a row-prefix valid region, as the evaluator does", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - loop: {var: c, count: "ceil_div(B, 16)"}
    body:
      - "r = reshape(x[c * 16:(c + 1) * 16, :], [64, 16])"
      - "q = reshape(r * 2, [16, 64])"
      - "y[c * 16:, :] = q"
)Y"));
  auto rs = ops_of(p, 0, OpKind::Reshape);
  REQUIRE(rs.size() == 2);
  CHECK(shape(p.values[size_t(rs[0]->output)].valid) == "min(B, c * 16 + 16) * 4 - c * 64,16");
  CHECK(shape(p.values[size_t(rs[1]->output)].valid) == "min(B, c * 16 + 16) - c * 16,64");
  auto bad = run(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - loop: {var: c, count: "ceil_div(B, 16)"}
    body:
      - "r = reshape(x[c * 16:(c + 1) * 16, 0:48], [16, 48])"
      - "q = reshape(x[c * 16:(c + 1) * 16, :], [16, 4, 16])"
      - "y[c * 16:, :] = x[c * 16:(c + 1) * 16, :]"
)Y"));
  CHECK(bad.prog.has_value());  // shapes that keep the rows are fine
  auto bad2 = run(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - loop: {var: c, count: "ceil_div(B, 16)"}
    body:
      - "f = reshape(x[c * 16:(c + 1) * 16, :], [1024])"
      - "r = reshape(transpose(x[c * 16:(c + 1) * 16, :], 0, 1), [1024])"
      - "y[c * 16:, :] = x[c * 16:(c + 1) * 16, :]"
)Y"));
  REQUIRE_FALSE(bad2.prog.has_value());
  CHECK(bad2.errors == 1);  // flattening a row prefix is fine; a column tail is not
  CHECK_THAT(bad2.rendered, Catch::Contains("its valid elements do not map to whole rows"));
}

TEST_CASE("divisible_by lets B // n loops prove whole tiles", "[frontend][elaborate]") {
  Program p = ok(R"Y(ptoc: 1
name: d
dims: {B: {dynamic: true, divisible_by: 64}, H: 64}
inputs:
  x: {dtype: fp32, shape: [B, H]}
outputs:
  y: {dtype: fp32, shape: [B, H]}
body:
  - {vec_tile: [64, 64]}
  - loop: {var: b, count: "B // 64"}
    body:
      - "y[b * 64:, :] = x[b * 64:(b + 1) * 64, :] * 2"
)Y");
  auto v = ops_of(p, 0, OpKind::View);
  REQUIRE(v.size() == 1);
  const Value& t = p.values[size_t(v[0]->output)];
  CHECK(shape(t.valid) == "64,64");
}

TEST_CASE("an integer index drops its axis (view + reshape)", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [64]}
  - "r = x[3, :] * 2"
  - {vec_tile: [16, 64]}
  - "y[0:16, :] = x[0:16, :] * 2"
  - {vec_tile: [64]}
  - "y[5, :] = r"
)Y"));
  auto views = ops_of(p, 0, OpKind::View);
  REQUIRE(views.size() == 2);
  CHECK(shape(views[0]->offsets) == "3,0");
  CHECK(shape(views[0]->shape) == "1,64");
  auto rs = ops_of(p, 0, OpKind::Reshape);
  REQUIRE(rs.size() == 2);  // drop the axis on read, restore it on write
  CHECK(shape(p.values[size_t(rs[0]->output)].shape) == "64");
  CHECK(shape(p.values[size_t(rs[1]->output)].shape) == "1,64");
  auto as = ops_of(p, 0, OpKind::Assemble);
  REQUIRE(as.size() == 2);
  CHECK(shape(as[1]->offsets) == "5,0");
}

TEST_CASE("an input's name may be rebound; later reads see the new value", "[frontend][elaborate]") {
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 64]}
  - "h = cast(h[0:16, :], fp32)"
  - "y[0:16, :] = h[0:16, :] + x[0:16, :]"
)Y"));
  auto adds = ops_of(p, 0, OpKind::Add);
  REQUIRE(adds.size() == 1);
  const Value& lhs_view = p.values[size_t(adds[0]->inputs[0])];
  CHECK(lhs_view.dtype == DType::fp32);  // the cast value, not the fp16 input
  CHECK(p.tensors[size_t(p.find_tensor("h"))].dtype == DType::fp16);
}

TEST_CASE("if conditions may parenthesise comparisons and boolean terms", "[frontend][elaborate]") {
  // H is 64: the first condition holds through its second term, the second is false.
  Program p = ok(fe_test::spec(R"Y(  - if: "(H < 32) or H == 64"
    then: [{vec_tile: [8, 64]}]
    else: [{vec_tile: [4, 64]}]
  - "a = x[0:16, :] * 2"
  - if: "not (H >= 32 and (H // 2) == 32)"
    then: [{vec_tile: [2, 64]}]
    else: [{vec_tile: [16, 64]}]
  - "y[0:16, :] = a * 3"
)Y"));
  auto muls = ops_of(p, 0, OpKind::Mul);
  REQUIRE(muls.size() == 2);
  CHECK(muls[0]->vec_tile->shape[0] == 8);
  CHECK(muls[1]->vec_tile->shape[0] == 16);
}

TEST_CASE("negative slice positions count from the end on static axes", "[frontend][elaborate]") {
  // H is 64: x[0:16, -16:] is columns 48..63; x[0:16, -1] is column 63, axis dropped.
  Program p = ok(fe_test::spec(R"Y(  - {vec_tile: [16, 16]}
  - "a = x[0:16, -16:] * 2"
  - "y[0:16, 0:16] = a"
  - {vec_tile: [16]}
  - "b = x[0:16, -1] + 1"
  - {vec_tile: [16, 1]}
  - "c = x[0:16, -3:-2] * 1"
  - "y[0:16, 16:] = c"
)Y"));
  std::vector<const Op*> views;
  for (const auto& o : p.ops)
    if (o.kind == OpKind::View) views.push_back(&o);
  REQUIRE(views.size() >= 3);
  CHECK(views[0]->offsets[1].str() == "48");
  CHECK(views[0]->shape[1].str() == "16");
  CHECK(views[1]->offsets[1].str() == "63");
  CHECK(views[1]->shape[1].str() == "1");
  CHECK(views[2]->offsets[1].str() == "61");
  CHECK(views[2]->shape[1].str() == "1");
  auto adds = ops_of(p, 0, OpKind::Add);
  REQUIRE(adds.size() == 1);
  CHECK(p.values[size_t(adds[0]->output)].shape.size() == 1);  // the index dropped the axis
}
