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
// path function each, and the control flow picks the path per iteration. A comparison of v with
// its first or last value (`j == 0`, `j == n - 1`, `j > 0`) in an `if` or a `cond` splits the body
// the same way and is decided by the path's facts (path_compare). Conditions on other run-time
// values (another comparison, a scalar read from a tensor) stay run-time branches.
#include <algorithm>
#include <functional>

#include "runtime/core/resource_limits.h"
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

DimExpr clamp01(const DimExpr& x) { return min(DimExpr(1), max(DimExpr(0), x)); }

// Whether `e` calls is_loop_begin(var) / is_loop_end(var), or compares var with its first or
// last value (`classify`: 1 first, 2 last; 3 decided in every instance, 0 neither).
void loop_end_uses(const Expr& e, const std::string& var, bool& begin, bool& end,
                   const std::function<int(const Expr&)>& classify) {
  if (e.kind == Expr::Kind::Call && (e.name == "is_loop_begin" || e.name == "is_loop_end") && e.args.size() == 1 &&
      e.args[0].name.empty() && e.args[0].value && e.args[0].value->kind == Expr::Kind::Name &&
      e.args[0].value->name == var)
    (e.name == "is_loop_begin" ? begin : end) = true;
  if (e.kind == Expr::Kind::Compare && e.items.size() == 2 && e.items[0] && e.items[1])
    if (int c = classify(e); c == 1 || c == 2) (c == 1 ? begin : end) = true;
  for (const auto& i : e.items)
    if (i) loop_end_uses(*i, var, begin, end, classify);
  for (const auto& a : e.args)
    if (a.value) loop_end_uses(*a.value, var, begin, end, classify);
}

// Through every statement of the body, nested loops included (their instances lie in one
// instance of this loop, so the condition is decided there too).
void loop_end_uses(const std::vector<Stmt>& stmts, const std::string& var, bool& begin, bool& end,
                   const std::function<int(const Expr&)>& classify) {
  for (const auto& s : stmts) {
    if (s.kind == Stmt::Kind::If && s.cond) loop_end_uses(*s.cond, var, begin, end, classify);
    loop_end_uses(s.body, var, begin, end, classify);
    loop_end_uses(s.else_body, var, begin, end, classify);
  }
}

// Whether `e` mentions the name `var`.
bool mentions(const Expr& e, const std::string& var) {
  if (e.kind == Expr::Kind::Name && !e.quoted && e.name == var) return true;
  for (const auto& i : e.items)
    if (i && mentions(*i, var)) return true;
  for (const auto& a : e.args)
    if (a.value && mentions(*a.value, var)) return true;
  return false;
}

}  // namespace

// A dim expression that dim() evaluates without a diagnostic: integers, known dims, constants and
// the enclosing dynamic loops' variables, elements of int inputs under + - * // % and min / max / ceil_div.
static bool quiet_dim(const Expr& e, const Program& p, const Frame& f) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::Number: return e.is_int;
    case K::Name: return !e.quoted && (p.find_dim(e.name) || f.consts.count(e.name) || f.dyn_vars.count(e.name));
    case K::Neg: return quiet_dim(*e.items[0], p, f);
    case K::Binary: {
      if (e.op != "+" && e.op != "-" && e.op != "*" && e.op != "//" && e.op != "%") return false;
      const Expr& rhs = *e.items[1];
      if ((e.op == "//" || e.op == "%") && !(rhs.kind == K::Number && rhs.is_int && rhs.ival > 0)) return false;
      return quiet_dim(*e.items[0], p, f) && quiet_dim(rhs, p, f);
    }
    case K::Call: {
      if ((e.name != "min" && e.name != "max" && e.name != "ceil_div") || e.args.size() != 2) return false;
      for (const auto& a : e.args)
        if (!a.name.empty() || !a.value || !quiet_dim(*a.value, p, f)) return false;
      const Expr& d = *e.args[1].value;
      return e.name != "ceil_div" || (d.kind == K::Number && d.is_int && d.ival > 0);
    }
    case K::Subscript: {  // `n[b]`: an element of an int32 / int64 input, as a loop bound reads it
      if (e.items.empty() || !e.items[0] || e.items[0]->kind != K::Name) return false;
      const int t = p.find_tensor(e.items[0]->name);
      if (t < 0) return false;
      const TensorDecl& td = p.tensors[size_t(t)];
      if (td.role != TensorRole::Input || (td.dtype != DType::int32 && td.dtype != DType::int64) ||
          e.slices.size() != td.shape.size())
        return false;
      for (const auto& sl : e.slices)
        if (sl.kind != Slice::Kind::Index || !sl.start || !quiet_dim(*sl.start, p, f)) return false;
      return true;
    }
    default: return false;
  }
}

static std::optional<int64_t> decide_compare(const std::string& op, const DimExpr& a, const DimExpr& b,
                                             const std::vector<DimExpr>& facts);

