// A name first bound in both branches of a run-time `if` is readable after it
// (specs/README.md "Run-time conditions"), as PyPTO's
//
//   if is_first: acc = a
//   else:        acc = acc_prev + a
//   ... acc ...
//
// Each branch is a loop of 0 or 1 iterations (elaborate_cond.cpp), so the name
// has storage written by whichever branch runs: a GM window per instance of the
// enclosing loops (new_local_tensor), read after the if with the branches'
// valid extents (a tail block's value stays partial). The then-branch's value
// fixes dtype, shape and valid shape; the else-branch's must agree.
//
// Lazily: a name no statement after the if reads gets no window and no
// assemble, and a disagreement between the branches is an error only at a read
// after the if (branch_mismatch_), so that a branch that binds a scratch name
// with another shape in each branch (specs/win_attention.yaml) compiles as before.
#include <algorithm>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

bool expr_reads(const Expr* e, const std::string& n) {
  if (!e) return false;
  if (e->kind == Expr::Kind::Name && !e->quoted && e->name == n) return true;
  for (const auto& i : e->items)
    if (expr_reads(i.get(), n)) return true;
  for (const auto& a : e->args)
    if (expr_reads(a.value.get(), n)) return true;
  for (const auto& sl : e->slices)
    if (expr_reads(sl.start.get(), n) || expr_reads(sl.stop.get(), n)) return true;
  return false;
}

bool src_reads(const SrcExpr& e, const std::string& n) { return expr_reads(e.expr.get(), n); }

enum class Use { None, Read, Rebound };

Use stmts_use(const std::vector<Stmt>& stmts, const std::string& n);

// Whether `s` reads n (conservatively: any mention in an expression), or binds it without reading it.
Use stmt_use(const Stmt& s, const std::string& n) {
  switch (s.kind) {
    case Stmt::Kind::Assign: {
      const AssignAst& a = s.assign;
      if (expr_reads(a.value.get(), n)) return Use::Read;
      if (a.subscript) {
        for (const auto& sl : a.slices)
          if (expr_reads(sl.start.get(), n) || expr_reads(sl.stop.get(), n)) return Use::Read;
        return a.target == n ? Use::Read : Use::None;  // `n[...] = v` writes into n's value
      }
      if (a.target == n) return Use::Rebound;
      for (const auto& m : a.more_targets)
        if (m.text == n) return Use::Rebound;
      return Use::None;
    }
    case Stmt::Kind::If: {
      if (expr_reads(s.cond.get(), n)) return Use::Read;
      Use t = stmts_use(s.body, n), e = stmts_use(s.else_body, n);
      if (t == Use::Read || e == Use::Read) return Use::Read;
      return t == Use::Rebound && e == Use::Rebound ? Use::Rebound : Use::None;
    }
    case Stmt::Kind::Scope: return stmts_use(s.body, n);
    case Stmt::Kind::Loop: {
      const LoopAst& l = s.loop;
      if (src_reads(l.begin, n) || src_reads(l.end, n) || src_reads(l.step, n) || src_reads(l.count, n))
        return Use::Read;
      for (const auto& c : l.carry)
        if (src_reads(c.init, n)) return Use::Read;
      return stmts_use(s.body, n) == Use::Read ? Use::Read : Use::None;  // the body may not run
    }
    default: return Use::None;
  }
}

Use stmts_use(const std::vector<Stmt>& stmts, const std::string& n) {
  for (const auto& s : stmts)
    if (Use u = stmt_use(s, n); u != Use::None) return u;
  return Use::None;
}

void assigned(const std::vector<Stmt>& stmts, std::vector<std::string>& out) {
  for (const auto& s : stmts) {
    if (s.kind == Stmt::Kind::Assign && !s.assign.subscript) {
      out.push_back(s.assign.target);
      for (const auto& m : s.assign.more_targets) out.push_back(m.text);
    }
    if (s.kind == Stmt::Kind::Scope || s.kind == Stmt::Kind::If) {
      assigned(s.body, out);
      assigned(s.else_body, out);
    }
  }
}

// The line of the last statement in `stmts` that binds n (through scopes and ifs), 0 if none.
int bind_line(const std::vector<Stmt>& stmts, const std::string& n) {
  int line = 0;
  for (const auto& s : stmts) {
    if (s.kind == Stmt::Kind::Assign && !s.assign.subscript) {
      bool binds = s.assign.target == n;
      for (const auto& m : s.assign.more_targets) binds = binds || m.text == n;
      if (binds) line = s.loc.line;
    }
    if (s.kind == Stmt::Kind::Scope || s.kind == Stmt::Kind::If) {
      line = std::max(line, bind_line(s.body, n));
      line = std::max(line, bind_line(s.else_body, n));
    }
  }
  return line;
}

