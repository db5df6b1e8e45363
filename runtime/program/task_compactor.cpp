// Tasks given one at a time into templates + instance records; see task_compactor.h.
#include "runtime/program/task_compactor.h"

#include <optional>
#include <stdexcept>

#include "runtime/core/dim_expr_parse.h"

namespace ptoc {

namespace {

// Calls f(value) for every value of a task, in position order.
template <class T, class F>
void each_value(T& t, F&& f) {
  for (auto& a : t.args) f(a);
  for (auto* regions : {&t.reads, &t.writes})
    for (auto& r : *regions) {
      for (auto& e : r.offset) f(e);
      for (auto& e : r.extent) f(e);
    }
}

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
  each_value(tp, [&](const DimExpr& e) { tv.push_back(&e); });
  bool ok = true;
  size_t k = 0;
  each_value(t, [&](const DimExpr& e) {
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
    each_value(t, [&](DimExpr& v) { at.push_back(&v); });
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

bool TaskCompactor::deltas(const Entry& e, int ti, std::vector<int64_t>& out) {
  const TaskTemplate& tp = cr_.templates[size_t(ti)];
  if (e.whole) return deltas_of(tp, *e.whole, out);
  const uint64_t key = uint64_t(uint32_t(ti)) << 32 | uint32_t(e.base);
  auto it = base_deltas_.find(key);
  if (it == base_deltas_.end()) {
    std::pair<bool, std::vector<int64_t>> v;
    v.first = deltas_of(tp, *entries_[size_t(e.base)].whole, v.second);
    it = base_deltas_.emplace(key, std::move(v)).first;
  }
  if (!it->second.first) return false;
  out = it->second.second;
  for (const auto& [pos, slot] : patterns_[size_t(e.pattern)]) out.at(size_t(pos)) += e.slot_deltas[size_t(slot)];
  return true;
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

  // Pass 1: a template per structure and class; a hash per value position of its deltas over its instances.
  std::unordered_map<int, std::vector<int>> templates_of_class;
  std::vector<std::vector<uint64_t>> pos_hash;
  std::vector<std::vector<char>> pos_moves;
  std::vector<int64_t> d;
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = entries_[i];
    const Task& b = body(e);
    TaskInstanceRecord& rec = cr.instances[i];
    const int cls = class_of(i);
    std::vector<int>& cands = templates_of_class[cls];
    for (int c : cands)
      if (same_structure(cr_.templates[size_t(c)], b, cls)) rec.tmpl = c;
    if (rec.tmpl < 0) {
      const Task t = e.whole ? Task{} : materialise(int(i));
      const Task& src = e.whole ? *e.whole : t;
      TaskTemplate tp;
      tp.cls = cls;
      tp.gm = src.gm;
      tp.args = src.args;
      tp.reads = src.reads;
      tp.writes = src.writes;
      each_value(tp, [](DimExpr& v) { v = reread(v); });
      rec.tmpl = int(cr_.templates.size());
      cands.push_back(rec.tmpl);
      pos_hash.emplace_back(task_value_count(src), 0);
      pos_moves.emplace_back(task_value_count(src), 0);
      cr_.templates.push_back(std::move(tp));
    }
    if (!deltas(e, rec.tmpl, d)) {
      rec.tmpl = -1;
      continue;
    }
    std::vector<uint64_t>& h = pos_hash[size_t(rec.tmpl)];
    std::vector<char>& moves = pos_moves[size_t(rec.tmpl)];
    for (size_t k = 0; k < d.size(); ++k) {
      h[k] = mix(h[k], d[k]);
      moves[k] |= d[k] != 0;
    }
  }
  // Positions that move alike are one group.
  for (size_t ti = 0; ti < cr_.templates.size(); ++ti) {
    TaskTemplate& tp = cr_.templates[ti];
    std::unordered_map<uint64_t, int> group_of_hash;
    tp.group_of.assign(pos_hash[ti].size(), -1);
    for (size_t k = 0; k < tp.group_of.size(); ++k) {
      if (!pos_moves[ti][k]) continue;
      auto [it, fresh] = group_of_hash.try_emplace(pos_hash[ti][k], tp.groups);
      if (fresh) ++tp.groups;
      tp.group_of[k] = it->second;
    }
  }
  // Pass 2: one delta per group, checked position by position (a hash collision only makes a task explicit).
  for (size_t i = 0; i < n; ++i) {
    TaskInstanceRecord& rec = cr.instances[i];
    bool regular = rec.tmpl >= 0;
    if (regular) {
      const TaskTemplate& tp = cr_.templates[size_t(rec.tmpl)];
      deltas(entries_[i], rec.tmpl, d);
      rec.deltas.assign(size_t(tp.groups), 0);
      std::vector<char> seen(size_t(tp.groups), 0);
      for (size_t k = 0; k < d.size() && regular; ++k) {
        const int g = tp.group_of[k];
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
      const Entry& e = entries_[i];
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
