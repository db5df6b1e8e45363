// Malformed specs: each must fail `ptoc check` with exit status 1 and report
// the error at the offending token, with the expected wording.
#include "spec_helpers.h"

using fe_test::find_pos;
using fe_test::run;
using fe_test::spec;

namespace {

struct Case {
  const char* what;
  std::string yaml;
  std::string needle;   // where the error points ('@' marks the column inside the needle)
  std::string message;  // substring of the message
  std::string hint;     // substring of the hint ("" = not checked)
};

const std::string kTile = "  - {vec_tile: [16, 64]}\n";
const std::string kWrite = "  - \"y[0:16, :] = x[0:16, :] * 2\"\n";

std::vector<Case> cases() {
  return {
      // --- top level
      {"unknown top-level key", spec(kTile + kWrite, "optoins: {}\n"), "optoins", "unknown key 'optoins' in the spec",
       "did you mean 'options'?"},
      {"missing version", "name: t\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n", "name", "missing required key 'ptoc'",
       "ptoc: 1"},
      {"empty outputs", "ptoc: 1\nname: t\ninputs: {x: {dtype: fp32, shape: [4]}}\noutputs: {}\nbody: [\"z = x * 2\"]\n",
       "{}\nbody", "outputs is empty: an operator needs at least one output", "outputs: {y:"},
      {"wrong version", "ptoc: 2\nname: t\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: [\"y[:] = full([4], 0, fp32)\"]\n",
       "2\nname", "unsupported format version '2'", "ptoc: 1"},
      {"bad operator name", "ptoc: 1\nname: 9lives\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n", "9lives",
       "invalid operator name '9lives'", "[A-Za-z_]"},
      {"invalid YAML", "ptoc: 1\nname: t\nbody: [\"a = b\"\n  x: 1\n", "x: 1", "invalid YAML", ""},
      {"unknown target", spec(kTile + kWrite, "target: ascend910\n"), "ascend910\n", "unknown target 'ascend910'",
       "did you mean 'ascend910b1'?"},
      {"duplicate top-level key", "ptoc: 1\nname: a\nname: b\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n",
       "name: b", "duplicate key 'name' in the spec", ""},
      {"empty statement mapping", spec(kTile + "  - {}\n" + kWrite), "{}", "empty statement mapping", ""},
      {"quoted version", "ptoc: \"1\"\nname: t\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n", "\"1\"",
       "the format version must be the integer 1", "without quotes"},
      {"reshape to rank 0", spec(kTile + "  - \"t = reshape(x, [])\"\n" + kWrite), "[])", "reshape to rank 0", ""},
      {"empty statement", spec(kTile + "  -\n" + kWrite), "-\n", "empty statement", ""},
      {"error in a folded block scalar", spec(kTile + "  - >-\n    t = x +\n    qq\n" + kWrite), "qq", "unknown name 'qq'", ""},
      {"NZ tensor in a vector op", spec(kTile + "  - \"t = z * 2\"\n" + kWrite, "tensors:\n  z: {dtype: fp16, shape: [H, H], format: NZ}\n"),
       "z * 2", "'z' is stored in NZ format and only matmul can read it", ""},
      // --- dims
      {"zero static dim", "ptoc: 1\nname: t\ndims: {H: 0}\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n", "0}",
       "dim 'H' must be a positive integer, got 0", ""},
      {"misspelt dynamic", "ptoc: 1\nname: t\ndims: {B: dynamik}\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n",
       "dynamik", "dim 'B' must be a positive integer or 'dynamic'", "did you mean 'dynamic'?"},
      {"unknown dim key", "ptoc: 1\nname: t\ndims:\n  S: {dynamic: true, maxx: 64}\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n",
       "maxx", "unknown key 'maxx' in dim 'S'", "did you mean 'max'?"},
      // --- tensor types
      {"unknown dtype", spec(kTile + kWrite, "tensors:\n  ws: {dtype: float16, shape: [B, H]}\n"), "float16",
       "unknown dtype 'float16'", "did you mean 'fp16'?"},
      {"rank 5", spec(kTile + kWrite, "tensors:\n  ws: {dtype: fp32, shape: [1, 2, 3, 4, 5]}\n"), "[1, 2, 3, 4, 5]",
       "has rank 5; ranks 1 to 4 are supported", ""},
      {"unknown dim in shape", spec(kTile + kWrite, "tensors:\n  ws: {dtype: fp32, shape: [B, HH]}\n"), "HH",
       "unknown dim 'HH'", "did you mean 'H'?"},
      {"name declared twice", spec(kTile + kWrite, "tensors:\n  x: {dtype: fp32, shape: [B, H]}\n"),
       "x: {dtype: fp32, shape: [B, H]}\nbody", "'x' is declared twice", ""},
      {"NZ output", "ptoc: 1\nname: t\noutputs:\n  y: {dtype: fp16, shape: [16, 16], format: NZ}\nbody: []\n",
       "y: {", "output 'y' cannot use format NZ", ""},
      {"divisible max", "ptoc: 1\nname: t\ndims:\n  S: {dynamic: true, max: 100, divisible_by: 16}\noutputs: {y: {dtype: fp32, shape: [4]}}\nbody: []\n",
       "100", "max 100 is not divisible by divisible_by 16", ""},
      // --- tile state statements
      {"vec_tile zero", spec("  - {vec_tile: [16, 0]}\n" + kWrite), "0]}", "vec_tile entries must be positive integers",
       ""},
      {"empty vec_tile", spec("  - {vec_tile: []}\n" + kWrite), "[]}", "vec_tile must be a list of 1 to 4 positive integers, got an empty list", ""},
      {"rank-5 vec_tile", spec("  - {vec_tile: [1, 1, 1, 16, 64]}\n" + kWrite), "[1, 1", "got a list of 5 entries", ""},
      {"cube L1 not a multiple", spec(kTile + "  - {cube_tile: {m: [16, 40], k: [16, 64], n: [16, 32]}}\n" + kWrite),
       "[16, 40]", "cube_tile m: the L1 tile 40 must be a multiple of the L0 tile 16", ""},
      {"cube k L0 alignment", spec(kTile + "  - {cube_tile: {m: [16, 32], k: [24, 48], n: [16, 32]}}\n" + kWrite),
       "[24, 48]", "the L0 tile 24 must be a multiple of 16", ""},
      {"cube m L0 alignment", spec(kTile + "  - {cube_tile: {m: [24, 48], k: [16, 64], n: [16, 32]}}\n" + kWrite),
       "[24, 48]", "cube_tile m: the L0 tile 24 must be a multiple of 16 (one cube fractal)", "use 16 or 32"},
      {"cube m L0 above L1", spec(kTile + "  - {cube_tile: {m: [32, 16], k: [16, 64], n: [16, 32]}}\n" + kWrite),
       "[32, 16]", "cube_tile m: the L0 tile 32 is larger than the L1 tile 16", "L0 <= L1"},
      {"cube n L1 not a multiple", spec(kTile + "  - {cube_tile: {m: [16, 32], k: [16, 64], n: [32, 48]}}\n" + kWrite),
       "[32, 48]", "cube_tile n: the L1 tile 48 must be a multiple of the L0 tile 32", "use 32 or 64"},
      {"cube unknown key", spec(kTile + "  - {cube_tile: {m: [16, 32], k: [16, 64], n: [16, 32], splitk: true}}\n" + kWrite),
       "splitk", "unknown key 'splitk' in cube_tile", "did you mean 'split_k'?"},
      {"unknown statement", spec("  - {vec_tiel: [16, 64]}\n" + kWrite), "vec_tiel", "unknown statement 'vec_tiel'",
       "did you mean 'vec_tile'?"},
      // --- statement syntax (columns inside the string)
      {"dangling operator", spec(kTile + "  - \"t = x +\"\n" + kWrite), "x +@\"", "expected an expression, found end of statement", ""},
      {"missing =", spec(kTile + "  - \"t x\"\n" + kWrite), "t @x\"", "expected '=' after 't'", ""},
      {"slice step", spec(kTile + "  - \"t = x[0:16:2, :]\"\n" + kWrite), "0:16@:2", "slice steps are not supported", ""},
      {"single-quoted string", spec(kTile + "  - 't = x + q'\n" + kWrite), "x + @q'", "unknown name 'q'", ""},
      {"escaped double quotes", spec(kTile + "  - \"t = x\\t+ qq\"\n" + kWrite), "x\\t+ @qq", "unknown name 'qq'", ""},
      {"matmul operator on a number", spec(kTile + "  - \"t = x @ 7\"\n" + kWrite), "7",
       "'@' multiplies two tensors; '7' is a number", "x * 7"},  // `**` is an operator now (test_python_operators.cpp)
      {"misspelt loop key", spec(kTile + "  - loop: {var: i, cont: 4}\n    body: []\n" + kWrite), "cont:",
       "unknown key 'cont' in loop", "did you mean 'count'?"},
      {"misspelt then", spec(kTile + "  - if: \"H == 64\"\n    than: []\n" + kWrite), "than:",
       "unknown key 'than' in an if statement", "did you mean 'then'?"},
      // --- dim expressions
      {"slash in a dim expression", spec(kTile + "  - \"t = x[0:H / 2, :]\"\n" + kWrite), "H @/ 2",
       "'/' is not integer division", "H // 2"},
      {"float in a dim expression", spec(kTile + "  - \"t = x[0:1.5, :]\"\n" + kWrite), "1.5", "dim expressions are integers", ""},
      {"unknown dim function", spec(kTile + "  - \"t = x[0:ceil_divide(H, 2), :]\"\n" + kWrite), "ceil_divide",
       "'ceil_divide' is not a dim function", "did you mean 'ceil_div'?"},
      // --- names and calls
      {"unknown function", spec(kTile + "  - \"t = expp(x)\"\n" + kWrite), "expp", "unknown function 'expp'",
       "did you mean 'exp'?"},
      // PyPTO's catalogue: unsupported ops say so; suggestions only when spelling and meaning are close
      {"PyPTO op not supported", spec(kTile + "  - \"t = quant_mx(x)\"\n" + kWrite), "quant_mx",
       "'quant_mx' is a PyPTO operation that ptoc does not support yet", "docs/OPERATIONS.md"},
      {"sort is not sqrt", spec(kTile + "  - \"t = sort(x)\"\n" + kWrite), "sort",
       "'sort' is not an operation of ptoc or PyPTO", "PyPTO sorts with argsort and topk"},
      {"argmax misspelt", spec(kTile + "  - \"t = argmaxx(x, 1)\"\n" + kWrite), "argmaxx", "unknown function 'argmaxx'",
       "did you mean 'argmax'?"},
      {"cummax is not amax", spec(kTile + "  - \"t = cumax(x, 1)\"\n" + kWrite), "cumax", "unknown function 'cumax'", ""},
      {"NumPy spelling", spec(kTile + "  - \"t = clamp(x, 0, 1)\"\n" + kWrite), "clamp", "unknown function 'clamp'",
       "did you mean 'clip'? (PyPTO's name)"},
      {"where condition not bool", spec(kTile + "  - \"t = where(x, x, 0)\"\n" + kWrite), "where(@x,",
       "the condition of 'where' must be bool, 'x' is fp32", "x != 0"},
      {"bitwise on float", spec(kTile + "  - \"t = bitwise_and(x, x)\"\n" + kWrite), "bitwise_and",
       "'bitwise_and' takes integer operands (int32, int8, uint8, int16, uint16, uint32, uint64), 'x' is fp32", "insert cast(x, int32)"},
      {"chained comparison", spec(kTile + "  - \"t = where(0 < x < 1, x, 0)\"\n" + kWrite), "x @< 1",
       "chained comparisons are not supported", "logical_and"},
      {"unknown keyword", spec(kTile + "  - \"t = sum(x, 1, keepdims=true)\"\n" + kWrite), "keepdims",
       "unknown argument 'keepdims' to 'sum'", "did you mean 'keepdim'?"},
      {"keepdim not a bool", spec(kTile + "  - \"t = sum(x, 0, keepdim=2)\"\n" + kWrite), "keepdim=@2",
       "'sum' argument keepdim must be true or false, got '2'", ""},
      {"missing argument", spec(kTile + "  - \"t = sum(x)\"\n" + kWrite), "sum(x)", "'sum' is missing its argument 'dim'", ""},
      {"unknown name", spec(kTile + "  - \"t = exp(xx)\"\n" + kWrite), "xx", "unknown name 'xx'", "did you mean 'x'?"},
      {"bind a dim name", spec(kTile + "  - \"H = x * 2\"\n" + kWrite), "H = x", "cannot bind value 'H': it names a dim",
       ""},
      {"bind an output name", spec(kTile + "  - \"y = x * 2\"\n" + kWrite), "y = x", "cannot bind value 'y': it names an output tensor",
       "y[...] = VALUE"},
      // (`t = 2.5 * 3` is a float constant now: elaborate_const_binding.cpp)
      {"scalar statement", spec(kTile + "  - \"t = exp(2.5)\"\n" + kWrite), "exp(2.5)", "is a scalar", "full("},
      // --- dtypes
      {"implicit promotion", spec(kTile + "  - \"t = x + h\"\n" + kWrite), "x @+ h", "operands of '+' have different dtypes: fp32 and fp16",
       "insert cast(h, fp32)"},
      {"exp of int", spec(kTile + "  - \"t = exp(n)\"\n" + kWrite), "exp(n)", "'exp' needs a floating-point operand",
       "insert cast(n, fp32)"},
      {"float literal with int tensor", spec(kTile + "  - \"t = n * 1.5\"\n" + kWrite), "1.5", "the literal 1.5 is not an integer", ""},
      {"assemble dtype", spec(kTile + "  - \"y[0:16, :] = h[0:16, :]\"\n"), "y[0:16, :] @= h", "assembling a fp16 value into fp32 tensor 'y'",
       "insert cast(h[0:16, :], fp32)"},
      // --- shapes
      {"broadcast mismatch", spec(kTile + "  - \"t = h * w\"\n" + kWrite), "h @* w", "shapes [B, 64] and [64, 32] of '*' do not broadcast",
       ""},
      {"negative start on a dynamic axis", spec(kTile + "  - \"t = x[-16:, :]\"\n" + kWrite), "-16:",
       "negative slice start -16 on axis 0 of extent B", "write 'B - 16'"},
      {"negative start before the first element", spec(kTile + "  - \"t = x[0:16, -65:]\"\n" + kWrite), "-65:",
       "negative slice start -65 on axis 1 of extent 64", ""},
      {"slice past the end", spec(kTile + "  - \"t = x[:, 0:128]\"\n" + kWrite), "0:128", "goes past the end of axis 1 (size 64)", ""},
      {"reduction axis", spec(kTile + "  - \"t = amax(x, 2)\"\n" + kWrite), "2)", "dim 2 is out of range for a rank-2 value", ""},
      {"reshape count", spec(kTile + "  - \"t = reshape(x[0:16, :], [16, 63])\"\n" + kWrite), "reshape", "reshape changes the element count",
       ""},
      {"matmul inner dim", spec(kTile + "  - {cube_tile: {m: [16, 32], k: [16, 64], n: [16, 32]}}\n  - \"t = matmul(w, h[0:16, :])\"\n" + kWrite),
       "matmul", "matmul inner dimensions differ: 32", ""},
      {"transpose axis", spec(kTile + "  - \"t = transpose(x, 0, 5)\"\n" + kWrite), "5)", "d1 5 is out of range", ""},
      {"full with a tensor", spec(kTile + "  - \"t = full([4, 64], x, fp32)\"\n" + kWrite), "x, fp32", "full takes a scalar value", ""},
      {"floor division of tensors", spec(kTile + "  - \"t = x // 2\"\n" + kWrite), "x @// 2", "'//' is for dim expressions", ""},
      {"concat dtype", spec(kTile + "  - \"t = concat([x, h], 0)\"\n" + kWrite), "h], 0", "concat operands have different dtypes",
       "insert cast(h, fp32)"},
      // --- tile state
      {"no vec_tile", spec(kWrite), "x[0:16, :] @* 2", "no vec_tile in force for 'mul'", "vec_tile"},
      {"vec_tile rank", spec("  - {vec_tile: [16]}\n" + kWrite), "x[0:16, :] @* 2", "has rank 1 but 'mul' produces a rank-2 value", ""},
      {"no cube_tile", spec(kTile + "  - \"t = matmul(h[0:16, :], w)\"\n" + kWrite), "matmul", "no cube_tile in force for 'matmul'",
       "cube_tile"},
      // --- assembling
      {"assemble into input", spec(kTile + "  - \"x[0:16, :] = x[0:16, :] * 2\"\n" + kWrite), "x[0:16, :] = x[0:16, :] * 2\"", "cannot assemble into input 'x'",
       "output"},
      {"output never written", spec(kTile + "  - \"t = x * 2\"\n"), "y: {", "output 'y' is never written", "y[...] = VALUE"},
      // --- loops
      {"static loop over a dynamic dim", spec(kTile + "  - loop: {var: i, count: B, kind: static}\n    body: []\n" + kWrite),
       "B, kind", "a static loop needs a static trip count", "kind: dynamic"},
      {"unroll not innermost",
       spec(kTile + "  - loop: {var: i, count: B, unroll: [4]}\n    body:\n      - loop: {var: j, count: 2}\n        body: []\n" + kWrite),
       "unroll: [4]", "only the innermost loop may carry unroll", ""},
      {"factor without unroll", spec(kTile + "  - loop: {var: i, count: B, factor: k}\n    body: []\n" + kWrite), "k}",
       "'factor' names the unroll factor but the loop has no 'unroll' list", ""},
      {"loop kind", spec(kTile + "  - loop: {var: i, count: B, kind: dinamic}\n    body: []\n" + kWrite), "dinamic",
       "loop kind must be dynamic or static", "did you mean 'dynamic'?"},
      {"loop-local names", spec(kTile + "  - loop: {var: i, count: 2, kind: static}\n    body: [\"t = x * 2\"]\n  - \"y[:, :] = t\"\n"),
       "= @t\"", "'t' was bound inside the loop at line 15; names bound in a loop body are local to it",
       "assemble it into a 'tensors:' workspace"},
      {"loop-local name after a dynamic loop",
       spec(kTile + "  - loop: {var: i, count: B}\n    body: [\"a = x[i:i + 1, :] * 2\"]\n  - \"y[0:1, :] = a + 1\"\n"),
       "= @a + 1", "'a' was bound inside the loop at line 15", "tensors:"},
      {"loop variable after its loop",
       spec(kTile + "  - loop: {var: i, count: B}\n    body: []\n  - \"y[i:i + 1, :] = x[0:1, :] * 2\"\n"),
       "y[@i:i", "'i' is the variable of the loop at line 15, which has ended", ""},
      {"parenthesised condition with a dynamic dim", spec(kTile + "  - if: \"(H < 32) or B == 64\"\n    then: []\n" + kWrite),
       "or @B ==", "'B' is a dynamic dim; this must be static", "if condition"},
      {"comparison used as a number", spec(kTile + "  - if: \"(H < 32) + 1\"\n    then: []\n" + kWrite),
       "(@H < 32) + 1", "'H < 32' is a condition; it cannot be used as a number", ""},
      {"loop range and count", spec(kTile + "  - loop: {var: i, range: [0, 4], count: 4}\n    body: []\n" + kWrite), "count: 4",
       "either 'range' or 'count'", ""},
      // --- if, scope, label, cache policy
      {"dynamic if", spec(kTile + "  - if: \"B > 4\"\n    then: []\n" + kWrite), "B > 4", "'B' is a dynamic dim; this must be static",
       "if condition"},
      {"scope id range", spec(kTile + "  - scope: -2\n    body: []\n" + kWrite), "-2", "scope id must be an integer in -1..2147483647",
       ""},
      {"label like a func key", spec(kTile + "  - {label: func3_1}\n" + kWrite), "func3_1", "looks like a function key", ""},
      {"cache_policy tensor", spec(kTile + "  - {cache_policy: {tensor: xx, l2: bypass}}\n" + kWrite), "xx,",
       "cache_policy: unknown tensor 'xx'", "did you mean 'x'?"},
      {"cache_policy l2", spec(kTile + "  - {cache_policy: {tensor: x, l2: bypas}}\n" + kWrite), "bypas}",
       "cache_policy l2 must be normal or bypass", "did you mean 'bypass'?"},
      // --- options
      {"unknown option group", spec(kTile + kWrite, "options:\n  runtim: {}\n"), "runtim", "unknown key 'runtim' in options",
       "did you mean 'runtime'?"},
      {"unknown option key", spec(kTile + kWrite, "options:\n  runtime: {stitch_max: 4}\n"), "stitch_max",
       "unknown key 'stitch_max' in options.runtime", ""},
      {"stitch range", spec(kTile + kWrite, "options:\n  runtime: {stitch_function_max_num: 0}\n"), "0}",
       "runtime.stitch_function_max_num: 0 is out of range; allowed: 1..1024", ""},
      {"debug mode range", spec(kTile + kWrite, "options:\n  debug: {runtime_debug_mode: 5}\n"), "5}",
       "debug.runtime_debug_mode: 5 is out of range; allowed: 0..4", ""},
      {"pmu trace type", spec(kTile + kWrite, "options:\n  codegen: {enable_pmu_trace: 3}\n"), "3}",
       "codegen.enable_pmu_trace: expected true or false", ""},
      {"count pair outside l1 reuse", spec(kTile + kWrite, "options:\n  pass: {vec_nbuffer_setting: {DEFAULT: [2, left]}}\n"),
       "[2, left]", "pass.vec_nbuffer_setting: expected a count", "only cube_l1_reuse_setting takes [count, side]"},
      {"l1 reuse side", spec(kTile + kWrite, "options:\n  pass: {cube_l1_reuse_setting: {MM1: [2, up]}}\n"), "up]",
       "side must be left, right or auto", ""},
      {"setting key", spec(kTile + kWrite, "options:\n  pass: {cube_nbuffer_setting: {\"a-b\": 2}}\n"), "\"a-b\"",
       "pass.cube_nbuffer_setting: invalid key 'a-b'", "func{magic}_{order}"},
  };
}

}  // namespace

