// --- pack / unpack --- TBITCAST on the device: CCE has no reinterpreting move between UB tiles of two
// element types, so the rows are copied through the vector unit as 16-bit integers when a row's valid bytes
// are even (vadds of 0 on int16 keeps every bit), else byte by byte on the scalar unit.
#pragma once

template <typename TD, typename TS, int R, int CD, int CS>
__aicore__ inline void TBITCAST(__ubuf__ TD* dst, const __ubuf__ TS* src, int64_t vr, int64_t vc) {
  const int64_t row = int64_t(CS) * int64_t(sizeof(TS)), bytes = vc * int64_t(sizeof(TS));
  if (bytes % 2 == 0 && row % 2 == 0) {
    for (int64_t i = 0; i < vr; ++i)
      pto_dev::for_repeats<int16_t>(bytes / 2, [&](int64_t off, uint8_t rep) {
        vadds((__ubuf__ int16_t*)dst + i * (row / 2) + off, (__ubuf__ int16_t*)src + i * (row / 2) + off, (int16_t)0,
              rep, 1, 1, 8, 8);
      });
    pipe_barrier(PIPE_V);
    return;
  }
  pipe_barrier(PIPE_ALL);
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t b = 0; b < bytes; ++b)
      ((__ubuf__ uint8_t*)dst)[i * row + b] = ((const __ubuf__ uint8_t*)src)[i * row + b];
  pipe_barrier(PIPE_ALL);
}
