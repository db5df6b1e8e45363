#include "compiled_program.h"

namespace ptoc {

std::string_view pipe_name(PipeId p) {
  static constexpr std::string_view names[] = {"MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S"};
  return names[int(p)];
}

}  // namespace ptoc
