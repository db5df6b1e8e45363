// PyPTO's configuration calls as statement strings (compiler/frontend/elaborate_config_calls.cpp, issue 13):
// each spec written with set_vec_tile_shapes / set_cube_tile_shapes / set_pass_options / set_codegen_options /
// set_debug_options must give the IR (print_ir, what `ptoc X --emit ir` prints) of the same spec written with
// the mapping statements and `options:`; and the located errors of each call.
#include <regex>
#include <string>
#include <tuple>

#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;

namespace {

// A gear loop over T; `pre` goes before the loop (top-level statements), `body` is the loop body.
std::string spec(const std::string& pre, const std::string& body, const std::string& top = {},
                 const std::string& header = "unroll: [8, 2], factor: k") {
  return "ptoc: 1\nname: t\ndims:\n  T: dynamic\n  H: 64\n"
         "inputs:\n  x: {dtype: fp32, shape: [T, H]}\n  a: {dtype: fp16, shape: [T, H]}\n"
         "  w: {dtype: fp16, shape: [H, 32]}\n" +
         std::string("outputs:\n") + (body.find("matmul") != std::string::npos ? "  z: {dtype: fp32, shape: [T, 32]}\n"
                                                                     : "  y: {dtype: fp32, shape: [T, H]}\n") +
         top + "body:\n" + pre + "  - loop: {var: i, count: T, " + header + "}\n    body:\n" + body;
}

std::string ir(const std::string& yaml) { return ptoc::print_ir(ok(yaml)); }
// The IR without source positions (for specs whose lines differ: an options: block against a call).
std::string ir_nopos(const std::string& yaml) {
  static const std::regex at(R"(  @[0-9]+:[0-9]+)");
  return std::regex_replace(ir(yaml), at, "");
}

const std::string kVec = "      - \"y[i:, :] = exp(x[i:i + k, :])\"\n";
const std::string kMm = "      - \"z[i:, :] = matmul(a[i:i + k, :], w)\"\n";

}  // namespace

TEST_CASE("set_vec_tile_shapes is vec_tile: integers, dim expressions, constants, x.shape, *list",
          "[frontend][cfgcalls]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"      - vec_tile: [4, 64]\n", "      - \"set_vec_tile_shapes(4, 64)\"\n"},
      {"      - vec_tile: [4, 64]\n", "      - \"pypto.set_vec_tile_shapes(4, 64)\"\n"},
      {"      - vec_tile: [k, H]\n", "      - \"set_vec_tile_shapes(k, H)\"\n"},
      {"      - vec_tile: [\"min(k, 4)\", \"H // 2\"]\n", "      - \"pypto.set_vec_tile_shapes(min(k, 4), H // 2)\"\n"},
      {"      - vec_tile: [\"t_tile\", \"x.shape[1]\"]\n", "      - \"set_vec_tile_shapes(t_tile, x.shape[1])\"\n"},
      {"      - vec_tile: tiles\n", "      - \"pypto.set_vec_tile_shapes(*tiles)\"\n"},
      {"      - vec_tile: [\"tiles[0] * 2\", \"tiles[1]\"]\n", "      - \"set_vec_tile_shapes(tiles[0] * 2, tiles[1])\"\n"},
  };
  for (const auto& [mapping, call] : pairs) {
    INFO(call);
    const std::string pre = "  - \"tiles = [2, 32]\"\n";
    const std::string head = "      - \"t_tile = k\"\n";
    CHECK(ir(spec(pre, head + mapping + kVec)) == ir(spec(pre, head + call + kVec)));
  }
}

