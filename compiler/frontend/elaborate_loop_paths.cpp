// Loop paths: a dynamic loop whose body branches on is_loop_begin(v) / is_loop_end(v) of its own
// variable v is elaborated once per path (first, middle, last instance, or the only one), each
// copy with those conditions decided, so that every `if` on them folds and is spliced in place
// (elaborate_cond.cpp). Each copy is the body of a branch loop of one iteration or none whose trip
// count is the path's condition: per instance exactly one runs, and the middle instances run one
// body with no branch in it, the root functions of a body without the `if` (no root function per
// branch, whose device-task building dominates at a small stitch_function_max_num).
//
// This is what PyPTO does: its loop traces the body once per outcome of the conditions it meets
// (DynloopFunctionAttribute's path list in framework/src/interface/function/function.cpp), one
// path function each, and the control flow picks the path per iteration. Conditions on other
// run-time values (`cond`, a scalar read from a tensor) stay run-time branches.
#include <algorithm>

#include "runtime/core/resource_limits.h"
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

DimExpr clamp01(const DimExpr& x) { return min(DimExpr(1), max(DimExpr(0), x)); }

// Whether `e` calls is_loop_begin(var) / is_loop_end(var).
void loop_end_uses(const Expr& e, const std::string& var, bool& begin, bool& end) {
  if (e.kind == Expr::Kind::Call && (e.name == "is_loop_begin" || e.name == "is_loop_end") && e.args.size() == 1 &&
      e.args[0].name.empty() && e.args[0].value && e.args[0].value->kind == Expr::Kind::Name &&
      e.args[0].value->name == var)
    (e.name == "is_loop_begin" ? begin : end) = true;
  for (const auto& i : e.items)
    if (i) loop_end_uses(*i, var, begin, end);
  for (const auto& a : e.args)
    if (a.value) loop_end_uses(*a.value, var, begin, end);
}

// Through every statement of the body, nested loops included (their instances lie in one
// instance of this loop, so the condition is decided there too).
void loop_end_uses(const std::vector<Stmt>& stmts, const std::string& var, bool& begin, bool& end) {
  for (const auto& s : stmts) {
    if (s.kind == Stmt::Kind::If && s.cond) loop_end_uses(*s.cond, var, begin, end);
    loop_end_uses(s.body, var, begin, end);
    loop_end_uses(s.else_body, var, begin, end);
  }
}

}  // namespace

DimExpr Elaborator::loop_begin01(const Frame::Enclosing& en) {
  return DimExpr(1) - min(DimExpr(1), DimExpr::sym(en.var) - en.begin);
}

DimExpr Elaborator::loop_end01(const Frame::Enclosing& en) {
  // The instance that covers the last iteration: var + factor * step reaches end.
  return DimExpr(1) - clamp01(en.end - (DimExpr::sym(en.var) + en.factor * en.step));
}

DimExpr Elaborator::path_minmax(bool is_min, const DimExpr& a, const DimExpr& b) const {
  if (seq_)
    for (const auto& f : seq_->frame.facts) {
      // b - a >= f >= 0: a <= b. a - b >= f >= 0: b <= a.
      if (auto c = const_difference(b - a, f); c && *c >= 0) return is_min ? a : b;
      if (auto c = const_difference(a - b, f); c && *c >= 0) return is_min ? b : a;
    }
  return is_min ? min(a, b) : max(a, b);
}

void Elaborator::loop_body(const Stmt& s, const Seq& inner, const std::vector<Carried>& carried, Names& local,
                           const Names& outer_names, const std::string& var) {
  loop_carries_.push_back({&inner, &carried});
  block(s.body);
  loop_carries_.pop_back();
  carry_out(carried, local, s.loc.line);
  drop_zero_fills();
  flush_run();
  note_loop_locals(local, outer_names, var, s.loc.line);
}

