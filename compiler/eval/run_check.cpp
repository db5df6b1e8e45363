#include "compiler/eval/run_check.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "compiler/eval/eval_elem.h"
#include "compiler/eval/eval_tensor_io.h"
#include "compiler/eval/reference_eval.h"
#include "compiler/frontend/frontend.h"

namespace ptoc {

namespace {

// --check tolerance, per output element (floats):
//   |got - ref| <= rtol * |ref| + atol,   atol = rtol * mean(|ref|) over the output
// with rtol = 1e-4 (fp32), 1e-2 (fp16), 4e-2 (bf16): rounding of one ulp-ish per op in
// low precision, and accumulation-order differences in long sums, which scale with the
// output's magnitude rather than each element's. NaN must match NaN; Inf must match
// exactly. Integer and bool outputs must match exactly.
struct Tolerance {
  double rtol = 0;
  bool exact = false;
};
Tolerance tolerance_for(DType t) {
  switch (t) {
    case DType::fp32: return {1e-4, false};
    case DType::fp16: return {1e-2, false};
    case DType::bf16: return {4e-2, false};
    default: return {0, true};
  }
}

// "[i, j, k]" of a flat index.
std::string index_tuple(const std::vector<int64_t>& shape, int64_t flat) {
  std::string idx;
  for (size_t a = shape.size(); a-- > 0;) {
    idx = std::to_string(flat % shape[a]) + (idx.empty() ? "" : ", ") + idx;
    flat /= shape[a];
  }
  return idx;
}

// Integer and bool outputs: element by element as integers, bit for bit (through double an int64 past 2^53
// would compare equal to its neighbours).
CheckLine compare_exact_int(const std::string& name, const TensorData& got, const TensorData& ref) {
  const int64_t n = ref.numel();
  int64_t bad = 0, first_bad = -1;
  uint64_t worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t g = eval::get_int(got, i), r = eval::get_int(ref, i);
    if (g == r) continue;
    worst = std::max(worst, g > r ? uint64_t(g) - uint64_t(r) : uint64_t(r) - uint64_t(g));
    if (bad++ == 0) first_bad = i;
  }
  if (bad == 0)
    return {name, true, fmt::format("check {:<12} ok    max abs err 0  max rel err 0  ({}, exact)", name,
                                    dtype_name(ref.dtype))};
  return {name, false,
          fmt::format("check {:<12} FAIL  {} of {} elements off; first at [{}]: got {}, expected {}; "
                      "max abs err {}  ({}, exact)",
                      name, bad, n, index_tuple(ref.shape, first_bad), eval::get_int(got, first_bad),
                      eval::get_int(ref, first_bad), worst, dtype_name(ref.dtype))};
}

}  // namespace

CheckLine compare_output(const std::string& name, const TensorData& got, const TensorData& ref) {
  Tolerance tol = tolerance_for(ref.dtype);
  if (got.shape != ref.shape) return {name, false, fmt::format("check {:<12} FAIL: shape differs from the reference", name)};
  if (got.dtype != ref.dtype)
    return {name, false, fmt::format("check {:<12} FAIL: dtype {} differs from the reference's {}", name,
                                     dtype_name(got.dtype), dtype_name(ref.dtype))};
  if (eval::held_as_int(ref.dtype)) return compare_exact_int(name, got, ref);
  const int64_t n = ref.numel();
  double mean_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    double r = ref.get(i);
    if (std::isfinite(r)) mean_abs += std::fabs(r);
  }
  mean_abs = n ? mean_abs / double(n) : 0;
  const double atol = tol.rtol * mean_abs;
  double worst_abs = 0, worst_rel = 0;
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double g = got.get(i), r = ref.get(i);
    bool ok;
    if (std::isnan(r) || std::isnan(g)) {
      ok = std::isnan(r) && std::isnan(g);
    } else if (std::isinf(r) || std::isinf(g)) {
      ok = g == r;
    } else {
      double d = std::fabs(g - r);
      ok = tol.exact ? g == r : d <= tol.rtol * std::fabs(r) + atol;
      worst_abs = std::max(worst_abs, d);
      if (r != 0) worst_rel = std::max(worst_rel, d / std::fabs(r));
      else if (d > 0) worst_rel = std::max(worst_rel, d / std::max(atol, 1e-30));
    }
    if (!ok && bad++ == 0) first_bad = i;
  }
  std::string rule = tol.exact ? "exact" : fmt::format("rtol {:g}, atol {:.3g}", tol.rtol, atol);
  if (bad == 0)
    return {name, true, fmt::format("check {:<12} ok    max abs err {:.3g}  max rel err {:.3g}  ({}, {})", name,
                                    worst_abs, worst_rel, dtype_name(ref.dtype), rule)};
  const std::string idx = index_tuple(ref.shape, first_bad);  // the first bad element by its index tuple
  return {name, false,
          fmt::format("check {:<12} FAIL  {} of {} elements off; first at [{}]: got {:g}, expected {:g}; "
                      "max abs err {:.3g}  max rel err {:.3g}  ({}, {})",
                      name, bad, n, idx, got.get(first_bad), ref.get(first_bad), worst_abs, worst_rel,
                      dtype_name(ref.dtype), rule)};
}


std::vector<CheckLine> check_run(const runtime::Session& s) {
  const CompiledProgram& p = s.program();
  if (p.spec_source.empty())
    throw runtime::BundleError(s.bundle().path + ": the bundle holds no spec text, so --check cannot rebuild the reference; "
                      "recompile it with this ptoc");
  if (s.outputs().empty()) throw runtime::UsageError("--check needs a run with numerics (not --timing-only)");
  FrontendOptions fo;
  fo.sets = p.set_overrides;
  fo.target = p.target;
  std::ostringstream diag;
  auto prog = load_spec_text(p.spec_file.empty() ? p.name + ".yaml" : p.spec_file, p.spec_source, fo, diag);
  if (!prog)
    throw runtime::BundleError("--check: the spec stored in the bundle no longer parses with this ptorun:\n" + diag.str());
  auto ref = evaluate(*prog, s.inputs(), s.dims());
  std::vector<CheckLine> lines;
  for (const auto& [i, got] : s.outputs()) {
    const std::string& name = p.tensors[size_t(i)].name;
    auto it = ref.find(name);
    if (it == ref.end()) {
      lines.push_back({name, false, "check " + name + " FAIL: the reference evaluator produced no such output"});
      continue;
    }
    lines.push_back(compare_output(name, got, it->second));
  }
  return lines;
}

}  // namespace ptoc