TEST_CASE("set_vec_tile_shapes holds until the next one and ends with its loop body, as vec_tile does",
          "[frontend][cfgcalls]") {
  auto body = [](const std::string& t1, const std::string& t2) {
    return t1 + kVec + "      - if: \"k == 8\"\n        then: [" + t2 + "]\n" + kVec;
  };
  std::string a = spec("  - vec_tile: [1, 64]\n", body("      - vec_tile: [4, 64]\n", "{vec_tile: [8, 64]}")) +
                  "  - \"y[0:1, :] = exp(x[0:1, :])\"\n";
  std::string b = spec("  - \"set_vec_tile_shapes(1, 64)\"\n",
                       body("      - \"set_vec_tile_shapes(4, 64)\"\n", "\"pypto.set_vec_tile_shapes(8, 64)\"")) +
                  "  - \"y[0:1, :] = exp(x[0:1, :])\"\n";
  CHECK(ir_nopos(a) == ir_nopos(b));
}

TEST_CASE("set_cube_tile_shapes is cube_tile: positional, keywords, expressions, enable_split_k",
          "[frontend][cfgcalls]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"      - cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32]}\n",
       "      - \"set_cube_tile_shapes([16, 16], [64, 64], [32, 32])\"\n"},
      {"      - cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: true}\n",
       "      - \"pypto.set_cube_tile_shapes([16, 16], [64, 64], [32, 32], True)\"\n"},
      {"      - cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: false}\n",
       "      - \"set_cube_tile_shapes(n=[32, 32], m=[16, 16], k=[64, 64], enable_split_k=False)\"\n"},
      {"      - cube_tile: {m: [k, k], k: [32, 64, 32], n: [32, 32]}\n",
       "      - \"set_cube_tile_shapes([k, k], [32, 64, 32], [32, 32])\"\n"},
      {"      - cube_tile: {m: [\"min(k, 16)\", 16], k: [\"H // 2\", H], n: [32, 32], split_k: sk}\n",
       "      - \"pypto.set_cube_tile_shapes([min(k, 16), 16], [H // 2, H], [32, 32], enable_split_k=sk)\"\n"},
      {"      - cube_tile: {m: [4, 4], k: [64, 64], n: [32, 32]}\n",  // per-token m pads to 16, as written so
       "      - \"set_cube_tile_shapes([4, 4], [64, 64], [32, 32])\"\n"},
  };
  for (const auto& [mapping, call] : pairs) {
    INFO(call);
    const std::string head = "      - if: \"k > 2\"\n        then: [\"sk = True\"]\n        else: [\"sk = False\"]\n";
    CHECK(ir(spec("", head + mapping + kMm)) == ir(spec("", head + call + kMm)));
  }
}

TEST_CASE("set_pass_options(sg_set_scope=...) is a scope statement", "[frontend][cfgcalls]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"      - scope: 1\n", "      - \"pypto.set_pass_options(sg_set_scope=1)\"\n"},
      {"      - scope: {id: 2, parallel_merge: true, cross_scope_merge: false}\n",
       "      - \"set_pass_options(sg_set_scope=(2, True, False))\"\n"},
      {"      - scope: {id: 3, parallel_merge: false, cross_scope_merge: true}\n",
       "      - \"set_pass_options(sg_set_scope=(3, False, True))\"\n"},
  };
  for (const auto& [mapping, call] : pairs) {
    INFO(call);
    const std::string t = "      - vec_tile: [4, 64]\n";
    const std::string end = "      - scope: -1\n";
    const std::string end_call = "      - \"set_pass_options(sg_set_scope=-1)\"\n";
    CHECK(ir(spec("", t + mapping + kVec + end + kVec)) == ir(spec("", t + call + kVec + end_call + kVec)));
  }
}

