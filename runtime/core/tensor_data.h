// A host tensor in device representation: row-major elements of `dtype`
// exactly as GM holds them (fp16/bf16 as 16-bit patterns, bool as one byte).
// Inputs and outputs of `ptoc eval` and `ptorun` travel in this form.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dtype.h"

namespace ptoc {

struct TensorData {
  DType dtype = DType::fp32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  static TensorData zeros(DType t, std::vector<int64_t> shape);
  int64_t numel() const;
  double get(int64_t flat_index) const;          // decoded to double
  void set(int64_t flat_index, double v);        // rounded to dtype (round_to_dtype, then encoded)
};

// .npy files (NumPy format 1.0/2.0/3.0, little-endian, C order).
// Reading converts into the tensor's dtype per DESIGN.md: float tensors take
// float16/32/64 arrays (bf16 from float32, rounded to nearest even), integer
// and bool tensors take the matching integer type; the 8-bit float tensors (fp8e4m3 fp8e5m2 fp8e8m0) take
// a uint8 ('|u1') or void ('|V1') array of their raw codes, read by the tensor's dtype. Errors throw NpyError with
// a message naming `tensor` and saying what was expected.
struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
TensorData read_npy_as(const std::string& path, DType dtype, const std::string& tensor);
// Writes float16 for fp16, float32 for fp32 and bf16, uint8 codes ('|u1') for the 8-bit floats, the
// matching integer type otherwise.
// Written to a temporary name and renamed.
void write_npy(const std::string& path, const TensorData& t);

}  // namespace ptoc
