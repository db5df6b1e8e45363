// --- pack / unpack --- TBITCAST on the host: the vr rows of a tile copied byte for byte into a tile of
// another element type with the same bytes per row (CS * sizeof(TS) == CD * sizeof(TD)), vc source
// elements of each row (PyPTO's pack / unpack: a reinterpretation, little-endian as the device stores it).
#pragma once
#include <cstdint>
#include <cstring>

namespace pto {
namespace host {
template <typename TD, typename TS>
inline void tbitcast(int64_t R, int64_t CD, int64_t CS, TD* dst, const TS* src, int64_t vr, int64_t vc) {
  pto::host::check_tile<TD>(dst, int64_t(R) * CD, "TBITCAST dst");
  pto::host::check_tile<TS>(src, int64_t(R) * CS, "TBITCAST src");
  const size_t row = size_t(CS) * sizeof(TS);
  for (int64_t i = 0; i < vr; ++i)
    std::memcpy(reinterpret_cast<unsigned char*>(dst) + size_t(i) * row,
                reinterpret_cast<const unsigned char*>(src) + size_t(i) * row, size_t(vc) * sizeof(TS));
}
}  // namespace host
}  // namespace pto
template <typename TD, typename TS, int R, int CD, int CS>
inline void TBITCAST(TD* dst, const TS* src, int64_t vr, int64_t vc) {
  pto::host::tbitcast<TD, TS>(R, CD, CS, dst, src, vr, vc);
}
