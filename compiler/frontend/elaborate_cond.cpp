// Run-time `if`: a condition on dynamic loop variables or dynamic dims, or
// PyPTO's is_loop_begin(var) / is_loop_end(var) (specs/README.md "Run-time
// conditions"). The condition becomes a 0/1 dim expression c (comparisons and
// and/or/not written with min and max), and each branch a dynamic loop of c
// (then) or 1 - c (else) iterations: the runtime's loop nest evaluates it per
// instance of the enclosing loops, and every later layer (evaluator, passes,
// codegen, dependency analysis) sees an ordinary loop.
//
// A name bound before the `if` and rebound in a branch keeps its new value
// after it, as in Python: it is carried through the branch loops like a loop's
// carried value (a GM window per instance of the enclosing loops). A name first
// bound in both branches is readable after it (elaborate_bound_in_both.cpp); one
// first bound in one branch only is local to that branch.
#include <algorithm>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

DimExpr clamp01(const DimExpr& x) { return min(DimExpr(1), max(DimExpr(0), x)); }
DimExpr absd(const DimExpr& x) { return max(x, DimExpr(0) - x); }

// Names bound by assignment in `stmts` (through scopes and ifs; loop bodies are their own).
void rebound_names(const std::vector<Stmt>& stmts, std::vector<std::string>& out) {
  for (const auto& s : stmts) {
    if (s.kind == Stmt::Kind::Assign && !s.assign.subscript) {
      if (std::find(out.begin(), out.end(), s.assign.target) == out.end()) out.push_back(s.assign.target);
      for (const auto& m : s.assign.more_targets)  // `v, i = topk(...)`
        if (std::find(out.begin(), out.end(), m.text) == out.end()) out.push_back(m.text);
    }
    if (s.kind == Stmt::Kind::Scope || s.kind == Stmt::Kind::If) {
      rebound_names(s.body, out);
      rebound_names(s.else_body, out);
    }
  }
}

}  // namespace

// A comparison with a float constant or literal on one side and a compile-time number on the other:
// decided here in double, as Python decides PyPTO's `if scale != 1.0:`.
std::optional<DimExpr> Elaborator::float_compare01(const Expr& e) {
  auto a = const_float_of(*e.items[0]);
  auto b = const_float_of(*e.items[1]);
  if (!a && !b) return std::nullopt;
  auto whole = [&](const Expr& x) -> std::optional<double> {
    if (x.kind == Expr::Kind::Number && x.is_int) return double(x.ival);
    if (auto v = const_float_of(x)) return v;
    if (auto d = dim(x, DimUse::Static))
      if (auto k = simplify(*d).as_const()) return double(*k);
    return std::nullopt;
  };
  if (!a) a = whole(*e.items[0]);
  if (!b) b = whole(*e.items[1]);
  if (!a || !b) return std::nullopt;
  const std::string& o = e.op;
  const bool r = o == "<" ? *a < *b : o == "<=" ? *a <= *b : o == ">" ? *a > *b : o == ">=" ? *a >= *b
               : o == "==" ? *a == *b : *a != *b;
  return DimExpr(r ? 1 : 0);
}

bool Elaborator::runtime_condition(const Expr& e) const {
  using K = Expr::Kind;
  if (e.kind == K::Call && (e.name == "is_loop_begin" || e.name == "is_loop_end")) return true;
  // A scalar binding (`start_pos = start_pos_dy[b]`, `bsz = x.shape[0]`, elaborate_symbolic_scalar.cpp)
  // decides at run time, as PyPTO's `if` on a SymbolicScalar does.
  if (e.kind == K::Name && seq_ && seq_->frame.scalars.count(e.name)) return true;
  for (const auto& i : e.items)
    if (i && runtime_condition(*i)) return true;
  for (const auto& a : e.args)
    if (a.value && runtime_condition(*a.value)) return true;
  return false;
}

