// Machine-model speed: simulated tasks and task events per host second, simulated device time per
// host second and peak RSS, timing-only, on device-task streams generated lazily (memory must grow
// with the tasks in flight, not with the run). `sim_bench --quick` is the CI smoke run (< 1 min).
//
// A "task event" is one scheduled event of the model's event list (dispatch, start, memory join,
// HBM share change, end, resolve ...); the table prints both tasks/s and events/s, per second of
// process CPU time (wall time is printed too; the two differ when the machine is loaded).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/platform.h"
#include "runtime/sim/machine.h"

using namespace ptoc;
using namespace ptoc::sim;

namespace {

struct Workload {
  const char* name;
  uint64_t tasks;
  int tasks_per_root;
  int stitch;
  int mode;
};

// Process CPU time: the rates divide by it, so other load on the machine does not count.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// A synthetic operator: roots of `per_root` tasks, vector (2/3) and cube (1/3) leaves; inside a
// root, chains of 4 dependent tasks (producer -> consumer through a GM workspace tile). Addresses
// wrap inside a 4 GiB footprint, as a loop over a fixed set of tensors does.
struct Generator {
  uint64_t total, made = 0;
  int per_root, stitch;
  bool operator()(int, runtime::DeviceTask& dt) {
    if (made >= total) return false;
    dt.roots.clear();
    dt.tasks.clear();
    for (int r = 0; r < stitch && made < total; ++r) {
      runtime::RootInstance ri;
      ri.root = 0;
      dt.roots.push_back(ri);
      const uint32_t base = uint32_t(dt.tasks.size());
      for (int t = 0; t < per_root && made < total; ++t, ++made) {
        runtime::TaskInstance ti;
        ti.root_instance = uint32_t(dt.roots.size() - 1);
        ti.task = uint32_t(t);
        ti.leaf = (t % 3 == 2) ? 1 : 0;
        ti.task_id = uint32_t((dt.roots.size() - 1) << 16 | uint32_t(t));
        const uint64_t tile = 32768;
        const uint64_t a = (made * tile) & ((4ull << 30) - 1);
        runtime::GmAccess in{a, 1, tile, tile, -1, false}, out{(a + (8ull << 30)) & ~0ull, 1, tile, tile, -1, true};
        ti.accesses = {in, out};
        if (t % 4 != 3 && t + 1 < per_root) ti.succ.push_back(base + uint32_t(t) + 1);
        dt.tasks.push_back(std::move(ti));
      }
    }
    for (auto& t : dt.tasks)
      for (uint32_t s : t.succ) dt.tasks[s].pred_count++;
    return true;
  }
};

CompiledProgram program(const Platform& pf) {
  CompiledProgram p;
  RootFunction rf;
  rf.index = 0;
  p.roots.push_back(rf);
  LeafFunction v, c;
  v.id = 0;
  v.core = CoreType::AIV;
  v.pipe_cycles[int(PipeId::V)] = 3000;
  v.pipe_cycles[int(PipeId::MTE2)] = int64_t(32768 / pf.gm_read_bpc);
  v.est_cycles = 4500;
  v.chains = 2;
  c = v;
  c.id = 1;
  c.core = CoreType::AIC;
  c.pipe_cycles[int(PipeId::V)] = 0;
  c.pipe_cycles[int(PipeId::M)] = 6000;
  c.est_cycles = 7000;
  p.leaves = {v, c};
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const Platform& pf = *find_platform("ascend910b1");
  const CompiledProgram prog = program(pf);
  std::vector<Workload> ws = {
      {"64 roots x 64, stitch 16, mode 0", 4096, 64, 16, 0},
      {"1M tasks, stitch 64, mode 0", 1000000, 64, 64, 0},
      {"1M tasks, stitch 64, mode 3", 1000000, 64, 64, 3},
      {"10M tasks streaming, stitch 128", 10000000, 64, 128, 1},
  };
  if (quick) ws = {{"quick: 200k tasks, stitch 64", 200000, 64, 64, 0}};
  std::printf("%-36s %10s %8s %8s %12s %12s %16s %9s\n", "workload", "tasks", "wall s", "cpu s", "tasks/s",
              "events/s", "sim us / host s", "RSS MiB");
  for (const auto& w : ws) {
    Generator g{w.tasks, 0, w.tasks_per_root, w.stitch};
    DeviceTaskSource src = [&](int r, runtime::DeviceTask& dt) { return g(r, dt); };
    uint64_t streamed = 0;
    SimOptions o;
    o.device_sched_mode = w.mode;
    o.task_sink = [&](const TaskRecord&, const runtime::DeviceTask&) { ++streamed; };
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    Trace t = simulate(pf, prog, o, src);
    const double host = cpu_seconds() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto& s = t.rounds[0].summary;
    const double events = double(t.events);
    std::printf("%-36s %10llu %8.2f %8.2f %12.0f %12.0f %16.1f %9.1f\n", w.name, (unsigned long long)s.tasks, wall,
                host, double(s.tasks) / host, events / host, Trace::us(s.operator_e2e_ps) / host,
                peak_rss_kib() / 1024.0);
    if (streamed != s.tasks || s.tasks != w.tasks) {
      std::fprintf(stderr, "sim_bench: expected %llu tasks, simulated %llu\n", (unsigned long long)w.tasks,
                   (unsigned long long)s.tasks);
      return 1;
    }
  }
  return 0;
}
