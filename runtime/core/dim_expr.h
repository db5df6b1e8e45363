// Symbolic integer expressions over dims, loop variables and literals
// (shapes, loop bounds, slice offsets, valid extents). Immutable, shared,
// constant-folded on construction. Constants (most expressions of a tiled
// program) are held inline without a heap node: copying or testing them costs
// no allocation and no reference count.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptoc {

class DimExpr {
 public:
  enum class Kind { Const, Sym, Add, Sub, Mul, FloorDiv, Mod, Neg, CeilDiv, Min, Max };

  DimExpr() = default;               // the constant 0
  DimExpr(int64_t v) : v_(v) {}      // NOLINT: implicit on purpose, literals read naturally
  static DimExpr sym(const std::string& name);  // a dim, loop variable or unroll factor

  Kind kind() const;
  bool is_const() const { return !n_; }
  std::optional<int64_t> as_const() const {
    if (!n_) return v_;
    return std::nullopt;
  }
  const std::string& name() const;   // for Sym
  const std::vector<DimExpr>& args() const;

  // Binding of symbols to values; missing symbols throw UnboundSymbol.
  using Env = std::map<std::string, int64_t, std::less<>>;
  int64_t eval(const Env& env) const;
  // Replace symbols that have a binding (e.g. static loop vars, unroll factors); fold.
  DimExpr substitute(const Env& env) const;
  void collect_symbols(std::vector<std::string>& out) const;

  // Canonical text: fully parenthesised only where needed; stable for golden tests.
  std::string str() const;
  // How tightly str() binds a node of this kind: 1 additive, 2 multiplicative, 3 unary, 4 atom
  // (for code that measures or prints the same text).
  static int print_precedence(Kind k);
  // The same expression as a C++ int64_t expression; `sym` maps a symbol to C code.
  std::string to_c(const std::function<std::string(const std::string&)>& sym) const;
  // Same canonical text (structural equality, without rendering in the common case).
  bool same(const DimExpr& o) const;
  size_t hash() const;

  friend DimExpr operator+(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator*(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a);
  friend DimExpr floordiv(const DimExpr& a, const DimExpr& b);
  friend DimExpr mod(const DimExpr& a, const DimExpr& b);
  friend DimExpr ceil_div(const DimExpr& a, const DimExpr& b);
  friend DimExpr min(const DimExpr& a, const DimExpr& b);
  friend DimExpr max(const DimExpr& a, const DimExpr& b);

  struct Node;

 private:
  explicit DimExpr(std::shared_ptr<const Node> n) : n_(std::move(n)) {}
  static DimExpr make(Kind k, std::vector<DimExpr> args);
  static DimExpr make2(Kind k, const DimExpr& a, const DimExpr& b);
  std::shared_ptr<const Node> n_;  // null: the constant v_
  int64_t v_ = 0;
};

// A symbol or an operation (constants have no node).
struct DimExpr::Node {
  Kind kind = Kind::Sym;
  bool plain = true;               // every symbol below is an identifier (same() may skip rendering)
  std::string name;                // Sym
  std::vector<DimExpr> args;       // operations
};

inline DimExpr::Kind DimExpr::kind() const { return n_ ? n_->kind : Kind::Const; }

struct UnboundSymbol : std::runtime_error {
  explicit UnboundSymbol(const std::string& s) : std::runtime_error("unbound symbol '" + s + "'"), symbol(s) {}
  std::string symbol;
};
struct DimEvalError : std::runtime_error {
  using std::runtime_error::runtime_error;  // division by zero and the like
};

// Python semantics: floor division and modulo round toward -inf.
int64_t floor_div_i64(int64_t a, int64_t b);
int64_t floor_mod_i64(int64_t a, int64_t b);

}  // namespace ptoc
