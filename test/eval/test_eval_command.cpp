// `ptoc eval` end to end (driver::eval) and the evaluator on specs written
// as text and parsed by the real front end: results against values computed
// here, exit statuses and messages for every kind of user mistake.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "cli/ptoc_commands.h"
#include "compiler/frontend/frontend.h"
#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;
namespace fs = std::filesystem;

namespace {

fs::path tmpdir() {
  static fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("ptoc_test_evalcmd_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}
std::string tmp(const std::string& n) { return (tmpdir() / n).string(); }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

// Runs driver::eval with std::cout / std::cerr captured.
struct EvalRun {
  int status = -1;
  std::string out, err;
};
EvalRun ptoc_eval(const std::string& spec, std::vector<std::string> inputs, std::vector<std::string> outputs,
                  std::vector<std::string> dims = {}, uint64_t seed = 0) {
  driver::EvalArgs a;
  a.spec.spec = spec;
  a.inputs = std::move(inputs);
  a.outputs = std::move(outputs);
  a.dims = std::move(dims);
  a.seed = seed;
  std::stringstream o, e;
  auto* ob = std::cout.rdbuf(o.rdbuf());
  auto* eb = std::cerr.rdbuf(e.rdbuf());
  EvalRun r;
  r.status = driver::eval(a);
  std::cout.rdbuf(ob);
  std::cerr.rdbuf(eb);
  r.out = o.str();
  r.err = e.str();
  return r;
}

// Parses spec text with the front end (errors fail the test with the diagnostics).
Program parse(const std::string& text) {
  std::stringstream err;
  auto p = load_spec_text("spec.yaml", text, {}, err);
  INFO(err.str());
  REQUIRE(p);
  return *p;
}

const char* kRowSoftmax = R"YAML(ptoc: 1
name: rowsoftmax
dims:
  B: {dynamic: true, max: 4096}
  N: 16
inputs:
  x: {dtype: fp16, shape: [B, N]}
outputs:
  y: {dtype: fp16, shape: [B, N]}
body:
  - vec_tile: [4, 16]
  - loop: {var: b, count: "ceil_div(B, 8)"}
    body:
      - "xf = cast(x[b * 8:(b + 1) * 8, :], fp32)"
      - "e = exp(xf - amax(xf, -1, keepdim=true))"
      - "y[b * 8:, :] = cast(e / sum(e, -1, keepdim=true), fp16)"
)YAML";

std::vector<double> softmax_ref(const std::vector<double>& x, int64_t rows, int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, x[size_t(r * cols + c)]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[size_t(r * cols + c)] - m);
    for (int64_t c = 0; c < cols; ++c) y[size_t(r * cols + c)] = std::exp(x[size_t(r * cols + c)] - m) / s;
  }
  return y;
}

}  // namespace

TEST_CASE("ptoc eval reads inputs, binds dims from them and writes outputs", "[command]") {
  write_text(tmp("softmax.yaml"), kRowSoftmax);
  const int64_t B = 21, N = 16;  // 2 full blocks of 8 and a tail of 5
  TensorData x = random_tensor(DType::fp16, {B, N}, 3, "x");
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, x.get(i) * 4);
  write_npy(tmp("x.npy"), x);
  auto r = ptoc_eval(tmp("softmax.yaml"), {"x=" + tmp("x.npy")}, {"y=" + tmp("y.npy")});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == "y: fp16 [21, 16] -> " + tmp("y.npy") + "\n");
  CHECK(r.err.empty());
  TensorData y = read_npy_as(tmp("y.npy"), DType::fp16, "y");
  REQUIRE(y.shape == std::vector<int64_t>{B, N});
  auto want = softmax_ref(values_of(x), B, N);
  for (int64_t i = 0; i < y.numel(); ++i) CHECK(y.get(i) == Approx(want[size_t(i)]).epsilon(2e-3).margin(1e-4));
}

