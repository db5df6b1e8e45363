// Compile-time constants bound by a statement: PyPTO's Python variables that hold an integer chosen per
// unroll gear or per static-loop copy (`tile_t = unroll_length`, `tile_shape_2 = 4` in an `if` branch,
// `split_k = True`), then read by set_vec_tile_shapes, slices and `if`s.
//
// `NAME = EXPR` binds a constant when EXPR is an integer dim expression whose names are all static dims,
// unroll factors, static-loop variables or constants bound before (`+ - * // %`, unary `-`, `min`, `max`,
// `ceil_div`, integer literals), or exactly `true`/`false` (1/0). The name then reads like an unroll factor
// wherever one may stand: vec_tile entries, dim expressions, `if` conditions, scalar operands. It follows the
// frame's scope: an `if` branch is spliced in place, so a constant bound there holds after the `if`, while one
// bound in a loop body is local to that body. Any other right side is a tensor expression, as before.
//
// Nested lists (`tiles = [[1, 16384], [16, 512]]`, PyPTO's per-gear tile lists such as c1_tile_shape): a row
// `tiles[i]` binds a constant list (`t = tiles[1]`, then `vec_tile: t`), an entry `tiles[i][j]` is an integer
// constant wherever one may stand.
//
// Two more forms, PyPTO's other per-gear variables: a float constant (`eps = 1e-6`, `inv = 1.0 / 16384`:
// literals, static dims and constants through + - * / // % min max with at least one float among them), a
// scalar operand wherever a literal is; and a constant list of integers (`unroll_list = [1, 2, 4, 8]`,
// `tile_shapes_1 = [4, 4 * 1024]`), read whole by `unroll:` and `vec_tile:` and by entry (`tile_shapes_1[0]`,
// Python's negative indices too) wherever an integer constant may stand.
#include <cmath>
#include <string>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

// `'text'`, appended piecewise: GCC 12 flags "'" + std::string as -Wrestrict (a false positive).
std::string quoted(std::string text) {
  text.insert(0, 1, '\'');
  text += '\'';
  return text;
}

// `l[i]` of a constant list, or `l[i][j]` of a nested one.
bool is_list_entry(const Expr& e, const Frame& f) {
  if (e.kind != Expr::Kind::Subscript || e.items.size() != 1 || !e.items[0]) return false;
  const Expr& b = *e.items[0];
  if (b.kind == Expr::Kind::Name) return f.list_consts.count(b.name) > 0;
  return b.kind == Expr::Kind::Subscript && b.items.size() == 1 && b.items[0] &&
         b.items[0]->kind == Expr::Kind::Name && f.nested_consts.count(b.items[0]->name) > 0;
}

// `l[i]` of a nested constant list: a row (a constant list).
bool is_nested_row(const Expr& e, const Frame& f) {
  return e.kind == Expr::Kind::Subscript && e.items.size() == 1 && e.items[0] &&
         e.items[0]->kind == Expr::Kind::Name && f.nested_consts.count(e.items[0]->name) > 0;
}

bool is_bool_name(const Expr& e) {
  return e.kind == Expr::Kind::Name &&
         (e.name == "true" || e.name == "True" || e.name == "false" || e.name == "False");
}

// Whether every leaf of `e` is an integer literal or a name with a compile-time integer value here, through
// integer arithmetic only (a `/`, a float literal or a tensor name makes it a tensor expression).
bool is_const_int_expr(const Expr& e, const Program& p, const Frame& f, const Names& names, bool slash = false) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int;
    case Expr::Kind::Name: {
      if (names.count(e.name)) return false;  // a tensor value
      if (const DimDecl* d = p.find_dim(e.name)) return !d->dynamic;
      return f.consts.count(e.name) > 0;
    }
    case Expr::Kind::Subscript: return is_list_entry(e, f);  // its index is checked when it is read
    case Expr::Kind::Neg: return e.items.size() == 1 && is_const_int_expr(*e.items[0], p, f, names, slash);
    case Expr::Kind::Binary:
      if (e.op != "+" && e.op != "-" && e.op != "*" && e.op != "//" && e.op != "%" && !(slash && e.op == "/"))
        return false;
      return e.items.size() == 2 && is_const_int_expr(*e.items[0], p, f, names, slash) &&
             is_const_int_expr(*e.items[1], p, f, names, slash);
    case Expr::Kind::Call:
      if (e.name != "min" && e.name != "max" && e.name != "ceil_div") return false;
      if (e.args.size() != 2) return false;
      for (const auto& a : e.args)
        if (!a.name.empty() || !a.value || !is_const_int_expr(*a.value, p, f, names, slash)) return false;
      return true;
    default: return false;
  }
}

