// Tasks given one at a time into templates + instance records; see task_compactor.h.
#include "runtime/program/task_compactor.h"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "runtime/core/dim_expr_parse.h"

namespace ptoc {

namespace {

bool same_regions(const std::vector<Region>& a, const std::vector<Region>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].tensor != b[i].tensor || a[i].offset.size() != b[i].offset.size() ||
        a[i].extent.size() != b[i].extent.size() || a[i].loc.line != b[i].loc.line || a[i].loc.col != b[i].loc.col)
      return false;
  return true;
}

bool same_structure(const TaskTemplate& tp, const Task& t, int cls) {
  return tp.cls == cls && tp.gm == t.gm && tp.args.size() == t.args.size() && same_regions(tp.reads, t.reads) &&
         same_regions(tp.writes, t.writes);
}

// The expression as the bundle's reader will see it (its text parsed back).
DimExpr reread(const DimExpr& e) { return e.is_const() ? e : runtime::parse_dim_expr(e.str()); }

// d with tv + d == v (as text), if there is one.
std::optional<int64_t> delta_of(const DimExpr& tv, const DimExpr& v) {
  auto ct = tv.as_const(), cv = v.as_const();
  if (ct && cv) return *cv - *ct;
  if (ct || cv) return std::nullopt;
  if (v.same(tv)) return 0;
  std::vector<std::string> syms;
  tv.collect_symbols(syms);
  v.collect_symbols(syms);
  DimExpr::Env env;
  for (auto& s : syms) env[s] = 7;
  int64_t d = 0;
  try {
    d = v.eval(env) - tv.eval(env);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if ((tv + DimExpr(d)).str() != v.str()) return std::nullopt;
  return d;
}

// Every value's delta against the template; false when one is not a constant.
bool deltas_of(const TaskTemplate& tp, const Task& t, std::vector<int64_t>& out) {
  out.clear();
  std::vector<const DimExpr*> tv;
  each_task_value(tp, [&](const DimExpr& e) { tv.push_back(&e); });
  bool ok = true;
  size_t k = 0;
  each_task_value(t, [&](const DimExpr& e) {
    if (!ok) return;
    auto d = delta_of(*tv[k++], e);
    if (!d) ok = false;
    else out.push_back(*d);
  });
  return ok;
}

uint64_t mix(uint64_t h, int64_t d) {
  h ^= uint64_t(d) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

}  // namespace

int TaskCompactor::add_pattern(std::vector<std::pair<int, int>> moves) {
  patterns_.push_back(std::move(moves));
  return int(patterns_.size()) - 1;
}

void TaskCompactor::add_meta(const Task& t) {
  TaskInstanceRecord rec;
  rec.leaf = t.leaf;
  rec.hash_order = t.hash_order;
  rec.succ = t.succ;
  auto [it, fresh] = label_index_.try_emplace(t.label, int(cr_.labels.size()));
  if (fresh) cr_.labels.push_back(t.label);
  rec.label = it->second;
  cr_.instances.push_back(std::move(rec));
  op_magic_.push_back(t.op_magic);
  pred_count_.push_back(t.pred_count);
  cls_.push_back(t.cls);
}

int TaskCompactor::add(const Task* t) {
  add_meta(*t);
  entries_.push_back(Entry{t, -1, -1, {}});
  return int(entries_.size()) - 1;
}

int TaskCompactor::add_owned(Task t) {
  owned_.push_back(std::move(t));
  return add(&owned_.back());
}

int TaskCompactor::add_moved(int base, int pattern, std::vector<int64_t> slot_deltas, const Task& meta) {
  if (base < 0 || size_t(base) >= entries_.size() || !entries_[size_t(base)].whole || pattern < 0 ||
      size_t(pattern) >= patterns_.size())
    throw std::logic_error("task compactor: a moved task's base or pattern is not there");
  for (const auto& [pos, slot] : patterns_[size_t(pattern)])
    if (slot < 0 || size_t(slot) >= slot_deltas.size())
      throw std::logic_error("task compactor: a moved task lacks the delta of slot " + std::to_string(slot));
  add_meta(meta);
  entries_.push_back(Entry{nullptr, base, pattern, std::move(slot_deltas)});
  return int(entries_.size()) - 1;
}

Task TaskCompactor::materialise(int handle) const {
  const Entry& e = entries_.at(size_t(handle));
  const Task& b = body(e);
  Task t;
  t.cls = b.cls;
  t.gm = b.gm;
  t.args = b.args;
  t.reads = b.reads;
  t.writes = b.writes;
  if (!e.whole) {
    std::vector<DimExpr*> at;
    each_task_value(t, [&](DimExpr& v) { at.push_back(&v); });
    for (const auto& [pos, slot] : patterns_[size_t(e.pattern)]) {
      const int64_t d = e.slot_deltas[size_t(slot)];
      if (d == 0) continue;
      auto c = at.at(size_t(pos))->as_const();
      if (!c) throw std::logic_error("task compactor: a moved position is not a constant");
      *at[size_t(pos)] = DimExpr(*c + d);
    }
  }
  const TaskInstanceRecord& r = cr_.instances[size_t(handle)];
  t.leaf = r.leaf;
  t.cls = cls_[size_t(handle)];
  t.hash_order = r.hash_order;
  t.label = cr_.labels[size_t(r.label)];
  t.succ = r.succ;
  t.op_magic = op_magic_[size_t(handle)];
  t.pred_count = pred_count_[size_t(handle)];
  return t;
}

const std::vector<int64_t>* TaskCompactor::base_deltas(int ti, int base) {
  const uint64_t key = uint64_t(uint32_t(ti)) << 32 | uint32_t(base);
  auto it = base_deltas_.find(key);
  if (it == base_deltas_.end()) {
    std::pair<bool, std::vector<int64_t>> v;
    v.first = deltas_of(cr_.templates[size_t(ti)], *entries_[size_t(base)].whole, v.second);
    it = base_deltas_.emplace(key, std::move(v)).first;
  }
  return it->second.first ? &it->second.second : nullptr;
}

const std::vector<int>& TaskCompactor::slot_at(int pattern, size_t values) {
  if (slot_at_.size() <= size_t(pattern)) slot_at_.resize(size_t(pattern) + 1);
  std::vector<int>& sa = slot_at_[size_t(pattern)];
  if (sa.size() != values) {
    sa.assign(values, -1);
    for (const auto& [pos, slot] : patterns_[size_t(pattern)]) {
      if (pos < 0 || size_t(pos) >= values || sa[size_t(pos)] >= 0)
        throw std::logic_error("task compactor: pattern position " + std::to_string(pos) + " out of range or repeated");
      sa[size_t(pos)] = slot;
    }
  }
  return sa;
}

CompactRoot TaskCompactor::finish() {
  CompactRoot& cr = cr_;
  const size_t n = entries_.size();
  // Op magics and predecessor counts are stored only where they do not follow from the rest.
  if (n) cr.op_magic_base = op_magic_[0];
  std::vector<int> preds(n, 0);
  for (const TaskInstanceRecord& r : cr.instances)
    for (int s : r.succ)
      if (s >= 0 && size_t(s) < n) ++preds[size_t(s)];
  bool magics_follow = true, preds_follow = true;
  for (size_t i = 0; i < n; ++i) {
    magics_follow = magics_follow && op_magic_[i] == cr.op_magic_base + int(i);
    preds_follow = preds_follow && pred_count_[i] == preds[i];
  }
  if (!magics_follow) cr.op_magics = op_magic_;
  if (!preds_follow) cr.pred_counts = pred_count_;

  // Pass 0: a template per structure and class (the first such task's values, as read back).
  std::unordered_map<int, std::vector<int>> templates_of_class;
  std::vector<char> mixed;  // per template: some instance is a moved task
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = entries_[i];
    const Task& b = body(e);
    TaskInstanceRecord& rec = cr.instances[i];
    const int cls = class_of(i);
    std::vector<int>& cands = templates_of_class[cls];
    for (int c : cands)
      if (same_structure(cr.templates[size_t(c)], b, cls)) rec.tmpl = c;
    if (rec.tmpl < 0) {
      const Task t = e.whole ? Task{} : materialise(int(i));
      const Task& src = e.whole ? *e.whole : t;
      TaskTemplate tp;
      tp.cls = cls;
      tp.gm = src.gm;
      tp.args = src.args;
      tp.reads = src.reads;
      tp.writes = src.writes;
      each_task_value(tp, [](DimExpr& v) { v = reread(v); });
      rec.tmpl = int(cr.templates.size());
      cands.push_back(rec.tmpl);
      cr.templates.push_back(std::move(tp));
      mixed.push_back(0);
    }
    if (!e.whole) mixed[size_t(rec.tmpl)] = 1;
  }

  // Pass 1: per template, a hash per value position of its deltas over its instances, in order (an
  // instance whose deltas are not constants is stored explicitly). A template of whole tasks hashes every
  // position of every instance. A template with moved instances hashes once per class of positions whose
  // deltas agree in every instance by construction (refined by each whole instance's deltas and by each
  // moved source's base deltas and slots): the same hashes, per moved instance O(classes), not O(values).
  const size_t nt = cr.templates.size();
  std::vector<std::vector<uint64_t>> pos_hash(nt);
  std::vector<std::vector<char>> pos_moves(nt);
  for (size_t ti = 0; ti < nt; ++ti) {
    size_t v = 0;
    each_task_value(cr.templates[ti], [&](const DimExpr&) { ++v; });
    pos_hash[ti].assign(v, 0);
    pos_moves[ti].assign(v, 0);
  }
  std::vector<std::vector<int>> regular_of(nt);    // a mixed template's regular instances
  std::vector<std::vector<int64_t>> whole_d(n);    // ... and the deltas of its whole ones
  std::vector<int64_t> d;
  for (size_t i = 0; i < n; ++i) {
    TaskInstanceRecord& rec = cr.instances[i];
    const Entry& e = entries_[i];
    const size_t ti = size_t(rec.tmpl);
    const bool ok = e.whole ? deltas_of(cr.templates[ti], *e.whole, d) : base_deltas(rec.tmpl, e.base) != nullptr;
    if (!ok) {
      rec.tmpl = -1;
      continue;
    }
    if (mixed[ti]) {
      regular_of[ti].push_back(int(i));
      if (e.whole) whole_d[i] = d;
      continue;
    }
    for (size_t k = 0; k < d.size(); ++k) {
      pos_hash[ti][k] = mix(pos_hash[ti][k], d[k]);
      pos_moves[ti][k] |= d[k] != 0;
    }
  }
  std::vector<std::vector<int>> rep_of(nt);  // a mixed template's first position of each class
  // Instance i's delta at each class's representative position.
  auto class_deltas = [&](size_t i, size_t ti, std::vector<int64_t>& out) {
    const std::vector<int>& rep = rep_of[ti];
    out.resize(rep.size());
    const Entry& e = entries_[i];
    if (e.whole) {
      for (size_t c = 0; c < rep.size(); ++c) out[c] = whole_d[i][size_t(rep[c])];
      return;
    }
    const std::vector<int64_t>& bd = *base_deltas(int(ti), e.base);
    const std::vector<int>& sa = slot_at(e.pattern, bd.size());
    for (size_t c = 0; c < rep.size(); ++c) {
      const size_t k = size_t(rep[c]);
      out[c] = bd[k] + (sa[k] >= 0 ? e.slot_deltas[size_t(sa[k])] : 0);
    }
  };
  std::vector<std::vector<int>> class_at(nt);  // a mixed template's class per position
  for (size_t ti = 0; ti < nt; ++ti) {
    if (!mixed[ti]) continue;
    const size_t v = pos_hash[ti].size();
    std::vector<int>& cls = class_at[ti];
    cls.assign(v, 0);
    auto refine = [&](auto&& component) {
      std::map<std::pair<int, int64_t>, int> ids;
      for (size_t k = 0; k < v; ++k) {
        const int next = int(ids.size());
        cls[k] = ids.try_emplace({cls[k], int64_t(component(k))}, next).first->second;
      }
    };
    std::set<std::pair<int, int>> sources;  // (base, pattern) of the moved instances
    for (int i : regular_of[ti]) {
      const Entry& e = entries_[size_t(i)];
      if (e.whole) {
        refine([&](size_t k) { return whole_d[size_t(i)][k]; });
      } else if (sources.insert({e.base, e.pattern}).second) {
        const std::vector<int64_t>& bd = *base_deltas(int(ti), e.base);
        const std::vector<int>& sa = slot_at(e.pattern, v);
        refine([&](size_t k) { return bd[k]; });
        refine([&](size_t k) { return sa[k]; });
      }
    }
    std::vector<int>& rep = rep_of[ti];
    for (size_t k = 0; k < v; ++k)
      if (size_t(cls[k]) >= rep.size()) rep.push_back(int(k));  // ids are numbered in first-position order
    std::vector<uint64_t> hc(rep.size(), 0);
    std::vector<char> mc(rep.size(), 0);
    for (int i : regular_of[ti]) {
      class_deltas(size_t(i), ti, d);
      for (size_t c = 0; c < rep.size(); ++c) {
        hc[c] = mix(hc[c], d[c]);
        mc[c] |= d[c] != 0;
      }
    }
    for (size_t k = 0; k < v; ++k) {
      pos_hash[ti][k] = hc[size_t(cls[k])];
      pos_moves[ti][k] = mc[size_t(cls[k])];
    }
  }
  // Positions that move alike are one group.
  for (size_t ti = 0; ti < nt; ++ti) {
    TaskTemplate& tp = cr.templates[ti];
    std::unordered_map<uint64_t, int> group_of_hash;
    tp.group_of.assign(pos_hash[ti].size(), -1);
    for (size_t k = 0; k < tp.group_of.size(); ++k) {
      if (!pos_moves[ti][k]) continue;
      auto [it, fresh] = group_of_hash.try_emplace(pos_hash[ti][k], tp.groups);
      if (fresh) ++tp.groups;
      tp.group_of[k] = it->second;
    }
  }
  // Pass 2: one delta per group, checked position by position (a hash collision only makes a task explicit;
  // a mixed template's positions of one class share their delta and their group, so one check per class).
  for (size_t i = 0; i < n; ++i) {
    TaskInstanceRecord& rec = cr.instances[i];
    const Entry& e = entries_[i];
    bool regular = rec.tmpl >= 0;
    if (regular) {
      const size_t ti = size_t(rec.tmpl);
      const TaskTemplate& tp = cr.templates[ti];
      const std::vector<int>* at = nullptr;  // the position of each entry of d
      if (mixed[ti]) {
        class_deltas(i, ti, d);
        at = &rep_of[ti];
      } else {
        deltas_of(tp, *e.whole, d);
      }
      rec.deltas.assign(size_t(tp.groups), 0);
      std::vector<char> seen(size_t(tp.groups), 0);
      for (size_t k = 0; k < d.size() && regular; ++k) {
        const int g = tp.group_of[at ? size_t((*at)[k]) : k];
        if (g < 0) {
          regular = d[k] == 0;
        } else if (!seen[size_t(g)]) {
          seen[size_t(g)] = 1;
          rec.deltas[size_t(g)] = d[k];
        } else {
          regular = rec.deltas[size_t(g)] == d[k];
        }
      }
    }
    if (!regular) {
      rec.tmpl = -1;
      rec.deltas.clear();
      rec.explicit_task = int(cr.explicit_tasks.size());
      const Task t = e.whole ? Task{} : materialise(int(i));
      const Task& src = e.whole ? *e.whole : t;
      Task x;
      x.cls = class_of(i);
      x.gm = src.gm;
      x.args = src.args;
      x.reads = src.reads;
      x.writes = src.writes;
      cr.explicit_tasks.push_back(std::move(x));
    }
  }
  CompactRoot out = std::move(cr_);
  cr_ = CompactRoot{};
  return out;
}

}  // namespace ptoc