std::optional<DimExpr> Elaborator::condition01(const Expr& e) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::BoolOp: {
      auto a = condition01(*e.items[0]);
      auto b = condition01(*e.items[1]);
      if (!a || !b) return std::nullopt;
      // A side decided at compile time (a static loop's variable, a dim) folds away, so
      // that `is_loop_end(j) and t == 3` is the constant 0 in the copies where t != 3.
      const bool is_and = e.op == "and";
      for (int side = 0; side < 2; ++side) {
        auto k = simplify(side ? *b : *a).as_const();
        if (!k) continue;
        const DimExpr& other = side ? *a : *b;
        if (is_and) return *k ? other : DimExpr(0);
        return *k ? DimExpr(1) : other;
      }
      return is_and ? min(*a, *b) : max(*a, *b);
    }
    case K::Not: {
      auto a = condition01(*e.items[0]);
      if (!a) return std::nullopt;
      return DimExpr(1) - *a;
    }
    case K::Compare: {
      if (auto k = float_compare01(e)) return *k;  // `scale != 1.0` on float constants
      auto a = dim(*e.items[0], DimUse::Loop);
      auto b = dim(*e.items[1], DimUse::Loop);
      if (!a || !b) return std::nullopt;
      const std::string& o = e.op;
      // `j == 0` / `j == n - 1` in a path of j's loop: decided there (elaborate_loop_paths.cpp).
      if (auto k = path_compare(o, *a, *b)) return DimExpr(*k);
      if (o == "<") return clamp01(*b - *a);
      if (o == "<=") return clamp01(*b - *a + 1);
      if (o == ">") return clamp01(*a - *b);
      if (o == ">=") return clamp01(*a - *b + 1);
      if (o == "==") return DimExpr(1) - min(DimExpr(1), absd(*a - *b));
      return min(DimExpr(1), absd(*a - *b));
    }
    case K::Call:
      if (e.name == "is_loop_begin" || e.name == "is_loop_end") {
        const std::string what = e.name + "(var)";
        if (e.args.size() != 1 || !e.args[0].name.empty() || e.args[0].value->kind != K::Name) {
          err(e.op_off, int(e.name.size()), e.name + " takes one argument, the variable of an enclosing loop",
              "write " + e.name + "(j) inside the loop over j");
          return std::nullopt;
        }
        const std::string& v = e.args[0].value->name;
        const Frame::Enclosing* en = nullptr;
        if (seq_)
          for (const auto& x : seq_->frame.enclosing)
            if (x.var == v) en = &x;
        if (!en) {
          const Expr& ve = *e.args[0].value;
          bool is_static = seq_ && seq_->frame.consts.count(v);
          err(ve.off, ve.len,
              "'" + v + "' is not the variable of an enclosing dynamic loop",
              is_static ? "a static loop's variable is a constant in each copy: compare it, e.g. '" + v + " == 0'"
                        : "is_loop_begin and is_loop_end take the variable of a loop around the if");
          return std::nullopt;
        }
        // Decided by the path of the loop's body this copy belongs to (elaborate_loop_paths.cpp).
        const int decided = e.name == "is_loop_begin" ? en->begin_is : en->end_is;
        if (decided >= 0) return DimExpr(decided);
        return e.name == "is_loop_begin" ? loop_begin01(*en) : loop_end01(*en);
      }
      [[fallthrough]];
    default: {
      if (e.kind == K::Name && (e.name == "true" || e.name == "True")) return DimExpr(1);
      if (e.kind == K::Name && (e.name == "false" || e.name == "False")) return DimExpr(0);
      auto a = dim(e, DimUse::Loop);
      if (!a) return std::nullopt;
      return min(DimExpr(1), absd(*a));
    }
  }
}

