// The bundle's task records against the roots_bytes limit (bundle_budget.h). The records are
// estimated from the compact form the bundle writer stores (task_instances.h): expression texts
// exactly (their length is computed once per shared DimExpr node, so an expression whose text
// doubles at every level costs its node count, not its text), the JSON around them closely.
#include "compiler/passes/bundle_budget.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "runtime/core/resource_limits.h"
#include "runtime/program/task_instances.h"

namespace ptoc {

namespace {

// Length of DimExpr::str() (runtime/core/dim_expr.cpp's render), memoised per node; saturating.
class TextLength {
 public:
  int64_t of(const DimExpr& e) {
    using K = DimExpr::Kind;
    if (e.is_const()) return digits(*e.as_const());
    if (e.kind() == K::Sym) return int64_t(e.name().size());
    const void* key = &e.args();  // one args vector per node: the node's identity
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const auto& a = e.args();
    int64_t n = 0;
    switch (e.kind()) {
      case K::Add: case K::Sub: n = sub(a[0], 1) + 3 + sub(a[1], 2); break;
      case K::Mul: n = sub(a[0], 2) + 3 + sub(a[1], 3); break;
      case K::FloorDiv: n = sub(a[0], 2) + 4 + sub(a[1], 3); break;
      case K::Mod: n = sub(a[0], 2) + 3 + sub(a[1], 3); break;
      case K::Neg: n = 1 + sub(a[0], 3); break;
      case K::CeilDiv: n = 9 + of(a[0]) + 2 + of(a[1]) + 1; break;
      case K::Min: case K::Max: n = 4 + of(a[0]) + 2 + of(a[1]) + 1; break;
      default: n = 1; break;
    }
    n = std::min<int64_t>(n, int64_t(1) << 60);
    memo_.emplace(key, n);
    return n;
  }
  // A JSON list of expression strings: quotes, commas, brackets.
  int64_t list(const std::vector<DimExpr>& v, int64_t* longest = nullptr) {
    int64_t n = 2;
    for (const DimExpr& e : v) {
      const int64_t t = of(e);
      if (longest) *longest = std::max(*longest, t);
      n += t + 3;
    }
    return n;
  }
  static int64_t digits(int64_t v) {
    int64_t n = v < 0 ? 2 : 1;
    for (uint64_t u = v < 0 ? uint64_t(-(v + 1)) + 1 : uint64_t(v); u >= 10; u /= 10) ++n;
    return n;
  }

 private:
  static int prec(DimExpr::Kind k) { return DimExpr::print_precedence(k); }

