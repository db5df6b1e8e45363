#include "pmu_csv.h"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>
#include <stdexcept>

#include "csv_reader.h"

namespace ptoc::profiling {

static std::string quote_if_needed(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string format_csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + quote_if_needed(cells[i]);
  return out + "\n";
}

std::string format_csv(const CsvTable& t) {
  std::string out = format_csv_line(t.header);
  for (const auto& r : t.rows) out += format_csv_line(r);
  return out;
}

CsvTable parse_csv(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  CsvReader reader(in, file);
  CsvTable t;
  if (!reader.next(t.header)) throw std::runtime_error(file + ": empty CSV (no header line)");
  std::vector<std::string> row;
  for (size_t record = 2; reader.next(row); ++record) {
    check_csv_row(t.header, row, file, record);
    t.rows.push_back(row);
  }
  return t;
}

void check_csv_row(const std::vector<std::string>& header, const std::vector<std::string>& row, const std::string& file,
                   size_t record) {
  if (row.size() != header.size())
    throw std::runtime_error(fmt::format("{}:{}: {} fields, the header has {}", file, record, row.size(), header.size()));
}

static bool numeric(const std::string& s) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-') ? 1 : 0;
  bool digit = false;
  for (; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') digit = true;
    else if (s[i] != '.' && s[i] != 'e' && s[i] != 'E' && s[i] != '+' && s[i] != '-') return false;
  }
  return digit;
}

GridLayout::GridLayout(const std::vector<std::string>& header) : header_{""} {
  header_.insert(header_.end(), header.begin(), header.end());
  width_.resize(header_.size());
  numeric_.assign(header_.size(), true);
  for (size_t c = 0; c < header_.size(); ++c) width_[c] = header_[c].size();
}

void GridLayout::add_row(size_t index, const std::vector<std::string>& row) {
  std::string idx = std::to_string(index);
  for (size_t c = 0; c < header_.size(); ++c) {
    const std::string& cell = c == 0 ? idx : row[c - 1];
    width_[c] = std::max(width_[c], cell.size());
    if (!numeric(cell)) numeric_[c] = false;
  }
}

std::string GridLayout::separator(char ch) const {
  std::string s = "+";
  for (auto x : width_) s += std::string(x + 2, ch) + "+";
  return s + "\n";
}

std::string GridLayout::line(const std::string& first, const std::vector<std::string>& rest) const {
  std::string s = "|";
  for (size_t c = 0; c < header_.size(); ++c) {
    const std::string& cell = c == 0 ? first : rest[c - 1];
    s += ' ';
    s += numeric_[c] ? fmt::format("{:>{}}", cell, width_[c]) : fmt::format("{:<{}}", cell, width_[c]);
    s += " |";
  }
  return s + "\n";
}

std::string GridLayout::top() const {
  return separator('-') + line(header_[0], {header_.begin() + 1, header_.end()}) + separator('=');
}

std::string GridLayout::row(size_t index, const std::vector<std::string>& row) const {
  return line(std::to_string(index), row) + separator('-');
}

std::string render_grid(const CsvTable& t) {
  GridLayout g(t.header);
  for (size_t i = 0; i < t.rows.size(); ++i) g.add_row(i, t.rows[i]);
  std::string out = g.top();
  for (size_t i = 0; i < t.rows.size(); ++i) out += g.row(i, t.rows[i]);
  return out;
}

}  // namespace ptoc::profiling
