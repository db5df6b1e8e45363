// The artifact writers on a hand-built trace: field by field against
// PyPTO's formats (reference/pypto-profiling.md) and against the trace's meaning.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/profiling/artifacts.h"
#include "runtime/profiling/perf_analyze.h"
#include "runtime/profiling/perf_data_writer.h"
#include "runtime/profiling/pmu_csv.h"
#include "runtime/profiling/pmu_writer.h"
#include "runtime/profiling/run_folder.h"
#include "runtime/profiling/swimlane_writer.h"
#include "runtime/program/program_json.h"

using namespace ptoc;
using namespace ptoc::profiling;
using nlohmann::json;

namespace {

constexpr int64_t US = 1'000'000;  // ps per us

CompiledProgram three_task_program() {
  CompiledProgram p;
  p.name = "demo";
  p.tensors = {{"x", GmTensor::Role::Input, DType::fp16, {64, 64}}, {"y", GmTensor::Role::Output, DType::fp16, {64, 64}}};
  LeafFunction cube;
  cube.id = 0, cube.hash = 1234567, cube.core = CoreType::AIC, cube.num_ops = 6;
  LeafFunction vec;
  vec.id = 1, vec.hash = 7654321, vec.core = CoreType::AIV, vec.num_ops = 4;
  vec.merge_info = "vecNBufferInfo hashOrder: func0_1, subGraphCount: 2";
  p.leaves = {cube, vec};
  RootFunction r;
  r.index = 0, r.name = "top_0", r.hash = 99;
  Task a;
  a.leaf = 0, a.succ = {1, 2}, a.label = "MM1", a.op_magic = 10;
  a.reads = {{0, {0, 0}, {64, 64}}};
  Task b;
  b.leaf = 1, b.pred_count = 1, b.op_magic = 11;
  b.writes = {{1, {0, 0}, {32, 64}}};
  Task c = b;
  c.op_magic = 12;
  c.writes = {{1, {32, 0}, {32, 64}}};
  r.tasks = {a, b, c};
  p.roots = {r};
  // program.json as PyPTO writes it (string hashes, DataType numbers, rawtensors everywhere); the Machine
  // View takes labels, operands and hash orders from it, as draw_swim_lane.py does.
  p.graph_json = R"({"functions": [
    {"hash": "99", "graphtype": 2, "func_magicname": "top_0",
     "rawtensors": [{"rawmagic": 0, "datatype": 6, "rawshape": [64, 64]}, {"rawmagic": 1, "datatype": 6, "rawshape": [64, 64]}],
     "tensors": [{"magic": 0, "rawtensor": 0, "offset": [0, 0], "shape": [64, 64]},
                 {"magic": 1, "rawtensor": 1, "offset": [0, 0], "shape": [32, 64]},
                 {"magic": 2, "rawtensor": 1, "offset": [32, 0], "shape": [32, 64]}],
     "operations": [{"opmagic": 10, "calleehash": "1234567", "ioperands": [0, 0], "ooperands": [], "op_attr": {},
                     "semantic_label": {"label": "MM1"}},
                    {"opmagic": 11, "calleehash": "7654321", "ioperands": [], "ooperands": [1],
                     "op_attr": {"vec_merge_hashOrder": "func0_1", "vec_merge_subgraphCount": 2}},
                    {"opmagic": 12, "calleehash": "7654321", "ioperands": [], "ooperands": [2],
                     "op_attr": {"vec_merge_hashOrder": "func0_1", "vec_merge_subgraphCount": 2}}]},
    {"hash": "1234567", "graphtype": 3, "rawtensors": [{"rawmagic": 0, "datatype": 6, "rawshape": [64, 64]}],
     "tensors": [], "operations": []},
    {"hash": "7654321", "graphtype": 3, "rawtensors": [{"rawmagic": 1, "datatype": 6, "rawshape": [64, 64]}],
     "tensors": [], "operations": []}]})";
  return p;
}

