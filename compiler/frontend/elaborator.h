// Internal to the elaborator: its state and the split of its work over
// elaborate_stmts.cpp (statements, loops, roots), elaborate_exprs.cpp
// (expressions -> ops) and elaborate_dims.cpp (dim expressions).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/reporter.h"
#include "compiler/frontend/shape_rules.h"
#include "compiler/frontend/spec_ast.h"
#include "compiler/ir.h"
#include "compiler/op_table.h"

namespace ptoc::fe {

// What a name or expression evaluates to while elaborating.
struct EV {
  enum class K { Poison, Tensor, Scalar } k = K::Poison;
  int value = -1;        // Tensor: Program::values index
  double scalar = 0;     // Scalar
  bool is_int = false;   // Scalar: an integer literal or static dim
  bool nz = false;       // Tensor: read from an NZ-format tensor (matmul operands only)
  int value2 = -1;       // Tensor: the second result of a two-result call (topk's indices)
  int value3 = -1;       // Tensor: the third result of a three-result call (online_softmax's column_sum)
  static EV poison() { return {}; }
  static EV tensor(int v, bool nz = false) { EV e; e.k = K::Tensor; e.value = v; e.nz = nz; return e; }
  static EV number(double d, bool is_int) { EV e; e.k = K::Scalar; e.scalar = d; e.is_int = is_int; return e; }
  bool ok() const { return k != K::Poison; }
  bool is_tensor() const { return k == K::Tensor; }
  bool is_scalar() const { return k == K::Scalar; }
};

struct Binding {
  int value = -1;
  bool poison = false;
  bool nz = false;
  // A local tensor (`t = tensor([16, 64], fp32)`) or a carried value of a dynamic loop between
  // iterations: the name is a window [base, shape) on axis 0 of GM workspace `tensor`
  // (elaborate_state.cpp). value is then -1.
  int tensor = -1;
  DimExpr base;
  std::vector<DimExpr> shape;
  bool shared_window = false;  // the iterations of a loop with a run-time trip count share the window
  // A name first bound in both branches of a run-time `if` (elaborate_bound_in_both.cpp): the valid
  // extents of the branches' values, which a read of the window keeps (empty: the whole shape).
  std::vector<DimExpr> valid;
  bool is_local_tensor() const { return tensor >= 0; }
  static Binding poisoned() { Binding b; b.poison = true; return b; }
  static Binding of(int value, bool nz) { Binding b; b.value = value; b.nz = nz; return b; }
};
using Names = std::map<std::string, Binding>;

struct TileState {
  std::optional<VecTile> vec;
  std::optional<CubeTile> cube;
  bool vec_broken = false, cube_broken = false;  // the tile in force was reported invalid: no second error
  ScopeInfo scope;
  std::string label;
};

// Compile-time context of the loops around a statement.
struct Frame {
  DimExpr::Env consts;               // static loop vars and unroll factors -> value
  std::set<std::string> dyn_vars;    // dynamic loop vars in scope
  std::set<std::string> factor_vars; // unroll factor names in scope
  std::set<std::string> named_consts; // `tile_t = k`: compile-time constants bound by a statement (elaborate_const_binding.cpp)
  std::map<std::string, double> float_consts;               // `eps = 1e-6` (also in named_consts)
  std::map<std::string, std::vector<int64_t>> list_consts;  // `unroll_list = [1, 2, 4, 8]` (also in named_consts)
  // `tiles = [[1, 16384], [16, 512]]`: a list of integer lists, read as tiles[i] (a list) and tiles[i][j]
  std::map<std::string, std::vector<std::vector<int64_t>>> nested_consts;
  // PyPTO's SymbolicScalar variables (elaborate_symbolic_scalar.cpp): `bsz = x.shape[0]` of a dynamic
  // extent, `b_valid = min(bsz - i * b, b)`, `cur_s_q = seq[b + 1] - seq[b]`. Each is a dim expression and
  // the run-time values it reads (none when it is known when the bundle is built).
  struct Scalar {
    DimExpr value;
    std::vector<ScalarLoad> loads;
    bool extent = false;  // bound from x.shape: diagnostics call it a dynamic extent
  };
  std::map<std::string, Scalar> scalars;
  std::map<std::string, DType> dtype_consts;  // `dtype = x.dtype` (elaborate_tensor_shape.cpp): a dtype argument by name
  std::vector<std::string> loop_vars;  // enclosing dynamic loop vars, outermost first
  int64_t factor = 1;
  std::string root_prefix = "top";   // names this sequence's root templates
  std::string name_suffix;           // "_i0" inside static loop copies
  bool in_loop = false;
  Ranges var_ranges;                 // dynamic loop vars of loops with static bounds -> [first, last start]
  SymRanges sym_ranges;              // dynamic loop vars -> [begin, begin + (trip - k) * step]
  struct Enclosing {
    std::string var, name;
    DimExpr begin, step, trip, end;
    int64_t factor = 1;  // the gear's unroll factor
    bool branch = false; // a run-time branch's loop (0 or 1 iteration, its variable always 0)
    // A path of the loop's body (elaborate_loop_paths.cpp): is_loop_begin / is_loop_end of `var`
    // decided (0 or 1), or -1 when this body is not split on it.
    int begin_is = -1, end_is = -1;
  };
  std::vector<Enclosing> enclosing;  // enclosing dynamic loops, outermost first
  // Expressions known to be >= 0 in this path of a loop's body (elaborate_loop_paths.cpp), e.g.
  // end - v - k * step - 1 where is_loop_end(v) is false: they decide min / max in dim expressions.
  std::vector<DimExpr> facts;
};

// A sequence of LoopNodes being built (top level or one gear's body).
struct Seq {
  std::vector<LoopNode>* nodes = nullptr;
  std::vector<int> run;            // ops of the current run (the next root)
  int runs = 0;
  std::map<int, int> tensor_refs;  // tensor -> TensorRef value in the current run
  std::vector<ScalarLoad> loads;   // run-time values the current run reads (its root node's loads)
  Frame frame;
};

// Which dtype a mixed pair should meet at (the hint's cast target).
DType wider(DType a, DType b);

// Which names a dim expression may use.
enum class DimUse { DimsOnly, Loop, Static };


class Elaborator {
 public:
  Elaborator(const SpecAst& ast, const std::string& file, Reporter& r) : ast_(ast), r_(r) { p_.file = file; }
  std::optional<Program> run(const std::string& target_override);

