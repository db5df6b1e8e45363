#include "compiler/frontend/options.h"

#include <algorithm>
#include <regex>

#include "compiler/frontend/suggest.h"
#include "compiler/frontend/yaml_util.h"

namespace ptoc::fe {

const std::vector<std::pair<std::string, std::vector<std::string>>>& option_groups() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> g = {
      {"runtime", {"stitch_function_max_num", "device_sched_mode", "max_workspace_kb"}},
      {"pass", {"cube_l1_reuse_setting", "cube_nbuffer_setting", "vec_nbuffer_setting"}},
      {"codegen", {"enable_pmu_trace"}},
      {"debug", {"runtime_debug_mode"}},
  };
  return g;
}

namespace {

constexpr int64_t kMaxSettingCount = 1024;
constexpr int64_t kMaxWorkspaceKb = int64_t(1) << 40;

const std::vector<std::string>* group_keys(const std::string& g) {
  for (const auto& [name, keys] : option_groups())
    if (name == g) return &keys;
  return nullptr;
}

std::vector<std::string> group_names() {
  std::vector<std::string> v;
  for (const auto& [name, keys] : option_groups()) v.push_back(name);
  return v;
}

// Located errors: in the file at the node, or on the command line.
SrcLoc at(const YAML::Node& n, SrcLoc fallback) {
  return n.IsDefined() && !n.IsNull() ? YamlSource::loc(n) : fallback;
}

bool read_int(const std::string& full, const YAML::Node& v, SrcLoc loc, int64_t lo, int64_t hi, int64_t& out,
              Reporter& r, const std::string& meaning = {}) {
  auto i = as_int(v);
  std::string range = std::to_string(lo) + ".." + std::to_string(hi) + (meaning.empty() ? "" : " (" + meaning + ")");
  if (!i) {
    r.error(at(v, loc), full + ": expected an integer in " + range + ", got " + node_kind(v));
    return false;
  }
  if (*i < lo || *i > hi) {
    r.error(at(v, loc), full + ": " + std::to_string(*i) + " is out of range; allowed: " + range);
    return false;
  }
  out = *i;
  return true;
}

void read_setting(const std::string& full, const YAML::Node& v, SrcLoc loc, bool with_side, MergeSetting& out,
                  Reporter& r) {
  if (!v.IsMap()) {
    r.error(at(v, loc), full + ": expected a mapping such as {DEFAULT: 2, func3_1: 4}, got " + node_kind(v));
    return;
  }
  MergeSetting s;
  s.given = true;
  static const std::regex func_re("func([0-9]+)_([0-9]+)");
  static const std::regex label_re("func[0-9]+_[0-9]+.*");
  std::set<std::string> seen;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const YAML::Node k = it->first;  // copies: it-> hands out a temporary (see check_map)
    const YAML::Node val = it->second;
    MergeSetting::Entry e;
    e.loc = YamlSource::loc(k);
    if (!k.IsScalar() || k.Scalar().empty()) {
      r.error(at(k, loc), full + ": keys are an integer, DEFAULT, func{magic}_{order} or a semantic label");
      continue;
    }
    e.name = k.Scalar();
    if (!seen.insert(e.name).second) {
      r.error(at(k, loc), full + ": duplicate key '" + e.name + "'");
      continue;
    }
    std::smatch m;
    if (as_int(k)) {
      e.key = MergeSetting::Entry::Key::Global;
    } else if (e.name == "DEFAULT") {
      e.key = MergeSetting::Entry::Key::Default;
    } else if (std::regex_match(e.name, m, func_re)) {
      e.key = MergeSetting::Entry::Key::Func;
      try {
        e.func_magic = std::stoll(m[1].str());
        e.func_order = std::stoll(m[2].str());
      } catch (const std::exception&) {
        r.error(at(k, loc), full + ": function key '" + e.name + "' is out of range");
        continue;
      }
    } else if (is_identifier(e.name)) {
      e.key = MergeSetting::Entry::Key::Label;
      if (e.name == "default" || e.name == "Default")
        r.warning(at(k, loc), full + ": '" + e.name + "' is taken as a semantic label", "the global key is 'DEFAULT'");
    } else {
      r.error(at(k, loc), full + ": invalid key '" + e.name + "'",
              "keys are an integer, DEFAULT, func{magic}_{order} (e.g. func3_1) or a semantic label");
      continue;
    }
    SrcLoc vl = at(val, e.loc);
    if (val.IsSequence()) {
      if (!with_side) {
        r.error(vl, full + ": expected a count in 0.." + std::to_string(kMaxSettingCount) + ", got a list",
                "only cube_l1_reuse_setting takes [count, side]");
        continue;
      }
      if (val.size() != 2) {
        r.error(vl, full + ": expected [count, side] with side left, right or auto");
        continue;
      }
      if (!read_int(full + "." + e.name, val[0], vl, 0, kMaxSettingCount, e.count, r, "0 = automatic")) continue;
      const YAML::Node side = val[1];
      std::string sv = side.IsScalar() ? side.Scalar() : std::string();
      if (sv != "left" && sv != "right" && sv != "auto") {
        r.error(at(side, vl), full + "." + e.name + ": side must be left, right or auto, got " + node_kind(side),
                did_you_mean(sv, {"left", "right", "auto"}));
        continue;
      }
      e.side = sv;
    } else if (!read_int(full + "." + e.name, val, vl, 0, kMaxSettingCount, e.count, r, "0 = automatic")) {
      continue;
    }
    s.entries.push_back(std::move(e));
  }
  out = std::move(s);
}

