// Run-time values (specs/README.md "Run-time values"): elements of int32 inputs in loop bounds,
// view offsets and valid extents become symbols the control flow reads before the node that uses
// them; and the located errors for their misuse. Numbers: test/conformance runtime_values_paged,
// test/specs flash_decode_paged, test/runtime/test_runtime_values.cpp.
#include "spec_helpers.h"

#include "compiler/ir.h"

using fe_test::find_pos;
using fe_test::expect_error;
using fe_test::run;

namespace {

std::string paged(const std::string& body, const std::string& extra_inputs = "") {
  return "ptoc: 1\nname: t\ndims:\n  B: {dynamic: true, max: 8}\n  NB: 12\n  MAXB: 4\n  D: 64\n"
         "inputs:\n  seq_len: {dtype: int32, shape: [B], values: [0, 64]}\n"
         "  block_table: {dtype: int32, shape: [B, MAXB], values: [0, 11]}\n"
         "  pool: {dtype: fp32, shape: [NB * 16, D]}\n" + extra_inputs +
         "outputs:\n  total: {dtype: fp32, shape: [B, 1, D]}\nbody:\n  - vec_tile: [16, 64]\n" + body;
}

const std::string kLoop =
    "  - loop: {var: b, count: B}\n"
    "    body:\n"
    "      - loop: {var: j, count: \"ceil_div(seq_len[b], 16)\", carry: {acc: \"full([1, D], 0, fp32)\"}}\n"
    "        body:\n"
    "          - \"blk = view(pool, [16, D], [block_table[b, j] * 16, 0], valid=[min(16, seq_len[b] - j * 16), D])\"\n"
    "          - \"acc = acc + sum(blk, 0, keepdim=true)\"\n"
    "      - \"total[b, :, :] = acc\"\n";


const ptoc::LoopNode* find_loop(const std::vector<ptoc::LoopNode>& nodes, const std::string& var) {
  for (const auto& n : nodes) {
    if (n.kind != ptoc::LoopNode::Kind::Loop) continue;
    if (n.var == var) return &n;
    for (const auto& g : n.gears)
      if (auto* x = find_loop(g.body, var)) return x;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a tensor element in a loop bound is read at the loop's entry; in a statement, by its root",
          "[frontend][index]") {
  const std::string yaml = paged(kLoop);
  auto r = run(yaml);
  INFO(r.rendered);
  REQUIRE(r.prog);
  const ptoc::LoopNode* j = find_loop(r.prog->body, "j");
  REQUIRE(j);
  REQUIRE(j->loads.size() == 1);
  CHECK(j->loads[0].text == "seq_len[b]");
  CHECK(j->loads[0].sym == "seq_len__0");
  CHECK(j->loads[0].tensor == r.prog->find_tensor("seq_len"));
  CHECK(j->loads[0].loc.line == find_pos(yaml, "seq_len[b], 16").line);
  CHECK(j->loads[0].loc.col == find_pos(yaml, "seq_len[b], 16").col);
  CHECK(j->end.str() == "ceil_div(seq_len__0, 16)");
  // The body's root reads the block table entry and the length again (the same symbol), in order.
  REQUIRE(j->gears.size() == 1);
  const ptoc::LoopNode* root = nullptr;
  for (const auto& n : j->gears[0].body)
    if (n.kind == ptoc::LoopNode::Kind::Root && !n.loads.empty()) root = &n;
  REQUIRE(root);
  REQUIRE(root->loads.size() == 2);
  CHECK(root->loads[0].text == "block_table[b, j]");
  CHECK(root->loads[0].index.size() == 2);
  CHECK(root->loads[1].sym == "seq_len__0");
  const std::string ir = ptoc::print_ir(*r.prog);
  CHECK_THAT(ir, Catch::Contains("reads seq_len__0 = seq_len[b]"));
  CHECK_THAT(ir, Catch::Contains("reads block_table__1 = block_table[b, j]"));
  // The view's offset and valid extent are the symbols.
  bool view_seen = false;
  for (const auto& op : r.prog->ops)
    if (op.kind == ptoc::OpKind::View && !op.offsets.empty() && op.offsets[0].str() == "block_table__1 * 16") {
      view_seen = true;
      REQUIRE(op.valid.size() == 2);
      CHECK(op.valid[0].str().find("seq_len__0") != std::string::npos);
    }
  CHECK(view_seen);
}

TEST_CASE("run-time values: values: declares the generated range of an int32 input", "[frontend][index]") {
  auto r = run(paged(kLoop));
  REQUIRE(r.prog);
  const auto& t = r.prog->tensors[size_t(r.prog->find_tensor("block_table"))];
  CHECK(t.values_lo == 0);
  CHECK(t.values_hi == 11);
  const std::string bad = paged(kLoop, "  idx: {dtype: int32, shape: [B], values: [5, 2]}\n");
  expect_error(bad, "[5, 2]", "values must be [lo, hi], two integers with lo <= hi");
  const std::string fp = paged(kLoop, "  w: {dtype: fp16, shape: [B], values: [0, 2]}\n");
  expect_error(fp, "[0, 2]}", "values: is for int32 inputs (run-time values), not fp16");
}

TEST_CASE("run-time values: located errors for what cannot be one", "[frontend][index]") {
  auto body = [](const std::string& count, const std::string& stmt = "acc = acc + sum(pool[0:16, :], 0, keepdim=true)") {
    return "  - loop: {var: b, count: B}\n"
           "    body:\n"
           "      - loop: {var: j, count: \"" + count + "\", carry: {acc: \"full([1, D], 0, fp32)\"}}\n"
           "        body: [\"" + stmt + "\"]\n"
           "      - \"total[b, :, :] = acc\"\n";
  };
  const std::string fp16_in = "  q: {dtype: fp16, shape: [B]}\n";
  expect_error(paged(body("q[b]"), fp16_in), "q[b]\"", "'q' is fp16; run-time values are read from int32 inputs",
               "dtype: int32");
  expect_error(paged(body("total[b, 0, 0]")), "total[b, 0, 0]", "'total' is an output; run-time values are read from inputs");
  expect_error(paged(body("block_table[b]")), "block_table@[b]", "'block_table' has rank 2 but 'block_table[b]' gives 1 indices");
  expect_error(paged(body("block_table[b, 0:2]")), "0:2", "axis 1 of 'block_table' needs a single index, not a slice");
  expect_error(paged(body("block_table[b, 4]")), "4]\"", "index 4 is outside axis 1 of 'block_table' (extent 4)");
  expect_error(paged(body("seq_len[j]")), "j]\"", "unknown dim or loop variable 'j'");
  expect_error(paged(body("seqlen[b]")), "seqlen[b]", "unknown tensor 'seqlen' in a dim expression", "did you mean 'seq_len'?");
  // A static use cannot depend on it (an `if` on it is a run-time branch: test_runtime_scalars.cpp).
  expect_error(paged("  - loop: {var: b, count: B}\n    body:\n      - vec_tile: [\"seq_len[b]\", 64]\n"),
               "seq_len[b]\"", "'seq_len[b]' is a run-time value; this must be static");
}

TEST_CASE("run-time values in a cond condition are read by the branch loops", "[frontend][index]") {
  auto r = run(paged("  - loop: {var: b, count: B}\n    body:\n"
                     "      - cond: \"seq_len[b] > 16\"\n"
                     "        then: [\"total[b, :, :] = sum(pool[0:16, :], 0, keepdim=true)\"]\n"
                     "        else: [\"total[b, :, :] = amax(pool[0:16, :], 0, keepdim=true)\"]\n"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  int branches = 0;
  const ptoc::LoopNode* b = find_loop(r.prog->body, "b");
  REQUIRE(b);
  for (const auto& n : b->gears[0].body)
    if (n.kind == ptoc::LoopNode::Kind::Loop) {
      ++branches;
      REQUIRE(n.loads.size() == 1);
      CHECK(n.loads[0].text == "seq_len[b]");
    }
  CHECK(branches == 2);
}

TEST_CASE("index_select(x, dim, idx) is one-slice views at run-time offsets, concatenated", "[frontend][index]") {
  const std::string head =
      "ptoc: 1\nname: t\ndims:\n  B: {dynamic: true, max: 8}\n  V: 100\n  N: 3\n  D: 64\n"
      "inputs:\n  table: {dtype: fp16, shape: [V, D]}\n  ids: {dtype: int32, shape: [B, N]}\n"
      "  one: {dtype: int32, shape: [N]}\n  w: {dtype: fp32, shape: [N]}\n"
      "outputs:\n  y: {dtype: fp16, shape: [B, N, D]}\nbody:\n  - vec_tile: [16, 64]\n"
      "  - loop: {var: b, count: B}\n    body:\n";
  auto with = [&](const std::string& stmt) { return head + "      - \"" + stmt + "\"\n      - \"y[b, :, :] = e\"\n"; };
  auto r = run(with("e = index_select(table, 0, ids[b, :])"));
  INFO(r.rendered);
  REQUIRE(r.prog);
  int views = 0, concats = 0;
  for (const auto& op : r.prog->ops) {
    if (op.kind == ptoc::OpKind::View) {
      CHECK(op.shape[0].str() == "1");
      CHECK(op.offsets[0].str() == "ids__" + std::to_string(views));
      ++views;
    }
    if (op.kind == ptoc::OpKind::Concat) {
      ++concats;
      CHECK(op.inputs.size() == 3);
    }
  }
  CHECK(views == 3);
  CHECK(concats == 1);
  const std::string ir = ptoc::print_ir(*r.prog);
  CHECK_THAT(ir, Catch::Contains("reads ids__2 = ids[b, 2]"));
  REQUIRE(run(with("e = index_select(table, 0, one)")).prog);

  // Along dim 1: one-column views at run-time offsets on axis 1, concatenated along it.
  auto c1 = run("ptoc: 1\nname: t\ndims:\n  V: 100\n  N: 3\n  D: 64\ninputs:\n  table: {dtype: fp16, shape: [V, D]}\n"
                "  one: {dtype: int32, shape: [N]}\noutputs:\n  y: {dtype: fp16, shape: [V, N]}\nbody:\n"
                "  - vec_tile: [16, 64]\n  - \"y[:, :] = index_select(table, 1, one)\"\n");
  INFO(c1.rendered);
  REQUIRE(c1.prog);
  int col_views = 0;
  for (const auto& op : c1.prog->ops)
    if (op.kind == ptoc::OpKind::View) {
      CHECK(op.shape[1].str() == "1");
      CHECK(op.offsets[0].str() == "0");
      CHECK(op.offsets[1].str().rfind("one__", 0) == 0);
      ++col_views;
    }
  CHECK(col_views == 3);
  for (const auto& op : c1.prog->ops)
    if (op.kind == ptoc::OpKind::Concat) CHECK(op.axes == std::vector<int>{1});
  expect_error(with("e = index_select(table, 2, one)"), "2, one)", "index_select dim 2 is out of range for 'table' of rank 2",
               "dim is in -2..1");
  expect_error(with("e = index_select(table * 2, 0, one)"), "table * 2", "index_select reads rows of a GM tensor; 'table * 2' is a computed value");
  expect_error(with("e = index_select(table, 0, w)"), "w)", "index_select's index 'w' must be an int32 input tensor");
  expect_error(with("e = index_select(table, 0, ids)"), "ids)", "index_select's index must select one row of 'ids' (rank 2); write ids[b, :]");
  expect_error(with("e = index_select(table, 0, ids[b, 0:2])"), "0:2", "index_select's index is a rank-1 int32 input or one row of one");
  expect_error(with("e = index_select(table, 0)"), "index_select(", "index_select takes three arguments, got 2");
}
