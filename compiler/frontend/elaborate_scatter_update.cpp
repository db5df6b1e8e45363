// PyPTO's scatter_update(input, -2, index, src) of a paged KV cache, as the statement
//   cache = scatter_update(cache, -2, index, src)
// where cache is a GM tensor updated in place (an output, a tensors: workspace, or an input that an output
// declared `inplace:` updates), index an int32 [b, s] view of an input (its elements are read by the control
// flow as run-time values, as `cache[slot[b], :] = row` reads them), and src the rows:
//   rank 4: cache [NB, BS, 1, d], src [b, s, 1, d]: cache[index[i][j] // BS][index[i][j] % BS][0] = src[i][j][0]
//   rank 2: cache [NB * BS, d],  src [b * s, d]:    cache[index[i][j]] = src[i * s + j]
// Each row is one assemble at its run-time slot, in (i, j) order, so a later duplicate wins (PyPTO leaves
// duplicates unspecified). PyPTO's tile rule: the tile has src's rank and the last axis d whole.
// The index may be int32 or int64 (PyPTO's DT_INT64 cache index), and may be computed on the device
// (elaborate_scatter_update_computed.cpp) instead of read from an input.
// `y = scatter_update(v, -2, index, src)` with v a value (PyPTO's result is a new tensor): v is copied into a GM
// workspace the compiler declares, named after the result (`y_scatter`), the rows are written there after the copy
// (the GM dependencies between the copy, the rows and the later reads order them), and y reads the workspace. A
// device-computed index scatters v itself on the device and assembles the result there, with no copy. v must be
// whole (its valid shape its shape), rank 2 or 4, and of a dtype PyPTO's scatter_update takes.
#include <fmt/format.h>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_call.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

namespace {
constexpr int64_t kMaxRows = 4096;  // assembles one statement writes (b * s)

bool is_scatter_update_call(const Expr* e) { return e && e->kind == Expr::Kind::Call && e->name == "scatter_update"; }

// `scatter_update(v, ...)` whose input is not a GM tensor's name: a bound value or an expression.
bool scatter_value_call(const Expr& call, const Names* names, const Program& p) {
  if (call.args.empty() || !call.args[0].value || (!call.args[0].name.empty() && call.args[0].name != "input"))
    return false;
  const Expr& v = *call.args[0].value;
  if (v.kind != Expr::Kind::Name || v.quoted) return true;
  if (names && names->count(v.name)) return true;
  return p.find_tensor(v.name) < 0 && !p.find_dim(v.name);
}

bool is_value_dtype(DType d) { return d == DType::fp32 || d == DType::fp16 || d == DType::bf16 || d == DType::int32; }
}  // namespace

bool Elaborator::scatter_update_stmt(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (a.subscript || !a.more_targets.empty() || !is_scatter_update_call(a.value.get())) return false;
  const int t = inplace_target(p_.find_tensor(a.target));
  if (t < 0 && scatter_value_call(*a.value, names_, p_)) return scatter_update_into_value(s);
  if (t < 0 || p_.tensors[size_t(t)].role == TensorRole::Input) {
    err(a.target_off, a.target_len,
        "scatter_update updates a GM tensor in place; '" + a.target + "' is " +
            (t < 0 ? "not a GM tensor" : "a read-only input"),
        t < 0 ? "write 'cache = scatter_update(cache, -2, index, src)' with cache an output, a tensors: workspace, or "
                "an input an output updates in place; for a new value, scatter a value the body computes: '" +
                    a.target + " = scatter_update(v, -2, index, src)' (v = clone(IN) for a copy of a GM tensor IN)"
              : "declare an output with 'inplace: " + a.target + "' to update it in place");
    (*names_)[a.target] = Binding::poisoned();
    return true;
  }
  scatter_target_ = t;
  expr(*a.value);
  scatter_target_ = -1;
  return true;
}

bool Elaborator::scatter_update_into_value(const Stmt& s) {
  const AssignAst& a = s.assign;
  const bool name_ok = check_binding_name(a.target, at(a.target_off), a.target_len, "value");
  scatter_value_target_ = a.target;
  scatter_done_ = false;
  expr(*a.value);
  const int ws = scatter_target_;
  scatter_value_target_.clear();
  scatter_value_ = -1;
  scatter_target_ = -1;
  Binding b = Binding::poisoned();
  if (scatter_done_ && ws >= 0 && seq_) {
    EV y = tensor_ref(ws);  // after the rows: the GM dependency orders the reads after them
    if (y.ok()) {
      b = Binding::of(y.value, false);
      p_.values[size_t(y.value)].name = a.target;
    }
  }
  scatter_done_ = false;
  if (name_ok) (*names_)[a.target] = b;
  return true;
}