TEST_CASE("set_pass_options / set_codegen_options / set_debug_options at the top of the body are options:",
          "[frontend][cfgcalls]") {
  const std::string body = "      - vec_tile: [4, 64]\n" + kVec;
  const std::string opts =
      "options:\n  pass:\n    vec_nbuffer_setting: {DEFAULT: 2, V1: 1}\n"
      "    cube_l1_reuse_setting: {-1: 4, func8_0: [1, left]}\n    cube_nbuffer_setting: {0: 4}\n"
      "  codegen: {enable_pmu_trace: true}\n  debug: {runtime_debug_mode: 1}\n";
  const std::string calls =
      "  - 'pypto.set_pass_options(vec_nbuffer_setting={\"DEFAULT\": 2, \"V1\": 1}, "
      "cube_l1_reuse_setting={-1: 4, \"func8_0\": (1, \"left\")})'\n"
      "  - \"set_pass_options(cube_nbuffer_setting={0: 4})\"\n"
      "  - \"pypto.set_codegen_options(enable_pmu_trace=True)\"\n"
      "  - \"set_debug_options(runtime_debug_mode=1)\"\n";
  CHECK(ir_nopos(spec("", body, opts)) == ir_nopos(spec(calls, body)));
  // a call after options: replaces that knob, as PyPTO's call in the function replaces the jit's
  CHECK(ir_nopos(spec("", body, "options:\n  debug: {runtime_debug_mode: 1}\n")) ==
        ir_nopos(spec("  - \"set_debug_options(runtime_debug_mode=1)\"\n", body,
                      "options:\n  debug: {runtime_debug_mode: 3}\n")));
  // under an `if` on a constant (PyPTO's `if d == 512:`): applied when the branch is the one taken
  const std::string pre = "  - \"d = x.shape[-1]\"\n  - if: \"d == 64\"\n    then: [\"set_debug_options(runtime_debug_mode=1)\"]\n"
                          "    else: ['set_pass_options(vec_nbuffer_setting={\"DEFAULT\": 4})']\n";
  CHECK(ir_nopos(spec(pre, body)) ==
        ir_nopos(spec("  - \"d = x.shape[-1]\"\n", body, "options:\n  debug: {runtime_debug_mode: 1}\n")));
  const std::string pre2 = "  - \"d = x.shape[-1]\"\n  - if: \"d == 512\"\n    then: [\"set_debug_options(runtime_debug_mode=1)\"]\n"
                           "    else: ['set_pass_options(vec_nbuffer_setting={\"DEFAULT\": 4})']\n";
  CHECK(ir_nopos(spec(pre2, body)) ==
        ir_nopos(spec("  - \"d = x.shape[-1]\"\n", body, "options:\n  pass: {vec_nbuffer_setting: {DEFAULT: 4}}\n")));
  // --set still wins over a call the elaboration applied
  {
    ptoc::FrontendOptions o;
    o.sets = {"debug.runtime_debug_mode=3"};
    CHECK(ok(spec(pre, body), o).options.runtime_debug_mode == 3);
  }
  // the knob table's checks apply under the `if` too, at the value
  expect_error(spec("  - if: \"H == 64\"\n    then: [\"set_debug_options(runtime_debug_mode=9)\"]\n", body), "9)",
               "debug.runtime_debug_mode: 9 is out of range");
  // a hostile value nested past any knob's shape is refused at the bracket past the bound, before yaml-cpp
  // reads it (which said only "bad file" from a few hundred levels on)
  const std::string deep = "  - \"set_pass_options(vec_nbuffer_setting=" + std::string(900, '[') + std::string(900, ']') + ")\"\n";
  expect_error(spec(deep, body), "vec_nbuffer_setting=" + std::string(16, '[') + "@[",
               "set_pass_options's vec_nbuffer_setting: the value nests more than 16 levels deep");
}

TEST_CASE("set_vec_tile_shapes errors: arity, keywords, lists, non-constants, at the argument",
          "[frontend][cfgcalls]") {
  expect_error(spec("", "      - \"set_vec_tile_shapes(1, 2, 3, 4, 5)\"\n" + kVec), "5)",
               "set_vec_tile_shapes takes 1 to 4 tile entries, got 5");
  expect_error(spec("", "      - \"set_vec_tile_shapes()\"\n" + kVec), "()",
               "set_vec_tile_shapes takes 1 to 4 tile entries, got 0");
  expect_error(spec("", "      - \"set_vec_tile_shapes(4, shape=64)\"\n" + kVec), "shape=",
               "set_vec_tile_shapes has no keyword 'shape'", "positional");
  expect_error(spec("", "      - \"set_vec_tile_shapes([4, 64])\"\n" + kVec), "[4, 64]",
               "set_vec_tile_shapes takes the entries themselves, not a list", "set_vec_tile_shapes(*[4, 64])");
  expect_error(spec("", "      - \"set_vec_tile_shapes(4, 0)\"\n" + kVec), "0)\"",
               "vec_tile entries must be positive integers, got 0");
  expect_error(spec("", "      - \"pypto.set_vec_tile_shapes(T, 64)\"\n" + kVec), "T, 64",
               "'T' is a dynamic dim; a vec_tile entry must be a compile-time constant");
  expect_error(spec("", "      - \"set_vec_tile_shapes(*nope)\"\n" + kVec), "nope", "nope");
  expect_error(spec("", "      - \"set_vec_tile_shapes(4, 64) + 1\"\n" + kVec), "+ 1",
               "unexpected text after the call to set_vec_tile_shapes");
}

