// Hostile and huge specs (issue 12): each must give a located error, never a
// crash, a hang or unbounded memory. The inputs are the ones that crashed or
// exhausted memory before: self-referencing aliases, alias expansion, deep
// nesting, int64 overflow, 2^31 dims, non-UTF-8 bytes and megabyte lines.
#include "spec_helpers.h"

#include <unistd.h>

#include "compiler/frontend/elaborate_topk_tiles.h"
#include "runtime/core/resource_limits.h"

using fe_test::find_pos;
using fe_test::run;
using fe_test::spec;

namespace {

const std::string kTile = "  - {vec_tile: [16, 64]}\n";

bool same(ptoc::SrcLoc a, ptoc::SrcLoc b) { return a.line == b.line && a.col == b.col; }

bool has_error(const fe_test::Result& r, const std::string& text) {
  for (const auto& d : r.diags)
    if (d.severity == ptoc::Diagnostic::Severity::Error && d.message.find(text) != std::string::npos) return true;
  return false;
}

// A statement `y[0:16, :] = EXPR` whose EXPR is given.
std::string with_expr(const std::string& e) { return spec(kTile + "  - \"y[0:16, :] = " + e + "\"\n"); }

std::string repeat(const std::string& s, int n) {
  std::string r;
  r.reserve(s.size() * size_t(n));
  for (int i = 0; i < n; ++i) r += s;
  return r;
}

}  // namespace

TEST_CASE("a YAML alias that contains itself is a located error, not endless recursion") {
  std::string y = spec("  - {vec_tile: [16, 64]}\n  - {scope: 1, body: &b [ {scope: 2, body: *b} ]}\n");
  auto r = run(y);
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "contains itself through a YAML alias"));
  REQUIRE(r.diags[0].loc.line == 15);
}

TEST_CASE("billion laughs: alias expansion stops at the yaml_nodes limit") {
  // 10 levels of 10 aliases each: 10^10 statements if expanded.
  std::string y = spec(kTile, "l0: &l0 [\"y[0:16, :] = x[0:16, :] * 2\"]\n");
  std::string defs;
  for (int i = 1; i <= 10; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    defs += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) defs += std::string(k ? ", " : "") + "{scope: 1, body: " + prev + "}";
    defs += "]\n";
  }
  y = "ptoc: 1\nname: t\ndims: {B: dynamic, H: 64}\ninputs: {x: {dtype: fp32, shape: [B, H]}}\n"
      "outputs: {y: {dtype: fp32, shape: [B, H]}}\n"
      "l0: &l0 [\"y[0:16, :] = x[0:16, :] * 2\"]\n" + defs + "body:\n  - {vec_tile: [16, 64]}\n  - {scope: 1, body: *l10}\n";
  auto t0 = std::chrono::steady_clock::now();
  auto r = run(y);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "expands to more than 100000 statements"));
  REQUIRE(r.rendered.find("--limit yaml_nodes=N") != std::string::npos);
  REQUIRE(s < 300);  // unbounded, the 10^10 statements would never finish (ASan debug build: ~85 s, release: ~2-10 s)
}

TEST_CASE("statement bodies nested past yaml_depth are one error") {
  std::string body = "  - {vec_tile: [16, 64]}\n  - ";
  for (int i = 0; i < 150; ++i) body += "{scope: 1, body: [";
  body += "\"y[0:16, :] = x[0:16, :] * 2\"";
  for (int i = 0; i < 150; ++i) body += "]}";
  auto r = run(spec(body + "\n"));
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "statement bodies nest more than 100 levels deep"));
  REQUIRE(r.errors == 1);
}

TEST_CASE("expressions nested 10^4 to 10^5 deep stop at expr_depth with a located error") {
  struct Deep {
    const char* what;
    std::string expr;
  };
  const int n = 100000;
  std::vector<Deep> cases = {
      {"parentheses", repeat("(", n) + "x[0:16, :]" + repeat(")", n)},
      {"unary minus", repeat("-", n) + "x[0:16, :]"},
      {"unary plus", repeat("+", n) + "x[0:16, :]"},
      {"calls", repeat("exp(", 20000) + "x[0:16, :]" + repeat(")", 20000)},
      {"lists", repeat("[", n) + "1" + repeat("]", n)},
      {"a + a + ... chain", "x[0:16, :]" + repeat(" + x[0:16, :]", 20000)},
      {"a * a * ... chain", "x[0:16, :]" + repeat(" * x[0:16, :]", 20000)},
      {"subscript chain", "x" + repeat("[0:16, :]", 20000)},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    // 10^5 characters nested is more than the 64 KiB statement limit: raise it so that the depth limit is what stops it.
    ptoc::limits::set("stmt_bytes=1M");
    auto r = run(with_expr(c.expr));
    ptoc::limits::reset();
    REQUIRE(!r.prog);
    REQUIRE(has_error(r, "nests more than 1000 levels deep"));
    REQUIRE(r.diags[0].loc.line == 15);
  }
}

