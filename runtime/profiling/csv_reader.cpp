#include "csv_reader.h"

#include <fmt/format.h>
#include <stdexcept>

namespace ptoc::profiling {

CsvReader::CsvReader(std::istream& in, std::string file) : in_(in), file_(std::move(file)), buf_(1 << 16) {}

bool CsvReader::fill() {
  if (!in_) return false;
  in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  end_ = static_cast<size_t>(in_.gcount());
  pos_ = 0;
  return end_ > 0;
}

bool CsvReader::next(std::vector<std::string>& cells) {
  cells.clear();
  std::string cell;
  bool quoted = false, any = false;
  for (;;) {
    if (pos_ == end_ && !fill()) break;
    char c = buf_[pos_++];
    if (quoted) {
      if (c != '"') {
        cell += c;
        continue;
      }
      // A doubled quote is an escaped one; it may straddle two reads.
      if (pos_ == end_ && !fill()) {
        quoted = false;
        continue;
      }
      if (buf_[pos_] == '"') cell += '"', ++pos_;
      else quoted = false;
      continue;
    }
    if (c == '"') quoted = true, any = true;
    else if (c == ',') cells.push_back(std::move(cell)), cell.clear(), any = true;
    else if (c == '\r') continue;
    else if (c == '\n') {
      if (any || !cell.empty()) cells.push_back(std::move(cell));
      ++line_no_;
      if (!cells.empty()) return true;
      cell.clear(), any = false;
    } else cell += c, any = true;
  }
  if (quoted) throw std::runtime_error(fmt::format("{}:{}: unterminated quoted field", file_, line_no_));
  if (any || !cell.empty()) cells.push_back(std::move(cell));
  return !cells.empty();
}

}  // namespace ptoc::profiling
