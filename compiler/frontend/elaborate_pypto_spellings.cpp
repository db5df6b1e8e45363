// PyPTO's own spellings of forms ptoc has, accepted as written so that a port is a transliteration
// (DeepSeek-V4's window attention, specs/win_attention.yaml):
// - (keyword arguments by PyPTO's names: pypto_keywords.cpp;)
// - `float("-inf")`, `float("inf")`, `float("nan")`: Python's float literals, where a literal may stand;
// - `concat([x] * 4, dim=0)`: a list repeated by an integer constant;
// - (`assemble(input, [offsets], out)` as a statement: the parser's assemble_call.cpp;)
// - `full(shape, value, dtype, valid_shape=[...])` (the lightning indexer's pad): the same as
//   `view(full(shape, value, dtype), shape, [0, ...], valid=[...])`.
#include <cmath>
#include <limits>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

EV Elaborator::float_call(const Expr& e) {
  auto bad = [&] {
    err(e.op_off, e.len, "float(...) takes one string: \"inf\", \"-inf\" or \"nan\" (Python's float literals)",
        "write a number as it is (0.5), or inf, -inf, nan");
    return EV::poison();
  };
  if (e.args.size() != 1 || !e.args[0].name.empty() || !e.args[0].value) return bad();
  const Expr& a = *e.args[0].value;
  if (a.kind != Expr::Kind::Name || !a.quoted) return bad();
  std::string s;
  for (char ch : a.name) s += char(std::tolower(static_cast<unsigned char>(ch)));
  const double inf = std::numeric_limits<double>::infinity();
  if (s == "inf" || s == "+inf" || s == "infinity" || s == "+infinity") return EV::number(inf, false);
  if (s == "-inf" || s == "-infinity") return EV::number(-inf, false);
  if (s == "nan" || s == "+nan" || s == "-nan") return EV::number(std::numeric_limits<double>::quiet_NaN(), false);
  return bad();
}

const Expr* Elaborator::list_repeat(const Expr* l) {
  if (!l || l->kind != Expr::Kind::Binary || l->op != "*" || l->items.size() != 2) return l;
  const bool left = l->items[0]->kind == Expr::Kind::List;
  const Expr* list = left ? l->items[0].get() : l->items[1].get();
  const Expr* count = left ? l->items[1].get() : l->items[0].get();
  if (list->kind != Expr::Kind::List) return l;
  auto n = const_int(*count, "the repeat count of a list");
  if (!n) return nullptr;
  if (*n < 1 || *n > 4096) {
    err(count->off, count->len, "a list repeated " + std::to_string(*n) + " times; the count must be 1 to 4096");
    return nullptr;
  }
  auto rep = std::make_shared<Expr>(*list);
  rep->off = l->off;
  rep->len = l->len;
  rep->items.clear();
  for (int64_t i = 0; i < *n; ++i)
    for (const auto& it : list->items) rep->items.push_back(it);
  synthesized_.push_back(rep);
  return rep.get();
}

std::optional<EV> Elaborator::full_valid_shape(const Expr& e) {
  const Arg* vs = nullptr;
  for (const auto& a : e.args)
    if (a.name == "valid_shape") vs = &a;
  if (!vs) return std::nullopt;
  const Expr* shape = nullptr;
  auto plain = std::make_shared<Expr>(e);  // full(...) without valid_shape
  plain->args.clear();
  size_t positional = 0;
  for (const auto& a : e.args) {
    if (&a == vs) continue;
    if ((a.name.empty() && positional++ == 0) || a.name == "shape") shape = a.value.get();
    plain->args.push_back(a);
  }
  if (!shape || shape->kind != Expr::Kind::List) {
    err(vs->name_off, int(vs->name.size()), "full's valid_shape needs the shape as a list: full([1, 2048], v, fp32, valid_shape=[1, n])");
    return EV::poison();
  }
  auto zeros = std::make_shared<Expr>(*shape);
  for (auto& it : zeros->items) {
    auto z = std::make_shared<Expr>();
    z->kind = Expr::Kind::Number;
    z->is_int = true;
    z->off = it->off;
    z->len = it->len;
    it = z;
  }
  auto view = std::make_shared<Expr>(e);
  view->name = "view";
  view->args.clear();
  auto arg = [&](ExprPtr v, const std::string& name = {}) {
    Arg a;
    a.value = std::move(v);
    a.name = name;
    a.name_off = e.op_off;
    view->args.push_back(std::move(a));
  };
  for (const auto& a : e.args)
    if (a.value.get() == shape) arg(a.value);
  view->args.insert(view->args.begin(), Arg{});
  view->args[0].value = plain;
  arg(zeros);
  arg(vs->value, "valid");
  synthesized_.push_back(plain);
  synthesized_.push_back(zeros);
  synthesized_.push_back(view);
  return expr(*view);
}

}  // namespace ptoc::fe
