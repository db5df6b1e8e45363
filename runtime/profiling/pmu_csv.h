// tilefwk_prof_pmu.csv: writing (as PyPTO's tilefwk_pmu_to_csv.py does with pandas)
// and printing it as a grid table (`ptorun pmu-csv`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptoc::profiling {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::string format_csv(const CsvTable& t);
// One line of it: the cells, quoted where needed, then "\n".
std::string format_csv_line(const std::vector<std::string>& cells);
// Throws std::runtime_error naming the file and line on malformed input.
CsvTable parse_csv(const std::string& text, const std::string& file_for_errors);
// tabulate's "grid" format with a row index column, numbers right-aligned.
std::string render_grid(const CsvTable& t);

}  // namespace ptoc::profiling
