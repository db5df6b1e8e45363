// PyPTO's uniform / normal, element by element (compiler/ops_random.h). Written from the published
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) with
// TensorFlow's counter layout, which PyPTO's golden follows: counter words (block lo, block hi,
// counter[1] lo, counter[1] hi) with block = index / 4 (counter[0] is fixed to 0), key words
// (key lo, key hi); element index % 4 is that word of the block's output.
#include "compiler/ops_random.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ptoc {

namespace {

constexpr uint32_t kMulA = 0xD2511F53u, kMulB = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kWeylA = 0x9E3779B9u, kWeylB = 0xBB67AE85u;  // key schedule

struct Block {
  uint32_t w[4];
};

Block philox(uint64_t block, const PhiloxArgs& a) {
  uint32_t x0 = uint32_t(block), x1 = uint32_t(block >> 32), x2 = uint32_t(a.counter), x3 = uint32_t(a.counter >> 32);
  uint32_t k0 = uint32_t(a.key), k1 = uint32_t(a.key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t m0 = uint64_t(kMulA) * x0, m1 = uint64_t(kMulB) * x2;
    const uint32_t hi0 = uint32_t(m0 >> 32), lo0 = uint32_t(m0), hi1 = uint32_t(m1 >> 32), lo1 = uint32_t(m1);
    x0 = hi1 ^ x1 ^ k0;
    x1 = lo1;
    x2 = hi0 ^ x3 ^ k1;
    x3 = lo0;
    k0 += kWeylA;
    k1 += kWeylB;
  }
  return Block{{x0, x1, x2, x3}};
}

// [0, 1) from the low `bits` bits of a word: PyPTO puts them under the exponent of 1.0 and subtracts 1,
// which is exactly m / 2^bits.
float unit(uint32_t w, int bits) { return float(double(w & ((1u << bits) - 1u)) / double(1u << bits)); }

}  // namespace

std::vector<int> philox_axes(const PhiloxArgs& a) {
  auto word = [](uint64_t v) { return int(int32_t(uint32_t(v))); };
  return {word(a.key), word(a.key >> 32), word(a.counter), word(a.counter >> 32)};
}

PhiloxArgs philox_args(const std::vector<int>& axes) {
  PhiloxArgs a;
  if (axes.size() != 4) return a;
  auto u = [&](size_t i) { return uint64_t(uint32_t(axes[i])); };
  a.key = u(0) | (u(1) << 32);
  a.counter = u(2) | (u(3) << 32);
  return a;
}

bool is_random_op(OpKind k) { return k == OpKind::Uniform || k == OpKind::Normal; }

double random_value(OpKind k, DType dt, const PhiloxArgs& a, uint64_t index) {
  const Block b = philox(index / 4, a);
  const unsigned j = unsigned(index % 4);
  if (k == OpKind::Uniform) {
    const int bits = dt == DType::fp16 ? 10 : dt == DType::bf16 ? 7 : 23;
    return double(unit(b.w[j], bits));
  }
  // Box-Muller as PyPTO's normal writes it, every step an fp32 op: words (2p, 2p + 1) give
  // sin(v) * r (even element) and cos(v) * r (odd element).
  const unsigned p = j & ~1u;
  const float u1 = std::max(unit(b.w[p], 23), 1.0e-7f);
  const float v = unit(b.w[p + 1], 23) * float(2.0 * M_PI);
  const float r = float(std::sqrt(double(float(std::log(double(u1))) * -2.0f)));
  const float t = float((j & 1) ? std::cos(double(v)) : std::sin(double(v)));
  return double(t * r);
}

}  // namespace ptoc
