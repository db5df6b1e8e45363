#include "compiler/frontend/options.h"

#include <algorithm>

#include "compiler/frontend/label_text.h"
#include "compiler/frontend/func_key.h"
#include "compiler/frontend/suggest.h"
#include "compiler/frontend/yaml_util.h"
#include "runtime/program/knobs.h"

namespace ptoc::fe {

namespace {

constexpr int64_t kMaxSettingCount = 1024;

// The keys of a group of the knob table (runtime/program/knobs.h), or null for an unknown group.
const std::vector<std::string>* group_keys(const std::string& g) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> groups = [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> v;
    for (const auto& name : knob_groups()) v.emplace_back(name, knob_keys(name));
    return v;
  }();
  for (const auto& [name, keys] : groups)
    if (name == g) return &keys;
  return nullptr;
}

std::vector<std::string> group_names() { return knob_groups(); }

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
    if (as_int(k)) {
      e.key = MergeSetting::Entry::Key::Global;
    } else if (e.name == "DEFAULT") {
      e.key = MergeSetting::Entry::Key::Default;
    } else if (auto fk = func_key(e.name)) {  // func_key.h
      e.key = MergeSetting::Entry::Key::Func;
      try {
        e.func_magic = std::stoll(std::string(fk->magic));
        e.func_order = std::stoll(std::string(fk->order));
      } catch (const std::exception&) {
        r.error(at(k, loc), full + ": function key '" + e.name + "' is out of range");
        continue;
      }
    } else if (is_label_text(e.name)) {  // label_text.h
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
  const Knob* k = find_knob(group, key);
  if (!k) return;  // reported by check_map / apply_set
  const std::string full = group + "." + key;
  int64_t i = 0;
  switch (k->type) {
    case Knob::Type::Int:
      if (!read_int(full, v, loc, k->lo, k->hi, i, r, std::string(k->meaning))) break;
      if (auto why = knob_refusal(*k, i); !why.empty()) {
        r.error(at(v, loc), full + ": " + std::to_string(i) + " is not supported", std::string(why));
        break;
      }
      k->set(o, i);
      break;
    case Knob::Type::Bool: {
      auto b = as_bool(v);
      if (!b) r.error(at(v, loc), full + ": expected true or false, got " + node_kind(v));
      else k->set(o, *b);
      break;
    }
    case Knob::Type::Setting:
      read_setting(full, v, loc, k->setting_side, o.*(k->setting), r);
      break;
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
  const std::optional<KnobAssignment> a = split_knob_assignment(item);
  if (!a) {
    r.error({}, "--set '" + item + "': expected GROUP.KEY=VALUE", "e.g. --set runtime.stitch_function_max_num=64");
    r.set_origin("");
    return;
  }
  const std::string lhs = a->group + "." + a->key + (a->entry.empty() ? "" : "." + a->entry);
  const std::string &group = a->group, &key = a->key, &entry = a->entry, &value = a->value;
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
    const Knob* knob = find_knob(group, key);
    MergeSetting* ms = knob->type == Knob::Type::Setting ? &(out.*(knob->setting)) : nullptr;
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
