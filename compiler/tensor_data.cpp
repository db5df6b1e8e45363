#include "tensor_data.h"

#include <stdexcept>

namespace ptoc {

TensorData TensorData::zeros(DType t, std::vector<int64_t> shape) {
  TensorData d;
  d.dtype = t;
  d.shape = std::move(shape);
  d.bytes.assign(size_t(d.numel()) * size_t(dtype_size(t)), 0);
  return d;
}

int64_t TensorData::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

// TODO(eval work): element access and .npy I/O are written in the evaluator work.
double TensorData::get(int64_t) const { throw std::logic_error("TensorData::get not implemented yet"); }
void TensorData::set(int64_t, double) { throw std::logic_error("TensorData::set not implemented yet"); }
TensorData read_npy_as(const std::string&, DType, const std::string&) { throw std::logic_error("read_npy_as not implemented yet"); }
void write_npy(const std::string&, const TensorData&) { throw std::logic_error("write_npy not implemented yet"); }

}  // namespace ptoc