sim::TaskRecord record(int core, CoreType type, uint32_t idx, int leaf, uint64_t leaf_hash, int64_t ready, int64_t start,
                       int64_t end) {
  sim::TaskRecord t;
  t.core = core, t.core_type = type, t.seq = 0, t.task_index = idx, t.task_id = idx;  // funcId 0, opIdx idx
  t.root = 0, t.root_hash = 99, t.leaf = leaf, t.leaf_hash = leaf_hash, t.op_magic = 10 + int(idx);
  t.ready_ps = ready, t.dispatch_ps = ready, t.start_ps = start, t.end_ps = end;
  t.total_cycles = (end - start) / US * 1850;
  t.pipe_busy = {100, 50, 400, 30, 0, 0, 10};
  t.bytes_read = 8192;
  return t;
}

sim::RoundTrace one_round(int round, int64_t base) {
  sim::RoundTrace r;
  r.round = round;
  using S = sim::CpuStage;
  auto cpu = [&](bool ctrl, int thread, std::vector<std::pair<S, int64_t>> st) {
    sim::CpuLane l;
    l.ctrl = ctrl, l.thread = thread;
    for (auto [s, t] : st) l.events.push_back({uint8_t(s), s == S::DEV_TASK_BUILD || s == S::DEV_TASK_RCV ? 0 : -1, base + t * US});
    return l;
  };
  r.cpu.push_back(cpu(true, 0, {{S::BEGIN, 0}, {S::INIT, 2}, {S::DEV_TASK_BUILD, 5}, {S::EXIT, 30}}));
  r.cpu.push_back(cpu(false, 1, {{S::BEGIN, 0}, {S::ALLOC_THREAD_ID, 1}, {S::INIT, 2}, {S::CORE_HAND_SHAKE, 4},
                                 {S::DEV_TASK_RCV, 6}, {S::WAIT_ALL_DEV_TASK_FINISH, 25}, {S::WAIT_CORE_EXIT, 27}, {S::EXIT, 28}}));
  using C = sim::CoreStage;
  for (int core = 0; core < 2; ++core) {
    sim::CoreLane l;
    l.core = core, l.type = core == 0 ? CoreType::AIC : CoreType::AIV, l.sched = 0;
    for (auto [s, t, idx] : {std::tuple{C::BEGIN, 0, -1}, {C::INIT, 4, -1}, {C::DEV_TASK_RCV_MODEL, 6, 0},
                             {C::DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK, 7 + 3 * core, 0},
                             {C::DEV_TASK_ALL_LEAF_TASK_EXEC, 20 + core, 0}, {C::WAIT_EXIT_NOTIFY, 28, -1}})
      l.events.push_back({uint8_t(s), idx, base + int64_t(t) * US});
    r.cores.push_back(l);
  }
  r.tasks = {record(0, CoreType::AIC, 0, 0, 1234567, base + 6 * US, base + 7 * US, base + 10 * US),
             record(1, CoreType::AIV, 1, 1, 7654321, base + 10 * US, base + 10 * US, base + 15 * US),
             record(1, CoreType::AIV, 2, 1, 7654321, base + 10 * US, base + 16 * US, base + 21 * US)};
  r.succ_ids = {1, 2};
  r.tasks[0].succ_begin = 0, r.tasks[0].succ_count = 2;
  r.summary.aicore_e2e_ps = 14 * US;
  r.summary.aicore_utilization = 13.0 / 28.0;
  r.summary.operator_e2e_ps = 28 * US;
  return r;
}

sim::Trace make_trace(int rounds, const char* arch = "dav_2201") {
  sim::Trace t;
  t.platform = std::string(arch) == "dav_3510" ? "ascend950pr" : "ascend910b1";
  t.arch = arch;
  t.freq = std::string(arch) == "dav_3510" ? 1000 : 50;
  t.counter_base = 1'000'000;
  t.core_mhz = 1850;
  t.aic = 1, t.aiv = 1, t.sched_threads = 1;
  for (int r = 0; r < rounds; ++r) t.rounds.push_back(one_round(r, int64_t(r) * 100 * US));
  return t;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return json::parse(in);
}

std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("ptoc_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

}  // namespace

TEST_CASE("tilefwk_L1_prof_data.json: one entry per core that ran, ticks on the device clock") {
  auto trace = make_trace(1);
  auto l1 = l1_prof_data(trace, trace.rounds[0]);
  REQUIRE(l1.size() == 2);
  CHECK(l1[0]["blockIdx"] == 0);
  CHECK(l1[0]["coreType"] == "AIC");
  CHECK(l1[1]["coreType"] == "AIV");
  REQUIRE(l1[1]["tasks"].size() == 2);
  auto t = l1[1]["tasks"][0];
  CHECK(t["seqNo"] == 0);
  CHECK(t["leafIndex"] == 1);
  CHECK(t["taskId"] == 1);
  CHECK(t["execStart"] == trace.counter_base + 10 * 50);  // 10 us at 50 ticks/us
  CHECK(t["execEnd"] == trace.counter_base + 15 * 50);
}

