#include "compiler/frontend/yaml_source.h"

namespace ptoc::fe {

SrcLoc PosMap::at(int offset) const {
  if (locs_.empty()) return {};
  if (offset < 0) offset = 0;
  if (size_t(offset) >= locs_.size()) offset = int(locs_.size()) - 1;
  return locs_[size_t(offset)];
}

SrcLoc YamlSource::loc(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

PosMapPtr YamlSource::scalar_map(const YAML::Node& n) const {
  const YAML::Mark m = n.Mark();
  const std::string value = n.IsScalar() ? n.Scalar() : std::string();
  std::vector<SrcLoc> locs;
  SrcLoc start{m.line + 1, m.column + 1};
  auto fallback = [&] {
    locs.assign(value.size() + 1, start);
    return std::make_shared<const PosMap>(std::move(locs));
  };
  if (m.pos < 0 || size_t(m.pos) >= text_.size()) return fallback();
  size_t p = size_t(m.pos);
  int line = start.line, col = start.col;
  auto advance = [&](size_t k) {
    for (size_t i = 0; i < k && p < text_.size(); ++i, ++p) {
      if (text_[p] == '\n') { ++line; col = 1; } else { ++col; }
    }
  };
  // Skip a line break and the indentation after it (folded line in a flow/quoted scalar).
  auto skip_break = [&] {
    advance(1);
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) advance(1);
  };
  const char q = text_[p];
  if (q == '|' || q == '>') {
    // Block scalar: content starts on the next line, each line indented the same.
    while (p < text_.size() && text_[p] != '\n') advance(1);
    if (p >= text_.size()) return fallback();
    advance(1);
    size_t indent = 0;
    while (p + indent < text_.size() && text_[p + indent] == ' ') ++indent;
    for (size_t i = 0; i < value.size(); ++i) {
      if (col == 1) advance(indent);
      if (p >= text_.size()) return fallback();
      locs.push_back({line, col});
      if (value[i] == '\n' || (q == '>' && value[i] == ' ' && text_[p] == '\n')) { advance(1); continue; }
      if (text_[p] != value[i]) return fallback();
      advance(1);
    }
    locs.push_back({line, col});
    return std::make_shared<const PosMap>(std::move(locs));
  }
  const bool dq = q == '"', sq = q == '\'';
  if (dq || sq) advance(1);
  for (size_t i = 0; i < value.size(); ++i) {
    if (p >= text_.size()) return fallback();
    if (text_[p] == '\n' || text_[p] == '\r') {
      // A folded line break reads as one space in the value.
      locs.push_back({line, col});
      if (text_[p] == '\r') advance(1);
      skip_break();
      continue;
    }
    locs.push_back({line, col});
    if (dq && text_[p] == '\\') {
      char e = p + 1 < text_.size() ? text_[p + 1] : 0;
      size_t width = e == 'x' ? 4 : e == 'u' ? 6 : e == 'U' ? 10 : 2;
      advance(width);
      // Multi-byte UTF-8 results of \u escapes occupy several value bytes.
      while (i + 1 < value.size() && (static_cast<unsigned char>(value[i + 1]) & 0xC0) == 0x80) {
        locs.push_back(locs.back());
        ++i;
      }
      continue;
    }
    if (sq && text_[p] == '\'' && p + 1 < text_.size() && text_[p + 1] == '\'') { advance(2); continue; }
    if (text_[p] != value[i]) return fallback();
    advance(1);
  }
  locs.push_back({line, col});
  return std::make_shared<const PosMap>(std::move(locs));
}

}  // namespace ptoc::fe