TEST_CASE("set_cube_tile_shapes errors: keywords, arity, axis forms, split_k", "[frontend][cfgcalls]") {
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64], [32, 32], enable_multi_data_load=True)\"\n" + kMm),
               "enable_multi_data_load", "'enable_multi_data_load' has no counterpart in ptoc", "remove it");
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64], [32, 32], enable_splitk=True)\"\n" + kMm),
               "enable_splitk", "set_cube_tile_shapes has no keyword 'enable_splitk'", "enable_split_k");
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64])\"\n" + kMm), ")\"\n      - \"z",
               "set_cube_tile_shapes needs 'n'");
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64], [32, 32], False, 1)\"\n" + kMm), "1)",
               "set_cube_tile_shapes takes 4 arguments");
  expect_error(spec("  - \"c1 = [[16, 16], [64, 64], [32, 32]]\"\n",
                    "      - \"set_cube_tile_shapes(c1[0], [64, 64], [32, 32])\"\n" + kMm),
               "c1[0],", "set_cube_tile_shapes's m must be a list [L0, L1]", "[c1[0][0], c1[0][1]]");
  expect_error(spec("", "      - \"set_cube_tile_shapes([24, 48], [64, 64], [32, 32])\"\n" + kMm), "[24, 48]",
               "the L0 tile 24 must be a multiple of 16", "use 16 or 32");
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64, 64, 64], [32, 32])\"\n" + kMm),
               "[64, 64, 64, 64]", "set_cube_tile_shapes's k must be [L0, L1] or [L0, L1_A, L1_B]");
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64], [32, 32], enable_split_k=1 > 0)\"\n" + kMm),
               "1 > 0", "enable_split_k must be True, False or a constant's name");
  expect_error(spec("", "      - \"set_cube_tile_shapes([16, 16], [64, 64], [32, 32], enable_split_k=nope)\"\n" + kMm),
               "nope", "cube_tile split_k 'nope' is not a constant bound before this statement");
}