int Elaborator::scatter_value_input_(const Call& c, const std::string& y) {
  const Expr& ve = *c.args[0];
  const std::string vn = text_of(ve);
  const std::string pypto = "PyPTO's input is [blockNum * blockSize, d] or [blockNum, blockSize, 1, d]";
  EV v = expr(ve);
  if (!v.ok()) return -1;
  if (!v.is_tensor()) {
    err(ve.off, ve.len, "scatter_update's input '" + vn + "' is a scalar; " + pypto,
        "make a tensor with full([rows, d], value, dtype)");
    return -1;
  }
  if (!check_nz(v, ve, "scatter_update")) return -1;
  const Value val = p_.values[size_t(v.value)];
  Shape sh, va;
  for (const auto& d : val.shape) sh.push_back(simplify(d.substitute(static_dims_)));
  for (const auto& d : val.valid) va.push_back(simplify(d.substitute(static_dims_)));
  const size_t rank = sh.size();
  if (rank != 2 && rank != 4) {
    std::string hint;
    if (rank == 3) hint = "reshape(" + vn + ", [" + simplify(sh[0] * sh[1]).str() + ", " + sh[2].str() + "])";
    err(ve.off, ve.len, fmt::format("scatter_update's input '{}' has rank {} {}; {}", vn, rank, shape_str(sh), pypto),
        hint.empty() ? "reshape it to [rows, d]" : "flatten the leading axes: " + hint);
    return -1;
  }
  if (rank == 4 && !(sh[2].as_const() && *sh[2].as_const() == 1)) {
    err(ve.off, ve.len, "scatter_update's rank-4 input '" + vn + "' must be [blockNum, blockSize, 1, d], got " +
                            shape_str(sh),
        "merge axes 1 and 2 into blockSize: reshape(" + vn + ", [" + sh[0].str() + ", " + simplify(sh[1] * sh[2]).str() +
            ", 1, " + sh[3].str() + "])");
    return -1;
  }
  if (!is_value_dtype(val.dtype)) {
    err(ve.off, ve.len, fmt::format("scatter_update's input '{}' is {}; PyPTO's scatter_update takes fp32, fp16, bf16 "
                                    "or int32 (and int16, which ptoc does not have)", vn, dtype_name(val.dtype)),
        "insert cast(" + vn + ", " + (val.dtype == DType::int8 || val.dtype == DType::uint8 ||
                                              val.dtype == DType::boolean ? "fp16" : "int32") +
            ") (and cast src the same way)");
    return -1;
  }
  for (size_t k = 0; k < rank; ++k)
    if (!va[k].same(sh[k])) {
      err(ve.off, ve.len, "scatter_update's input '" + vn + "' is a window: its valid shape " + shape_str(va) +
                              " is not its shape " + shape_str(sh) + ", and the scatter updates the whole tensor",
          "scatter into a whole value (fillpad(" + vn + ") defines the padding), or assemble the window into a GM "
          "tensor and update that in place");
      return -1;
    }
  for (const auto& d : sh) {
    std::vector<std::string> syms;
    d.collect_symbols(syms);
    for (const auto& sy : syms)
      if (!p_.find_dim(sy)) {
        err(ve.off, ve.len, "scatter_update's input '" + vn + "' has the shape " + shape_str(sh) + ", which uses '" +
                                sy + "'; the workspace its result lives in is sized once per run, from dims only",
            "scatter into a value whose extents are dims or constants (slice the result afterwards)");
        return -1;
      }
  }
  const std::string base = y + "_scatter";
  std::string tname = base;
  for (int k = 2; p_.find_tensor(tname) >= 0 || p_.find_dim(tname) || (names_ && names_->count(tname)); ++k)
    tname = base + "_" + std::to_string(k);  // not a tensor, a dim or a value bound so far
  scatter_workspaces_[tname] = y;
  TensorDecl d;
  d.name = tname;
  d.role = TensorRole::Workspace;
  d.dtype = val.dtype;
  d.shape = sh;
  d.loc = at(ve.off);
  p_.tensors.push_back(std::move(d));
  scatter_value_ = v.value;
  return int(p_.tensors.size()) - 1;
}

