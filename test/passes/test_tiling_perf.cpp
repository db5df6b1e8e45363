// Scale checks (hidden: run with `test_tiling "[.perf]"`): the largest library
// GEMM tiles in reasonable time.
#include <chrono>
#include <iostream>

#include "test/passes/tiling_test_util.h"

using namespace ptoc;
using namespace ptoc::test;

TEST_CASE("GEMM 6144^3 tiles", "[.perf]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {6144, 6144});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {6144, 6144});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {6144, 6144});
  b.set_cube(128, 64, 256, 256);
  int m = b.matmul(b.ref(a), b.ref(w));
  b.assemble(m, c, {0, 0});
  auto t0 = std::chrono::steady_clock::now();
  auto t = tile(b.finish());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(t.ok);
  std::cout << "GEMM 6144^3: " << t.roots[0].ops.size() << " tile ops, " << t.roots[0].subgraphs.size()
            << " subgraphs, " << ms << " ms (expand " << t.stats.ms_expand << ", partition " << t.stats.ms_partition
            << ", breadth " << t.stats.ms_breadth << ", edges " << t.stats.ms_edges << ")\n";
}

TEST_CASE("wide vector graph tiles", "[.perf]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {65536, 1024});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {65536, 1024});
  b.set_vec({32, 1024});
  int e = b.unary(OpKind::Exp, b.ref(x));
  int s = b.reduce(OpKind::Sum, e, 1, true);
  int d = b.binary(OpKind::Div, e, s);
  b.assemble(d, y, {0, 0});
  auto t0 = std::chrono::steady_clock::now();
  auto t = tile(b.finish());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(t.ok);
  std::cout << "softmax 65536x1024: " << t.roots[0].ops.size() << " tile ops, " << t.roots[0].subgraphs.size()
            << " subgraphs, " << ms << " ms (expand " << t.stats.ms_expand << ", partition " << t.stats.ms_partition
            << ", breadth " << t.stats.ms_breadth << ", edges " << t.stats.ms_edges << ")\n";
}
