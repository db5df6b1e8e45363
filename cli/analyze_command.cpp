// `ptorun analyze FILE.json|DIR`
#include <filesystem>
#include <fstream>
#include <iostream>

#include "runtime/profiling/perf_analyze.h"
#include "cli/ptorun_commands.h"

namespace ptoc::runtime {

int analyze(const std::string& path) {
  namespace fs = std::filesystem;
  try {
    std::string file = fs::is_directory(path) ? profiling::find_newest_perf_file(path) : path;
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
    std::cerr << "ptorun analyze: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ptoc::runtime