TEST_CASE("ptoc eval fills missing inputs from the seed, deterministically", "[command]") {
  write_text(tmp("softmax.yaml"), kRowSoftmax);
  auto a = ptoc_eval(tmp("softmax.yaml"), {}, {"y=" + tmp("ya.npy")}, {"B=9"}, 5);
  auto b = ptoc_eval(tmp("softmax.yaml"), {}, {"y=" + tmp("yb.npy")}, {"B=9"}, 5);
  auto c = ptoc_eval(tmp("softmax.yaml"), {}, {"y=" + tmp("yc.npy")}, {"B=9"}, 6);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  REQUIRE(c.status == 0);
  CHECK_THAT(a.err, Catch::Contains("note: input x not given; filled with seeded random values (seed 5, fp16 [9, 16])"));
  auto ya = read_npy_as(tmp("ya.npy"), DType::fp16, "y"), yb = read_npy_as(tmp("yb.npy"), DType::fp16, "y"),
       yc = read_npy_as(tmp("yc.npy"), DType::fp16, "y");
  CHECK(ya.bytes == yb.bytes);
  CHECK(ya.bytes != yc.bytes);
  // The generated input is the one random_tensor documents: check the result against it.
  auto want = softmax_ref(values_of(random_tensor(DType::fp16, {9, 16}, 5, "x")), 9, 16);
  for (int64_t i = 0; i < ya.numel(); ++i) CHECK(ya.get(i) == Approx(want[size_t(i)]).epsilon(2e-3).margin(1e-4));
}

TEST_CASE("ptoc eval usage errors exit 2 and say what is valid", "[command]") {
  write_text(tmp("softmax.yaml"), kRowSoftmax);
  const std::string spec = tmp("softmax.yaml");
  auto r = ptoc_eval(spec, {}, {"z=" + tmp("z.npy")}, {"B=4"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--output z=") && Catch::Contains("'z' is not an output of rowsoftmax (outputs: y)"));
  r = ptoc_eval(spec, {"q=" + tmp("q.npy")}, {}, {"B=4"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("'q' is not an input of rowsoftmax (inputs: x)"));
  r = ptoc_eval(spec, {"x"}, {});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--input 'x': expected NAME=VALUE"));
  r = ptoc_eval(spec, {}, {"y"});
  CHECK(r.status == 2);
  r = ptoc_eval(spec, {}, {}, {"B=four"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--dim B=four: the value must be an integer"));
  r = ptoc_eval(spec, {}, {}, {"C=4"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("the spec has no dim 'C' (dims: B, N)"));
}

TEST_CASE("ptoc eval: bad arrays and bindings exit 1 with a clear message", "[command]") {
  write_text(tmp("softmax.yaml"), kRowSoftmax);
  const std::string spec = tmp("softmax.yaml");
  write_npy(tmp("x_i32.npy"), TensorData::zeros(DType::int32, {4, 16}));
  auto r = ptoc_eval(spec, {"x=" + tmp("x_i32.npy")}, {});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("input 'x'") && Catch::Contains("wrong dtype") && Catch::Contains("int32"));
  write_npy(tmp("x_bad.npy"), TensorData::zeros(DType::fp16, {4, 15}));
  r = ptoc_eval(spec, {"x=" + tmp("x_bad.npy")}, {});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("input x axis 1 has 15") && Catch::Contains("N = 16"));
  write_npy(tmp("x_big.npy"), TensorData::zeros(DType::fp16, {5000, 16}));
  r = ptoc_eval(spec, {"x=" + tmp("x_big.npy")}, {});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("dim B = 5000 (from input x axis 0) exceeds its declared max 4096"));
  r = ptoc_eval(spec, {}, {});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("dim B is dynamic and no input binds it") && Catch::Contains("--dim B="));
  r = ptoc_eval(spec, {"x=" + tmp("does_not_exist.npy")}, {});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("cannot open file"));
  write_npy(tmp("x_ok.npy"), TensorData::zeros(DType::fp16, {4, 16}));
  r = ptoc_eval(spec, {"x=" + tmp("x_ok.npy")}, {}, {"B=5"});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("dim B: --dim B=5 but input x axis 0 has 4"));
}

TEST_CASE("ptoc eval: a spec error exits 1 with the front end's diagnostic", "[command]") {
  std::string bad = kRowSoftmax;
  bad.replace(bad.find("exp(xf"), 3, "exq");
  write_text(tmp("bad.yaml"), bad);
  auto r = ptoc_eval(tmp("bad.yaml"), {}, {}, {"B=4"});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("bad.yaml:15:14: error: unknown function 'exq'"));
  r = ptoc_eval(tmp("no_such_spec.yaml"), {}, {});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("cannot read file"));
}

