// Positions of YAML nodes in the spec text, and of characters inside scalar
// values (so that an error inside a statement string points into the string,
// past the quote and through escapes).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "compiler/diag.h"

namespace ptoc::fe {

// File position of every character of one scalar's value (plus one past the end).
class PosMap {
 public:
  PosMap() = default;
  explicit PosMap(std::vector<SrcLoc> locs) : locs_(std::move(locs)) {}
  SrcLoc at(int offset) const;
  bool empty() const { return locs_.empty(); }

 private:
  std::vector<SrcLoc> locs_;
};
using PosMapPtr = std::shared_ptr<const PosMap>;

class YamlSource {
 public:
  explicit YamlSource(const std::string& text) : text_(text) {}
  // Position of a node (its first character; the quote of a quoted scalar).
  static SrcLoc loc(const YAML::Node& n);
  // Character positions of a scalar's value; falls back to the node's own
  // position for characters it cannot map (folded block scalars).
  PosMapPtr scalar_map(const YAML::Node& n) const;

 private:
  const std::string& text_;
};

}  // namespace ptoc::fe
