// The setup the program tests share: a spec file compiled in process (front end and pipeline, the
// spec's own target, default options), or nullopt when it does not compile. explicit_tasks(): the
// options whose roots all hold explicit Tasks (no lazy leaf copies, so no root built compact), to
// compare the compact records with.
#pragma once
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/core/platform.h"

namespace ptoc::test {

inline PipelineOptions explicit_tasks() {
  PipelineOptions o;
  o.lazy_leaf_copies = false;
  return o;
}

inline std::optional<PipelineResult> compile_spec_file(const std::string& spec, const PipelineOptions& opts = {}) {
  std::ifstream in(spec, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  DiagEngine diags(spec, ss.str());
  std::optional<Program> prog = parse_spec(diags, FrontendOptions{});
  if (!prog || diags.has_errors()) return std::nullopt;
  const Platform* plat = find_platform(prog->target);
  if (!plat) return std::nullopt;
  return run_pipeline(std::move(*prog), *plat, diags, opts);
}

}  // namespace ptoc::test
