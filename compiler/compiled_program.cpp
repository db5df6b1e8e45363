#include "compiled_program.h"

#include <string>

namespace ptoc {

std::string_view pipe_name(PipeId p) {
  static constexpr std::string_view names[] = {"MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S"};
  return names[int(p)];
}

int pmu_id(uint64_t function_hash, bool main_block) {
  std::string h = std::to_string(function_hash);
  std::string tail = h.size() > 3 ? h.substr(h.size() - 3) : h;
  return std::stoi((main_block ? "1" : "") + tail) % 4096;
}

}  // namespace ptoc
