// Host-twin numerics speed (issue 5, item 3): the tile library as generated
// kernels use it, side by side with OpenBLAS and memcpy on this machine.
//
//   kernels_bench [--quick] [--runs N] [--scalar-cvt]
//
// Rows of the table:
//   matmul  : an n^3 fp16 matmul run as its tiles (TLOAD_L1 -> TEXTRACT_L0A/B
//             -> TMMAD fp32 accumulate -> TFIXPIPE), one thread, vs OpenBLAS
//             sgemm on fp32 with one thread. Target >= 25 %.
//   add/mul : elementwise over tiles (TLOAD x2, TBINARY, TSTORE), GM bytes
//             read + written per second vs memcpy's (read + written). Target >= 40 %.
//   rowsum  : TLOAD + TREDUCE(sum, last axis) + TSTORE, same measure.
//   fp16 / bf16 add, mul, rowsum: the same loops on 16-bit data (bytes counted
//             at 2 per element), results spot-checked against element-by-element
//             conversion; cast fp16<->fp32: TLOAD + TCAST + TSTORE.
// --scalar-cvt turns off the F16C / AVX2 row conversions
// (kernels/host/pto_host_cvt.h) to measure the portable path.
// Times are CPU time of the calling thread. Each figure is the median of --runs runs (default 5; --quick: 3 runs on
// small sizes, for CI: it checks the benchmark runs, not the speed).
#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/pto_tile.h"

#if defined(PTOC_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace {

