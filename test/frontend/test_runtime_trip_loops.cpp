// Run-time control flow and local tensors inside a loop whose trip count is a
// run-time value (`count: "ceil_div(n[0, 0], 16)"`): the iterations of such a loop
// share one GM window (its trip count cannot size a workspace), a local tensor
// declared there is zero-filled before its first use unless that use writes it
// whole, a run-time `if` may rebind values there, and a condition decided at compile
// time (`is_loop_end(j) and t == 1` in a static copy where t != 1) splices its branch.
// Numbers: test/conformance/specs/ctrl3_* against NumPy.
#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";
// A dynamic loop over b (a dim trip count) around one over j (a run-time trip count).
const std::string kLoops =
    "  - loop: {var: b, count: B, name: LB}\n"
    "    body:\n"
    "      - loop: {var: j, count: \"ceil_div(n[b, 0], 16)\", name: LJ}\n"
    "        body:\n";

int tensor_named(const ptoc::Program& p, const std::string& prefix) {
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].name.rfind(prefix, 0) == 0) return int(i);
  return -1;
}

// The op kinds written into tensor t (assemble sources), in program order.
std::vector<std::string> writes_into(const ptoc::Program& p, int t) {
  std::vector<std::string> v;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Assemble && op.tensor == t) {
      const int d = p.values[size_t(op.inputs[0])].def_op;
      v.emplace_back(ptoc::op_kind_name(p.ops[size_t(d)].kind));
    }
  return v;
}

std::vector<std::string> branch_loops(const std::vector<ptoc::LoopNode>& nodes) {
  std::vector<std::string> v;
  for (const auto& n : nodes) {
    if (n.kind != ptoc::LoopNode::Kind::Loop) continue;
    if (n.name.rfind("IF_L", 0) == 0) v.push_back(n.name);
    for (const auto& g : n.gears)
      for (auto& s : branch_loops(g.body)) v.push_back(s);
  }
  return v;
}

}  // namespace

TEST_CASE("a local tensor in a loop with a run-time trip count has one window per instance of the other loops",
          "[frontend][ctrl3]") {
  auto p = ok(spec(kTile + kLoops +
                   "          - \"t = tensor([16, 64], fp32)\"\n"
                   "          - \"t[0:8, :] = x[j * 16:j * 16 + 8, :]\"\n"
                   "          - \"y[j * 16:, :] = t * 2\"\n"));
  const int t = tensor_named(p, "t_");
  REQUIRE(t >= 0);
  CHECK(p.tensors[size_t(t)].shape[0].str() == "B * 16");  // b's windows; LJ's iterations share one
  // Its first write covers half of it: a zero fill first, so each iteration starts from zeros.
  CHECK(writes_into(p, t) == std::vector<std::string>{"full", "view"});
}

TEST_CASE("a local tensor whose first write covers it whole needs no zero fill", "[frontend][ctrl3]") {
  auto p = ok(spec(kTile + kLoops +
                   "          - \"t = tensor([16, 64], fp32)\"\n"
                   "          - \"t[:, :] = full([16, 64], 2.0, fp32) * 3\"\n"
                   "          - \"t[0:8, :] = x[j * 16:j * 16 + 8, :]\"\n"
                   "          - \"y[j * 16:, :] = t * 2\"\n"));
  const int t = tensor_named(p, "t_");
  REQUIRE(t >= 0);
  CHECK(writes_into(p, t) == std::vector<std::string>{"mul", "view"});
}

TEST_CASE("a local tensor first used inside a nested run-time branch is filled before the branch",
          "[frontend][ctrl3]") {
  auto p = ok(spec(kTile + kLoops +
                   "          - \"t = tensor([16, 64], fp32)\"\n"
                   "          - cond: \"j > 1\"\n"
                   "            then: [\"t[0:8, :] = x[0:8, :]\"]\n"
                   "          - \"y[j * 16:, :] = t\"\n"));
  const int t = tensor_named(p, "t_");
  REQUIRE(t >= 0);
  CHECK(writes_into(p, t) == std::vector<std::string>{"full", "view"});
  // The fill is in LJ's body root, before the branch loop.
  const ptoc::LoopNode& lb = p.body.back();
  REQUIRE(lb.kind == ptoc::LoopNode::Kind::Loop);
  const ptoc::LoopNode& lj = lb.gears[0].body.back();
  REQUIRE(lj.name == "LJ");
  REQUIRE(lj.gears[0].body.size() >= 2);
  CHECK(lj.gears[0].body[0].kind == ptoc::LoopNode::Kind::Root);
  CHECK(lj.gears[0].body[1].name.rfind("IF_L", 0) == 0);
}

