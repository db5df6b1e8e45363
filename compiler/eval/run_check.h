// `ptorun --check`: the reference evaluator run on the spec stored in a bundle, with the inputs and
// dims a run used, compared per output with the dtype's tolerance. Lives in the compiler because it
// needs the front end and the evaluator; the runtime knows neither.
#pragma once
#include <string>
#include <vector>

#include "runtime/core/tensor_data.h"
#include "runtime/session.h"

namespace ptoc {

struct CheckLine {
  std::string output;
  bool ok = false;
  std::string text;             // "check y  ok  max abs err ..." or the FAIL line
};

// One output against its reference.
CheckLine compare_output(const std::string& name, const TensorData& got, const TensorData& ref);

// Throws runtime::BundleError (no spec text, spec no longer parses) or runtime::UsageError (no numerics).
std::vector<CheckLine> check_run(const runtime::Session& s);

}  // namespace ptoc
