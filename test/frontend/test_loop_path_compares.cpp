// Language leftovers of issue 13 (lang5): a comparison of a dynamic loop's variable with its first or
// last value (`j == 0`, `j == n - 1`, `j > 0`), in an `if` or a `cond`, lowers to the loop paths of
// is_loop_begin / is_loop_end (elaborate_loop_paths.cpp) and is decided there by the path's facts.
// Numbers: test/conformance/specs/lang5_*.yaml against NumPy.
#include "spec_helpers.h"

using fe_test::ok;
using fe_test::outline;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";

std::string accumulate_loop(const std::string& first_cond, const std::string& last_cond,
                            const std::string& first_key = "if", const std::string& last_key = "if") {
  return kTile +
         "  - loop: {var: j, count: \"ceil_div(B, 16)\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
         "    body:\n"
         "      - " + first_key + ": \"" + first_cond + "\"\n"
         "        then: [\"acc = x[0:16, :] * 1\"]\n"
         "        else: [\"acc = acc + x[j * 16:(j + 1) * 16, :]\"]\n"
         "      - " + last_key + ": \"" + last_cond + "\"\n"
         "        then: [\"acc = acc * 2\"]\n"
         "  - \"y[0:16, :] = acc\"\n";
}

}  // namespace

TEST_CASE("j == 0 and j == n - 1 give the paths of is_loop_begin and is_loop_end, no run-time branch",
          "[frontend][lang5]") {
  const std::string want = "R LJ(LJ_mid(R) LJ_first(R) LJ_last(R) LJ_only(R)) R";
  CHECK(outline(ok(spec(accumulate_loop("is_loop_begin(j)", "is_loop_end(j)"))).body) == want);
  // In an `if` (PyPTO's `if j == 0:`) and in a `cond`, in every spelling of the same comparison.
  CHECK(outline(ok(spec(accumulate_loop("j == 0", "j == ceil_div(B, 16) - 1"))).body) == want);
  CHECK(outline(ok(spec(accumulate_loop("0 == j", "j + 1 == ceil_div(B, 16)", "cond", "cond"))).body) == want);
  CHECK(outline(ok(spec(accumulate_loop("j < 1", "j >= ceil_div(B, 16) - 1", "cond", "if"))).body) == want);
  // Negated: `j != 0` / `j > 0` are the else branch of the first iteration.
  CHECK(outline(ok(spec(accumulate_loop("not j != 0", "not j < ceil_div(B, 16) - 1"))).body) == want);
}

TEST_CASE("only the first or only the last value: two paths", "[frontend][lang5]") {
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"n[0, 0]\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - cond: \"j == n[0, 0] - 1\"\n"
                   "        then: [\"acc = acc * 2\"]\n"
                   "        else: [\"acc = acc + 1\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // The loop bound is a run-time value; the comparison names the same value: LJ's last path.
  CHECK(outline(p.body) == "R LJ(LJ_rest(R) LJ_last(R)) R");
  auto q = ok(spec(kTile +
                   "  - loop: {var: j, range: [2, B], name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - cond: \"j > 2\"\n"
                   "        then: [\"acc = acc * 2\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  // The first path has nothing to do: acc is carried through unchanged.
  CHECK(outline(q.body) == "R LJ(LJ_rest(R) LJ_first()) R");
}

TEST_CASE("comparisons with other values stay run-time branches; gears decide `j == last` per path",
          "[frontend][lang5]") {
  // j == 3 is neither the first nor the last value: a run-time branch, no paths.
  auto p = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(B, 16)\", name: LJ, carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - cond: \"j == 3\"\n"
                   "        then: [\"acc = acc * 2\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"));
  CHECK(outline(p.body) == "R LJ(IF_L17_then(R)) R");
  // With gears [2, 1]: `j == last` is an instance that starts at the last iteration, which a gear-2
  // instance never does (it runs while two are left): gear 2 drops the branch with no paths, gear 1's
  // last path keeps its body. A range with step 2 may not reach B - 2: a run-time branch.
  auto g = ok(spec(kTile +
                   "  - loop: {var: j, count: \"ceil_div(B, 16)\", name: LJ, unroll: [2], factor: k,\n"
                   "           carry: {acc: \"full([16, 64], 0, fp32)\"}}\n"
                   "    body:\n"
                   "      - \"acc = acc + 1\"\n"
                   "      - if: \"j == ceil_div(B, 16) - 1\"\n"
                   "        then: [\"acc = acc * 3\"]\n"
                   "  - \"y[0:16, :] = acc\"\n"
                   "  - loop: {var: i, range: [0, B, 2], name: LI}\n"
                   "    body:\n"
                   "      - cond: \"i == B - 2\"\n"
                   "        then: [\"y[i:i + 1, :] = x[i:i + 1, :] * 2\"]\n"));
  CHECK(outline(g.body) == "R LJ(R|LJ_k1_rest(R) LJ_k1_last(R)) R LI(IF_L24_then(R))");
  auto muls = [&](const ptoc::LoopNode& n) {
    int m = 0;
    for (int op : g.roots[size_t(n.root)].ops) m += g.ops[size_t(op)].kind == ptoc::OpKind::Mul;
    return m;
  };
  REQUIRE(g.body.size() >= 2);
  const ptoc::LoopNode& lj = g.body[1];
  REQUIRE(lj.gears.size() == 2);
  CHECK(muls(lj.gears[0].body[0]) == 0);                      // gear 2: no `* 3`
  CHECK(muls(lj.gears[1].body[0].gears[0].body[0]) == 0);     // gear 1, rest
  CHECK(muls(lj.gears[1].body[1].gears[0].body[0]) == 1);     // gear 1, last
}