  int64_t sub(const DimExpr& x, int min_prec) {
    const bool paren = prec(x.kind()) < min_prec || (x.is_const() && *x.as_const() < 0 && min_prec > 1);
    return of(x) + (paren ? 2 : 0);
  }
  std::unordered_map<const void*, int64_t> memo_;
};

int64_t int_list(const std::vector<int>& v) {
  int64_t n = 2;
  for (int x : v) n += TextLength::digits(x) + 1;
  return n;
}

// {"extent":[..],"loc":[l,c],"offset":[..],"tensor":t}
int64_t regions(TextLength& len, const std::vector<Region>& rs, int64_t& longest) {
  int64_t n = 2;
  for (const Region& r : rs)
    n += 46 + len.list(r.extent, &longest) + len.list(r.offset, &longest) + TextLength::digits(r.tensor) +
         TextLength::digits(r.loc.line) + TextLength::digits(r.loc.col);
  return n;
}

// The statement a task's record belongs to: its first write, else its first read.
SrcLoc statement_of(const std::vector<Region>& writes, const std::vector<Region>& reads) {
  for (const Region& r : writes)
    if (r.loc.valid()) return r.loc;
  for (const Region& r : reads)
    if (r.loc.valid()) return r.loc;
  return {};
}

struct PerStatement {
  int64_t bytes = 0, longest = 0;
};
using StatementBytes = std::map<std::pair<int, int>, PerStatement>;

void charge(StatementBytes& by, SrcLoc loc, int64_t bytes, int64_t longest) {
  PerStatement& s = by[{loc.line, loc.col}];
  s.bytes += bytes;
  s.longest = std::max(s.longest, longest);
}

}  // namespace

TaskRecordBytes estimate_task_records(const CompiledProgram& p) {
  TaskRecordBytes out;
  TextLength len;
  out.total = 64;  // the control nest is small beside the tasks; its framing
  for (size_t ri = 0; ri < p.roots.size(); ++ri) {
    const RootFunction& rf = p.roots[ri];
    CompactRoot scratch;
    const CompactRoot& cr = compact_of(p, rf, scratch);
    StatementBytes by;
    int64_t bytes = 200 + int64_t(rf.name.size());
    std::vector<SrcLoc> tmpl_loc, expl_loc;
    for (const Task& t : cr.explicit_tasks) {
      int64_t longest = 0;
      const int64_t b = 50 + len.list(t.args, &longest) + int_list(t.gm) + regions(len, t.reads, longest) +
                        regions(len, t.writes, longest) + TextLength::digits(t.cls);
      expl_loc.push_back(statement_of(t.writes, t.reads));
      charge(by, expl_loc.back(), b, longest);
      bytes += b;
    }
    for (const TaskTemplate& t : cr.templates) {
      int64_t longest = 0;
      const int64_t b = 80 + len.list(t.args, &longest) + int_list(t.gm) + int_list(t.group_of) +
                        regions(len, t.reads, longest) + regions(len, t.writes, longest);
      tmpl_loc.push_back(statement_of(t.writes, t.reads));
      charge(by, tmpl_loc.back(), b, longest);
      bytes += b;
    }
    for (const TaskInstanceRecord& r : cr.instances) {
      int64_t b = 12 + TextLength::digits(r.tmpl) + TextLength::digits(r.leaf) + TextLength::digits(r.hash_order) +
                  TextLength::digits(r.label) + int_list(r.succ);
      for (int64_t d : r.deltas) b += TextLength::digits(d) + 1;
      if (r.tmpl < 0) b += TextLength::digits(r.explicit_task);
      const SrcLoc at = r.tmpl >= 0 ? (size_t(r.tmpl) < tmpl_loc.size() ? tmpl_loc[size_t(r.tmpl)] : SrcLoc{})
                                    : (size_t(r.explicit_task) < expl_loc.size() ? expl_loc[size_t(r.explicit_task)]
                                                                                 : SrcLoc{});
      charge(by, at, b, 0);
      bytes += b;
    }
    for (const std::string& l : cr.labels) bytes += int64_t(l.size()) + 3;
    bytes += int_list(cr.op_magics) + int_list(cr.pred_counts) + int_list(rf.temps);
    for (const WindowCheck& w : rf.window_checks)
      bytes += 90 + len.of(w.start) + len.of(w.extent) + len.of(w.bound) + int64_t(w.source.size());
    out.total += bytes;
    if (bytes > out.root_bytes) {
      out.root = int(ri);
      out.root_bytes = bytes;
      out.root_tasks = cr.instances.size();
      out.root_explicit = cr.explicit_tasks.size();
      out.loc = {};
      out.loc_bytes = 0;
      out.longest_expr = 0;
      for (const auto& [where, s] : by)
        if (s.bytes > out.loc_bytes) {
          out.loc = {where.first, where.second};
          out.loc_bytes = s.bytes;
          out.longest_expr = s.longest;
        }
    }
  }
  return out;
}

// A bound on the section without compacting: every task as if it were its own template and instance.
int64_t task_records_bound(const CompiledProgram& p) {
  TextLength len;
  int64_t n = 64;
  for (const RootFunction& rf : p.roots) {
    n += 200 + int64_t(rf.name.size()) + int_list(rf.temps);
    // A root the task graph built compact has no bound cheaper than its estimate.
    if (rf.compact) return INT64_MAX;
    for (const Task& t : rf.tasks) {
      int64_t longest = 0;
      n += 150 + len.list(t.args, &longest) + 2 * int_list(t.gm) + regions(len, t.reads, longest) +
           regions(len, t.writes, longest) + 2 * int_list(t.succ) + int64_t(t.label.size()) + 40 +
           3 * int64_t(task_value_count(t));
    }
    for (const WindowCheck& w : rf.window_checks)
      n += 90 + len.of(w.start) + len.of(w.extent) + len.of(w.bound) + int64_t(w.source.size());
  }
  return n;
}

bool check_bundle_budget(const CompiledProgram& p, DiagEngine& diags) {
  const int64_t cap = limits::get(limits::Id::roots_bytes);
  if (task_records_bound(p) <= cap) return true;  // the common case: no compaction needed to know
  const TaskRecordBytes e = estimate_task_records(p);
  if (e.total <= cap || e.root < 0) return true;
  auto mb = [](int64_t b) {
    return b < (int64_t(10) << 20) ? std::to_string((b + 1023) >> 10) + " KiB" : std::to_string((b + (1 << 20) - 1) >> 20) + " MiB";
  };
  const RootFunction& rf = p.roots[size_t(e.root)];
  std::string msg = "the bundle's task records would take about " + mb(e.total) + ", more than the roots_bytes limit of " +
                    std::to_string(cap) + " bytes (ptorun needs about 30 bytes of memory per byte to load them): root " +
                    "function '" + rf.name + "' holds " + mb(e.root_bytes) + " in " + std::to_string(e.root_tasks) +
                    " tasks (" + std::to_string(e.root_explicit) + " stored whole, without a shared template), " +
                    mb(e.loc_bytes) + " of it for the tasks of this statement";
  if (e.longest_expr > 256)
    msg += ", whose longest argument expression has " + std::to_string(e.longest_expr) + " characters";
  diags.error(e.loc, msg,
              "use larger tiles or fewer unroll gears (fewer tasks), split the statement, or " +
                  limits::raise_hint(limits::Id::roots_bytes));
  return false;
}

}  // namespace ptoc