TEST_CASE("malformed specs fail with a located, worded error", "[frontend][errors]") {
  auto all = cases();
  REQUIRE(all.size() >= 40);
  for (const auto& c : all) {
    SECTION(c.what) {
      INFO(c.yaml);
      auto r = run(c.yaml);
      INFO(r.rendered);
      CHECK_FALSE(r.prog.has_value());
      ptoc::SrcLoc want = find_pos(c.yaml, c.needle);
      bool found = false;
      for (const auto& d : r.diags) {
        if (d.severity != ptoc::Diagnostic::Severity::Error) continue;
        if (d.message.find(c.message) == std::string::npos) continue;
        CHECK(d.loc.line == want.line);
        CHECK(d.loc.col == want.col);
        if (!c.hint.empty()) CHECK_THAT(d.hint, Catch::Contains(c.hint));
        found = true;
        break;
      }
      CHECK(found);
      // The same spec through `ptoc check`: exit status 1, clang-style first line.
      std::string err;
      CHECK(fe_test::check_status(c.yaml, &err) == ptoc::driver::kSpecError);
      CHECK_THAT(err, Catch::Contains(": error: "));
      CHECK_THAT(err, Catch::Contains(c.message));
    }
  }
}

TEST_CASE("diagnostics render clang-style with the source line and a caret", "[frontend][errors]") {
  std::string y = spec("  - {vec_tile: [16, 64]}\n  - \"t = x + h\"\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n");
  auto r = run(y);
  ptoc::SrcLoc at = find_pos(y, "x @+ h");
  std::string head = "spec.yaml:" + std::to_string(at.line) + ":" + std::to_string(at.col) +
                     ": error: operands of '+' have different dtypes: fp32 and fp16 (no implicit promotion)\n"
                     "  - \"t = x + h\"\n"
                     "           ^\n"
                     "hint: insert cast(h, fp32)\n";
  CHECK(r.rendered == head);
}

