// The streamed task records (profiling/task_stream.h): dyn_topo.txt and tilefwk_L1_prof_data.json
// written as the records arrive must be the bytes the whole-round writers make from the same
// records, for device tasks that finish out of order, stitched successors, more tasks on a core
// than the DFX buffer holds and equal start times; the kept records stop at the cap.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "runtime/device_task.h"
#include "runtime/profiling/pmu_writer.h"
#include "runtime/profiling/swimlane_writer.h"
#include "runtime/profiling/task_stream.h"

using namespace ptoc;
using namespace ptoc::profiling;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string temp_folder(const char* name) {
  auto d = std::filesystem::temp_directory_path() / (std::string("ptoc_task_stream_") + name + "_" +
                                                      std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

struct Run {
  std::vector<runtime::DeviceTask> dts;
  // (device task, task index) in execEnd order, with the record of each.
  std::vector<std::pair<size_t, sim::TaskRecord>> arrivals;
};

// `n_dt` device tasks of `per_dt` tasks; task i's successors are i+1 and i+3 (i+3 in another root
// instance: a stitched edge, listed before the intra-root one in graph order so dyn_topo reorders it).
// Cores 0..3 (AIC 0, 1; AIV 2, 3); starts on a coarse grid, so many tasks of a core share a start.
// Records arrive by end; device task 1 ends before device task 0.
Run make_run(int n_dt, uint32_t per_dt, uint32_t seed) {
  Run run;
  std::mt19937 rng(seed);
  for (int d = 0; d < n_dt; ++d) {
    runtime::DeviceTask dt;
    dt.seq = d;
    dt.tasks.resize(per_dt);
    for (uint32_t i = 0; i < per_dt; ++i) {
      auto& t = dt.tasks[i];
      const uint32_t root_instance = i / 4;
      t.root_instance = root_instance;
      t.task_id = (uint32_t(d * 64 + root_instance) << 16) | (i % 4);
      t.leaf = int(i % 3);
      if (i + 3 < per_dt) t.succ.push_back(i + 3);
      if (i + 1 < per_dt) t.succ.push_back(i + 1);
    }
    run.dts.push_back(std::move(dt));
  }
  for (int d = 0; d < n_dt; ++d) {
    const int64_t base = d == 1 ? 0 : 1'000'000'000;  // device task 1 runs (and ends) first
    for (uint32_t i = 0; i < per_dt; ++i) {
      sim::TaskRecord r;
      r.core = int32_t(rng() % 4);
      r.core_type = r.core < 2 ? CoreType::AIC : CoreType::AIV;
      r.seq = d;
      r.task_index = i;
      r.task_id = run.dts[size_t(d)].tasks[i].task_id;
      r.root = 0, r.root_hash = 99 + uint64_t(d), r.op_magic = int32_t(10 + i % 4);
      r.leaf = run.dts[size_t(d)].tasks[i].leaf, r.leaf_hash = 1000 + uint64_t(r.leaf);
      r.start_ps = base + int64_t(rng() % 50) * 1'000'000;
      r.end_ps = r.start_ps + 1'000'000 + int64_t(rng() % 7) * 1'000'000;
      run.arrivals.push_back({size_t(d), r});
    }
  }
  std::stable_sort(run.arrivals.begin(), run.arrivals.end(),
                   [](const auto& a, const auto& b) { return a.second.end_ps < b.second.end_ps; });
  return run;
}

// The stored round the simulator would have kept (machine.cpp's stored mode).
sim::RoundTrace stored(const Run& run) {
  sim::RoundTrace rt;
  for (const auto& [d, r] : run.arrivals) {
    sim::TaskRecord k = r;
    k.succ_begin = uint32_t(rt.succ_ids.size());
    for (uint32_t s : run.dts[d].tasks[r.task_index].succ) rt.succ_ids.push_back(run.dts[d].tasks[s].task_id);
    k.succ_count = uint32_t(rt.succ_ids.size()) - k.succ_begin;
    rt.tasks.push_back(k);
  }
  return rt;
}

sim::Trace counter_clock() {
  sim::Trace t;
  t.freq = 50;
  t.counter_base = 123456789;
  return t;
}

}  // namespace

TEST_CASE("streamed dyn_topo and L1 files are the whole-round writers' bytes") {
  // 3 device tasks x 15000 tasks on 4 cores: > kMaxDfxTasksPerCore (10000) on each, many equal starts.
  const Run run = make_run(3, 15000, 7);
  const std::string folder = temp_folder("bytes");
  const sim::Trace trace = counter_clock();
  TaskStream stream(folder, 0, true, 0);
  for (const auto& [d, r] : run.arrivals) stream.add(0, r, run.dts[d]);
  stream.finish(trace);
  const sim::RoundTrace rt = stored(run);
  const std::string topo = slurp(folder + "/dyn_topo.txt");
  CHECK(topo == dyn_topo(trace, rt, CompiledProgram{}));
  CHECK(std::count(topo.begin(), topo.end(), '\n') == 1 + 45000);
  // Task 1 of device task 0: the stitched successor (task 4, root instance 1) after the intra-root one (2).
  const size_t row = topo.find("\n0,1,0,99,11,1,1001,");
  REQUIRE(row != std::string::npos);
  CHECK(topo.substr(topo.find('\n', row + 1) - 15, 16) == ",1,-1,1,2,65536\n");
  const std::string l1 = slurp(folder + "/tilefwk_L1_prof_data.json");
  CHECK(l1 == l1_prof_data_text(trace, rt));
  const auto doc = nlohmann::json::parse(l1);
  REQUIRE(doc.size() == 4);
  for (const auto& core : doc) CHECK(core["tasks"].size() == kMaxDfxTasksPerCore);  // ~11250 per core
  CHECK(stream.dropped() == 0);
  CHECK(stream.kept().tasks.size() == 45000);
  std::filesystem::remove_all(folder);
}

TEST_CASE("the kept records stop at the cap, in execEnd order, with their successors") {
  const Run run = make_run(2, 50, 3);
  const std::string folder = temp_folder("cap");
  TaskStream stream(folder, 0, true, 30);
  for (const auto& [d, r] : run.arrivals) stream.add(0, r, run.dts[d]);
  stream.finish(counter_clock());
  const sim::RoundTrace rt = stored(run);
  REQUIRE(stream.kept().tasks.size() == 30);
  CHECK(stream.dropped() == 70);
  CHECK(stream.streamed() == 100);
  for (size_t i = 0; i < 30; ++i) {
    const auto& k = stream.kept().tasks[i];
    CHECK(k.task_id == rt.tasks[i].task_id);
    CHECK(k.seq == rt.tasks[i].seq);
    REQUIRE(k.succ_count == rt.tasks[i].succ_count);
    for (uint32_t s = 0; s < k.succ_count; ++s)
      CHECK(stream.kept().succ_ids[k.succ_begin + s] == rt.succ_ids[rt.tasks[i].succ_begin + s]);
  }
  // The streamed files are not cut: every task is in dyn_topo.txt.
  CHECK(slurp(folder + "/dyn_topo.txt") == dyn_topo(counter_clock(), rt, CompiledProgram{}));
  std::filesystem::remove_all(folder);
}

TEST_CASE("only the last round is streamed; without the swimlane no file is written") {
  const Run run = make_run(2, 20, 5);
  const std::string folder = temp_folder("rounds");
  {
    TaskStream stream(folder, 1, true, 0);
    for (const auto& [d, r] : run.arrivals) stream.add(0, r, run.dts[d]);  // round 0: ignored
    const Run second = make_run(2, 20, 6);
    for (const auto& [d, r] : second.arrivals) stream.add(1, r, second.dts[d]);
    stream.finish(counter_clock());
    CHECK(stream.streamed() == 40);
    CHECK(slurp(folder + "/dyn_topo.txt") == dyn_topo(counter_clock(), stored(second), CompiledProgram{}));
  }
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  {
    TaskStream stream(folder, 0, false, 0);
    for (const auto& [d, r] : run.arrivals) stream.add(0, r, run.dts[d]);
    stream.finish(counter_clock());
    CHECK(stream.kept().tasks.size() == 40);
  }
  CHECK(std::filesystem::is_empty(folder));  // nor a temporary left behind
  std::filesystem::remove_all(folder);
}

TEST_CASE("an unfinished stream leaves no file behind") {
  const Run run = make_run(1, 10, 1);
  const std::string folder = temp_folder("abandon");
  {
    TaskStream stream(folder, 0, true, 0);
    for (const auto& [d, r] : run.arrivals) stream.add(0, r, run.dts[d]);
  }
  CHECK(std::filesystem::is_empty(folder));
  std::filesystem::remove_all(folder);
}

TEST_CASE("the streamed PMU csv is the whole-round writer's bytes") {
  const Platform& pf = *find_platform("ascend910b1");
  CompiledProgram prog;
  LeafFunction a, b;
  a.id = 0, a.core = CoreType::AIV, a.num_ops = 4;
  b.id = 1, b.core = CoreType::AIC, b.num_ops = 9;
  prog.leaves = {a, b};
  std::mt19937 rng(11);
  // 3000 tasks of one device task on 6 cores: starts on a coarse grid (many ties, whose start-hook
  // order is shuffled), ends in time order; starts and ends interleaved by time as the model runs them.
  runtime::DeviceTask dt;
  dt.tasks.resize(3000);
  std::vector<sim::TaskRecord> recs;
  for (uint32_t i = 0; i < 3000; ++i) {
    sim::TaskRecord r;
    r.core = int32_t(rng() % 6) + (i % 2 ? 0 : pf.aic);
    r.core_type = r.core < pf.aic ? CoreType::AIC : CoreType::AIV;
    r.task_index = i, r.task_id = i;
    r.leaf = r.cls = r.core_type == CoreType::AIC ? 1 : 0;
    r.start_ps = int64_t(rng() % 400) * 1000;
    r.end_ps = r.start_ps + 1 + int64_t(rng() % 20) * 1000;
    r.total_cycles = (r.end_ps - r.start_ps) / 100;
    r.pipe_busy[0] = int64_t(i);
    r.bytes_read = 64 * i;
    recs.push_back(r);
  }
  struct Event {
    int64_t ps;
    uint32_t tie;
    bool end;
    uint32_t task;
  };
  std::vector<Event> events;
  for (const auto& r : recs) {
    events.push_back({r.start_ps, uint32_t(rng()), false, r.task_index});
    events.push_back({r.end_ps, uint32_t(rng()), true, r.task_index});
  }
  std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return x.ps != y.ps ? x.ps < y.ps : x.tie < y.tie;
  });
  const std::string folder = temp_folder("pmu");
  sim::Trace trace = counter_clock();
  trace.arch = pf.arch;
  TaskStream stream(folder, 0, false, 0, prog, pf, 5);
  REQUIRE(stream.writes_pmu());
  sim::RoundTrace rt;
  for (const Event& e : events) {
    if (!e.end) {
      stream.started(0, dt, e.task);
      continue;
    }
    stream.add(0, recs[e.task], dt);
    rt.tasks.push_back(recs[e.task]);  // the stored round: execEnd order
  }
  // The lanes as the machine model deals cores to Schedule AICPUs.
  const int n = pf.sched_threads();
  for (int c = 0; c < pf.aic + pf.aiv; ++c) {
    sim::CoreLane lane;
    lane.core = c;
    lane.sched = c < pf.aic ? int(int64_t(c) * n / pf.aic) : int(int64_t(c - pf.aic) * n / pf.aiv);
    rt.cores.push_back(lane);
  }
  trace.rounds.push_back(rt);
  stream.finish(trace);
  const std::string csv = slurp(folder + "/tilefwk_prof_pmu.csv");
  CHECK(csv == pmu_csv_text(trace, rt, prog, 5));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3001);
  // A lane that disagrees with the stream's core-to-AICPU map is an internal error, not a wrong file.
  trace.rounds.back().cores[3].sched += 1;
  const std::string other = temp_folder("pmu2");
  TaskStream bad(other, 0, false, 0, prog, pf, 5);
  CHECK_THROWS_WITH(bad.finish(trace), Catch::Contains("core 3 belongs to Schedule AICPU"));
  std::filesystem::remove_all(folder);
  std::filesystem::remove_all(other);
}

