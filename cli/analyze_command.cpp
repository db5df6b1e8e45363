// `ptorun analyze FILE.json|DIR`
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/ptorun_commands.h"
#include "runtime/profiling/perf_analyze.h"
#include "runtime/profiling/run_folder.h"

namespace ptoc::runtime {

int analyze(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> skipped;
  auto notes = [&] {
    for (const auto& d : skipped) std::cerr << "ptorun analyze: note: skipping incomplete run " << d << "\n";
    skipped.clear();
  };
  try {
    if (profiling::is_partial_run(path)) {
      std::cerr << "ptorun analyze: error: " << path << " is an incomplete run (its folder ends in "
                << profiling::kPartialSuffix << ": the run was interrupted or failed while writing its artifacts)\n"
                << "hint: re-run it, or analyze a complete run folder\n";
      return 1;
    }
    std::string file = fs::is_directory(path) ? profiling::find_newest_perf_file(path, &skipped) : path;
    notes();
    std::ifstream in(file);
    if (!in) {
      std::cerr << "ptorun analyze: error: cannot open '" << file << "'\n";
      return 1;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
      std::cerr << "ptorun analyze: error: " << file << " is not valid JSON (byte " << e.byte
                << "); was the run interrupted? Re-collect with --dump-device-perf\n";
      return 1;
    }
    auto tables = profiling::analyze_perf_json(j, file);
    if (tables.empty()) {
      std::cerr << "ptorun analyze: error: " << file << " holds no round data\n";
      return 1;
    }
    std::cout << "analyzing " << file << "\n" << profiling::render_round_tables(tables);
    return 0;
  } catch (const std::exception& e) {
    notes();
    std::cerr << "ptorun analyze: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ptoc::runtime