TEST_CASE("a misspelt key is reported once, not also as a missing key", "[frontend][errors]") {
  for (const std::string& stmt : {std::string("  - loop: {var: i, cont: 4}\n    body: []\n"),
                                  std::string("  - if: \"H == 64\"\n    than: []\n")}) {
    auto r = run(spec("  - {vec_tile: [16, 64]}\n" + stmt + "  - \"y[0:16, :] = x[0:16, :] * 2\"\n"));
    INFO(r.rendered);
    CHECK(r.errors == 1);
    CHECK_THAT(r.rendered, Catch::Contains("did you mean"));
  }
}

TEST_CASE("an invalid tile statement is reported once, not again by every op it would tile", "[frontend][errors]") {
  // The ops after a broken vec_tile / cube_tile would otherwise each add "no ... tile in force".
  auto r = run(spec("  - {vec_tile: [16, 0]}\n  - \"t = x[0:16, :] * 2\"\n  - \"y[0:16, :] = t + 1\"\n"));
  INFO(r.rendered);
  CHECK(r.errors == 1);
  CHECK_THAT(r.rendered, Catch::Contains("vec_tile entries must be positive integers"));
  CHECK_THAT(r.rendered, !Catch::Contains("no vec_tile in force"));
  auto c = run(spec("  - {vec_tile: [16, 64]}\n  - {cube_tile: {m: [16, 16], k: [8, 64], n: [16, 64]}}\n"
                    "  - \"t = matmul(h[0:16, :], w)\"\n"
                    "  - \"y[0:16, :] = t\"\n"));
  INFO(c.rendered);
  CHECK(c.errors == 1);
  CHECK_THAT(c.rendered, Catch::Contains("must be a multiple of 16"));
  CHECK_THAT(c.rendered, !Catch::Contains("no cube_tile in force"));
  // A valid tile after the broken one is in force again.
  auto v = run(spec("  - {vec_tile: [0]}\n  - {vec_tile: [16]}\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n"));
  INFO(v.rendered);
  CHECK(v.errors == 2);
  CHECK_THAT(v.rendered, Catch::Contains("has rank 1 but 'mul' produces a rank-2 value"));
}