bool same_extents(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto d = const_difference(a[i], b[i]);
    if (!d || *d != 0) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> Elaborator::first_bound_in_both(const std::vector<Stmt>& then_body,
                                                         const std::vector<Stmt>& else_body) const {
  std::vector<std::string> t, e, out;
  assigned(then_body, t);
  assigned(else_body, e);
  for (const auto& n : t)
    if (std::find(e.begin(), e.end(), n) != e.end() && !names_->count(n) &&
        std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(n);
  return out;
}

bool Elaborator::read_after(const std::string& n) const {
  for (auto it = rest_.rbegin(); it != rest_.rend(); ++it)
    for (size_t i = it->second; i < it->first->size(); ++i) {
      Use u = stmt_use((*it->first)[i], n);
      if (u == Use::Read) return true;
      if (u == Use::Rebound) return false;
    }
  return false;
}

std::vector<Elaborator::Carried> Elaborator::bound_in_then(const std::vector<std::string>& both,
                                                           const Names& then_names, const Stmt& s) {
  std::vector<Carried> out;
  for (const auto& n : both) {
    auto it = then_names.find(n);
    if (it == then_names.end() || it->second.poison) continue;
    const Binding& b = it->second;
    Carried c;
    c.name = n;
    c.loc = s.loc;
    c.branch = true;
    c.first_in_then = true;
    c.then_line = bind_line(s.body, n);
    if (b.is_local_tensor()) {
      c.dtype = p_.tensors[size_t(b.tensor)].dtype;
      c.shape = b.shape;
      c.valid = b.valid.empty() ? b.shape : b.valid;
    } else {
      const Value& v = p_.values[size_t(b.value)];
      c.dtype = v.dtype;
      c.shape = v.shape;
      c.valid = v.valid;
    }
    if (read_after(n)) {  // the window, written by this branch
      auto w = new_local_tensor(n, c.dtype, c.shape, s.loc, 2, "the value", "IF_L" + std::to_string(s.loc.line));
      if (w) {
        PosMapPtr saved = pos_;
        pos_.reset();
        cur_loc_ = s.loc;
        int value = b.value;
        if (b.is_local_tensor()) {
          EV r = local_read(b, 0);
          value = r.ok() ? r.value : -1;
        }
        if (value >= 0) {
          c.ws = *w;
          if (!same_extents(c.valid, c.shape)) c.ws.valid = c.valid;
          local_assemble(c.ws, value, Shape(c.shape.size(), DimExpr(0)), 0, 2);
        }
        pos_ = saved;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

bool Elaborator::check_bound_in_both(const Carried& c, const Value& v, int line) {
  auto side = [&](const std::string& x, const char* branch, int at) {
    return x + " (" + branch + ", line " + std::to_string(at) + ")";
  };
  std::string what, fix;
  if (v.dtype != c.dtype) {
    what = "dtypes: " + side(std::string(dtype_name(v.dtype)), "else", c.else_line) + " vs " + side(std::string(dtype_name(c.dtype)), "then", c.then_line);
    fix = "give both branches the same dtype (cast one of them)";
  } else if (!same_extents(v.shape, c.shape)) {
    what = "shapes: " + side(shape_str(v.shape), "else", c.else_line) + " vs " + side(shape_str(c.shape), "then", c.then_line);
    fix = "give both branches the same shape";
  } else if (!same_extents(v.valid, c.valid)) {
    what = "valid shapes: " + side(shape_str(v.valid), "else", c.else_line) + " vs " +
           side(shape_str(c.valid), "then", c.then_line);
    fix = "give both branches the same valid shape";
  }
  if (what.empty()) return true;
  branch_mismatch_[c.name] = {"'" + c.name + "' is bound in both branches of the run-time branch at line " +
                                  std::to_string(line) + " but with different " + what,
                              fix + ", or read it only inside the branches"};
  return false;
}

void Elaborator::bound_in_else(std::vector<Carried>& cs, const Names& else_names, const Stmt& s) {
  for (auto& c : cs) {
    auto it = else_names.find(c.name);
    if (it == else_names.end() || it->second.poison) continue;
    c.else_line = bind_line(s.else_body, c.name);
    if (!check_carried(c, it->second, s.loc.line)) {
      c.else_line = -1;
      continue;
    }
    if (!c.ws.is_local_tensor()) continue;  // not read after the if
    PosMapPtr saved = pos_;
    pos_.reset();
    cur_loc_ = s.loc;
    int value = it->second.value;
    if (it->second.is_local_tensor()) {
      EV r = local_read(it->second, 0);
      value = r.ok() ? r.value : -1;
    }
    if (value >= 0) local_assemble(c.ws, value, Shape(c.shape.size(), DimExpr(0)), 0, 2);
    else c.else_line = -1;
    pos_ = saved;
  }
}

void Elaborator::bind_bound_in_both(const std::vector<Carried>& cs, Names& outer) {
  for (const auto& c : cs) {
    if (c.else_line <= 0 || !c.ws.is_local_tensor()) continue;
    outer[c.name] = c.ws;
    branch_locals_.erase(c.name);
  }
}

}  // namespace ptoc::fe