TEST_CASE("dyn_topo.txt: PyPTO's header and one row per task with its successors") {
  auto trace = make_trace(1);
  auto p = three_task_program();
  std::string topo = dyn_topo(trace, trace.rounds[0], p);
  std::istringstream in(topo);
  std::string line;
  std::getline(in, line);
  CHECK(line == "seqNo,taskId,rootIndex,rootHash,opmagic,leafIndex,leafHash,coreType,psgId,wrapId,staticSuccCount,successors");
  std::getline(in, line);
  CHECK(line == "0,0,0,99,10,0,1234567,1,0,-1,2,1,2");  // AIC = 1, two intra-root successors
  std::getline(in, line);
  CHECK(line == "0,1,0,99,11,1,7654321,0,1,-1,0");
}

TEST_CASE("merged_swimlane Machine View: lanes, names, hints, flows and ReadyCount") {
  auto trace = make_trace(1);
  auto p = three_task_program();
  auto ev = machine_view_events(trace, trace.rounds[0], p);
  int tasks = 0, flows_s = 0, flows_f = 0;
  bool aic_lane = false, fake_lane = false, hash_order = false;
  int64_t max_ready = 0;
  for (const auto& e : ev) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "AIC_1") {
      CHECK(e["tid"] == 1002);
      aic_lane = true;
    }
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "Fake Core_0") {
      CHECK(e["tid"] == 1000);
      fake_lane = true;
    }
    if (e["ph"] == "X") {
      ++tasks;
      CHECK(e["pid"] == 1);
      CHECK(e["cat"] == "event");
      if (e["args"]["taskId"] == 0) {
        CHECK(e["name"] == "0-0-0-0-0(MM1)");
        CHECK(e["tid"] == 1002);
        CHECK(e["ts"].get<double>() == Approx((1'000'000 + 7 * 50) / 50.0));
        CHECK(e["dur"].get<double>() == Approx(3.0));
        CHECK(e["args"]["event-hint"].get<std::string>().find("leafHash:1234567") != std::string::npos);
        // A Python list of {magic: {shape, dtype, rawmagic}}, each operand once (the read is listed twice).
        CHECK(e["args"]["ioperand-hint"] == "[{0: {'shape': [64, 64], 'dtype': 6, 'rawmagic': 0}}]");
        CHECK(e["args"]["ooperand-hint"] == "[]");
        CHECK(e["args"]["color"] == "MM1");
        CHECK(e["args"]["execution-hint"] ==
              "Average Execution Time: 3.0\nMax Execution Time: 3.0, Task: [0-0-0]\nMin Execution Time: 3.0, Task: [0-0-0]\n");
        CHECK_FALSE(e["args"].contains("hashOrder-hint"));
      }
      if (e["args"]["taskId"] == 1) {
        CHECK(e["name"] == "0-0-1-0-1()");  // no semantic label: empty, as PyPTO's --label_type=1
        CHECK(e["args"]["hashOrder-hint"] == "vecMergeInfo hashOrder: func0_1, subGraphCount: 2");
        CHECK(e["args"]["event-hint"] ==
              "Task:[0-0-1], rootHash:99, callOpMagic:11, leafHash:7654321, TaskId:1\n"
              "vecMergeInfo hashOrder: func0_1, subGraphCount: 2");
      }
      if (e["args"].contains("hashOrder-hint")) hash_order = true;
    }
    if (e["ph"] == "s") ++flows_s;
    if (e["ph"] == "f") {
      ++flows_f;
      CHECK(e["bp"] == "e");
      CHECK(e["name"] == "machine-view-last-dep");
    }
    if (e["ph"] == "C" && e["name"] == "ReadyCount_AIV") max_ready = std::max<int64_t>(max_ready, e["args"]["size"]);
  }
  CHECK(aic_lane);
  CHECK(fake_lane);
  CHECK(tasks == 3);
  CHECK(flows_s == 2);
  CHECK(flows_f == 2);
  CHECK(hash_order);
  CHECK(max_ready == 1);  // task 2 waits for the AIV core from 10 us to 16 us
}

