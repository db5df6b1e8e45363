// A port is a transliteration of PyPTO's calls, keywords included. Where ptoc named a parameter before
// PyPTO's spelling was known, PyPTO's keyword binds the same parameter (both spellings are accepted):
//   matmul(a, b, out_dtype, a_trans=False, b_trans=True)   PyPTO's pypto.matmul keywords
//   view(x, shape, offsets, valid_shape=[...])             PyPTO's pypto.view keyword
#include "compiler/frontend/pypto_keywords_port6a.h"

namespace ptoc::fe {

std::string pypto_keyword_alias(const std::string& fn, const std::string& kw) {
  struct Alias {
    const char *fn, *pypto, *ptoc;
  };
  static const Alias kAliases[] = {
      {"matmul", "a_trans", "trans_a"},
      {"matmul", "b_trans", "trans_b"},
      {"view", "valid_shape", "valid"},
  };
  for (const Alias& a : kAliases)
    if (fn == a.fn && kw == a.pypto) return a.ptoc;
  return "";
}

}  // namespace ptoc::fe
