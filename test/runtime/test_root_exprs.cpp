// The control flow evaluates a root's expressions (kernel arguments, region offsets and extents)
// with a compiled register program: shared subexpressions computed once, dim-only parts folded.
// These tests compare every evaluated argument with DimExpr::eval, the tree interpreter, over
// loop values of both signs, and check that errors still name the instance that fails.
#include <catch2/catch.hpp>

#include "programs.h"
#include "runtime/control_flow.h"

using namespace ptoc;
using namespace ptoc::runtime;
using test::region;
using test::S;

namespace {

// One loop j in [begin, end) step `step`, one root with one task whose args are `args`; the task
// reads row 0 of a [4, 8] input so it has one region.
CompiledProgram loop_with_args(DimExpr begin, DimExpr end, DimExpr step, std::vector<DimExpr> args) {
  CompiledProgram p;
  p.name = "exprs";
  GmTensor x;
  x.name = "x";
  x.role = GmTensor::Role::Input;
  x.shape = {4, 8};
  p.tensors = {x};
  LeafFunction l;
  l.id = 0;
  l.kernel = 0;
  p.leaves = {l};
  Kernel k;
  k.name = "k";
  p.kernels = {k};
  Task t;
  t.leaf = 0;
  t.gm = {0};
  t.args = std::move(args);
  t.reads = {region(0, {0, 0}, {1, 8})};
  RootFunction r;
  r.index = 0;
  r.name = "LOOP";
  r.loop_vars = {"j"};
  r.tasks = {t};
  p.roots = {r};
  LoopNode loop;
  loop.kind = LoopNode::Kind::Loop;
  loop.var = "j";
  loop.name = "LOOP";
  loop.begin = std::move(begin);
  loop.end = std::move(end);
  loop.step = std::move(step);
  Gear g;
  LoopNode call;
  call.root = 0;
  g.body = {call};
  loop.gears = {g};
  p.control = {loop};
  return p;
}

ControlFlowOptions one_root_per_task() {
  ControlFlowOptions o;
  o.stitch_function_max_num = 1;
  return o;
}

}  // namespace

TEST_CASE("root expressions evaluate as DimExpr::eval for loop values of both signs") {
  DimExpr j = S("j"), N = S("N"), C = S("C");
  DimExpr shared = mod(j * 3 + N, DimExpr(7));  // reused below: computed once per instance
  std::vector<DimExpr> args = {
      j,
      shared,
      shared * C + shared,
      floordiv(j, DimExpr(4)),
      floordiv(j, DimExpr(-3)),
      mod(j, DimExpr(-5)),
      mod(j - N, DimExpr(6)),
      ceil_div(j, DimExpr(4)),
      ceil_div(j + N, C),
      min(j, N - 40),
      max(-j, floordiv(N, C)),
      floordiv(N * C, DimExpr(3)) + j,  // dim-only part folded, j added at run time
      -(j * j) + floordiv(shared, DimExpr(2)),
  };
  CompiledProgram p = loop_with_args(DimExpr(-37), N, DimExpr(3), args);
  const DimExpr::Env dims{{"N", 29}, {"C", 5}};
  ControlFlow cf(p, dims, one_root_per_task());
  DeviceTask dt;
  int64_t expect_j = -37, instances = 0;
  while (cf.next(dt)) {
    REQUIRE(dt.tasks.size() == 1);
    DimExpr::Env env = dims;
    env["j"] = expect_j;
    CHECK(dt.roots[0].env == env);
    const auto& got = dt.tasks[0].args;
    REQUIRE(got.size() == args.size());
    for (size_t a = 0; a < args.size(); ++a) {
      INFO("j = " << expect_j << ", argument " << a << ": " << args[a].str());
      CHECK(got[a] == args[a].eval(env));
    }
    cf.release(dt.seq);
    expect_j += 3;
    ++instances;
  }
  CHECK(instances == 22);  // ceil((29 - -37) / 3)
}

TEST_CASE("a loop variable that shadows a dim name is not folded as the dim") {
  // The control flow is handed a dim called j as well; the loop rebinds it, so arguments must
  // follow the loop, not the dim's value.
  DimExpr j = S("j");
  CompiledProgram p = loop_with_args(DimExpr(0), DimExpr(5), DimExpr(1), {j, j * 2 + 1});
  ControlFlow cf(p, {{"j", 1000}}, one_root_per_task());
  DeviceTask dt;
  std::vector<int64_t> seen;
  while (cf.next(dt)) {
    seen.push_back(dt.tasks[0].args[0]);
    CHECK(dt.tasks[0].args[1] == dt.tasks[0].args[0] * 2 + 1);
    cf.release(dt.seq);
  }
  CHECK(seen == std::vector<int64_t>{0, 1, 2, 3, 4});
}

TEST_CASE("division by zero in a root expression names the failing instance") {
  DimExpr j = S("j");
  SECTION("zero reached by a loop value") {
    CompiledProgram p = loop_with_args(DimExpr(0), DimExpr(10), DimExpr(1), {j, floordiv(DimExpr(100), j - 3)});
    ControlFlow cf(p, {}, one_root_per_task());
    DeviceTask dt;
    int ok = 0;
    try {
      while (cf.next(dt)) {
        CHECK(dt.tasks[0].args[1] == floordiv(DimExpr(100), j - 3).eval({{"j", dt.tasks[0].args[0]}}));
        cf.release(dt.seq);
        ++ok;
      }
      FAIL("no error");
    } catch (const ControlFlowError& e) {
      CHECK_THAT(e.what(), Catch::Contains("root function 'LOOP' (j=3)") && Catch::Contains("division by zero"));
    }
    CHECK(ok == 3);
  }
  SECTION("zero from dims alone is not folded away at compile time") {
    CompiledProgram p = loop_with_args(DimExpr(0), DimExpr(10), DimExpr(1), {j, mod(j, S("Z"))});
    ControlFlow cf(p, {{"Z", 0}}, one_root_per_task());
    DeviceTask dt;
    CHECK_THROWS_WITH(cf.next(dt), Catch::Contains("root function 'LOOP' (j=0)") && Catch::Contains("division by zero"));
  }
}
