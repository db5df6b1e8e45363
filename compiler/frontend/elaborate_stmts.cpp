// Statements, tile state, loops and root-function templates
// (spec-language.md sections 4 and 5), and the declarations around them.
#include <algorithm>

#include "runtime/core/resource_limits.h"
#include "runtime/core/checked_int.h"
#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate.h"
#include "compiler/frontend/elaborate_structural_ops.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/suggest.h"
#include "runtime/core/platform.h"
#include "compiler/frontend/fp8_rules.h"

namespace ptoc::fe {

namespace {

constexpr int64_t kMaxStaticTrip = 4096;

// The first dynamic loop anywhere inside `stmts` (through if/scope/static loops).
const Stmt* find_dynamic_loop(const std::vector<Stmt>& stmts) {
  for (const auto& s : stmts) {
    if (s.kind == Stmt::Kind::Loop && !s.loop.is_static) return &s;
    if (const Stmt* x = find_dynamic_loop(s.body)) return x;
    if (const Stmt* x = find_dynamic_loop(s.else_body)) return x;
  }
  return nullptr;
}

std::vector<std::string> known_targets() {
  std::vector<std::string> v;
  for (const auto& p : all_platforms()) v.push_back(p.name);
  return v;
}

}  // namespace

void Elaborator::flush_run() {
  if (!seq_ || seq_->run.empty()) return;
  RootTemplate rt;
  rt.index = int(p_.roots.size());
  const Frame& f = seq_->frame;
  rt.name = f.root_prefix + (f.in_loop ? (seq_->runs == 0 ? "" : "_" + std::to_string(seq_->runs))
                                       : "_" + std::to_string(seq_->runs));
  rt.ops = seq_->run;
  rt.loop_vars = f.loop_vars;
  rt.factor = f.factor;
  LoopNode n;
  n.kind = LoopNode::Kind::Root;
  n.root = rt.index;
  n.loads = std::move(seq_->loads);
  seq_->loads.clear();
  seq_->nodes->push_back(std::move(n));
  p_.roots.push_back(std::move(rt));
  seq_->run.clear();
  seq_->tensor_refs.clear();
  ++seq_->runs;
}

void Elaborator::block(const std::vector<Stmt>& stmts) {
  rest_.push_back({&stmts, 0});
  for (size_t i = 0; i < stmts.size(); ++i) {
    if (r_.full()) break;
    rest_.back().second = i + 1;
    stmt(stmts[i]);
  }
  rest_.pop_back();
}

bool Elaborator::check_binding_name(const std::string& n, SrcLoc loc, int len, const std::string& what) {
  std::string clash;
  if (p_.find_dim(n)) clash = "a dim";
  else if (int t = p_.find_tensor(n); t >= 0) {
    // `x = cast(x, fp32)` may rebind an input's name (as in Python); outputs and
    // workspaces are assemble targets, so their names stay theirs.
    if (p_.tensors[size_t(t)].role == TensorRole::Input && what == "value") return true;
    clash = p_.tensors[size_t(t)].role == TensorRole::Input ? "an input tensor"
            : p_.tensors[size_t(t)].role == TensorRole::Output ? "an output tensor" : "a tensors: workspace";
    if (auto w = scatter_workspaces_.find(n); w != scatter_workspaces_.end()) {
      r_.error(loc, "cannot bind " + what + " '" + n + "': it names the GM workspace ptoc declared for '" + w->second +
                        " = scatter_update(...)' (the value scattered into is copied there)",
               "choose another name", len);
      return false;
    }
  }
  else if (broken_tensors_.count(n)) clash = "a tensor";
  else if (seq_ && seq_->frame.dyn_vars.count(n)) clash = "a loop variable";
  else if (seq_ && seq_->frame.factor_vars.count(n)) clash = "an unroll factor";
  else if (seq_ && (seq_->frame.consts.count(n) || seq_->frame.named_consts.count(n)))
    clash = seq_->frame.named_consts.count(n) ? "a compile-time constant" : "a loop variable";
  else if (seq_ && seq_->frame.scalars.count(n)) clash = "a run-time scalar";
  else if (seq_ && seq_->frame.dtype_consts.count(n)) clash = "a dtype";
  if (clash.empty()) return true;
  std::string hint = "choose another name";
  if (clash == "an output tensor" || clash == "a tensors: workspace")
    hint = "to store a value into it write '" + n + "[...] = VALUE'";
  r_.error(loc, "cannot bind " + what + " '" + n + "': it names " + clash, hint, len);
  return false;
}

void Elaborator::stmt(const Stmt& s) {
  // Dim arithmetic that leaves int64 anywhere below (simplification, shape
  // rules) is reported at the statement, never wrapped and never a crash.
  try {
    stmt_unguarded(s);
  } catch (const DimEvalError& e) {
    r_.error(s.loc, e.what(), "dims and the products of shapes must stay below 2^63");
  }
}

void Elaborator::stmt_unguarded(const Stmt& s) {
  cur_ = &s;
  pos_ = s.pos;
  text_ = &s.text;
  cur_loc_ = s.loc;
  switch (s.kind) {
    case Stmt::Kind::Assign:
      if (s.assign.subscript) assemble(s);
      else assign(s);
      break;
    case Stmt::Kind::VecTile: {
      std::optional<VecTile> v;
      if (!s.broken) v = s.vec_exprs.empty() && !s.vec_list.expr ? std::optional<VecTile>(s.vec) : vec_tile_of(s);
      ts_->vec = v;
      ts_->vec_broken = !v;
      break;
    }
    case Stmt::Kind::CubeTile: {
      std::optional<CubeTile> c;
      if (!s.broken)
        c = s.cube_exprs.empty() && s.cube_lists.empty() && !s.cube_split_k.expr ? std::optional<CubeTile>(s.cube) : cube_tile_of(s);
      ts_->cube = c;
      ts_->cube_broken = !c;
      break;
    }
    case Stmt::Kind::Label: ts_->label = s.label; break;
    case Stmt::Kind::Scope:
      if (!s.has_body) {
        ts_->scope = s.scope;
      } else {
        // A scope body restores the outer tile state when it ends; its names stay visible.
        TileState outer = *ts_;
        ts_->scope = s.scope;
        block(s.body);
        *ts_ = outer;
      }
      break;
    case Stmt::Kind::CachePolicy: {
      int t = inplace_target(p_.find_tensor(s.cache_tensor));
      if (t >= 0) {
        p_.tensors[size_t(t)].l2_bypass = s.bypass;
      } else if (!broken_tensors_.count(s.cache_tensor)) {
        std::vector<std::string> names;
        for (const auto& d : p_.tensors) names.push_back(d.name);
        std::string hint = did_you_mean(s.cache_tensor, names);
        if (names_ && names_->count(s.cache_tensor)) hint = "cache_policy applies to inputs, outputs and tensors: entries";
        r_.error(s.cache_tensor_loc, "cache_policy: unknown tensor '" + s.cache_tensor + "'", hint,
                 int(s.cache_tensor.size()));
      }
      break;
    }
    case Stmt::Kind::If: {
      // An `if` comparing a dynamic loop's variable with its first or last value is PyPTO's
      // `if j == 0:`: decided per path of the loop (elaborate_loop_paths.cpp), as `cond` is.
      if (s.cond && (s.runtime || runtime_condition(*s.cond) || loop_position_condition(*s.cond) ||
                     reads_run_values(*s.cond))) {  // reads_run_values: elaborate_symbolic_scalar.cpp
        runtime_if(s);
        break;
      }
      std::optional<bool> c;
      if (s.cond) c = condition(*s.cond);
      if (!c) {
        // The condition is broken (already reported): neither branch runs, and
        // the names either would bind are poisoned rather than unknown later.
        poison_bound_names(s.body);
        poison_bound_names(s.else_body);
        break;
      }
      // The chosen branch is spliced in place: names and tile state carry on after it.
      block(*c ? s.body : s.else_body);
      break;
    }
    case Stmt::Kind::Loop: loop(s); break;
    case Stmt::Kind::Knobs: config_knobs(s); break;  // elaborate_config_calls.cpp
  }
}

void Elaborator::poison_bound_names(const std::vector<Stmt>& stmts) {
  for (const auto& st : stmts) {
    if (st.kind == Stmt::Kind::Assign && !st.assign.subscript && !p_.find_dim(st.assign.target) &&
        (p_.find_tensor(st.assign.target) < 0 ||
         p_.tensors[size_t(p_.find_tensor(st.assign.target))].role == TensorRole::Input))
      (*names_)[st.assign.target] = Binding::poisoned();
    if (st.kind == Stmt::Kind::Assign && !st.assign.subscript)
      for (const auto& m : st.assign.more_targets)
        if (!p_.find_dim(m.text) && p_.find_tensor(m.text) < 0) (*names_)[m.text] = Binding::poisoned();
    // Scope bodies and if branches are spliced in place; loop bodies are local.
    if (st.kind == Stmt::Kind::Scope || st.kind == Stmt::Kind::If) {
      poison_bound_names(st.body);
      poison_bound_names(st.else_body);
    }
  }
}

void Elaborator::assign(const Stmt& s) {
  const AssignAst& a = s.assign;
  if (!a.value) {
    // The statement had a syntax error (already reported): the name is bound,
    // poisoned, so that its uses stay quiet.
    if (!p_.find_dim(a.target) && (p_.find_tensor(a.target) < 0 ||
                                   p_.tensors[size_t(p_.find_tensor(a.target))].role == TensorRole::Input))
      (*names_)[a.target] = Binding::poisoned();
    return;
  }
  if (a.target.empty()) {  // `atomic_add(...)`, `set_operation_options(...)`: call statements (elaborate_structural_ops.cpp)
    call_statement(*this, s);
    return;
  }
  if (surface_fold_stmt(s)) return;  // elaborate_python_operators.cpp
  if (local_tensor_decl(s)) return;
  if (tensor_shape_binding(s)) return;  // elaborate_tensor_shape.cpp
  if (dtype_binding(s)) return;         // elaborate_tensor_shape.cpp
  if (const_binding(s)) return;
  if (scalar_binding(s)) return;  // elaborate_symbolic_scalar.cpp
  if (scatter_update_stmt(s)) return;  // elaborate_scatter_update.cpp
  bool name_ok = check_binding_name(a.target, at(a.target_off), a.target_len, "value");
  if (!a.more_targets.empty()) {
    assign_two(s, name_ok);
    return;
  }
  EV v = expr(*a.value);
  Binding b;
  if (v.value2 >= 0) {
    err(a.value->off, a.value->len, "'" + text_of(*a.value) + "' has two results (values, indices)",
        "bind both: '" + a.target + ", " + a.target + "_idx = " + text_of(*a.value) + "'");
    v = EV::poison();
  }
  if (v.is_scalar()) {
    err(a.value->off, a.value->len, "'" + text_of(*a.value) + "' is a scalar; a statement binds a tensor value",
        "make a tensor with full([shape], value, dtype)");
    b.poison = true;
  } else if (!v.ok()) {
    b.poison = true;
  } else {
    b.value = v.value;
    b.nz = v.nz;
    Value& val = p_.values[size_t(v.value)];
    // Name fresh results after the spec name; an alias (`t = s`) keeps the first name.
    if (val.name.empty()) val.name = a.target;
  }
  if (name_ok) (*names_)[a.target] = b;
}

void Elaborator::assemble(const Stmt& s) {
  const AssignAst& a = s.assign;
  EV v = expr(*a.value);
  int t = inplace_target(p_.find_tensor(a.target));
  std::optional<Binding> local;
  if (auto it = names_->find(a.target); it != names_->end() && it->second.is_local_tensor()) {
    local = it->second;
    t = local->tensor;
  } else if (it != names_->end() && it->second.poison) {
    return;
  }
  if (t < 0) {
    if (broken_tensors_.count(a.target)) return;
    if (names_->count(a.target)) {
      err(a.target_off, a.target_len, "cannot assemble into '" + a.target + "': it is a value, not a GM tensor",
          "assemble targets are outputs and tensors: entries");
    } else {
      std::vector<std::string> names;
      for (const auto& d : p_.tensors)
        if (d.role != TensorRole::Input) names.push_back(d.name);
      std::string hint = did_you_mean(a.target, names);
      err(a.target_off, a.target_len, "unknown tensor '" + a.target + "'",
          hint.empty() ? "assemble targets are outputs and tensors: entries" : hint);
    }
    return;
  }
  const TensorDecl decl = p_.tensors[size_t(t)];
  if (decl.role == TensorRole::Input) {
    err(a.target_off, a.target_len, "cannot assemble into input '" + a.target + "'",
        "write into an output or a tensors: workspace");
    return;
  }
  if (!v.ok()) return;
  if (v.is_scalar()) {
    err(a.value->off, a.value->len, "cannot assemble the scalar '" + text_of(*a.value) + "' into '" + a.target + "'",
        "make a tensor with full([shape], value, dtype)");
    return;
  }
  if (!check_nz(v, *a.value, "assemble")) return;
  const Value val = p_.values[size_t(v.value)];
  if (val.dtype != decl.dtype) {
    err(a.eq_off, 1, "assembling a " + std::string(dtype_name(val.dtype)) + " value into " +
                         std::string(dtype_name(decl.dtype)) + " tensor '" + a.target + "'",
        "insert cast(" + text_of(*a.value) + ", " + std::string(dtype_name(decl.dtype)) + ")");
    return;
  }
  Shape tshape;
  for (const auto& d : (local ? local->shape : decl.shape)) tshape.push_back(d.substitute(static_dims_));
  SliceResult sr = slices(a.slices, tshape, tshape, "'" + a.target + "'", a.target_off + a.target_len);
  if (!sr.ok) return;
  size_t nidx = 0;
  for (bool b : sr.index) nidx += b ? 1 : 0;
  size_t want = tshape.size() - nidx;
  int value = v.value;
  Shape vshape = val.shape, vvalid = val.valid;
  if (nidx > 0 && vshape.size() == want) {
    // `y[i, :] = v`: v lacks the indexed axes; give it size-1 axes there.
    Shape sh, va;
    size_t k = 0;
    for (size_t i = 0; i < tshape.size(); ++i) {
      if (sr.index[i]) { sh.push_back(DimExpr(1)); va.push_back(DimExpr(1)); }
      else { sh.push_back(vshape[k]); va.push_back(vvalid[k]); ++k; }
    }
    value = reshape_to(value, sh, va, a.target_off);
    vshape = sh;
    vvalid = va;
  }
  if (vshape.size() != tshape.size()) {
    err(a.value->off, a.value->len, "a rank-" + std::to_string(val.shape.size()) + " value " + shape_str(val.shape) +
                                        " cannot be assembled into rank-" + std::to_string(tshape.size()) +
                                        " tensor '" + a.target + "'");
    return;
  }
  for (size_t i = 0; i < tshape.size(); ++i) {
    // Only the start offsets place the value (spec-language section 4); a stop that disagrees with the value's
    // extent does not change what is written, but it is probably a mistake: warn.
    bool open = sr.open_stop[i] && i < a.slices.size() && a.slices[i].kind == Slice::Kind::Range &&
                a.slices[i].start;
    bool fits = open || sr.index[i];
    if (!fits) {
      auto d = const_difference(sr.extents[i], vshape[i]);
      fits = d && *d == 0;
      if (d && *d != 0)
        r_.warning(at(a.target_off + a.target_len), "the target region of '" + a.target + "' has " +
                                                         sr.extents[i].str() + " on axis " + std::to_string(i) +
                                                         " but the value has " + vshape[i].str() +
                                                         "; the value's extent is what is written",
                   "write 'start:' (no stop) to place the value from an offset", 1);
    }
    if (!fits || open || sr.index[i]) {
      auto over = const_difference(sr.offsets[i] + vshape[i], tshape[i]);
      if (over && *over > 0) {
        err(a.value->off, a.value->len, "the value " + shape_str(vshape) + " written at offset " +
                                            sr.offsets[i].str() + " runs past axis " + std::to_string(i) +
                                            " of '" + a.target + "' (size " + tshape[i].str() + ")");
        return;
      }
    }
  }
  if (local) {
    local_assemble(*local, value, sr.offsets, a.target_off, a.target_len);
    return;
  }
  Op op;
  op.kind = OpKind::Assemble;
  op.inputs = {value};
  op.tensor = t;
  op.offsets = sr.offsets;
  emit(op, val.dtype, {}, {}, a.target_off, a.target_len);
  written_.insert(t);
  if (seq_) seq_->tensor_refs.erase(t);  // later reads see the new data
}

// Names a loop body bound (and its variable) stop at the loop's end; remember
// where, so that a use after the loop says why the name is gone.
void Elaborator::note_loop_locals(const Names& local, const Names& outer, const std::string& var, int line) {
  for (const auto& [n, b] : local)
    if (!outer.count(n)) loop_locals_[n] = line;
  loop_vars_ended_[var] = line;
}

void Elaborator::loop(const Stmt& s) {
  const LoopAst& l = s.loop;
  if (!check_binding_name(l.var, l.var_loc, int(l.var.size()), "loop variable")) return;
  if (names_->count(l.var)) {
    r_.error(l.var_loc, "loop variable '" + l.var + "' shadows a value of the same name", "choose another name",
             int(l.var.size()));
    return;
  }
  if (!l.factor.empty() && !check_binding_name(l.factor, l.factor_loc, int(l.factor.size()), "unroll factor")) return;
  const std::optional<std::vector<int64_t>> unroll_gears = unroll_of(l);  // `unroll: unroll_list` resolved
  if (!unroll_gears) return;
  const std::vector<int64_t>& unroll = *unroll_gears;
  std::optional<DimExpr> begin = DimExpr(0), end, step = DimExpr(1);
  std::vector<ScalarLoad> header_loads;  // run-time values in the bounds: read at loop entry
  LoadSink sink(*this, &header_loads);
  if (l.has_count) {
    end = dim_src(l.count, DimUse::Loop);
  } else {
    if (l.begin.expr) begin = dim_src(l.begin, DimUse::Loop);
    end = dim_src(l.end, DimUse::Loop);
    if (l.step.expr) step = dim_src(l.step, DimUse::Loop);
  }
  load_sink_ = sink.saved;  // the body's run-time values go to its roots
  if (!begin || !end || !step) return;
  DimExpr b = simplify(*begin), e = simplify(*end), st = simplify(*step);
  if (!st.as_const() || *st.as_const() <= 0) {
    r_.error(l.step.loc(), "loop step must be a positive constant, got '" + st.str() + "'");
    return;
  }
  int64_t step_v = *st.as_const();
  DimExpr trip = simplify(ceil_div(e - b, st));
  if (l.is_static) {
    auto n = trip.as_const();
    if (!n) {
      std::vector<std::string> syms;
      trip.collect_symbols(syms);
      std::string why = syms.empty() ? std::string() : "'" + syms[0] + "' is dynamic; ";
      r_.error(l.has_count ? l.count.loc() : l.end.loc(),
               "a static loop needs a static trip count, got '" + trip.str() + "'",
               why + "use kind: dynamic (the default) for loops over dynamic dims");
      return;
    }
    if (*n > kMaxStaticTrip) {
      r_.error(l.kind_loc.valid() ? l.kind_loc : s.loc, "a static loop of " + std::to_string(*n) +
                                                            " iterations; at most " + std::to_string(kMaxStaticTrip) +
                                                            " are unrolled",
               "use kind: dynamic");
      return;
    }
    if (!b.as_const()) {
      r_.error(l.has_count ? l.count.loc() : l.begin.loc(), "a static loop needs a static start, got '" + b.str() + "'");
      return;
    }
    // Python `for`: unrolled in place, each iteration with the variable bound.
    // Carried values are rebound SSA values: each iteration starts from the previous one's.
    std::vector<Carried> carried = carry_in(l, "");
    TileState outer = *ts_;
    Names* outer_names = names_;
    Frame saved = seq_->frame;
    // A nest of static loops unrolls the product of their trips: 1024 x 1024 x 64 bodies of one
    // statement run for minutes. The limit counts every body unrolled in the spec.
    const int64_t cap = limits::get(limits::Id::static_iterations);
    if (static_iterations_ > cap) return;  // already reported once
    if (static_iterations_ > cap - *n) {
      const int64_t before = static_iterations_;
      static_iterations_ = cap + 1;
      r_.error(l.kind_loc.valid() ? l.kind_loc : s.loc,
               "static loops unroll more than " + std::to_string(cap) + " loop bodies in all (this loop of " +
                   std::to_string(*n) + " iterations, " + std::to_string(before) +
                   " unrolled before it, nests multiplied)",
               "make an outer loop kind: dynamic, or " + limits::raise_hint(limits::Id::static_iterations));
      return;
    }
    static_iterations_ += *n;
    for (int64_t i = 0; i < *n && !r_.full(); ++i) {
      int64_t value = *b.as_const() + i * step_v;
      Names local = *outer_names;
      names_ = &local;
      seq_->frame.consts[l.var] = value;
      seq_->frame.name_suffix = saved.name_suffix + "_" + l.var + std::to_string(value);
      block(s.body);
      note_loop_locals(local, *outer_names, l.var, s.loc.line);
      for (const auto& c : carried) {
        Binding& now = local[c.name];
        if (now.poison || check_carried(c, now, s.loc.line)) (*outer_names)[c.name] = now;
        else (*outer_names)[c.name] = Binding::poisoned();
      }
    }
    seq_->frame = saved;
    names_ = outer_names;
    *ts_ = outer;
    return;
  }
  // Unroll only on the innermost loop of a nest.
  if (!unroll.empty()) {
    if (const Stmt* inner = find_dynamic_loop(s.body)) {
      r_.error(l.unroll_loc, "only the innermost loop may carry unroll; this loop contains the dynamic loop at line " +
                                 std::to_string(inner->loc.line),
               "move 'unroll' to the innermost loop", 6);
      return;
    }
  }
  std::string name = l.name;
  if (!name.empty()) {
    auto [it, fresh] = explicit_loop_names_.emplace(name, s.index);
    if (!fresh && it->second != s.index) {
      r_.error(l.name_loc, "duplicate loop name '" + name + "'", "loop names must be unique", int(name.size()));
      return;
    }
  } else {
    name = "loop_" + l.var;
  }
  name += seq_->frame.name_suffix;
  {
    std::string base = name;
    for (int k = 2; loop_names_.count(name); ++k) name = base + "_" + std::to_string(k);
    loop_names_.insert(name);
  }
  // Carried values start in the root function before the loop.
  std::vector<Carried> carried = carry_in(l, name);
  settle_zero_fills();
  flush_run();
  LoopNode node;
  node.kind = LoopNode::Kind::Loop;
  node.var = l.var;
  node.name = name;
  node.factor_var = l.factor;
  node.begin = b;
  node.end = e;
  node.step = st;
  node.loc = s.loc;
  node.loads = std::move(header_loads);
  std::vector<int64_t> gears = unroll;
  gears.push_back(1);
  std::sort(gears.rbegin(), gears.rend());
  gears.erase(std::unique(gears.begin(), gears.end()), gears.end());
  node.gears.resize(gears.size());
  Seq* outer_seq = seq_;
  Names* outer_names = names_;
  TileState* outer_ts_ptr = ts_;
  TileState outer_ts = *ts_;
  for (size_t g = 0; g < gears.size() && !r_.full(); ++g) {
    // Each gear is its own root-function template, elaborated with the factor bound.
    node.gears[g].factor = gears[g];
    Seq inner;
    inner.nodes = &node.gears[g].body;
    inner.frame = outer_seq->frame;
    inner.frame.in_loop = true;
    inner.frame.name_suffix.clear();
    inner.frame.dyn_vars.insert(l.var);
    inner.frame.loop_vars.push_back(l.var);
    inner.frame.factor = gears[g];
    inner.frame.enclosing.push_back({l.var, name, b, st, trip, e, gears[g]});
    // With static bounds, gear k starts at most at the (trip - k)-th iteration:
    // slices like x[i * 64:(i + k) * 64] then provably stay inside.
    if (auto tc = trip.as_const(); tc && b.as_const() && *tc >= 1) {
      int64_t last = std::max<int64_t>(0, *tc - gears[g]);
      inner.frame.var_ranges[l.var] = {*b.as_const(), *b.as_const() + last * step_v};
    }
    inner.frame.sym_ranges[l.var] = {b, simplify(b + (trip - DimExpr(gears[g])) * st)};
    if (!l.factor.empty()) {
      inner.frame.consts[l.factor] = gears[g];
      inner.frame.factor_vars.insert(l.factor);
    }
    inner.frame.root_prefix = name + (unroll.empty() ? "" : "_k" + std::to_string(gears[g]));
    Names local = *outer_names;
    TileState ts = outer_ts;
    seq_ = &inner;
    names_ = &local;
    ts_ = &ts;
    if (loop_paths(s, carried, *outer_names, ts)) {  // branches on is_loop_begin/end(var): one body per path
      flush_run();
    } else {
      loop_body(s, inner, carried, local, *outer_names, l.var);
    }
    seq_ = outer_seq;
    names_ = outer_names;
    ts_ = outer_ts_ptr;
  }
  // The loop body's tile state ends with the loop.
  *ts_ = outer_ts;
  seq_->nodes->push_back(std::move(node));
}

std::optional<Program> Elaborator::run(const std::string& target_override) {
  p_.name = ast_.name;
  p_.doc = ast_.doc;
  p_.options = ast_.options;
  p_.dims = ast_.dims;
  for (const auto& d : p_.dims)
    if (!d.dynamic) static_dims_[d.name] = d.value;
    else if (d.divisible_by > 1) divisible_[d.name] = d.divisible_by;

  // Target: the command line wins over the file.
  auto targets = known_targets();
  if (!target_override.empty()) {
    if (std::find(targets.begin(), targets.end(), target_override) == targets.end()) {
      std::string hint = did_you_mean(target_override, targets);
      std::string all;
      for (const auto& t : targets) all += (all.empty() ? "" : ", ") + t;
      r_.error_in("<command line>", "--target: unknown target '" + target_override + "'",
                  hint.empty() ? "targets: " + all : hint);
    }
    p_.target = target_override;
  } else if (!ast_.target.empty()) {
    if (std::find(targets.begin(), targets.end(), ast_.target) == targets.end()) {
      std::string hint = did_you_mean(ast_.target, targets);
      std::string all;
      for (const auto& t : targets) all += (all.empty() ? "" : ", ") + t;
      r_.error(ast_.target_loc, "unknown target '" + ast_.target + "'", hint.empty() ? "targets: " + all : hint,
               int(ast_.target.size()));
    }
    p_.target = ast_.target;
  }

  // Tensor declarations: unique names, shapes over dims.
  std::map<std::string, std::string> declared;  // name -> what
  for (const auto& d : p_.dims) declared[d.name] = "a dim";
  for (const auto& ta : ast_.tensors) {
    const bool broken = !ta.decl.name.empty() && ta.decl.name[0] == '!';
    const std::string name = broken ? ta.decl.name.substr(1) : ta.decl.name;
    const char* role = ta.decl.role == TensorRole::Input ? "an input" : ta.decl.role == TensorRole::Output
                                                                           ? "an output" : "a tensors: entry";
    if (declared.count(name)) {
      r_.error(ta.decl.loc, "'" + name + "' is declared twice (as " + declared[name] + " and as " + role + ")",
               "names of dims and tensors must be unique", int(name.size()));
      continue;
    }
    declared[name] = role;
    if (broken) {
      broken_tensors_.insert(name);
      continue;
    }
    TensorDecl d = ta.decl;
    bool ok = true;
    if (dtype_is_fp8(d.dtype) && !fp8_target_ok(p_.target)) {
      r_.error(ta.decl.loc, "tensor '" + name + "': " + fp8_target_message(d.dtype, p_.target),
               std::string(kFp8TargetHint), int(name.size()));
      ok = false;
    }
    int64_t bytes = dtype_size(d.dtype);  // of the static extents; checked so that no later pass wraps
    for (const auto& se : ta.shape_src) {
      auto x = dim_src(se, DimUse::DimsOnly);
      if (!x) { ok = false; continue; }
      DimExpr v;
      std::optional<int64_t> c;
      try {
        v = simplify(*x);
        c = simplify(v.substitute(static_dims_)).as_const();
        if (c && *c > 0) bytes = checked_mul(bytes, *c);
      } catch (const DimEvalError& e) {
        r_.error(se.loc(), "tensor '" + name + "': " + e.what(), "dims and the products of shapes must stay below 2^63");
        ok = false;
        continue;
      }
      if (c && *c <= 0) {
        r_.error(se.loc(), "tensor '" + name + "': extent " + v.str() + " = " + std::to_string(*c) + " is not positive");
        ok = false;
        continue;
      }
      d.shape.push_back(v);
    }
    if (d.format == Format::NZ) {
      if (d.role == TensorRole::Output) {
        r_.error(ta.decl.loc, "output '" + name + "' cannot use format NZ; NZ is only valid on cube operands",
                 "outputs are written as ND", int(name.size()));
        ok = false;
      } else if (d.shape.size() < 2) {
        r_.error(ta.decl.loc, "tensor '" + name + "' has format NZ but rank " + std::to_string(d.shape.size()),
                 "NZ is a matrix layout (rank 2 or 3)", int(name.size()));
        ok = false;
      }
    }
    if (!ok) {
      broken_tensors_.insert(name);
      continue;
    }
    p_.tensors.push_back(std::move(d));
  }
  // Program order: inputs, then outputs, then workspaces (stable within each).
  std::stable_sort(p_.tensors.begin(), p_.tensors.end(),
                   [](const TensorDecl& a, const TensorDecl& b) { return int(a.role) < int(b.role); });
  resolve_inplace();

  Names top;
  TileState ts;
  Seq seq;
  seq.nodes = &p_.body;
  names_ = &top;
  ts_ = &ts;
  seq_ = &seq;
  block(ast_.body);
  flush_run();
  cur_ = nullptr;
  pos_.reset();
  text_ = nullptr;

  // Only when everything else was clean: a broken statement may be the missing write.
  if (r_.errors() == 0) {
    for (size_t i = 0; i < p_.tensors.size(); ++i) {
      const TensorDecl& d = p_.tensors[i];
      if (d.role == TensorRole::Output && d.inplace.empty() && !written_.count(int(i)))
        r_.error(d.loc, "output '" + d.name + "' is never written",
                 "assemble a value into it: '" + d.name + "[...] = VALUE'", int(d.name.size()));
    }
  }
  // Option keys that name nothing are likely typos: warn.
  std::set<std::string> labels(ast_.labels_used.begin(), ast_.labels_used.end());
  for (const auto* ms : {&p_.options.cube_l1_reuse_setting, &p_.options.cube_nbuffer_setting,
                         &p_.options.vec_nbuffer_setting}) {
    for (const auto& e : ms->entries) {
      if (!e.loc.valid()) continue;
      if (e.key == MergeSetting::Entry::Key::Label && !labels.count(e.name)) {
        std::vector<std::string> lv(labels.begin(), labels.end());
        std::string hint = did_you_mean(e.name, lv);
        r_.warning(e.loc, "'" + e.name + "' is not a label set by any {label: ...} statement", hint,
                   int(e.name.size()));
      }
      if (e.key == MergeSetting::Entry::Key::Func && e.func_magic >= int64_t(p_.roots.size()))
        r_.warning(e.loc, "'" + e.name + "': there is no root function " + std::to_string(e.func_magic) + " (the spec has " +
                              std::to_string(p_.roots.size()) + ")",
                   "ptoc SPEC --emit ir lists the root functions", int(e.name.size()));
    }
  }
  if (r_.errors() > 0) return std::nullopt;
  return std::move(p_);
}

std::optional<Program> elaborate(const SpecAst& ast, const std::string& file, const std::string& target_override,
                                 Reporter& r) {
  Elaborator e(ast, file, r);
  return e.run(target_override);
}

}  // namespace ptoc::fe
