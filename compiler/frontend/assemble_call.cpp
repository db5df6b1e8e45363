// PyPTO writes a tile into a GM tensor as `pypto.assemble(src, [o0, o1, ...], dst)`; ptoc's form of the
// same write is `dst[o0:, o1:, ...] = src` (spec-language section 7). A port should be a transliteration,
// so the call statement is rewritten here, after parsing, into that assemble: every later rule (the
// target must be an output, a workspace or a local tensor; dtypes equal; the window inside the target)
// is the assemble's, with its messages.
#include "compiler/frontend/assemble_call.h"

#include <string>

namespace ptoc::fe {

namespace {

SyntaxError at(const Expr& e, std::string message, std::string hint) {
  return SyntaxError{e.off, e.len, std::move(message), std::move(hint)};
}

const char* kForm = "PyPTO's form: assemble(src, [offset, ...], dst), the same as dst[offset:, ...] = src";

}  // namespace

std::optional<SyntaxError> desugar_assemble_call(AssignAst& a) {
  const Expr& call = *a.value;
  for (const Arg& g : call.args)
    if (!g.name.empty()) {
      SyntaxError e{g.name_off, int(g.name.size()), "unknown argument '" + g.name + "' to 'assemble'", kForm};
      if (g.name != "input" && g.name != "offsets" && g.name != "out") return e;
    }
  // PyPTO's parameter names are (input, offsets, out); positional or by those keywords.
  ExprPtr src, offs, dst;
  size_t pos = 0;
  for (const Arg& g : call.args) {
    ExprPtr* slot = g.name == "input" ? &src : g.name == "offsets" ? &offs : g.name == "out" ? &dst
                  : pos == 0 ? &src : pos == 1 ? &offs : pos == 2 ? &dst : nullptr;
    if (g.name.empty()) ++pos;
    if (!slot) return at(*g.value, "too many arguments to 'assemble' (it takes 3)", kForm);
    if (*slot) return at(*g.value, "argument given twice to 'assemble'", kForm);
    *slot = g.value;
  }
  if (!src || !offs || !dst)
    return at(call, "'assemble' takes 3 arguments: the value, the offsets and the target tensor", kForm);
  if (offs->kind != Expr::Kind::List)
    return at(*offs, "the offsets of 'assemble' must be a list [o0, o1, ...], one per axis of the target", kForm);
  if (dst->kind != Expr::Kind::Name || dst->quoted)
    return at(*dst, "the target of 'assemble' must be the name of an output, a workspace or a local tensor", kForm);
  a.target = dst->name;
  a.target_off = dst->off;
  a.target_len = dst->len;
  a.subscript = true;
  a.slices.clear();
  for (const ExprPtr& o : offs->items) {
    Slice s;
    s.kind = Slice::Kind::Range;
    s.start = o;
    s.off = o->off;
    s.len = o->len;
    a.slices.push_back(s);
  }
  a.eq_off = call.op_off;
  a.value = src;
  return std::nullopt;
}

}  // namespace ptoc::fe