// Whether `e` is a float constant expression: the integer form's leaves plus float literals and float
// constants, `/` allowed, and at least one float leaf (`float_leaf` set).
bool is_const_float_expr(const Expr& e, const Program& p, const Frame& f, const Names& names, bool& float_leaf) {
  switch (e.kind) {
    case Expr::Kind::Number:
      float_leaf = float_leaf || !e.is_int;
      return true;
    case Expr::Kind::Name: {
      if (e.quoted || names.count(e.name)) return false;
      if (const DimDecl* d = p.find_dim(e.name)) return !d->dynamic;
      if (f.float_consts.count(e.name)) return float_leaf = true;
      return f.consts.count(e.name) > 0;
    }
    case Expr::Kind::Subscript: return is_list_entry(e, f);
    case Expr::Kind::Neg: return e.items.size() == 1 && is_const_float_expr(*e.items[0], p, f, names, float_leaf);
    case Expr::Kind::Binary:
      if (e.op != "+" && e.op != "-" && e.op != "*" && e.op != "/" && e.op != "//" && e.op != "%") return false;
      return e.items.size() == 2 && is_const_float_expr(*e.items[0], p, f, names, float_leaf) &&
             is_const_float_expr(*e.items[1], p, f, names, float_leaf);
    case Expr::Kind::Call:
      if ((e.name != "min" && e.name != "max") || e.args.size() != 2) return false;
      for (const auto& a : e.args)
        if (!a.name.empty() || !a.value || !is_const_float_expr(*a.value, p, f, names, float_leaf)) return false;
      return true;
    default: return false;
  }
}

}  // namespace

const std::vector<int64_t>* Elaborator::const_list(const std::string& name) const {
  if (!seq_) return nullptr;
  auto it = seq_->frame.list_consts.find(name);
  return it == seq_->frame.list_consts.end() ? nullptr : &it->second;
}

std::optional<std::vector<int64_t>> Elaborator::unroll_of(const LoopAst& l) {
  if (l.unroll_const.empty()) return l.unroll;
  const std::vector<int64_t>* v = const_list(l.unroll_const);
  if (!v) {
    const bool scalar = seq_ && (seq_->frame.consts.count(l.unroll_const) || seq_->frame.float_consts.count(l.unroll_const));
    r_.error(l.unroll_loc, "unroll: '" + l.unroll_const + "' is " +
                               (scalar ? std::string("a single constant") : std::string("not a constant list")),
             "bind the list first (\"" + l.unroll_const + " = [1, 2, 4, 8]\") or write unroll: [64, 16, 4]", 6);
    return std::nullopt;
  }
  for (int64_t f : *v)
    if (f <= 0 || f > 1 << 20) {
      r_.error(l.unroll_loc, "unroll: the constant list '" + l.unroll_const + "' holds " + std::to_string(f) +
                                 "; unroll factors must be positive integers up to 1048576", {}, 6);
      return std::nullopt;
    }
  return *v;
}