TEST_CASE("a run-time if rebinds values inside a loop with a run-time trip count", "[frontend][ctrl3]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(n[0, 0], 16)\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - \"v = view(x, [16, 64], [j * 16, 0], valid=[min(16, n[0, 0] - j * 16), 64])\"\n"
                   // not the last value (is_loop_end(j) or j == ...- 1 split the loop into paths instead)
                   "      - cond: \"j == ceil_div(n[0, 0], 16) - 2\"\n"
                   "        then: [\"v = fillpad(v)\", \"acc = acc + v\"]\n"
                   "        else: [\"acc = acc + v * 2\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  const int w = tensor_named(p, "v_IF_L18");
  REQUIRE(w >= 0);
  CHECK(p.tensors[size_t(w)].shape[0].str() == "16");  // one window, shared by LJ's iterations
  // v is partial (its valid rows are a run-time value): the window is cleared before v is stored.
  CHECK(writes_into(p, w) == std::vector<std::string>{"full", "view", "where"});
  CHECK(branch_loops(p.body) == std::vector<std::string>{"IF_L18_then", "IF_L18_else"});
  // acc is LJ's carried value: the branches write LJ's window, no window of the if's own and no copy after it.
  CHECK(tensor_named(p, "acc_IF") < 0);
  CHECK(tensor_named(p, "acc_LJ") >= 0);
}

TEST_CASE("a run-time condition decided at compile time splices its branch", "[frontend][ctrl3]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(n[0, 0], 32)\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - loop: {var: t, count: 2, kind: static, carry: {acc: acc}}\n"
                   "        body:\n"
                   "          - if: \"is_loop_end(j) and t == 1\"\n"
                   "            then: [\"acc = acc * 3\"]\n"
                   "            else: [\"acc = acc + 1\"]\n"
                   "          - if: \"t == 0 or is_loop_begin(j)\"\n"
                   "            then: [\"acc = acc * 5\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // LJ's body is elaborated once per path (first / middle / last / only instance) with is_loop_begin(j)
  // and is_loop_end(j) decided, so every if folds and none stays a run-time branch.
  CHECK(branch_loops(p.body).empty());
}

TEST_CASE("misuses around run-time loops are located errors", "[frontend][ctrl3]") {
  SECTION("a name bound only by the branch decided at compile time not to run, used after it") {
    expect_error(spec(kTile +
                      "  - loop: {var: j, count: B}\n    body:\n"
                      "      - loop: {var: t, count: 2, kind: static}\n        body:\n"
                      "          - if: \"is_loop_end(j) and t == 5\"\n"
                      "            then: [\"q = x[0:16, :] * 2\"]\n"
                      "            else: [\"p = x[0:16, :] * 3\"]\n"
                      "          - \"y[0:16, :] = q\"\n"),
                 "= @q\"", "'q' was first bound inside the run-time branch at line 19, which may not run",
                 "bind it before the branch");
  }
  SECTION("a name first bound in both branches of one decided at compile time is the running branch's") {
    // t == 5 never holds: in every copy the else-branch runs, and q is its value (no window, no run-time branch).
    auto p = ok(spec(kTile +
                     "  - loop: {var: j, count: B}\n    body:\n"
                     "      - loop: {var: t, count: 2, kind: static}\n        body:\n"
                     "          - if: \"is_loop_end(j) and t == 5\"\n"
                     "            then: [\"q = x[0:16, :] * 2\"]\n"
                     "            else: [\"q = x[0:16, :] * 3\"]\n"
                     "          - \"y[0:16, :] = q\"\n"));
    CHECK(branch_loops(p.body).empty());
    for (const auto& t : p.tensors) CHECK(t.role != ptoc::TensorRole::Workspace);
    int times3 = 0;
    for (const auto& op : p.ops) times3 += op.kind == ptoc::OpKind::Mul && op.scalar && *op.scalar == 3.0;
    CHECK(times3 >= 2);  // the else-branch's value, once per copy of the static loop (and per path of j)
    int times2 = 0;
    for (const auto& op : p.ops) times2 += op.kind == ptoc::OpKind::Mul && op.scalar && *op.scalar == 2.0;
    CHECK(times2 == 0);
  }
  SECTION("a local tensor sized by a run-time value") {
    expect_error(spec(kTile + kLoops + "          - \"t = tensor([n[b, 0], 64], fp32)\"\n" +
                      "          - \"y[0:16, :] = x[0:16, :]\"\n"),
                 "t = tensor", "the local tensor 't' has the shape", "largest extent");
  }
  SECTION("is_loop_end of a loop outside the branch's loop nest") {
    expect_error(spec(kTile + kLoops +
                      "          - \"y[0:16, :] = x[0:16, :]\"\n"
                      "      - if: \"is_loop_end(j)\"\n        then: [\"y[0:16, :] = x[0:16, :] * 2\"]\n"),
                 "is_loop_end(@j)", "'j' is not the variable of an enclosing dynamic loop");
  }
}

