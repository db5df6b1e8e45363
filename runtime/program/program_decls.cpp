#include "runtime/program/program_decls.h"

namespace ptoc {

const MergeSetting::Entry* MergeSetting::lookup(int64_t magic, int64_t order, const std::string& label) const {
  const Entry* func = nullptr;
  const Entry* lab = nullptr;
  const Entry* global = nullptr;
  for (const auto& e : entries) {
    switch (e.key) {
      case Entry::Key::Func:
        if (e.func_magic == magic && e.func_order == order) func = &e;
        break;
      case Entry::Key::Label:
        if (!label.empty() && e.name == label) lab = &e;
        break;
      case Entry::Key::Global:
      case Entry::Key::Default:
        global = &e;
        break;
    }
  }
  return func ? func : lab ? lab : global;
}

const char* merge_key_name(MergeSetting::Entry::Key k) {
  switch (k) {
    case MergeSetting::Entry::Key::Global: return "global";
    case MergeSetting::Entry::Key::Default: return "default";
    case MergeSetting::Entry::Key::Func: return "func";
    case MergeSetting::Entry::Key::Label: return "label";
  }
  return "?";
}


}  // namespace ptoc
