// The per-run artifact folder, named as PyPTO names it:
// <base>/output_<YYYYmmdd_HHMMSS>_<usec6>_<pid>_<hostname>/ (base: --output-dir,
// else $TILE_FWK_OUTPUT_DIR, else "output").
// A run is complete or marked incomplete: artifacts are written into
// <name>.partial/, renamed to <name>/ once the last file is written. A folder
// still called *.partial is a run that was interrupted (or failed) while
// writing, and the readers of run folders (analyze) skip it.
#pragma once
#include <string>

namespace ptoc::profiling {

inline constexpr const char* kPartialSuffix = ".partial";

std::string resolve_output_base(const std::string& cli_output_dir);
// Creates <base>/<name>.partial (and base); returns its path. Throws
// std::runtime_error naming the path on failure (base is a file, no permission).
std::string create_run_folder(const std::string& base);
// Renames the .partial folder to its final name; returns the final path.
std::string finish_run_folder(const std::string& partial_folder);
// True when `path` (or a folder above it) is an incomplete run (*.partial).
bool is_partial_run(const std::string& path);

}  // namespace ptoc::profiling