void set_key(const std::string& group, const std::string& key, const YAML::Node& v, SrcLoc loc, Options& o,
             Reporter& r) {
  const std::string full = group + "." + key;
  int64_t i = 0;
  if (key == "stitch_function_max_num") {
    if (read_int(full, v, loc, 1, 1024, i, r)) o.stitch_function_max_num = i;
  } else if (key == "device_sched_mode") {
    if (read_int(full, v, loc, 0, 3, i, r, "0 FIFO, 1 L2 affinity, 2 fair, 3 L2 affinity + fair"))
      o.device_sched_mode = int(i);
  } else if (key == "max_workspace_kb") {
    if (read_int(full, v, loc, 0, kMaxWorkspaceKb, i, r, "0 = no cap")) o.max_workspace_kb = i;
  } else if (key == "cube_l1_reuse_setting") {
    read_setting(full, v, loc, true, o.cube_l1_reuse_setting, r);
  } else if (key == "cube_nbuffer_setting") {
    read_setting(full, v, loc, false, o.cube_nbuffer_setting, r);
  } else if (key == "vec_nbuffer_setting") {
    read_setting(full, v, loc, false, o.vec_nbuffer_setting, r);
  } else if (key == "enable_pmu_trace") {
    auto b = as_bool(v);
    if (!b) r.error(at(v, loc), full + ": expected true or false, got " + node_kind(v));
    else o.enable_pmu_trace = *b;
  } else if (key == "runtime_debug_mode") {
    if (read_int(full, v, loc, 0, 4, i, r,
                 "0 off, 1 swimlane, 2 AI Core model, 3 dependency check dump, 4 GM bounds check"))
      o.runtime_debug_mode = int(i);
  }
}

}  // namespace

void read_options(const YAML::Node& options, Options& out, Reporter& r) {
  if (!check_map(options, group_names(), "options", r)) return;
  for (auto it = options.begin(); it != options.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string g = it->first.Scalar();
    const auto* keys = group_keys(g);
    if (!keys) continue;  // reported by check_map
    const YAML::Node gv = it->second;
    if (gv.IsNull()) continue;
    if (!check_map(gv, *keys, "options." + g, r, YamlSource::loc(it->first))) continue;
    std::set<std::string> done;
    for (auto kt = gv.begin(); kt != gv.end(); ++kt) {
      if (!kt->first.IsScalar()) continue;
      const std::string k = kt->first.Scalar();
      bool known = false;
      for (const auto& a : *keys) known = known || a == k;
      if (!known || !done.insert(k).second) continue;
      set_key(g, k, kt->second, YamlSource::loc(kt->first), out, r);
    }
  }
}

