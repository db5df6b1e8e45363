// State that outlives one value: local tensors (`t = tensor([16, 64], fp32)`,
// written piecewise by `t[...] = v`, read as a value) and values carried across
// the iterations of a loop (`loop: {..., carry: {m: INIT}}`), specs/README.md
// "Local tensors" and "Carried values".
//
// Both live in a GM workspace the front end declares. Inside dynamic loops the
// workspace has one window per instance of the enclosing loops (axis 0 is
// instances x extent), so that independent iterations of those loops touch
// disjoint GM and still overlap; the access-based GM dependency analysis then
// orders exactly the accesses that share a window (a carried value's RAW/WAR
// between iterations of its own loop). In a static loop a carried value is
// plain SSA rebinding inside one root function: the compiler keeps it on chip.
#include <algorithm>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

namespace {

std::string identifier_part(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return r;
}

}  // namespace

EV Elaborator::expr_src(const SrcExpr& e) {
  PosMapPtr saved = pos_;
  const std::string* saved_text = text_;
  pos_ = e.pos;
  text_ = &e.text;
  EV v = expr(*e.expr);
  pos_ = saved;
  text_ = saved_text;
  return v;
}

std::optional<Binding> Elaborator::new_local_tensor(const std::string& name, DType dt, const Shape& shape, SrcLoc loc,
                                                    int len, const std::string& what, const std::string& owner) {
  // Its extents may use dims only: the workspace is sized once per run.
  for (const auto& d : shape) {
    std::vector<std::string> syms;
    d.collect_symbols(syms);
    for (const auto& sy : syms)
      if (!p_.find_dim(sy)) {
        r_.error(loc, what + " '" + name + "' has the shape " + shape_str(shape) + ", which uses '" + sy +
                          "'; its extents may use dims only",
                 "give it the largest extent (a dim) and slice it", len);
        return std::nullopt;
      }
  }
  // One window per instance of the enclosing dynamic loops: instance index
  // lin = sum_i ((var_i - begin_i) // step_i) * prod_{j > i} trip_j. A loop whose trip
  // count is not a dim expression (a run-time value, an outer loop variable) cannot size
  // the workspace: its iterations share the window, and the GM dependency analysis
  // orders them (read after write, write after read), as a carried value's are.
  DimExpr count = 1, lin = 0;
  bool shared = false;
  if (seq_) {
    for (const auto& en : seq_->frame.enclosing) {
      if (en.branch) continue;  // one iteration at most, variable 0: the enclosing instance's window
      std::vector<std::string> syms;
      en.trip.collect_symbols(syms);
      bool over_dims = true;
      for (const auto& sy : syms) over_dims = over_dims && p_.find_dim(sy);
      if (!over_dims) {
        shared = true;
        continue;
      }
      lin = simplify(lin * en.trip + floordiv(DimExpr::sym(en.var) - en.begin, en.step));
      count = simplify(count * en.trip);
    }
  }
  std::string base = identifier_part(name) + "_" +
                     (!owner.empty() ? identifier_part(owner)
                                     : (seq_ ? identifier_part(seq_->frame.root_prefix + seq_->frame.name_suffix) : "top"));
  std::string tname = base;
  for (int k = 2; p_.find_tensor(tname) >= 0 || p_.find_dim(tname); ++k) tname = base + "_" + std::to_string(k);
  TensorDecl d;
  d.name = tname;
  d.role = TensorRole::Workspace;
  d.dtype = dt;
  d.shape = shape;
  d.shape[0] = simplify(count * shape[0]);
  d.loc = loc;
  p_.tensors.push_back(std::move(d));
  Binding b;
  b.tensor = int(p_.tensors.size()) - 1;
  b.base = simplify(lin * shape[0]);
  b.shape = shape;
  b.shared_window = shared;
  return b;
}

EV Elaborator::local_read(const Binding& b, int loc_off) {
  if (auto v = onchip_read(b, loc_off)) return EV::tensor(*v);
  settle_zero_fill(b, false);
  EV whole = tensor_ref(b.tensor);
  if (!whole.ok()) return whole;
  Op op;
  op.kind = OpKind::View;
  op.inputs = {whole.value};
  op.offsets.assign(b.shape.size(), DimExpr(0));
  op.offsets[0] = b.base;
  op.shape = b.shape;
  op.valid = b.valid;  // a name both branches of a run-time if bind: their values' valid extents
  int v = emit(op, p_.tensors[size_t(b.tensor)].dtype, b.shape, b.valid.empty() ? b.shape : b.valid, loc_off);
  return EV::tensor(v);
}

