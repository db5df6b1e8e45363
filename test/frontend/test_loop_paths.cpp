// Loop paths (compiler/frontend/elaborate_loop_paths.cpp): a dynamic loop whose body branches on
// is_loop_begin / is_loop_end of its own variable is elaborated once per path, each copy the body
// of a 0/1-trip loop over the path's condition, with the condition decided so every such `if`
// is spliced: the middle instances run the root functions of a body without the branch.
// Numbers: test/conformance/specs/ctrl4_path_*.yaml against NumPy.
#include "spec_helpers.h"

#include "runtime/core/resource_limits.h"

using fe_test::ok;
using fe_test::outline;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";

const ptoc::LoopNode* find_loop(const std::vector<ptoc::LoopNode>& nodes, const std::string& name) {
  for (const auto& n : nodes) {
    if (n.kind != ptoc::LoopNode::Kind::Loop) continue;
    if (n.name == name) return &n;
    for (const auto& g : n.gears)
      if (auto* f = find_loop(g.body, name)) return f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("is_loop_end of the loop's own variable splits its body into a rest path and a last path",
          "[frontend][loop_paths]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(n[0, 0], 16)\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - \"v = view(x, [16, 64], [j * 16, 0], valid=[min(16, n[0, 0] - j * 16), 64])\"\n"
                   "      - if: \"is_loop_end(j)\"\n"
                   "        then: [\"v = fillpad(v)\", \"acc = acc + v\"]\n"
                   "        else: [\"acc = acc + v * 2\"]\n"
                   "      - \"acc = acc * 0.5\"\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // One root per path: the branch, the code before it and after it are one root function.
  CHECK(outline(p.body) == "R LJ(LJ_rest(R) LJ_last(R)) R");
  const auto* rest = find_loop(p.body, "LJ_rest");
  const auto* last = find_loop(p.body, "LJ_last");
  REQUIRE(rest);
  REQUIRE(last);
  CHECK(rest->end.str() == "min(max(ceil_div(n__0, 16) - j - 1, 0), 1)");
  CHECK(last->end.str() == "1 - min(max(ceil_div(n__0, 16) - j - 1, 0), 1)");
  // Only the last path pads: fillpad (a where past the valid rows) is in it alone.
  auto has = [&](const ptoc::LoopNode* l, ptoc::OpKind k) {
    const int root = l->gears[0].body[0].root;
    for (int op : p.roots[size_t(root)].ops)
      if (p.ops[size_t(op)].kind == k) return true;
    return false;
  };
  CHECK(has(last, ptoc::OpKind::Where));
  CHECK_FALSE(has(rest, ptoc::OpKind::Where));
}

TEST_CASE("is_loop_begin and is_loop_end together give four paths; other conditions stay run-time branches",
          "[frontend][loop_paths]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(B, 16)\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - if: \"is_loop_begin(j)\"\n"
                   "        then: [\"acc = x[0:16, :] * 1\"]\n"
                   "        else: [\"acc = acc + x[j * 16:(j + 1) * 16, :]\"]\n"
                   "      - cond: \"n[0, 1] > 3 and not is_loop_end(j)\"\n"
                   "        then: [\"acc = acc * 2\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // The cond reads a run-time value: a run-time branch inside the paths where it does not fold
  // (in the last and only paths `not is_loop_end(j)` is false and it is dropped).
  CHECK(outline(p.body) ==
        "R LJ(LJ_mid(R IF_L20_then(R)) LJ_first(R IF_L20_then_2(R)) LJ_last(R) LJ_only(R)) R");
}

TEST_CASE("each unroll gear has its own paths; a loop without such a branch has none", "[frontend][loop_paths]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(B, 16)\", name: LJ, unroll: [2], factor: k,\n"
                   "           carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - loop: {var: t, count: k, kind: static, carry: {acc: acc}}\n"
                   "        body:\n"
                   "          - if: \"is_loop_end(j) and t == k - 1\"\n"
                   "            then: [\"acc = acc * 3\"]\n"
                   "            else: [\"acc = acc + 1\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"
                   "  - loop: {var: i, count: B, name: LI}\n"
                   "    body: [\"y[i:i + 1, :] = x[i:i + 1, :] * 2\"]\n"));
  CHECK(outline(p.body) == "R LJ(LJ_k2_rest(R) LJ_k2_last(R)|LJ_k1_rest(R) LJ_k1_last(R)) R LI(R)");
  // The gear-2 instance covers the last iteration when j + 2 reaches the end.
  const auto* last2 = find_loop(p.body, "LJ_k2_last");
  REQUIRE(last2);
  CHECK(last2->end.str() == "1 - min(max(ceil_div(B, 16) - j - 2, 0), 1)");
}

