// port6a: the PyPTO spellings Kimi's block attention residual and QAT's per-group fake quantisation are
// written in (specs/block_attn_res.yaml, specs/qat_asymmetric_per_group.yaml). Each form is checked against
// the same program in ptoc's own spelling (the printed IR is equal), and its wrong forms by wording and
// position: assemble(src, [offsets], dst); view(..., valid_shape=); reshape(..., valid_shape=);
// matmul(..., a_trans=, b_trans=); div(a, b, INTRINSIC); labels of several words; cube m tiles [1, 1];
// an `if` comparing float constants.
#include <regex>

#include "spec_helpers.h"

using fe_test::expect_error;
using fe_test::ok;
using fe_test::run;

namespace {

// x [B, H], v [B, L, H], q [1, 1, H] fp32 in; y [B, H] out, or z [B, 1, 16] with `z_out`.
std::string spec(const std::string& body, const std::string& top = {}, bool z_out = false) {
  return "ptoc: 1\nname: t\ndims:\n  B: dynamic\n  H: 64\n  L: {dynamic: true, max: 16}\n"
         "inputs:\n  x: {dtype: fp32, shape: [B, H]}\n  v: {dtype: fp32, shape: [B, L, H]}\n"
         "  q: {dtype: fp32, shape: [1, 1, H]}\n"
         "outputs:\n" + std::string(z_out ? "  z: {dtype: fp32, shape: [B, 1, 16]}\n" : "  y: {dtype: fp32, shape: [B, H]}\n") +
         top + "body:\n" + body;
}
std::string zspec(const std::string& body) { return spec(body, {}, true); }

// The printed IR without source positions (` @17:14`): two spellings on different lines compare equal.
std::string ir(const std::string& yaml) {
  return std::regex_replace(ptoc::print_ir(ok(yaml)), std::regex(" +@[0-9]+:[0-9]+"), "");
}

const std::string kLoop = "  - vec_tile: [4, 64]\n  - loop: {var: b, count: \"ceil_div(B, 4)\"}\n    body:\n";

}  // namespace

TEST_CASE("assemble(src, [offsets], dst) is dst[offsets:] = src", "[frontend][port6a]") {
  const std::string pypto = ir(spec(kLoop + "      - \"t = exp(x[b * 4:(b + 1) * 4, :])\"\n"
                                            "      - \"assemble(t, [b * 4, 0], y)\"\n"));
  const std::string ptoc = ir(spec(kLoop + "      - \"t = exp(x[b * 4:(b + 1) * 4, :])\"\n"
                                           "      - \"y[b * 4:, 0:] = t\"\n"));
  CHECK(pypto == ptoc);
  // PyPTO's keywords (input, offsets, out) bind the same arguments.
  CHECK(ir(spec(kLoop + "      - \"t = exp(x[b * 4:(b + 1) * 4, :])\"\n"
                        "      - \"assemble(out=y, input=t, offsets=[b * 4, 0])\"\n")) == ptoc);
}

TEST_CASE("assemble's wrong forms are located errors", "[frontend][port6a]") {
  const std::string head = kLoop + "      - \"t = exp(x[b * 4:(b + 1) * 4, :])\"\n";
  expect_error(spec(head + "      - \"assemble(t, b * 4, y)\"\n"), "b * 4, y", "the offsets of 'assemble' must be a list",
               "assemble(src, [offset, ...], dst)");
  expect_error(spec(head + "      - \"assemble(t, [b * 4, 0], exp(y))\"\n"), "exp(y))",
               "the target of 'assemble' must be the name of an output");
  expect_error(spec(head + "      - \"assemble(t, [b * 4, 0], y, 1)\"\n"), "1)\"", "too many arguments to 'assemble'");
  expect_error(spec(head + "      - \"assemble(t, [b * 4, 0])\"\n"), "assemble(t, [b * 4, 0])",
               "'assemble' takes 3 arguments");
  expect_error(spec(head + "      - \"assemble(t, [b * 4, 0], dst=y)\"\n"), "dst=y", "unknown argument 'dst' to 'assemble'");
  // The assemble's own rules, at the target: an input cannot be written.
  expect_error(spec(head + "      - \"assemble(t, [b * 4, 0], x)\"\n"), "x)\"", "cannot assemble into input 'x'");
}