void Elaborator::local_assemble(const Binding& b, int value, Shape offsets, int loc_off, int loc_len) {
  if (zero_fills_.count(b.tensor)) {
    const Value& v = p_.values[size_t(value)];
    bool whole = v.valid.size() == b.shape.size();
    for (size_t i = 0; whole && i < b.shape.size(); ++i) {
      auto o = offsets[i].as_const();
      auto d = const_difference(v.valid[i], b.shape[i]);
      whole = o && *o == 0 && d && *d >= 0;
    }
    settle_zero_fill(b, whole);
  }
  const Shape rel = offsets;
  offsets[0] = simplify(offsets[0] + b.base);
  Op op;
  op.kind = OpKind::Assemble;
  op.inputs = {value};
  op.tensor = b.tensor;
  op.offsets = std::move(offsets);
  emit(op, p_.values[size_t(value)].dtype, {}, {}, loc_off, loc_len);
  std::vector<int> ids{int(p_.ops.size()) - 1};
  const bool fill = fill_full_op_.has_value();
  if (fill) ids.push_back(*fill_full_op_);
  fill_full_op_.reset();
  note_local_write(b, value, rel, std::move(ids), fill);
  written_.insert(b.tensor);
  if (seq_) seq_->tensor_refs.erase(b.tensor);  // later reads see the new data
}

bool Elaborator::local_tensor_decl(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!a.value || a.value->kind != Expr::Kind::Call || a.value->name != "tensor") return false;
  const Expr& e = *a.value;
  const int fo = e.op_off, fl = int(e.name.size());
  bool name_ok = check_binding_name(a.target, at(a.target_off), a.target_len, "local tensor");
  auto fail = [&] {
    if (name_ok) (*names_)[a.target] = Binding::poisoned();
    return true;
  };
  const Expr *shape_x = nullptr, *dtype_x = nullptr;
  size_t positional = 0;
  for (const auto& arg : e.args) {
    const std::string k = arg.name.empty() ? (positional++ == 0 ? "shape" : positional == 2 ? "dtype" : positional == 3 ? "name" : "?") : arg.name;
    if (k == "shape" && !shape_x) shape_x = arg.value.get();
    else if (k == "dtype" && !dtype_x) dtype_x = arg.value.get();
    else if (k == "name" && arg.value->kind == Expr::Kind::Name && arg.value->quoted) continue;  // PyPTO's name: the bound name is it
    else {
      err(arg.value->off, arg.value->len, "tensor takes (shape, dtype): '" + text_of(*arg.value) + "' is one argument too many",
          "write tensor([16, 64], fp32)");
      return fail();
    }
  }
  if (!shape_x || !dtype_x) {
    err(fo, fl, "tensor needs a shape and a dtype", "write tensor([16, 64], fp32)");
    return fail();
  }
  auto shape = list_arg(shape_x, "the shape of a tensor");
  auto dt = dtype_arg(dtype_x, DType::fp32);
  if (!shape || !dt) return fail();
  if (shape->empty() || shape->size() > 4) {
    err(shape_x->off, shape_x->len, "a tensor has rank 1 to 4, got " + std::to_string(shape->size()));
    return fail();
  }
  auto b = new_local_tensor(a.target, *dt, *shape, at(a.target_off), a.target_len, "the local tensor");
  if (!b) return fail();
  if (b->shared_window) defer_zero_fill(*b, at(a.target_off), a.target_len);
  track_local(*b);
  if (name_ok) (*names_)[a.target] = *b;
  return true;
}