// CPU time of the calling thread: every figure here is single-threaded, and
// on a shared machine wall time would measure the other processes.
double now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double median_seconds(int runs, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The tiling a ptoc cube_tile {m: [128, 128], k: [64, 256], n: [256, 256]} gives.
constexpr int TM = 128, TN = 256, TK1 = 256, TK0 = 64;

void tiled_matmul(const pto_f16* a, const pto_f16* b, float* c, int64_t n) {
  pto_f16* l1a = PTO_L1(pto_f16, 0);                    // 128 x 256 fp16 = 64 KiB
  pto_f16* l1b = PTO_L1(pto_f16, 65536);                // 256 x 256 fp16 = 128 KiB
  pto_f16* l0a = PTO_L0A(pto_f16, 0);                   // 128 x 64 = 16 KiB
  pto_f16* l0b = PTO_L0B(pto_f16, 0);                   // 64 x 256 = 32 KiB
  float* l0c = PTO_L0C(float, 0);                       // 128 x 256 fp32 = 128 KiB
  for (int64_t m0 = 0; m0 < n; m0 += TM)
    for (int64_t n0 = 0; n0 < n; n0 += TN) {
      const int64_t vm = std::min<int64_t>(TM, n - m0), vn = std::min<int64_t>(TN, n - n0);
      for (int64_t k1 = 0; k1 < n; k1 += TK1) {
        const int64_t vk1 = std::min<int64_t>(TK1, n - k1);
        TLOAD_L1<pto_f16, TM, TK1>(l1a, a, 0, m0, k1, n, vm, vk1);
        TLOAD_L1<pto_f16, TK1, TN>(l1b, b, 0, k1, n0, n, vk1, vn);
        for (int64_t k0 = 0; k0 < vk1; k0 += TK0) {
          const int64_t vk = std::min<int64_t>(TK0, vk1 - k0);
          TEXTRACT_L0A<pto_f16, TM, TK1, TM, TK0>(l0a, l1a, 0, k0);
          TEXTRACT_L0B<pto_f16, TK1, TN, TK0, TN>(l0b, l1b, k0, 0);
          TMMAD<pto_f16, TM, TK0, TN>(l0c, l0a, l0b, vm, vk, vn, k1 == 0 && k0 == 0);
        }
      }
      TFIXPIPE<float, TM, TN>(c, l0c, m0 * n + n0, n, vm, vn);
    }
}

// Vector tiles: 32 x 512 fp32 (64 KiB each), as vec_tile [32, 512].
constexpr int VR = 32, VC = 512;

// Elementwise a OP b over the whole matrix, tile by tile, as generated code does.
template <int OP, typename T> void tiled_binary(const T* x, const T* y, T* z, int64_t rows, int64_t cols) {
  T* ta = PTO_UB(T, 0);
  T* tb = PTO_UB(T, 65536);
  for (int64_t r0 = 0; r0 < rows; r0 += VR)
    for (int64_t c0 = 0; c0 < cols; c0 += VC) {
      const int64_t vr = std::min<int64_t>(VR, rows - r0), vc = std::min<int64_t>(VC, cols - c0);
      TLOAD<T, VR, VC>(ta, x, r0 * cols + c0, cols, vr, vc);
      TLOAD<T, VR, VC>(tb, y, r0 * cols + c0, cols, vr, vc);
      TBINARY<OP, T, VR, VC>(ta, ta, tb, vr, vc);
      TSTORE<T, VR, VC>(z, ta, r0 * cols + c0, cols, vr, vc);
    }
}

template <typename T> void tiled_rowsum(const T* x, T* out, int64_t rows, int64_t cols) {
  // One tile spans a row block over the whole reduced axis (cols <= 2048 here).
  constexpr int RR = 16, RC = 2048;
  T* t = PTO_UB(T, 0);
  T* s = PTO_UB(T, 131072);
  for (int64_t r0 = 0; r0 < rows; r0 += RR) {
    const int64_t vr = std::min<int64_t>(RR, rows - r0);
    TLOAD<T, RR, RC>(t, x, r0 * cols, cols, vr, cols);
    TREDUCE<PTO_RSUM, T, RR, RC, 1>(s, t, vr, cols);
    TSTORE<T, RR, 1>(out, s, r0, 1, vr, 1);
  }
}

// The Cast op: TLOAD (TS) -> TCAST -> TSTORE (TD).
template <typename TD, typename TS> void tiled_cast(const TS* x, TD* z, int64_t rows, int64_t cols) {
  TS* t = PTO_UB(TS, 0);
  TD* u = PTO_UB(TD, 65536);
  for (int64_t r0 = 0; r0 < rows; r0 += VR)
    for (int64_t c0 = 0; c0 < cols; c0 += VC) {
      const int64_t vr = std::min<int64_t>(VR, rows - r0), vc = std::min<int64_t>(VC, cols - c0);
      TLOAD<TS, VR, VC>(t, x, r0 * cols + c0, cols, vr, vc);
      TCAST<TD, TS, VR, VC>(u, t, vr, vc);
      TSTORE<TD, VR, VC>(z, u, r0 * cols + c0, cols, vr, vc);
    }
}

// Element-by-element reference of a 16-bit op (the scalar conversions of
// pto_host.h, no row conversion): spot checks of the bench's results.
template <typename T> float to_f(T v) {
  if constexpr (std::is_same_v<T, pto_f16>) return pto::half_bits_to_float(v.bits);
  else if constexpr (std::is_same_v<T, pto_bf16>) return pto::bf16_bits_to_float(v.bits);
  else return v;
}
template <typename T> T from_f(float v) {
  if constexpr (std::is_same_v<T, pto_f16>) return T{pto::float_to_half_bits(v)};
  else if constexpr (std::is_same_v<T, pto_bf16>) return T{pto::float_to_bf16_bits(v)};
  else return v;
}
template <typename T> bool same_bits(T a, T b) { return memcmp(&a, &b, sizeof(T)) == 0; }

void tiled_exp_f16(const pto_f16* x, pto_f16* z, int64_t rows, int64_t cols) {
  pto_f16* t = PTO_UB(pto_f16, 0);
  pto_f16* u = PTO_UB(pto_f16, 65536);
  for (int64_t r0 = 0; r0 < rows; r0 += VR)
    for (int64_t c0 = 0; c0 < cols; c0 += VC) {
      const int64_t vr = std::min<int64_t>(VR, rows - r0), vc = std::min<int64_t>(VC, cols - c0);
      TLOAD<pto_f16, VR, VC>(t, x, r0 * cols + c0, cols, vr, vc);
      TUNARY<PTO_EXP, pto_f16, VR, VC>(u, t, vr, vc);
      TSTORE<pto_f16, VR, VC>(z, u, r0 * cols + c0, cols, vr, vc);
    }
}

struct Row {
  std::string name, unit;
  double ours, reference;
  double target;  // minimum ratio; 0 = informational
  std::string ref_name;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(1, atoi(argv[++i]));
    else if (!strcmp(argv[i], "--scalar-cvt")) pto::host::f16c_rows_enabled() = pto::host::avx2_rows_enabled() = false;
    else {
      fprintf(stderr, "usage: kernels_bench [--quick] [--runs N] [--scalar-cvt]\n");
      return 2;
    }
  }
  if (quick) runs = std::min(runs, 3);
  const int64_t n = quick ? 512 : 1536;                 // matmul n^3
  const int64_t rows = quick ? 1024 : 8192, cols = 2048;  // 8 MiB / 64 MiB per fp32 operand

  std::mt19937 g(7);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<Row> table;

  // ---- matmul ----
  {
    std::vector<pto_f16> a(size_t(n * n)), b(size_t(n * n));
    std::vector<float> af(size_t(n * n)), bf(size_t(n * n)), c(size_t(n * n)), cref(size_t(n * n));
    for (size_t i = 0; i < a.size(); ++i) {
      a[i].bits = pto::float_to_half_bits(d(g));
      b[i].bits = pto::float_to_half_bits(d(g));
      af[i] = pto::half_bits_to_float(a[i].bits);
      bf[i] = pto::half_bits_to_float(b[i].bits);
    }
    const double flops = 2.0 * double(n) * double(n) * double(n);
    tiled_matmul(a.data(), b.data(), c.data(), n);  // warm up (scratch, page faults)
    const double t = median_seconds(runs, [&] { tiled_matmul(a.data(), b.data(), c.data(), n); });
    double tref = 0;
#if defined(PTOC_HAVE_OPENBLAS)
    openblas_set_num_threads(1);
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, af.data(), int(n),
                  bf.data(), int(n), 0.0f, cref.data(), int(n));
    };
    blas();
    tref = median_seconds(runs, blas);
    double worst = 0;
    for (size_t i = 0; i < c.size(); ++i) worst = std::max(worst, double(std::fabs(c[i] - cref[i])));
    if (worst > 1e-3) {
      fprintf(stderr, "kernels_bench: tiled matmul differs from OpenBLAS by %g\n", worst);
      return 1;
    }
