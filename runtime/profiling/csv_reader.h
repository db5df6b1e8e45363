// A CSV file read one record at a time (`ptorun pmu-csv` on a multi-GB tilefwk_prof_pmu.csv keeps one row
// in memory, not the file). The same rules as parse_csv: quoted fields with "" escapes, \r ignored,
// blank lines skipped.
#pragma once
#include <istream>
#include <string>
#include <vector>

namespace ptoc::profiling {

class CsvReader {
 public:
  CsvReader(std::istream& in, std::string file_for_errors);
  // The next non-blank record into `cells`; false at the end of the input.
  // Throws std::runtime_error naming the file and line on an unterminated quoted field.
  bool next(std::vector<std::string>& cells);

 private:
  bool fill();
  std::istream& in_;
  std::string file_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  int line_no_ = 1;
};

}  // namespace ptoc::profiling