  // --- dims (elaborate_dims.cpp)
  std::optional<DimExpr> dim(const Expr& e, DimUse use);
  std::optional<DimExpr> dim_src(const SrcExpr& e, DimUse use);
  std::optional<int64_t> const_int(const Expr& e, const std::string& what);
  std::optional<bool> condition(const Expr& e);
  // A {vec_tile: ...} whose entries may be dim expressions (`[t_tile, 64]`): each evaluated to a positive
  // constant, or reported (elaborate_vec_tile.cpp).
  std::optional<VecTile> vec_tile_of(const Stmt& s);

  // --- expressions (elaborate_exprs.cpp)
  EV expr(const Expr& e);
  EV surface_binary(const Expr& e);  // `**` and `@` (elaborate_python_operators.cpp)
  std::optional<EV> shape_entry_value(const Expr& e);  // `x.shape[i]` as a value (elaborate_python_operators.cpp)
  std::optional<DimExpr> dim_surface(const Expr& e, const std::optional<DimExpr>& a, const std::optional<DimExpr>& b);
  bool surface_fold_stmt(const Stmt& s);  // `n = 2 ** (bit - 1)`: a constant binding (elaborate_python_operators.cpp)
  EV name_ref(const Expr& e);
  EV tensor_ref(int tensor);
  // --- function calls (elaborate_calls.cpp): bind by the op table, then one function per form
  struct Call;
  EV call(const Expr& e);
  EV unknown_function(const Expr& e);
  EV call_binary(const Call& c);
  EV call_unary(const Call& c);
  EV call_reduce(const Call& c);
  EV call_select(const Call& c);
  EV call_cast(const Call& c);
  EV call_matmul(const Call& c);
  EV call_transpose(const Call& c);
  EV call_reshape(const Call& c);
  bool reshape_valid_shape(const Call& c, const Shape& shape, Shape& valid);  // reshape_valid_shape.cpp
  int narrow_valid(int value, const Shape& valid, int loc_off, int loc_len);  // reshape_valid_shape.cpp
  EV call_view(const Call& c);
  EV call_view_dtype(const Call& c);  // --- view(dtype=) --- a reinterpretation (elaborate_view_dtype.cpp)
  EV call_concat(const Call& c);
  EV call_full(const Call& c);
  EV call_clip(const Call& c);
  EV call_var(const Call& c);
  // --- casts with a rounding mode, quantisation (elaborate_quant.cpp)
  EV cast_with_modes(const Call& c, const EV& a, DType to);
  EV call_quant(const Call& c);
  EV call_quantize(const Call& c, bool dequant);
  EV call_scaled_mm(const Call& c);
  EV rounded_cast(const EV& a, DType to, int mode, bool saturate, const Expr& ea, int op_off, int op_len);
  EV fp8_cast(const EV& a, DType to, int mode, const Expr& ea, int op_off, int op_len);
  EV per_axis_operand(const Call& c, const Expr* e, const Value& x, int axis, const std::string& what);
  // --- PyPTO's composition ops (elaborate_catalog.cpp): written as existing ops
  EV call_composite(const Call& c);
  EV catalog_input(const Call& c);  // input 0, checked: a tensor, ND, a dtype the op accepts
  EV call_zeros_ones(const Expr& e, const OpSpec& spec);
  EV call_unsqueeze(const Call& c);
  EV call_expand_clone(const Call& c);
  EV call_permute(const Call& c);
  EV call_softmax(const Call& c);
  EV call_rms_norm(const Call& c);
  int reduce_keepdim(OpKind k, int value, int axis, int loc_off, int loc_len);
  // Index ops written as existing ops (elaborate_catalog.cpp): 0..n-1 along `axis` of a rank-`rank`
  // value with size 1 elsewhere, as log2(n) doublings concat([v, v + len]); n static.
  int iota(int axis, int64_t n, size_t rank, DType dt, const Expr& at, int loc_off, int loc_len);
  EV call_tril_triu(const Call& c);
  EV call_arange(const Call& c);
  EV call_one_hot(const Call& c);
  EV call_topk(const Call& c);
  EV call_argsort(const Call& c);
  EV call_scan(const Call& c);  // cumsum, cumprod
  // --- flash attention's online softmax (elaborate_online_softmax.cpp): three results each
  EV online_softmax_arg(const Call& c, size_t k);  // fp32, rank 2, ND
  EV call_online_softmax(const Call& c);
  EV call_online_softmax_update(const Call& c);
  // --- pad and fillpad (elaborate_pad.cpp)
  EV call_pad(const Call& c);
  EV call_fillpad(const Call& c);
  // --- gather, index_add, index_put_ by an int32 index tensor (elaborate_gather.cpp)
  EV call_gather(const Call& c);
  EV call_index_add(const Call& c);
  EV call_index_put(const Call& c);
  EV call_scatter(const Call& c);  // scatter, scatter_
  // scatter_update whose index is computed on the device (elaborate_scatter_update_computed.cpp)
  EV scatter_update_computed(const Call& c, int t, const Shape& cache, const EV& ix, const EV& src, const Expr& xe);
  EV scatter_body(const Call& c, size_t rank, size_t d, int av, int ixv, int svv, const EV& sv,
                  const std::optional<VecTile>& user, int64_t n, int64_t jn, int mode, const Value* back4);
  EV index_put_several(const Call& c, const EV& a, const Expr& il);  // [i0, i1, ...] (elaborate_index_put.cpp)
  EV index_arg(const Call& c, const Expr* x, const std::string& what);  // an int32 tensor
  // gather / scatter's first three arguments (input, dim, index), checked; nullopt after an error.
  struct IndexOpArgs {
    EV a, ix;
    Value x, iv;
    size_t rank = 0;
    int dim = 0;
  };
  std::optional<IndexOpArgs> input_dim_index_args(const Call& c);
  bool check_scatter(const Call& c, const Value& x, int d, const Value& iv, const Expr& ie, const Value& sv,
                     const Expr& se);
  EV scatter_into(const Call& c, int x, int d, int idx, int src, bool last_wins);
  std::optional<int> scatter_rows(const Call& c, int x, int idx, int src, bool last_wins, int* hit,
                                  const std::vector<int64_t>& tile);
  int swap_axes(int v, int i, int j, int loc_off, int loc_len);  // a transpose (none when i == j)
  int sum_drop(int v, int axis, int loc_off, int loc_len);       // sum with keepdim=false
  int select3(int cond, int a, int b, int loc_off, int loc_len);  // where, broadcast
  int const_like(double v, DType dt, size_t rank, int loc_off, int loc_len);  // full([1, ...], v)
  bool tuple_target_ = false;  // the statement binds two names: a two-result call may stand here
  EV tensor_arg(const Call& c, const Expr* x, const std::string& what);
  std::optional<bool> bool_arg(const Call& c, size_t k, bool dflt);
  std::optional<DType> dtype_arg(const Expr* x, DType dflt);
  // The vec_tile in force for `what`, an op that takes PyPTO's TileShape on its input's `rank` axes
  // (`note` names that rule in the messages; `rank_hint` is the fix for a tile of another rank), or
  // nullopt after a located error. `where` gets " (set at line N)" for the op's own messages.
  std::optional<std::vector<int64_t>> input_vec_tile(const Call& c, const std::string& what, size_t rank,
                                                     const std::string& note, const std::string& rank_hint,
                                                     std::string& where);
  // The Bitcast op of `value` to `dst` (the same bytes read as dst), under the vec_tile `tile` (the
  // input's with its last entry scaled by the size ratio); the new value, or -1 after an error.
  int emit_bitcast(int value, DType dst, Shape shape, Shape valid, const std::vector<int64_t>& tile, int loc_off,
                   int loc_len);
  // `e` is a multiple of `s`: a constant, or a dynamic dim declared divisible_by a multiple of s.
  bool multiple_of(const DimExpr& e, int64_t s) const;
  std::optional<int> axis_arg(const Expr* x, size_t rank, const std::string& what);
  std::optional<Shape> list_arg(const Expr* x, const std::string& what);
  // The op table's operand rule; reports at [op_off, op_off + op_len) and returns false when `t` breaks it.
  bool check_operand_dtype(const OpSpec& spec, DType t, const Expr& e, int op_off, int op_len,
                           const std::string& spelling);
  EV binary(OpKind k, const EV& a, const EV& b, const Expr& ea, const Expr& eb, int op_off, int op_len,
            const std::string& spelling);
  EV unary(OpKind k, const EV& a, const Expr& ea, int op_off, const std::string& spelling);
  EV subscript(const Expr& e);
  // Slicing: offsets/extents/valid of a view over `src` (dropped axes for integer indices).
  struct SliceResult {
    bool ok = true;
    Shape offsets, extents, valid;
    std::vector<bool> index;  // axis given as a single index
    std::vector<bool> open_stop;  // `a:` (no stop)
  };
  SliceResult slices(const std::vector<Slice>& sl, const Shape& shape, const Shape& valid, const std::string& what,
                     int err_off);
  int emit(Op op, DType dt, Shape shape, Shape valid, int loc_off, int loc_len = 1);
  int reshape_to(int value, const Shape& shape, const Shape& valid, int loc_off);
  bool check_nz(const EV& v, const Expr& e, const std::string& consumer);
  std::string text_of(const Expr& e) const;
  std::vector<std::string> visible_names() const;