TEST_CASE("set_cube_tile_shapes axes named as constant lists are the lists", "[frontend][cfgcalls][cubelists]") {
  // PyPTO's ports bind the tiles first (`m_tile = [16, 16]`) and pass the names; each name reads the list its
  // constant holds when the statement is elaborated, so both spellings give one program.
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"  - \"m_tile = [16, 16]\"\n  - \"k_tile = [64, 64]\"\n  - \"n_tile = [32, 32]\"\n",
       "      - cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32]}\n",
       "      - \"pypto.set_cube_tile_shapes(m_tile, k_tile, n_tile)\"\n"},
      {"  - \"kk = [32, 64, 32]\"\n",  // k's [L0, L1_A, L1_B]; keywords and enable_split_k as before
       "      - cube_tile: {m: [16, 16], k: [32, 64, 32], n: [32, 32], split_k: true}\n",
       "      - \"set_cube_tile_shapes(n=[32, 32], k=kk, m=[16, 16], enable_split_k=True)\"\n"},
      {"  - \"m_tile = [4, 4]\"\n",  // per-token m pads to one fractal, as a written [4, 4] does
       "      - cube_tile: {m: [4, 4], k: [64, 64], n: [32, 32]}\n",
       "      - \"set_cube_tile_shapes(m_tile, [64, 64], [32, 32])\"\n"},
      {"  - \"n_tile = [32, 32]\"\n",  // next to entries that are dim expressions of the gear
       "      - cube_tile: {m: [\"min(k, 16)\", 16], k: [\"H // 2\", H], n: [32, 32]}\n",
       "      - \"set_cube_tile_shapes([min(k, 16), 16], [H // 2, H], n_tile)\"\n"},
  };
  for (const auto& [pre, mapping, call] : cases) {
    INFO(call);
    CHECK(ir_nopos(spec(pre, mapping + kMm)) == ir_nopos(spec(pre, call + kMm)));
  }
  // A list bound per gear in the body (PyPTO's `if unroll == 8: m_tile = [...]`) is read per gear.
  const std::string per_gear = "      - if: \"k == 8\"\n        then: [\"m_tile = [32, 32]\"]\n"
                               "        else: [\"m_tile = [16, 16]\"]\n";
  const std::string mapped = "      - if: \"k == 8\"\n        then: [{cube_tile: {m: [32, 32], k: [64, 64], n: [32, 32]}}]\n"
                             "        else: [{cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32]}}]\n";
  CHECK(ir_nopos(spec("", per_gear + "      - \"set_cube_tile_shapes(m_tile, [64, 64], [32, 32])\"\n" + kMm)) ==
        ir_nopos(spec("", mapped + kMm)));
}

TEST_CASE("set_cube_tile_shapes errors: a named axis that is not a list of the axis's length",
          "[frontend][cfgcalls][cubelists]") {
  auto call = [](const std::string& args) { return "      - \"set_cube_tile_shapes(" + args + ")\"\n" + kMm; };
  expect_error(spec("", call("nope, [64, 64], [32, 32]")), "nope,",
               "set_cube_tile_shapes's m: 'nope' is not a constant list bound before this statement",
               "bind it first (\"nope = [128, 128]\")");
  expect_error(spec("  - \"m_tile = 16\"\n", call("m_tile, [64, 64], [32, 32]")), "m_tile, [",
               "set_cube_tile_shapes's m: 'm_tile' is a constant number, not a list");
  expect_error(spec("  - \"m_tile = [16, 16, 16]\"\n", call("m_tile, [64, 64], [32, 32]")), "m_tile, [",
               "set_cube_tile_shapes's m: the constant list 'm_tile' has 3 entries; m must be [L0, L1]");
  expect_error(spec("  - \"k_tile = [64]\"\n", call("[16, 16], k_tile, [32, 32]")), "k_tile, [",
               "set_cube_tile_shapes's k: the constant list 'k_tile' has 1 entry; k must be [L0, L1] or [L0, L1_A, L1_B]");
  expect_error(spec("  - \"n_tile = [32, 0]\"\n", call("[16, 16], [64, 64], n_tile")), "n_tile)",
               "set_cube_tile_shapes's n: the constant list 'n_tile' holds 0; cube_tile entries must be positive integers");
  // The rules of a written list hold for the list a name holds, reported at the name.
  expect_error(spec("  - \"m_tile = [24, 48]\"\n", call("m_tile, [64, 64], [32, 32]")), "m_tile, [",
               "the L0 tile 24 must be a multiple of 16", "use 16 or 32");
}