TEST_CASE("an assemble stop that disagrees with the value warns; only the start places the value", "[frontend][errors]") {
  // spec-language section 4: the value is assembled at the slices' start offsets (pypto.assemble); the
  // project README: a stop, when given, does not change what is written. A mismatch is likely a slip: warn.
  auto r = run(spec(kTile + "  - \"y[0:8, :] = x[0:16, :] * 2\"\n"));
  INFO(r.rendered);
  CHECK(r.errors == 0);
  CHECK(r.prog.has_value());
  CHECK_THAT(r.rendered, Catch::Contains("warning: the target region of 'y' has 8 on axis 0 but the value has 16"));
  // Past the end of a static axis it is still an error.
  auto p = run(spec(kTile + "  - \"y[0:8, 32:48] = x[0:8, :] * 2\"\n"));
  INFO(p.rendered);
  CHECK(p.errors == 1);
  CHECK_THAT(p.rendered, Catch::Contains("runs past axis 1"));
}

TEST_CASE("diagnostics come out in file order, whichever pass found them", "[frontend][errors]") {
  // Line 15 has a type error (found by the elaborator), line 16 a syntax error
  // (found while reading), line 17 an unknown statement key (reading), line 18
  // an unknown name (elaborator): printed by line, not syntax errors first.
  std::string y = spec("  - {vec_tile: [16, 64]}\n  - \"a = x + h\"\n  - \"b = x +\"\n  - {vec_tiel: [4]}\n"
                       "  - \"c = exp(qq)\"\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n",
                       "options:\n  runtime: {stitch_max: 1}\n");
  auto r = run(y);
  INFO(r.rendered);
  REQUIRE(r.errors == 5);
  std::vector<int> lines;
  for (const auto& d : r.diags)
    if (d.severity == ptoc::Diagnostic::Severity::Error) lines.push_back(d.loc.line);
  CHECK(lines == std::vector<int>{14, 17, 18, 19, 20});
  std::vector<std::string> msgs;
  for (const auto& d : r.diags)
    if (d.severity == ptoc::Diagnostic::Severity::Error) msgs.push_back(d.message);
  REQUIRE(msgs.size() == 5);
  CHECK_THAT(msgs[0], Catch::Contains("unknown key 'stitch_max'"));
  CHECK_THAT(msgs[1], Catch::Contains("different dtypes"));
  CHECK_THAT(msgs[2], Catch::Contains("expected an expression"));
  CHECK_THAT(msgs[3], Catch::Contains("unknown statement 'vec_tiel'"));
  CHECK_THAT(msgs[4], Catch::Contains("unknown name 'qq'"));
  SECTION("same line: by column") {
    std::string z = spec("  - {vec_tile: [16, 64]}\n  - \"a = exp(q1) + exp(q2)\"\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n");
    auto r2 = run(z);
    INFO(r2.rendered);
    REQUIRE(r2.errors == 2);
    for (size_t i = 1; i < r2.diags.size(); ++i) {
      auto a = r2.diags[i - 1].loc, b = r2.diags[i].loc;
      CHECK(std::make_pair(a.line, a.col) <= std::make_pair(b.line, b.col));
    }
  }
  SECTION("command-line errors come first") {
    ptoc::FrontendOptions o;
    o.sets = {"runtime.stitch_function_max_num=0"};
    // The unknown statement is found while reading, before --set is applied.
    auto r3 = run(spec("  - {vec_tiel: [4]}\n  - {vec_tile: [16, 64]}\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n"), o);
    INFO(r3.rendered);
    REQUIRE(r3.errors == 2);
    CHECK(r3.diags[0].origin == "<command line>");
    CHECK(r3.diags[1].loc.line == 14);
  }
}