  // --- statements (elaborate_stmts.cpp)
  void block(const std::vector<Stmt>& stmts);
  void stmt(const Stmt& s);
  void stmt_unguarded(const Stmt& s);
  void assign(const Stmt& s);
  void assign_two(const Stmt& s, bool first_name_ok);  // `v, i = topk(...)` (elaborate_catalog.cpp)
  void assemble(const Stmt& s);
  void loop(const Stmt& s);
  void config_knobs(const Stmt& s);  // set_pass_options(...) under an `if` (elaborate_config_calls.cpp)
  void flush_run();
  bool check_binding_name(const std::string& n, SrcLoc loc, int len, const std::string& what);
  void poison_bound_names(const std::vector<Stmt>& stmts);
  void note_loop_locals(const Names& local, const Names& outer, const std::string& var, int line);

  // --- local tensors and carried values (elaborate_state.cpp)
  EV expr_src(const SrcExpr& e);
  bool local_tensor_decl(const Stmt& s);  // `t = tensor(shape, dtype)`; false: not that form
  bool const_binding(const Stmt& s);      // `tile_t = k`: a compile-time constant; false: not that form
  // --- PyPTO's SymbolicScalar (elaborate_symbolic_scalar.cpp)
  bool scalar_binding(const Stmt& s);  // `n = seq[b + 1] - seq[b]`, `b_loop = (bsz + b - 1) // b`; false: not that form
  void bind_scalar(const std::string& name, Frame::Scalar value);
  void forget_binding(const std::string& name);  // a rebinding: drop the name's constant or scalar binding
  // A scalar binding's dim expression at a use (its reads registered there); nullopt when `e` is not one
  // (`found` false) or when reported.
  std::optional<DimExpr> scalar_use(const Expr& e, DimUse use, bool& found);
  // Whether a condition reads a run-time scalar or an element of an int32 input: PyPTO's `if` on a
  // SymbolicScalar, decided at run time as a `cond` is.
  bool reads_run_values(const Expr& e) const;
  // PyPTO's spellings (elaborate_pypto_spellings.cpp): float("-inf"), [x] * 4 in concat, assemble(v, offs, t).
  EV float_call(const Expr& e);
  const Expr* list_repeat(const Expr* l);  // nullptr when reported
  std::optional<EV> full_valid_shape(const Expr& e);  // full(..., valid_shape=): nullopt when not that form
  std::vector<ExprPtr> synthesized_;      // expressions list_repeat builds (they outlive the statement)
  // `l[i]` of a constant list (elaborate_const_binding.cpp): 1 with the entry in `out`, 0 when `e` is not an
  // entry of a constant list, -1 when it is one but reported (index out of range, a slice, not static).
  int const_list_item(const Expr& e, int64_t& out);
  std::optional<double> const_float_of(const Expr& e);  // float constants in if conditions
  // --- PyPTO's tensor attributes x.shape, x.dtype (elaborate_tensor_shape.cpp)
  bool tensor_shape_binding(const Stmt& s);  // `bt, l, d = v.shape`, `n = x.shape[0]`
  int attribute_owner(const Expr& base, const std::string& what, int* value, int* tensor);
  std::optional<Shape> shape_of_name(const Expr& base);  // `x.shape`: x's extents, static dims folded
  std::optional<Shape> shape_list_of(const Expr& e);     // nullopt when `e` is not `x.shape` or reported
  // `x.shape[i]` in a dim expression: 1 with the extent in `out`, 0 when not that form, -1 when reported.
  int shape_entry(const Expr& e, DimExpr& out);
  bool is_dtype_attribute(const Expr& e);              // `x.dtype`
  std::optional<DType> dtype_of_name(const Expr& e);   // x's dtype; nullopt when reported
  bool dtype_binding(const Stmt& s);                   // `dtype = x.dtype`; false: not that form
  std::optional<DimExpr> float_compare01(const Expr& e);  // (elaborate_cond.cpp)
  // `tiles[i]` of a nested constant list: its row, or null (not one, or reported).
  const std::vector<int64_t>* nested_row(const Expr& e);
  int64_t const_list_index(const Slice& sl, const Expr& whole, const std::string& n, int64_t size);
  // A float or list constant where an integer is needed: reported (true), else false.
  bool non_int_const(const Expr& e, const std::string& where);
  // The constant list named by `e` (a bare name), or nullptr.
  const std::vector<int64_t>* const_list(const std::string& name) const;
  // A loop's unroll gears: as written, or the constant list `unroll: NAME` names (nullopt: reported).
  std::optional<std::vector<int64_t>> unroll_of(const LoopAst& l);
  // {cube_tile: ...} with entries written as dim expressions (`m: [unroll_level, unroll_level]`): each
  // evaluated and the tile checked as a literal one is (elaborate_cube_tile.cpp).
  std::optional<CubeTile> cube_tile_of(const Stmt& s);
  // `owner` names the workspace after the loop that carries the value ("" for a local tensor: its root function).
  std::optional<Binding> new_local_tensor(const std::string& name, DType dt, const Shape& shape, SrcLoc loc, int len,
                                          const std::string& what, const std::string& owner = "");
  EV local_read(const Binding& b, int loc_off);
  void local_assemble(const Binding& b, int value, Shape offsets, int loc_off, int loc_len);
  // A local tensor whose window is shared by the iterations of a loop with a run-time trip count
  // starts each iteration zero-filled: the fill is emitted before its first use unless that use
  // writes the whole tensor (elaborate_local_fill.cpp).
  void defer_zero_fill(const Binding& b, SrcLoc loc, int len);
  void settle_zero_fill(const Binding& b, bool whole_write);
  void settle_zero_fills();  // before the current run ends: a nested loop or branch follows
  void drop_zero_fills();    // the current sequence ends: its unused tensors need no fill
  // On-chip placement of local tensors (elaborate_local_onchip.cpp): a local tensor whose writes
  // and reads all fall in one root function, with writes that tile it, is read as a concat of the
  // written values and its GM writes are dropped when the root ends.
  void track_local(const Binding& b);
  void note_local_write(const Binding& b, int value, const Shape& offsets, std::vector<int> op_ids, bool fill);
  std::optional<int> onchip_read(const Binding& b, int loc_off);
  void locals_need_gm();      // a nested loop or branch follows: it may read the tensors through GM
  void drop_onchip_writes();  // the current sequence ends: tensors read only on chip lose their GM writes
  struct Carried {
    std::string name;
    SrcLoc loc;
    DType dtype = DType::fp32;
    Shape shape;
    Binding ws;  // dynamic loops: the workspace window
    bool branch = false;  // a name a run-time branch rebinds (elaborate_cond.cpp), not a loop's carry
    // A name first bound in both branches of a run-time `if` (elaborate_bound_in_both.cpp): dtype, shape and
    // valid are the then-branch's value's (bound at then_line); ws is its window, or none (tensor -1) when
    // the name is not read after the if. The else-branch's value (else_line) must agree, else a read after
    // the if is an error (branch_mismatch_).
    bool first_in_then = false;
    Shape valid;
    int then_line = 0, else_line = 0;
  };
  std::vector<Carried> carry_in(const LoopAst& l, const std::string& loop_name);  // "": a static loop
  bool check_carried(const Carried& c, const Binding& now, int line);
  void carry_out(const std::vector<Carried>& cs, const Names& body_names, int line);

