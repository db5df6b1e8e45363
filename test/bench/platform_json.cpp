// Prints every platform's roofline constants as JSON, straight from runtime/platform.h, so that
// roofline.py uses the simulator's own numbers (Platform::peak_cube_flops, hbm_bytes_per_s and the
// vector repeat rate) rather than a copy of them.
#include <cstdio>

#include "runtime/core/platform.h"

int main() {
  std::printf("{");
  bool first = true;
  for (const auto& p : ptoc::all_platforms()) {
    std::printf("%s\n  \"%s\": {\"aic\": %d, \"aiv\": %d, \"core_mhz\": %.1f, \"peak_cube_flops\": %.6e, "
                "\"hbm_bytes_per_s\": %.6e, \"vec_bytes_per_s\": %.6e, \"gm_read_bpc\": %.1f, \"l2\": %lld}",
                first ? "" : ",", p.name.c_str(), p.aic, p.aiv, p.core_mhz, p.peak_cube_flops(), p.hbm_bytes_per_s(),
                double(p.aiv) * p.vec_bytes_per_cycle * p.core_mhz * 1e6, p.gm_read_bpc, (long long)p.l2);
    first = false;
  }
  std::printf("\n}\n");
  return 0;
}
