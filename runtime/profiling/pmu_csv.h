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
// A record (numbered from 1, the header being 1) must have the header's field count; throws naming file:record.
void check_csv_row(const std::vector<std::string>& header, const std::vector<std::string>& row, const std::string& file,
                   size_t record);

// tabulate's "grid" format with a row index column, numbers right-aligned, built in two passes so that a
// large file is never held whole: add_row() every row (widths, numeric columns), then top() and row() each.
class GridLayout {
 public:
  explicit GridLayout(const std::vector<std::string>& header);
  void add_row(size_t index, const std::vector<std::string>& row);
  std::string top() const;  // the rule, the header line and the '=' rule
  std::string row(size_t index, const std::vector<std::string>& row) const;  // the line and its '-' rule

 private:
  std::string separator(char ch) const;
  std::string line(const std::string& first, const std::vector<std::string>& rest) const;
  std::vector<std::string> header_;
  std::vector<size_t> width_;
  std::vector<bool> numeric_;
};
std::string render_grid(const CsvTable& t);

}  // namespace ptoc::profiling
