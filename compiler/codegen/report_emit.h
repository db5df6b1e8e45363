// The compile report (`--emit report`): root, leaf, kernel and task counts,
// merges applied, buffer use and estimated cycles per leaf, time per pass.
#pragma once
#include <string>

#include "compiler/pipeline.h"

namespace ptoc {

// `with_times`: append the per-pass times (the only part that varies between runs).
std::string emit_report(const PipelineResult& r, const Platform& plat, bool with_times);
// The --time-passes table alone.
std::string format_pass_times(const std::vector<PassTiming>& t);

}  // namespace ptoc
