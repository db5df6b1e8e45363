#include "compiler/eval/eval_tensor_io.h"

#include "runtime/core/fp8.h"

#include <cstring>
#include <stdexcept>

namespace ptoc::eval {

namespace {
template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // little-endian hosts, like the device and .npy '<'
  return v;
}
template <class T>
void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
}  // namespace

int64_t get_int(const TensorData& t, int64_t i) {
  const uint8_t* p = t.bytes.data() + size_t(i) * size_t(dtype_size(t.dtype));
  switch (t.dtype) {
    case DType::int64: return load<int64_t>(p);
    case DType::int32: return load<int32_t>(p);
    case DType::int8: return load<int8_t>(p);
    case DType::uint8: return load<uint8_t>(p);
    case DType::int16: return load<int16_t>(p);
    case DType::uint16: return load<uint16_t>(p);
    case DType::uint32: return load<uint32_t>(p);
    case DType::uint64: return int64_t(load<uint64_t>(p));  // the bit pattern
    case DType::boolean: return *p != 0 ? 1 : 0;
    default: throw std::logic_error("get_int on a float tensor");
  }
}

void set_int(TensorData& t, int64_t i, int64_t v) {
  uint8_t* p = t.bytes.data() + size_t(i) * size_t(dtype_size(t.dtype));
  switch (t.dtype) {
    case DType::int64: store<int64_t>(p, v); break;
    case DType::int32: store<int32_t>(p, int32_t(uint32_t(uint64_t(v)))); break;
    case DType::int8: store<int8_t>(p, int8_t(uint8_t(uint64_t(v)))); break;
    case DType::uint8: store<uint8_t>(p, uint8_t(uint64_t(v))); break;
    case DType::int16: store<uint16_t>(p, uint16_t(uint64_t(v))); break;
    case DType::uint16: store<uint16_t>(p, uint16_t(uint64_t(v))); break;
    case DType::uint32: store<uint32_t>(p, uint32_t(uint64_t(v))); break;
    case DType::uint64: store<uint64_t>(p, uint64_t(v)); break;
    case DType::boolean: *p = v != 0 ? 1 : 0; break;
    default: throw std::logic_error("set_int on a float tensor");
  }
}

void to_elems(const TensorData& t, Elem* out) {
  const int64_t n = t.numel();
  const uint8_t* p = t.bytes.data();
  auto each = [&](auto read) {
    for (int64_t i = 0; i < n; ++i) out[i] = read(i);
  };
  switch (t.dtype) {
    case DType::int64: each([&](int64_t i) { return Elem::of_i(load<int64_t>(p + 8 * i)); }); break;
    case DType::int32: each([&](int64_t i) { return Elem::of_i(load<int32_t>(p + 4 * i)); }); break;
    case DType::int8: each([&](int64_t i) { return Elem::of_i(load<int8_t>(p + i)); }); break;
    case DType::uint8: each([&](int64_t i) { return Elem::of_i(load<uint8_t>(p + i)); }); break;
    case DType::int16: each([&](int64_t i) { return Elem::of_i(load<int16_t>(p + 2 * i)); }); break;
    case DType::uint16: each([&](int64_t i) { return Elem::of_i(load<uint16_t>(p + 2 * i)); }); break;
    case DType::uint32: each([&](int64_t i) { return Elem::of_i(load<uint32_t>(p + 4 * i)); }); break;
    case DType::uint64: each([&](int64_t i) { return Elem{load<uint64_t>(p + 8 * i)}; }); break;
    case DType::boolean: each([&](int64_t i) { return Elem::of_i(p[i] != 0 ? 1 : 0); }); break;
    case DType::fp32: each([&](int64_t i) { return Elem::of_f(double(load<float>(p + 4 * i))); }); break;
    case DType::fp16: each([&](int64_t i) { return Elem::of_f(double(half_to_float(load<uint16_t>(p + 2 * i)))); }); break;
    case DType::bf16: each([&](int64_t i) { return Elem::of_f(double(bf16_to_float(load<uint16_t>(p + 2 * i)))); }); break;
    case DType::fp8e4m3: each([&](int64_t i) { return Elem::of_f(decode_fp8e4m3(p[i])); }); break;
    case DType::fp8e5m2: each([&](int64_t i) { return Elem::of_f(decode_fp8e5m2(p[i])); }); break;
    case DType::fp8e8m0: each([&](int64_t i) { return Elem::of_f(decode_fp8e8m0(p[i])); }); break;
  }
}

}  // namespace ptoc::eval
