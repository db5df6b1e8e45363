#include "compiler/frontend/loop_count_condition.h"

#include <cctype>
#include <memory>
#include <utility>

#include "compiler/frontend/parser.h"

namespace ptoc::fe {

namespace {

bool is_condition_top(const Expr& e) {
  using K = Expr::Kind;
  if (e.kind == K::Compare || e.kind == K::BoolOp || e.kind == K::Not) return true;
  return e.kind == K::Name && !e.quoted && (e.name == "true" || e.name == "false");
}

// The text uses what only a condition has: a comparison operator or one of the words and / or / not.
bool looks_like_condition(std::string_view t) {
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '<' || c == '>') return true;
    if ((c == '=' || c == '!') && i + 1 < t.size() && t[i + 1] == '=') return true;
  }
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::string_view w : {"and", "or", "not"}) {
    for (size_t p = t.find(w); p != std::string_view::npos; p = t.find(w, p + 1)) {
      const bool left = p == 0 || !word_char(t[p - 1]);
      const bool right = p + w.size() >= t.size() || !word_char(t[p + w.size()]);
      if (left && right) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::variant<ExprPtr, SyntaxError>> count_condition(std::string_view text) {
  auto cond = parse_condition(text);
  if (auto* e = std::get_if<ExprPtr>(&cond)) {
    if (*e && is_condition_top(**e)) return cond;
    return std::nullopt;  // an ordinary bound: `B`, `ceil_div(T, 16)`
  }
  if (std::holds_alternative<ExprPtr>(parse_expression(text))) return std::nullopt;
  if (!looks_like_condition(text)) return std::nullopt;  // broken as a bound: its own parse reports it
  return cond;
}

Stmt loop_under_condition(Stmt loop, ExprPtr cond, PosMapPtr pos, std::string text, int if_index) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  s.runtime = true;  // a `cond`: decided at run time unless it folds (then spliced in place)
  s.loc = loop.loc;
  s.index = if_index;
  s.pos = pos;
  s.text = text;
  auto one = std::make_shared<Expr>();
  one->kind = Expr::Kind::Number;
  one->is_int = true;
  one->ival = 1;
  one->number = 1;
  one->off = cond->off;  // a diagnostic about the trip count points at the condition
  one->len = cond->len;
  s.cond = std::move(cond);
  LoopAst& a = loop.loop;
  a.has_count = true;
  a.begin = a.end = a.step = SrcExpr{};
  a.count = SrcExpr{std::move(one), std::move(pos), std::move(text)};
  s.body.push_back(std::move(loop));
  return s;
}

}  // namespace ptoc::fe