TEST_CASE("a deep if condition stops at expr_depth") {
  const int n = 50000;
  std::string cond = repeat("not ", n) + "H == 64";
  ptoc::limits::set("stmt_bytes=1M");
  auto r = run(spec(kTile + "  - {if: \"" + cond + "\", then: [\"y[0:16, :] = x[0:16, :] * 2\"]}\n"));
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "nests more than 1000 levels deep"));
  std::string cond2 = repeat("(", n) + "H == 64" + repeat(")", n);
  auto r2 = run(spec(kTile + "  - {if: \"" + cond2 + "\", then: [\"y[0:16, :] = x[0:16, :] * 2\"]}\n"));
  ptoc::limits::reset();
  REQUIRE(!r2.prog);
  REQUIRE(has_error(r2, "nests more than 1000 levels deep"));
}

TEST_CASE("expressions just under the depth limit still compile") {
  // 900 nested parentheses and a 500-term chain are legal and elaborate.
  auto r = run(with_expr(repeat("(", 900) + "x[0:16, :]" + repeat(")", 900)));
  REQUIRE(r.prog);
  auto r2 = run(with_expr("x[0:16, :]" + repeat(" + x[0:16, :]", 500)));
  REQUIRE(r2.prog);
}

TEST_CASE("a statement longer than stmt_bytes is one located error") {
  std::string e = "x[0:16, :]" + repeat(" + x[0:16, :]", 6000);  // ~80 KB
  std::string y = with_expr(e);
  auto r = run(y);
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "more than the 65536 a statement may have"));
  REQUIRE(r.diags[0].loc.line == 15);
}

TEST_CASE("dim arithmetic that leaves int64 is a located error") {
  struct C {
    const char* what;
    std::string shape;
    std::string needle;
  };
  std::vector<C> cases = {
      {"INT64_MIN // -1", "\"(-9223372036854775807 - 1) // -1\"", "//"},
      {"product", "\"4611686018427387904 * 4\"", "*"},
      {"sum", "\"9223372036854775807 + H\"", "+"},
      {"shape bytes", "4611686018427387904, 4", ""},
      {"negation", "\"-(-9223372036854775807 - 1)\"", "-("},
      {"ceil_div", "\"ceil_div(-9223372036854775807 - 1, -1)\"", "ceil_div"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    std::string y = "ptoc: 1\nname: t\ndims: {H: 64}\ninputs: {x: {dtype: fp32, shape: [H]}}\n"
                    "outputs: {y: {dtype: fp32, shape: [" + c.shape + "]}}\nbody:\n  - {vec_tile: [64]}\n"
                    "  - \"y[0:64] = x * 2\"\n";
    auto r = run(y);
    REQUIRE(!r.prog);
    REQUIRE(has_error(r, "dim arithmetic overflows int64"));
    REQUIRE(r.diags[0].loc.line == 5);
    REQUIRE(r.rendered.find("internal error") == std::string::npos);
  }
}

TEST_CASE("a 19-digit dim is a located 'does not fit' error, not 'stoll'") {
  std::string y = spec(kTile + "  - \"y[0:16, :] = x[0:16, :] * 2\"\n");
  y.replace(y.find("H: 64"), 5, "H: 9999999999999999999");
  auto r = run(y);
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "dim 'H' = 9999999999999999999 does not fit a 64-bit integer"));
  REQUIRE(same(r.diags[0].loc, find_pos(y, "9999999999999999999")));
  REQUIRE(r.rendered.find("stoll") == std::string::npos);
}

TEST_CASE("N: 2^31 under a small vec_tile stops at the tile count limit, at the op") {
  std::string y = "ptoc: 1\nname: t\ndims: {N: 2147483648}\ninputs: {x: {dtype: fp32, shape: [N]}}\n"
                  "outputs: {y: {dtype: fp32, shape: [N]}}\nbody:\n  - {vec_tile: [1024]}\n  - \"y[:] = x * 2\"\n";
  auto r = run(y);
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "root function 'top_0' has"));
  REQUIRE(has_error(r, "more than the limit of 1000000; this op makes 2097152 over [2147483648]"));
  REQUIRE(same(r.diags[0].loc, find_pos(y, "* 2")));
  // Raised, the same spec passes the check.
  ptoc::limits::set("tiles_per_root=10000000");
  auto r2 = run(y);
  ptoc::limits::reset();
  REQUIRE(r2.prog);
}