TEST_CASE("merged_swimlane Machine View: tasks past the per-core L1 cap are fake tasks on Fake Core_0") {
  // A chain of kMaxDfxTasksPerCore + 1 tasks on one core: the last has no L1 record (PyPTO drops it), so
  // draw_swim_lane.py makes it a fake task on tid 1000, timed from its predecessor's end for 1 us.
  auto trace = make_trace(1);
  auto p = three_task_program();
  sim::RoundTrace& r = trace.rounds[0];
  const size_t n = kMaxDfxTasksPerCore + 1;
  r.tasks.clear();
  r.succ_ids.clear();
  for (size_t i = 0; i < n; ++i) {
    r.tasks.push_back(record(1, CoreType::AIV, uint32_t(i), 1, 7654321, int64_t(i) * US, int64_t(i) * US,
                             int64_t(i + 1) * US));
    if (i + 1 < n) {
      r.tasks.back().succ_begin = uint32_t(r.succ_ids.size()), r.tasks.back().succ_count = 1;
      r.succ_ids.push_back(uint32_t(i + 1));
    }
  }
  auto ev = machine_view_events(trace, r, p);
  size_t slices = 0, flows = 0;
  const nlohmann::ordered_json* fake = nullptr;
  for (const auto& e : ev) {
    if (e["ph"] == "X") ++slices;
    if (e["ph"] == "X" && e["tid"] == 1000) fake = &e;
    if (e["ph"] == "s") ++flows;
  }
  CHECK(slices == n);
  CHECK(flows == n - 1);
  REQUIRE(fake);
  CHECK((*fake)["args"]["taskId"] == n - 1);
  CHECK((*fake)["args"]["color"] == "fake");
  CHECK((*fake)["args"]["execution-hint"] == "");
  const double pred_end = double(trace.ticks(int64_t(n - 1) * US)) / 50.0;
  CHECK((*fake)["ts"].get<double>() == pred_end);
  CHECK((*fake)["dur"].get<double>() == 1.0);
}

TEST_CASE("machine_trace_perf_data: lanes, names and what analyze reads back") {
  auto trace = make_trace(1);
  auto lanes = perf_data_lanes(trace, 0, 1);
  REQUIRE(lanes.size() == 4);
  CHECK(lanes[0]["coreType"] == "AICPU-CTRL");
  CHECK(lanes[1]["coreType"] == "AICPU-SCHED");
  CHECK(lanes[1]["blockIdx"] == 1);
  CHECK(lanes[2]["coreType"] == "SCHED0-AIC");
  CHECK(lanes[2]["blockIdx"] == 1);
  CHECK(lanes[3]["coreType"] == "SCHED0-AIV");
  CHECK(lanes[0]["freq"] == 50);
  CHECK(lanes[0]["tasks"][2]["name"] == "DEV_TASK_BUILD_0(0)");
  CHECK(lanes[2]["tasks"][2]["name"] == "DEV_TASK_RCV_MODEL_0(0)");
  auto tables = analyze_perf_json(json::parse(lanes.dump()), "mem");
  REQUIRE(tables.size() == 1);
  const auto& rows = tables[0].rows;
  REQUIRE(rows.size() == 3);
  CHECK(*rows[0].cells[0] == Approx(3.0));   // build: 5 us - 2 us
  CHECK(*rows[0].cells[7] == Approx(30.0));  // ctrl total
  CHECK(*rows[2].cells[6] == Approx(14.0));  // AICore E2E: 21 - 7
}

