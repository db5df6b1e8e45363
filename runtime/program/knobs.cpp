#include "runtime/program/knobs.h"

namespace ptoc {

namespace {

std::vector<Knob> make_table() {
  using T = Knob::Type;
  std::vector<Knob> t;
  auto add = [&](Knob k) { t.push_back(k); };
  add({.group = "runtime", .key = "stitch_function_max_num", .type = T::Int, .lo = 1, .hi = 1024, .def = 128,
       .doc = "root-function instances stitched into one device task",
       .run_time = true,
       .get = [](const Options& o) -> int64_t { return o.stitch_function_max_num; },
       .set = [](Options& o, int64_t v) { o.stitch_function_max_num = v; }});
  add({.group = "runtime", .key = "device_sched_mode", .type = T::Int, .lo = 0, .hi = 3, .def = 0,
       .meaning = "0 FIFO, 1 L2 affinity, 2 fair, 3 L2 affinity + fair",
       .doc = "how the Schedule AICPUs hand ready tasks to cores",
       .run_time = true,
       .get = [](const Options& o) -> int64_t { return o.device_sched_mode; },
       .set = [](Options& o, int64_t v) { o.device_sched_mode = int(v); }});
  add({.group = "runtime", .key = "max_workspace_kb", .type = T::Int, .lo = 0, .hi = int64_t(1) << 40, .def = 0,
       .meaning = "0 = no cap",
       .doc = "cut a device task early when its workspace would pass this many KiB",
       .run_time = true,
       .get = [](const Options& o) -> int64_t { return o.max_workspace_kb; },
       .set = [](Options& o, int64_t v) { o.max_workspace_kb = v; }});
  add({.group = "pass", .key = "cube_l1_reuse_setting", .type = T::Setting,
       .doc = "L1Reuse: cube leaves sharing an L1 operand merged, per DEFAULT / func{magic}_{order} / label",
       .setting_side = true, .setting_default = "auto", .setting = &Options::cube_l1_reuse_setting});
  add({.group = "pass", .key = "cube_nbuffer_setting", .type = T::Setting,
       .doc = "CubeNBuffer: isomorphic cube leaves merged N at a time",
       .setting_default = "{DEFAULT: 1}", .setting = &Options::cube_nbuffer_setting});
  add({.group = "pass", .key = "vec_nbuffer_setting", .type = T::Setting,
       .doc = "VecNBuffer: isomorphic vector leaves merged N at a time",
       .setting_default = "auto", .setting = &Options::vec_nbuffer_setting});
  add({.group = "codegen", .key = "enable_pmu_trace", .type = T::Bool, .lo = 0, .hi = 1, .def = 0,
       .doc = "stamp per-pipe PMU trace markers into the kernels (Ascend 950 targets)",
       .get = [](const Options& o) -> int64_t { return o.enable_pmu_trace; },
       .set = [](Options& o, int64_t v) { o.enable_pmu_trace = v != 0; }});
  add({.group = "debug", .key = "runtime_debug_mode", .type = T::Int, .lo = 0, .hi = 4, .def = 0,
       .meaning = "0 off, 1 swimlane, 2 AI Core model, 3 dependency check dump, 4 GM bounds check",
       .doc = "run-time debugging: swimlane, dependency check, GM bounds check",
       .run_time = true,
       .get = [](const Options& o) -> int64_t { return o.runtime_debug_mode; },
       .set = [](Options& o, int64_t v) { o.runtime_debug_mode = int(v); },
       .refuse = unsupported_debug_mode});
  return t;
}

}  // namespace

Options::Options() {
  for (const Knob& k : knobs())
    if (k.set) k.set(*this, k.def);
}

std::string Knob::name() const { return std::string(group) + "." + std::string(key); }

std::string Knob::range() const {
  std::string r = std::to_string(lo) + ".." + std::to_string(hi);
  if (!meaning.empty()) r += " (" + std::string(meaning) + ")";
  return r;
}

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> t = make_table();
  return t;
}

const Knob* find_knob(std::string_view group, std::string_view key) {
  for (const Knob& k : knobs())
    if (k.group == group && k.key == key) return &k;
  return nullptr;
}

std::vector<std::string> knob_groups() {
  std::vector<std::string> g;
  for (const Knob& k : knobs())
    if (g.empty() || g.back() != k.group) g.emplace_back(k.group);
  return g;
}

std::vector<std::string> knob_keys(std::string_view group) {
  std::vector<std::string> v;
  for (const Knob& k : knobs())
    if (k.group == group) v.emplace_back(k.key);
  return v;
}

std::string run_time_knob_list() {
  std::vector<std::string> names;
  for (const Knob& k : knobs())
    if (k.run_time) names.push_back(k.name());
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

std::string knob_table_markdown() {
  std::string t = "| knob | type | values | default | `ptorun --set` | what it does |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const Knob& k : knobs()) {
    std::string type, values, def;
    switch (k.type) {
      case Knob::Type::Int:
        type = "integer";
        values = k.range();
        def = std::to_string(k.def);
        break;
      case Knob::Type::Bool:
        type = "bool";
        values = "true, false";
        def = k.def ? "true" : "false";
        break;
      case Knob::Type::Setting:
        type = "setting map";
        values = k.setting_side ? "count 0..1024 or [count, side]" : "count 0..1024";
        def = std::string(k.setting_default);
        break;
    }
    t += "| `" + k.name() + "` | " + type + " | " + values + " | " + def + " | " + (k.run_time ? "yes" : "no") + " | " +
         std::string(k.doc) + " |\n";
  }
  return t;
}

std::string KnobAssignment::lhs() const { return group + "." + key + (entry.empty() ? "" : "." + entry); }

std::optional<KnobAssignment> split_knob_assignment(const std::string& item) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos) return std::nullopt;
  const std::string lhs = item.substr(0, eq);
  const size_t dot = lhs.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == lhs.size()) return std::nullopt;
  KnobAssignment a;
  a.group = lhs.substr(0, dot);
  a.key = lhs.substr(dot + 1);
  a.value = item.substr(eq + 1);
  if (size_t dot2 = a.key.find('.'); dot2 != std::string::npos) {
    a.entry = a.key.substr(dot2 + 1);
    a.key = a.key.substr(0, dot2);
  }
  return a;
}

SchedPolicy sched_policy(int m) { return {(m & 1) != 0, (m & 2) != 0}; }

std::string_view unsupported_debug_mode(int64_t mode) {
  if (mode == kDebugAicoreModel)
    return "runtime_debug_mode 2 (PyPTO's AICORE_MODEL simulation) is not a separate mode in ptorun: the simulator "
           "always models every core's pipes; use 1 for the swimlane and stage artifacts, or "
           "--pmu-event-type / codegen.enable_pmu_trace for per-pipe data";
  return {};
}

std::string_view knob_refusal(const Knob& k, int64_t v) { return k.refuse ? k.refuse(v) : std::string_view(); }

}  // namespace ptoc
