// Host tile ops of the cube path: GM -> L1 (ND and NZ sources), L1 -> L0A/L0B
// (with transposes), TMMAD (init / accumulate, fp32 accumulation), TFIXPIPE
// (casts, atomic add), and a whole matmul run as its tiles.
#include <catch2/catch.hpp>

#include "tile_test_util.h"

using namespace tt;

namespace {

// ND [rows x cols] -> FRACTAL_NZ as documented in pto_tile.h (rows padded to 16).
template <typename T> std::vector<T> to_nz(const std::vector<T>& nd, int64_t rows, int64_t cols) {
  const int64_t c0 = 32 / int64_t(sizeof(T));
  const int64_t ld = (rows + 15) / 16 * 16;
  const int64_t cb = (cols + c0 - 1) / c0;
  std::vector<T> nz(size_t(ld * cb * c0), from_d<T>(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) nz[size_t((c / c0) * ld * c0 + r * c0 + c % c0)] = nd[size_t(r * cols + c)];
  return nz;
}

// The fp32 accumulation the library promises: acc = acc + a * b in k order.
template <typename T>
void ref_mmad(std::vector<float>& c, int64_t ldc, const std::vector<double>& a, const std::vector<double>& b,
              int64_t m, int64_t k, int64_t n, bool init) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = init ? 0.0f : c[size_t(i * ldc + j)];
      for (int64_t p = 0; p < k; ++p) {
        volatile float prod = float(a[size_t(i * k + p)]) * float(b[size_t(p * n + j)]);  // no fma
        acc = acc + prod;
      }
      c[size_t(i * ldc + j)] = acc;
    }
}

template <typename T> void run_l1_load(bool nz) {
  constexpr int RL = 48, CL = 64;
  const int64_t rows = 70, cols = 90;
  auto nd = random_values<T>(size_t(rows * cols), -3, 3, 11);
  auto src = nz ? to_nz(nd, rows, cols) : nd;
  const int64_t ld = nz ? (rows + 15) / 16 * 16 : cols;
  T* l1 = PTO_L1(T, 4096);
  for (int64_t k = 0; k < RL * CL; ++k) l1[k] = poison<T>();
  const int64_t r0 = 33, c0 = 35, vr = rows - r0, vc = 50;  // a row tail, an unaligned column start
  if (nz) TLOAD_L1<T, RL, CL, 1>(l1, src.data(), 0, r0, c0, ld, vr, vc);
  else TLOAD_L1<T, RL, CL, 0>(l1, src.data(), 0, r0, c0, ld, vr, vc);
  for (int64_t i = 0; i < RL; ++i)
    for (int64_t j = 0; j < CL; ++j) {
      const T want = (i < vr && j < vc) ? nd[size_t((r0 + i) * cols + c0 + j)] : from_d<T>(0);  // zero padding
      INFO("nz " << nz << " at " << i << "," << j);
      REQUIRE(same_bits(l1[i * CL + j], want));
    }
}

