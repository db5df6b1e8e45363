// PyPTO's keyword names where ptoc's parameter of the same meaning is spelt otherwise.
#pragma once
#include <optional>
#include <string>

#include "runtime/core/dtype.h"

namespace ptoc::fe {

// The ptoc parameter that PyPTO's keyword `kw` of function `fn` names, or "" when there is none.
std::string pypto_keyword_alias(const std::string& fn, const std::string& kw);

// PyPTO's dtype name (DT_FP32, DT_BF16, ...) as ptoc's dtype, or nullopt.
std::optional<DType> pypto_dtype_name(const std::string& name);
// PyPTO dtypes ptoc knows of but does not have (hif8, the fp4 pairs, the generic DT_FP8): the message
// saying so and why, for the error at the name; empty for any other name.
std::string unsupported_dtype_why(const std::string& name);

}  // namespace ptoc::fe
