// PyPTO's keyword names where ptoc's parameter of the same meaning is spelt otherwise.
#pragma once
#include <string>

namespace ptoc::fe {

// The ptoc parameter that PyPTO's keyword `kw` of function `fn` names, or "" when there is none.
std::string pypto_keyword_alias(const std::string& fn, const std::string& kw);

}  // namespace ptoc::fe
