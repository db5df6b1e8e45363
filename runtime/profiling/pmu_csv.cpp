#include "pmu_csv.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

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
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> cur;
  std::string cell;
  bool quoted = false, any = false;
  int line_no = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
      continue;
    }
    if (c == '"') quoted = true, any = true;
    else if (c == ',') cur.push_back(cell), cell.clear(), any = true;
    else if (c == '\r') continue;
    else if (c == '\n') {
      if (any || !cell.empty()) cur.push_back(cell);
      if (!cur.empty()) lines.push_back(cur);
      cur.clear(), cell.clear(), any = false, ++line_no;
    } else cell += c, any = true;
  }
  if (quoted) throw std::runtime_error(fmt::format("{}:{}: unterminated quoted field", file, line_no));
  if (any || !cell.empty()) cur.push_back(cell), lines.push_back(cur);
  if (lines.empty()) throw std::runtime_error(file + ": empty CSV (no header line)");
  CsvTable t;
  t.header = lines[0];
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].size() != t.header.size())
      throw std::runtime_error(fmt::format("{}:{}: {} fields, the header has {}", file, i + 1, lines[i].size(), t.header.size()));
    t.rows.push_back(lines[i]);
  }
  return t;
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

std::string render_grid(const CsvTable& t) {
  std::vector<std::string> header{""};
  header.insert(header.end(), t.header.begin(), t.header.end());
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    std::vector<std::string> r{std::to_string(i)};
    r.insert(r.end(), t.rows[i].begin(), t.rows[i].end());
    rows.push_back(std::move(r));
  }
  std::vector<size_t> w(header.size());
  std::vector<bool> num(header.size(), true);
  for (size_t c = 0; c < header.size(); ++c) {
    w[c] = header[c].size();
    for (const auto& r : rows) {
      w[c] = std::max(w[c], r[c].size());
      if (!numeric(r[c])) num[c] = false;
    }
  }
  auto sep = [&](char ch) {
    std::string s = "+";
    for (auto x : w) s += std::string(x + 2, ch) + "+";
    return s + "\n";
  };
  auto row = [&](const std::vector<std::string>& r) {
    std::string s = "|";
    for (size_t c = 0; c < r.size(); ++c)
      s += " " + (num[c] ? fmt::format("{:>{}}", r[c], w[c]) : fmt::format("{:<{}}", r[c], w[c])) + " |";
    return s + "\n";
  };
  std::string out = sep('-') + row(header) + sep('=');
  for (const auto& r : rows) out += row(r) + sep('-');
  return out;
}

}  // namespace ptoc::profiling