// What every instance of a gear knows of its variable v (each >= 0): v is past begin, and a gear-k
// instance runs while k iterations are left (end - v > (k - 1) * step).
static std::vector<DimExpr> instance_facts(const Frame::Enclosing& en) {
  const DimExpr v = DimExpr::sym(en.var), k(en.factor);
  return {simplify(en.end - v - (k - DimExpr(1)) * en.step - DimExpr(1)), simplify(v - en.begin)};
}

int Elaborator::loop_position_compare(const Expr& cmp, const Frame::Enclosing& en) {
  if (!seq_ || cmp.kind != Expr::Kind::Compare || en.branch) return 0;
  const Expr& l = *cmp.items[0];
  const Expr& r = *cmp.items[1];
  if (!mentions(l, en.var) && !mentions(r, en.var)) return 0;
  if (!quiet_dim(l, p_, seq_->frame) || !quiet_dim(r, p_, seq_->frame)) return 0;
  std::vector<ScalarLoad> loads;  // read again where the condition is elaborated
  LoadSink sink(*this, &loads);
  auto a = dim(l, DimUse::Loop);
  auto b = dim(r, DimUse::Loop);
  if (!a || !b) return 0;
  // Decided in both paths of is_loop_begin (or of is_loop_end): what those paths know of v
  // (loop_paths' facts), with and without the condition.
  const DimExpr v = DimExpr::sym(en.var), k(en.factor);
  const std::vector<DimExpr> base = instance_facts(en);
  auto decided_both = [&](const DimExpr& yes, const DimExpr& no) {
    std::vector<DimExpr> f1 = base, f0 = base;
    f1.push_back(simplify(yes));
    f0.push_back(simplify(no));
    return decide_compare(cmp.op, *a, *b, f1) && decide_compare(cmp.op, *a, *b, f0);
  };
  if (decide_compare(cmp.op, *a, *b, base)) return 3;  // the same in every instance (path_compare folds it)
  if (decided_both(en.begin - v, v - en.begin - en.step)) return 1;
  if (decided_both(v + k * en.step - en.end, en.end - v - k * en.step - DimExpr(1))) return 2;
  return 0;
}

bool Elaborator::loop_position_condition(const Expr& e) {
  if (!seq_) return false;
  if (e.kind == Expr::Kind::Compare && e.items.size() == 2 && e.items[0] && e.items[1])
    for (const auto& en : seq_->frame.enclosing)
      if (loop_position_compare(e, en)) return true;
  for (const auto& i : e.items)
    if (i && loop_position_condition(*i)) return true;
  return false;
}

static std::optional<int64_t> decide_compare(const std::string& op, const DimExpr& a, const DimExpr& b,
                                             const std::vector<DimExpr>& facts) {
  if (facts.empty()) return std::nullopt;
  // x >= 0 when x is a constant >= 0 or a fact plus a constant >= 0.
  auto nonneg = [&](const DimExpr& x) {
    const DimExpr sx = simplify(x);
    if (auto k = sx.as_const()) return *k >= 0;
    for (const auto& f : facts)
      if (auto c = const_difference(sx, f); c && *c >= 0) return true;
    return false;
  };
  const DimExpr d = b - a;  // a < b: d >= 1
  auto decide = [&](const DimExpr& when_true, const DimExpr& when_false) -> std::optional<int64_t> {
    if (nonneg(when_true)) return 1;
    if (nonneg(when_false)) return 0;
    return std::nullopt;
  };
  const DimExpr one(1), zero(0);
  if (op == "<") return decide(d - one, zero - d);
  if (op == "<=") return decide(d, zero - d - one);
  if (op == ">") return decide(zero - d - one, d);
  if (op == ">=") return decide(zero - d, d - one);
  const bool eq = nonneg(d) && nonneg(zero - d), ne = nonneg(d - one) || nonneg(zero - d - one);
  if (!eq && !ne) return std::nullopt;
  return op == "==" ? int64_t(eq) : int64_t(!eq);
}

std::optional<int64_t> Elaborator::path_compare(const std::string& op, const DimExpr& a, const DimExpr& b) const {
  if (!seq_) return std::nullopt;
  // The path's facts and what each enclosing loop's instance knows of its variable (so `j == n - 1`
  // is false in a gear-2 instance, which runs while two iterations are left).
  std::vector<DimExpr> facts = seq_->frame.facts;
  for (const auto& en : seq_->frame.enclosing)
    if (!en.branch)
      for (auto& f : instance_facts(en)) facts.push_back(std::move(f));
  return decide_compare(op, a, b, facts);
}

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
  const Frame::Enclosing& self = seq_->frame.enclosing.back();
  loop_end_uses(s.body, l.var, uses_begin, uses_end,
                [&](const Expr& cmp) { return loop_position_compare(cmp, self); });
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
             "fewer nested loops that branch on their first or last iteration, or " +
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
