// A port is a transliteration of PyPTO's calls, keywords included. Where ptoc named a parameter before
// PyPTO's spelling was known, PyPTO's keyword binds the same parameter (both spellings are accepted):
//   matmul(a, b, out_dtype, a_trans=False, b_trans=True)   PyPTO's pypto.matmul keywords
//   view(x, shape, offsets, valid_shape=[...])             PyPTO's pypto.view keyword
// and PyPTO's dtype names: cast(x, DT_FP32) is cast(x, fp32) (pypto.DT_FP32 without the module).
#include "compiler/frontend/pypto_keywords.h"

namespace ptoc::fe {

std::string pypto_keyword_alias(const std::string& fn, const std::string& kw) {
  struct Alias {
    const char *fn, *pypto, *ptoc;
  };
  static const Alias kAliases[] = {
      {"matmul", "a_trans", "trans_a"},
      {"matmul", "b_trans", "trans_b"},
      {"view", "valid_shape", "valid"},
      {"view", "input", "a"},  // pypto.view(input=x, dtype=...)
  };
  for (const Alias& a : kAliases)
    if (fn == a.fn && kw == a.pypto) return a.ptoc;
  return "";
}

std::optional<DType> pypto_dtype_name(const std::string& name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"DT_FP32", DType::fp32}, {"DT_FP16", DType::fp16}, {"DT_BF16", DType::bf16}, {"DT_INT32", DType::int32},
      {"DT_INT8", DType::int8}, {"DT_UINT8", DType::uint8}, {"DT_BOOL", DType::boolean}, {"DT_INT64", DType::int64},
      {"DT_INT16", DType::int16}, {"DT_UINT16", DType::uint16}, {"DT_UINT32", DType::uint32}, {"DT_UINT64", DType::uint64},
      {"DT_FP8E4M3", DType::fp8e4m3}, {"DT_FP8E4M3FN", DType::fp8e4m3}, {"DT_FP8E5M2", DType::fp8e5m2},
      {"DT_FP8E8M0", DType::fp8e8m0},
  };
  for (const auto& [n, t] : kNames)
    if (name == n) return t;
  return std::nullopt;
}

std::string unsupported_dtype_why(const std::string& name) {
  if (name == "hif8" || name == "hf8" || name == "DT_HF8")
    return "dtype '" + name + "' (PyPTO's DT_HF8, HiFloat8) is not supported: PyPTO's documents name it but "
           "do not define its encoding (tapered exponent widths, rounding), so ptoc cannot compute it exactly";
  if (name == "DT_FP8" || name == "fp8")
    return "dtype '" + name + "' is ambiguous: write fp8e4m3 (DT_FP8E4M3), fp8e5m2 (DT_FP8E5M2) or fp8e8m0 "
           "(DT_FP8E8M0)";
  if (name == "DT_FP4_E2M1X2" || name == "DT_FP4_E1M2X2" || name == "fp4e2m1x2" || name == "fp4e1m2x2")
    return "dtype '" + name + "' (packed fp4 pairs) is not supported yet";
  return "";
}

}  // namespace ptoc::fe
