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
// Absolute path of the running executable (ptoc itself: its built-in platform tables are an input).
std::string running_executable();

}  // namespace ptoc