TEST_CASE("spec text: unroll gears with per-gear tiles, slices with tails, scalar literals", "[command][spec]") {
  Program p = parse(R"YAML(ptoc: 1
name: gears
dims:
  T: dynamic
  H: 8
inputs:
  x: {dtype: fp32, shape: [T, H]}
  bias: {dtype: fp32, shape: [H]}
outputs:
  y: {dtype: fp32, shape: [T, H]}
body:
  - loop: {var: b, count: "ceil_div(T, 2)", unroll: [4, 2], factor: k}
    body:
      - if: "k >= 4"
        then: [{vec_tile: [8, 8]}]
        else: [{vec_tile: [2, 8]}]
      - "t = x[b * 2:(b + k) * 2, :] + bias"
      - "y[b * 2:, :] = 2 - relu(t) / 4"
)YAML");
  for (int64_t T : {1, 7, 8, 13}) {
    TensorData x = random_tensor(DType::fp32, {T, 8}, 1, "x"), bias = random_tensor(DType::fp32, {8}, 1, "bias");
    auto y = values_of(run(p, {{"x", x}, {"bias", bias}}).at("y"));
    INFO("T = " << T);
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < 8; ++j) {
        float t = float(x.get(i * 8 + j)) + float(bias.get(j));
        float want = 2.0f - std::max(t, 0.0f) / 4.0f;
        CHECK(y[size_t(i * 8 + j)] == double(want));
      }
  }
}

TEST_CASE("spec text: matmul with trans_b and out_dtype, concat, full, transpose", "[command][spec]") {
  Program p = parse(R"YAML(ptoc: 1
name: mix
dims:
  M: 4
  K: 16
  N: 8
inputs:
  a: {dtype: fp16, shape: [M, K]}
  w: {dtype: fp16, shape: [N, K]}
outputs:
  c: {dtype: fp16, shape: [M, N]}
  j: {dtype: fp32, shape: [M, 12]}
  t: {dtype: fp16, shape: [K, M]}
body:
  - cube_tile: {m: [16, 16], k: [16, 16], n: [16, 16]}
  - "c[:, :] = matmul(a, w, out_dtype=fp16, trans_b=true)"
  - vec_tile: [4, 16]
  - "j[:, :] = concat([cast(a[:, 0:8], fp32), full([4, 4], 1.5, fp32)], 1)"
  - vec_tile: [16, 4]
  - "t[:, :] = transpose(a, 0, 1)"
)YAML");
  TensorData a = random_tensor(DType::fp16, {4, 16}, 2, "a"), w = random_tensor(DType::fp16, {8, 16}, 2, "w");
  auto out = run(p, {{"a", a}, {"w", w}});
  auto c = values_of(out.at("c"));
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 8; ++n) {
      float s = 0;
      for (int k = 0; k < 16; ++k) s += float(a.get(m * 16 + k)) * float(w.get(n * 16 + k));
      CHECK(c[size_t(m * 8 + n)] == round_to_dtype(s, DType::fp16));
    }
  auto jv = values_of(out.at("j"));
  for (int m = 0; m < 4; ++m)
    for (int q = 0; q < 12; ++q) CHECK(jv[size_t(m * 12 + q)] == (q < 8 ? a.get(m * 16 + q) : 1.5));
  auto tv = values_of(out.at("t"));
  for (int k = 0; k < 16; ++k)
    for (int m = 0; m < 4; ++m) CHECK(tv[size_t(k * 4 + m)] == a.get(m * 16 + k));
}

TEST_CASE("spec text: an explicit view valid= and a reduction over the valid part", "[command][spec]") {
  Program p = parse(R"YAML(ptoc: 1
name: tailsum
dims:
  B: dynamic
  N: 6
inputs:
  x: {dtype: int32, shape: [B, N]}
outputs:
  s: {dtype: int32, shape: [B, 1]}
  m: {dtype: int32, shape: [B, 1]}
body:
  - vec_tile: [4, 6]
  - loop: {var: i, count: "ceil_div(B, 4)"}
    body:
      - "v = view(x, [4, 6], [i * 4, 0], valid=[min(4, B - i * 4), 5])"
      - "s[i * 4:, :] = sum(v, 1, keepdim=true)"
      - "m[i * 4:, :] = amax(v, 1, keepdim=true)"
)YAML");
  const int64_t B = 6;
  std::vector<double> xs;
  for (int i = 0; i < B * 6; ++i) xs.push_back(i % 2 ? -i : i);
  auto out = run(p, {{"x", tensor_of(DType::int32, {B, 6}, xs)}});
  auto s = values_of(out.at("s")), m = values_of(out.at("m"));
  for (int64_t r = 0; r < B; ++r) {
    int64_t sum = 0, mx = INT64_MIN;
    for (int c = 0; c < 5; ++c) {  // column 5 is outside valid=
      sum += int64_t(xs[size_t(r * 6 + c)]);
      mx = std::max(mx, int64_t(xs[size_t(r * 6 + c)]));
    }
    CHECK(s[size_t(r)] == double(sum));
    CHECK(m[size_t(r)] == double(mx));
  }
}