TEST_CASE("independent errors are all reported, up to 20", "[frontend][errors]") {
  SECTION("three independent errors") {
    std::string y = spec("  - {vec_tile: [16, 64]}\n  - \"a = exp(q1)\"\n  - \"b = x + h\"\n  - \"c = x[0:H / 2, :]\"\n" +
                         std::string("  - \"y[0:16, :] = x[0:16, :] * 2\"\n"));
    auto r = run(y);
    CHECK(r.errors == 3);
    CHECK_THAT(r.rendered, Catch::Contains("3 errors generated."));
  }
  SECTION("a poisoned value does not cascade") {
    std::string y = spec("  - {vec_tile: [16, 64]}\n  - \"a = exp(q1)\"\n  - \"b = a * 2\"\n  - \"c = b + a\"\n" +
                         std::string("  - \"y[0:16, :] = x[0:16, :] * 2\"\n"));
    auto r = run(y);
    CHECK(r.errors == 1);
  }
  SECTION("a binding with a syntax error does not make its name unknown later") {
    std::string y = spec("  - {vec_tile: [16, 64]}\n  - \"f = full([16, 64], 1 fp32)\"\n  - \"g = f * 2\"\n" +
                         std::string("  - \"y[0:16, :] = x[0:16, :] * 2 + g\"\n"));
    auto r = run(y);
    INFO(r.rendered);
    CHECK(r.errors == 1);
    CHECK_THAT(r.rendered, !Catch::Contains("unknown name"));
  }
  SECTION("names bound under a broken if condition are not unknown later") {
    std::string y = spec("  - {vec_tile: [16, 64]}\n  - if: \"H <\"\n    then: [\"a = x[0:16, :] * 2\"]\n"
                         "    else: [{scope: 1, body: [\"b = x[0:16, :] * 3\"]}]\n" +
                         std::string("  - \"y[0:16, :] = a + b\"\n"));
    auto r = run(y);
    INFO(r.rendered);
    CHECK(r.errors == 1);
    CHECK_THAT(r.rendered, Catch::Contains("expected an expression, found end of statement"));
  }
  SECTION("an error repeated by every unroll gear is reported once") {
    std::string y = spec("  - {vec_tile: [16, 64]}\n  - loop: {var: b, count: 4, unroll: [4, 2]}\n    body:\n"
                         "      - \"t = x[b:b + 1, :] + h[b:b + 1, :]\"\n" +
                         std::string("  - \"y[0:16, :] = x[0:16, :] * 2\"\n"));
    auto r = run(y);
    CHECK(r.errors == 1);
  }
  SECTION("stops after 20") {
    std::string body = "  - {vec_tile: [16, 64]}\n";
    for (int i = 0; i < 30; ++i) body += "  - \"a" + std::to_string(i) + " = exp(zz" + std::to_string(i) + ")\"\n";
    auto r = run(spec(body));
    CHECK(r.errors == 20);
    CHECK_THAT(r.rendered, Catch::Contains("20 errors generated. (stopped after 20)"));
  }
}

