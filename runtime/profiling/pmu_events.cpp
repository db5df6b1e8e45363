#include "pmu_events.h"

#include <map>

namespace ptoc::profiling {

const std::vector<std::string> kPmuFixedColumns = {"thread id", "task id", "stream id", "core id",
                                                   "seqNo", "sub task id", "total cycle"};

bool valid_pmu_group(int g) { return g == 1 || g == 2 || (g >= 4 && g <= 8); }

// Names as tools/profiling/tilefwk_pmu_to_csv.py writes them (hicann/pypto), including its
// repeated "l0a_read_req" in group 5 on dav_2201, so PyPTO-side scripts read our CSV unchanged.
std::vector<std::string> pmu_counter_names(int group, const std::string& arch) {
  static const std::map<int, std::vector<std::string>> v2201 = {
      {1, {"cube_fp16_exec", "cube_int8_exec", "vec_fp32_exec", "vec_fp16_128lane_exec", "vec_fp16_64lane_exec",
           "vec_int32_exec", "vec_misc_exec"}},
      {2, {"vec_busy_cycles", "cube_busy_cycles", "scalar_busy_cycles", "mte1_busy_cycles", "mte2_busy_cycles",
           "mte3_busy_cycles", "icache_miss", "icache_req"}},
      {4, {"ub_read_req", "ub_write_req", "l1_read_req", "l1_write_req", "l2_read_req", "l2_write_req",
           "main_read_req", "main_write_req"}},
      {5, {"l0a_read_req", "l0a_read_req", "l0b_read_req", "l0b_write_req", "l0c_read_req", "l0c_write_req"}},
      {6, {"bankgroup_stall_cycles", "bank_stall_cycles", "vec_resc_conflict_cycles"}},
      {7, {"ub_read_bw_mte", "l2_write_bw", "main_mem_write_bw", "ub_write_bw_mte", "ub_read_bw_vector",
           "ub_write_bw_vector", "ub_read_bw_scalar", "ub_write_bw_scalar"}},
      {8, {"write_cache_hit", "write_cache_miss_allocate", "r0_read_cache_hit", "r0_read_cache_miss_allocate",
           "r1_read_cache_hit", "r1_read_cache_miss_allocate"}},
  };
  static const std::map<int, std::vector<std::string>> v3510 = {
      {1, {"cube_fp_instr_busy", "cube_int_instr_busy"}},
      {2, {"pmu_idc_aic_vec_busy_o", "cube_instr_busy", "scalar_instr_busy", "mte1_instr_busy", "mte2_instr_busy",
           "mte3_instr_busy", "icache_req", "icache_miss", "pmu_fix_instr_busy"}},
      {4, {"bif_sc_pmu_read_main_instr_core", "bif_sc_pmu_write_main_instr_core", "pmu_aiv_ext_rd_ub_instr",
           "ub_pmu_vec_rd_ub_acc", "pmu_aiv_ext_wr_ub_instr", "ub_pmu_vec_wr_ub_acc", "pmu_rd_l1_instr",
           "pmu_wr_l1_instr"}},
      {5, {"cube_sc_pmu_read_l0a_instr", "pmu_wr_l0a_instr", "cube_sc_pmu_read_l0b_instr", "pmu_wr_l0b_instr",
           "fixp_rd_l0c_instr", "cube_sc_pmu_read_l0c_instr", "cube_sc_pmu_write_l0c_instr"}},
      {6, {"stu_pmu_wctl_ub_cflt", "ldu_pmu_ib_ub_cflt", "pmu_idc_aic_vec_instr_vf_busy_o", "idu_pmu_ins_iss_cnt"}},
      {7, {"pmu_rd_acc_ub_instr_p", "pmu_wr_acc_ub_instr_p", "pmu_fix_wr_ub_instr", "mte_sc_pmu_write_acc_ub_instr_0",
           "mte_sc_pmu_read_acc_ub_instr_0", "ub_pmu_vec_rd_ub_acc", "ub_pmu_vec_wr_ub_acc"}},
      {8, {"bif_sc_pmu_ar_close_l2_hit_core", "bif_sc_pmu_ar_close_l2_miss_core", "bif_sc_pmu_ar_close_l2_victim_core",
           "bif_sc_pmu_aw_close_l2_hit_core", "bif_sc_pmu_aw_close_l2_miss_core", "bif_sc_pmu_aw_close_l2_victim_core"}},
  };
  const auto& table = arch == "dav_3510" ? v3510 : v2201;
  if (arch != "dav_3510" && arch != "dav_2201") return {};
  auto it = table.find(group);
  return it == table.end() ? std::vector<std::string>{} : it->second;
}

namespace {
// One request moves one 32-byte block (the UB block size and L1 alignment); GM-side requests are
// counted in the same unit so ratios between buffers read naturally.
int64_t req(int64_t bytes) { return (bytes + 31) / 32; }
enum P { MTE2, MTE1, M, FIX, V, MTE3, S };
}  // namespace

std::vector<int64_t> pmu_counter_values(int group, const std::string& arch, const PmuSource& s) {
  const bool v3510 = arch == "dav_3510";
  const auto& b = s.pipe_busy;
  // Vector repeats split by element width: 4-byte types count as fp32 (or int32), 2-byte as fp16 128-lane.
  int64_t vec_fp32 = s.vec_elem_bytes == 4 ? s.vec_repeats : 0;
  int64_t vec_fp16 = s.vec_elem_bytes == 2 ? s.vec_repeats : 0;
  int64_t vec_misc = s.vec_elem_bytes == 1 ? s.vec_repeats : 0;
  // Bytes per cycle over the task's duration, in the counters' fixed-point convention (bytes per 1000 cycles).
  auto bw = [&](int64_t bytes) { return s.total_cycles > 0 ? bytes * 1000 / s.total_cycles : 0; };
  if (!v3510) {
    switch (group) {
      case 1: return {s.cube_fractals, 0, vec_fp32, vec_fp16, 0, 0, vec_misc};
      case 2: return {b[V], b[M], b[S], b[MTE1], b[MTE2], b[MTE3], s.icache_misses, s.instructions};
      case 4: return {req(s.ub_read), req(s.ub_write), req(s.l1_read), req(s.l1_write),
                      req(s.gm_read), req(s.gm_write), s.l2_read_miss * 16, s.l2_write_miss * 16};
      case 5: return {req(s.l0a_read), req(s.l0a_write), req(s.l0b_read), req(s.l0b_write), req(s.l0c_read), req(s.l0c_write)};
      case 6: return {s.bank_conflict_cycles, s.bank_conflict_cycles / 2, 0};
      case 7: return {bw(s.ub_read), bw(s.gm_write), bw(s.l2_write_miss * 512), bw(s.ub_write),
                      bw(s.cube ? 0 : s.ub_read), bw(s.cube ? 0 : s.ub_write), 0, 0};
      case 8: return {s.l2_write_hit, s.l2_write_miss, s.l2_read_hit, s.l2_read_miss, 0, 0};
    }
  } else {
    switch (group) {
      case 1: return {b[M], 0};
      case 2: return {b[V], b[M], b[S], b[MTE1], b[MTE2], b[MTE3], s.instructions, s.icache_misses, b[FIX]};
      case 4: return {req(s.gm_read), req(s.gm_write), req(s.ub_read), req(s.ub_read), req(s.ub_write), req(s.ub_write),
                      req(s.l1_read), req(s.l1_write)};
      case 5: return {req(s.l0a_read), req(s.l0a_write), req(s.l0b_read), req(s.l0b_write), req(s.l0c_read),
                      req(s.l0c_read), req(s.l0c_write)};
      case 6: return {s.bank_conflict_cycles, 0, b[V], s.instructions};
      case 7: return {req(s.ub_read), req(s.ub_write), 0, req(s.ub_write), req(s.ub_read), req(s.ub_read), req(s.ub_write)};
      case 8: return {s.l2_read_hit, s.l2_read_miss, 0, s.l2_write_hit, s.l2_write_miss, 0};
    }
  }
  return {};
}

}  // namespace ptoc::profiling