TEST_CASE("PyPTO's keywords valid_shape, a_trans, b_trans bind ptoc's parameters", "[frontend][port6a]") {
  const std::string body = "  - vec_tile: [1, 16, 64]\n  - cube_tile: {m: [16, 16], k: [64, 64], n: [16, 16]}\n"
                           "  - loop: {var: b, count: B}\n    body:\n";
  const std::string pypto =
      ir(zspec(body + "      - \"t = view(v, [1, 16, H], [b, 0, 0], valid_shape=[1, L, H])\"\n"
                     "      - \"m = matmul(q, t, fp32, a_trans=False, b_trans=True)\"\n"
                     "      - \"z[b:, 0:, 0:] = m\"\n"));
  const std::string ptoc =
      ir(zspec(body + "      - \"t = view(v, [1, 16, H], [b, 0, 0], valid=[1, L, H])\"\n"
                     "      - \"m = matmul(q, t, fp32, trans_a=False, trans_b=True)\"\n"
                     "      - \"z[b:, 0:, 0:] = m\"\n"));
  CHECK(pypto == ptoc);
  // Keywords PyPTO does not have stay unknown, with ptoc's list of parameters.
  expect_error(zspec(body + "      - \"m = matmul(q, v, fp32, c_trans=True)\"\n"), "c_trans", "unknown argument 'c_trans' to 'matmul'");
}

TEST_CASE("reshape(..., valid_shape=) states or narrows the valid region, never widens it", "[frontend][port6a]") {
  const std::string body = "  - vec_tile: [1, 16, 64]\n  - loop: {var: b, count: B}\n    body:\n"
                           "      - \"t = view(v, [1, 16, H], [b, 0, 0], valid_shape=[1, L, H])\"\n"
                           "      - \"s = sum(t, -1)\"\n";
  // [1, 16] valid [1, L] -> [1, 1, 16] valid [1, 1, L]: stated as it is, the same program as without it.
  CHECK(ir(zspec(body + "      - \"r = reshape(s, [1, 1, 16], valid_shape=[1, 1, L])\"\n      - \"z[b:, 0:, 0:] = r\"\n")) ==
        ir(zspec(body + "      - \"r = reshape(s, [1, 1, 16])\"\n      - \"z[b:, 0:, 0:] = r\"\n")));
  // A narrower valid shape narrows the result.
  auto p = ok(zspec("  - vec_tile: [1, 1, 16]\n  - loop: {var: b, count: B}\n    body:\n"
                    "      - \"s = x[b:b + 1, 0:16]\"\n"
                    "      - \"r = reshape(s, [1, 1, 16], valid_shape=[1, 1, 3])\"\n      - \"z[b:, 0:, 0:] = r\"\n"));
  bool narrowed = false;
  for (const auto& val : p.values)
    if (val.name == "r") narrowed = val.valid.size() == 3 && val.valid[2].as_const() == 3;
  CHECK(narrowed);
  // Wider than what the input holds: padding would become valid.
  expect_error(zspec(body + "      - \"r = reshape(s, [1, 1, 16], valid_shape=[1, 1, 16])\"\n      - \"z[b:, 0:, 0:] = r\"\n"),
               "16])\"\n      - \"z", "reshape valid_shape entry 2 is 16, but the input's valid elements give L",
               "write L");
  expect_error(zspec(body + "      - \"r = reshape(s, [1, 1, 16], valid_shape=[1, L])\"\n      - \"z[b:, 0:, 0:] = r\"\n"),
               "[1, L])", "reshape valid_shape has 2 entries; the shape has 3");
}

TEST_CASE("div takes PyPTO's precision type", "[frontend][port6a]") {
  const std::string body = kLoop + "      - \"y[b * 4:, :] = div(x[b * 4:(b + 1) * 4, :], 3.0";
  CHECK(ir(spec(body + ", INTRINSIC)\"\n")) == ir(spec(body + ")\"\n")));
  CHECK(ir(spec(body + ", precision_type=HIGH_PRECISION)\"\n")) == ir(spec(body + ")\"\n")));
  expect_error(spec(body + ", FAST)\"\n"), "FAST", "unknown precision_type 'FAST' of 'div'", "HIGH_PRECISION or INTRINSIC");
}

TEST_CASE("a label may be several words, as PyPTO's set_semantic_label", "[frontend][port6a]") {
  const std::string opts = "options:\n  pass: {vec_nbuffer_setting: {\"Attention Scores\": 4}}\n";
  auto r = run(spec(kLoop + "      - {label: Attention Scores}\n      - \"y[b * 4:, :] = exp(x[b * 4:(b + 1) * 4, :])\"\n", opts));
  INFO(r.rendered);
  REQUIRE(r.errors == 0);
  // The setting's key names a label that exists: no "never matches" warning.
  CHECK(r.rendered.find("warning") == std::string::npos);
  bool labelled = false;
  for (const auto& op : r.prog->ops) labelled = labelled || op.label == "Attention Scores";
  CHECK(labelled);
  for (const char* bad : {"Attention  Scores", "Attention-Scores", "1st stage"})
    expect_error(spec(kLoop + "      - {label: " + std::string(bad) + "}\n      - \"y[b * 4:, :] = x[b * 4:(b + 1) * 4, :]\"\n"),
                 bad, "label must be a name ([A-Za-z_][A-Za-z0-9_]*, words may be separated by single spaces)");
}

