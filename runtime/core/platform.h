// One description per supported Ascend platform. Every constant of the
// compiler's cost estimate and of the machine model lives here, with its
// source beside it in platform.cpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptoc {

struct Platform {
  std::string name;            // ptoc --target spelling: ascend910b1, ascend910_9391, ascend950pr, ascend950dt
  std::string soc;             // CANN SoC name, e.g. "Ascend910B1"
  std::string arch;            // "dav_2201" | "dav_3510" (PMU --arch, PyPTO NpuArch)
  std::string cce_arch_cube;   // "dav-c220-cube" | "dav-c310-cube" (bisheng --cce-aicore-arch)
  std::string cce_arch_vec;    // "dav-c220-vec"  | "dav-c310-vec"

  // Cores and clocks
  int aic = 0, aiv = 0;        // AI Cube / AI Vector cores
  int aicpu = 0;               // AICPUs: one Control, the rest Schedule (capped by max_sched_aicpu)
  int max_sched_aicpu = 0;     // hardware cap on scheduler threads
  double core_mhz = 0;         // AI Core clock
  double aicpu_mhz = 0;        // AICPU clock (for the scheduler's cycle costs)
  int64_t counter_freq_mhz = 0;  // device system counter ticks per us (`freq`): 50 on dav_2201, 1000 on dav_3510

  // Buffers (bytes) and their start alignment
  int64_t ub = 0, l1 = 0, l0a = 0, l0b = 0, l0c = 0, l2 = 0, hbm = 0;
  int64_t l2_reuse = 0;        // L2 bytes the machine model keeps for reuse (0: all of l2); see platform.cpp
  int64_t align_ub = 32, align_l1 = 32, align_l0a = 512, align_l0b = 512, align_l0c = 64;

  // Data paths, bytes per core cycle
  double gm_read_bpc = 0, gm_write_bpc = 0;   // HBM <-> core (per core)
  double l2_read_bpc = 0, l2_write_bpc = 0;   // L2 hit <-> core
  double l1_to_l0a_bpc = 0, l1_to_l0b_bpc = 0, l0c_to_ub_bpc = 0, l1_to_ub_bpc = 0, ub_to_gm_bpc = 0;
  double l0c_to_gm_bpc = 0;                   // FixPipe out
  double hbm_total_gbps = 0;                  // aggregate HBM bandwidth shared by all cores (GB/s)

  // Compute
  int cube_m = 16, cube_n = 16, cube_k = 16;  // one fractal per cycle (fp16/bf16)
  int vec_bytes_per_cycle = 256;              // one vector repeat
  int vec_startup_cycles = 6;                 // per vector instruction start-up (add); op-specific in the cost table
  int dma_startup_cycles = 50;                // UB copy-in/out start-up; L1 copy-in / L0C copy-out use l1_dma_startup
  int l1_dma_startup_cycles = 200;
  // DMA burst floor: a GM<->core DMA (MTE2 read, MTE3 / FixPipe write) moves a tile as one burst per
  // contiguous row segment, and a burst occupies the engine at least this long however short it is, so
  // a copy of R rows of B bytes takes max(R*B / bpc, R * dma_burst_min_cycles) after its start-up.
  double dma_burst_min_cycles = 0;
  int gm_latency_cycles = 0;                  // first-byte latency of a GM read (miss)
  int l2_hit_latency_cycles = 0;

  // Runtime costs (cycles of the AICPU / AI Core clock as named)
  int64_t task_head_cycles = 0;               // AI Core: per-task head (fetch id, ACK, param load, PipeSync, FIN)
  int64_t sched_dispatch_cycles = 0;          // AICPU: send one task to a core
  int64_t sched_resolve_cycles = 0;           // AICPU: resolve one finished task's successors
  int64_t sched_completion_cycles = 0;        // AICPU: notice one completion
  int64_t build_base_cycles = 0;              // Control AICPU: fixed cost per device-task build (stitch)
  int64_t build_per_root_cycles = 0;          // ... plus per root-function instance
  int64_t build_per_task_cycles = 0;          // ... plus per task
  int64_t thread_start_cycles = 0, init_cycles = 0, handshake_cycles = 0, exit_cycles = 0;
  // Added by the machine model (same clocks as above):
  int64_t sched_resolve_per_succ_cycles = 0;  // AICPU: per successor edge decremented on completion
  int64_t submit_cycles = 0;                  // Control AICPU: push one built device task to the schedulers
  int64_t launch_gap_cycles = 0;              // AICPU clock: host launch gap between two rounds
  int64_t devtask_rcv_cycles = 0;             // Schedule AICPU: receive one device task
  int64_t devtask_sync_stop_cycles = 0;       // Schedule AICPU: stop notice to its cores after a device task
  int64_t devtask_rsp_cycles = 0;             // Schedule AICPU: completion response to Control
  int64_t devtask_refresh_cycles = 0;         // AI Core: refresh the cached device-task data (dcci)

  // Schedule AICPU threads actually used: every AICPU but the Control one, up to the hardware cap.
  int sched_threads() const { return std::max(1, std::min(aicpu - 1, max_sched_aicpu)); }
  // Peaks (derived): fp16 cube FLOP/s = AIC x 16x16x16 MAC x 2 x clock; HBM bytes/s.
  double peak_cube_flops() const { return double(aic) * cube_m * cube_n * cube_k * 2.0 * core_mhz * 1e6; }
  double hbm_bytes_per_s() const { return hbm_total_gbps * 1e9; }
  // Roofline bound of an operator (seconds): cube FLOPs at peak or HBM bytes at the pool rate.
  double roofline_seconds(double cube_flops, double hbm_bytes) const {
    return std::max(cube_flops / peak_cube_flops(), hbm_bytes / hbm_bytes_per_s());
  }

  int npu_arch() const { return arch == "dav_3510" ? 3510 : 2201; }
  bool is_950() const { return npu_arch() == 3510; }
};

const std::vector<Platform>& all_platforms();
// nullptr when unknown; callers list all_platforms() names in their error.
const Platform* find_platform(std::string_view name);
std::string platform_names();  // "ascend910b1, ascend910_9391, ascend950pr, ascend950dt"

}  // namespace ptoc