void Elaborator::runtime_if(const Stmt& s) {
  std::vector<ScalarLoad> cond_loads;  // run-time values in the condition: read by each branch loop
  std::optional<DimExpr> c;
  {
    LoadSink sink(*this, &cond_loads);
    c = condition01(*s.cond);
  }
  if (!c) {
    poison_bound_names(s.body);
    poison_bound_names(s.else_body);
    return;
  }
  DimExpr cond = simplify(*c);
  if (auto k = cond.as_const()) {
    // Decided at compile time (e.g. `is_loop_end(j) and t == k - 1` in the copies of a static loop
    // where t is not the last): the branch that runs is spliced in place with the run-time
    // branch's scoping (names first bound in it are local to it, its tile settings end with it).
    const std::vector<Stmt>& body = *k ? s.body : s.else_body;
    Names* outer_names = names_;
    Names local = *outer_names;
    TileState outer_ts = *ts_;
    names_ = &local;
    block(body);
    names_ = outer_names;
    *ts_ = outer_ts;
    // A name first bound in both branches is bound after the if by the branch that runs; one only the
    // other branch binds is unbound here, as when the if is decided at run time.
    std::vector<std::string> other;
    rebound_names(*k ? s.else_body : s.body, other);
    for (const auto& [n, b] : local) {
      branch_mismatch_.erase(n);
      if (outer_names->count(n)) (*outer_names)[n] = b;
      else if (std::find(other.begin(), other.end(), n) != other.end()) {
        (*outer_names)[n] = b;
        branch_locals_.erase(n);
      } else branch_locals_[n] = s.loc.line;
    }
    for (const auto& n : other)
      if (!outer_names->count(n)) {
        branch_mismatch_.erase(n);
        branch_locals_[n] = s.loc.line;
      }
    return;
  }
  // Names the branches rebind that exist before the if: carried through both branch loops.
  std::vector<std::string> rebound;
  rebound_names(s.body, rebound);
  rebound_names(s.else_body, rebound);
  for (const auto& n : rebound) branch_mismatch_.erase(n);  // this if binds them anew
  // Names first bound in both branches: readable after the if (elaborate_bound_in_both.cpp).
  const std::vector<std::string> both = first_bound_in_both(s.body, s.else_body);
  std::vector<Carried> in_both;
  std::vector<Carried> carried;
  // A value with a partial valid shape keeps it inside the branches until they rebind it: the
  // window read there would be whole (fillpad(v) in a branch must see v's valid rows).
  Names partial_before;
  for (const auto& n : rebound) {
    auto it = names_->find(n);
    if (it == names_->end() || it->second.poison) continue;
    Carried cv;
    cv.name = n;
    cv.loc = s.loc;
    cv.branch = true;
    if (it->second.is_local_tensor()) {
      cv.ws = it->second;
      cv.dtype = p_.tensors[size_t(cv.ws.tensor)].dtype;
      cv.shape = cv.ws.shape;
    } else {
      const Value val = p_.values[size_t(it->second.value)];
      cv.dtype = val.dtype;
      cv.shape = val.shape;
      for (size_t i = 0; i < val.shape.size(); ++i) {
        auto d = const_difference(val.valid[i], val.shape[i]);
        if (!d || *d != 0) partial_before[n] = it->second;
      }
      // A carried value of the loop whose body this is: its window takes the branch's value.
      std::optional<Binding> b;
      if (!loop_carries_.empty() && loop_carries_.back().first == seq_)
        for (const auto& lc : *loop_carries_.back().second) {
          if (lc.name != n || lc.dtype != val.dtype || lc.shape.size() != val.shape.size()) continue;
          bool same = true;
          for (size_t i = 0; i < val.shape.size(); ++i) {
            auto d = const_difference(lc.shape[i], val.shape[i]);
            same = same && d && *d == 0;
          }
          if (same) b = lc.ws;
        }
      if (!b) b = new_local_tensor(n, val.dtype, val.shape, s.loc, 2, "the value", "IF_L" + std::to_string(s.loc.line));
      if (!b) {
        it->second = Binding::poisoned();
        continue;
      }
      cv.ws = *b;
      // A shared window holds the previous iteration's elements past a partial value's valid shape.
      if (b->shared_window) defer_zero_fill(*b, s.loc, 2);
      PosMapPtr saved = pos_;
      pos_.reset();
      cur_loc_ = s.loc;
      local_assemble(cv.ws, it->second.value, Shape(val.shape.size(), DimExpr(0)), 0, 2);
      pos_ = saved;
      it->second = cv.ws;
    }
    carried.push_back(std::move(cv));
  }
  settle_zero_fills();
  flush_run();
  const std::string base = "IF_L" + std::to_string(s.loc.line) + seq_->frame.name_suffix;
  struct Branch {
    const std::vector<Stmt>* body;
    DimExpr trip;
    const char* tag;
  };
  const Branch branches[] = {{&s.body, cond, "then"}, {&s.else_body, simplify(DimExpr(1) - cond), "else"}};
  for (const auto& br : branches) {
    if (br.body->empty() || r_.full()) continue;
    std::string name = base + "_" + br.tag;
    for (int k = 2; loop_names_.count(name); ++k) name = base + "_" + br.tag + "_" + std::to_string(k);
    loop_names_.insert(name);
    std::string var = "_" + name;  // the branch loop's variable: 0 in its only iteration
    LoopNode node;
    node.kind = LoopNode::Kind::Loop;
    node.var = var;
    node.name = name;
    node.begin = DimExpr(0);
    node.end = br.trip;
    node.step = DimExpr(1);
    node.loc = s.loc;
    node.loads = cond_loads;
    node.gears.resize(1);
    node.gears[0].factor = 1;
    Seq inner;
    inner.nodes = &node.gears[0].body;
    inner.frame = seq_->frame;
    inner.frame.in_loop = true;
    inner.frame.name_suffix.clear();
    inner.frame.dyn_vars.insert(var);
    inner.frame.loop_vars.push_back(var);
    inner.frame.factor = 1;
    inner.frame.var_ranges[var] = {0, 0};
    inner.frame.sym_ranges[var] = {DimExpr(0), DimExpr(0)};
    // Its variable is always 0: one window per enclosing instance, as outside the branch.
    inner.frame.enclosing.push_back({var, name, DimExpr(0), DimExpr(1), DimExpr(1), br.trip, 1, true});
    inner.frame.root_prefix = name;
    Seq* outer_seq = seq_;
    Names* outer_names = names_;
    TileState* outer_ts = ts_;
    Names local = *outer_names;
    for (const auto& [n, b] : partial_before) local[n] = b;
    TileState ts = *outer_ts;
    seq_ = &inner;
    names_ = &local;
    ts_ = &ts;
    block(*br.body);
    for (const auto& c : carried)  // not rebound: the window already holds it
      if (auto pb = partial_before.find(c.name); pb != partial_before.end()) {
        auto& now = local[c.name];
        if (!now.poison && !now.is_local_tensor() && now.value == pb->second.value) now = c.ws;
      }
    if (&br == &branches[0]) in_both = bound_in_then(both, local, s);
    else bound_in_else(in_both, local, s);
    carry_out(carried, local, s.loc.line);
    drop_zero_fills();
    flush_run();
    for (const auto& [n, b] : local)
      if (!outer_names->count(n)) branch_locals_[n] = s.loc.line;
    seq_ = outer_seq;
    names_ = outer_names;
    ts_ = outer_ts;
    seq_->nodes->push_back(std::move(node));
  }
  bind_bound_in_both(in_both, *names_);
}

}  // namespace ptoc::fe