// The static index `ix` into a list of `size` entries named `n` (Python's negative indices too); -1 when
// reported.
int64_t Elaborator::const_list_index(const Slice& sl, const Expr& whole, const std::string& n, int64_t size) {
  if (sl.kind != Slice::Kind::Index || !sl.start) {
    err(whole.off, whole.len, quoted(text_of(whole)) + " slices the constant list '" + n + "'; an entry takes one index",
        "write " + n + "[0] ... " + n + "[" + std::to_string(size - 1) + "]");
    return -1;
  }
  const Expr& ix = *sl.start;
  auto d = dim(ix, DimUse::Static);
  if (!d) return -1;
  auto c = simplify(*d).as_const();
  if (!c) {
    err(ix.off, ix.len, "the index '" + text_of(ix) + "' of the constant list '" + n + "' is not static");
    return -1;
  }
  const int64_t i = *c < 0 ? *c + size : *c;  // Python: -1 is the last entry
  if (i < 0 || i >= size) {
    err(ix.off, ix.len, "index " + std::to_string(*c) + " is out of range for the constant list '" + n + "' of " +
                            std::to_string(size) + (size == 1 ? " entry" : " entries"),
        "indices run from 0 to " + std::to_string(size - 1) + " (or -" + std::to_string(size) + " to -1)");
    return -1;
  }
  return i;
}

const std::vector<int64_t>* Elaborator::nested_row(const Expr& e) {
  if (!seq_ || !is_nested_row(e, seq_->frame)) return nullptr;
  const std::string& n = e.items[0]->name;
  const auto& rows = seq_->frame.nested_consts.at(n);
  if (e.slices.size() != 1) {
    err(e.off, e.len, quoted(text_of(e)) + " indexes the nested constant list '" + n + "' with " +
                          std::to_string(e.slices.size()) + " indices; write " + n + "[i][j]");
    return nullptr;
  }
  const int64_t i = const_list_index(e.slices[0], e, n, int64_t(rows.size()));
  return i < 0 ? nullptr : &rows[size_t(i)];
}

int Elaborator::const_list_item(const Expr& e, int64_t& out) {
  if (seq_ && is_nested_row(e, seq_->frame)) {
    const std::string& n = e.items[0]->name;
    err(e.off, e.len, quoted(text_of(e)) + " is a row of the nested constant list '" + n +
                          "'; an integer is one of its entries",
        "write " + text_of(e) + "[0], or bind the row first (\"row = " + text_of(e) + "\") where a list is read");
    return -1;
  }
  if (!seq_ || !is_list_entry(e, seq_->frame)) return 0;
  const Expr& b = *e.items[0];
  const std::vector<int64_t>* l = nullptr;
  std::string n;
  if (b.kind == Expr::Kind::Name) {
    n = b.name;
    l = &seq_->frame.list_consts.at(n);
  } else {  // l[i][j]: row i first
    n = text_of(b);
    l = nested_row(b);
    if (!l) return -1;
  }
  if (e.slices.size() != 1) {
    err(e.off, e.len, quoted(text_of(e)) + " slices the constant list '" + n + "'; an entry takes one index",
        "write " + n + "[0] ... " + n + "[" + std::to_string(l->size() - 1) + "]");
    return -1;
  }
  const int64_t i = const_list_index(e.slices[0], e, n, int64_t(l->size()));
  if (i < 0) return -1;
  out = (*l)[size_t(i)];
  return 1;
}

bool Elaborator::non_int_const(const Expr& e, const std::string& where) {
  if (!seq_ || e.kind != Expr::Kind::Name || e.quoted) return false;
  const Frame& f = seq_->frame;
  if (auto it = f.float_consts.find(e.name); it != f.float_consts.end()) {
    err(e.off, e.len, "'" + e.name + "' is a float constant; " + where + " takes integers",
        "bind an integer constant (n = 4) or use '" + e.name + "' as a scalar operand of a tensor expression");
    return true;
  }
  if (auto it = f.list_consts.find(e.name); it != f.list_consts.end()) {
    err(e.off, e.len, "'" + e.name + "' is a constant list; " + where + " takes one of its entries",
        "write " + e.name + "[0] ... " + e.name + "[" + std::to_string(it->second.size() - 1) + "]");
    return true;
  }
  if (auto it = f.nested_consts.find(e.name); it != f.nested_consts.end()) {
    err(e.off, e.len, "'" + e.name + "' is a nested constant list; " + where + " takes one of its entries",
        "write " + e.name + "[0][0] ... " + e.name + "[" + std::to_string(it->second.size() - 1) + "][...]");
    return true;
  }
  return false;
}