TEST_CASE("set_pass_options errors: unknown and PyPTO-only keywords, values, placement", "[frontend][cfgcalls]") {
  const std::string body = "      - vec_tile: [4, 64]\n" + kVec;
  expect_error(spec("  - \"set_pass_options(vec_nbufer_setting={0: 2})\"\n", body), "vec_nbufer_setting",
               "set_pass_options has no keyword 'vec_nbufer_setting'", "vec_nbuffer_setting");
  expect_error(spec("  - \"set_pass_options(auto_mix_partition=1)\"\n", body), "auto_mix_partition",
               "'auto_mix_partition' is a PyPTO pass option that ptoc has no knob for", "remove it");
  expect_error(spec("  - \"set_pass_options({0: 2})\"\n", body), "{0: 2}",
               "set_pass_options takes keyword arguments only");
  expect_error(spec("  - \"set_pass_options(vec_nbuffer_setting=configs.vec_nbuffer_setting)\"\n", body),
               "configs.", "set_pass_options's vec_nbuffer_setting must be a literal here");
  // the knob table's own messages, at the offending part of the value
  expect_error(spec("  - \"set_debug_options(runtime_debug_mode=7)\"\n", body), "7)",
               "debug.runtime_debug_mode: 7 is out of range");
  expect_error(spec("  - \"set_pass_options(vec_nbuffer_setting={0: 2000})\"\n", body), "2000",
               "pass.vec_nbuffer_setting.0: 2000 is out of range");
  expect_error(spec("  - 'set_pass_options(cube_nbuffer_setting={\"DEFAULT\": 2, \"\": 1})'\n", body),
               "\"\": 1", "pass.cube_nbuffer_setting: keys are an integer, DEFAULT");
  expect_error(spec("  - 'set_pass_options(vec_nbuffer_setting={0: (1, \"left\")})'\n", body), "(1, \"left\")",
               "pass.vec_nbuffer_setting: expected a count", "only cube_l1_reuse_setting takes [count, side]");
  // in a loop body, or after a loop: ptoc's knobs hold for the whole operator
  expect_error(spec("", "      - \"set_pass_options(vec_nbuffer_setting={0: 2})\"\n" + body), "vec_nbuffer_setting=",
               "set_pass_options(...) inside a loop is not supported", "before the first loop");
  expect_error(spec("", body) + "  - \"set_codegen_options(enable_pmu_trace=True)\"\n", "enable_pmu_trace=",
               "set_codegen_options(enable_pmu_trace=...) here is not supported", "before the first loop");
  expect_error(spec("  - \"set_pass_options(sg_set_scope=(1, True))\"\n", body), "(1, True)",
               "sg_set_scope's tuple is (scope_id, allow_parallel_merge, allow_cross_scope_merge), got 2 entries");
  expect_error(spec("  - \"set_pass_options(sg_set_scope=sid)\"\n", body), "sid",
               "scope id must be an integer in -1..2147483647", "literal");
  expect_error(spec("  - \"set_runtime_options(stitch_function_max_num=64)\"\n", body), "set_runtime_options",
               "PyPTO has no set_runtime_options", "options: runtime:");
}

TEST_CASE("set_semantic_label is a label statement; \"\" clears it", "[frontend][cfgcalls]") {
  const std::string t = "      - vec_tile: [4, 64]\n";
  const std::string top = "options:\n  pass:\n    vec_nbuffer_setting: {DEFAULT: 2, Attention Scores: 1}\n";
  std::string a = spec("", t + "      - {label: Attention Scores}\n" + kVec + "      - {label: null}\n" +
                               "      - \"y[i:, :] = exp(x[i:i + k, :] + 1)\"\n", top);
  std::string b = spec("", t + "      - 'pypto.set_semantic_label(\"Attention Scores\")'\n" + kVec +
                               "      - \"set_semantic_label('')\"\n" + "      - \"y[i:, :] = exp(x[i:i + k, :] + 1)\"\n",
                       top);
  CHECK(ir(a) == ir(b));
  auto r = fe_test::run(b);
  for (const auto& d : r.diags) CHECK(d.message.find("not a label") == std::string::npos);  // the key matches
  expect_error(spec("", t + "      - \"set_semantic_label(MM1)\"\n" + kVec), "MM1)",
               "set_semantic_label takes a string literal, got 'MM1'");
  expect_error(spec("", t + "      - \"set_semantic_label('func8_0')\"\n" + kVec), "'func8_0'",
               "label 'func8_0' looks like a function key");
}