TEST_CASE("cube m tiles 1, 2, 4, 8 pad to one fractal, as PyPTO's per-token m tiles", "[frontend][port6a]") {
  auto mm = [](const std::string& m) {
    return spec("  - cube_tile: {m: " + m + ", k: [64, 64], n: [16, 16]}\n  - vec_tile: [16, 16]\n"
                "  - loop: {var: b, count: \"ceil_div(B, 16)\"}\n    body:\n"
                "      - \"y[b * 16:, :] = matmul(x[b * 16:(b + 1) * 16, :], ones(64, 64), fp32)\"\n");
  };
  for (const char* m : {"[1, 1]", "[2, 2]", "[8, 8]"}) {
    auto p = ok(mm(m));
    bool found = false;
    for (const auto& op : p.ops)
      if (op.kind == ptoc::OpKind::Matmul && op.cube_tile) {
        CHECK(op.cube_tile->m == std::array<int64_t, 2>{16, 16});
        found = true;
      }
    CHECK(found);
  }
  // Other entries that are not whole fractals stay errors.
  expect_error(mm("[24, 48]"), "[24, 48]", "cube_tile m: the L0 tile 24 must be a multiple of 16", "use 16 or 32");
  expect_error(mm("[3, 3]"), "[3, 3]", "cube_tile m: the L0 tile 3 must be a multiple of 16");
}

TEST_CASE("an if on float constants is decided in double, as Python decides it", "[frontend][port6a]") {
  auto body = [](const std::string& cond) {
    return spec("  - \"scale = 1.0\"\n  - \"n = 2\"\n" + kLoop + "      - \"t = x[b * 4:(b + 1) * 4, :]\"\n"
                "      - if: \"" + cond + "\"\n        then: [\"t = mul(t, scale)\"]\n"
                "      - \"y[b * 4:, :] = exp(t)\"\n");
  };
  const std::string plain = ir(spec(kLoop + "      - \"t = x[b * 4:(b + 1) * 4, :]\"\n      - \"y[b * 4:, :] = exp(t)\"\n"));
  const std::string scaled = ir(spec(kLoop + "      - \"t = x[b * 4:(b + 1) * 4, :]\"\n      - \"t = mul(t, 1.0)\"\n"
                                             "      - \"y[b * 4:, :] = exp(t)\"\n"));
  CHECK(ir(body("scale != 1.0")) == plain);
  CHECK(ir(body("scale == 1.0")) == scaled);
  CHECK(ir(body("scale < n")) == scaled);          // a float against an integer constant
  CHECK(ir(body("scale * 2 >= 2.5")) == plain);
  CHECK(ir(body("not scale != 1.0")) == scaled);
  // A float against a dynamic dim cannot be decided at compile time: the float is refused as a dim term.
  expect_error(body("scale < B"), "scale < B", "'scale' is a float constant; a dim expression takes integers");
}

TEST_CASE("PyPTO's dtype names DT_FP32 ... are ptoc's dtypes", "[frontend][port6a]") {
  const std::string head = kLoop + "      - \"t = cast(cast(x[b * 4:(b + 1) * 4, :], ";
  CHECK(ir(spec(head + "DT_BF16), DT_FP32)\"\n      - \"y[b * 4:, :] = t\"\n")) ==
        ir(spec(head + "bf16), fp32)\"\n      - \"y[b * 4:, :] = t\"\n")));
  expect_error(spec(head + "DT_FP64), fp32)\"\n      - \"y[b * 4:, :] = t\"\n"), "DT_FP64", "unknown dtype 'DT_FP64'");
}

