// portB6: what DeepSeek-V4's window attention (specs/win_attention.yaml) needed to port line by line.
// Run-time scalars bound by a statement (PyPTO's SymbolicScalar variables: `cur_s_q = cu[b + 1] - cu[b]`),
// `ceildiv` (PyPTO's spelling) in dim expressions, and an `if` on a run-time value or scalar decided at run
// time as a `cond` is (PyPTO's `if start_block + 2 == end_block:`). Numbers: test/specs win_attention and
// test/conformance/specs/port6b_run_scalars.yaml against NumPy.
#include "spec_helpers.h"

#include "compiler/ir.h"

using fe_test::expect_error;
using fe_test::find_pos;
using fe_test::graph;
using fe_test::run;

namespace {

std::string paged(const std::string& body) {
  return "ptoc: 1\nname: t\ndims:\n  B: {dynamic: true, max: 8}\n  NB: 12\n  MAXB: 4\n  D: 64\n"
         "inputs:\n  seq_len: {dtype: int32, shape: [B], values: [0, 64]}\n"
         "  cu: {dtype: int32, shape: [B + 1], values: [0, 64]}\n"
         "  block_table: {dtype: int32, shape: [B, MAXB], values: [0, 11]}\n"
         "  pool: {dtype: fp32, shape: [NB * 16, D]}\n"
         "outputs:\n  total: {dtype: fp32, shape: [B, 1, D]}\nbody:\n  - vec_tile: [16, 64]\n" + body;
}

const ptoc::LoopNode* find_loop(const std::vector<ptoc::LoopNode>& nodes, const std::string& var) {
  for (const auto& n : nodes) {
    if (n.kind != ptoc::LoopNode::Kind::Loop) continue;
    if (n.var == var) return &n;
    for (const auto& g : n.gears)
      if (auto* x = find_loop(g.body, var)) return x;
  }
  return nullptr;
}

std::string in_b(const std::string& stmts) { return "  - loop: {var: b, count: B}\n    body:\n" + stmts; }

}  // namespace

TEST_CASE("a run-time scalar stands for its dim expression; its run-time values are read where it is used",
          "[frontend][port6b]") {
  const std::string yaml = paged(in_b(
      "      - \"n_len = cu[b + 1] - cu[b]\"\n"
      "      - \"blocks = ceildiv(n_len, 16)\"\n"
      "      - loop: {var: j, count: blocks, carry: {acc: \"full([1, D], 0, fp32)\"}}\n"
      "        body:\n"
      "          - \"start = cu[b] + j * 16\"\n"
      "          - \"blk = view(pool, [16, D], [block_table[b, j] * 16 + start % 16, 0], valid=[min(16, n_len - j * 16), D])\"\n"
      "          - \"acc = acc + sum(blk, 0, keepdim=true)\"\n"
      "      - \"total[b, :, :] = acc\"\n"));
  auto r = run(yaml);
  INFO(r.rendered);
  REQUIRE(r.prog);
  REQUIRE(r.errors == 0);
  const ptoc::LoopNode* j = find_loop(r.prog->body, "j");
  REQUIRE(j);
  // The loop bound is ceil_div(cu[b + 1] - cu[b], 16), its two reads at the loop's entry, located at the binding.
  CHECK(j->end.str() == "ceil_div(cu__0 - cu__1, 16)");
  REQUIRE(j->loads.size() == 2);
  CHECK(j->loads[0].text == "cu[b + 1]");
  CHECK(j->loads[1].text == "cu[b]");
  CHECK(j->loads[0].loc.line == find_pos(yaml, "cu[b + 1]").line);
  CHECK(j->loads[0].loc.col == find_pos(yaml, "cu[b + 1]").col);
  // The body's root reads what its view uses: the block table entry, cu[b] (start) and both (n_len).
  const ptoc::LoopNode* root = nullptr;
  for (const auto& n : j->gears[0].body)
    if (n.kind == ptoc::LoopNode::Kind::Root && !n.loads.empty()) root = &n;
  REQUIRE(root);
  std::vector<std::string> texts;
  for (const auto& l : root->loads) texts.push_back(l.text);
  CHECK(texts == std::vector<std::string>{"block_table[b, j]", "cu[b]", "cu[b + 1]"});
}

TEST_CASE("a run-time scalar takes its value where it is bound (Python's binding)", "[frontend][port6b]") {
  auto r = run(paged(in_b(
      "      - \"k = 4\"\n"
      "      - \"n = seq_len[b] * k\"\n"
      "      - \"k = 8\"\n"
      "      - loop: {var: j, count: n, carry: {acc: \"full([1, D], 0, fp32)\"}}\n"
      "        body: [\"acc = acc + pool[j:j + 1, :] * k\"]\n"
      "      - \"total[b, :, :] = acc\"\n")));
  INFO(r.rendered);
  REQUIRE(r.prog);
  const ptoc::LoopNode* j = find_loop(r.prog->body, "j");
  REQUIRE(j);
  CHECK(j->end.str() == "seq_len__0 * 4");
}

