// Tasks as templates + instance records; see task_instances.h.
#include "runtime/program/task_instances.h"

#include <stdexcept>

#include "runtime/program/task_compactor.h"

namespace ptoc {

size_t task_value_count(const Task& t) {
  size_t n = t.args.size();
  for (auto* regions : {&t.reads, &t.writes})
    for (auto& r : *regions) n += r.offset.size() + r.extent.size();
  return n;
}

CompactRoot compact_root(const CompiledProgram&, const RootFunction& rf) {
  if (rf.compact) return *rf.compact;  // a loaded root, or one the task graph built compact
  TaskCompactor c;
  for (const Task& t : rf.tasks) c.add(&t);
  return c.finish();
}

const CompactRoot& compact_of(const CompiledProgram& p, const RootFunction& rf, CompactRoot& scratch) {
  if (rf.compact) return *rf.compact;
  scratch = compact_root(p, rf);
  return scratch;
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
    each_task_value(t, [&](DimExpr& e) {
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
