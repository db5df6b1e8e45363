// TRANDOM on the device: the host's Philox 4x32-10 (pto_host_random.h) as a scalar loop over the
// valid region, from each element's global index. The uniform path is exact integer work and gives the
// host's bits; the normal path uses the device's fp32 log / sin / cos / sqrt, as PyPTO's normal does,
// so its last bits may differ from the host's correctly rounded ones (untested device path).
#pragma once

namespace pto_dev {

__aicore__ inline void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
    const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
    c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

template <typename T> struct RandomBits { static constexpr int value = 23; };
template <> struct RandomBits<half> { static constexpr int value = 10; };
template <> struct RandomBits<bfloat16_t> { static constexpr int value = 7; };

}  // namespace pto_dev

template <typename TD, int R, int C, int MODE>
__aicore__ inline void TRANDOM(__ubuf__ TD* dst, const __ubuf__ int32_t* idx, int64_t vr, int64_t vc,
                               int64_t key_lo, int64_t key_hi, int64_t ctr_lo, int64_t ctr_hi) {
  constexpr int kBits = pto_dev::RandomBits<TD>::value;
  pto_dev::scalar_begin();
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t j = 0; j < vc; ++j) {
      const uint64_t e = (uint64_t)(uint32_t)idx[i * C + j];
      uint32_t w[4] = {(uint32_t)(e / 4), (uint32_t)((e / 4) >> 32), (uint32_t)ctr_lo, (uint32_t)ctr_hi};
      pto_dev::philox4x32_10(w, (uint32_t)key_lo, (uint32_t)key_hi);
      const int k = (int)(e % 4);
      float out;
      if (MODE == 0) {
        out = (float)(w[k] & ((1u << kBits) - 1u)) / (float)(1u << kBits);
      } else {
        const int p = k & ~1;
        float u1 = (float)(w[p] & 0x7FFFFFu) / 8388608.0f, u2 = (float)(w[p + 1] & 0x7FFFFFu) / 8388608.0f;
        if (u1 < 1.0e-7f) u1 = 1.0e-7f;
        const float v = u2 * 6.2831853f, r = sqrtf(logf(u1) * -2.0f);
        out = ((k & 1) ? cosf(v) : sinf(v)) * r;
      }
      dst[i * C + j] = (TD)out;
    }
  pto_dev::scalar_end();
}
