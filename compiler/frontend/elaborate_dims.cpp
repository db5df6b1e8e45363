// Dim expressions (shapes, loop bounds, slices, axes) and compile-time `if`
// conditions: integer arithmetic over dims, loop variables and literals.
#include <cmath>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

std::optional<DimExpr> Elaborator::dim_src(const SrcExpr& e, DimUse use) {
  PosMapPtr saved = pos_;
  const std::string* saved_text = text_;
  pos_ = e.pos;
  text_ = &e.text;
  auto r = dim(*e.expr, use);
  pos_ = saved;
  text_ = saved_text;
  return r;
}

// `f()` (an operation on dims), or nullopt with the overflow reported at the operator.
template <class F>
static std::optional<DimExpr> checked_at(Elaborator& el, const Expr& e, int off, int len, F f) {
  try {
    return f();
  } catch (const DimEvalError& x) {
    (void)e;
    el.err(off, len, x.what(), "dims and the products of shapes must stay below 2^63");
    return std::nullopt;
  }
}

std::optional<DimExpr> Elaborator::dim(const Expr& e, DimUse use) {
  auto checked = [&](const Expr& ex, int off, int len, auto f) { return checked_at(*this, ex, off, len, f); };
  using K = Expr::Kind;
  switch (e.kind) {
    case K::Number:
      if (!e.is_int) {
        err(e.off, e.len, "dim expressions are integers; '" + text_of(e) + "' is not");
        return std::nullopt;
      }
      return DimExpr(e.ival);
    case K::Name: {
      const std::string& n = e.name;
      if (e.quoted) {
        err(e.off, e.len, "the string " + text_of(e) + " is not a dim expression",
            "strings are only mode arguments (mode=\"constant\"); dim expressions are integers");
        return std::nullopt;
      }
      const Frame* f = seq_ ? &seq_->frame : nullptr;
      if (const DimDecl* d = p_.find_dim(n)) {
        if (use == DimUse::DimsOnly) return DimExpr::sym(n);
        if (!d->dynamic) return DimExpr(d->value);
        if (use == DimUse::Static) {
          err(e.off, e.len, "'" + n + "' is a dynamic dim; this must be static",
              "an if condition may only use static dims, static loop variables and unroll factors");
          return std::nullopt;
        }
        return DimExpr::sym(n);
      }
      if (use != DimUse::DimsOnly && f) {
        auto it = f->consts.find(n);
        if (it != f->consts.end()) return DimExpr(it->second);
        if (non_int_const(e, "a dim expression")) return std::nullopt;
        bool scalar = false;  // `n = x.shape[0]`, `n = seq[b + 1] - seq[b]` (elaborate_symbolic_scalar.cpp)
        if (auto r = scalar_use(e, use, scalar); r || scalar) return r;
        if (f->dyn_vars.count(n)) {
          if (use == DimUse::Static) {
            err(e.off, e.len, "'" + n + "' is a dynamic loop variable; this must be static",
                "an if condition may only use static dims, static loop variables and unroll factors");
            return std::nullopt;
          }
          return DimExpr::sym(n);
        }
      }
      if (names_ && names_->count(n)) {
        err(e.off, e.len, "'" + n + "' is a tensor value, not a dim", "dim expressions use dims, loop variables and integers");
        return std::nullopt;
      }
      if (p_.find_tensor(n) >= 0 || broken_tensors_.count(n)) {
        err(e.off, e.len, "'" + n + "' is a tensor, not a dim", "dim expressions use dims, loop variables and integers");
        return std::nullopt;
      }
      if (use != DimUse::DimsOnly) {
        if (auto it = loop_vars_ended_.find(n); it != loop_vars_ended_.end()) {
          err(e.off, e.len, "'" + n + "' is the variable of the loop at line " + std::to_string(it->second) +
                                ", which has ended; loop variables are local to their loop");
          return std::nullopt;
        }
        if (auto it = loop_locals_.find(n); it != loop_locals_.end()) {
          err(e.off, e.len, "'" + n + "' is a tensor value (bound inside the loop at line " +
                                std::to_string(it->second) + "), not a dim",
              "dim expressions use dims, loop variables and integers");
          return std::nullopt;
        }
      }
      std::vector<std::string> cands;
      for (const auto& d : p_.dims) cands.push_back(d.name);
      if (use != DimUse::DimsOnly && f) {
        for (const auto& [k, v] : f->consts) cands.push_back(k);
        for (const auto& v : f->dyn_vars) cands.push_back(v);
      }
      std::string what = use == DimUse::DimsOnly ? "unknown dim '" + n + "'" : "unknown dim or loop variable '" + n + "'";
      std::string hint = did_you_mean(n, cands);
      if (hint.empty() && use == DimUse::DimsOnly) hint = "declare it under 'dims:'";
      err(e.off, e.len, what, hint);
      return std::nullopt;
    }
    case K::Neg: {
      auto a = dim(*e.items[0], use);
      if (!a) return std::nullopt;
      return checked(e, e.op_off, 1, [&] { return -*a; });
    }
    case K::Binary: {
      auto a = dim(*e.items[0], use);
      auto b = dim(*e.items[1], use);
      if (e.op == "**" || e.op == "@") return dim_surface(e, a, b);  // elaborate_python_operators.cpp
      if (e.op == "/") {
        err(e.op_off, 1, "'/' is not integer division; dim expressions use '//' (floor) or ceil_div(a, b)",
            "write '" + text_of(*e.items[0]) + " // " + text_of(*e.items[1]) + "' or 'ceil_div(" + text_of(*e.items[0]) +
                ", " + text_of(*e.items[1]) + ")'");
        return std::nullopt;
      }
      if (!a || !b) return std::nullopt;
      const int ol = int(e.op.size());
      if (e.op == "+") return checked(e, e.op_off, ol, [&] { return *a + *b; });
      if (e.op == "-") return checked(e, e.op_off, ol, [&] { return *a - *b; });
      if (e.op == "*") return checked(e, e.op_off, ol, [&] { return *a * *b; });
      if (b->as_const() == 0) {
        err(e.op_off, int(e.op.size()), "division by zero in a dim expression");
        return std::nullopt;
      }
      if (e.op == "//") return checked(e, e.op_off, ol, [&] { return floordiv(*a, *b); });
      return checked(e, e.op_off, ol, [&] { return mod(*a, *b); });
    }
    case K::Call: {
      if (e.name != "ceil_div" && e.name != "ceildiv" && e.name != "min" && e.name != "max") {
        std::string hint = did_you_mean(e.name, {"ceil_div", "min", "max"});
        err(e.op_off, int(e.name.size()), "'" + e.name + "' is not a dim function",
            hint.empty() ? "dim expressions may call ceil_div(a, b), min(a, b) and max(a, b)" : hint);
        return std::nullopt;
      }
      if (e.args.size() != 2 || !e.args[0].name.empty() || !e.args[1].name.empty()) {
        err(e.op_off, e.len, e.name + " takes two arguments: " + e.name + "(a, b)");
        return std::nullopt;
      }
      auto a = dim(*e.args[0].value, use);
      auto b = dim(*e.args[1].value, use);
      if (!a || !b) return std::nullopt;
      if (e.name == "ceil_div" || e.name == "ceildiv") {
        if (b->as_const() == 0) {
          err(e.args[1].value->off, e.args[1].value->len, "division by zero in a dim expression");
          return std::nullopt;
        }
        return checked(e, e.op_off, int(e.name.size()), [&] { return ceil_div(*a, *b); });
      }
      return path_minmax(e.name == "min", *a, *b);  // decided by a loop path's facts, else min / max
    }
    case K::Subscript: {
      int64_t v = 0;  // `tile_shapes[0]`: an entry of a constant list (elaborate_const_binding.cpp)
      if (int c = use == DimUse::DimsOnly ? 0 : const_list_item(e, v)) return c > 0 ? std::optional<DimExpr>(DimExpr(v)) : std::nullopt;
      DimExpr extent;  // `x.shape[1] // 2` (elaborate_tensor_shape.cpp)
      if (int c = use == DimUse::DimsOnly ? 0 : shape_entry(e, extent)) {
        if (c < 0) return std::nullopt;
        if (use == DimUse::Static && !extent.as_const()) {
          err(e.off, e.len, std::string("'") + text_of(e) + "' is a dynamic extent (" + extent.str() + "); this must be static",
              "an if condition may only use static dims, static loop variables and unroll factors");
          return std::nullopt;
        }
        return extent;
      }
      return scalar_read(e, use);
    }
    case K::Compare:
    case K::BoolOp:
    case K::Not:
    {
      // Appended piecewise: GCC 12 flags "'" + std::string as -Wrestrict (a false positive).
      std::string msg = text_of(e);
      msg.insert(0, 1, '\'');
      msg += "' is a condition; it cannot be used as a number";
      err(e.off, e.len, msg, "conditions combine with and, or, not; arithmetic takes dims, loop variables and integers");
      return std::nullopt;
    }
    default:
      err(e.off, e.len, "expected a dim expression (integers, dims, loop variables, + - * // %, ceil_div, min, max, "
                        "elements of int32 inputs)");
      return std::nullopt;
  }
}