TEST_CASE("run-time scalars: located errors", "[frontend][port6b]") {
  const std::string n = "      - \"n = seq_len[b]\"\n";
  expect_error(paged(in_b(n + "      - vec_tile: [n, 64]\n")), "n, 64]",
               "'n' is a run-time scalar (it reads dynamic dims, loop variables or run-time values); this must be static",
               "tile shapes and compile-time constants are static");
  expect_error(paged(in_b(n + "      - \"total[b, :, :] = sum(pool[0:16, :], 0, keepdim=true) * n\"\n")), "n\"\n",
               "'n' is a run-time scalar and cannot be a scalar operand", "loop bounds, view offsets");
  expect_error(paged(in_b(n + "      - \"m = n / 2\"\n")), "n / 2",
               "'n / 2' divides integers with '/'; a run-time scalar is an integer", "'//'");
  expect_error(paged(in_b("      - \"B = seq_len[b]\"\n")), "B = seq",
               "cannot bind run-time scalar 'B': it names a dim", "choose another name");
  expect_error(paged(in_b("      - \"pool = seq_len[b] + 1\"\n")), "pool = seq",
               "cannot bind run-time scalar 'pool': it names an input tensor");
  expect_error(paged(in_b("      - \"m = seq_len[b] // 0\"\n")), "// 0", "division by zero in a dim expression");
  // Local to the loop body that binds it, like a value.
  expect_error(paged(in_b(n + "      - \"total[b, :, :] = sum(pool[0:16, :], 0, keepdim=true)\"\n") +
                     "  - loop: {var: j, count: n}\n    body: [\"total[j, :, :] = sum(pool[0:16, :], 0, keepdim=true)\"]\n"),
               "n}", "unknown dim or loop variable 'n'");
}

TEST_CASE("an if on a run-time scalar or value is a run-time branch, as a cond", "[frontend][port6b]") {
  for (const std::string c : {"start + 2 == stop", "seq_len[b] > 16"}) {
    INFO(c);
    auto r = run(paged(in_b("      - \"start = seq_len[b] // 16\"\n"
                            "      - \"stop = block_table[b, 0]\"\n"
                            "      - if: \"" + c + "\"\n"
                            "        then: [\"total[b, :, :] = sum(pool[0:16, :], 0, keepdim=true)\"]\n"
                            "        else: [\"total[b, :, :] = amax(pool[0:16, :], 0, keepdim=true)\"]\n")));
    INFO(r.rendered);
    REQUIRE(r.prog);
    const ptoc::LoopNode* b = find_loop(r.prog->body, "b");
    REQUIRE(b);
    int branches = 0;
    for (const auto& node : b->gears[0].body)
      if (node.kind == ptoc::LoopNode::Kind::Loop) {
        ++branches;
        CHECK_FALSE(node.loads.empty());
      }
    CHECK(branches == 2);
  }
  // A compile-time `if` on a dynamic dim is still an error (no run-time value in it).
  expect_error(paged("  - if: \"B > 1\"\n    then: [\"total[0, :, :] = sum(pool[0:16, :], 0, keepdim=true)\"]\n"),
               "B > 1", "'B' is a dynamic dim; this must be static");
}

TEST_CASE("ceildiv is PyPTO's spelling of ceil_div in dim expressions", "[frontend][port6b]") {
  auto r = run(paged(in_b("      - loop: {var: j, count: \"ceildiv(seq_len[b], 16)\", carry: {acc: \"full([1, D], 0, fp32)\"}}\n"
                          "        body: [\"acc = acc + pool[j:j + 1, :]\"]\n"
                          "      - \"total[b, :, :] = acc\"\n")));
  INFO(r.rendered);
  REQUIRE(r.prog);
  const ptoc::LoopNode* j = find_loop(r.prog->body, "j");
  REQUIRE(j);
  CHECK(j->end.str() == "ceil_div(seq_len__0, 16)");
}

// --- PyPTO's spellings of forms ptoc has (elaborate_pypto_spellings.cpp) --------------------------------

namespace {

std::string small(const std::string& body) {
  return "ptoc: 1\nname: t\ndims:\n  M: 32\n  K: 64\n  N: 48\n"
         "inputs:\n  a: {dtype: fp16, shape: [M, K]}\n  b: {dtype: fp16, shape: [N, K]}\n"
         "  m: {dtype: bool, shape: [M, N]}\n"
         "outputs:\n  y: {dtype: fp32, shape: [M, 4 * N]}\nbody:\n  - vec_tile: [16, 48]\n"
         "  - cube_tile: {m: [16, 16], k: [64, 64], n: [48, 48]}\n" + body;
}

}  // namespace