namespace {

// Python's value of a float constant expression already checked by is_const_float_expr; a zero divisor is
// reported by the caller (nullopt).
std::optional<double> float_value(Elaborator& el, const Expr& e, const Program& p, const Frame& f,
                                  const Expr** zero_div) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.is_int ? double(e.ival) : e.number;
    case Expr::Kind::Name: {
      if (const DimDecl* d = p.find_dim(e.name)) return double(d->value);
      if (auto it = f.float_consts.find(e.name); it != f.float_consts.end()) return it->second;
      return double(f.consts.at(e.name));
    }
    case Expr::Kind::Subscript: {
      int64_t v = 0;
      if (el.const_list_item(e, v) != 1) return std::nullopt;
      return double(v);
    }
    case Expr::Kind::Neg: {
      auto a = float_value(el, *e.items[0], p, f, zero_div);
      if (!a) return std::nullopt;
      return -*a;
    }
    case Expr::Kind::Binary: {
      auto a = float_value(el, *e.items[0], p, f, zero_div);
      auto b = float_value(el, *e.items[1], p, f, zero_div);
      if (!a || !b) return std::nullopt;
      if (e.op == "+") return *a + *b;
      if (e.op == "-") return *a - *b;
      if (e.op == "*") return *a * *b;
      if (*b == 0) {
        *zero_div = &e;
        return std::nullopt;
      }
      if (e.op == "/") return *a / *b;
      if (e.op == "//") return std::floor(*a / *b);
      const double m = std::fmod(*a, *b);  // Python's %: the sign of the divisor
      return (m != 0 && ((m < 0) != (*b < 0))) ? m + *b : m;
    }
    case Expr::Kind::Call: {
      auto a = float_value(el, *e.args[0].value, p, f, zero_div);
      auto b = float_value(el, *e.args[1].value, p, f, zero_div);
      if (!a || !b) return std::nullopt;
      return e.name == "min" ? std::min(*a, *b) : std::max(*a, *b);
    }
    default: return std::nullopt;
  }
}

}  // namespace

