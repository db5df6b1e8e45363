// PyPTO's SymbolicScalar as one kind of binding (elaborate_symbolic_scalar.cpp): a dynamic extent from
// x.shape, arithmetic on it, and run-time values read from int inputs mix in one name; a rebinding replaces
// whatever the name was. PyPTO's x.shape as a list argument and in dim expressions, and x.dtype as a dtype
// argument (elaborate_tensor_shape.cpp), each checked against ptoc's own spelling (equal printed IR).
#include <regex>

#include "spec_helpers.h"

#include "compiler/ir.h"

using fe_test::expect_error;
using fe_test::ok;
using fe_test::run;

namespace {

// x [B, H] bf16, pos [B] int32 in; y [B, H] fp32 out.
std::string spec(const std::string& body) {
  return "ptoc: 1\nname: t\ndims:\n  B: {dynamic: true, max: 16}\n  H: 64\n"
         "inputs:\n  x: {dtype: bf16, shape: [B, H]}\n  pos: {dtype: int32, shape: [B], values: [0, 4]}\n"
         "outputs:\n  y: {dtype: fp32, shape: [B, H]}\nbody:\n  - vec_tile: [1, 64]\n" + body;
}

std::string ir(const std::string& yaml) {
  return std::regex_replace(ptoc::print_ir(ok(yaml)), std::regex(" +@[0-9]+:[0-9]+"), "");
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

const std::string kRow = "          - \"y[j:, :] = cast(x[j:j + 1, :], fp32)\"\n";

}  // namespace

TEST_CASE("an extent, arithmetic on it and a run-time value mix in one scalar binding", "[frontend][symbolic]") {
  // `bsz` is known when the bundle is built, `pos[b]` only at run time; `n` reads both.
  auto r = run(spec("  - \"bsz, h = x.shape\"\n  - loop: {var: b, count: 1}\n    body:\n"
                    "      - \"n = min(bsz - pos[b], 4)\"\n"
                    "      - loop: {var: j, count: n}\n        body:\n" + kRow));
  INFO(r.rendered);
  REQUIRE(r.prog);
  const ptoc::LoopNode* j = find_loop(r.prog->body, "j");
  REQUIRE(j);
  REQUIRE(j->loads.size() == 1);
  CHECK(j->loads[0].text == "pos[b]");
  CHECK(j->end.str().find("B - pos__") != std::string::npos);
}

TEST_CASE("a rebinding replaces a name's extent, constant or scalar binding", "[frontend][symbolic]") {
  // Regression: the extent alias of `n` (x.shape) used to win over its later rebinding to a run-time value,
  // and a constant over a later scalar binding.
  const std::string by_value = ir(spec("  - loop: {var: b, count: 1}\n    body:\n"
                                       "      - loop: {var: j, count: \"pos[b]\"}\n        body:\n" + kRow));
  CHECK(ir(spec("  - \"n = x.shape[0]\"\n  - loop: {var: b, count: 1}\n    body:\n      - \"n = pos[b]\"\n"
                "      - loop: {var: j, count: n}\n        body:\n" + kRow)) == by_value);
  CHECK(ir(spec("  - \"n = 4\"\n  - loop: {var: b, count: 1}\n    body:\n      - \"n = pos[b]\"\n"
                "      - loop: {var: j, count: n}\n        body:\n" + kRow)) == by_value);
  // And back: a constant after a scalar.
  const std::string by_const = ir(spec("  - loop: {var: b, count: 1}\n    body:\n"
                                       "      - loop: {var: j, count: 3}\n        body:\n" + kRow));
  CHECK(ir(spec("  - \"n = x.shape[0]\"\n  - \"n = 3\"\n  - loop: {var: b, count: 1}\n    body:\n"
                "      - loop: {var: j, count: n}\n        body:\n" + kRow)) == by_const);
  // A value may not take a scalar binding's name.
  expect_error(spec("  - \"n = x.shape[0]\"\n  - \"n = cast(x, fp32)\"\n"), "n = cast",
               "cannot bind value 'n': it names a run-time scalar");
}

TEST_CASE("x.shape is a list argument; x.shape[i] is a dim expression", "[frontend][symbolic]") {
  const std::string head = "  - loop: {var: b, count: B}\n    body:\n      - \"t = cast(x[b:b + 1, :], fp32)\"\n";
  const std::string tail = "      - \"y[b:, :] = t + u\"\n";
  CHECK(ir(spec(head + "      - \"u = full(t.shape, 1.0, fp32)\"\n" + tail)) ==
        ir(spec(head + "      - \"u = full([1, 64], 1.0, fp32)\"\n" + tail)));
  CHECK(ir(spec(head + "      - \"u = reshape(reshape(t, [t.shape[0], t.shape[1] // 2, 2]), t.shape)\"\n" + tail)) ==
        ir(spec(head + "      - \"u = reshape(reshape(t, [1, 32, 2]), [1, 64])\"\n" + tail)));
  // A dynamic extent inline: x.shape[0] is B.
  CHECK(ir(spec("  - loop: {var: b, count: \"x.shape[0]\"}\n    body: [\"y[b:, :] = cast(x[b:b + 1, 0:x.shape[-1]], fp32)\"]\n")) ==
        ir(spec("  - loop: {var: b, count: B}\n    body: [\"y[b:, :] = cast(x[b:b + 1, 0:64], fp32)\"]\n")));
  expect_error(spec(head + "      - \"u = full(w.shape, 1.0, fp32)\"\n" + tail), "w.shape",
               "'w' is not a tensor or a value: 'w.shape' reads one's extents");
  expect_error(spec(head + "      - \"u = reshape(t, [t.shape[2], 64])\"\n" + tail), "2], 64",
               "'t' has rank 2; index 2 is outside its shape");
  expect_error(spec(head + "      - \"u = reshape(t, [t.shape[b], 64])\"\n" + tail), "t.shape[b]",
               "index a tensor's shape with one integer");
  expect_error(spec("  - vec_tile: [1, \"x.shape[0]\"]\n"), "x.shape[0]", "is a dynamic extent (B); this must be static");
}

TEST_CASE("x.dtype is a dtype argument", "[frontend][symbolic]") {
  const std::string head = "  - loop: {var: b, count: B}\n    body:\n      - \"t = cast(x[b:b + 1, :], fp32)\"\n";
  CHECK(ir(spec(head + "      - \"y[b:, :] = cast(cast(t, x.dtype), t.dtype)\"\n")) ==
        ir(spec(head + "      - \"y[b:, :] = cast(cast(t, bf16), fp32)\"\n")));
  expect_error(spec(head + "      - \"y[b:, :] = cast(t, w.dtype)\"\n"), "w.dtype",
               "'w' is not a tensor or a value: 'w.dtype' reads one's dtype");
  // `dtype = x.dtype` binds a dtype argument by name (the compressor's `dtype = x.dtype`).
  CHECK(ir(spec("  - \"dtype = x.dtype\"\n" + head + "      - \"y[b:, :] = cast(cast(t, dtype), fp32)\"\n")) ==
        ir(spec("  # dtype = x.dtype\n" + head + "      - \"y[b:, :] = cast(cast(t, bf16), fp32)\"\n")));
  expect_error(spec("  - \"odt = x.dtype\"\n" + head + "      - \"y[b:, :] = t + odt\"\n"), "odt\"\n",
               "'odt' is a dtype, not a value", "cast(y, odt)");
  expect_error(spec("  - \"B = x.dtype\"\n"), "B = x", "cannot bind dtype 'B': it names a dim");
}

TEST_CASE("function and get_operation_options: what a spec is, and what no spec can read", "[frontend][symbolic]") {
  expect_error(spec("  - \"y[0:1, :] = function(x)\"\n"), "function(x)",
               "'function' is PyPTO's 'with pypto.function(name, *tensors):', a block, not a value",
               "'- function: main'");
  expect_error(spec("  - \"y[0:1, :] = get_operation_options()\"\n"), "get_operation_options()",
               "'get_operation_options' returns a Python dict of the options in force", "set_operation_options");
}
