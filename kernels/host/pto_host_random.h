// TRANDOM on the host: PyPTO's uniform / normal, Philox 4x32-10 (Salmon et al., SC'11; TensorFlow's
// philox_random.h layout) evaluated per element from its global element index, so a tile computes the
// same numbers wherever it sits. The compiled CCE twin and the leaf-program executor both call this.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

namespace pto {
namespace host {

// Ten rounds on the counter c (4 words) under the key (k0, k1).
inline void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p1 = uint64_t(0xCD9E8D57u) * c[2];
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k0, n1 = uint32_t(p1), n2 = uint32_t(p0 >> 32) ^ c[3] ^ k1,
                   n3 = uint32_t(p0);
    c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

// Block b = index / 4 of the stream: counter (b, 0, ctr) + ... as one 128-bit number, counter[0] = 0.
inline void philox_block(uint64_t block, uint64_t key, uint64_t ctr, uint32_t out[4]) {
  out[0] = uint32_t(block), out[1] = uint32_t(block >> 32), out[2] = uint32_t(ctr), out[3] = uint32_t(ctr >> 32);
  philox4x32_10(out, uint32_t(key), uint32_t(key >> 32));
}

inline float philox_bits_to_unit(uint32_t w) {  // [0, 1): 23 low bits under exponent 127, minus 1 (exact)
  const uint32_t b = (127u << 23) | (w & 0x7FFFFFu);
  float f;
  memcpy(&f, &b, 4);
  return f - 1.0f;
}

// Element `index` as fp32. MODE 0: uniform; BITS is the output's mantissa width (23 fp32, 10 fp16,
// 7 bf16: the low bits of the word, as PyPTO's golden), so the fp32 value is exact in the output type.
// MODE 1: normal, Box-Muller on words (2j, 2j + 1) of the block as PyPTO's normal computes it in fp32:
// u1 = max(u(w0), 1e-7), v = u(w1) * fp32(2 pi), r = sqrt(log(u1) * -2), sin(v) * r for even elements,
// cos(v) * r for odd ones; each step rounded to fp32, log / sin / cos / sqrt through double.
template <int MODE, int BITS>
inline float philox_element(uint64_t index, uint64_t key, uint64_t ctr) {
  uint32_t w[4];
  philox_block(index / 4, key, ctr, w);
  const int j = int(index % 4);
  if (MODE == 0) {
    const uint32_t m = w[j] & ((1u << BITS) - 1u);
    return float(m) / float(1u << BITS);  // exact: BITS <= 23
  }
  const int p = j & ~1;
  float u1 = philox_bits_to_unit(w[p]);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v = philox_bits_to_unit(w[p + 1]) * float(6.283185307179586);
  const float l = float(log(double(u1))) * -2.0f;
  const float r = float(sqrt(double(l)));
  const float t = (j & 1) ? float(cos(double(v))) : float(sin(double(v)));
  return t * r;
}

// The output's mantissa width: which low bits of the word a uniform uses.
template <typename T> struct RandomBits { static constexpr int value = 23; };
template <> struct RandomBits<f16> { static constexpr int value = 10; };
template <> struct RandomBits<bf16> { static constexpr int value = 7; };

// dst (R x C, TD) from idx (R x C int32 global element indices) over the vr x vc valid region.
template <int MODE, typename TD>
inline void trandom(int64_t R, int64_t C, TD* dst, const int32_t* idx, int64_t vr, int64_t vc, int64_t key_lo,
                    int64_t key_hi, int64_t ctr_lo, int64_t ctr_hi) {
  using ED = pto::host::Elem<TD>;
  pto::host::check_tile<TD>(dst, int64_t(R) * C, "TRANDOM dst");
  pto::host::check_tile<int32_t>(idx, int64_t(R) * C, "TRANDOM idx");
  const uint64_t key = (uint64_t(uint32_t(key_hi)) << 32) | uint32_t(key_lo);
  const uint64_t ctr = (uint64_t(uint32_t(ctr_hi)) << 32) | uint32_t(ctr_lo);
  constexpr int kBits = RandomBits<TD>::value;
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j) {
      const uint64_t e = uint64_t(uint32_t(idx[i * C + j]));
      dst[i * C + j] = ED::store(philox_element<MODE, kBits>(e, key, ctr));
    }
}

}  // namespace host
}  // namespace pto

template <typename TD, int R, int C, int MODE>
inline void TRANDOM(TD* dst, const int32_t* idx, int64_t vr, int64_t vc, int64_t key_lo, int64_t key_hi,
                    int64_t ctr_lo, int64_t ctr_hi) {
  pto::host::trandom<MODE, TD>(R, C, dst, idx, vr, vc, key_lo, key_hi, ctr_lo, ctr_hi);
}