bool Elaborator::const_binding(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!seq_ || !a.value || a.subscript || !a.more_targets.empty()) return false;
  const Expr& e = *a.value;
  Frame& fr = seq_->frame;
  const bool boolean = is_bool_name(e);
  enum class Form { Int, Float, List, Nested } form = Form::Int;
  double fvalue = 0;
  std::vector<int64_t> lvalue;
  std::vector<std::vector<int64_t>> nvalue;
  bool float_leaf = false;
  // Each entry of `list` an integer constant, into `out`; false when one is reported.
  auto int_list = [&](const Expr& list, std::vector<int64_t>& out) {
    bool ok = true;
    for (const auto& it : list.items) {
      if (!is_const_int_expr(*it, p_, fr, *names_)) {
        err(it->off, it->len, "the entry '" + text_of(*it) + "' of the constant list '" + a.target +
                                  "' is not an integer constant",
            it->kind == Expr::Kind::List ? "constant lists nest one level: [[1, 2], [3, 4]]"
                                         : "a constant list holds integers: literals, static dims, unroll factors "
                                           "and integer constants");
        ok = false;
        continue;
      }
      auto d = dim(*it, DimUse::Static);
      auto c = d ? simplify(*d).as_const() : std::nullopt;
      if (!c) {
        if (d) err(it->off, it->len, quoted(text_of(*it)) + " is not a compile-time constant");
        ok = false;
        continue;
      }
      out.push_back(*c);
    }
    return ok;
  };
  bool any_list = false;
  if (e.kind == Expr::Kind::List)
    for (const auto& it : e.items) any_list = any_list || it->kind == Expr::Kind::List;
  if (is_nested_row(e, fr)) {
    // `row = tiles[1]`: a row of a nested list binds a constant list.
    const std::vector<int64_t>* row = nested_row(e);
    if (!row) return true;
    lvalue = *row;
    form = Form::List;
  } else if (any_list) {
    // `tiles = [[1, 16384], [16, 512]]`: PyPTO's per-gear tile lists; every entry a list of integers.
    bool ok = true;
    for (const auto& it : e.items) {
      if (it->kind != Expr::Kind::List || it->items.empty()) {
        err(it->off, it->len, "the entry '" + text_of(*it) + "' of the nested constant list '" + a.target +
                                  "' is not a list of integers",
            "every row of a nested list is a list: [[1, 2], [3, 4]]");
        ok = false;
        continue;
      }
      std::vector<int64_t> row;
      ok = int_list(*it, row) && ok;
      nvalue.push_back(std::move(row));
    }
    if (!ok) return true;
    form = Form::Nested;
  } else if (e.kind == Expr::Kind::List) {
    // `[1, 2, 4, 8]`: every entry an integer constant (a list is never a tensor expression).
    if (e.items.empty()) {
      err(e.off, e.len, "an empty list is not a constant", "a constant list holds integers, e.g. [1, 2, 4, 8]");
      return true;
    }
    const bool ok = int_list(e, lvalue);
    if (!ok) return true;
    form = Form::List;
  } else if (!boolean && !is_const_int_expr(e, p_, fr, *names_) &&
             is_const_float_expr(e, p_, fr, *names_, float_leaf) && float_leaf) {
    const Expr* zero = nullptr;
    auto v = float_value(*this, e, p_, fr, &zero);
    if (!v) {
      if (zero) err(zero->op_off, int(zero->op.size()), "division by zero in the constant '" + a.target + "'");
      return true;
    }
    fvalue = *v;
    form = Form::Float;
  } else if (!boolean && !is_const_int_expr(e, p_, fr, *names_)) {
    // `n = k / 2`: integers that would make a constant but for `/` (which is a tensor op's true division).
    if (is_const_int_expr(e, p_, seq_->frame, *names_, true)) {
      err(e.off, e.len, quoted(text_of(e)) + " divides integers with '/'; a compile-time constant is an integer",
          "use '//' (floor division) or ceil_div(a, b)");
      return true;
    }
    return false;
  }

  int64_t value = 0;
  if (form != Form::Int) {
  } else if (boolean) {
    value = (e.name == "true" || e.name == "True") ? 1 : 0;
  } else {
    auto d = dim(e, DimUse::Static);
    if (!d) return true;  // reported by dim()
    auto c = simplify(*d).as_const();
    if (!c) {
      err(e.off, e.len, quoted(text_of(e)) + " is not a compile-time constant",
          "a constant may use static dims, unroll factors, static-loop variables and literals");
      return true;
    }
    value = *c;
  }
  // Rebinding a constant is Python's rebinding of a variable; any other clash is reported as for a value.
  if (!seq_->frame.named_consts.count(a.target) && !seq_->frame.scalars.count(a.target) &&
      !seq_->frame.dtype_consts.count(a.target)) {
    if (names_->count(a.target)) {
      err(a.target_off, a.target_len,
          "cannot bind compile-time constant '" + a.target + "': it names a tensor value",
          "choose another name");
      return true;
    }
    if (!check_binding_name(a.target, at(a.target_off), a.target_len, "compile-time constant")) return true;
  }
  // A rebinding may change the form (`n = 4`, then `n = 0.5`): one map holds the name.
  forget_binding(a.target);  // elaborate_symbolic_scalar.cpp
  if (form == Form::Int) fr.consts[a.target] = value;
  if (form == Form::Nested) fr.nested_consts[a.target] = std::move(nvalue);
  if (form == Form::Float) fr.float_consts[a.target] = fvalue;
  if (form == Form::List) fr.list_consts[a.target] = std::move(lvalue);
  fr.named_consts.insert(a.target);
  return true;
}

}  // namespace ptoc::fe

namespace ptoc::fe {

// A float constant expression's value, for an `if` comparing float constants (PyPTO's
// `if scale != 1.0:` on a Python float argument, elaborate_cond.cpp); nullopt when `e` is not one.
std::optional<double> Elaborator::const_float_of(const Expr& e) {
  if (!seq_) return std::nullopt;
  bool float_leaf = false;
  if (!is_const_float_expr(e, p_, seq_->frame, *names_, float_leaf) || !float_leaf) return std::nullopt;
  const Expr* zero_div = nullptr;
  return float_value(*this, e, p_, seq_->frame, &zero_div);
}

}  // namespace ptoc::fe