void apply_set(const std::string& item, Options& out, Reporter& r) {
  r.set_origin("<command line>");
  size_t eq = item.find('=');
  std::string lhs = item.substr(0, eq);
  size_t dot = lhs.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 == lhs.size()) {
    r.error({}, "--set '" + item + "': expected GROUP.KEY=VALUE", "e.g. --set runtime.stitch_function_max_num=64");
    r.set_origin("");
    return;
  }
  std::string group = lhs.substr(0, dot), key = lhs.substr(dot + 1), value = item.substr(eq + 1);
  // GROUP.SETTING.ENTRY=N sets one entry of a *_setting map and keeps the others.
  std::string entry;
  if (size_t dot2 = key.find('.'); dot2 != std::string::npos) {
    entry = key.substr(dot2 + 1);
    key = key.substr(0, dot2);
  }
  const auto* keys = group_keys(group);
  if (!keys) {
    std::string hint = did_you_mean(group, group_names());
    r.error({}, "--set " + lhs + ": unknown option group '" + group + "'",
            hint.empty() ? "groups: runtime, pass, codegen, debug" : hint);
  } else if (std::find(keys->begin(), keys->end(), key) == keys->end()) {
    std::string hint = did_you_mean(key, *keys);
    if (hint.empty()) {
      hint = "keys of " + group + ":";
      for (size_t i = 0; i < keys->size(); ++i) hint += (i ? ", " : " ") + (*keys)[i];
    }
    r.error({}, "--set " + lhs + ": unknown key '" + key + "' in options." + group, hint);
  } else {
    MergeSetting* ms = key == "cube_l1_reuse_setting"  ? &out.cube_l1_reuse_setting
                       : key == "cube_nbuffer_setting" ? &out.cube_nbuffer_setting
                       : key == "vec_nbuffer_setting"  ? &out.vec_nbuffer_setting
                                                       : nullptr;
    YAML::Node v;
    try {
      v = YAML::Load(value);
    } catch (const YAML::Exception& e) {
      r.error({}, "--set " + lhs + ": cannot read value '" + value + "': " + e.msg);
      r.set_origin("");
      return;
    }
    if (!entry.empty() && !ms) {
      r.error({}, "--set " + lhs + ": options." + group + "." + key + " is not a map, so '" + entry +
                      "' cannot be one of its entries",
              "write --set " + group + "." + key + "=VALUE");
    } else if (!entry.empty()) {
      // Read {entry: value} with the map's own rules, then replace or add that one entry.
      YAML::Node one(YAML::NodeType::Map);
      one[entry] = v;
      MergeSetting before = *ms;
      int errors_before = r.errors();
      set_key(group, key, one, {}, out, r);  // leaves *ms = {entry: value} when valid
      if (r.errors() == errors_before && ms->entries.size() == 1) {
        MergeSetting::Entry e = ms->entries.front();
        *ms = std::move(before);
        ms->given = true;
        auto same = std::find_if(ms->entries.begin(), ms->entries.end(),
                                 [&](const MergeSetting::Entry& x) { return x.name == e.name; });
        if (same != ms->entries.end()) *same = std::move(e);
        else ms->entries.push_back(std::move(e));
      } else {
        *ms = std::move(before);
      }
    } else {
      set_key(group, key, v, {}, out, r);
    }
    // Positions inside the --set text are not positions in the spec file.
    if (ms)
      for (auto& e : ms->entries) e.loc = {};
  }
  r.set_origin("");
}

}  // namespace ptoc::fe