std::optional<std::pair<int, std::vector<DimExpr>>> Elaborator::input_element(int v, std::vector<DimExpr> c) const {
  for (int depth = 0; depth < 256 && v >= 0; ++depth) {
    const Value& val = p_.values[size_t(v)];
    if (val.def_op < 0) return std::nullopt;
    const Op& op = p_.ops[size_t(val.def_op)];
    if (op.kind == OpKind::TensorRef) return std::make_pair(op.tensor, std::move(c));
    if (op.kind == OpKind::View) {
      for (size_t k = 0; k < c.size() && k < op.offsets.size(); ++k) c[k] = c[k] + op.offsets[k];
    } else if (op.kind == OpKind::Reshape) {
      // Row-major: the element's linear position is the same in both shapes.
      const Value& src = p_.values[size_t(op.inputs[0])];
      DimExpr lin(0);
      for (size_t k = 0; k < c.size(); ++k) lin = lin * val.shape[k].substitute(static_dims_) + c[k];
      std::vector<DimExpr> sc(src.shape.size(), DimExpr(0));
      for (size_t k = src.shape.size(); k-- > 0;) {
        const DimExpr n = src.shape[k].substitute(static_dims_);
        sc[k] = k == 0 ? lin : mod(lin, n);
        lin = floordiv(lin, n);
      }
      c = std::move(sc);
    } else {
      return std::nullopt;
    }
    v = op.inputs[0];
  }
  return std::nullopt;
}

