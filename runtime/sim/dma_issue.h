// The part of a DMA copy's start-up that the next copy cannot hide: the MTE2 queue still spends
// `dma_issue_cycles` on every copy instruction, however many are queued back to back.
//
// Source: the CANN asc-devkit data_copy README (05_best_practices/04_memory_access/data_copy,
// optimization point 1, GM -> UB scenario 1): a 12288 x 12288 fp16 matrix copied in [1, 64] tiles, one
// 128 B burst per DataCopyPad instruction, MTE2 busy 98.9 % of the task:
//   Atlas A2/A3, 48 AIVs: aiv_mte2_time 548.161 us for 12288 x 192 / 48 = 49 152 instructions per AIV
//     = 548.161 x 1850 / 49 152 = 20.63 cycles an instruction (302 MB in 548 us = 0.55 TB/s: not HBM-bound);
//   Ascend 950, 64 AIVs: 881.13 us x 1650 / 36 864 = 39.44 cycles an instruction.
// One 128 B burst costs the burst floor (5.34 / 5.41 cycles, Platform::dma_burst_min_cycles, fitted to
// the same README's GM -> L1 figures), so the rest is the instruction's own cost on the queue:
//   dav_2201 20.63 - 5.34 = 15.3 cycles, dav_3510 39.44 - 5.41 = 34.0 cycles.
// The model before this charged each copy after the first nothing but its bytes or bursts (all of its
// 50 / 200-cycle start-up hidden): 6 cycles for that instruction, 3.4x below the board.
// The same cost is taken for GM -> L1 copies (estimate: the same MTE2 queue; the README has no
// single-burst GM -> L1 case; its [64,64] GM -> L1 figure, 1536 instructions a core, would move the
// fitted floor by 4.5 % at most).
#pragma once
#include <algorithm>
#include <cstdint>

#include "runtime/core/platform.h"

namespace ptoc::sim {

inline int64_t dma_issue_cycles(const Platform& p) {
  const int64_t issue = p.arch == "dav_3510" ? 34 : 15;  // 15.3 rounded down: cycles are whole
  return std::min<int64_t>(issue, std::min(p.dma_startup_cycles, p.l1_dma_startup_cycles));
}

}  // namespace ptoc::sim
