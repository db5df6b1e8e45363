// PyPTO's models label their stages with words ("Attention Scores", "Weighted Summation"); a port keeps
// them, so a label is names separated by single spaces. The label is a key of the *_setting options and
// is printed in the IR, the swimlane and the graph dump; no other character is needed, and keeping to
// these keeps those outputs unambiguous (no quotes, no leading or doubled spaces).
#include "compiler/frontend/label_text.h"

#include "compiler/frontend/yaml_util.h"

namespace ptoc::fe {

bool is_label_text(const std::string& s) {
  size_t start = 0;
  while (true) {
    size_t sp = s.find(' ', start);
    if (!is_identifier(s.substr(start, sp == std::string::npos ? std::string::npos : sp - start))) return false;
    if (sp == std::string::npos) return true;
    start = sp + 1;
  }
}

}  // namespace ptoc::fe