template <typename T, int M, int K, int N> void run_extract_mmad(bool ta, bool tb) {
  // L1 tiles hold the operands as GM has them: A [M x K] or A^T [K x M], B [K x N] or B^T [N x K].
  constexpr int L1A_R = 64, L1A_C = 64, L1B_R = 64, L1B_C = 64;
  auto av = random_values<T>(L1A_R * L1A_C, -2, 2, 21);
  auto bv = random_values<T>(L1B_R * L1B_C, -2, 2, 22);
  T* l1a = PTO_L1(T, 0);
  T* l1b = PTO_L1(T, 65536);
  for (int64_t k = 0; k < L1A_R * L1A_C; ++k) l1a[k] = av[size_t(k)];
  for (int64_t k = 0; k < L1B_R * L1B_C; ++k) l1b[k] = bv[size_t(k)];
  T* l0a = PTO_L0A(T, 0);
  T* l0b = PTO_L0B(T, 0);
  const int64_t ro = 16, co = 32;
  if (ta) TEXTRACT_L0A<T, L1A_R, L1A_C, M, K, 1>(l0a, l1a, ro, co);
  else TEXTRACT_L0A<T, L1A_R, L1A_C, M, K, 0>(l0a, l1a, ro, co);
  if (tb) TEXTRACT_L0B<T, L1B_R, L1B_C, K, N, 1>(l0b, l1b, ro, co);
  else TEXTRACT_L0B<T, L1B_R, L1B_C, K, N, 0>(l0b, l1b, ro, co);
  std::vector<double> a(M * K), b(K * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t p = 0; p < K; ++p) {
      a[size_t(i * K + p)] = to_d(ta ? l1a[(ro + p) * L1A_C + co + i] : l1a[(ro + i) * L1A_C + co + p]);
      REQUIRE(to_d(l0a[i * K + p]) == a[size_t(i * K + p)]);
    }
  for (int64_t p = 0; p < K; ++p)
    for (int64_t j = 0; j < N; ++j) {
      b[size_t(p * N + j)] = to_d(tb ? l1b[(ro + j) * L1B_C + co + p] : l1b[(ro + p) * L1B_C + co + j]);
      REQUIRE(to_d(l0b[p * N + j]) == b[size_t(p * N + j)]);
    }
  // Two k steps: init, then accumulate, on a valid sub-block with tails.
  float* c = PTO_L0C(float, 0);
  const int64_t vm = M - 3, vk = K - 5, vn = N - 7;
  std::vector<double> as(size_t(vm * vk)), bs(size_t(vk * vn));
  for (int64_t i = 0; i < vm; ++i)
    for (int64_t p = 0; p < vk; ++p) as[size_t(i * vk + p)] = a[size_t(i * K + p)];
  for (int64_t p = 0; p < vk; ++p)
    for (int64_t j = 0; j < vn; ++j) bs[size_t(p * vn + j)] = b[size_t(p * N + j)];
  std::vector<float> ref(M * N, -7.0f);
  for (int64_t k = 0; k < M * N; ++k) c[k] = -7.0f;
  TMMAD<T, M, K, N>(c, l0a, l0b, vm, vk, vn, 1);
  ref_mmad<T>(ref, N, as, bs, vm, vk, vn, true);
  TMMAD<T, M, K, N>(c, l0a, l0b, vm, vk, vn, 0);
  ref_mmad<T>(ref, N, as, bs, vm, vk, vn, false);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      INFO("mmad ta " << ta << " tb " << tb << " at " << i << "," << j);
      REQUIRE(c[i * N + j] == ref[size_t(i * N + j)]);  // bit-exact; -7 outside the valid block
    }
}

}  // namespace

TEST_CASE("TLOAD_L1 loads ND and NZ boxes with zero padding", "[kernels]") {
  run_l1_load<pto_f16>(false);
  run_l1_load<pto_f16>(true);
  run_l1_load<pto_bf16>(true);
  run_l1_load<float>(false);
  run_l1_load<float>(true);
}

TEST_CASE("TEXTRACT + TMMAD: transposes, tails, init and accumulate in fp32", "[kernels]") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      run_extract_mmad<pto_f16, 32, 32, 32>(ta, tb);
      run_extract_mmad<pto_bf16, 16, 32, 48>(ta, tb);
      run_extract_mmad<float, 32, 16, 32>(ta, tb);
    }
  // Shapes exercising the micro-kernel edges: rows not a multiple of 6, columns of 32.
  run_extract_mmad<pto_f16, 48, 32, 32>(false, false);
  run_extract_mmad<float, 16, 16, 16>(false, true);
}

TEST_CASE("TFIXPIPE casts the valid region and adds atomically", "[kernels]") {
  constexpr int M = 16, N = 32;
  float* c = PTO_L0C(float, 1024);
  auto v = random_values<float>(M * N, -70000, 70000, 3);
  for (int64_t k = 0; k < M * N; ++k) c[k] = v[size_t(k)];
  const int64_t ld = 40, vm = 13, vn = 29, off = 2 * ld + 3;
  std::vector<pto_f16> h(20 * ld, poison<pto_f16>());
  TFIXPIPE<pto_f16, M, N>(h.data(), c, off, ld, vm, vn);
  std::vector<pto_bf16> b(20 * ld, poison<pto_bf16>());
  TFIXPIPE<pto_bf16, M, N>(b.data(), c, off, ld, vm, vn);
  std::vector<float> f(20 * ld, 0.5f);
  TFIXPIPE<float, M, N, 1>(f.data(), c, off, ld, vm, vn);
  for (int64_t r = 0; r < 20; ++r)
    for (int64_t col = 0; col < ld; ++col) {
      const int64_t i = r - 2, j = col - 3, k = r * ld + col;
      const bool in = i >= 0 && i < vm && j >= 0 && j < vn;
      REQUIRE(same_bits(h[size_t(k)], in ? from_d<pto_f16>(c[i * N + j]) : poison<pto_f16>()));  // overflow -> inf
      REQUIRE(same_bits(b[size_t(k)], in ? from_d<pto_bf16>(c[i * N + j]) : poison<pto_bf16>()));
      REQUIRE(f[size_t(k)] == (in ? 0.5f + c[i * N + j] : 0.5f));
    }
}