TEST_CASE("x.shape binds a tensor's extents: static ones as constants, dynamic ones as the dim", "[frontend][port6a]") {
  const std::string loop = "  - vec_tile: [4, 64]\n  - loop: {var: b, count: \"ceil_div(nb, 4)\"}\n    body:\n"
                           "      - \"y[b * 4:, :] = exp(x[b * 4:(b + 1) * 4, 0:h])\"\n";
  const std::string plain = ir(spec("  - vec_tile: [4, 64]\n  - loop: {var: b, count: \"ceil_div(B, 4)\"}\n    body:\n"
                                    "      - \"y[b * 4:, :] = exp(x[b * 4:(b + 1) * 4, 0:64])\"\n"));
  CHECK(ir(spec("  - \"nb, h = x.shape\"\n" + loop)) == plain);
  CHECK(ir(spec("  - \"nb = x.shape[0]\"\n  - \"h = v.shape[-1]\"\n" + loop)) == plain);
  // A static extent is a constant: a vec_tile entry may read it; a dynamic one may not stand in an if.
  CHECK(ir(spec("  - \"nb, h = y.shape\"\n  - vec_tile: [4, h]\n  - loop: {var: b, count: \"ceil_div(nb, 4)\"}\n"
                "    body:\n      - \"y[b * 4:, :] = exp(x[b * 4:(b + 1) * 4, 0:h])\"\n")) == plain);
  // A dynamic extent is no scalar operand.
  expect_error(spec("  - \"nb = x.shape[0]\"\n" + loop.substr(0, loop.rfind("exp(")) + "x[b * 4:(b + 1) * 4, :] * nb\"\n"),
               "nb\"", "'nb' is a dynamic extent (B) and cannot be a scalar operand");
  expect_error(spec("  - \"a, b, c = x.shape\"\n" + loop), "a, b, c", "'x.shape' has 2 extents; 3 names are bound",
               "bind one name per axis");
  expect_error(spec("  - \"nb = x.shape[2]\"\n" + loop), "2]\"", "'x' has rank 2; index 2 is outside its shape");
  expect_error(spec("  - \"nb = w.shape[0]\"\n" + loop), "w.shape", "'w' is not a tensor or a value");
  expect_error(spec("  - \"B = x.shape[0]\"\n" + loop), "B = x", "'B'");
}

TEST_CASE("dim arithmetic over dynamic extents and run-time values binds names, as PyPTO's SymbolicScalar", "[frontend][port6a]") {
  // DeepSeek-V4's compressor: b_loop = (bsz + b - 1) // b; b_valid = min(bsz - b_idx * b, b); a loop over each.
  auto blocks = [](const std::string& top, const std::string& outer, const std::string& inner) {
    return spec(top + "  - vec_tile: [1, 64]\n  - loop: {var: i, count: \"" + outer + "\"}\n    body:\n" +
                "      - loop: {var: j, count: \"" + inner + "\"}\n        body:\n" +
                "          - \"y[i * 8 + j:, :] = exp(x[i * 8 + j:i * 8 + j + 1, :])\"\n");
  };
  const std::string written = ir(blocks("", "(B + 7) // 8", "min(B - i * 8, 8)"));
  CHECK(ir(spec("  - \"bsz, h = x.shape\"\n  - \"b = 8\"\n  - \"b_loop = (bsz + b - 1) // b\"\n"
                "  - vec_tile: [1, 64]\n  - loop: {var: i, count: b_loop}\n    body:\n"
                "      - \"b_valid = min(bsz - i * b, b)\"\n"
                "      - loop: {var: j, count: b_valid}\n        body:\n"
                "          - \"y[i * 8 + j:, :] = exp(x[i * 8 + j:i * 8 + j + 1, :])\"\n")) == written);
  // A static expression stays a compile-time constant (a vec_tile entry may read it).
  CHECK(ir(spec("  - \"h2 = 64 // 2 * 2\"\n  - vec_tile: [1, h2]\n  - loop: {var: i, count: B}\n    body:\n"
                "      - \"y[i:, :] = exp(x[i:i + 1, :])\"\n")) ==
        ir(spec("  - vec_tile: [1, 64]\n  - loop: {var: i, count: B}\n    body:\n      - \"y[i:, :] = exp(x[i:i + 1, :])\"\n")));
}

TEST_CASE("a name bound to a run-time value is read where it is used; an if on it branches at run time", "[frontend][port6a]") {
  const std::string top = "ptoc: 1\nname: t\ndims: {B: dynamic, H: 64}\n"
                          "inputs:\n  x: {dtype: fp32, shape: [B, H]}\n  pos: {dtype: int32, shape: [B], values: [0, 9]}\n"
                          "outputs:\n  y: {dtype: fp32, shape: [B, H]}\nbody:\n  - vec_tile: [1, 64]\n"
                          "  - loop: {var: b, count: B}\n    body:\n";
  const std::string named = ir(top + "      - \"p = pos[b]\"\n      - \"q = p % 4\"\n"
                                     "      - if: \"q + 2 < 4\"\n        then: [\"y[b:, :] = x[b:b + 1, :] * 2.0\"]\n"
                                     "        else: [\"y[b:, :] = x[b:b + 1, :]\"]\n");
  // (two comment lines keep the branch on the same line: the branch's loop is named after its line)
  const std::string direct = ir(top + "      # p = pos[b]\n      # q = p % 4\n      - cond: \"pos[b] % 4 + 2 < 4\"\n        then: [\"y[b:, :] = x[b:b + 1, :] * 2.0\"]\n"
                                      "        else: [\"y[b:, :] = x[b:b + 1, :]\"]\n");
  CHECK(named == direct);
}