bool Elaborator::loop_paths(const Stmt& s, const std::vector<Carried>& carried, const Names& outer_names,
                            const TileState& gear_ts) {
  const LoopAst& l = s.loop;
  bool uses_begin = false, uses_end = false;
  loop_end_uses(s.body, l.var, uses_begin, uses_end);
  if (!uses_begin && !uses_end) return false;
  Seq* gear_seq = seq_;
  Names* gear_names = names_;
  TileState* gear_ts_ptr = ts_;
  const Frame::Enclosing own = gear_seq->frame.enclosing.back();  // this gear of the loop
  const DimExpr first = loop_begin01(own), last = loop_end01(own);
  struct Path {
    int begin, end;
    const char* tag;
  };
  std::vector<Path> paths;
  if (uses_begin && uses_end)
    paths = {{0, 0, "mid"}, {1, 0, "first"}, {0, 1, "last"}, {1, 1, "only"}};
  else if (uses_begin)
    paths = {{0, -1, "rest"}, {1, -1, "first"}};
  else
    paths = {{-1, 0, "rest"}, {-1, 1, "last"}};
  // Each path is one more copy of the body, and nested loops multiply them (4 paths in each of k
  // nested loops: 4^k bodies): counted with the static loops' unrolled bodies.
  const int64_t cap = limits::get(limits::Id::static_iterations);
  if (static_iterations_ > cap) return true;  // already reported once
  const int64_t n = int64_t(paths.size());
  if (static_iterations_ > cap - n) {
    const int64_t before = static_iterations_;
    static_iterations_ = cap + 1;
    r_.error(s.loc,
             "the body of loop '" + l.var + "' is elaborated once per path of its is_loop_begin / is_loop_end (" +
                 std::to_string(n) + " paths), more than " + std::to_string(cap) + " loop bodies in all (" +
                 std::to_string(before) + " before it, static loops and nested paths multiplied)",
             "branch with cond on a comparison of '" + l.var + "' (a run-time branch, no paths), or " +
                 limits::raise_hint(limits::Id::static_iterations),
             int(l.var.size()));
    return true;
  }
  static_iterations_ += n;
  for (const auto& p : paths) {
    if (r_.full()) break;
    DimExpr trip(1);
    if (p.begin >= 0) trip = p.begin ? first : DimExpr(1) - first;
    if (p.end >= 0) trip = p.begin >= 0 ? min(trip, p.end ? last : DimExpr(1) - last) : (p.end ? last : DimExpr(1) - last);
    trip = simplify(trip);
    if (auto k = trip.as_const(); k && *k == 0) continue;  // a path no instance of this gear takes
    std::string name = gear_seq->frame.root_prefix + "_" + p.tag;
    {
      const std::string base = name;
      for (int k = 2; loop_names_.count(name); ++k) name = base + "_" + std::to_string(k);
      loop_names_.insert(name);
    }
    const std::string var = "_" + name;  // the path loop's variable: 0 in its only iteration
    LoopNode node;
    node.kind = LoopNode::Kind::Loop;
    node.var = var;
    node.name = name;
    node.begin = DimExpr(0);
    node.end = trip;
    node.step = DimExpr(1);
    node.loc = s.loc;
    node.gears.resize(1);
    node.gears[0].factor = 1;
    Seq inner;
    inner.nodes = &node.gears[0].body;
    inner.frame = gear_seq->frame;
    inner.frame.enclosing.back().begin_is = p.begin;
    inner.frame.enclosing.back().end_is = p.end;
    // What the path knows about v (each >= 0): a gear-k instance runs while k iterations are left
    // (end - v > (k - 1) * step), v is past begin, and the path's own decisions.
    {
      const DimExpr v = DimExpr::sym(own.var), k(own.factor);
      auto& facts = inner.frame.facts;
      facts.push_back(simplify(own.end - v - (k - DimExpr(1)) * own.step - DimExpr(1)));
      facts.push_back(simplify(v - own.begin));
      if (p.begin == 1) facts.push_back(simplify(own.begin - v));
      if (p.begin == 0) facts.push_back(simplify(v - own.begin - own.step));
      if (p.end == 0) facts.push_back(simplify(own.end - v - k * own.step - DimExpr(1)));
      if (p.end == 1) facts.push_back(simplify(v + k * own.step - own.end));
    }
    inner.frame.dyn_vars.insert(var);
    inner.frame.loop_vars.push_back(var);
    inner.frame.var_ranges[var] = {0, 0};
    inner.frame.sym_ranges[var] = {DimExpr(0), DimExpr(0)};
    // Its variable is always 0: one window per instance of the loop, as without paths.
    inner.frame.enclosing.push_back({var, name, DimExpr(0), DimExpr(1), DimExpr(1), trip, 1, true});
    inner.frame.root_prefix = name;
    Names local = *gear_names;
    TileState ts = gear_ts;
    seq_ = &inner;
    names_ = &local;
    ts_ = &ts;
    loop_body(s, inner, carried, local, outer_names, l.var);
    seq_ = gear_seq;
    names_ = gear_names;
    ts_ = gear_ts_ptr;
    gear_seq->nodes->push_back(std::move(node));
  }
  return true;
}

}  // namespace ptoc::fe
