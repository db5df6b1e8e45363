// The per-run artifact folder, named as PyPTO names it:
// <base>/output_<YYYYmmdd_HHMMSS>_<usec6>_<pid>_<hostname>/ (base: --output-dir,
// else $TILE_FWK_OUTPUT_DIR, else "output").
#pragma once
#include <string>

namespace ptoc::profiling {

std::string resolve_output_base(const std::string& cli_output_dir);
// Creates the folder (and its base); throws std::runtime_error naming the path on failure.
std::string create_run_folder(const std::string& base);

}  // namespace ptoc::profiling