  // --- run-time conditions (elaborate_cond.cpp)
  bool runtime_condition(const Expr& e) const;  // uses is_loop_begin / is_loop_end: an `if` decided at run time
  std::optional<DimExpr> condition01(const Expr& e);  // 1 when true, 0 when false, per instance
  void runtime_if(const Stmt& s);
  // --- names first bound in both branches of a run-time `if` (elaborate_bound_in_both.cpp)
  // Names the two branches both bind that do not exist before the if (elaborate_cond.cpp passes them in).
  std::vector<std::string> first_bound_in_both(const std::vector<Stmt>& then_body, const std::vector<Stmt>& else_body) const;
  bool read_after(const std::string& n) const;  // the statements after the current one may read n
  // The end of the then-branch: each name's value recorded, and written to a new window if read after.
  std::vector<Carried> bound_in_then(const std::vector<std::string>& both, const Names& then_names, const Stmt& s);
  // The end of the else-branch: each value checked against the then-branch's and written to its window.
  void bound_in_else(std::vector<Carried>& cs, const Names& else_names, const Stmt& s);
  // After the if: the names whose branches agree are bound to their windows.
  void bind_bound_in_both(const std::vector<Carried>& cs, Names& outer);
  // check_carried of such a name: false (and the error its reads give recorded) when v, the else-branch's
  // value, differs from the then-branch's in dtype, shape or valid shape.
  bool check_bound_in_both(const Carried& c, const Value& v, int line);
  // A read of a name both branches bind but differently: name -> the error and its hint.
  std::map<std::string, std::pair<std::string, std::string>> branch_mismatch_;
  // The statement lists being elaborated and the index after the current statement (block()).
  std::vector<std::pair<const std::vector<Stmt>*, size_t>> rest_;
  // --- loop paths (elaborate_loop_paths.cpp)
  // A dynamic loop's gear body that branches on is_loop_begin / is_loop_end of the loop's own
  // variable is elaborated once per path (first / middle / last) with those conditions decided,
  // as PyPTO traces one path function per condition outcome; false: no such branch, nothing done.
  // A loop body elaborated into `inner` with `local` as its names: the carried values, the end of
  // the sequence's zero fills and run, the locals it declares.
  void loop_body(const Stmt& s, const Seq& inner, const std::vector<Carried>& carried, Names& local,
                 const Names& outer_names, const std::string& var);
  bool loop_paths(const Stmt& s, const std::vector<Carried>& carried, const Names& outer_names,
                  const TileState& gear_ts);
  // min(a, b) / max(a, b) of a dim expression, resolved to a or b when a fact of the path decides it.
  DimExpr path_minmax(bool is_min, const DimExpr& a, const DimExpr& b) const;
  // `a op b` decided 0 / 1 by the facts of the path this copy belongs to (nullopt: not decided).
  std::optional<int64_t> path_compare(const std::string& op, const DimExpr& a, const DimExpr& b) const;
  // A comparison of `en`'s variable with its first or last value (`j == 0`, `j == n - 1`, `j > 0`):
  // 1 first, 2 last, 3 the same in every instance, 0 neither (or not a plain dim expression).
  // Evaluated without diagnostics.
  int loop_position_compare(const Expr& cmp, const Frame::Enclosing& en);
  bool loop_position_condition(const Expr& e);  // some comparison in `e` is one, for an enclosing loop
  static DimExpr loop_begin01(const Frame::Enclosing& en);  // 1 in the instance that starts at begin
  static DimExpr loop_end01(const Frame::Enclosing& en);    // 1 in the instance that covers the last iteration