TEST_CASE("PyPTO's b_trans=, a_trans= and valid_shape= are matmul's trans_b, trans_a and view's valid",
          "[frontend][port6b]") {
  const std::string ptoc_form = small(
      "  - \"s = matmul(view(a, [32, 64], [0, 0], valid=[20, 64]), b, fp32, trans_b=true)\"\n"
      "  - \"y[0:, 0:] = s\"\n");
  const std::string pypto_form = small(
      "  - \"s = matmul(view(a, [32, 64], [0, 0], valid_shape=[20, 64]), b, fp32, b_trans=True)\"\n"
      "  - \"y[0:, 0:] = s\"\n");
  CHECK(graph(pypto_form) == graph(ptoc_form));
  CHECK(graph(small("  - \"s = matmul(transpose(a, 0, 1), b, fp32, a_trans=True, b_trans=True)\"\n"
                    "  - \"y[0:, 0:] = s\"\n")) ==
        graph(small("  - \"s = matmul(transpose(a, 0, 1), b, fp32, trans_a=true, trans_b=true)\"\n"
                    "  - \"y[0:, 0:] = s\"\n")));
  // Both spellings at once is one argument given twice.
  expect_error(small("  - \"y[0:, 0:] = matmul(a, b, fp32, trans_b=true, b_trans=True)\"\n"), "b_trans",
               "argument 'b_trans' of 'matmul' given twice");
}

TEST_CASE("float(\"-inf\") is a literal; concat takes [x] * k; tensor() takes PyPTO's name argument",
          "[frontend][port6b]") {
  const std::string body =
      "  - \"s = matmul(a, b, fp32, trans_b=true)\"\n"
      "  - \"t = tensor([32, 48], fp32, 'acc_s')\"\n"
      "  - \"t[0:, 0:] = where(m, s, %INF%)\"\n"
      "  - \"y[0:, 0:] = concat(%LIST%, dim=1)\"\n";
  auto with = [&](const std::string& inf, const std::string& list) {
    std::string b = body;
    b.replace(b.find("%INF%"), 5, inf);
    b.replace(b.find("%LIST%"), 6, list);
    return small(b);
  };
  const std::string want = graph(with("-inf", "[t, t, t, t]"));
  CHECK(graph(with("float('-inf')", "[t] * 4")) == want);
  CHECK(graph(with("float(\\\"-INF\\\")", "4 * [t]")) == want);
  CHECK(graph(with("-inf", "[t, t] * 2")) == want);
  CHECK(graph(with("float('-inf')", "[t] * 4")) != graph(with("float('inf')", "[t] * 4")));
  expect_error(with("float('big')", "[t] * 4"), "float(", "float(...) takes one string: \"inf\", \"-inf\" or \"nan\"");
  expect_error(with("float(2)", "[t] * 4"), "float(", "float(...) takes one string");
  expect_error(with("-inf", "[t] * 0"), "0, dim", "a list repeated 0 times; the count must be 1 to 4096");
  expect_error(small("  - \"t = tensor([32, 48], fp32, 7)\"\n  - \"y[0:, 0:48] = t\"\n"), "7)",
               "tensor takes (shape, dtype): '7' is one argument too many");
}

TEST_CASE("assemble(input, offsets, out) is the statement out[o0:, o1:] = input", "[frontend][port6b]") {
  const std::string stmt = small("  - \"s = matmul(a, b, fp32, trans_b=true)\"\n"
                                 "  - \"y[0:, 48:] = s\"\n  - \"y[0:, 0:] = s * 2\"\n");
  const std::string call = small("  - \"s = matmul(a, b, fp32, trans_b=true)\"\n"
                                 "  - \"assemble(s, [0, 48], y)\"\n  - \"assemble(input=s * 2, offsets=[0, 0], out=y)\"\n");
  CHECK(graph(call) == graph(stmt));
  // The call is desugared by the parser (assemble_call.cpp); its errors are test_pypto_call_forms.cpp's wording.
  expect_error(small("  - \"assemble(a, [0, 0])\"\n"), "assemble(", "'assemble' takes 3 arguments");
  expect_error(small("  - \"assemble(a, 0, y)\"\n"), "0, y", "the offsets of 'assemble' must be a list");
  expect_error(small("  - \"assemble(a, [0, 0], y[0:4, :])\"\n"), "y[0:4",
               "the target of 'assemble' must be the name of an output");
  expect_error(small("  - \"assemble(a, [0, 0], y, parallel=True)\"\n"), "parallel",
               "unknown argument 'parallel' to 'assemble'");
}

TEST_CASE("full(shape, value, dtype, valid_shape=[...]) is a view of the full value with that valid shape",
          "[frontend][port6b]") {
  const std::string pypto_form = small(
      "  - \"p = full([32, 48], -3.0, fp32, valid_shape=[20, 48])\"\n"
      "  - \"y[0:, 0:] = concat([p] * 4, dim=1)\"\n");
  const std::string ptoc_form = small(
      "  - \"p = view(full([32, 48], -3.0, fp32), [32, 48], [0, 0], valid=[20, 48])\"\n"
      "  - \"y[0:, 0:] = concat([p, p, p, p], 1)\"\n");
  CHECK(graph(pypto_form) == graph(ptoc_form));
  expect_error(small("  - \"y[0:, 0:48] = full(s, -3.0, fp32, valid_shape=[20, 48])\"\n"), "valid_shape",
               "full's valid_shape needs the shape as a list");
  expect_error(small("  - \"y[0:, 0:48] = full([32, 48], -3.0, fp32, valid_shape=[20])\"\n"), "full(",
               "view of a rank-2 value needs 2 entries in shape, offsets and valid");
}
