// Dim expressions compiled to a straight-line register program (one per root function).
// Part of the control-flow walk (runtime/control_flow.cpp), split out as its own unit.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "runtime/core/dim_expr.h"
#include "runtime/program/program_decls.h"

namespace ptoc::runtime::detail {

// DimExpr::eval walks a tree with string lookups; a root instance evaluates dozens of
// expressions (kernel arguments, region offsets and extents of every task), most of them
// repeating the same few subexpressions of the loop variables. So each root's expressions
// are compiled once into one straight-line register program: every distinct subexpression
// gets one register and is computed once per instance (value numbering), and everything
// that depends only on dims (bound for the whole walk) is folded at compile time. The
// outputs are then copied out of the registers. Evaluation order follows the first
// occurrence of each subexpression, so a division by zero is reported as before.
enum class Op : uint8_t { Slot, Add, Sub, Mul, FloorDiv, Mod, Neg, CeilDiv, Min, Max };

struct UnboundInExpr {
  std::string symbol;
};

// Python floor division/modulo with the common positive-divisor case inline (the profile's
// out-of-line call); other signs and zero go through the shared definition.
inline int64_t fdiv(int64_t a, int64_t b) {
  if (b > 0 && a >= 0) return a / b;
  return floor_div_i64(a, b);
}
inline int64_t fmod_(int64_t a, int64_t b) {
  if (b > 0 && a >= 0) return a % b;
  return floor_mod_i64(a, b);
}

inline int64_t apply(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::FloorDiv: return fdiv(a, b);
    case Op::Mod: return fmod_(a, b);
    case Op::Neg: return -a;
    case Op::CeilDiv: return -fdiv(-a, b);
    case Op::Min: return std::min(a, b);
    case Op::Max: return std::max(a, b);
    default: return 0;
  }
}

struct SlotTable {
  std::unordered_map<std::string, int> index;
  std::vector<std::string> names;
  std::vector<int64_t> value;
  std::vector<char> bound;
  std::vector<char> fixed;  // a dim no loop rebinds: its value is a compile-time constant
  int slot(const std::string& name) {
    auto it = index.find(name);
    if (it != index.end()) return it->second;
    int s = int(names.size());
    index.emplace(name, s);
    names.push_back(name);
    value.push_back(0);
    bound.push_back(0);
    fixed.push_back(0);
    return s;
  }
};

class ExprProgram {
 public:
  // Evaluates every output into out[0 .. outputs()). Throws DimEvalError (division by zero).
  void run(const int64_t* slots, int64_t* out) {
    int64_t* r = regs_.data();
    for (const Ins& in : code_) {
      if (in.op == Op::Slot) r[in.dst] = slots[in.a];
      else r[in.dst] = apply(in.op, r[in.a], r[in.b]);
    }
    for (size_t k = 0; k < out_.size(); ++k) out[k] = r[out_[k]];
  }
  int outputs() const { return int(out_.size()); }
  size_t ops() const { return code_.size(); }

  // Appends `e` as the next output; returns its index.
  int add(const DimExpr& e, SlotTable& st) {
    out_.push_back(value(e, st).reg);
    return int(out_.size()) - 1;
  }

 private:
  struct Ins {
    Op op;
    int32_t dst, a, b;
  };
  struct Val {
    int32_t reg;
    bool is_const;
    int64_t c;
  };
  Val constant(int64_t v) {
    auto [it, fresh] = consts_.emplace(v, int32_t(regs_.size()));
    if (fresh) regs_.push_back(v);  // never overwritten: no instruction targets it
    return {it->second, true, v};
  }
  Val value(const DimExpr& e, SlotTable& st) {
    using K = DimExpr::Kind;
    switch (e.kind()) {
      case K::Const: return constant(*e.as_const());
      case K::Sym: {
        auto it = st.index.find(e.name());
        if (it == st.index.end() || !st.bound[size_t(it->second)]) throw UnboundInExpr{e.name()};
        const int s = it->second;
        if (st.fixed[size_t(s)]) return constant(st.value[size_t(s)]);
        return {op_reg(Op::Slot, s, -1), false, 0};
      }
      default: break;
    }
    Op op = Op::Add;
    size_t arity = 2;
    switch (e.kind()) {
      case K::Add: op = Op::Add; break;
      case K::Sub: op = Op::Sub; break;
      case K::Mul: op = Op::Mul; break;
      case K::FloorDiv: op = Op::FloorDiv; break;
      case K::Mod: op = Op::Mod; break;
      case K::Neg: op = Op::Neg, arity = 1; break;
      case K::CeilDiv: op = Op::CeilDiv; break;
      case K::Min: op = Op::Min; break;
      case K::Max: op = Op::Max; break;
      default: break;
    }
    if (e.args().size() != arity)
      throw DimEvalError("malformed dim expression " + e.str() + " (" + std::to_string(e.args().size()) + " operands)");
    Val a = value(e.args()[0], st);
    Val b = arity == 2 ? value(e.args()[1], st) : constant(0);
    if (a.is_const && b.is_const) {
      try {
        return constant(apply(op, a.c, b.c));
      } catch (const DimEvalError&) {
        // Not folded: evaluated (and reported) at run time, in its place.
      }
    }
    return {op_reg(op, a.reg, b.reg), false, 0};
  }
  int32_t op_reg(Op op, int32_t a, int32_t b) {
    auto [it, fresh] = memo_.emplace(std::make_tuple(op, a, b), int32_t(regs_.size()));
    if (fresh) {
      regs_.push_back(0);
      code_.push_back({op, it->second, a, b});
    }
    return it->second;
  }

  std::vector<int64_t> regs_;
  std::vector<Ins> code_;
  std::vector<int32_t> out_;  // register of each output
  std::map<int64_t, int32_t> consts_;
  std::map<std::tuple<Op, int32_t, int32_t>, int32_t> memo_;
};

inline int expr_depth(const DimExpr& e) {
  int d = 0;
  for (auto& a : e.args()) d = std::max(d, expr_depth(a));
  return d + 1;
}

}  // namespace ptoc::runtime::detail
