// --- pack / unpack --- The evaluator's byte reinterpretation: see eval_bitcast.h.
#include "compiler/eval/eval_bitcast.h"

#include <cstring>
#include <stdexcept>

namespace ptoc::eval {

static void put_bytes(Elem e, DType t, uint8_t* out) {
  switch (t) {
    case DType::fp32: {
      const float f = float(e.f());
      std::memcpy(out, &f, 4);
      return;
    }
    case DType::fp16: {
      const uint16_t h = float_to_half(float(e.f()));
      std::memcpy(out, &h, 2);
      return;
    }
    case DType::bf16: {
      const uint16_t h = float_to_bf16(float(e.f()));
      std::memcpy(out, &h, 2);
      return;
    }
    default: {  // integers and bool: the low dtype_size bytes of the (wrapped) int64, little-endian
      const uint64_t v = uint64_t(wrap_int(e.i(), t));
      for (int k = 0; k < dtype_size(t); ++k) out[k] = uint8_t(v >> (8 * k));
      return;
    }
  }
}

static Elem get_elem(const uint8_t* in, DType t) {
  switch (t) {
    case DType::fp32: {
      float f;
      std::memcpy(&f, in, 4);
      return Elem::of_f(double(f));
    }
    case DType::fp16: {
      uint16_t h;
      std::memcpy(&h, in, 2);
      return Elem::of_f(double(half_to_float(h)));
    }
    case DType::bf16: {
      uint16_t h;
      std::memcpy(&h, in, 2);
      return Elem::of_f(double(bf16_to_float(h)));
    }
    case DType::int8: return Elem::of_i(int64_t(int8_t(in[0])));
    case DType::uint8: return Elem::of_i(int64_t(in[0]));
    case DType::boolean: return Elem::of_i(in[0] != 0 ? 1 : 0);
    case DType::int32: {
      int32_t v;
      std::memcpy(&v, in, 4);
      return Elem::of_i(int64_t(v));
    }
    case DType::int64: {
      int64_t v;
      std::memcpy(&v, in, 8);
      return Elem::of_i(v);
    }
    case DType::int16: {
      int16_t v;
      std::memcpy(&v, in, 2);
      return Elem::of_i(int64_t(v));
    }
    case DType::uint16: {
      uint16_t v;
      std::memcpy(&v, in, 2);
      return Elem::of_i(int64_t(v));
    }
    case DType::uint32: {
      uint32_t v;
      std::memcpy(&v, in, 4);
      return Elem::of_i(int64_t(v));
    }
    case DType::uint64: {
      uint64_t v;
      std::memcpy(&v, in, 8);
      return Elem{v};
    }
  }
  return Elem{};
}

std::vector<Elem> bitcast_elems(const std::vector<Elem>& src, DType a, DType b) {
  const size_t sa = size_t(dtype_size(a)), sb = size_t(dtype_size(b));
  std::vector<uint8_t> bytes(src.size() * sa);
  for (size_t i = 0; i < src.size(); ++i) put_bytes(src[i], a, bytes.data() + i * sa);
  if (bytes.size() % sb != 0) throw std::logic_error("bitcast of a byte count that the dtype does not divide");
  std::vector<Elem> out(bytes.size() / sb);
  for (size_t i = 0; i < out.size(); ++i) out[i] = get_elem(bytes.data() + i * sb, b);
  return out;
}

}  // namespace ptoc::eval