std::optional<int64_t> Elaborator::const_int(const Expr& e, const std::string& what) {
  auto d = dim(e, DimUse::Loop);
  if (!d) return std::nullopt;
  DimExpr s = simplify(*d);
  if (!s.as_const()) {
    err(e.off, e.len, what + " must be a constant integer, got '" + text_of(e) + "'");
    return std::nullopt;
  }
  return *s.as_const();
}

std::optional<bool> Elaborator::condition(const Expr& e) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::BoolOp: {
      auto a = condition(*e.items[0]);
      auto b = condition(*e.items[1]);
      if (!a || !b) return std::nullopt;
      return e.op == "and" ? (*a && *b) : (*a || *b);
    }
    case K::Not: {
      auto a = condition(*e.items[0]);
      if (!a) return std::nullopt;
      return !*a;
    }
    case K::Compare: {
      if (auto k = float_compare01(e)) return k->as_const() == 1;  // `scale != 1.0` (elaborate_cond.cpp)
      auto a = dim(*e.items[0], DimUse::Static);
      auto b = dim(*e.items[1], DimUse::Static);
      if (!a || !b) return std::nullopt;
      auto x = simplify(*a).as_const(), y = simplify(*b).as_const();
      if (!x || !y) {
        err(e.off, e.len, "the condition '" + text_of(e) + "' is not static");
        return std::nullopt;
      }
      const std::string& o = e.op;
      return o == "==" ? *x == *y : o == "!=" ? *x != *y : o == "<" ? *x < *y : o == "<=" ? *x <= *y
             : o == ">" ? *x > *y : *x >= *y;
    }
    case K::Name:
      if (!e.quoted && (e.name == "true" || e.name == "True")) return true;
      if (!e.quoted && (e.name == "false" || e.name == "False")) return false;
      [[fallthrough]];
    default: {
      auto a = dim(e, DimUse::Static);
      if (!a) return std::nullopt;
      auto x = simplify(*a).as_const();
      if (!x) {
        err(e.off, e.len, "the condition '" + text_of(e) + "' is not static");
        return std::nullopt;
      }
      return *x != 0;
    }
  }
}

}  // namespace ptoc::fe