TEST_CASE("matmul tiles count the L0 grid over M, N and K") {
  std::string y = "ptoc: 1\nname: t\ndims: {M: 65536, K: 65536, N: 4096}\n"
                  "inputs: {a: {dtype: fp16, shape: [M, K]}, b: {dtype: fp16, shape: [K, N]}}\n"
                  "outputs: {c: {dtype: fp32, shape: [M, N]}}\nbody:\n"
                  "  - {cube_tile: {m: [64, 64], k: [64, 64], n: [64, 64]}}\n  - \"c[:, :] = matmul(a, b, fp32)\"\n";
  auto r = run(y);
  REQUIRE(!r.prog);
  // 1024 * 64 * 1024 L0 tiles.
  REQUIRE(has_error(r, "this op makes 67108864"));
}

TEST_CASE("a non-UTF-8 byte is refused with its position") {
  std::string y = spec(kTile + "  - \"y[0:16, :] = x[0:16, :] * 2\"  # caf\xE9\n");
  auto r = run(y);
  REQUIRE(!r.prog);
  REQUIRE(has_error(r, "byte 0xE9"));
  REQUIRE(has_error(r, "is not valid UTF-8"));
  REQUIRE(same(r.diags[0].loc, find_pos(y, "\xE9")));
  // Valid multi-byte UTF-8 in a comment is fine.
  REQUIRE(run(spec(kTile + "  - \"y[0:16, :] = x[0:16, :] * 2\"  # caf\xC3\xA9 \xE2\x82\xAC\n")).prog);
}

TEST_CASE("a 10 MB one-line spec gives a bounded message") {
  std::string y = "ptoc: 1\nname: t\nbody: [" + repeat("\"a = b\", ", 1000000) + "@]\n";
  auto r = run(y);
  REQUIRE(!r.prog);
  REQUIRE(r.rendered.size() < 4000);
  REQUIRE(r.rendered.find("...") != std::string::npos);
}

TEST_CASE("spec files: directories, devices and oversized files are refused by name") {
  std::ostringstream err;
  REQUIRE(!ptoc::read_spec_file("/", err));
  REQUIRE(err.str().find("/: error: is a directory, not a spec file") != std::string::npos);
  std::ostringstream err2;
  REQUIRE(!ptoc::read_spec_file("/dev/zero", err2));
  REQUIRE(err2.str().find("/dev/zero: error: is a device, not a spec file") != std::string::npos);
  std::string path = "fe_big_spec.yaml";
  {
    std::ofstream f(path);
    f << "ptoc: 1\n# " << std::string(2000, 'x') << "\n";
  }
  ptoc::limits::set("spec_bytes=1000");
  std::ostringstream err3;
  REQUIRE(!ptoc::read_spec_file(path, err3));
  ptoc::limits::reset();
  std::remove(path.c_str());
  REQUIRE(err3.str().find("more than the spec size limit of 1000") != std::string::npos);
  REQUIRE(err3.str().find("--limit spec_bytes=N") != std::string::npos);
}

TEST_CASE("the sanitizer case: check_map over every spec key (softmax) stays clean") {
  // The key reference into yaml-cpp's iterator temporary dangled on every spec:
  // this runs the same walk; the ASan build (build-asan) turns a regression into a failure.
  // The source tree: meson's test environment, else the one this binary was built from (run by hand).
  std::ifstream f(std::string(std::getenv("PTOC_SOURCE_ROOT") ? std::getenv("PTOC_SOURCE_ROOT") : PTOC_TEST_SOURCE_ROOT) +
                  "/specs/softmax.yaml");
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  auto r = run(ss.str());
  REQUIRE(r.prog);
  auto r2 = run(spec(kTile + "  - \"y[0:16, :] = x[0:16, :] * 2\"\n", "optoins: {}\nname: u\n"));
  REQUIRE(has_error(r2, "unknown key 'optoins' in the spec"));
  REQUIRE(has_error(r2, "duplicate key 'name' in the spec"));
}

