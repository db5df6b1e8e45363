// The four platform descriptions. Every number carries its source:
//   [INI]  CANN platform config src/platform/platform_config/<SoC>.ini (hicann/runtime 681ef7610),
//          as tabulated in shared/reference/ascend-platform.md §2.1
//   [PINI] PyPTO framework/src/platform/parser/platforminfo.ini (data paths), ascend-platform.md §4.3
//   [CYC]  PyPTO interface/operation/cycles.{h,cpp} (compile-time analytic costs), ascend-platform.md §2
//   [CM]   PyPTO cost_model/simulation/config/*.toml (CostModel), pypto-architecture.md §6
//   [FIT]  PyPTO cost_model/simulation/arch/A2A3/PostSimulatorA2A3.h (board-fitted latencies)
//   [PERF] PyPTO aicpu_perf.h FREQ_DAV_2201 / FREQ_DAV_3510 (pypto-profiling.md header)
//   [RT]   PyPTO machine/device/dynamic/device_sche.cpp: launch_sched_aicpu_num, cap 5 on A2/A3, 7 on 950
//          (pypto-architecture.md §5)
//   [WEB]  public figures: techpowerup 335749 (910C 3.2 TB/s per two dies), cloudnews (950PR 1.6 TB/s),
//          codcompass (950DT 4 TB/s) — ascend-platform.md §2.1
//   [MMG]  PyPTO docs/zh/tutorials/debug/matmul_performance_guide.md ("增加L2命中率": 6144^3 fp16 GEMM
//          2.1 ms / ~220 TFLOPS in 128-256 tiles, 1.6 ms / ~290 TFLOPS with 768x1024 views; L2 bandwidth
//          > 3x HBM bandwidth on A2/A3)
//   [STG]  PyPTO docs/zh/tutorials/debug/performance.md (Stitch调优, glm_attention: stitch 1 / 128 / 512
//          kernel 1230 / 180 / 150 us, end to end 1590 / 803 / 977 us)
//   [ASC]  CANN asc-devkit example data_copy/README (DataCopy best practice): MTE2 times measured on
//          Atlas A2/A3 and Ascend 950 boards for GM->UB and GM->L1 (ND2NZ) copies of several tile shapes
//   (derived) computed from cited numbers;  (estimate) our reasoned estimate, no published figure.
#include "platform.h"

