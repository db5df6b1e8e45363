// Carried values (loop: {carry: ...}), local tensors (tensor(shape, dtype)) and
// run-time conditions (is_loop_begin / is_loop_end, {cond: ...}): how the front
// end places them (GM windows per enclosing loop instance, 0/1-trip branch
// loops) and the diagnostics for their misuse, with position and wording.
// Their numbers are checked against NumPy by test/conformance (carry_running_sum,
// local_tensor_assemble, cond_loop_begin_end) and test/specs (flash_decode_carry*).
#include "spec_helpers.h"

using fe_test::find_pos;
using fe_test::expect_error;
using fe_test::ok;
using fe_test::run;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";
const std::string kWrite = "  - \"y[0:16, :] = x[0:16, :] * 2\"\n";

const ptoc::TensorDecl* tensor(const ptoc::Program& p, const std::string& name) {
  int t = p.find_tensor(name);
  return t < 0 ? nullptr : &p.tensors[size_t(t)];
}


}  // namespace

TEST_CASE("a carried value of a dynamic loop lives in a GM window per instance of the enclosing loops",
          "[frontend][state]") {
  auto r = run(spec(kTile +
                    "  - loop: {var: b, count: \"ceil_div(B, 16)\", name: OUTER}\n"
                    "    body:\n"
                    "      - loop: {var: j, range: [2, 9, 3], name: INNER, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                    "        body: [\"acc = acc + x[b * 16:(b + 1) * 16, :]\"]\n"
                    "      - \"y[b * 16:, :] = acc\"\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  const auto* ws = tensor(*r.prog, "acc_INNER");
  REQUIRE(ws);
  CHECK(ws->role == ptoc::TensorRole::Workspace);
  REQUIRE(ws->shape.size() == 2);
  CHECK(ws->shape[0].str() == "ceil_div(B, 16) * 16");  // one 16-row window per OUTER iteration
  CHECK(ws->shape[1].str() == "64");
  // Stored before the loop, loaded and stored back in the body, loaded after it: at the window of b.
  std::vector<std::string> offs;
  for (const auto& op : r.prog->ops)
    if (op.kind == ptoc::OpKind::Assemble && op.tensor == r.prog->find_tensor("acc_INNER"))
      offs.push_back(op.offsets[0].str());
  CHECK(offs == std::vector<std::string>{"b * 16", "b * 16"});
}

TEST_CASE("a carried value of a static loop stays an SSA value: no workspace", "[frontend][state]") {
  auto r = run(spec(kTile +
                    "  - loop: {var: j, count: 3, kind: static, carry: {acc: \"x[0:16, :]\"}}\n"
                    "    body: [\"acc = acc * 2\"]\n"
                    "  - \"y[0:16, :] = acc\"\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  for (const auto& t : r.prog->tensors) CHECK(t.role != ptoc::TensorRole::Workspace);
  int muls = 0;
  for (const auto& op : r.prog->ops) muls += op.kind == ptoc::OpKind::Mul ? 1 : 0;
  CHECK(muls == 3);
}

TEST_CASE("a local tensor is a GM window; indexed assignment writes it, a read views it", "[frontend][state]") {
  auto r = run(spec(kTile +
                    "  - loop: {var: b, count: B}\n"
                    "    body:\n"
                    "      - \"t = tensor([16, 64], fp32)\"\n"
                    "      - \"t[0:8, :] = x[b:b + 8, :]\"\n"
                    "      - \"y[b:, :] = t\"\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  int t = -1;
  for (size_t i = 0; i < r.prog->tensors.size(); ++i)
    if (r.prog->tensors[i].name.rfind("t_", 0) == 0) t = int(i);
  REQUIRE(t >= 0);
  CHECK(r.prog->tensors[size_t(t)].shape[0].str() == "B * 16");
  bool wrote = false;
  for (const auto& op : r.prog->ops)
    if (op.kind == ptoc::OpKind::Assemble && op.tensor == t) wrote = op.offsets[0].str() == "b * 16";
  CHECK(wrote);
}

TEST_CASE("run-time conditions become 0/1-trip loops evaluated per instance", "[frontend][state]") {
  // `cond` on the loop variable: run-time branches (is_loop_begin / is_loop_end, and comparisons with the
  // first or last value such as `j == 0`, split the loop into paths instead: test_loop_paths.cpp,
  // test_loop_path_compares.cpp).
  auto r = run(spec(kTile +
                    "  - loop: {var: j, count: \"ceil_div(B, 16)\", carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                    "    body:\n"
                    "      - cond: \"j == 1\"\n"
                    "        then: [\"acc = x[0:16, :] * 1\"]\n"
                    "        else: [\"acc = acc + x[j * 16:(j + 1) * 16, :]\"]\n"
                    "      - cond: \"j >= ceil_div(B, 16) - 2\"\n"
                    "        then: [\"y[0:16, :] = acc\"]\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  REQUIRE(r.prog->body.size() >= 2);
  const ptoc::LoopNode& loop = r.prog->body[1];
  REQUIRE(loop.kind == ptoc::LoopNode::Kind::Loop);
  std::vector<std::string> ends;
  for (const auto& n : loop.gears[0].body)
    if (n.kind == ptoc::LoopNode::Kind::Loop) ends.push_back(n.name + ": " + n.end.str());
  CHECK(ends == std::vector<std::string>{"IF_L17_then: 1 - min(max(1 - j, j - 1), 1)",
                                         "IF_L17_else: min(max(1 - j, j - 1), 1)",
                                         "IF_L20_then: min(max(j - ceil_div(B, 16) + 3, 0), 1)"});
}

namespace {

// Line 15: a loop over 16-row blocks of x (the last a tail when B % 16 != 0); line 18: a run-time cond.
const std::string kBlocks = "  - loop: {var: j, count: \"ceil_div(B, 16)\"}\n    body:\n"
                            "      - \"xb = x[j * 16:(j + 1) * 16, :]\"\n";

int workspaces(const ptoc::Program& p) {
  int n = 0;
  for (const auto& t : p.tensors) n += t.role == ptoc::TensorRole::Workspace;
  return n;
}

}  // namespace

TEST_CASE("a name first bound in both branches of a run-time cond is read after it through a window",
          "[frontend][state]") {
  auto p = ok(spec(kTile + kBlocks +
                   "      - cond: \"j % 2 == 1\"\n"
                   "        then: [\"acc = xb * 2\"]\n"
                   "        else: [\"acc = xb + 1\"]\n"
                   "      - \"y[j * 16:, :] = acc\"\n"));
  const int ws = p.find_tensor("acc_IF_L18");
  REQUIRE(ws >= 0);
  const auto& d = p.tensors[size_t(ws)];
  CHECK(d.role == ptoc::TensorRole::Workspace);
  REQUIRE(d.shape.size() == 2);
  CHECK(d.shape[0].str() == "ceil_div(B, 16) * 16");  // one 16-row window per block
  // Each branch writes the window of its block; the read after the if keeps the tail block's valid rows.
  std::vector<std::string> writes;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Assemble && op.tensor == ws) writes.push_back(op.offsets[0].str());
  CHECK(writes == std::vector<std::string>{"j * 16", "j * 16"});
  std::string slice_valid, read_valid;
  for (const auto& op : p.ops) {
    if (op.kind != ptoc::OpKind::View) continue;
    const ptoc::Op& src = p.ops[size_t(p.values[size_t(op.inputs[0])].def_op)];
    if (src.kind != ptoc::OpKind::TensorRef) continue;
    if (src.tensor == p.find_tensor("x")) slice_valid = p.values[size_t(op.output)].valid[0].str();
    if (src.tensor == ws) {
      REQUIRE(op.valid.size() == 2);
      read_valid = op.valid[0].str();
      CHECK(p.values[size_t(op.output)].valid[0].str() == read_valid);
    }
  }
  CHECK(slice_valid.find('B') != std::string::npos);
  CHECK(read_valid == slice_valid);
}

TEST_CASE("a name both branches bind but nothing after them reads gets no window and no check",
          "[frontend][state]") {
  // acc and t are bound in both branches; t with another shape in each (as win_attention.yaml's acc_s).
  auto p = ok(spec(kTile + kBlocks +
                   "      - cond: \"j % 2 == 1\"\n"
                   "        then: [\"t = sum(xb, 1, keepdim=true)\", \"acc = xb * 2\"]\n"
                   "        else: [\"t = xb * 3\", \"acc = xb + 1\"]\n"
                   "      - \"y[j * 16:, :] = xb\"\n"));
  CHECK(workspaces(p) == 0);
  // Read after: only acc gets a window; t still needs none.
  auto q = ok(spec(kTile + kBlocks +
                   "      - cond: \"j % 2 == 1\"\n"
                   "        then: [\"t = sum(xb, 1, keepdim=true)\", \"acc = xb * 2\"]\n"
                   "        else: [\"t = xb * 3\", \"acc = xb + 1\"]\n"
                   "      - \"y[j * 16:, :] = acc\"\n"));
  CHECK(workspaces(q) == 1);
  CHECK(q.find_tensor("acc_IF_L18") >= 0);
  // Rebound after the branch before any read: the branches' values are dead, no window.
  auto r = ok(spec(kTile + kBlocks +
                   "      - cond: \"j % 2 == 1\"\n"
                   "        then: [\"acc = xb * 2\"]\n"
                   "        else: [\"acc = xb + 1\"]\n"
                   "      - \"acc = xb * 5\"\n"
                   "      - \"y[j * 16:, :] = acc\"\n"));
  CHECK(workspaces(r) == 0);
}

TEST_CASE("misused carried values, local tensors and run-time conditions are located errors", "[frontend][state]") {
  SECTION("carried value changes shape") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                              "    body: [\"acc = sum(acc, 0, keepdim=true)\"]\n" + kWrite),
                 "acc: \"full", "the carried value 'acc' ends the body of the loop at line 15 with shape [1, 64]",
                 "keeps its dtype and shape");
  }
  SECTION("carried value changes dtype") {
    expect_error(spec(kTile + "  - loop: {var: j, count: 4, kind: static, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                              "    body: [\"acc = cast(acc, fp16)\"]\n" + kWrite),
                 "acc: \"full", "ends the body of the loop at line 15 with dtype fp16 (it starts as fp32)");
  }
  SECTION("scalar initial value") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B, carry: {acc: \"0\"}}\n    body: []\n" + kWrite),
                 "0\"}}", "the initial value of 'acc' is a scalar", "full([shape], value, dtype)");
  }
  SECTION("carry with the loop variable's name") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B, carry: {j: \"x * 1\"}}\n    body: []\n" + kWrite),
                 "j: \"x", "the carried value 'j' has the name of the loop variable");
  }
  SECTION("carry is not a mapping") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B, carry: [acc]}\n    body: []\n" + kWrite), "[acc]",
                 "loop carry must be a mapping of name to initial value");
  }
  SECTION("carry initial value not a string") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B, carry: {a: [1, 2]}}\n    body: []\n" + kWrite), "[1, 2]}",
                 "the initial value of 'a' must be an expression string");
  }
  SECTION("carry misspelt") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B, cary: {a: \"x * 1\"}}\n    body: []\n" + kWrite), "cary",
                 "unknown key 'cary'", "did you mean 'carry'?");
  }
  SECTION("local tensor with a loop variable in its shape") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B}\n    body: [\"t = tensor([j + 1, 64], fp32)\"]\n" + kWrite),
                 "t = tensor", "the local tensor 't' has the shape [j + 1, 64], which uses 'j'", "largest extent");
  }
  SECTION("local tensor without dtype") {
    expect_error(spec(kTile + "  - \"t = tensor([16, 64])\"\n" + kWrite), "@tensor([16, 64])",
                 "tensor needs a shape and a dtype", "tensor([16, 64], fp32)");
  }
  SECTION("is_loop_begin on a name that is no loop variable") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B}\n    body:\n      - if: \"is_loop_begin(k)\"\n"
                              "        then: []\n" + kWrite),
                 "is_loop_begin(@k)", "'k' is not the variable of an enclosing dynamic loop");
  }
  SECTION("is_loop_end on a static loop variable") {
    expect_error(spec(kTile + "  - loop: {var: i, count: 2, kind: static}\n    body:\n      - if: \"is_loop_end(i)\"\n"
                              "        then: []\n" + kWrite),
                 "is_loop_end(@i)", "'i' is not the variable of an enclosing dynamic loop", "'i == 0'");
  }
  SECTION("a name first bound in a run-time branch, used after it") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B}\n    body:\n      - cond: \"j > 2\"\n"
                              "        then: [\"t = x[0:16, :] * 2\"]\n      - \"y[0:16, :] = t\"\n"),
                 "= @t\"", "'t' was first bound inside the run-time branch at line 17, which may not run",
                 "bind it before the branch");
  }
  SECTION("both branches bind a name with different shapes, read after them") {
    expect_error(spec(kTile + kBlocks +
                      "      - cond: \"j % 2 == 1\"\n"
                      "        then: [\"m = sum(xb, 1, keepdim=true)\"]\n"
                      "        else: [\"m = xb * 2\"]\n"
                      "      - \"y[j * 16:, :] = m\"\n"),
                 "= @m\"",
                 "'m' is bound in both branches of the run-time branch at line 18 but with different shapes: "
                 "[16, 64] (else, line 20) vs [16, 1] (then, line 19)",
                 "give both branches the same shape, or read it only inside the branches");
  }
  SECTION("both branches bind a name with different dtypes, read after them") {
    expect_error(spec(kTile + kBlocks +
                      "      - cond: \"j % 2 == 1\"\n"
                      "        then: [\"m = cast(xb, fp16)\"]\n"
                      "        else: [\"m = xb * 2\"]\n"
                      "      - \"y[j * 16:, :] = cast(m, fp32)\"\n"),
                 "cast(@m, fp32)",
                 "'m' is bound in both branches of the run-time branch at line 18 but with different dtypes: "
                 "fp32 (else, line 20) vs fp16 (then, line 19)",
                 "give both branches the same dtype");
  }
  SECTION("both branches bind a name with different valid shapes, read after them") {
    expect_error(spec(kTile + kBlocks +
                      "      - cond: \"j % 2 == 1\"\n"
                      "        then: [\"m = xb * 2\"]\n"
                      "        else: [\"m = x[0:16, :] * 2\"]\n"
                      "      - \"y[j * 16:, :] = m\"\n"),
                 "= @m\"", "but with different valid shapes: [min(B, 16), 64] (else, line 20) vs [min(B, j * 16 + 16) - j * 16, 64] (then, line 19)",
                 "give both branches the same valid shape");
  }
  SECTION("tensor() inside an expression") {
    expect_error(spec(kTile + "  - \"y[0:16, :] = tensor([16, 64], fp32) + 1\"\n"), "@tensor([16, 64], fp32) + 1",
                 "tensor(shape, dtype) declares a local tensor and is a statement of its own", "t = tensor(");
  }
  SECTION("is_loop_end as a value") {
    expect_error(spec(kTile + "  - loop: {var: j, count: B}\n    body: [\"y[0:16, :] = x[0:16, :] * is_loop_end(j)\"]\n"),
                 "@is_loop_end(j)", "'is_loop_end' is a condition");
  }
  SECTION("cond without a string") {
    expect_error(spec(kTile + "  - cond: [1]\n    then: []\n" + kWrite), "[1]", "cond needs a condition string");
  }
}