TEST_CASE("a local tensor tiled by whole writes and read in the same root stays on chip", "[frontend][ctrl3]") {
  const std::string quarters =
      "          - \"a = view(x, [16, 32], [0, 0], valid=[16, 32]) * 2\"\n"
      "          - \"q = tensor([32, 64], fp32)\"\n"
      "          - \"q[0:16, 0:32] = a\"\n"
      "          - \"q[0:16, 32:64] = a + 1\"\n"
      "          - \"q[16:32, :] = full([16, 64], 0.0, fp32)\"\n";
  SECTION("read in its root: a concat of the pieces, no GM access") {
    auto p = ok(spec("  - {vec_tile: [16, 32]}\n" + kLoops + quarters + "          - \"y[j * 32:, :] = q * 3\"\n"));
    const int q = tensor_named(p, "q_");
    REQUIRE(q >= 0);
    CHECK(p.tensors[size_t(q)].shape[0].str() == "1");  // no op touches it: kept one element large
    std::vector<std::string> cats;
    for (const auto& r : p.roots)
      for (int o : r.ops) {
        const auto& op = p.ops[size_t(o)];
        CHECK(op.tensor != q);
        if (op.kind == ptoc::OpKind::Concat) cats.push_back(std::to_string(op.axes[0]));
      }
    CHECK(cats == std::vector<std::string>{"1", "0"});  // [[a, a + 1], [zeros]]
  }
  SECTION("a nested branch after the writes may read it: GM") {
    auto p = ok(spec("  - {vec_tile: [16, 32]}\n" + kLoops + quarters +
                     "          - cond: \"j > 1\"\n            then: [\"y[j * 32:, :] = q * 3\"]\n"));
    const int q = tensor_named(p, "q_");
    REQUIRE(q >= 0);
    CHECK(p.tensors[size_t(q)].shape[0].str() == "B * 32");
    CHECK(writes_into(p, q) == std::vector<std::string>{"full", "mul", "add", "full"});
  }
  SECTION("a gap only the zero fill covers: GM") {
    auto p = ok(spec("  - {vec_tile: [16, 32]}\n" + kLoops +
                     "          - \"q = tensor([32, 32], fp32)\"\n"
                     "          - \"q[0:16, :] = view(x, [16, 32], [0, 0], valid=[16, 32]) * 2\"\n"
                     "          - \"y[j * 32:, :] = q * 3\"\n"));
    const int q = tensor_named(p, "q_");
    REQUIRE(q >= 0);
    CHECK(writes_into(p, q) == std::vector<std::string>{"full", "mul"});
  }
}

TEST_CASE("a run-time branch that changes a name's shape or dtype is a located error", "[frontend][ctrl3]") {
  const std::string loop = "  - loop: {var: j, count: \"ceil_div(n[0, 0], 16)\", name: LJ}\n    body:\n"
                           "      - \"v = x[0:16, :] * 2\"\n";
  SECTION("shape") {
    expect_error(spec(kTile + loop + "      - cond: \"j == 1\"\n        then: [\"v = sum(v, 0, keepdim=true)\"]\n" +
                      "      - \"y[0:16, :] = v\"\n"),
                 "cond: \"j == 1",
                 "the run-time branch at line 18 rebinds 'v' with shape [1, 64] (it is [16, 64] before the branch), "
                 "but the branch that does not run would leave the old one",
                 "bind the new value to another name");
  }
  SECTION("dtype") {
    expect_error(spec(kTile + loop + "      - cond: \"n[0, 1] > 3\"\n        then: [\"v = cast(v, fp16)\"]\n" +
                      "      - \"y[0:16, :] = v\"\n"),
                 "cond: \"n[0, 1]", "rebinds 'v' with dtype fp16 (it is fp32 before the branch)");
  }
}