std::vector<Elaborator::Carried> Elaborator::carry_in(const LoopAst& l, const std::string& loop_name) {
  const bool dynamic = !loop_name.empty();
  std::vector<Carried> out;
  for (const auto& ca : l.carry) {
    bool name_ok = check_binding_name(ca.name, ca.name_loc, int(ca.name.size()), "carried value");
    EV v = expr_src(ca.init);
    if (!name_ok) continue;
    if (v.is_scalar()) {
      r_.error(ca.init.loc(), "the initial value of '" + ca.name + "' is a scalar; a loop carries tensor values",
               "make a tensor with full([shape], value, dtype)", ca.init.expr ? ca.init.expr->len : 1);
      v = EV::poison();
    }
    if (!v.ok()) {
      (*names_)[ca.name] = Binding::poisoned();
      continue;
    }
    const Value val = p_.values[size_t(v.value)];
    Carried c;
    c.name = ca.name;
    c.loc = ca.name_loc;
    c.dtype = val.dtype;
    c.shape = val.shape;
    if (!dynamic) {
      (*names_)[ca.name] = Binding::of(v.value, v.nz);
    } else {
      auto b = new_local_tensor(ca.name, val.dtype, val.shape, ca.name_loc, int(ca.name.size()), "the carried value",
                              loop_name);
      if (!b) {
        (*names_)[ca.name] = Binding::poisoned();
        continue;
      }
      c.ws = *b;
      if (b->shared_window) defer_zero_fill(*b, ca.name_loc, int(ca.name.size()));
      PosMapPtr saved = pos_;
      pos_.reset();
      cur_loc_ = ca.name_loc;
      local_assemble(c.ws, v.value, Shape(val.shape.size(), DimExpr(0)), 0, int(ca.name.size()));
      pos_ = saved;
      (*names_)[ca.name] = c.ws;
    }
    out.push_back(std::move(c));
  }
  return out;
}

bool Elaborator::check_carried(const Carried& c, const Binding& now, int line) {
  if (now.poison) return false;
  Value window;  // a name rebound in a run-time branch ends as its window: whole, the window's dtype and shape
  if (now.is_local_tensor()) {
    window.dtype = p_.tensors[size_t(now.tensor)].dtype;
    window.shape = now.shape;
    window.valid = now.valid.empty() ? now.shape : now.valid;
  }
  const Value& v = now.is_local_tensor() ? window : p_.values[size_t(now.value)];
  if (c.first_in_then) return check_bound_in_both(c, v, line);  // elaborate_bound_in_both.cpp
  std::string why;
  const std::string was = c.branch ? " (it is " : " (it starts as ", end = c.branch ? " before the branch)" : ")";
  if (v.dtype != c.dtype)
    why = "dtype " + std::string(dtype_name(v.dtype)) + was + std::string(dtype_name(c.dtype)) + end;
  else if (v.shape.size() != c.shape.size())
    why = "shape " + shape_str(v.shape) + was + shape_str(c.shape) + end;
  else
    for (size_t i = 0; i < v.shape.size() && why.empty(); ++i) {
      auto d = const_difference(v.shape[i], c.shape[i]);
      if (!d || *d != 0) why = "shape " + shape_str(v.shape) + was + shape_str(c.shape) + end;
    }
  if (!why.empty() && c.branch) {
    r_.error(c.loc, "the run-time branch at line " + std::to_string(line) + " rebinds '" + c.name + "' with " + why +
                        ", but the branch that does not run would leave the old one",
             "a name rebound in a run-time branch keeps its dtype and shape; bind the new value to another name", 2);
    return false;
  }
  if (!why.empty()) {
    r_.error(c.loc, "the carried value '" + c.name + "' ends the body of the loop at line " + std::to_string(line) +
                        " with " + why,
             "a carried value keeps its dtype and shape across iterations; cast or reshape it before the loop ends",
             int(c.name.size()));
    return false;
  }
  for (size_t i = 0; i < v.shape.size(); ++i) {
    auto d = const_difference(v.valid[i], v.shape[i]);
    if (!d || *d != 0) {
      r_.warning(c.loc, "the new value of the carried '" + c.name + "' is valid only on " + shape_str(v.valid) +
                            " of " + shape_str(v.shape) + "; the rest keeps the previous iteration's elements",
                 "", int(c.name.size()));
      break;
    }
  }
  return true;
}

// The end of one dynamic-loop body: the last binding of each carried name goes back to its window.
void Elaborator::carry_out(const std::vector<Carried>& cs, const Names& body_names, int line) {
  for (const auto& c : cs) {
    auto it = body_names.find(c.name);
    if (it == body_names.end()) continue;
    if (it->second.is_local_tensor() && it->second.tensor == c.ws.tensor) continue;  // not rebound
    if (!check_carried(c, it->second, line)) continue;
    PosMapPtr saved = pos_;
    pos_.reset();
    cur_loc_ = c.loc;
    int value = it->second.value;
    if (it->second.is_local_tensor()) {  // another window (a run-time branch's): read it
      EV r = local_read(it->second, 0);
      if (!r.ok()) {
        pos_ = saved;
        continue;
      }
      value = r.value;
    }
    local_assemble(c.ws, value, Shape(c.shape.size(), DimExpr(0)), 0, int(c.name.size()));
    pos_ = saved;
  }
}

}  // namespace ptoc::fe