TEST_CASE("perf data is chunked every 50 rounds and capped at 200, with PyPTO's warning") {
  auto trace = make_trace(230);
  std::string dir = temp_dir("chunks");
  std::ostringstream log;
  auto events = write_perf_data(trace, dir, log);
  for (int first : {0, 50, 100, 150}) {
    CHECK(std::filesystem::exists(dir + "/machine_trace_perf_data_" + std::to_string(first) + ".json"));
    CHECK(std::filesystem::exists(dir + "/machine_runtime_operator_trace_" + std::to_string(first) + ".json"));
  }
  CHECK_FALSE(std::filesystem::exists(dir + "/machine_trace_perf_data_200.json"));
  CHECK(log.str().find("Aicpu perf info more than maxTurnNum=200, some info would be lost") != std::string::npos);
  auto chunk = read_json(dir + "/machine_trace_perf_data_50.json");
  CHECK(chunk[0]["tasks"][0]["name"] == "BEGIN_50");  // absolute round numbers
  auto tables = analyze_perf_json(chunk, "chunk");
  CHECK(tables.size() == 50);
  CHECK(tables.front().round == 50);
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_artifacts writes every requested file and the terminal summary") {
  auto trace = make_trace(2);
  auto p = three_task_program();
  std::string dir = temp_dir("all");
  ArtifactRequest rq;
  rq.swimlane = true, rq.device_perf = true, rq.pmu_group = 2, rq.pmu_trace = true, rq.folder = dir;
  std::ostringstream log;
  const Platform* platform = find_platform("ascend910b1");
  REQUIRE(platform);
  write_artifacts(rq, trace, p, *platform, log);
  for (const char* f : {"tilefwk_L1_prof_data.json", "dyn_topo.txt", "merged_swimlane.json", "tilefwk_prof_pmu.csv",
                        "machine_trace_perf_data_0.json", "machine_runtime_operator_trace_0.json"})
    CHECK(std::filesystem::exists(dir + "/" + f));
  auto merged = read_json(dir + "/merged_swimlane.json");
  REQUIRE(merged.is_object());
  bool pid0 = false, pid1 = false;
  for (const auto& e : merged["traceEvents"]) {
    if (e["pid"] == 0) pid0 = true;
    if (e["pid"] == 1) pid1 = true;
  }
  CHECK(pid0);
  CHECK(pid1);
  CHECK(log.str().find("AICore End-to-End Time: 14.00") != std::string::npos);
  CHECK(log.str().find("AICore Utilization: 46.43%") != std::string::npos);
  CHECK(log.str().find("Operator End-to-End Time: 28.00") != std::string::npos);
  // The PMU trace exists only on 950: a clear message here, no PROF_ folder.
  CHECK(log.str().find("no PMU trace") != std::string::npos);
  std::ifstream csv(dir + "/tilefwk_prof_pmu.csv");
  std::stringstream ss;
  ss << csv.rdbuf();
  auto table = parse_csv(ss.str(), "pmu");
  CHECK(table.header[0] == "thread id");
  CHECK(table.header[6] == "total cycle");
  CHECK(table.header[7] == "vec_busy_cycles");
  REQUIRE(table.rows.size() == 3);
  CHECK(table.rows[0][8] == "400");  // cube busy cycles of the AIC task
  std::filesystem::remove_all(dir);
}

TEST_CASE("PMU trace on a 950 target: per-pipe lanes and mark_stamp ids") {
  auto trace = make_trace(1, "dav_3510");
  auto p = three_task_program();
  p.options.enable_pmu_trace = true;
  std::string dir = temp_dir("pmutrace");
  ArtifactRequest rq;
  rq.pmu_trace = true, rq.folder = dir + "/output_20260101_000000_000001_1_host";
  std::filesystem::create_directories(rq.folder);
  std::ostringstream log;
  write_artifacts(rq, trace, p, *find_platform("ascend950pr"), log);
  auto file = rq.folder + "/PROF_20260101_000000_000001_1_host/mindstudio_profiler_output/msprof_20260101_000000_000001_1_host.json";
  REQUIRE(std::filesystem::exists(file));
  auto doc = read_json(file);
  int stamps = 0;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "i") {
      ++stamps;
      int id = e["args"]["pmu_id"];
      CHECK((id == pmu_id(1234567) || id == pmu_id(7654321)));
    }
  CHECK(stamps == 6);  // head and tail of three tasks
  CHECK(pmu_id(1234567) == 1567);
  std::filesystem::remove_all(dir);
}

TEST_CASE("run folders are named as PyPTO names them") {
  std::string base = temp_dir("folders");
  std::string a = create_run_folder(base);
  std::string b = create_run_folder(base);
  CHECK(a != b);
  CHECK(std::filesystem::path(a).filename().string().rfind("output_", 0) == 0);
  CHECK(std::filesystem::is_directory(b));
  std::filesystem::remove_all(base);
}

