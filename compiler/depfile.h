// Make-style dependency files (`ptoc -MD -MF op.d`): the bundle depends on the
// spec, on what describes the target platform (the platform tables are built
// into ptoc, so the ptoc executable itself), and on the kernels/ headers the
// host twin was compiled against.
#pragma once
#include <string>
#include <vector>

namespace ptoc {

// "target: dep1 dep2 \\\n  dep3 ..." with spaces, '#' and '$' escaped as Make needs.
std::string format_depfile(const std::string& target, const std::vector<std::string>& deps);
// The dependencies of a bundle built from `spec`: the spec, the running ptoc executable and every
// header under `kernels_dir` (sorted, absolute paths).
std::vector<std::string> bundle_dependencies(const std::string& spec, const std::string& kernels_dir);

}  // namespace ptoc