namespace ptoc {
namespace {

// Runtime costs shared by all platforms (the AICPU runtime is the same code on all of them).
void set_runtime_costs(Platform& p) {
  // AICPU clock: PyPTO's CostModel counts AICPU and core cycles on one clock and its swimlane
  // converts them at 1800 cycles/us (draw_swim_lane --time_convert_denominator=1800) [CM].
  p.aicpu_mhz = 1800;
  p.sched_dispatch_cycles = 200;     // [CM] AICPUMachine "schedule" 200 cycles per task sent
  p.sched_resolve_cycles = 390;      // [CM] "resolve" 390 cycles per finished task
  p.sched_completion_cycles = 240;   // [CM] "completion" 240 cycles per completion noticed
  p.sched_resolve_per_succ_cycles = 40;  // (estimate) one atomic predCount decrement + ready check per edge
  p.build_base_cycles = 10000;       // [CM] device-level "stitch" 10 000 cycles per device task
  p.submit_cycles = 100;             // [CM] device-level "submit" 100 cycles
  // (estimate) per root: DevAscendFunctionDupped + expression table + workspace slot alloc + stitch of incasts;
  // per task: copy of one task descriptor + predCount init + successor list. Chosen so that a device task
  // of ~40 roots of ~30 tasks builds in ~50-80 us, inside the bounds PyPTO's test_ctrl_cpu_perf.py asserts
  // on hardware for paged attention (mean first build <= 143.5 us, pypto-profiling.md §3).
  p.build_per_root_cycles = 1500;
  p.build_per_task_cycles = 60;
  // (estimate) AICPU thread bring-up: thread start ~5 us, runtime init ~10 us, core handshake
  // (set_cond INIT + HELLO + dcci round trip per core slice) ~3 us, exit ~1 us; launch gap between
  // rounds (host rtKernelLaunch of the AICPU + AICore kernels) ~20 us.
  p.thread_start_cycles = 9000;
  p.init_cycles = 18000;
  p.handshake_cycles = 5400;
  p.exit_cycles = 1800;
  p.launch_gap_cycles = 36000;
  // (estimate) per device task on each scheduler: dequeue + predCount table set-up (RCV), stop notice to
  // its cores (SYNC_CORE_STOP) and the response to Control (RSP), each a few shared-memory round trips.
  p.devtask_rcv_cycles = 2000;
  p.devtask_sync_stop_cycles = 1800;
  p.devtask_rsp_cycles = 900;
}

Platform make_910b1() {
  Platform p;
  p.name = "ascend910b1";
  p.soc = "Ascend910B1";                // [INI]
  p.arch = "dav_2201";                  // [INI] NpuArch 2201, AIC-C-220
  p.cce_arch_cube = "dav-c220-cube";
  p.cce_arch_vec = "dav-c220-vec";
  p.aic = 24;                           // [INI] ai_core_cnt 24
  p.aiv = 48;                           // [INI] vector_core_cnt 48
  p.aicpu = 6;                          // [INI] aicpu count 6 = 1 Control + 5 Schedule
  p.max_sched_aicpu = 5;                // [RT] hardware cap 5 scheduler threads on A2/A3
  p.core_mhz = 1850;                    // [INI] cube_freq 1850
  p.counter_freq_mhz = 50;              // [PERF] FREQ_DAV_2201 = 50
  p.ub = 196608;                        // [INI] 192 KiB per AIV
  p.l1 = 524288;                        // [INI] 512 KiB per AIC
  p.l0a = 65536;                        // [INI]
  p.l0b = 65536;                        // [INI]
  p.l0c = 131072;                       // [INI] 128 KiB
  p.l2 = 192ll << 20;                   // [INI] l2_size 192 MiB
  // [CM] + [MMG] Capacity the model keeps for reuse: PyPTO's own CostModel of this chip uses a 20 MiB
  // L2 (CacheConfig.toml l2Size 20971520, 512 B lines, 6 ports), not the ini's 192 MiB. The matmul guide's
  // measurement needs it: a 6144^3 fp16 GEMM in 128x256 tiles takes 2.1 ms, 1.6 ms once the output is cut
  // into 768x1024 views (mDim*mL1 = nDim*nL1), which is only possible if B (72 MiB) does not stay resident
  // across rounds; with 192 MiB every form would hit. Writes allocate in it as reads do. Checked against the
  // other published figures (session 9, MODEL.md part 6): CANN's own GEMM tilers keep L2 batches under
  // 100 MiB (L2_TILE_THRESHOLD) and the asc-devkit board reuses a 72 MiB set, but at 100 MiB (or 192) the
  // guide's one root reuses A across columns too (0.98x); no sourced capacity gives both, so 20 MiB stays.
  p.l2_reuse = 20ll << 20;
  p.hbm = 64ll << 30;                   // [INI] memory_size 64 GiB
  p.gm_read_bpc = 32;                   // [INI] AICoreMemoryRates ddr 32 B/cycle/core (unit: ascend-platform.md reading)
  p.gm_write_bpc = 32;                  // [INI] ddr write 32
  p.l2_read_bpc = 110;                  // [INI] l2 read 110
  p.l2_write_bpc = 86;                  // [INI] l2 write 86
  p.l1_to_l0a_bpc = 512;                // [INI]
  p.l1_to_l0b_bpc = 256;                // [INI]
  p.l0c_to_ub_bpc = 0;                  // [PINI] no L0C->UB path on 2201 (the ini's 256 is unusable)
  p.l1_to_ub_bpc = 0;                   // [PINI] no L1<->UB path on 2201
  p.ub_to_gm_bpc = 64;                  // [INI] UB->DDR 64
  p.l0c_to_gm_bpc = 64;                 // (estimate) FixPipe out as wide as UB->GM; HBM share limits it anyway
  // HBM: the ini gives 32 x 24 x 1.85 GHz = 1.42 TB/s (derived); the public per-die figure of the same
  // 2201 die in 910C is 3.2 TB/s / 2 = 1.6 TB/s [WEB]. The shared pool is the published peak.
  p.hbm_total_gbps = 1600;
  p.vec_bytes_per_cycle = 256;          // [CYC] BYTES_PER_REPEAT 256
  p.vec_startup_cycles = 6;             // [CYC] add start-up 6
  p.dma_startup_cycles = 50;            // [CYC] UB copy-in/out 50
  p.l1_dma_startup_cycles = 200;        // [CYC] L1 copy-in / L0C copy-out 200
  p.l2_hit_latency_cycles = 50;         // [CM] CacheMachine hit 50
  p.gm_latency_cycles = 200;            // [CM] miss = hit 50 + 150
  // [ASC] GM->L1 ND2NZ on 24 AICs, 302 MB in [64,64] fp16 tiles (128 B rows): MTE2 283.5 us, i.e.
  // 12.58 MB/core = 98304 rows in 524 490 cycles = 5.34 cycles per row (24 B/cycle, below the 32 of the
  // ini); the same copy in [64,256] tiles (512 B rows) runs at 31.7 B/cycle = the ini rate (derived).
  // So a row costs max(bytes / 32, 5.34): a burst floor, not a per-byte loss. Writes (MTE3, FixPipe
  // NZ->ND) use the same floor (estimate: the same DMA engine design; no published write figure).
  p.dma_burst_min_cycles = 5.34;
  p.task_head_cycles = 1500;            // (estimate) per task: read id register, ACK set_cond, load funcData and
                                        // op attrs, PipeSync, FIN set_cond: ~0.8 us; PyPTO's guide treats
                                        // tasks under ~10 us as head-dominated (VecNBuffer advice)
  p.devtask_refresh_cycles = 900;       // (estimate) core dcci refresh of the cached devTask data, ~0.5 us
  set_runtime_costs(p);
  return p;
}

Platform make_910_9391() {
  Platform p = make_910b1();            // the A3 die is the same dav_2201 die [INI]
  p.name = "ascend910_9391";
  p.soc = "Ascend910_9391";             // [INI] Short_SoC_version Ascend910_93
  p.aic = 24;                           // [INI] 24 : 48
  p.aiv = 48;
  p.aicpu = 6;                          // [INI]
  p.core_mhz = 1850;                    // [INI] 1850 (9381/82: 1800)
  p.hbm = 64ll << 30;                   // [INI] 64 GiB per die
  p.l2 = 192ll << 20;                   // [INI]
  p.hbm_total_gbps = 1600;              // [WEB] 910C 3.2 TB/s per two-die package -> 1.6 TB/s per die (derived)
  return p;
}

Platform make_950(bool dt) {
  Platform p;
  p.name = dt ? "ascend950dt" : "ascend950pr";
  p.soc = dt ? "Ascend950DT_9581" : "Ascend950PR_9589";  // [INI]
  p.arch = "dav_3510";                  // [INI] NpuArch 3510, AIC-C-310
  p.cce_arch_cube = "dav-c310-cube";
  p.cce_arch_vec = "dav-c310-vec";
  p.aic = 32;                           // [INI] 32 : 64
  p.aiv = 64;
  p.aicpu = 6;                          // [INI] aicpu 6 (9579/9572: 7)
  p.max_sched_aicpu = 7;                // [RT] <= 7 scheduler threads on 950; the 6 AICPUs allow 5
  p.core_mhz = 1650;                    // [INI] cube_freq = vec 1650
  p.counter_freq_mhz = 1000;            // [PERF] FREQ_DAV_3510 = 1000
  p.ub = 253952;                        // [INI] 248 KiB
  p.l1 = 524288;                        // [INI]
  p.l0a = 65536;                        // [INI]
  p.l0b = 65536;                        // [INI]
  p.l0c = 262144;                       // [INI] 256 KiB
  p.l2 = 128ll << 20;                   // [INI] 128 MiB
  p.l2_reuse = 20ll << 20;              // (estimate) the CostModel figure of A2/A3; no 950 CostModel config
  p.hbm = dt ? (144ll << 30) : (128ll << 30);  // [INI] 950DT_9581 144 GiB, 950PR 128 GiB
  p.gm_read_bpc = dt ? 80 : 31;         // [INI] ddr 80 (950DT) / 31 (950PR)
  p.gm_write_bpc = dt ? 80 : 31;        // [INI]
  p.l2_read_bpc = 100;                  // [INI]
  p.l2_write_bpc = 100;                 // [INI]
  p.l1_to_l0a_bpc = 256;                // [INI]
  p.l1_to_l0b_bpc = 256;                // [INI]
  p.l0c_to_ub_bpc = 128;                // [INI] + [PINI] L0C->UB exists on 3510
  p.l1_to_ub_bpc = 128;                 // [INI] + [PINI]
  p.ub_to_gm_bpc = 128;                 // [INI]
  p.l0c_to_gm_bpc = 128;                // (estimate) FixPipe as wide as the UB paths
  // HBM pool: the published figure [WEB] (950PR HiBL 1.6 TB/s; 950DT HiZQ 2.0 4 TB/s); the ini
  // formula gives 1.64 / 4.2 TB/s (derived), consistent.
  p.hbm_total_gbps = dt ? 4000 : 1600;
  p.vec_bytes_per_cycle = 256;          // [CYC] vector_reg_width 256 [INI]
  p.vec_startup_cycles = 6;             // [CYC]
  p.dma_startup_cycles = 50;            // [CYC]
  p.l1_dma_startup_cycles = 200;        // [CYC]
  p.l2_hit_latency_cycles = 50;         // [CM]
  p.gm_latency_cycles = 200;            // [CM]
  // [ASC] 950 series, 32 AICs, the same ND2NZ copy in 128 B rows: 241.56 us for 9.44 MB/core = 73728 rows
  // in 398 574 cycles at 1650 MHz = 5.41 cycles per row (derived); 512 B rows run at the HBM roof.
  p.dma_burst_min_cycles = 5.41;
  p.task_head_cycles = 1350;            // (estimate) same ~0.8 us head at 1650 MHz
  p.devtask_refresh_cycles = 800;       // (estimate) ~0.5 us
  set_runtime_costs(p);
  return p;
}

}  // namespace

const std::vector<Platform>& all_platforms() {
  static const std::vector<Platform> v = {make_910b1(), make_910_9391(), make_950(false), make_950(true)};
  return v;
}
const Platform* find_platform(std::string_view name) {
  for (const auto& p : all_platforms())
    if (p.name == name) return &p;
  return nullptr;
}
std::string platform_names() {
  std::string s;
  for (const auto& p : all_platforms()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}
}  // namespace ptoc