EV Elaborator::call_scatter_update(const Call& c) {
  const std::string usage = "cache = scatter_update(cache, -2, index, src): rows of src written at the slots in index";
  // Into a value (scatter_update_into_value): the result's name, taken so that a nested call is no such statement.
  const std::string into = scatter_value_target_;
  scatter_value_target_.clear();
  const bool into_value = !into.empty();
  if (scatter_target_ < 0 && !into_value) {
    err(c.fo, c.fl, "scatter_update updates a GM tensor in place and is a statement of its own",
        "write '" + usage.substr(0, usage.find(':')) + "' (in place), or 'y = scatter_update(v, -2, index, src)' "
        "(a new value y from a computed value v) as a statement and use y");
    return EV::poison();
  }
  const Expr* xe = c.args[0];
  if (into_value) {
    if (!xe) {
      err(c.fo, c.fl, "scatter_update takes four arguments", usage);
      return EV::poison();
    }
    scatter_target_ = scatter_value_input_(c, into);  // the workspace y_scatter
    if (scatter_target_ < 0) return EV::poison();
  }
  const int t = scatter_target_;
  const TensorDecl& td = p_.tensors[size_t(t)];
  // The input: a name that is the target's GM tensor (or a value, copied into the workspace t).
  const int xt = into_value ? t
                 : xe && xe->kind == Expr::Kind::Name && !xe->quoted && !(names_ && names_->count(xe->name))
                     ? inplace_target(p_.find_tensor(xe->name)) : -1;
  if (xt != t) {
    err(xe ? xe->off : c.fo, xe ? xe->len : c.fl,
        "scatter_update updates its input in place: the input must be '" + td.name + "' (the statement's target)" +
            (xe ? ", got '" + text_of(*xe) + "'" : ""),
        "write '" + td.name + " = scatter_update(" + td.name + ", -2, index, src)' (an output declared inplace: "
        "IN may name IN)" +
            (xe && xe->kind == Expr::Kind::Name && !xe->quoted && names_ && names_->count(xe->name)
                 ? "; to scatter into the value '" + xe->name + "', bind a new name ('u = scatter_update(" +
                       xe->name + ", -2, index, src)') and store it ('" + td.name + "[...] = u')"
                 : std::string()));
    return EV::poison();
  }
  Shape cache;
  for (const auto& d : td.shape) cache.push_back(simplify(d.substitute(static_dims_)));
  const size_t rank = cache.size();
  if (rank != 2 && rank != 4) {
    err(xe->off, xe->len, fmt::format("scatter_update's input '{}' has rank {}; PyPTO's is [blockNum * blockSize, d] "
                                      "or [blockNum, blockSize, 1, d]", td.name, rank));
    return EV::poison();
  }
  if (rank == 4 && !(cache[2].as_const() && *cache[2].as_const() == 1)) {
    err(xe->off, xe->len, "scatter_update's rank-4 input '" + td.name + "' must be [blockNum, blockSize, 1, d], got " +
                              shape_str(cache));
    return EV::poison();
  }
  // dim: PyPTO says keep -2.
  auto dim = c.args[1] ? const_int(*c.args[1], "scatter_update's dim") : std::optional<int64_t>(-2);
  if (!dim) return EV::poison();
  if (*dim != -2 && *dim != int64_t(rank) - 2) {
    err(c.args[1]->off, c.args[1]->len, "scatter_update's dim must be -2 (the slot axis), got " + std::to_string(*dim),
        "PyPTO: keep the default -2");
    return EV::poison();
  }
  // index: int32 [b, s], whole, a view of an int32 input.
  if (!c.args[2] || !c.args[3]) {
    err(c.fo, c.fl, "scatter_update takes four arguments", usage);
    return EV::poison();
  }
  const Expr& ie = *c.args[2];
  EV ix = expr(ie);
  if (!ix.ok()) return EV::poison();
  if (!ix.is_tensor()) {
    err(ie.off, ie.len, "scatter_update's index must be an int32 tensor, got '" + text_of(ie) + "'");
    return EV::poison();
  }
  const Value iv = p_.values[size_t(ix.value)];
  if ((iv.dtype != DType::int32 && iv.dtype != DType::int64) || iv.shape.size() != 2) {
    err(ie.off, ie.len, fmt::format("scatter_update's index must be an int32 [b, s] tensor, got {} {} (int64 is taken too)",
                                    dtype_name(iv.dtype), shape_str(iv.shape)),
        iv.dtype != DType::int32 && iv.dtype != DType::int64
            ? "declare the slots int32, or insert cast(" + text_of(ie) + ", int32) (the slots are then compared on the "
              "device)"
            : std::string("for one slot per token: view(slots, [t_tile, 1], [t_idx, 0])"));
    return EV::poison();
  }
  auto b = simplify(iv.shape[0]).as_const(), sn = simplify(iv.shape[1]).as_const();
  if (!b || !sn) {
    err(ie.off, ie.len, "scatter_update's index " + shape_str(iv.shape) + " needs a static shape (one assemble per slot)",
        "tile the token loop with loop_unroll gears, as PyPTO's lightning indexer does");
    return EV::poison();
  }
  for (size_t k = 0; k < 2; ++k)
    if (!simplify(iv.valid[k]).same(simplify(iv.shape[k]))) {
      err(ie.off, ie.len, "scatter_update's index must be whole (its valid shape " + shape_str(iv.valid) +
                              " is not its shape " + shape_str(iv.shape) + ")",
          "tile the token loop with loop_unroll gears so that every block is whole");
      return EV::poison();
    }
  if (*b * *sn > kMaxRows) {
    err(ie.off, ie.len, fmt::format("scatter_update writes {} rows in one statement; at most {}", *b * *sn, kMaxRows),
        "update the cache in blocks (a loop over the tokens)");
    return EV::poison();
  }
  auto src0 = input_element(ix.value, {DimExpr(0), DimExpr(0)});
  // A view of an input: the slots are run-time values read by the control flow (one assemble per row).
  // Anything else (computed by ops on the device): the rows are selected on the device (scatter_computed).
  const bool computed = !src0 || p_.tensors[size_t(src0->first)].role != TensorRole::Input ||
                        (p_.tensors[size_t(src0->first)].dtype != DType::int32 &&
                         p_.tensors[size_t(src0->first)].dtype != DType::int64);
  if (!computed && !check_not_inplace_values(src0->first, ie.off, ie.len)) return EV::poison();
  // src: the rows, dtype and row length of the cache, whole.
  const Expr& se = *c.args[3];
  EV sx = expr(se);
  if (!sx.ok()) return EV::poison();
  if (!sx.is_tensor()) {
    err(se.off, se.len, "scatter_update's src must be a tensor, got '" + text_of(se) + "'");
    return EV::poison();
  }
  if (!check_nz(sx, se, "scatter_update")) return EV::poison();
  const Value sv = p_.values[size_t(sx.value)];
  const DimExpr d = cache[rank - 1];
  Shape want = rank == 4 ? Shape{DimExpr(*b), DimExpr(*sn), DimExpr(1), d} : Shape{DimExpr(*b * *sn), d};
  bool same = sv.shape.size() == want.size();
  for (size_t k = 0; same && k < want.size(); ++k)
    same = simplify(sv.shape[k].substitute(static_dims_)).same(want[k]) &&
           simplify(sv.valid[k].substitute(static_dims_)).same(want[k]);
  if (!same) {
    err(se.off, se.len, fmt::format("scatter_update's src must be {} (index {}, input {}), got {}{}", shape_str(want),
                                    shape_str(iv.shape), shape_str(cache), shape_str(sv.shape),
                                    shape_str(sv.valid) != shape_str(sv.shape) ? " valid " + shape_str(sv.valid) : ""),
        fmt::format("src holds one row of d = {} per slot of the index ({} rows){}", d.str(), *b * *sn,
                    rank == 4 ? ", as [b, s, 1, d]" : ", as [b * s, d]"));
    return EV::poison();
  }
  if (sv.dtype != td.dtype) {
    err(se.off, se.len, fmt::format("scatter_update's src is {} but '{}' is {}", dtype_name(sv.dtype),
                                    into_value ? text_of(*xe) : td.name,
                                    dtype_name(td.dtype)),
        "insert cast(" + text_of(se) + ", " + std::string(dtype_name(td.dtype)) + ")");
    return EV::poison();
  }
  // PyPTO's TileShape: src's rank, the last axis d not split.
  const auto dc = d.as_const();
  if (!ts_->vec || ts_->vec->shape.size() != rank || (dc && ts_->vec->shape.back() < *dc)) {
    err(c.fo, c.fl,
        fmt::format("scatter_update needs a vec_tile of rank {} whose last entry holds the whole row ({}){}", rank,
                    d.str(), ts_->vec ? ", got " + shape_str(Shape(ts_->vec->shape.begin(), ts_->vec->shape.end())) : ""),
        rank == 4 ? "PyPTO: set_vec_tile_shapes(t_tile, 1, 1, head_dim)" : "PyPTO: set_vec_tile_shapes(tile_s, d)");
    return EV::poison();
  }
  if (!seq_) return EV::poison();
  if (computed) return scatter_update_computed(c, t, cache, ix, sx, *xe);
  if (into_value) {  // v copied into the workspace before the rows
    Op cp;
    cp.kind = OpKind::Assemble;
    cp.inputs = {scatter_value_};
    cp.tensor = t;
    cp.offsets.assign(rank, DimExpr(0));
    emit(cp, td.dtype, {}, {}, xe->off, xe->len);
    seq_->tensor_refs.erase(t);
  }
  Shape row_shape = rank == 4 ? Shape{DimExpr(1), DimExpr(1), DimExpr(1), d} : Shape{DimExpr(1), d};
  for (int64_t i = 0; i < *b; ++i)
    for (int64_t j = 0; j < *sn; ++j) {
      auto el = input_element(ix.value, {DimExpr(i), DimExpr(j)});
      std::vector<DimExpr> at_idx;
      for (const auto& x : el->second) at_idx.push_back(simplify(x));
      const DimExpr slot = load_symbol(el->first, std::move(at_idx), ie.off);
      Op row;
      row.kind = OpKind::View;
      row.inputs = {sx.value};
      row.shape = row_shape;
      row.offsets = rank == 4 ? Shape{DimExpr(i), DimExpr(j), DimExpr(0), DimExpr(0)}
                              : Shape{DimExpr(i * *sn + j), DimExpr(0)};
      const int rv = emit(row, sv.dtype, row_shape, row_shape, se.off, se.len);
      Op op;
      op.kind = OpKind::Assemble;
      op.inputs = {rv};
      op.tensor = t;
      op.offsets = rank == 4 ? Shape{floordiv(slot, cache[1]), mod(slot, cache[1]), DimExpr(0), DimExpr(0)}
                             : Shape{slot, DimExpr(0)};
      emit(op, sv.dtype, {}, {}, c.fo, c.fl);
    }
  written_.insert(t);
  if (seq_) seq_->tensor_refs.erase(t);  // later reads see the new rows
  scatter_done_ = true;
  return EV::poison();  // a statement: nothing is bound (into a value: scatter_update_into_value binds y)
}

}  // namespace ptoc::fe