TEST_CASE("--set and --target errors are located on the command line", "[frontend][errors][options]") {
  std::string y = spec("  - {vec_tile: [16, 64]}\n  - \"y[0:16, :] = x[0:16, :] * 2\"\n");
  struct SetCase {
    std::string item, message, hint;
  };
  std::vector<SetCase> sets = {
      {"runtime.stitch_function_max_num=0", "runtime.stitch_function_max_num: 0 is out of range; allowed: 1..1024", ""},
      {"runtime.stich_function_max_num=4", "unknown key 'stich_function_max_num' in options.runtime",
       "did you mean 'stitch_function_max_num'?"},
      {"runtme.device_sched_mode=1", "unknown option group 'runtme'", "did you mean 'runtime'?"},
      {"pass.vec_nbuffer_setting={DEFAULT: [2, left]}", "pass.vec_nbuffer_setting: expected a count", ""},
      {"codegen.enable_pmu_trace=maybe", "codegen.enable_pmu_trace: expected true or false", ""},
      {"stitch_function_max_num=4", "expected GROUP.KEY=VALUE", ""},
      {"pass.vec_nbuffer_setting.DEFAULT=lots", "pass.vec_nbuffer_setting.DEFAULT: expected", ""},
      {"runtime.device_sched_mode.DEFAULT=1", "options.runtime.device_sched_mode is not a map",
       "write --set runtime.device_sched_mode=VALUE"},
  };
  for (const auto& s : sets) {
    SECTION(s.item) {
      ptoc::FrontendOptions o;
      o.sets = {s.item};
      auto r = run(y, o);
      INFO(r.rendered);
      CHECK_FALSE(r.prog);
      REQUIRE(r.errors == 1);
      CHECK(r.diags[0].origin == "<command line>");
      CHECK_THAT(r.diags[0].message, Catch::Contains(s.message));
      if (!s.hint.empty()) CHECK_THAT(r.diags[0].hint, Catch::Contains(s.hint));
      CHECK_THAT(r.rendered, Catch::StartsWith("<command line>: error: "));
      CHECK(fe_test::check_status(y, nullptr, {s.item}) == 1);
    }
  }
  SECTION("unknown --target") {
    ptoc::FrontendOptions o;
    o.target = "ascend999";
    auto r = run(y, o);
    REQUIRE(r.errors == 1);
    CHECK(r.diags[0].origin == "<command line>");
    CHECK_THAT(r.diags[0].message, Catch::Contains("unknown target 'ascend999'"));
  }
}

TEST_CASE("a missing file is an error, not a crash", "[frontend][errors]") {
  std::ostringstream err;
  auto p = ptoc::load_spec_file("/nonexistent/spec.yaml", {}, err);
  CHECK_FALSE(p);
  CHECK_THAT(err.str(), Catch::StartsWith("/nonexistent/spec.yaml: error: cannot read file: "));
  ptoc::driver::SpecArgs a;
  a.spec = "/nonexistent/spec.yaml";
  auto* old = std::cerr.rdbuf(err.rdbuf());
  int rc = ptoc::driver::check(a);
  std::cerr.rdbuf(old);
  CHECK(rc == 1);
}
