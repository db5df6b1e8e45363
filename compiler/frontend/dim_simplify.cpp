#include "compiler/frontend/dim_simplify.h"

#include "runtime/core/checked_int.h"

#include <algorithm>
#include <string>
#include <map>
#include <vector>

namespace ptoc::fe {

namespace {

using Mono = std::vector<std::string>;  // sorted atom keys; empty = the constant term

struct Poly {
  std::map<Mono, int64_t> terms;
  std::map<std::string, DimExpr> atoms;  // key -> expression

  static Poly constant(int64_t c) {
    Poly p;
    if (c != 0) p.terms[{}] = c;
    return p;
  }
  static Poly atom(const DimExpr& e) {
    Poly p;
    std::string k = e.str();
    p.atoms.emplace(k, e);
    p.terms[{k}] = 1;
    return p;
  }
  std::optional<int64_t> as_const() const {
    if (terms.empty()) return 0;
    if (terms.size() == 1 && terms.begin()->first.empty()) return terms.begin()->second;
    return std::nullopt;
  }
  void merge_atoms(const Poly& o) { atoms.insert(o.atoms.begin(), o.atoms.end()); }
  void add(const Mono& m, int64_t c) {
    int64_t& v = terms[m];
    v = checked_add(v, c);
    if (v == 0) terms.erase(m);
  }
};

Poly add(const Poly& a, const Poly& b, int64_t sign) {
  Poly r = a;
  r.merge_atoms(b);
  for (auto& [m, c] : b.terms) r.add(m, checked_mul(sign, c));
  return r;
}

Poly mul(const Poly& a, const Poly& b) {
  Poly r;
  r.merge_atoms(a);
  r.merge_atoms(b);
  for (auto& [ma, ca] : a.terms)
    for (auto& [mb, cb] : b.terms) {
      Mono m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      r.add(m, checked_mul(ca, cb));
    }
  return r;
}

DimExpr rebuild(const Poly& p);

Poly to_poly(const DimExpr& e) {
  using K = DimExpr::Kind;
  const auto& a = e.args();
  switch (e.kind()) {
    case K::Const: return Poly::constant(*e.as_const());
    case K::Sym: return Poly::atom(e);
    case K::Add: return add(to_poly(a[0]), to_poly(a[1]), 1);
    case K::Sub: return add(to_poly(a[0]), to_poly(a[1]), -1);
    case K::Neg: return add(Poly::constant(0), to_poly(a[0]), -1);
    case K::Mul: return mul(to_poly(a[0]), to_poly(a[1]));
    case K::FloorDiv:
    case K::CeilDiv:
    case K::Mod: {
      Poly x = to_poly(a[0]), y = to_poly(a[1]);
      auto c = y.as_const();
      if (c && *c > 0) {
        bool divisible = true;
        for (auto& [m, v] : x.terms)
          if (v % *c != 0) divisible = false;
        if (divisible) {
          if (e.kind() == K::Mod) return Poly::constant(0);
          Poly r = x;
          for (auto& [m, v] : r.terms) v /= *c;
          return r;
        }
      }
      DimExpr xs = rebuild(x), ys = rebuild(y);
      DimExpr r = e.kind() == K::FloorDiv ? floordiv(xs, ys) : e.kind() == K::Mod ? mod(xs, ys) : ceil_div(xs, ys);
      return r.is_const() ? Poly::constant(*r.as_const()) : Poly::atom(r);
    }
    case K::Min:
    case K::Max: {
      Poly x = to_poly(a[0]), y = to_poly(a[1]);
      auto d = add(x, y, -1).as_const();
      if (d) {
        bool take_x = e.kind() == K::Min ? *d <= 0 : *d >= 0;
        return take_x ? x : y;
      }
      DimExpr xs = rebuild(x), ys = rebuild(y);
      // Order the arguments so that min(a, b) and min(b, a) are one atom.
      // Symbols before constants: min(B, 32), not min(32, B).
      if ((xs.is_const() && !ys.is_const()) || (xs.is_const() == ys.is_const() && ys.str() < xs.str()))
        std::swap(xs, ys);
      DimExpr r = e.kind() == K::Min ? min(xs, ys) : max(xs, ys);
      return r.is_const() ? Poly::constant(*r.as_const()) : Poly::atom(r);
    }
  }
  return Poly::atom(e);
}

DimExpr monomial(const Poly& p, const Mono& m, int64_t c) {
  DimExpr r;
  bool first = true;
  for (auto& k : m) {
    const DimExpr& at = p.atoms.at(k);
    r = first ? at : r * at;
    first = false;
  }
  if (first) return DimExpr(c);
  return c == 1 ? r : r * DimExpr(c);
}

DimExpr rebuild(const Poly& p) {
  if (auto c = p.as_const()) return DimExpr(*c);
  // Positive terms first (highest degree first, then by name), then negative, constant last.
  std::vector<std::pair<Mono, int64_t>> pos, neg;
  int64_t konst = 0;
  for (auto& [m, c] : p.terms) {
    if (m.empty()) konst = c;
    else (c > 0 ? pos : neg).push_back({m, c});
  }
  auto order = [](const auto& x, const auto& y) {
    if (x.first.size() != y.first.size()) return x.first.size() > y.first.size();
    return x.first < y.first;
  };
  std::sort(pos.begin(), pos.end(), order);
  std::sort(neg.begin(), neg.end(), order);
  DimExpr r;
  bool have = false;
  for (auto& [m, c] : pos) {
    r = have ? r + monomial(p, m, c) : monomial(p, m, c);
    have = true;
  }
  if (!have && konst > 0) {
    r = DimExpr(konst);
    have = true;
    konst = 0;
  }
  for (auto& [m, c] : neg) {
    r = have ? r - monomial(p, m, checked_neg(c)) : -monomial(p, m, checked_neg(c));
    have = true;
  }
  if (konst > 0) r = r + DimExpr(konst);
  if (konst < 0) r = r - DimExpr(checked_neg(konst));
  return r;
}

}  // namespace

DimExpr simplify(const DimExpr& e) { return rebuild(to_poly(e)); }

bool provably_equal(const DimExpr& a, const DimExpr& b) {
  auto d = const_difference(a, b);
  return d && *d == 0;
}

std::optional<int64_t> const_difference(const DimExpr& a, const DimExpr& b) {
  return add(to_poly(a), to_poly(b), -1).as_const();
}

static std::optional<std::pair<int64_t, int64_t>> bounds_unchecked(const DimExpr& e, const Ranges& ranges);

// Bounds whose arithmetic would leave int64 are unknown (nullopt), never wrapped.
std::optional<std::pair<int64_t, int64_t>> bounds(const DimExpr& e, const Ranges& ranges) {
  try {
    return bounds_unchecked(e, ranges);
  } catch (const DimEvalError&) {
    return std::nullopt;
  }
}

static std::optional<std::pair<int64_t, int64_t>> bounds_unchecked(const DimExpr& e, const Ranges& ranges) {
  using K = DimExpr::Kind;
  using B = std::pair<int64_t, int64_t>;
  const auto& a = e.args();
  auto two = [&]() -> std::optional<std::pair<B, B>> {
    auto x = bounds(a[0], ranges), y = bounds(a[1], ranges);
    if (!x || !y) return std::nullopt;
    return std::make_pair(*x, *y);
  };
  switch (e.kind()) {
    case K::Const: return B{*e.as_const(), *e.as_const()};
    case K::Sym: {
      auto it = ranges.find(e.name());
      if (it == ranges.end()) return std::nullopt;
      return it->second;
    }
    case K::Neg: {
      auto x = bounds(a[0], ranges);
      if (!x) return std::nullopt;
      return B{checked_neg(x->second), checked_neg(x->first)};
    }
    case K::Add: {
      auto p = two();
      if (!p) return std::nullopt;
      return B{checked_add(p->first.first, p->second.first), checked_add(p->first.second, p->second.second)};
    }
    case K::Sub: {
      auto p = two();
      if (!p) return std::nullopt;
      return B{checked_sub(p->first.first, p->second.second), checked_sub(p->first.second, p->second.first)};
    }
    case K::Mul: {
      auto p = two();
      if (!p) return std::nullopt;
      int64_t c[4] = {checked_mul(p->first.first, p->second.first), checked_mul(p->first.first, p->second.second),
                      checked_mul(p->first.second, p->second.first), checked_mul(p->first.second, p->second.second)};
      return B{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case K::Min:
    case K::Max: {
      auto p = two();
      if (!p) return std::nullopt;
      if (e.kind() == K::Min)
        return B{std::min(p->first.first, p->second.first), std::min(p->first.second, p->second.second)};
      return B{std::max(p->first.first, p->second.first), std::max(p->first.second, p->second.second)};
    }
    case K::FloorDiv:
    case K::CeilDiv:
    case K::Mod: {
      auto p = two();
      if (!p || p->second.first != p->second.second || p->second.first <= 0) return std::nullopt;
      int64_t d = p->second.first;
      if (e.kind() == K::Mod) return B{0, d - 1};
      if (e.kind() == K::FloorDiv) return B{floor_div_i64(p->first.first, d), floor_div_i64(p->first.second, d)};
      return B{checked_neg(floor_div_i64(checked_neg(p->first.first), d)),
               checked_neg(floor_div_i64(checked_neg(p->first.second), d))};
    }
  }
  return std::nullopt;
}

DimExpr substitute_sym(const DimExpr& e, const std::string& name, const DimExpr& by) {
  using K = DimExpr::Kind;
  const auto& a = e.args();
  auto s = [&](size_t i) { return substitute_sym(a[i], name, by); };
  switch (e.kind()) {
    case K::Const: return e;
    case K::Sym: return e.name() == name ? by : e;
    case K::Add: return s(0) + s(1);
    case K::Sub: return s(0) - s(1);
    case K::Mul: return s(0) * s(1);
    case K::Neg: return -s(0);
    case K::FloorDiv: return floordiv(s(0), s(1));
    case K::Mod: return mod(s(0), s(1));
    case K::CeilDiv: return ceil_div(s(0), s(1));
    case K::Min: return min(s(0), s(1));
    case K::Max: return max(s(0), s(1));
  }
  return e;
}

namespace {
// Sign of d over a loop variable's symbolic range, when d is linear and increasing or decreasing in it.
std::optional<int> sign_over(const DimExpr& d, const SymRanges& sym) {
  for (const auto& [var, r] : sym) {
    std::vector<std::string> used;
    d.collect_symbols(used);
    if (std::find(used.begin(), used.end(), var) == used.end()) continue;
    auto slope = const_difference(substitute_sym(d, var, DimExpr::sym(var) + DimExpr(1)), d);
    if (!slope) continue;
    // The extreme values sit at the ends of the range.
    auto at_hi = simplify(substitute_sym(d, var, *slope >= 0 ? r.hi : r.lo)).as_const();
    auto at_lo = simplify(substitute_sym(d, var, *slope >= 0 ? r.lo : r.hi)).as_const();
    if (at_hi && *at_hi <= 0) return -1;
    if (at_lo && *at_lo >= 0) return 1;
  }
  return std::nullopt;
}
}  // namespace

DimExpr min_in(const DimExpr& a, const DimExpr& b, const Ranges& ranges, const SymRanges& sym,
               const std::map<std::string, int64_t>& divisible) {
  DimExpr d = simplify(a - b);
  if (!divisible.empty()) {
    // Write each such dim as n * D' so that floor divisions by n cancel.
    auto split = [&](DimExpr e) {
      for (const auto& [name, n] : divisible)
        if (n > 1) e = substitute_sym(e, name, DimExpr(n) * DimExpr::sym(name + "'"));
      return simplify(e);
    };
    DimExpr ds = split(d);
    SymRanges ss;
    for (const auto& [v, r] : sym) ss[v] = {split(r.lo), split(r.hi)};
    if (auto c = ds.as_const()) return *c <= 0 ? a : b;
    if (auto sg = sign_over(ds, ss)) return *sg < 0 ? a : b;
  }
  if (auto c = d.as_const()) return *c <= 0 ? a : b;
  if (auto bd = bounds(d, ranges)) {
    if (bd->second <= 0) return a;
    if (bd->first >= 0) return b;
  }
  if (auto s = sign_over(d, sym)) return *s < 0 ? a : b;
  return simplify(min(a, b));
}

}  // namespace ptoc::fe
