// `ptorun info BUNDLE`: a readable summary of what a bundle holds.
#include <fmt/format.h>

#include <iostream>

#include "runtime/core/exit_codes.h"
#include "runtime/program/bundle.h"
#include "cli/ptorun_commands.h"
#include "runtime/program/knobs.h"
#include "runtime/program/root_tasks.h"

namespace ptoc::runtime {

namespace {

// A *_setting map as written in a spec: {DEFAULT: 2, func3_1: 4, MM1: [0, left]}; "(default)" when not given.
std::string setting_text(const MergeSetting& m) {
  if (!m.given) return "(default)";
  std::string s = "{";
  for (size_t i = 0; i < m.entries.size(); ++i) {
    const auto& e = m.entries[i];
    s += (i ? ", " : "") + e.name + ": " +
         (e.side.empty() ? std::to_string(e.count) : "[" + std::to_string(e.count) + ", " + e.side + "]");
  }
  return s + "}";
}

std::string join_dims(const std::vector<DimExpr>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}

void print_control(std::ostream& os, const CompiledProgram& p, const std::vector<LoopNode>& nodes, int indent) {
  std::string pad(size_t(indent), ' ');
  for (auto& n : nodes) {
    for (auto& l : n.loads) os << pad << "read " << l.sym << " = " << l.text << " (from GM)\n";
    if (n.kind == LoopNode::Kind::Root) {
      const RootFunction* r = n.root >= 0 && size_t(n.root) < p.roots.size() ? &p.roots[size_t(n.root)] : nullptr;
      os << pad << "call func" << (r ? r->index : n.root) << " " << (r ? r->name : "?") << "\n";
      continue;
    }
    os << pad << "loop " << (n.name.empty() ? n.var : n.name) << ": " << n.var << " in [" << n.begin.str() << ", "
       << n.end.str() << ") step " << n.step.str() << ", gears";
    for (auto& g : n.gears) os << " " << g.factor;
    if (!n.factor_var.empty()) os << " (factor " << n.factor_var << ")";
    os << "\n";
    for (auto& g : n.gears) {
      os << pad << "  gear " << g.factor << ":\n";
      print_control(os, p, g.body, indent + 4);
    }
  }
}

}  // namespace

int info(const std::string& path, bool instances) {
  LoadedBundle b;
  try {
    b = read_bundle(path);
  } catch (const BundleError& e) {
    std::cerr << "ptorun: error: " << e.what() << "\n";
    return kExitError;
  }
  const CompiledProgram& p = b.program;
  std::ostream& os = std::cout;
  os << fmt::format("bundle   {} (format {}, {} bytes, written by {})\n", path, b.format_version, b.file_size,
                    b.toolchain);
  os << fmt::format("operator {}  target {}\n", p.name, p.target);
  if (!p.doc.empty()) os << "doc      " << p.doc << "\n";
  if (!p.spec_file.empty()) os << "spec     " << p.spec_file << "\n";
  if (!p.set_overrides.empty()) {
    os << "--set   ";
    for (auto& s : p.set_overrides) os << " " << s;
    os << "\n";
  }
  os << "dims\n";
  for (auto& d : p.dims) {
    if (!d.dynamic) {
      os << fmt::format("  {:<12} = {}\n", d.name, d.value);
      continue;
    }
    os << fmt::format("  {:<12} dynamic", d.name);
    if (d.max) os << ", max " << d.max;
    if (d.divisible_by > 1) os << ", divisible by " << d.divisible_by;
    os << "\n";
  }
  os << "tensors\n";
  for (auto& t : p.tensors) {
    os << fmt::format("  {:<12} {:<9} {:<5} {} {}", t.name, gm_role_name(t.role), dtype_name(t.dtype), join_dims(t.shape),
                      t.format == Format::NZ ? "NZ" : "ND");
    if (t.l2_bypass) os << " l2:bypass";
    if (t.role == GmTensor::Role::Temp && t.root >= 0) os << " (root " << t.root << ")";
    os << "\n";
  }
  const Options& o = p.options;
  // Every knob of the table (runtime/program/knobs.h); * marks the ones `ptorun --set` may change.
  os << "options\n";
  for (const Knob& k : knobs()) {
    std::string v;
    switch (k.type) {
      case Knob::Type::Int: v = std::to_string(k.get(o)); break;
      case Knob::Type::Bool: v = k.get(o) ? "true" : "false"; break;
      case Knob::Type::Setting: v = setting_text(o.*(k.setting)); break;
    }
    os << fmt::format("  {:<32} {}{}\n", k.name(), v, k.run_time ? "  *" : "");
  }
  os << "control flow\n";
  print_control(os, p, p.control, 2);
  size_t total_tasks = 0;
  for (auto& r : p.roots) total_tasks += task_count(r);
  os << fmt::format("root functions ({}, {} tasks)\n", p.roots.size(), total_tasks);
  for (auto& r : p.roots) {
    size_t aic = 0;
    for (size_t i = 0; i < task_count(r); ++i)
      if (const int c = task_class(r, i); c >= 0 && size_t(c) < p.leaves.size() && p.leaves[size_t(c)].core == CoreType::AIC)
        ++aic;
    os << fmt::format("  func{:<4} {:<20} factor {:<3} tasks {:>6} (AIC {}, AIV {})  temps {}\n", r.index, r.name,
                      r.factor, task_count(r), aic, task_count(r) - aic, r.temps.size());
  }
  // Each class is stored once; its instances are the tasks that call it.
  std::vector<size_t> count(p.leaves.size(), 0);
  for (auto& r : p.roots)
    for (size_t i = 0; i < task_count(r); ++i)
      if (const int c = task_class(r, i); c >= 0 && size_t(c) < p.leaves.size()) ++count[size_t(c)];
  os << fmt::format("leaf classes ({}, {} instances)\n", p.leaves.size(), total_tasks);
  for (size_t ci = 0; ci < p.leaves.size(); ++ci) {
    const LeafFunction& l = p.leaves[ci];
    os << fmt::format("  class {:<4} x{:<6} {}  est {:>8} cycles  ops {:<4} kernel {}", ci, count[ci], l.core == CoreType::AIC ? "AIC" : "AIV",
                      l.est_cycles, l.num_ops,
                      l.kernel >= 0 && size_t(l.kernel) < p.kernels.size() ? p.kernels[size_t(l.kernel)].name : "-");
    os << "  pipes";
    for (int i = 0; i < kNumPipes; ++i)
      if (l.pipe_cycles[size_t(i)]) os << " " << pipe_name(PipeId(i)) << "=" << l.pipe_cycles[size_t(i)];
    if (l.chains > 1) os << "  chains " << l.chains;
    if (!l.merge_info.empty()) os << "  [" << l.merge_info << "]";
    os << "\n";
  }
  if (instances) {
    os << "instances (root, task: class, leaf, successors)\n";
    for (auto& r : p.roots)
      for (size_t i = 0; i < task_count(r); ++i) {
        const std::vector<int>& succ = task_succ(r, i);
        os << fmt::format("  func{} t{:<5} class {:<4} leaf {:<6} succ [", r.index, i, task_class(r, i), task_leaf(r, i));
        for (size_t s = 0; s < succ.size(); ++s) os << (s ? ", " : "") << succ[s];
        os << "]\n";
      }
  }
  os << fmt::format("kernels ({})\n", p.kernels.size());
  for (auto& k : p.kernels)
    os << fmt::format("  {:<32} {}  args {:<3} gm {:<3} source {} bytes, hash {:016x}\n", k.name,
                      k.core == CoreType::AIC ? "AIC" : "AIV", k.num_args, k.num_gm, k.source.size(), k.source_hash);
  os << "sections\n";
  for (auto& s : b.sections)
    os << fmt::format("  {:<10} {:>12} bytes at {:>10}  xxh64 {:016x}\n", s.name, s.length, s.offset, s.checksum);
  if (b.host_twin_so.empty()) os << "note: no host twin in this bundle; ptorun can only simulate timing (--timing-only)\n";
  return 0;
}

}  // namespace ptoc::runtime
