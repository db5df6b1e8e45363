// Tasks as templates + instance records; see task_instances.h.
#include "runtime/program/task_instances.h"

#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

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

size_t task_value_count(const Task& t) {
  size_t n = t.args.size();
  for (auto* regions : {&t.reads, &t.writes})
    for (auto& r : *regions) n += r.offset.size() + r.extent.size();
  return n;
}

CompactRoot compact_root(const CompiledProgram& p, const RootFunction& rf) {
  if (rf.compact) return *rf.compact;  // a loaded root: the records it was read from
  CompactRoot cr;
  const size_t n = rf.tasks.size();
  cr.instances.resize(n);
  // Op magics and predecessor counts are stored only where they do not follow from the rest.
  if (n) cr.op_magic_base = rf.tasks[0].op_magic;
  std::vector<int> preds(n, 0);
  for (const Task& t : rf.tasks)
    for (int s : t.succ)
      if (s >= 0 && size_t(s) < n) ++preds[size_t(s)];
  for (size_t i = 0; i < n; ++i) {
    if (rf.tasks[i].op_magic != cr.op_magic_base + int(i)) cr.op_magics.assign(1, 0);
    if (rf.tasks[i].pred_count != preds[i]) cr.pred_counts.assign(1, 0);
  }
  if (!cr.op_magics.empty()) {
    cr.op_magics.clear();
    for (const Task& t : rf.tasks) cr.op_magics.push_back(t.op_magic);
  }
  if (!cr.pred_counts.empty()) {
    cr.pred_counts.clear();
    for (const Task& t : rf.tasks) cr.pred_counts.push_back(t.pred_count);
  }

  // Pass 1: a template per structure and class; a hash per value position of its deltas over its instances.
  std::unordered_map<int, std::vector<int>> templates_of_class;
  std::vector<std::vector<uint64_t>> pos_hash;
  std::vector<std::vector<char>> pos_moves;
  std::map<std::string, int> label_index;
  std::vector<int64_t> d;
  for (size_t i = 0; i < n; ++i) {
    const Task& t = rf.tasks[i];
    TaskInstanceRecord& rec = cr.instances[i];
    rec.leaf = t.leaf;
    rec.hash_order = t.hash_order;
    rec.succ = t.succ;
    auto [it, fresh] = label_index.try_emplace(t.label, int(cr.labels.size()));
    if (fresh) cr.labels.push_back(t.label);
    rec.label = it->second;
    const int cls = p.class_index(t);
    std::vector<int>& cands = templates_of_class[cls];
    for (int c : cands)
      if (same_structure(cr.templates[size_t(c)], t, cls)) rec.tmpl = c;
    if (rec.tmpl < 0) {
      TaskTemplate tp;
      tp.cls = cls;
      tp.gm = t.gm;
      tp.args = t.args;
      tp.reads = t.reads;
      tp.writes = t.writes;
      each_value(tp, [](DimExpr& e) { e = reread(e); });
      rec.tmpl = int(cr.templates.size());
      cands.push_back(rec.tmpl);
      pos_hash.emplace_back(task_value_count(t), 0);
      pos_moves.emplace_back(task_value_count(t), 0);
      cr.templates.push_back(std::move(tp));
    }
    if (!deltas_of(cr.templates[size_t(rec.tmpl)], t, d)) {
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
  for (size_t ti = 0; ti < cr.templates.size(); ++ti) {
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
  // Pass 2: one delta per group, checked position by position (a hash collision only makes a task explicit).
  for (size_t i = 0; i < n; ++i) {
    TaskInstanceRecord& rec = cr.instances[i];
    const Task& t = rf.tasks[i];
    bool regular = rec.tmpl >= 0;
    if (regular) {
      const TaskTemplate& tp = cr.templates[size_t(rec.tmpl)];
      deltas_of(tp, t, d);
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
      Task x;
      x.cls = p.class_index(t);
      x.gm = t.gm;
      x.args = t.args;
      x.reads = t.reads;
      x.writes = t.writes;
      cr.explicit_tasks.push_back(std::move(x));
    }
  }
  return cr;
}

std::string validate_compact_root(const CompactRoot& cr, size_t num_classes, size_t num_tensors) {
  auto tensors_ok = [&](const std::vector<int>& gm, const std::vector<Region>& rd, const std::vector<Region>& wr,
                        const std::string& who) -> std::string {
    for (int g : gm)
      if (g < 0 || size_t(g) >= num_tensors)
        return who + ": GM slot tensor #" + std::to_string(g) + " out of range (" + std::to_string(num_tensors) +
               " tensors)";
    for (auto* v : {&rd, &wr})
      for (const Region& r : *v) {
        if (r.tensor < 0 || size_t(r.tensor) >= num_tensors)
          return who + ": region tensor #" + std::to_string(r.tensor) + " out of range (" +
                 std::to_string(num_tensors) + " tensors)";
        if (r.offset.size() != r.extent.size()) return who + ": a region's offset and extent ranks differ";
      }
    return "";
  };
  auto class_ok = [&](int cls, const std::string& who) -> std::string {
    if (cls < 0 || size_t(cls) >= num_classes)
      return who + ": leaf class #" + std::to_string(cls) + " out of range (" + std::to_string(num_classes) +
             " classes)";
    return "";
  };
  for (size_t t = 0; t < cr.templates.size(); ++t) {
    const TaskTemplate& tp = cr.templates[t];
    const std::string who = "template " + std::to_string(t);
    if (auto e = class_ok(tp.cls, who); !e.empty()) return e;
    if (auto e = tensors_ok(tp.gm, tp.reads, tp.writes, who); !e.empty()) return e;
    Task shape;
    shape.args = tp.args;
    shape.reads = tp.reads;
    shape.writes = tp.writes;
    if (tp.group_of.size() != task_value_count(shape))
      return who + ": " + std::to_string(tp.group_of.size()) + " value groups for " +
             std::to_string(task_value_count(shape)) + " values";
    for (int g : tp.group_of)
      if (g < -1 || g >= tp.groups)
        return who + ": value group " + std::to_string(g) + " out of range (" + std::to_string(tp.groups) + " groups)";
  }
  const size_t n = cr.instances.size();
  size_t explicit_refs = 0;
  for (size_t i = 0; i < n; ++i) {
    const TaskInstanceRecord& r = cr.instances[i];
    const std::string who = "instance " + std::to_string(i);
    if (r.tmpl >= 0) {
      if (size_t(r.tmpl) >= cr.templates.size())
        return who + ": template #" + std::to_string(r.tmpl) + " out of range (" +
               std::to_string(cr.templates.size()) + " templates)";
      if (r.deltas.size() != size_t(cr.templates[size_t(r.tmpl)].groups))
        return who + ": " + std::to_string(r.deltas.size()) + " deltas for a template of " +
               std::to_string(cr.templates[size_t(r.tmpl)].groups) + " groups";
    } else {
      if (r.tmpl != -1 || r.explicit_task < 0 || size_t(r.explicit_task) >= cr.explicit_tasks.size())
        return who + ": explicit task #" + std::to_string(r.explicit_task) + " out of range (" +
               std::to_string(cr.explicit_tasks.size()) + " explicit tasks)";
      ++explicit_refs;
    }
    if (r.leaf < 0) return who + ": negative leaf index " + std::to_string(r.leaf);
    if (r.label < 0 || size_t(r.label) >= cr.labels.size())
      return who + ": label #" + std::to_string(r.label) + " out of range (" + std::to_string(cr.labels.size()) +
             " labels)";
    for (int s : r.succ)
      if (s <= int(i) || size_t(s) >= n)
        return who + ": successor " + std::to_string(s) + " out of range (tasks are topologically ordered; " +
               std::to_string(n) + " tasks)";
  }
  if (explicit_refs != cr.explicit_tasks.size())
    return std::to_string(cr.explicit_tasks.size()) + " explicit tasks but " + std::to_string(explicit_refs) +
           " instances refer to one";
  for (size_t e = 0; e < cr.explicit_tasks.size(); ++e) {
    const Task& x = cr.explicit_tasks[e];
    const std::string who = "explicit task " + std::to_string(e);
    if (auto m = class_ok(x.cls, who); !m.empty()) return m;
    if (auto m = tensors_ok(x.gm, x.reads, x.writes, who); !m.empty()) return m;
  }
  if (!cr.op_magics.empty() && cr.op_magics.size() != n)
    return std::to_string(cr.op_magics.size()) + " op magics for " + std::to_string(n) + " tasks";
  if (!cr.pred_counts.empty() && cr.pred_counts.size() != n)
    return std::to_string(cr.pred_counts.size()) + " predecessor counts for " + std::to_string(n) + " tasks";
  return "";
}

Task expand_task(const CompactRoot& cr, size_t i) {
  const TaskInstanceRecord& r = cr.instances.at(i);
  Task t;
  if (r.tmpl >= 0) {
    const TaskTemplate& tp = cr.templates.at(size_t(r.tmpl));
    if (r.deltas.size() != size_t(tp.groups)) throw std::runtime_error("instance " + std::to_string(i) + ": deltas");
    t.cls = tp.cls;
    t.gm = tp.gm;
    t.args = tp.args;
    t.reads = tp.reads;
    t.writes = tp.writes;
    size_t k = 0;
    each_value(t, [&](DimExpr& e) {
      const int g = tp.group_of.at(k++);
      if (g >= 0 && r.deltas[size_t(g)] != 0) e = e + DimExpr(r.deltas[size_t(g)]);
    });
  } else {
    const Task& x = cr.explicit_tasks.at(size_t(r.explicit_task));
    t.cls = x.cls;
    t.gm = x.gm;
    t.args = x.args;
    t.reads = x.reads;
    t.writes = x.writes;
  }
  t.leaf = r.leaf;
  t.hash_order = r.hash_order;
  t.label = cr.labels.at(size_t(r.label));
  t.succ = r.succ;
  t.op_magic = cr.op_magics.empty() ? cr.op_magic_base + int(i) : cr.op_magics.at(i);
  return t;
}

std::vector<Task> expand_root(const CompactRoot& cr) {
  const size_t n = cr.instances.size();
  std::vector<Task> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(expand_task(cr, i));
  if (!cr.pred_counts.empty()) {
    for (size_t i = 0; i < n; ++i) out[i].pred_count = cr.pred_counts.at(i);
  } else {
    for (const Task& t : out)
      for (int s : t.succ) ++out.at(size_t(s)).pred_count;
  }
  return out;
}

int instance_class(const CompactRoot& cr, size_t i) {
  const TaskInstanceRecord& r = cr.instances[i];
  return r.tmpl >= 0 ? cr.templates[size_t(r.tmpl)].cls : cr.explicit_tasks[size_t(r.explicit_task)].cls;
}

const std::vector<int>& instance_gm(const CompactRoot& cr, size_t i) {
  const TaskInstanceRecord& r = cr.instances[i];
  return r.tmpl >= 0 ? cr.templates[size_t(r.tmpl)].gm : cr.explicit_tasks[size_t(r.explicit_task)].gm;
}

size_t instance_arg_count(const CompactRoot& cr, size_t i) {
  const TaskInstanceRecord& r = cr.instances[i];
  return r.tmpl >= 0 ? cr.templates[size_t(r.tmpl)].args.size() : cr.explicit_tasks[size_t(r.explicit_task)].args.size();
}

}  // namespace ptoc