TEST_CASE("a matmul run as its tiles (L1 groups, L0 steps, tails) matches the reference", "[kernels]") {
  // C[M x N] = A[M x K] * B[K x N], fp16 in, fp32 out; tiles L1 64 x 64, L0 32 x 32 x 32.
  const int64_t M = 75, K = 130, N = 100;
  auto a = random_values<pto_f16>(size_t(M * K), -1, 1, 8);
  auto b = random_values<pto_f16>(size_t(K * N), -1, 1, 9);
  auto bnz = to_nz(b, K, N);  // B stored NZ in GM, as format: NZ tensors are
  std::vector<float> c(size_t(M * N), 0.0f);
  pto_f16* l1a = PTO_L1(pto_f16, 0);
  pto_f16* l1b = PTO_L1(pto_f16, 65536);
  pto_f16* l0a = PTO_L0A(pto_f16, 0);
  pto_f16* l0b = PTO_L0B(pto_f16, 0);
  float* l0c = PTO_L0C(float, 0);
  for (int64_t m0 = 0; m0 < M; m0 += 32)
    for (int64_t n0 = 0; n0 < N; n0 += 32) {
      const int64_t vm = std::min<int64_t>(32, M - m0), vn = std::min<int64_t>(32, N - n0);
      for (int64_t k1 = 0; k1 < K; k1 += 64) {
        const int64_t vk1 = std::min<int64_t>(64, K - k1);
        TLOAD_L1<pto_f16, 32, 64, 0>(l1a, a.data(), 0, m0, k1, K, vm, vk1);
        TLOAD_L1<pto_f16, 64, 32, 1>(l1b, bnz.data(), 0, k1, n0, (K + 15) / 16 * 16, vk1, vn);
        for (int64_t k0 = 0; k0 < vk1; k0 += 32) {
          const int64_t vk = std::min<int64_t>(32, vk1 - k0);
          TEXTRACT_L0A<pto_f16, 32, 64, 32, 32, 0>(l0a, l1a, 0, k0);
          TEXTRACT_L0B<pto_f16, 64, 32, 32, 32, 0>(l0b, l1b, k0, 0);
          TMMAD<pto_f16, 32, 32, 32>(l0c, l0a, l0b, vm, vk, vn, k1 == 0 && k0 == 0);
        }
      }
      TFIXPIPE<float, 32, 32>(c.data(), l0c, m0 * N + n0, N, vm, vn);
    }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0, mag = 0;
      for (int64_t p = 0; p < K; ++p) {
        const double t = to_d(a[size_t(i * K + p)]) * to_d(b[size_t(p * N + j)]);
        want += t;
        mag += std::fabs(t);
      }
      INFO("at " << i << "," << j);
      REQUIRE(std::fabs(c[size_t(i * N + j)] - want) <= mag * 1e-6 + 1e-7);
    }
}

TEST_CASE("fp16 / bf16 conversions equal compiler/dtype.h bit for bit", "[kernels]") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float a = pto::half_bits_to_float(uint16_t(h)), b = ptoc::half_to_float(uint16_t(h));
    REQUIRE(pto::float_to_bits(a) == pto::float_to_bits(b));
    REQUIRE(pto::float_to_bits(pto::bf16_bits_to_float(uint16_t(h))) ==
            pto::float_to_bits(ptoc::bf16_to_float(uint16_t(h))));
  }
  std::mt19937 g(1);
  for (int i = 0; i < 2000000; ++i) {
    // Random bit patterns plus values near fp16 rounding boundaries and the subnormal range.
    uint32_t x = g();
    if (i % 3 == 1) x = (x & 0x8000ffffu) | ((112u + (x >> 16) % 32u) << 23);
    const float f = pto::bits_to_float(x);
    REQUIRE(pto::float_to_half_bits(f) == ptoc::float_to_half(f));
    REQUIRE(pto::float_to_bf16_bits(f) == ptoc::float_to_bf16(f));
  }
}