TEST_CASE("dyn_topo rows wait only for device tasks built: an empty one or a seqNo gap holds nothing back") {
  // 300 device tasks of 40 tasks as the Control AICPU builds them: seqNo 0 and 150 have no tasks, 200..204
  // are never built (a gap). Each is built, then its records arrive; every odd one ends before its
  // predecessor. Waiting on seqNos alone held every row after seqNo 0 until the end (12 000 rows);
  // waiting on what was built holds at most two device tasks' rows, and the file is the same bytes.
  const uint32_t per_dt = 40;
  std::vector<runtime::DeviceTask> dts;
  for (int seq = 0; seq < 305; ++seq) {
    if (seq >= 200 && seq < 205) continue;
    runtime::DeviceTask dt;
    dt.seq = seq;
    dt.tasks.resize(seq == 0 || seq == 150 ? 0 : per_dt);
    for (uint32_t i = 0; i < dt.tasks.size(); ++i) {
      dt.tasks[i].task_id = (uint32_t(seq) << 16) | i;
      if (i + 1 < dt.tasks.size()) dt.tasks[i].succ.push_back(i + 1);
    }
    dts.push_back(std::move(dt));
  }
  Run all;  // every record, in arrival order, for the whole-round writer
  const std::string folder = temp_folder("built");
  const sim::Trace trace = counter_clock();
  TaskStream stream(folder, 0, true, 0);
  size_t max_held = 0;
  int64_t clock = 0;
  std::vector<std::pair<size_t, sim::TaskRecord>> later;  // an odd device task's predecessor ends after it
  for (size_t d = 0; d < dts.size(); ++d) {
    stream.built(0, dts[d]);
    std::vector<std::pair<size_t, sim::TaskRecord>> recs;
    for (uint32_t i = 0; i < dts[d].tasks.size(); ++i) {
      sim::TaskRecord r;
      r.core = int32_t(i % 4), r.core_type = i % 4 < 2 ? CoreType::AIC : CoreType::AIV;
      r.seq = dts[d].seq, r.task_index = i, r.task_id = dts[d].tasks[i].task_id;
      r.root_hash = 99, r.op_magic = int32_t(i), r.leaf = 0, r.leaf_hash = 1000;
      r.start_ps = clock, r.end_ps = clock + 1'000'000;
      clock += 1'000'000;
      recs.push_back({d, r});
    }
    if (dts[d].seq % 2 == 0) {
      later = std::move(recs);
      continue;
    }
    for (auto* v : {&recs, &later})
      for (auto& [dd, r] : *v) {
        r.end_ps = clock += 1'000'000;
        stream.add(0, r, dts[dd]);
        all.arrivals.push_back({dd, r});
        max_held = std::max(max_held, stream.held_topo_rows());
      }
    later.clear();
  }
  for (auto& [dd, r] : later) stream.add(0, r, dts[dd]), all.arrivals.push_back({dd, r});
  CHECK(max_held <= 2 * per_dt);
  stream.finish(trace);
  all.dts = dts;
  // stored() indexes dts by the arrival's device task position, as recorded above.
  const std::string topo = slurp(folder + "/dyn_topo.txt");
  CHECK(topo == dyn_topo(trace, stored(all), CompiledProgram{}));
  CHECK(std::count(topo.begin(), topo.end(), '\n') == 1 + 298 * int(per_dt));
  std::filesystem::remove_all(folder);
}