namespace {

// `v, i = topk(x, K)` over x [R, N] under vec_tile [R, T] (or an argsort when `argsort`).
std::string topk_spec(int64_t R, int64_t N, int64_t T, int64_t K) {
  return "ptoc: 1\nname: t\ninputs: {x: {dtype: fp32, shape: [" + std::to_string(R) + ", " + std::to_string(N) +
         "]}}\noutputs: {yv: {dtype: fp32, shape: [" + std::to_string(R) + ", " + std::to_string(K) +
         "]}, yi: {dtype: int32, shape: [" + std::to_string(R) + ", " + std::to_string(K) + "]}}\nbody:\n" +
         "  - {vec_tile: [" + std::to_string(R) + ", " + std::to_string(T) + "]}\n  - \"v, i = topk(x, " +
         std::to_string(K) + ")\"\n  - \"yv[:, :] = v\"\n  - \"yi[:, :] = i\"\n";
}

const ptoc::Diagnostic* first_error(const fe_test::Result& r) {
  for (const auto& d : r.diags)
    if (d.severity == ptoc::Diagnostic::Severity::Error) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("topk over 2^26 columns in tiles of 256 stops at select_steps, at the call, before any op is made") {
  // Issue 12 wrote k selection steps per tile (661503 tile ops for 65536 columns); native sorts are two ops
  // per tile and per merge of the tree (here binary: groups of 2k = 512 candidates), under 2000 ops.
  auto fine = fe_test::ok(topk_spec(1, 65536, 256, 256));
  INFO(fine.ops.size());
  REQUIRE(fine.ops.size() < 2000);
  // 2^26 columns in tiles of 256 are 262144 tiles: refused at once, nothing is made.
  std::string y = topk_spec(1, int64_t(1) << 26, 256, 256);
  auto r = run(y);
  REQUIRE(!r.prog);
  const auto* e = first_error(r);
  REQUIRE(e);
  REQUIRE(e->message ==
          "topk(x, 256) splits its sorted axis 1 (67108864) into 262144 tiles of the vec_tile's 256: 262145 sorts "
          "with the merge, more than the select_steps limit of 8192");
  REQUIRE(same(e->loc, find_pos(y, "topk(x, 256)")));
  // At most 8191 tiles besides the merge: an entry of ceil(2^26 / 8191) = 8194.
  REQUIRE(e->hint.find("set the vec_tile's entry 1 to at least 8194 (fewer tiles)") == 0);
  REQUIRE(e->hint.find("--limit select_steps=N") != std::string::npos);
}

TEST_CASE("the fix select_steps names fits the limit") {
  REQUIRE(ptoc::limits::set("select_steps=100").empty());
  // 128 tiles of 64 and the merge: 129 sorts.
  auto r = run(topk_spec(4, 8192, 64, 32));
  REQUIRE(!r.prog);
  const auto* e = first_error(r);
  REQUIRE(e);
  REQUIRE(e->message.find("into 128 tiles of the vec_tile's 64: 129 sorts with the merge, more than the select_steps "
                          "limit of 100") != std::string::npos);
  REQUIRE(e->hint.find("set the vec_tile's entry 1 to at least 83 (fewer tiles)") == 0);
  // The fix compiles: 99 tiles of 83 and the merge are 100 sorts.
  fe_test::ok(topk_spec(4, 8192, 83, 32));
  ptoc::limits::reset();
  CHECK(ptoc::fe::select_steps(8192, 8192) == 1);      // whole axis: one sort
  CHECK(ptoc::fe::select_steps(200, 64) == 4 + 1);     // three tiles and a tail of 8, then the merge
  CHECK(ptoc::fe::select_steps(INT64_MAX, 1) == INT64_MAX);  // saturates
}

TEST_CASE("argsort is one sort of its whole axis, whatever its length") {
  REQUIRE(ptoc::limits::set("select_steps=1").empty());
  std::string y = "ptoc: 1\nname: t\ninputs: {x: {dtype: fp32, shape: [4, 4096]}}\n"
                  "outputs: {y: {dtype: int32, shape: [4, 4096]}}\nbody:\n  - {vec_tile: [1, 4096]}\n"
                  "  - \"y[:, :] = argsort(x)\"\n";
  auto p = fe_test::ok(y);
  ptoc::limits::reset();
  int sorts = 0;
  for (const auto& op : p.ops) sorts += op.kind == ptoc::OpKind::SortIndices || op.kind == ptoc::OpKind::SortValues;
  REQUIRE(sorts == 1);
}

TEST_CASE("a long statement's binding target is found without recursion (std::regex overflowed the stack)") {
  // 60 000 name characters fit the 64 KiB statement limit; the reader looked for `NAME =` with a regex that
  // recursed once per character: SIGSEGV on the top-level binding, and on a broken statement's target.
  const std::string name = repeat("a", 60000);
  auto bound = run(spec(kTile + "  - \"" + name + " = x[0:16, :] * 2\"\n  - \"y[0:16, :] = " + name + "\"\n"));
  CHECK(bound.prog);
  CHECK(bound.errors == 0);
  auto broken = run(spec(kTile + "  - \"" + name + " = x[0:16, :] *\"\n  - \"y[0:16, :] = " + name + "\"\n"));
  CHECK_FALSE(broken.prog);
  CHECK(broken.errors == 1);  // the broken value only: the name stays bound, so its use is no second error
  // a knob passed by a name 60 000 characters long, bound to a dict literal
  auto knob = run(spec(kTile + "  - \"" + name + " = {'DEFAULT': 2}\"\n  - \"set_pass_options(vec_nbuffer_setting=" +
                       name + ")\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"));
  CHECK(knob.prog);
  CHECK(knob.errors == 0);
}

TEST_CASE("long function keys, labels and indents are scanned without recursion (std::regex overflowed the stack)") {
  // func{magic}_{order} keys, labels that look like them and a configuration call's head were matched with
  // std::regex, which recursed once per character: 60 000 digits (or spaces) crashed ptoc with SIGSEGV.
  const std::string digits = repeat("9", 60000);
  auto label = run(spec(kTile + "  - label: func1_" + digits + "\n  - \"y[0:16, :] = x[0:16, :]\"\n"));
  CHECK_FALSE(label.prog);
  CHECK(has_error(label, "looks like a function key func{magic}_{order}"));
  auto call_label = run(spec(kTile + "  - \"pypto.set_semantic_label('func1_" + digits +
                             "')\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"));
  CHECK_FALSE(call_label.prog);
  CHECK(has_error(call_label, "looks like a function key func{magic}_{order}"));
  // (YAML's implicit keys stop at 1024 characters: an explicit `? KEY` key reaches options.cpp)
  auto key = run(spec(kTile + "  - \"y[0:16, :] = x[0:16, :]\"\n",
                      "options:\n  pass:\n    vec_nbuffer_setting:\n      ? func1_" + digits + "\n      : 2\n"));
  CHECK_FALSE(key.prog);
  CHECK(has_error(key, "is out of range"));
  auto indented = run(spec(kTile + "  - \"" + repeat(" ", 60000) +
                           "pypto.set_semantic_label('A')\"\n  - \"y[0:16, :] = x[0:16, :]\"\n"));
  CHECK(indented.prog);
  CHECK(indented.errors == 0);
  // the scans accept what the patterns did, and nothing more
  auto small_key = run(spec(kTile + "  - \"pypto.set_pass_options(vec_nbuffer_setting={'func0_1': 2})\"\n"
                                    "  - \"y[0:16, :] = x[0:16, :]\"\n"));
  CHECK(small_key.errors == 0);
  auto not_key = run(spec(kTile + "  - label: func1_2x\n  - \"y[0:16, :] = x[0:16, :]\"\n"));
  CHECK(not_key.prog);
}

TEST_CASE("YAML nested past yaml-cpp's depth guard says so, not \"bad file\"") {
  // yaml-cpp stops at a few hundred levels of nesting with DeepRecursion, whose message is a bare "bad file".
  for (const std::string& doc : {std::string("ptoc: 1\nname: t\nbody: ") + repeat("[", 5000) + repeat("]", 5000) + "\n",
                                 std::string("ptoc: 1\nname: t\nx: ") + repeat("{a: ", 5000) + "1" + repeat("}", 5000) + "\n"}) {
    auto r = run(doc);
    REQUIRE_FALSE(r.prog);
    REQUIRE(r.errors == 1);
    CHECK(has_error(r, "invalid YAML: the document nests more than"));
    CHECK_FALSE(has_error(r, "bad file"));
    CHECK(r.diags[0].loc.line == 3);
  }
}

TEST_CASE("dict values that read other dicts cannot double past the statement limit") {
  // d_i = {'a': d_{i-1}['a'] + d_{i-1}['a']}: 40 levels would read 2^40 characters in place (std::bad_alloc
  // before the limit): the lookup that passes the stmt_bytes limit is a located error.
  std::string body = kTile + "  - \"d0 = {'a': 1}\"\n";
  for (int i = 1; i < 40; ++i)
    body += "  - \"d" + std::to_string(i) + " = {'a': d" + std::to_string(i - 1) + "['a'] + d" + std::to_string(i - 1) +
            "['a']}\"\n";
  body += "  - \"y[0:16, :] = x[0:16, :] * d39['a']\"\n";
  auto r = run(spec(body));
  CHECK_FALSE(r.prog);
  CHECK(has_error(r, "read in place the text has more than 65536 characters, the limit of a statement"));
  CHECK(r.errors <= 25);  // one error per level past the limit, then the max-errors cap
}
