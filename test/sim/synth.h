// Synthetic programs and device-task streams for the machine-model tests and
// the benchmark: leaves with given costs, roots as lists of tasks with GM
// accesses and successors, cut into device tasks of `stitch` roots.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/program/compiled_program.h"
#include "runtime/device_task.h"
#include "runtime/core/platform.h"
#include "runtime/sim/machine.h"

namespace ptoc::sim::test {

// A leaf whose cost follows the platform tables: `gm_bytes` moved through MTE2/MTE3 at the per-core
// GM rate, `compute_cycles` of cube or vector work, `chains` overlapped tile chains.
inline int add_leaf(CompiledProgram& p, CoreType core, int64_t compute_cycles, int64_t gm_bytes, int chains,
                    const Platform& pf) {
  LeafFunction lf;
  lf.id = int(p.leaves.size());
  lf.hash = 0x1000 + uint64_t(lf.id) * 7919;
  lf.core = core;
  lf.chains = chains;
  const int64_t mem = int64_t(double(gm_bytes) / pf.gm_read_bpc) + pf.dma_startup_cycles;
  lf.pipe_cycles[int(core == CoreType::AIC ? PipeId::M : PipeId::V)] = compute_cycles;
  lf.pipe_cycles[int(PipeId::MTE2)] = mem;
  // One chain: load, compute, store in sequence; c chains overlap all but one chain's load.
  lf.est_cycles = chains <= 1 ? mem + compute_cycles : mem / chains + std::max(compute_cycles, mem - mem / chains);
  p.leaves.push_back(lf);
  return lf.id;
}

struct SynthTask {
  int leaf = 0;
  std::vector<runtime::GmAccess> acc;
  std::vector<int> succ;  // indices within the root, or (with cross) global task numbers of later roots
};

struct SynthRoot {
  int root = 0;
  std::vector<SynthTask> tasks;
};

inline runtime::GmAccess rd(uint64_t addr, uint64_t bytes, int tensor = -1) {
  runtime::GmAccess a;
  a.addr = addr;
  a.rows = 1;
  a.row_bytes = bytes;
  a.row_stride = bytes;
  a.tensor = tensor;
  return a;
}
inline runtime::GmAccess wr(uint64_t addr, uint64_t bytes, int tensor = -1) {
  auto a = rd(addr, bytes, tensor);
  a.write = true;
  return a;
}

// Cuts `roots` into device tasks of `stitch` roots; `cross(i)` lists (root j > i, task) edges from
// root i's last task to later roots (stitched dependencies) — here: none unless given.
class RootStream {
 public:
  RootStream(std::vector<SynthRoot> roots, int stitch) : roots_(std::move(roots)), stitch_(stitch) {}
  bool operator()(int /*round*/, runtime::DeviceTask& dt) {
    if (next_ >= roots_.size()) {
      next_ = 0;  // next round starts over
      return false;
    }
    dt.roots.clear();
    dt.tasks.clear();
    dt.waits_for.clear();
    dt.workspace_bytes = 0;
    const size_t end = std::min(roots_.size(), next_ + size_t(stitch_));
    for (size_t r = next_; r < end; ++r) {
      const SynthRoot& sr = roots_[r];
      runtime::RootInstance ri;
      ri.root = sr.root;
      dt.roots.push_back(ri);
      const uint32_t base = uint32_t(dt.tasks.size());
      for (size_t t = 0; t < sr.tasks.size(); ++t) {
        runtime::TaskInstance ti;
        ti.root_instance = uint32_t(r - next_);
        ti.task = uint32_t(t);
        ti.leaf = sr.tasks[t].leaf;
        ti.task_id = uint32_t((r << 16) | t);
        ti.accesses = sr.tasks[t].acc;
        for (int s : sr.tasks[t].succ) ti.succ.push_back(base + uint32_t(s));
        dt.tasks.push_back(std::move(ti));
      }
    }
    for (auto& t : dt.tasks)
      for (uint32_t s : t.succ) dt.tasks[s].pred_count++;
    next_ = end;
    return true;
  }

 private:
  std::vector<SynthRoot> roots_;
  size_t next_ = 0;
  int stitch_;
};

inline CompiledProgram base_program(int nroots = 1) {
  CompiledProgram p;
  p.name = "synthetic";
  for (int i = 0; i < nroots; ++i) {
    RootFunction rf;
    rf.index = i;
    rf.hash = 0xabc0 + uint64_t(i);
    p.roots.push_back(rf);
  }
  return p;
}

inline Trace run(const Platform& pf, const CompiledProgram& p, std::vector<SynthRoot> roots, int stitch,
                 SimOptions o = {}) {
  RootStream s(std::move(roots), stitch);
  DeviceTaskSource src = [&](int r, runtime::DeviceTask& dt) { return s(r, dt); };
  return simulate(pf, p, o, src);
}

}  // namespace ptoc::sim::test