TEST_CASE("merged_swimlane Machine View: the event text is each event's dump(), in the events' order") {
  // The writer's text is canonical: parsing it and dumping again gives the same bytes (so it is what the
  // JSON tree of the same values would dump), and machine_view_events' trees are those events.
  auto trace = make_trace(1);
  auto p = three_task_program();
  std::vector<std::string> text;
  machine_view_event_text(trace, trace.rounds[0], p, [&](const std::string& s) { text.push_back(s); });
  auto ev = machine_view_events(trace, trace.rounds[0], p);
  REQUIRE(text.size() == ev.size());
  int kinds[5] = {0, 0, 0, 0, 0};  // M X s f C
  for (size_t i = 0; i < text.size(); ++i) {
    CHECK(nlohmann::ordered_json::parse(text[i]).dump() == text[i]);
    CHECK(ev[i].dump() == text[i]);
    const std::string ph = ev[i]["ph"];
    kinds[ph == "M" ? 0 : ph == "X" ? 1 : ph == "s" ? 2 : ph == "f" ? 3 : 4]++;
  }
  CHECK(kinds[1] == 3);
  CHECK(kinds[2] == 2);
  CHECK(kinds[3] == 2);
  CHECK(kinds[4] > 0);
}

TEST_CASE("merged_swimlane Machine View: a loaded bundle's index from the program is the one from program.json") {
  // A loaded bundle keeps only the BLOCK_GRAPH texts (graph_from_blocks): the Machine View takes its root
  // functions from the tasks directly. It must give the same events as program.json assembled and parsed.
  auto trace = make_trace(1);
  auto loaded = three_task_program();
  loaded.graph_json.clear();
  loaded.graph_from_blocks = true;
  loaded.kernels = {Kernel{"k_cube", CoreType::AIC}, Kernel{"k_vec", CoreType::AIV}};
  loaded.leaves[0].kernel = 0, loaded.leaves[1].kernel = 1;
  loaded.leaves[0].merge_info = "l1ReuseInfo hashOrder: func0_0, subGraphCount: 1\nl1ReuseInfo hashOrder: func0_9, subGraphCount: 3";
  loaded.roots[0].tasks[2].label = "V\xc3\xa9";  // UTF-8 is kept
  loaded.roots[0].tasks[1].reads = {{0, {DimExpr::sym("i"), 0}, {DimExpr::sym("i"), 64}}};
  // A leaf's own ops give the hash order of a task whose CALL op has none.
  loaded.graph_blocks = {
      R"({"hash": "1234567", "graphtype": 3, "operations": []})",
      R"({"hash": "7654321", "graphtype": 3, "operations": [{"opmagic": 1, "op_attr": {"cube_merge_hashOrder": "f1", "cube_merge_subgraphCount": 4}}]})"};
  loaded.leaves[1].merge_info.clear();
  auto parsed = loaded;
  parsed.graph_json = program_json_text(loaded);
  REQUIRE(parsed.graph_json.find("\"functions\"") != std::string::npos);
  std::vector<std::string> a, b;
  machine_view_event_text(trace, trace.rounds[0], loaded, [&](const std::string& s) { a.push_back(s); });
  machine_view_event_text(trace, trace.rounds[0], parsed, [&](const std::string& s) { b.push_back(s); });
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
  bool hinted = false, leaf_order = false, block_order = false;
  for (const auto& e : a) {
    block_order = block_order || e.find("cubeMergeInfo hashOrder: f1, subGraphCount: 4") != std::string::npos;
    hinted = hinted || e.find("'shape': ['i', 64], 'dtype': 6, 'rawmagic': 0") != std::string::npos;
    leaf_order = leaf_order || e.find("l1ReuseInfo hashOrder: func0_9, subGraphCount: 3") != std::string::npos;
  }
  CHECK(hinted);
  CHECK(leaf_order);
  CHECK(block_order);
  // A label that is no UTF-8 makes program.json unreadable to PyPTO's json.load: no labels or hints, either way.
  loaded.roots[0].tasks[0].label = "bad\xff";
  parsed = loaded;
  parsed.graph_json = program_json_text(loaded);
  a.clear(), b.clear();
  machine_view_event_text(trace, trace.rounds[0], loaded, [&](const std::string& s) { a.push_back(s); });
  machine_view_event_text(trace, trace.rounds[0], parsed, [&](const std::string& s) { b.push_back(s); });
  CHECK(a == b);
}
