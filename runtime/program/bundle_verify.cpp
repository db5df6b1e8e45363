#include "runtime/program/bundle_verify.h"

#include "runtime/program/root_tasks.h"

#include <utility>
#include <vector>

namespace ptoc::runtime {

namespace {

std::string num(size_t v) { return std::to_string(v); }
std::string num(int64_t v) { return std::to_string(v); }

// One task against the classes, kernels and tensors.
std::string verify_task(const CompiledProgram& p, const Task& t) {
  const int c = p.class_index(t);
  if (c < 0 || size_t(c) >= p.leaves.size())
    return "leaf class #" + num(int64_t(c)) + " out of range (" + num(p.leaves.size()) + " classes)";
  const LeafFunction& l = p.leaves[size_t(c)];
  if (l.kernel >= 0) {
    const Kernel& k = p.kernels[size_t(l.kernel)];
    // Fewer than the kernel reads would make it read past the slot array; more are never read.
    if (t.gm.size() < size_t(k.num_gm))
      return num(t.gm.size()) + " GM slots for kernel '" + k.name + "', which reads " + num(int64_t(k.num_gm));
    if (t.args.size() < size_t(k.num_args))
      return num(t.args.size()) + " arguments for kernel '" + k.name + "', which reads " + num(int64_t(k.num_args));
  }
  for (int g : t.gm)
    if (g < 0 || size_t(g) >= p.tensors.size())
      return "GM slot tensor #" + num(int64_t(g)) + " out of range (" + num(p.tensors.size()) + " tensors)";
  for (const auto* v : {&t.reads, &t.writes})
    for (const Region& r : *v) {
      if (r.tensor < 0 || size_t(r.tensor) >= p.tensors.size())
        return "region tensor #" + num(int64_t(r.tensor)) + " out of range (" + num(p.tensors.size()) + " tensors)";
      const GmTensor& x = p.tensors[size_t(r.tensor)];
      if (r.offset.size() != x.shape.size() || r.extent.size() != x.shape.size())
        return "a region of tensor '" + x.name + "' has rank " + num(r.offset.size()) + "/" + num(r.extent.size()) +
               ", the tensor has rank " + num(x.shape.size());
    }
  return "";
}

// A compact root's templates and explicit tasks, each as verify_task checks a task; then every
// instance names one of them (the first instance of a bad template is the task named).
std::string verify_compact(const CompiledProgram& p, const CompactRoot& cr) {
  std::vector<std::string> tmpl_bad(cr.templates.size()), expl_bad(cr.explicit_tasks.size());
  for (size_t t = 0; t < cr.templates.size(); ++t) {
    const TaskTemplate& tp = cr.templates[t];
    Task body;
    body.cls = tp.cls;
    body.gm = tp.gm;
    body.args = tp.args;
    body.reads = tp.reads;
    body.writes = tp.writes;
    tmpl_bad[t] = verify_task(p, body);
  }
  for (size_t e = 0; e < cr.explicit_tasks.size(); ++e) expl_bad[e] = verify_task(p, cr.explicit_tasks[e]);
  for (size_t i = 0; i < cr.instances.size(); ++i) {
    const TaskInstanceRecord& r = cr.instances[i];
    const std::string* bad = nullptr;
    if (r.tmpl >= 0 && size_t(r.tmpl) < tmpl_bad.size()) bad = &tmpl_bad[size_t(r.tmpl)];
    else if (r.tmpl < 0 && r.explicit_task >= 0 && size_t(r.explicit_task) < expl_bad.size())
      bad = &expl_bad[size_t(r.explicit_task)];
    else
      return "task " + num(i) + ": its record names no template or explicit task";
    if (!bad->empty()) return "task " + num(i) + ": " + *bad;
  }
  return "";
}

}  // namespace

std::string verify_program_indices(const CompiledProgram& p) {
  for (size_t i = 0; i < p.leaves.size(); ++i) {
    const LeafFunction& l = p.leaves[i];
    if (l.id != int(i)) return "leaf class #" + num(i) + " has id " + num(int64_t(l.id));
    if (l.kernel < -1 || (l.kernel >= 0 && size_t(l.kernel) >= p.kernels.size()))
      return "leaf class #" + num(i) + ": kernel #" + num(int64_t(l.kernel)) + " out of range (" +
             num(p.kernels.size()) + " kernels)";
  }
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    const GmTensor& t = p.tensors[i];
    const bool temp = t.role == GmTensor::Role::Temp;
    if (temp ? (t.root < 0 || size_t(t.root) >= p.roots.size()) : t.root < -1 || t.root >= int64_t(p.roots.size()))
      return "tensor '" + t.name + "' (#" + num(i) + "): owning root #" + num(int64_t(t.root)) + " out of range (" +
             num(p.roots.size()) + " roots)";
    // An in-place output shares its input's memory (control_flow.cpp, layout_gm): one buffer, one type.
    if (t.inplace != -1) {
      if (t.role != GmTensor::Role::Output || t.inplace < 0 || size_t(t.inplace) >= p.tensors.size() ||
          p.tensors[size_t(t.inplace)].role != GmTensor::Role::Input)
        return "tensor '" + t.name + "' (#" + num(i) + "): in place of tensor #" + num(int64_t(t.inplace)) +
               ", which is not an input (an in-place output updates an input)";
      const GmTensor& in = p.tensors[size_t(t.inplace)];
      bool same = in.dtype == t.dtype && in.format == Format::ND && in.shape.size() == t.shape.size();
      for (size_t k = 0; same && k < in.shape.size(); ++k) same = in.shape[k].same(t.shape[k]);
      if (!same)
        return "output '" + t.name + "' is in place of input '" + in.name + "' but their dtype, shape or format differ";
      for (size_t j = 0; j < i; ++j)
        if (p.tensors[j].inplace == t.inplace)
          return "input '" + in.name + "' is updated in place by two outputs, '" + p.tensors[j].name + "' and '" +
                 t.name + "'";
    }
  }
  for (size_t r = 0; r < p.roots.size(); ++r) {
    const RootFunction& f = p.roots[r];
    const std::string who = "root function '" + f.name + "' (#" + num(r) + ")";
    for (int t : f.temps)
      if (t < 0 || size_t(t) >= p.tensors.size() || p.tensors[size_t(t)].role != GmTensor::Role::Temp)
        return who + ": temp #" + num(int64_t(t)) + " is not a temp tensor (" + num(p.tensors.size()) + " tensors)";
    if (f.compact) {
      // Per record: what a task shares with its template (class, GM slots, argument count, regions)
      // is checked once on the template, as it would be on every task that instantiates it.
      if (std::string bad = verify_compact(p, *f.compact); !bad.empty()) return who + " " + bad;
    }
    for (size_t i = 0; !f.compact && i < f.tasks.size(); ++i)
      if (std::string bad = verify_task(p, f.tasks[i]); !bad.empty()) return who + " task " + num(i) + ": " + bad;
    const size_t n = task_count(f);
    for (size_t i = 0; i < n; ++i)
      for (int s : task_succ(f, i))
        if (s <= int(i) || size_t(s) >= n)
          return who + " task " + num(i) + ": successor " + num(int64_t(s)) + " out of range (" + num(n) +
                 " tasks, topologically ordered)";
    for (const WindowCheck& w : f.window_checks)
      if (w.axis < 0 || w.axis > 64) return who + ": window check axis " + num(int64_t(w.axis)) + " out of range";
  }
  // The nest's depth was bounded when it was read (check_loop_depth); walk it with a stack anyway.
  std::vector<std::pair<const LoopNode*, std::string>> stack;
  for (const LoopNode& n : p.control) stack.emplace_back(&n, "control");
  while (!stack.empty()) {
    auto [n, where] = stack.back();
    stack.pop_back();
    // Run-time values are read from GM by the control flow: the tensor must be an int32 tensor with
    // one index per axis (the indices themselves are bounds-checked when read).
    for (const ScalarLoad& l : n->loads) {
      if (l.tensor < 0 || size_t(l.tensor) >= p.tensors.size())
        return "the loop nest (" + where + ") reads run-time value '" + l.text + "' from tensor #" +
               num(int64_t(l.tensor)) + ", out of range (" + num(p.tensors.size()) + " tensors)";
      const GmTensor& t = p.tensors[size_t(l.tensor)];
      if ((t.dtype != DType::int32 && t.dtype != DType::int64) || l.index.size() != t.shape.size())
        return "the loop nest (" + where + ") reads run-time value '" + l.text + "' from tensor '" + t.name +
               "' with " + num(l.index.size()) + " indices: it needs an int32 or int64 tensor and one index per axis";
    }
    if (n->kind == LoopNode::Kind::Root) {
      if (n->root < 0 || size_t(n->root) >= p.roots.size())
        return "the loop nest (" + where + ") calls root #" + num(int64_t(n->root)) + ", out of range (" +
               num(p.roots.size()) + " roots)";
      continue;
    }
    if (n->gears.empty()) return "loop '" + n->name + "' has no gears";
    for (const Gear& g : n->gears) {
      if (g.factor < 1) return "loop '" + n->name + "': gear factor " + num(g.factor) + " is not positive";
      for (const LoopNode& c : g.body) stack.emplace_back(&c, "loop '" + n->name + "'");
    }
  }
  return "";
}

}  // namespace ptoc::runtime