  const Ranges& ranges() const {
    static const Ranges empty;
    return seq_ ? seq_->frame.var_ranges : empty;
  }
  const SymRanges& sym_ranges() const {
    static const SymRanges empty;
    return seq_ ? seq_->frame.sym_ranges : empty;
  }

  // --- run-time values: elements of int32 inputs in dim expressions (elaborate_index.cpp)
  // `T[i, j]` in a dim expression: the symbol the control flow binds to that element at run time.
  std::optional<DimExpr> scalar_read(const Expr& e, DimUse use);
  // The symbol of element `index` of int32 input `t`, registered as a load of the current node.
  DimExpr load_symbol(int t, std::vector<DimExpr> index, int loc_off);
  EV call_index_select(const Expr& e);  // index_select(x, dim, idx): slices of GM tensor x by run-time values
  // While set, run-time values go to this list (a loop's or a branch's header) instead of the current run.
  std::vector<ScalarLoad>* load_sink_ = nullptr;
  std::map<std::string, std::string> load_syms_;  // "tensor[index text]" -> its symbol
  struct LoadSink {  // scoped redirection of the loads a header reads
    Elaborator& el;
    std::vector<ScalarLoad>* saved;
    LoadSink(Elaborator& e, std::vector<ScalarLoad>* to) : el(e), saved(e.load_sink_) { el.load_sink_ = to; }
    ~LoadSink() { el.load_sink_ = saved; }
  };