TEST_CASE("nested loops: the outer loop splits on its own end used inside the inner loop", "[frontend][loop_paths]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: i, count: \"n[0, 0]\", name: LI, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - loop: {var: j, count: \"1 + i % 3\", name: LJ, carry: {acc: acc}}\n"
                   "        body:\n"
                   "          - \"acc = acc + x[0:16, :]\"\n"
                   "          - if: \"is_loop_end(i)\"\n"
                   "            then: [\"acc = acc * 2\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // LJ does not branch on its own variable: no paths of its own, one copy in each of LI's paths (the
  // roots around it start and end its carried value).
  CHECK(outline(p.body) == "R LI(LI_rest(R LJ(R) R) LI_last(R LJ_2(R) R)) R");
}

TEST_CASE("a path may rebind a name with another shape: each path is elaborated alone", "[frontend][loop_paths]") {
  // As PyPTO traces one function per path; a run-time branch (cond) refuses it (test_runtime_trip_loops.cpp).
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(n[0, 0], 16)\", name: LJ}\n"
                   "    body:\n"
                   "      - \"v = x[0:16, :] * 2\"\n"
                   "      - if: \"is_loop_end(j)\"\n"
                   "        then: [\"v = sum(v, 0, keepdim=true)\", \"y[0:1, :] = v\"]\n"
                   "        else: [\"y[0:16, :] = v\"]\n"));
  CHECK(outline(p.body) == "LJ(LJ_rest(R) LJ_last(R))");
}

TEST_CASE("paths of nested loops multiply and count against the static_iterations limit", "[frontend][loop_paths]") {
  // Four paths in each of four nested loops: 4 + 16 + 64 + 256 bodies; depth first, loop c's paths pass 50.
  std::string body = kTile;
  std::string ind = "  ";
  for (const char* v : {"a", "b", "c", "d"}) {
    body += ind + "- loop: {var: " + v + ", count: \"n[0, 0]\"}\n" + ind + "  body:\n";
    ind += "    ";
  }
  for (const char* v : {"a", "b", "c", "d"})
    body += ind + "- if: \"is_loop_begin(" + v + ") or is_loop_end(" + v + ")\"\n" + ind +
            "  then: [\"y[0:16, :] = x[0:16, :] * 2\"]\n";
  ptoc::limits::reset();
  REQUIRE(ptoc::limits::set("static_iterations=50").empty());
  fe_test::expect_error(spec(body), "loop: {var: c",
                        "the body of loop 'c' is elaborated once per path of its is_loop_begin / is_loop_end (4 "
                        "paths), more than 50 loop bodies in all",
                        "--limit static_iterations=");
  ptoc::limits::reset();
  // Roots only in the 256 innermost bodies, less the one where no condition holds (it writes nothing).
  CHECK(ok(spec(body)).roots.size() == 256 - 1);
}

TEST_CASE("a path decides min / max by what it knows of the loop variable", "[frontend][loop_paths]") {
  // PyPTO's actual_l = min(L, s - s_idx): L on every instance but the last (no valid=[L, ...] needed).
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, range: [0, \"n[0, 0]\", 16], name: LJ, unroll: [2], factor: k,\n"
                   "           carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - loop: {var: t, count: k, kind: static, carry: {acc: acc}}\n"
                   "        body:\n"
                   "          - \"v = view(x, [16, 64], [j + t * 16, 0], valid=[min(16, n[0, 0] - j - t * 16), 64])\"\n"
                   "          - if: \"is_loop_end(j) and t == k - 1\"\n"
                   "            then: [\"acc = acc + fillpad(v)\"]\n"
                   "            else: [\"acc = acc + v\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // The valid rows of each copy's view, per path root.
  auto view_rows = [&](const std::string& loop) {
    std::vector<std::string> v;
    const auto* l = find_loop(p.body, loop);
    REQUIRE(l);
    for (int id : p.roots[size_t(l->gears[0].body[0].root)].ops) {
      const ptoc::Op& op = p.ops[size_t(id)];
      if (op.kind != ptoc::OpKind::View) continue;
      const ptoc::Op& src = p.ops[size_t(p.values[size_t(op.inputs[0])].def_op)];
      if (src.kind == ptoc::OpKind::TensorRef && src.tensor == 0)  // a view of x
        v.push_back(p.values[size_t(op.output)].valid[0].str());
    }
    return v;
  };
  // Gear 2, not the last instance: both chunks whole. The last gear-2 instance: its first chunk is whole
  // (a gear-2 instance runs while two chunks are left), its second may be partial.
  CHECK(view_rows("LJ_k2_rest") == std::vector<std::string>{"16", "16"});
  const auto last2 = view_rows("LJ_k2_last");
  REQUIRE(last2.size() == 2);
  CHECK(last2[0] == "16");
  CHECK(last2[1] != "16");
  CHECK(view_rows("LJ_k1_rest") == std::vector<std::string>{"16"});
  CHECK(view_rows("LJ_k1_last") != std::vector<std::string>{"16"});
}
