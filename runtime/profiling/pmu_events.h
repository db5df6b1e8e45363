// PMU event groups (PYPTO_PROF_PMU_EVENT_TYPE 1, 2, 4, 5, 6, 7, 8) and the
// counter names PyPTO's tilefwk_pmu_to_csv.py writes for each architecture,
// with the values derived from what the machine model knows about a task.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ptoc::profiling {

// The fixed leading columns of tilefwk_prof_pmu.csv.
extern const std::vector<std::string> kPmuFixedColumns;

bool valid_pmu_group(int group);  // 1, 2, 4, 5, 6, 7, 8
// Counter names of `group` for arch "dav_2201" or "dav_3510" (empty when unknown).
std::vector<std::string> pmu_counter_names(int group, const std::string& arch);

// What the model measured for one task on one core.
struct PmuSource {
  bool cube = false;                 // ran on an AIC
  int64_t total_cycles = 0;          // core cycles from task start to end
  // busy cycles per pipe: MTE2, MTE1, M, FIX, V, MTE3, S (PipeId order)
  std::array<int64_t, 7> pipe_busy{};
  int64_t cube_fractals = 0;         // 16x16x16 fp16 MACs blocks issued
  int64_t vec_repeats = 0;           // 256-byte vector repeats issued
  int vec_elem_bytes = 2;            // dominant vector element size (4: fp32/int32, 2: fp16/bf16)
  int64_t instructions = 0;          // issued instructions (tile ops and syncs, approximated)
  int64_t icache_misses = 0;
  int64_t ub_read = 0, ub_write = 0, l1_read = 0, l1_write = 0;   // bytes
  int64_t l0a_read = 0, l0a_write = 0, l0b_read = 0, l0b_write = 0, l0c_read = 0, l0c_write = 0;
  int64_t gm_read = 0, gm_write = 0; // bytes to/from GM (through L2)
  int64_t l2_read_hit = 0, l2_read_miss = 0, l2_write_hit = 0, l2_write_miss = 0;  // in L2 lines
  int64_t bank_conflict_cycles = 0;
};

// Counter values in the order of pmu_counter_names(group, arch).
std::vector<int64_t> pmu_counter_values(int group, const std::string& arch, const PmuSource& s);

}  // namespace ptoc::profiling