  // --- reporting
  SrcLoc at(int off) const { return pos_ ? pos_->at(off) : cur_loc_; }
  void err(int off, int len, const std::string& msg, const std::string& hint = {}) { r_.error(at(off), msg, hint, len); }

  const SpecAst& ast_;
  Reporter& r_;
  Program p_;
  DimExpr::Env static_dims_;
  std::map<std::string, int64_t> divisible_;  // dynamic dims with divisible_by > 1
  std::set<std::string> broken_tensors_;
  std::set<int> written_;         // tensors assembled into
  // --- in-place outputs (elaborate_inplace.cpp): input index -> the output that updates it in place
  std::map<int, int> inplace_of_;
  void resolve_inplace();
  int inplace_target(int tensor) const;  // the tensor a name's uses go to: the output for an aliased input
  bool check_not_inplace_values(int tensor, int off, int len);  // run-time values read from it: an error
  // --- scatter_update of a GM tensor in place (elaborate_scatter_update.cpp)
  bool scatter_update_stmt(const Stmt& s);  // `cache = scatter_update(cache, ...)`; false: not that form
  EV call_scatter_update(const Call& c);
  EV call_compose_math(const Call& c);  // clone isnan log10 lrelu hypot (elaborate_compose_math.cpp)
  // --- math ops --- (elaborate_math_ops.cpp)
  // PyPTO's dtype rules past the op table's operand rule (ceil_div int32, remainder no 8-bit, signbit no
  // uint8) and fmod/remainder's precision_type, on the elaborated operands (b null for a unary op).
  bool check_math_operands(const Call& c, const EV& a, const EV* b);
  // A precision_type argument, where the op's parameters have one: INTRINSIC or HIGH_PRECISION.
  bool check_precision_type(const Call& c);
  // Two scalar operands of a math binary op: the folded number (or poison); nullopt for other kinds.
  std::optional<EV> fold_math(OpKind k, const EV& a, const EV& b, int op_off, int op_len, const std::string& spelling);
  EV call_math_op(const Call& c);  // prelu axpy_ expand_exp_dif, written as ops ptoc has
  EV call_random(const Call& c);  // --- random ops --- uniform / normal (elaborate_random.cpp)
  EV call_pack_unpack(const Call& c);  // --- pack / unpack --- (elaborate_pack.cpp)
  // Element `c` of value v traced through views and reshapes to the GM tensor it reads: {tensor, index}.
  std::optional<std::pair<int, std::vector<DimExpr>>> input_element(int v, std::vector<DimExpr> c) const;
  int scatter_target_ = -1;  // while a scatter_update statement is elaborated: the tensor it updates
  // `y = scatter_update(v, -2, index, src)` with v a value (elaborate_scatter_update.cpp): v is copied into a GM
  // workspace named after y (`y_scatter`), the rows are written there, and y reads the workspace.
  bool scatter_update_into_value(const Stmt& s);
  int scatter_value_input_(const Call& c, const std::string& y);  // checks v, declares the workspace: its index, or -1 (reported)
  std::string scatter_value_target_;  // y while such a statement is elaborated, else empty
  int scatter_value_ = -1;            // v's value while such a statement is elaborated
  bool scatter_done_ = false;         // the scatter was emitted (no error)
  std::map<std::string, std::string> scatter_workspaces_;  // such a workspace's name -> the result it holds
  bool int64_lowering_ = false;  // ptoc's own ops on int64 (a saturating cast's clip): not the user's
  std::set<std::string> loop_names_;
  std::map<std::string, int> loop_locals_;      // value names bound in a finished loop body -> the loop's line
  std::map<std::string, int> loop_vars_ended_;  // variables of finished loops -> the loop's line
  struct PendingFill {
    Binding b;
    const Seq* seq = nullptr;
    SrcLoc loc;
    int len = 1;
  };
  std::map<int, PendingFill> zero_fills_;
  // The carried values of the dynamic loops being elaborated, with their gear body's sequence: a run-time
  // if in that sequence that rebinds one uses its window (elaborate_cond.cpp), so no copy follows the if.
  std::vector<std::pair<const Seq*, const std::vector<Carried>*>> loop_carries_;
  struct LocalPiece {
    int value = -1;
    std::vector<int64_t> lo, hi;
    bool fill = false;
  };
  struct LocalTrack {
    const Seq* seq = nullptr;
    std::vector<LocalPiece> pieces;
    std::vector<int> ops;     // the fill and assemble ops writing it, in the root's run
    bool opaque = false;      // a write with a run-time offset or extent, or a partial value
    bool gm_needed = false;   // read through GM, or possibly by a later root
    int cached = -1;          // the on-chip read since the last write
    size_t first_root = 0;    // p_.roots when it was declared
  };
  std::map<int, LocalTrack> local_tracks_;  // local tensor -> its writes in the root it was declared in
  std::optional<int> fill_full_op_;         // settle_zero_fill: the Full op of the fill being written  // local tensor -> its zero fill, not emitted yet
  std::map<std::string, int> branch_locals_;    // value names first bound in a run-time branch -> its line
  std::map<std::string, int> explicit_loop_names_;  // name -> statement index
  int64_t static_iterations_ = 0;  // static-loop bodies unrolled so far, nests multiplied (static_iterations limit)

  // Current position in the walk.
  const Stmt* cur_ = nullptr;
  PosMapPtr pos_;
  const std::string* text_ = nullptr;  // the string pos_ maps
  SrcLoc cur_loc_;
  Names* names_ = nullptr;
  TileState* ts_ = nullptr;
  Seq* seq_ = nullptr;
};

}  // namespace ptoc::fe
