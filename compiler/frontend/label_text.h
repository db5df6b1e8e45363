// The text of a semantic label: PyPTO's set_semantic_label takes free text ("Attention Scores").
#pragma once
#include <string>

namespace ptoc::fe {

// A name ([A-Za-z_][A-Za-z0-9_]*) or names separated by single spaces: "RmsNorm", "Attention Scores".
bool is_label_text(const std::string& s);

}  // namespace ptoc::fe