#endif
    table.push_back({"matmul " + std::to_string(n) + "^3 fp16->fp32, 1 thread", "GFLOP/s", flops / t / 1e9,
                     tref > 0 ? flops / tref / 1e9 : 0, 0.25, "OpenBLAS sgemm"});
  }

  // ---- memcpy bandwidth (bytes read + written per second) ----
  const size_t elems = size_t(rows * cols);
  std::vector<float> x(elems), y(elems), z(elems);
  for (size_t i = 0; i < elems; ++i) {
    x[i] = d(g);
    y[i] = d(g) + 2.0f;
  }
  memcpy(z.data(), x.data(), elems * 4);
  const double tcpy = median_seconds(runs, [&] { memcpy(z.data(), x.data(), elems * 4); });
  const double bw_memcpy = 2.0 * double(elems) * 4 / tcpy / 1e9;

  // ---- elementwise and reductions ----
  {
    tiled_binary<PTO_ADD, float>(x.data(), y.data(), z.data(), rows, cols);
    double t = median_seconds(runs, [&] { tiled_binary<PTO_ADD, float>(x.data(), y.data(), z.data(), rows, cols); });
    for (size_t i = 0; i < elems; i += 4099)
      if (z[i] != x[i] + y[i]) {
        fprintf(stderr, "kernels_bench: add result wrong at %zu\n", i);
        return 1;
      }
    table.push_back({"add fp32 (read 2, write 1)", "GB/s", 3.0 * double(elems) * 4 / t / 1e9, bw_memcpy, 0.40,
                     "memcpy"});
    t = median_seconds(runs, [&] { tiled_binary<PTO_MUL, float>(x.data(), y.data(), z.data(), rows, cols); });
    table.push_back({"mul fp32 (read 2, write 1)", "GB/s", 3.0 * double(elems) * 4 / t / 1e9, bw_memcpy, 0.40,
                     "memcpy"});
    std::vector<float> sums(static_cast<size_t>(rows));
    t = median_seconds(runs, [&] { tiled_rowsum(x.data(), sums.data(), rows, cols); });
    double s0 = 0;
    for (int64_t j = 0; j < cols; ++j) s0 += x[size_t(j)];
    if (std::fabs(s0 - sums[0]) > 1e-3) {
      fprintf(stderr, "kernels_bench: rowsum wrong (%g vs %g)\n", double(sums[0]), s0);
      return 1;
    }
    table.push_back({"rowsum fp32 (read 1)", "GB/s", double(elems) * 4 / t / 1e9, bw_memcpy, 0.40, "memcpy"});

    // 16-bit rows: the same loops on fp16 / bf16 data (half the bytes per element).
    std::vector<pto_f16> h(elems), h2(elems), hz(elems), hs(static_cast<size_t>(rows));
    std::vector<pto_bf16> bh(elems), bh2(elems), bz(elems), bs(static_cast<size_t>(rows));
    for (size_t i = 0; i < elems; ++i) {
      h[i].bits = pto::float_to_half_bits(d(g));
      h2[i].bits = pto::float_to_half_bits(d(g) + 2.0f);
      bh[i].bits = pto::float_to_bf16_bits(d(g));
      bh2[i].bits = pto::float_to_bf16_bits(d(g) + 2.0f);
    }
    auto check = [&](const char* what, auto& got, auto ref) {
      for (size_t i = 0; i < got.size(); i += 4099)
        if (!same_bits(got[i], ref(i))) {
          fprintf(stderr, "kernels_bench: %s result wrong at %zu\n", what, i);
          return false;
        }
      return true;
    };
    auto bin16 = [&](const char* name, auto op_tag, const auto& a, const auto& b, auto& z) {
      constexpr int OP = decltype(op_tag)::value;
      using T = std::decay_t<decltype(a[0])>;
      tiled_binary<OP, T>(a.data(), b.data(), z.data(), rows, cols);
      const double tt =
          median_seconds(runs, [&] { tiled_binary<OP, T>(a.data(), b.data(), z.data(), rows, cols); });
      if (!check(name, z, [&](size_t i) {
            return from_f<T>(OP == PTO_ADD ? to_f(a[i]) + to_f(b[i]) : to_f(a[i]) * to_f(b[i]));
          }))
        return false;
      table.push_back({name, "GB/s", 3.0 * double(elems) * 2 / tt / 1e9, bw_memcpy, 0.40, "memcpy"});
      return true;
    };
    using AddTag = std::integral_constant<int, PTO_ADD>;
    using MulTag = std::integral_constant<int, PTO_MUL>;
    if (!bin16("add fp16 (read 2, write 1)", AddTag{}, h, h2, hz)) return 1;
    if (!bin16("mul fp16 (read 2, write 1)", MulTag{}, h, h2, hz)) return 1;
    if (!bin16("add bf16 (read 2, write 1)", AddTag{}, bh, bh2, bz)) return 1;
    if (!bin16("mul bf16 (read 2, write 1)", MulTag{}, bh, bh2, bz)) return 1;
    auto rowsum16 = [&](const char* name, const auto& a, auto& out) {
      const double tt = median_seconds(runs, [&] { tiled_rowsum(a.data(), out.data(), rows, cols); });
      double want = 0;
      for (int64_t j = 0; j < cols; ++j) want += to_f(a[size_t(j)]);
      if (std::fabs(want - to_f(out[0])) > 0.01 * (1 + std::fabs(want))) {
        fprintf(stderr, "kernels_bench: %s wrong (%g vs %g)\n", name, double(to_f(out[0])), want);
        return false;
      }
      table.push_back({name, "GB/s", double(elems) * 2 / tt / 1e9, bw_memcpy, 0.40, "memcpy"});
      return true;
    };
    if (!rowsum16("rowsum fp16 (read 1)", h, hs)) return 1;
    if (!rowsum16("rowsum bf16 (read 1)", bh, bs)) return 1;
    // Casts: bytes read + written per second.
    t = median_seconds(runs, [&] { tiled_cast(h.data(), z.data(), rows, cols); });
    if (!check("cast fp16->fp32", z, [&](size_t i) { return to_f(h[i]); })) return 1;
    table.push_back({"cast fp16->fp32 (read 2 B, write 4 B)", "GB/s", 6.0 * double(elems) / t / 1e9, bw_memcpy,
                     0.40, "memcpy"});
    t = median_seconds(runs, [&] { tiled_cast(x.data(), hz.data(), rows, cols); });
    if (!check("cast fp32->fp16", hz, [&](size_t i) { return from_f<pto_f16>(x[i]); })) return 1;
    table.push_back({"cast fp32->fp16 (read 4 B, write 2 B)", "GB/s", 6.0 * double(elems) / t / 1e9, bw_memcpy,
                     0.40, "memcpy"});
    t = median_seconds(runs, [&] { tiled_exp_f16(h.data(), hz.data(), rows, cols); });
    table.push_back({"exp fp16 (read 1, write 1)", "GB/s", 2.0 * double(elems) * 2 / t / 1e9, bw_memcpy, 0,
                     "memcpy"});
  }

  printf("host-twin kernels benchmark (%s, median of %d runs; one thread; fp16 rows: %s, bf16 rows: %s)\n",
         quick ? "quick" : "full", runs, pto::host::f16c_rows_enabled() ? "F16C" : "scalar",
         pto::host::avx2_rows_enabled() ? "AVX2" : "scalar");
  printf("%-40s %10s %10s %10s %8s %8s  %s\n", "figure", "ours", "reference", "unit", "ratio", "target", "vs");
  for (const Row& r : table) {
    const double ratio = r.reference > 0 ? r.ours / r.reference : 0;
    char target[32] = "-";
    if (r.target > 0) snprintf(target, sizeof target, ">=%.0f%%", r.target * 100);
    char refs[32] = "n/a";
    if (r.reference > 0) snprintf(refs, sizeof refs, "%.2f", r.reference);
    char ratios[32] = "n/a";
    if (r.reference > 0) snprintf(ratios, sizeof ratios, "%.0f%%%s", ratio * 100,
                                  r.target > 0 ? (ratio >= r.target ? " ok" : " LOW") : "");
    printf("%-40s %10.2f %10s %10s %8s %8s  %s\n", r.name.c_str(), r.ours, refs, r.unit.c_str(), ratios, target,
           r.ref_name.c_str());
  }
  printf("memcpy bandwidth: %.2f GB/s (read + written)\n", bw_memcpy);
  return 0;
}
