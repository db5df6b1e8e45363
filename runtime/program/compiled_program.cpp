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

const char* gm_role_name(GmTensor::Role r) {
  switch (r) {
    case GmTensor::Role::Input: return "input";
    case GmTensor::Role::Output: return "output";
    case GmTensor::Role::Workspace: return "workspace";
    case GmTensor::Role::Temp: return "temp";
  }
  return "?";
}
const char* core_type_name(CoreType c) { return c == CoreType::AIC ? "AIC" : "AIV"; }

}  // namespace ptoc
