// Every spec of the operator library (specs/) evaluates on small inputs, its
// outputs are finite (no padding leaked), and the valid extent of every value
// agrees with the front end's symbolic valid shape, which the tiling passes
// follow. The NumPy conformance of the values is test/specs' job.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "compiler/frontend/frontend.h"
#include "program_builder.h"

using namespace ptoc;
using namespace ptoc::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> library_specs() {
  std::vector<std::string> out;
  fs::path root = fs::path(PTOC_SOURCE_ROOT) / "specs";
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A small binding for dynamic dims that honours max and divisible_by and leaves a tail for tile sizes
// that are powers of two.
int64_t small_value(const DimDecl& d, int64_t want) {
  int64_t v = want;
  if (d.divisible_by > 1) v = d.divisible_by * std::max<int64_t>(1, want / d.divisible_by);
  if (d.max > 0) v = std::min(v, d.max);
  return v;
}

}  // namespace

TEST_CASE("every library spec evaluates on small inputs with consistent valid shapes", "[library]") {
  auto specs = library_specs();
  REQUIRE(specs.size() >= 10);
  int evaluated = 0;
  for (const auto& path : specs) {
    INFO(path);
    std::stringstream err;
    auto p = load_spec_file(path, {}, err);
    INFO(err.str());
    REQUIRE(p);
    for (int64_t want : {37, 3}) {
      std::map<std::string, int64_t> dims;
      for (const auto& d : p->dims)
        if (d.dynamic) dims[d.name] = small_value(d, want);
      DimExpr::Env env = bind_dims(p->dims, p->tensors, {}, dims);
      std::map<std::string, TensorData> inputs;
      double elements = 0;
      for (const auto& t : p->tensors)
        if (t.role == TensorRole::Input) {
          auto s = concrete_shape(t, env);
          elements += std::accumulate(s.begin(), s.end(), 1.0, [](double a, int64_t b) { return a * double(b); });
          inputs.emplace(t.name, random_input(t, s, 1));  // values: [lo, hi] as ptorun and ptoc eval draw them
        }
      // The static giants (a 6144^3 GEMM, 884736-row skinny matmuls) are for the compiler, not this test.
      if (elements > 6e6) {
        WARN("skipped (static shapes too large for a unit test): " << path);
        break;
      }
      INFO("dims bound to about " << want);
      EvalOptions o;
      o.check_valid = true;
      auto out = evaluate(*p, inputs, env, o);
      for (const auto& t : p->tensors) {
        if (t.role != TensorRole::Output) continue;
        REQUIRE(out.count(t.name));
        const TensorData& d = out.at(t.name);
        CHECK(d.shape == concrete_shape(t, env));
        int64_t bad = 0;
        for (int64_t i = 0; i < d.numel(); ++i) bad += std::isfinite(d.get(i)) ? 0 : 1;
        CHECK(bad == 0);
      }
      ++evaluated;
    }
  }
  CHECK(evaluated >= 24);  // most of the library is small enough
}