TEST_CASE("an `if` on a dynamic loop variable that is not its first or last value is still refused",
          "[frontend][lang5]") {
  fe_test::expect_error(spec(kTile +
                             "  - loop: {var: j, count: \"ceil_div(B, 16)\", name: LJ}\n"
                             "    body:\n"
                             "      - if: \"j == 2\"\n"
                             "        then: [\"y[0:16, :] = x[0:16, :] * 2\"]\n"),
                        "j == 2", "'j' is a dynamic loop variable; this must be static",
                        "an if condition may only use static dims");
}

TEST_CASE("split_k takes a constant's name: PyPTO's enable_split_k per gear", "[frontend][lang5]") {
  const std::string mm = "  - \"y[0:16, 0:32] = cast(matmul(h[0:16, :], w), fp32)\"\n";
  auto split_of = [](const ptoc::Program& p) {
    std::vector<bool> v;
    for (const auto& op : p.ops)
      if (op.kind == ptoc::OpKind::Matmul && op.cube_tile) v.push_back(op.cube_tile->split_k);
    return v;
  };
  auto on = ok(spec(kTile + "  - \"sk = True\"\n  - {cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: sk}}\n" + mm));
  CHECK(split_of(on) == std::vector<bool>{true});
  auto off = ok(spec(kTile + "  - \"sk = 1 - 1\"\n  - {cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: sk}}\n" + mm));
  CHECK(split_of(off) == std::vector<bool>{false});
  fe_test::expect_error(spec(kTile + "  - {cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: nope}}\n" + mm),
                        "nope}", "cube_tile split_k 'nope' is not a constant bound before this statement",
                        "enable_split_k = True");
  fe_test::expect_error(spec(kTile + "  - \"sk = 2\"\n  - {cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: sk}}\n" + mm),
                        "sk}", "cube_tile split_k 'sk' is 2; it must be true or false");
  fe_test::expect_error(spec(kTile + "  - {cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: [1]}}\n" + mm),
                        "[1]}", "cube_tile split_k must be true, false or a constant's name, got a list");
}

TEST_CASE("one_hot takes an int64 input (PyPTO's DT_INT64), cast to int32 saturating", "[frontend][lang5]") {
  auto p = ok(spec("  - {vec_tile: [8]}\n  - \"c[:] = cast(n[0, 0:8], int64)\"\n  - {vec_tile: [8, 16]}\n  - \"o[:, :] = one_hot(c, 16)\"\n  - \"y[0:8, 0:16] = cast(o, fp32)\"\n",
                   "  o: {dtype: int32, shape: [8, 16]}\ntensors:\n  c: {dtype: int64, shape: [8]}\n"));
  // The saturating cast clips to int32 before the cast: no element past int32 wraps into 0..15.
  bool clipped = false;
  for (const auto& op : p.ops)
    clipped |= op.kind == ptoc::OpKind::Maximum || op.kind == ptoc::OpKind::Minimum;
  CHECK(clipped);
}

TEST_CASE("constant lists nest one level: a row is a list, tiles[i][j] an integer", "[frontend][lang5]") {
  auto p = ok(spec("  - \"tiles = [[16, 64], [8, 32]]\"\n"
                   "  - \"row = tiles[-1]\"\n"
                   "  - {vec_tile: row}\n"
                   "  - \"y[0:16, :] = x[0:16, :] * tiles[0][1]\"\n"));
  bool found = false;
  for (const auto& op : p.ops)
    if (op.kind == ptoc::OpKind::Mul) {
      found = true;
      REQUIRE(op.vec_tile);
      CHECK(op.vec_tile->shape == std::vector<int64_t>{8, 32});
    }
  CHECK(found);
  fe_test::expect_error(spec("  - \"tiles = [[16, 64], [8, 32]]\"\n  - {vec_tile: [16, 64]}\n"
                             "  - \"y[0:16, :] = x[0:16, :] * tiles[1]\"\n"),
                        "tiles[1]\"", "'tiles[1]' is a row of the nested constant list 'tiles'; an integer is one of its entries",
                        "write tiles[1][0]");
  fe_test::expect_error(spec("  - \"tiles = [[16, 64], 8]\"\n  - {vec_tile: [16, 64]}\n  - \"y[0:16, :] = x[0:16, :]\"\n"),
                        "8]\"", "the entry '8' of the nested constant list 'tiles' is not a list of integers");
  fe_test::expect_error(spec("  - \"tiles = [[16, [64]], [8, 32]]\"\n  - {vec_tile: [16, 64]}\n  - \"y[0:16, :] = x[0:16, :]\"\n"),
                        "[64]]", "the entry '[64]' of the constant list 'tiles' is not an integer constant",
                        "constant lists nest one level");
  fe_test::expect_error(spec("  - \"tiles = [[16, 64], [8, 32]]\"\n  - {vec_tile: [16, 64]}\n"
                             "  - \"y[0:16, :] = x[0:16, :] * tiles[2][0]\"\n"),
                        "2][0]", "index 2 is out of range for the constant list 'tiles' of 2 entries");
}