TEST_CASE("a knob's value passed by name: a literal bound at the top of the body", "[frontend][cfgcalls]") {
  const std::string body = "      - vec_tile: [4, 64]\n" + kVec;
  // PyPTO's models pass configs.vec_nbuffer_setting; a port binds the dict once and passes the name
  const std::string named = spec("  - \"nb = {'DEFAULT': 4, -1: 2}\"\n  - \"reuse = {-1: (2, 'left')}\"\n"
                                 "  - \"pmu = True\"\n  - \"mode = 1\"\n"
                                 "  - \"pypto.set_pass_options(vec_nbuffer_setting=nb, cube_l1_reuse_setting=reuse)\"\n"
                                 "  - \"pypto.set_codegen_options(enable_pmu_trace=pmu)\"\n"
                                 "  - \"pypto.set_debug_options(runtime_debug_mode=mode)\"\n",
                                 body);
  const std::string written = spec("  - \"pmu = True\"\n  - \"mode = 1\"\n", body,
                                   "options:\n  pass:\n    vec_nbuffer_setting: {DEFAULT: 4, -1: 2}\n"
                                   "    cube_l1_reuse_setting: {-1: [2, left]}\n"
                                   "  codegen: {enable_pmu_trace: true}\n  debug: {runtime_debug_mode: 1}\n");
  CHECK(ir_nopos(named) == ir_nopos(written));
  CHECK(ir_nopos(named).find("pass.vec_nbuffer_setting = {DEFAULT: 4, -1: 2}") != std::string::npos);
  // the last binding before the call is the one read (Python's order)
  const std::string rebound = spec("  - \"nb = {'DEFAULT': 8}\"\n  - \"nb = {'DEFAULT': 4, -1: 2}\"\n"
                                   "  - \"reuse = {-1: (2, 'left')}\"\n  - \"pmu = True\"\n  - \"mode = 1\"\n"
                                   "  - \"pypto.set_pass_options(vec_nbuffer_setting=nb, cube_l1_reuse_setting=reuse)\"\n"
                                   "  - \"pypto.set_codegen_options(enable_pmu_trace=pmu)\"\n"
                                   "  - \"pypto.set_debug_options(runtime_debug_mode=mode)\"\n",
                                   body);
  CHECK(ir_nopos(rebound) == ir_nopos(written));
}

TEST_CASE("a knob's value passed by name: errors at the name", "[frontend][cfgcalls]") {
  const std::string body = "      - vec_tile: [4, 64]\n" + kVec;
  expect_error(spec("  - \"set_pass_options(vec_nbuffer_setting=nope)\"\n", body), "nope)",
               "set_pass_options's vec_nbuffer_setting names 'nope', which is not bound to a literal at the top of "
               "the body",
               "'nope = {\"DEFAULT\": 2}'");
  // bound to an expression (a compile-time constant, but not a literal), or rebound to one after the literal
  expect_error(spec("  - \"m = T * 2\"\n  - \"set_debug_options(runtime_debug_mode=m)\"\n", body), "m)",
               "runtime_debug_mode names 'm', which is not bound to a literal", "'m = 1'");
  expect_error(spec("  - \"m = 1\"\n  - \"m = T * 2\"\n  - \"set_debug_options(runtime_debug_mode=m)\"\n", body),
               "m)", "runtime_debug_mode names 'm', which is not bound to a literal");
  // the knob table's own checks on the bound value, at the name, saying where the value was written
  expect_error(spec("  - \"bad = {'DEFAULT': -3}\"\n  - \"set_pass_options(cube_nbuffer_setting=bad)\"\n", body),
               "bad)", "pass.cube_nbuffer_setting.DEFAULT: -3 is out of range; allowed: 0..1024 (0 = automatic) "
               "(the value of 'bad', bound at line 13)");
  // a dict literal means nothing else: inside a loop it is refused where it is written
  expect_error(spec("", "      - \"d = {'DEFAULT': 2}\"\n" + body), "{'DEFAULT': 2}",
               "a dict binds constants ('d[KEY]') or a knob value (set_pass_options(...=d)) and stands at the top of "
               "the spec's body",
               "move the binding before the first loop");
}
