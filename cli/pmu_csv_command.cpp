// `ptorun pmu-csv FILE.csv|DIR`
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cli/ptorun_commands.h"
#include "runtime/profiling/csv_reader.h"
#include "runtime/profiling/pmu_csv.h"
#include "runtime/profiling/run_folder.h"

namespace ptoc::runtime {

int pmu_csv(const std::string& path) {
  namespace fs = std::filesystem;
  std::string file = path;
  if (fs::is_directory(path)) {
    // A run folder, or a base folder: the newest tilefwk_prof_pmu.csv below it.
    fs::path best;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      // An interrupted run (output_*.partial, run_folder.h) is skipped, with a note.
      if (it->is_directory() && profiling::is_partial_run(it->path().filename().string())) {
        std::cerr << "ptorun pmu-csv: note: skipping incomplete run " << it->path().string() << "\n";
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && it->path().filename() == "tilefwk_prof_pmu.csv" &&
          (best.empty() || it->last_write_time() > best_time))
        best = it->path(), best_time = it->last_write_time();
    }
    if (best.empty()) {
      std::cerr << "ptorun pmu-csv: error: no tilefwk_prof_pmu.csv below '" << path
                << "' (run ptorun with --pmu-event-type N or PYPTO_PROF_PMU_EVENT_TYPE=N)\n";
      return 1;
    }
    file = best.string();
  }
  // Two passes over the file, one record in memory at a time: the first validates it and sizes the grid's
  // columns, the second prints it (a multi-GB csv is not read into memory).
  try {
    std::vector<std::string> header, row;
    size_t rows = 0;
    std::optional<profiling::GridLayout> grid;
    {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "ptorun pmu-csv: error: cannot open '" << file << "'\n";
        return 1;
      }
      profiling::CsvReader reader(in, file);
      if (!reader.next(header)) throw std::runtime_error(file + ": empty CSV (no header line)");
      grid.emplace(header);
      for (; reader.next(row); ++rows) {
        profiling::check_csv_row(header, row, file, rows + 2);
        grid->add_row(rows, row);
      }
    }
    std::ifstream in(file, std::ios::binary);
    profiling::CsvReader reader(in, file);
    if (!in || !reader.next(row) || row != header)
      throw std::runtime_error(file + ": changed while it was read");
    std::cout << file << ": " << rows << " tasks\n" << grid->top();
    size_t printed = 0;
    for (; printed < rows && reader.next(row); ++printed) {
      profiling::check_csv_row(header, row, file, printed + 2);
      std::cout << grid->row(printed, row);
    }
    if (printed != rows || reader.next(row)) throw std::runtime_error(file + ": changed while it was read");
    std::cout.flush();
    return 0;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "ptorun pmu-csv: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ptoc::runtime
