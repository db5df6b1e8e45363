// The reference evaluator. Deliberately naive: every value is a dense
// row-major array of elements holding exactly what the device would store
// (each op's result is rounded to its dtype): floats as doubles, integers and
// bool as exact int64 (eval_elem.h), plus its valid extent per axis.
// Elements outside the valid extent are padding; they hold NaN so that a leak
// would show, and no op reads them: elementwise ops compute only the valid
// box, reductions and matmul's K sum only valid elements, and assemble writes
// only the valid box. It shares nothing with the tiling passes.
#include "compiler/eval/reference_eval.h"
#include "compiler/ops_random.h"  // --- random ops ---
#include "compiler/eval/eval_bitcast.h"  // --- pack / unpack ---
#include "compiler/eval/eval_sort.h"  // --- sort ---

#include "compiler/eval/eval_elem.h"
#include "compiler/eval/eval_tensor_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>

#include "runtime/program/bind_dims.h"

namespace ptoc {

namespace {

constexpr double kPad = std::numeric_limits<double>::quiet_NaN();

using eval::Elem;
using eval::from_double;
using eval::held_as_int;
using eval::to_double;
const Elem kPadElem = Elem::of_f(kPad);  // padding of every dtype (an integer padding holds NaN's bits)

using Shape = std::vector<int64_t>;
using Data = std::vector<Elem>;

struct Val {
  DType dtype = DType::fp32;
  Shape shape, valid;
  std::shared_ptr<const Data> data;
};

// A GM tensor (input, output or workspace). Values that reference it share
// its data; an assemble copies the data first when someone else holds it.
struct Gm {
  DType dtype = DType::fp32;
  Shape shape;
  std::shared_ptr<Data> data;
};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (auto v : s) n *= v;
  return n;
}

Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (int a = int(s.size()) - 2; a >= 0; --a) st[a] = st[a + 1] * s[a + 1];
  return st;
}

int64_t dot(const Shape& idx, const Shape& st) {
  int64_t o = 0;
  for (size_t a = 0; a < idx.size(); ++a) o += idx[a] * st[a];
  return o;
}

// Calls fn(idx) for every index of the box [0, ext) in row-major order.
template <class F>
void for_box(const Shape& ext, F&& fn) {
  for (auto e : ext)
    if (e <= 0) return;
  Shape idx(ext.size(), 0);
  for (;;) {
    fn(static_cast<const Shape&>(idx));
    int a = int(ext.size()) - 1;
    while (a >= 0 && ++idx[a] == ext[a]) {
      idx[a] = 0;
      --a;
    }
    if (a < 0) return;
  }
}

// Calls fn(outer, run) for every row of the box [0, ext): `outer` indexes all axes but the last, `run` is
// the last axis's extent (rank 0: one row of one element). Elementwise loops walk a row with the last
// axis's strides instead of a full index product per element.
template <class F>
void for_rows(const Shape& ext, F&& fn) {
  if (ext.empty()) {
    fn(Shape{}, int64_t(1));
    return;
  }
  const int64_t run = ext.back();
  if (run <= 0) return;
  for_box(Shape(ext.begin(), ext.end() - 1), [&](const Shape& outer) { fn(outer, run); });
}
// The last axis's stride (0 for rank 0, where a row has one element).
int64_t last_stride(const Shape& st) { return st.empty() ? 0 : st.back(); }

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

bool is_int(DType t) { return dtype_is_int(t); }

double unary(OpKind k, double x) { return is_unary(k) ? scalar_unary(k, x) : kPad; }

// Float operands (integers go through eval::int_binary). NaN propagates through maximum/minimum, as
// NumPy's maximum/minimum do.
double binary(OpKind k, double a, double b, DType t) {
  switch (k) {  // comparisons and logical ops: any dtype, a bool result; NaN compares unequal
    case OpKind::Eq: return a == b;
    case OpKind::Ne: return a != b;
    case OpKind::Lt: return a < b;
    case OpKind::Le: return a <= b;
    case OpKind::Gt: return a > b;
    case OpKind::Ge: return a >= b;
    case OpKind::LogicalAnd: return a != 0 && b != 0;
    case OpKind::LogicalOr: return a != 0 || b != 0;
    default: break;
  }
  if (is_int(t) || t == DType::boolean) return kPad;
  switch (k) {
    case OpKind::Add: return a + b;
    case OpKind::Sub: return a - b;
    case OpKind::Mul: return a * b;
    case OpKind::Div: return a / b;
    case OpKind::Maximum: return std::isnan(a) || std::isnan(b) ? kPad : std::max(a, b);
    case OpKind::Minimum: return std::isnan(a) || std::isnan(b) ? kPad : std::min(a, b);
    case OpKind::Pow: return std::pow(a, b);
    default: return kPad;
  }
}

// An exact integer result stored into `rt` (wrapped; a float result type rounds it).
Elem int_result(int64_t v, DType rt) { return held_as_int(rt) ? Elem::of_i(eval::wrap_int(v, rt)) : from_double(double(v), rt); }

// One element of a binary op on operands of dtype `t`, stored as `rt`. Integers: exact int64 arithmetic,
// then the wrap to the type; the math ops' kinds through their shared scalar meaning.
Elem binary_elem(OpKind k, Elem x, Elem y, DType t, DType rt) {
  if (held_as_int(t)) {
    if (auto r = eval::int_binary(k, x.i(), y.i(), t == DType::uint64); r.ok) return int_result(r.v, rt);
    if (auto m = scalar_binary_math(k, to_double(x, t), to_double(y, t), true)) return from_double(*m, rt);  // --- math ops ---
    return from_double(kPad, rt);  // no integer meaning (the front end refuses it): 0, as round_to_dtype(NaN)
  }
  if (auto m = scalar_binary_math(k, x.f(), y.f(), false)) return from_double(*m, rt);  // --- math ops ---
  return from_double(binary(k, x.f(), y.f(), t), rt);
}

Elem unary_elem(OpKind k, Elem x, DType t, DType rt) {
  if (held_as_int(t)) {
    if (auto r = eval::int_unary(k, x.i(), t == DType::uint64); r.ok) return int_result(r.v, rt);
    return from_double(unary(k, to_double(x, t)), rt);
  }
  return from_double(unary(k, x.f()), rt);
}

bool truthy(Elem e, DType t) { return held_as_int(t) ? e.i() != 0 : e.f() != 0; }

// C[m0:m1, :] += A[m0:m1, :] x B for dense row-major A [*, K], B [K, N], C [*, N].
// Blocked for the caches; each C element still accumulates k = 0, 1, ..., K-1
// in order, one rounding per addition (this file is built with
// -ffp-contract=off, so no fused multiply-add changes the fp32 result).
template <class T>
inline void matmul_rows(const T* __restrict A, const T* __restrict B, T* __restrict C, int64_t m0, int64_t m1, int64_t K, int64_t N) {
  constexpr int64_t kMB = 64, kNB = 256, kKB = 256;
  for (int64_t mb = m0; mb < m1; mb += kMB)
    for (int64_t nb = 0; nb < N; nb += kNB) {
      const int64_t me = std::min(m1, mb + kMB), ne = std::min(N, nb + kNB);
      for (int64_t kb = 0; kb < K; kb += kKB) {
        const int64_t ke = std::min(K, kb + kKB);
        for (int64_t m = mb; m < me; ++m) {
          T* __restrict c = C + m * N;
          for (int64_t k = kb; k < ke; ++k) {
            const T a = A[m * K + k];
            const T* __restrict b = B + k * N;
            for (int64_t n = nb; n < ne; ++n) c[n] += a * b[n];
          }
        }
      }
    }
}
__attribute__((target_clones("avx2", "default"))) void matmul_rows_f32(const float* A, const float* B, float* C,
                                                                        int64_t m0, int64_t m1, int64_t K,
                                                                        int64_t N) {
  matmul_rows(A, B, C, m0, m1, K, N);
}
void matmul_rows_i64(const int64_t* A, const int64_t* B, int64_t* C, int64_t m0, int64_t m1, int64_t K, int64_t N) {
  matmul_rows(A, B, C, m0, m1, K, N);
}
// The integer product in 32 bits (8 lanes per AVX2 multiply instead of a scalar int64 one), for operands
// whose every partial sum fits (narrow_int_matmul).
__attribute__((target_clones("avx2", "default"))) void matmul_rows_i32(const int32_t* A, const int32_t* B, int32_t* C,
                                                                        int64_t m0, int64_t m1, int64_t K,
                                                                        int64_t N) {
  matmul_rows(A, B, C, m0, m1, K, N);
}
// Integer sums are exact in any width they do not overflow: with |a| <= max_a and |b| <= max_b, every
// partial sum of K products lies within K * max_a * max_b, so when that fits int32 the 32-bit product
// gives the int64 one's bits (an int8 matmul: K up to 131072).
bool narrow_int_matmul(int64_t K, uint64_t max_a, uint64_t max_b) {
  constexpr uint64_t kMax = uint64_t(std::numeric_limits<int32_t>::max());
  if (max_a == 0 || max_b == 0) return true;
  return max_a <= kMax / max_b && uint64_t(K) <= kMax / (max_a * max_b);
}

class Evaluator {
 public:
  Evaluator(const Program& p, const DimExpr::Env& dims, const EvalOptions& o)
      : p_(p), opts_(o), env_(dims), vals_(p.values.size()) {}

  std::map<std::string, TensorData> run(const std::map<std::string, TensorData>& inputs) {
    load_tensors(inputs);
    plan_frees();
    collect_runtime_syms(p_.body);
    run_nodes(p_.body);
    std::map<std::string, TensorData> out;
    for (size_t i = 0; i < p_.tensors.size(); ++i) {
      const auto& t = p_.tensors[i];
      if (t.role != TensorRole::Output) continue;
      const Gm& g = gm_[i];
      TensorData d = TensorData::zeros(t.dtype, g.shape);
      if (held_as_int(g.dtype))
        for (int64_t j = 0; j < int64_t(g.data->size()); ++j) eval::set_int(d, j, (*g.data)[size_t(j)].i());
      else
        for (int64_t j = 0; j < int64_t(g.data->size()); ++j) d.set(j, (*g.data)[size_t(j)].f());
      out.emplace(t.name, std::move(d));
    }
    return out;
  }

 private:
  const Program& p_;
  EvalOptions opts_;
  DimExpr::Env env_;
  std::map<std::string, std::string> runtime_syms_;  // symbol of each run-time value -> its text (LoopNode::loads)
  std::vector<std::optional<Val>> vals_;
  std::vector<Gm> gm_;
  std::vector<std::vector<std::vector<int>>> free_after_;  // [root][op position] -> values to drop
  std::vector<std::pair<std::string, int64_t>> loop_stack_;  // for messages
  const Op* cur_ = nullptr;   // the op being run, for messages
  SrcLoc loop_loc_;          // the loop being entered, for messages

  // --- errors -------------------------------------------------------------

  [[noreturn]] void fail(const std::string& msg) const {
    std::string where;
    if (cur_) {
      if (cur_->loc.valid())
        where = fmt::format("{}:{}:{}: ", p_.file, cur_->loc.line, cur_->loc.col);
      where += fmt::format("{}: ", op_kind_name(cur_->kind));
    } else if (loop_loc_.valid()) {
      where = fmt::format("{}:{}:{}: ", p_.file, loop_loc_.line, loop_loc_.col);
    }
    std::string iter;
    for (const auto& [v, x] : loop_stack_) iter += fmt::format("{}{}={}", iter.empty() ? "" : ", ", v, x);
    throw EvalError(where + msg + (iter.empty() ? "" : " (at " + iter + ")"));
  }

  int64_t ev(const DimExpr& e) const {
    try {
      return e.eval(env_);
    } catch (const std::exception& x) {
      fail(fmt::format("cannot evaluate '{}': {}", e.str(), x.what()));
    }
  }
  Shape ev(const std::vector<DimExpr>& es) const {
    Shape s;
    for (const auto& e : es) s.push_back(ev(e));
    return s;
  }

  // --- tensors ------------------------------------------------------------

  void load_tensors(const std::map<std::string, TensorData>& inputs) {
    for (const auto& t : p_.tensors) {
      Gm g;
      g.dtype = t.dtype;
      g.shape = concrete_shape(t, env_);
      g.data = std::make_shared<Data>(size_t(numel(g.shape)), Elem{});  // outputs and workspaces start zeroed
      if (t.role == TensorRole::Input) {
        auto it = inputs.find(t.name);
        if (it == inputs.end()) throw EvalError(fmt::format("input {} was not given", t.name));
        const TensorData& d = it->second;
        if (d.dtype != t.dtype)
          throw EvalError(fmt::format("input {} is {} but the tensor is declared {}", t.name, dtype_name(d.dtype),
                                      dtype_name(t.dtype)));
        if (d.shape != g.shape)
          throw EvalError(fmt::format("input {} has shape {} but the tensor is {} under the dim binding", t.name,
                                      shape_str(d.shape), shape_str(g.shape)));
        eval::to_elems(d, g.data->data());
      }
      // An in-place output starts as its input (the same buffer; the body's uses of the input were sent
      // to the output by the front end).
      if (!t.inplace.empty()) {
        const int in = p_.find_tensor(t.inplace);
        if (in >= 0 && size_t(in) < gm_.size()) *g.data = *gm_[size_t(in)].data;
      }
      gm_.push_back(std::move(g));
    }
  }

  // --- control flow -------------------------------------------------------

  // Memory: a value whose every use lies in the root template that defines it
  // is dropped after its last use there (the bulk: temporaries of loop bodies).
  // Values used by other roots are simply kept.
  void plan_frees() {
    const int kNone = -1, kMany = -2;
    std::vector<int> def_root(p_.ops.size(), kNone);
    for (const auto& r : p_.roots)
      for (int id : r.ops) def_root.at(size_t(id)) = def_root[size_t(id)] == kNone ? r.index : kMany;
    std::vector<int> use_root(p_.values.size(), kNone), last_pos(p_.values.size(), -1);
    for (const auto& r : p_.roots)
      for (size_t pos = 0; pos < r.ops.size(); ++pos)
        for (int v : p_.ops[size_t(r.ops[pos])].inputs) {
          int& u = use_root.at(size_t(v));
          u = (u == kNone || u == r.index) ? r.index : kMany;
          last_pos[size_t(v)] = int(pos);
        }
    free_after_.assign(p_.roots.size(), {});
    for (const auto& r : p_.roots) free_after_[size_t(r.index)].resize(r.ops.size());
    for (size_t v = 0; v < p_.values.size(); ++v) {
      int def = p_.values[v].def_op;
      if (def < 0 || def_root[size_t(def)] < 0) continue;
      int root = def_root[size_t(def)];
      if (use_root[v] == kNone) {
        // Never used: drop right after it is computed.
        const auto& ops = p_.roots[size_t(root)].ops;
        auto it = std::find(ops.begin(), ops.end(), def);
        free_after_[size_t(root)][size_t(it - ops.begin())].push_back(int(v));
      } else if (use_root[v] == root) {
        free_after_[size_t(root)][size_t(last_pos[v])].push_back(int(v));
      }
    }
  }

  // Run-time values of a node: elements of int32 inputs bound to their symbols, index checked.
  void bind_loads(const LoopNode& n) {
    for (const ScalarLoad& l : n.loads) {
      if (l.tensor < 0 || size_t(l.tensor) >= gm_.size() || l.index.size() != gm_[size_t(l.tensor)].shape.size())
        throw EvalError(fmt::format("run-time value {}: malformed load", l.text));
      const Gm& g = gm_[size_t(l.tensor)];
      int64_t flat = 0;
      for (size_t ax = 0; ax < l.index.size(); ++ax) {
        int64_t i = ev(l.index[ax]);
        if (i < 0 || i >= g.shape[ax]) {
          cur_ = nullptr;
          std::string iter;
          for (const auto& [v, x] : loop_stack_) iter += fmt::format("{}{}={}", iter.empty() ? "" : ", ", v, x);
          throw EvalError(fmt::format("{}:{}:{}: run-time value {}: index {} on axis {} of tensor '{}' is outside "
                                      "its bound {}{}",
                                      p_.file, l.loc.line, l.loc.col, l.text, i, ax, p_.tensors[size_t(l.tensor)].name,
                                      g.shape[ax], iter.empty() ? "" : " (at " + iter + ")"));
        }
        flat = flat * g.shape[ax] + i;
      }
      const Elem e = (*g.data)[size_t(flat)];
      env_[l.sym] = held_as_int(g.dtype) ? e.i() : int64_t(e.f());
    }
  }

  void run_nodes(const std::vector<LoopNode>& nodes) {
    for (const auto& n : nodes) {
      bind_loads(n);
      if (n.kind == LoopNode::Kind::Root) {
        const auto& ops = p_.roots.at(size_t(n.root)).ops;
        for (size_t pos = 0; pos < ops.size(); ++pos) {
          run_op(p_.ops.at(size_t(ops[pos])));
          for (int v : free_after_[size_t(n.root)][pos]) vals_[size_t(v)].reset();
        }
      } else {
        run_loop(n);
      }
    }
  }

  // A dynamic loop: trip count ceil_div(end - begin, step), covered greedily
  // by the largest gear that fits what remains; each gear body covers
  // `factor` iterations starting at var = begin + i * step.
  void run_loop(const LoopNode& n) {
    cur_ = nullptr;
    const SrcLoc outer_loc = loop_loc_;
    loop_loc_ = n.loc;
    int64_t begin = ev(n.begin), end = ev(n.end), step = ev(n.step);
    if (step == 0) fail(fmt::format("loop {} has step 0", n.var));
    int64_t trips = std::max<int64_t>(0, -floor_div_i64(-(end - begin), step));
    DimExpr::Env saved = env_;
    int64_t i = 0;
    while (i < trips) {
      const Gear* g = nullptr;
      for (const auto& gear : n.gears)
        if (gear.factor >= 1 && gear.factor <= trips - i && (!g || gear.factor > g->factor)) g = &gear;
      if (!g) {
        cur_ = nullptr;
        loop_loc_ = n.loc;
        fail(fmt::format("loop {} has no unroll gear covering the remaining {} iterations", n.var, trips - i));
      }
      env_[n.var] = begin + i * step;
      if (!n.factor_var.empty()) env_[n.factor_var] = g->factor;
      loop_stack_.emplace_back(n.var, begin + i * step);
      run_nodes(g->body);
      loop_stack_.pop_back();
      i += g->factor;
    }
    env_ = saved;
    loop_loc_ = outer_loc;
  }

  // --- ops ----------------------------------------------------------------

  const Val& in(const Op& op, size_t k) {
    int id = op.inputs.at(k);
    auto& v = vals_.at(size_t(id));
    if (!v) {
      // A reference to a whole GM tensor may be defined outside every root
      // function (the front end shares it); read the tensor as it is now.
      int def = p_.values.at(size_t(id)).def_op;
      if (def >= 0 && p_.ops.at(size_t(def)).kind == OpKind::TensorRef) {
        v = tensor_ref(p_.ops[size_t(def)].tensor);
      } else {
        fail(fmt::format("internal: value %{} is used before it is computed", id));
      }
    }
    return *v;
  }

  Val tensor_ref(int t) {
    const Gm& g = gm_.at(size_t(t));
    Val v;
    v.dtype = g.dtype;
    v.shape = v.valid = g.shape;
    v.data = g.data;
    return v;
  }

  static Val make(DType t, Shape shape, Shape valid) {
    Val v;
    v.dtype = t;
    v.shape = std::move(shape);
    v.valid = std::move(valid);
    v.data = std::make_shared<Data>(size_t(numel(v.shape)), kPadElem);
    return v;
  }
  static Data& mut(Val& v) { return const_cast<Data&>(*v.data); }  // only on freshly made values

  void run_op(const Op& op) {
    cur_ = &op;
    if (op.kind == OpKind::Assemble) {
      assemble(op);
      return;
    }
    Val r = compute(op);
    // Cross-check against the front end's symbolic shape: a disagreement is a bug on one side.
    const Value& decl = p_.values.at(size_t(op.output));
    Shape want = ev(decl.shape);
    if (want != r.shape)
      fail(fmt::format("internal: result shape {} differs from the declared {}", shape_str(r.shape),
                       shape_str(want)));
    if (decl.dtype != r.dtype)
      fail(fmt::format("internal: result dtype {} differs from the declared {}", dtype_name(r.dtype),
                       dtype_name(decl.dtype)));
    if (opts_.check_valid && decl.valid.size() == r.shape.size()) {
      Shape fe = ev(decl.valid);
      for (size_t k = 0; k < fe.size(); ++k) fe[k] = std::clamp<int64_t>(fe[k], 0, r.shape[k]);
      if (fe != r.valid)
        fail(fmt::format("valid shape {} computed here differs from the front end's {} = {} (value shape {})",
                         shape_str(r.valid), [&] {
                           std::string t = "[";
                           for (size_t k = 0; k < decl.valid.size(); ++k) t += (k ? ", " : "") + decl.valid[k].str();
                           return t + "]";
                         }(), shape_str(fe), shape_str(r.shape)));
    }
    vals_[size_t(op.output)] = std::move(r);
    cur_ = nullptr;
  }

  Val compute(const Op& op) {
    if (op.kind == OpKind::TensorRef) return tensor_ref(op.tensor);
    if (op.kind == OpKind::Full) return full(op);
    if (is_binary(op.kind)) return binary_op(op);
    if (is_unary(op.kind)) return unary_op(op);
    if (is_reduction(op.kind)) return reduce(op);
    if (op.kind == OpKind::Where) return where(op);
    if (is_random_op(op.kind)) return random_op(op);  // --- random ops ---
    if (op.kind == OpKind::Bitcast) return bitcast(op);  // --- pack / unpack ---
    if (op.kind == OpKind::SortValues || op.kind == OpKind::SortIndices) return sort(op);  // --- sort ---
    switch (op.kind) {
      case OpKind::Cast: return cast(op);
      case OpKind::Matmul: return matmul(op);
      case OpKind::Transpose: return transpose(op);
      case OpKind::Reshape: return reshape(op);
      case OpKind::View: return view(op);
      case OpKind::Concat: return concat(op);
      default: break;
    }
    fail("internal: unknown op");
  }

  Val full(const Op& op) {
    Shape s = ev(op.shape);
    Val r = make(op.dtype, s, s);
    std::fill(mut(r).begin(), mut(r).end(), from_double(op.fill, op.dtype));
    return r;
  }

  // Elementwise over the valid box of the broadcast result.
  Val binary_op(const Op& op) {
    if (op.scalar) {
      const Val& a = in(op, 0);
      const Elem s = from_double(*op.scalar, a.dtype);  // a literal takes the tensor's dtype
      const DType rt = result_dtype(op);
      Val r = make(rt, a.shape, a.valid);
      Shape st = strides_of(a.shape);
      Data& d = mut(r);
      const int64_t sl = last_stride(st);
      for_rows(a.valid, [&](const Shape& idx, int64_t run) {
        const int64_t o0 = dot(idx, st);
        for (int64_t j = 0; j < run; ++j) {
          const size_t o = size_t(o0 + j * sl);
          const Elem x = (*a.data)[o];
          d[o] = op.scalar_first ? binary_elem(op.kind, s, x, a.dtype, rt) : binary_elem(op.kind, x, s, a.dtype, rt);
        }
      });
      return r;
    }
    const Val& a = in(op, 0);
    const Val& b = in(op, 1);
    if (a.dtype != b.dtype)
      fail(fmt::format("operands have different dtypes {} and {}", dtype_name(a.dtype), dtype_name(b.dtype)));
    size_t rank = std::max(a.shape.size(), b.shape.size());
    Shape shape(rank), valid(rank), sa(rank, 0), sb(rank, 0);
    Shape sta = strides_of(a.shape), stb = strides_of(b.shape);
    for (size_t k = 0; k < rank; ++k) {
      // Align trailing axes (NumPy broadcasting).
      int ia = int(k) - int(rank - a.shape.size()), ib = int(k) - int(rank - b.shape.size());
      int64_t ea = ia >= 0 ? a.shape[size_t(ia)] : 1, eb = ib >= 0 ? b.shape[size_t(ib)] : 1;
      int64_t va = ia >= 0 ? a.valid[size_t(ia)] : 1, vb = ib >= 0 ? b.valid[size_t(ib)] : 1;
      if (ea != eb && ea != 1 && eb != 1)
        fail(fmt::format("shapes {} and {} do not broadcast", shape_str(a.shape), shape_str(b.shape)));
      int64_t e = std::max(ea, eb);
      shape[k] = e;
      // A broadcast axis (extent 1) is valid everywhere if its one element is.
      int64_t wa = ea == e ? va : (va > 0 ? e : 0);
      int64_t wb = eb == e ? vb : (vb > 0 ? e : 0);
      valid[k] = std::min(wa, wb);
      if (ia >= 0 && ea == e) sa[k] = sta[size_t(ia)];
      if (ib >= 0 && eb == e) sb[k] = stb[size_t(ib)];
    }
    const DType rt = result_dtype(op);
    Val r = make(rt, shape, valid);
    Shape st = strides_of(shape);
    Data& d = mut(r);
    const int64_t sl = last_stride(st), sal = last_stride(sa), sbl = last_stride(sb);
    for_rows(valid, [&](const Shape& idx, int64_t run) {
      const int64_t o0 = dot(idx, st), a0 = dot(idx, sa), b0 = dot(idx, sb);
      for (int64_t j = 0; j < run; ++j)
        d[size_t(o0 + j * sl)] =
            binary_elem(op.kind, (*a.data)[size_t(a0 + j * sal)], (*b.data)[size_t(b0 + j * sbl)], a.dtype, rt);
    });
    return r;
  }

  DType result_dtype(const Op& op) const { return p_.values.at(size_t(op.output)).dtype; }

  // where(condition, input, other): NumPy broadcasting over the three operands.
  Val where(const Op& op) {
    const Val* v[3] = {&in(op, 0), &in(op, 1), &in(op, 2)};
    if (v[1]->dtype != v[2]->dtype)
      fail(fmt::format("operands have different dtypes {} and {}", dtype_name(v[1]->dtype), dtype_name(v[2]->dtype)));
    size_t rank = 0;
    for (auto* x : v) rank = std::max(rank, x->shape.size());
    Shape shape(rank, 1), valid(rank);
    Shape str[3] = {Shape(rank, 0), Shape(rank, 0), Shape(rank, 0)};
    for (size_t k = 0; k < rank; ++k) {
      int64_t e = 1;
      for (auto* x : v) {
        int i = int(k) - int(rank - x->shape.size());
        int64_t ex = i >= 0 ? x->shape[size_t(i)] : 1;
        if (ex != 1 && e != 1 && ex != e)
          fail(fmt::format("shapes {}, {} and {} do not broadcast", shape_str(v[0]->shape), shape_str(v[1]->shape),
                           shape_str(v[2]->shape)));
        e = std::max(e, ex);
      }
      shape[k] = e;
      valid[k] = e;
      for (int j = 0; j < 3; ++j) {
        int i = int(k) - int(rank - v[j]->shape.size());
        int64_t ex = i >= 0 ? v[j]->shape[size_t(i)] : 1, vx = i >= 0 ? v[j]->valid[size_t(i)] : 1;
        valid[k] = std::min(valid[k], ex == e ? vx : (vx > 0 ? e : 0));
        if (i >= 0 && ex == e) str[j][k] = strides_of(v[j]->shape)[size_t(i)];
      }
    }
    // fillpad's where carries the valid it gives its result (the whole shape): its condition is false
    // on the input's padding, which is then never the element chosen.
    if (!op.valid.empty()) {
      if (op.valid.size() != rank) fail("internal: where's given valid has the wrong rank");
      Shape given = ev(op.valid);
      for (size_t k = 0; k < rank; ++k) valid[k] = std::clamp<int64_t>(given[k], 0, shape[k]);
    }
    Val r = make(v[1]->dtype, shape, valid);
    Shape st = strides_of(shape);
    Data& d = mut(r);
    for_box(valid, [&](const Shape& idx) {
      bool c = truthy((*v[0]->data)[size_t(dot(idx, str[0]))], v[0]->dtype);
      d[size_t(dot(idx, st))] = (*v[c ? 1 : 2]->data)[size_t(dot(idx, str[c ? 1 : 2]))];
    });
    return r;
  }

  Val unary_op(const Op& op) {
    const Val& a = in(op, 0);
    const DType rt = result_dtype(op);
    Val r = make(rt, a.shape, a.valid);
    Shape st = strides_of(a.shape);
    Data& d = mut(r);
    const int64_t sl = last_stride(st);
    for_rows(a.valid, [&](const Shape& idx, int64_t run) {
      const int64_t o0 = dot(idx, st);
      for (int64_t j = 0; j < run; ++j) {
        const size_t o = size_t(o0 + j * sl);
        d[o] = unary_elem(op.kind, (*a.data)[o], a.dtype, rt);
      }
    });
    return r;
  }

  // One axis; only the valid extent of that axis enters the result.
  Val reduce(const Op& op) {
    const Val& a = in(op, 0);
    if (op.axes.size() != 1 || op.axes[0] < 0 || size_t(op.axes[0]) >= a.shape.size())
      fail("internal: reduction axis out of range");
    size_t ax = size_t(op.axes[0]);
    Shape shape = a.shape, valid = a.valid;
    shape[ax] = 1;
    valid[ax] = 1;
    Shape box = valid;
    Val r = make(result_dtype(op), shape, valid);
    Shape sta = strides_of(a.shape), st = strides_of(shape);
    Data& d = mut(r);
    const int64_t count = a.valid[ax];
    const DType rt = r.dtype;
    const bool integer = held_as_int(a.dtype);
    auto at = [&](int64_t base, int64_t j) { return (*a.data)[size_t(base + j * sta[ax])]; };
    for_box(box, [&](const Shape& idx) {
      int64_t base = dot(idx, sta);
      Elem& out = d[size_t(dot(idx, st))];
      if (op.kind == OpKind::Argmax || op.kind == OpKind::Argmin) {
        // The first index of the extreme, as NumPy: ties keep the earlier index, a NaN wins at its first place.
        int64_t best = 0;
        if (integer) {
          int64_t bv = count > 0 ? at(base, 0).i() : 0;
          for (int64_t j = 1; j < count; ++j) {
            const int64_t x = at(base, j).i();
            if (op.kind == OpKind::Argmax ? eval::int_less(bv, x, a.dtype) : eval::int_less(x, bv, a.dtype)) {
              best = j;
              bv = x;
            }
          }
        } else {
          double bv = count > 0 ? at(base, 0).f() : 0.0;
          for (int64_t j = 1; j < count && !std::isnan(bv); ++j) {
            const double x = at(base, j).f();
            if (std::isnan(x) || (op.kind == OpKind::Argmax ? x > bv : x < bv)) {
              best = j;
              bv = x;
            }
          }
        }
        out = int_result(best, rt);
        return;
      }
      if (integer) {
        // Exact int64 arithmetic wrapping at 2^64; the final wrap to the type equals wrapping every step.
        uint64_t acc = op.kind == OpKind::Prod ? 1 : 0;
        int64_t ext = count > 0 ? at(base, 0).i() : 0;
        for (int64_t j = 0; j < count; ++j) {
          const int64_t x = at(base, j).i();
          switch (op.kind) {
            case OpKind::Prod: acc *= uint64_t(x); break;
            case OpKind::Amax: ext = eval::int_less(ext, x, a.dtype) ? x : ext; break;  // unsigned for uint64
            case OpKind::Amin: ext = eval::int_less(x, ext, a.dtype) ? x : ext; break;
            default: acc += uint64_t(x); break;
          }
        }
        int64_t v = int64_t(acc);
        if (op.kind == OpKind::Amax || op.kind == OpKind::Amin) v = count > 0 ? ext : 0;
        if (op.kind == OpKind::Mean)  // integer division truncates
          v = count == 0 ? 0 : a.dtype == DType::uint64 ? int64_t(acc / uint64_t(count)) : v / count;
        out = int_result(v, rt);
        return;
      }
      if (op.kind == OpKind::Prod) {
        double acc = 1.0;
        for (int64_t j = 0; j < count; ++j) acc *= at(base, j).f();
        out = from_double(acc, rt);
        return;
      }
      double acc = op.kind == OpKind::Amax ? -INFINITY : op.kind == OpKind::Amin ? INFINITY : 0.0;
      for (int64_t j = 0; j < count; ++j) {
        const double x = at(base, j).f();
        switch (op.kind) {
          case OpKind::Amax: acc = std::isnan(x) || std::isnan(acc) ? kPad : std::max(acc, x); break;
          case OpKind::Amin: acc = std::isnan(x) || std::isnan(acc) ? kPad : std::min(acc, x); break;
          default: acc += x; break;
        }
      }
      if (op.kind == OpKind::Mean) acc = acc / double(count);
      out = from_double(acc, rt);
    });
    if (!op.keepdim) {
      r.shape.erase(r.shape.begin() + long(ax));
      r.valid.erase(r.valid.begin() + long(ax));
    }
    return r;
  }

  // Round to nearest even into integers (then wrap, as round_to_dtype does);
  // between float types round_to_dtype is already nearest even.
  // --- random ops --- uniform / normal: element k of the whole output is random_value(k). The
  // input (the front end's flat index ramp) only fixes the shape: the index here is the element's own
  // position, so a wrong ramp in the compiled code shows as a difference.
  Val random_op(const Op& op) {
    const Val& a = in(op, 0);
    Val r = make(op.dtype, a.shape, a.valid);
    Shape st = strides_of(a.shape);
    Data& d = mut(r);
    const PhiloxArgs args = philox_args(op.axes);
    for_box(a.valid, [&](const Shape& idx) {
      int64_t o = dot(idx, st);
      d[size_t(o)] = from_double(random_value(op.kind, op.dtype, args, uint64_t(o)), op.dtype);
    });
    return r;
  }

  // --- sort --- each row of the last axis: its valid part sorted, the first k (the result's last extent)
  // kept; rows past the valid ones stay padding.
  Val sort(const Op& op) {
    const Val& a = in(op, 0);
    const Val* carried = op.inputs.size() == 2 ? &in(op, 1) : nullptr;
    auto k = p_.values.at(size_t(op.output)).shape.back().as_const();
    if (a.shape.empty() || op.axes.size() != 3 || size_t(op.axes[0]) + 1 != a.shape.size() || !k)
      fail("internal: a sort off the last axis or of no static k");
    if (carried && (carried->shape != a.shape || carried->valid != a.valid))
      fail("internal: a merge whose carried indices do not match its values");
    const bool values = op.kind == OpKind::SortValues;
    Shape shape = a.shape, valid = a.valid;
    shape.back() = *k;
    valid.back() = *k;
    Val r = make(values ? a.dtype : DType::int32, shape, valid);
    Data& d = mut(r);
    const Shape sa = strides_of(a.shape), sr = strides_of(shape);
    Shape rows(a.valid.begin(), a.valid.end() - 1);
    rows.push_back(1);
    for_box(rows, [&](const Shape& idx) {
      const int64_t ia = dot(idx, sa), ir = dot(idx, sr);
      eval::sort_row(a.data->data() + ia, carried ? carried->data->data() + ia : nullptr, op.axes[2], a.valid.back(), *k,
                     op.axes[1] != 0, a.dtype, values ? d.data() + ir : nullptr, values ? nullptr : d.data() + ir);
    });
    return r;
  }

  // --- pack / unpack --- the same row-major bytes read as op.dtype: the last axis scaled.
  Val bitcast(const Op& op) {
    const Val& a = in(op, 0);
    const int64_t sa = dtype_size(a.dtype), sd = dtype_size(op.dtype);
    Shape sh = a.shape, va = a.valid;
    sh.back() = sh.back() * sa / sd;
    va.back() = va.back() * sa / sd;
    Val r;
    r.dtype = op.dtype;
    r.shape = std::move(sh);
    r.valid = std::move(va);
    r.data = std::make_shared<Data>(bitcast_elems(*a.data, a.dtype, op.dtype));
    return r;
  }

  Val cast(const Op& op) {
    const Val& a = in(op, 0);
    Val r = make(op.dtype, a.shape, a.valid);
    Shape st = strides_of(a.shape);
    Data& d = mut(r);
    const int64_t sl = last_stride(st);
    const bool int_to_int = held_as_int(a.dtype) && held_as_int(op.dtype);
    const bool round_first = is_int(op.dtype) && dtype_is_float(a.dtype);
    for_rows(a.valid, [&](const Shape& idx, int64_t run) {
      const int64_t o0 = dot(idx, st);
      for (int64_t j = 0; j < run; ++j) {
        const size_t o = size_t(o0 + j * sl);
        const Elem e = (*a.data)[o];
        if (int_to_int) {
          d[o] = Elem::of_i(eval::wrap_int(e.i(), op.dtype));  // exact, wrapping
          continue;
        }
        double x = to_double(e, a.dtype);
        if (round_first) x = std::nearbyint(x);
        d[o] = from_double(x, op.dtype);
      }
    });
    return r;
  }

  // [..., M, K] x [..., K, N] with broadcast batch axes; K sums over the
  // valid extent both operands share, in fp32 (float) for float inputs.
  Val matmul(const Op& op) {
    const Val& a = in(op, 0);
    const Val& b = in(op, 1);
    if (a.dtype != b.dtype)
      fail(fmt::format("operands have different dtypes {} and {}", dtype_name(a.dtype), dtype_name(b.dtype)));
    size_t ra = a.shape.size(), rb = b.shape.size();
    if (ra < 2 || rb < 2) fail("matmul operands must have rank 2 or more");
    // Logical (possibly transposed) extents and strides of the matrix axes.
    Shape sta = strides_of(a.shape), stb = strides_of(b.shape);
    int64_t M = op.trans_a ? a.shape[ra - 1] : a.shape[ra - 2];
    int64_t Ka = op.trans_a ? a.shape[ra - 2] : a.shape[ra - 1];
    int64_t vM = op.trans_a ? a.valid[ra - 1] : a.valid[ra - 2];
    int64_t vKa = op.trans_a ? a.valid[ra - 2] : a.valid[ra - 1];
    int64_t am = op.trans_a ? sta[ra - 1] : sta[ra - 2], ak = op.trans_a ? sta[ra - 2] : sta[ra - 1];
    int64_t Kb = op.trans_b ? b.shape[rb - 1] : b.shape[rb - 2];
    int64_t N = op.trans_b ? b.shape[rb - 2] : b.shape[rb - 1];
    int64_t vKb = op.trans_b ? b.valid[rb - 1] : b.valid[rb - 2];
    int64_t vN = op.trans_b ? b.valid[rb - 2] : b.valid[rb - 1];
    int64_t bk = op.trans_b ? stb[rb - 1] : stb[rb - 2], bn = op.trans_b ? stb[rb - 2] : stb[rb - 1];
    if (Ka != Kb)
      fail(fmt::format("inner extents differ: {} (left {}) and {} (right {})", Ka, shape_str(a.shape), Kb,
                       shape_str(b.shape)));
    const int64_t K = std::min(vKa, vKb);

    size_t bat = std::max(ra, rb) - 2;
    Shape shape(bat + 2), valid(bat + 2), sa(bat, 0), sb(bat, 0);
    for (size_t k = 0; k < bat; ++k) {
      int ia = int(k) - int(bat - (ra - 2)), ib = int(k) - int(bat - (rb - 2));
      int64_t ea = ia >= 0 ? a.shape[size_t(ia)] : 1, eb = ib >= 0 ? b.shape[size_t(ib)] : 1;
      int64_t va = ia >= 0 ? a.valid[size_t(ia)] : 1, vb = ib >= 0 ? b.valid[size_t(ib)] : 1;
      if (ea != eb && ea != 1 && eb != 1)
        fail(fmt::format("batch axes of {} and {} do not broadcast", shape_str(a.shape), shape_str(b.shape)));
      int64_t e = std::max(ea, eb);
      shape[k] = e;
      valid[k] = std::min(ea == e ? va : (va > 0 ? e : 0), eb == e ? vb : (vb > 0 ? e : 0));
      if (ia >= 0 && ea == e) sa[k] = sta[size_t(ia)];
      if (ib >= 0 && eb == e) sb[k] = stb[size_t(ib)];
    }
    shape[bat] = M;
    shape[bat + 1] = N;
    valid[bat] = vM;
    valid[bat + 1] = vN;
    Val r = make(op.dtype, shape, valid);
    Shape st = strides_of(shape);
    Data& d = mut(r);
    const bool integer = held_as_int(a.dtype);
    const Data& A = *a.data;
    const Data& B = *b.data;
    Shape batch_valid(valid.begin(), valid.begin() + long(bat));

    for_box(batch_valid, [&](const Shape& bidx) {
      int64_t a0 = dot(bidx, sa), b0 = dot(bidx, sb);
      int64_t o0 = 0;
      for (size_t k = 0; k < bat; ++k) o0 += bidx[k] * st[k];
      // Pack the valid parts as dense [vM, K] and [K, vN] in the accumulator type.
      // The packed element type: int64 for integers (held exactly), fp32 for floats.
      auto pack = [&](auto& pa, auto& pb) {
        using T = typename std::decay_t<decltype(pa)>::value_type;
        auto elem_as = [](Elem e) -> T {
          if constexpr (std::is_same_v<T, int64_t>) return e.i();
          else return float(e.f());
        };
        pa.resize(size_t(vM * K));
        pb.resize(size_t(K * vN));
        for (int64_t m = 0; m < vM; ++m)
          for (int64_t k = 0; k < K; ++k) pa[size_t(m * K + k)] = elem_as(A[size_t(a0 + m * am + k * ak)]);
        for (int64_t k = 0; k < K; ++k)
          for (int64_t n = 0; n < vN; ++n) pb[size_t(k * vN + n)] = elem_as(B[size_t(b0 + k * bk + n * bn)]);
      };
      // The valid [rows, cols] part of X at x0 with strides (rs, cs) as dense int32, in one pass that also
      // finds the largest |element|; false (out unusable) when an element does not fit int32.
      auto pack_i32 = [](std::vector<int32_t>& out, const Data& X, int64_t x0, int64_t rows, int64_t cols,
                         int64_t rs, int64_t cs, uint64_t& mx) {
        out.resize(size_t(rows * cols));
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            const int64_t v = X[size_t(x0 + r * rs + c * cs)].i();
            if (v != int64_t(int32_t(v))) return false;
            out[size_t(r * cols + c)] = int32_t(v);
            mx = std::max(mx, v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v));
          }
        return true;
      };
      std::vector<float> fa, fb, fc;
      std::vector<int64_t> ia, ib, ic;
      std::vector<int32_t> ja, jb, jc;
      uint64_t max_a = 0, max_b = 0;
      const bool narrow = integer && pack_i32(ja, A, a0, vM, K, am, ak, max_a) &&
                          pack_i32(jb, B, b0, K, vN, bk, bn, max_b) && narrow_int_matmul(K, max_a, max_b);
      if (narrow) {
        jc.assign(size_t(vM * vN), 0);
      } else if (integer) {
        ja = {};
        jb = {};
        pack(ia, ib);
        ic.assign(size_t(vM * vN), 0);
      } else {
        pack(fa, fb);
        fc.assign(size_t(vM * vN), 0.0f);
      }
      // Row blocks are independent; split them over threads for large products.
      // Every element's sum runs k = 0..K-1 in order, so neither blocking nor threading changes a bit.
      auto rows = [&](int64_t m0, int64_t m1) {
        if (narrow) matmul_rows_i32(ja.data(), jb.data(), jc.data(), m0, m1, K, vN);
        else if (integer) matmul_rows_i64(ia.data(), ib.data(), ic.data(), m0, m1, K, vN);
        else matmul_rows_f32(fa.data(), fb.data(), fc.data(), m0, m1, K, vN);
      };
      const double work = double(vM) * double(vN) * double(K);
      unsigned nt = work < 4e6 ? 1u : std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 64u));
      if (nt <= 1 || vM < 2) {
        rows(0, vM);
      } else {
        std::vector<std::thread> ts;
        int64_t chunk = (vM + nt - 1) / nt;
        for (int64_t m0 = 0; m0 < vM; m0 += chunk) ts.emplace_back(rows, m0, std::min(vM, m0 + chunk));
        for (auto& t : ts) t.join();
      }
      for (int64_t m = 0; m < vM; ++m)
        for (int64_t n = 0; n < vN; ++n)
          d[size_t(o0 + m * st[bat] + n)] = narrow    ? int_result(jc[size_t(m * vN + n)], op.dtype)
                                            : integer ? int_result(ic[size_t(m * vN + n)], op.dtype)
                                                      : from_double(double(fc[size_t(m * vN + n)]), op.dtype);
    });
    return r;
  }

  Val transpose(const Op& op) {
    const Val& a = in(op, 0);
    if (op.axes.size() != 2) fail("internal: transpose needs two axes");
    size_t d0 = size_t(op.axes[0]), d1 = size_t(op.axes[1]);
    if (d0 >= a.shape.size() || d1 >= a.shape.size()) fail("internal: transpose axis out of range");
    Shape shape = a.shape, valid = a.valid;
    std::swap(shape[d0], shape[d1]);
    std::swap(valid[d0], valid[d1]);
    Val r = make(a.dtype, shape, valid);
    Shape sta = strides_of(a.shape), st = strides_of(shape);
    Data& d = mut(r);
    for_box(valid, [&](const Shape& idx) {
      Shape src = idx;
      std::swap(src[d0], src[d1]);
      d[size_t(dot(idx, st))] = (*a.data)[size_t(dot(src, sta))];
    });
    return r;
  }

  // Reinterprets the row-major elements. With padding, the valid region must
  // stay a box: either the reshape only adds or drops size-1 axes (indexing
  // `x[i, :]`), and every other axis keeps its valid extent; or the valid
  // elements form a flat prefix (partial first axis, full others) that fills
  // whole rows of the new shape.
  Val reshape(const Op& op) {
    const Val& a = in(op, 0);
    Shape shape = ev(op.shape);
    if (numel(shape) != numel(a.shape))
      fail(fmt::format("cannot reshape {} ({} elements) into {} ({} elements)", shape_str(a.shape), numel(a.shape),
                       shape_str(shape), numel(shape)));
    Shape valid = shape;
    if (a.valid != a.shape) {
      Shape src_big, dst_big, src_valid;
      bool empty = false;
      for (size_t k = 0; k < a.shape.size(); ++k) {
        empty = empty || a.valid[k] == 0;
        if (a.shape[k] != 1) {
          src_big.push_back(a.shape[k]);
          src_valid.push_back(a.valid[k]);
        }
      }
      for (int64_t e : shape)
        if (e != 1) dst_big.push_back(e);
      if (empty) {
        std::fill(valid.begin(), valid.end(), 0);
      } else if (src_big == dst_big) {
        size_t j = 0;
        for (size_t k = 0; k < shape.size(); ++k) valid[k] = shape[k] == 1 ? 1 : src_valid[j++];
      } else {
        bool prefix = !a.shape.empty();
        for (size_t k = 1; k < a.shape.size(); ++k) prefix = prefix && a.valid[k] == a.shape[k];
        int64_t nvalid = numel(a.valid);
        int64_t row = shape.empty() ? 1 : numel(Shape(shape.begin() + 1, shape.end()));
        if (!prefix || row == 0 || nvalid % row != 0)
          fail(fmt::format("cannot reshape a value of shape {} with valid shape {} into {}: its valid elements do "
                           "not map to a rectangular valid region (reshape before slicing the tail)",
                           shape_str(a.shape), shape_str(a.valid), shape_str(shape)));
        valid[0] = nvalid / row;
      }
    }
    Val r;
    r.dtype = a.dtype;
    r.shape = shape;
    r.valid = valid;
    r.data = a.data;  // same elements, same order
    return r;
  }

  // A window at `offsets`; only the part inside the source's valid region
  // (and inside `valid=` when given) is read, the rest is padding.
  // The text of the first run-time value `e` uses ("ids[b, 5]"), or "".
  std::string runtime_value_in(const DimExpr& e) const {
    if (runtime_syms_.empty() || e.is_const()) return "";
    std::vector<std::string> syms;
    e.collect_symbols(syms);
    for (const auto& x : syms)
      if (auto it = runtime_syms_.find(x); it != runtime_syms_.end()) return it->second;
    return "";
  }
  std::string source_name(const Op& op) const {
    const Value& v = p_.values.at(size_t(op.inputs.at(0)));
    if (v.def_op >= 0 && p_.ops[size_t(v.def_op)].kind == OpKind::TensorRef)
      return p_.tensors.at(size_t(p_.ops[size_t(v.def_op)].tensor)).name;
    return v.name.empty() ? "its source" : v.name;
  }
  void collect_runtime_syms(const std::vector<LoopNode>& nodes) {
    for (const auto& n : nodes) {
      for (const auto& l : n.loads) runtime_syms_.emplace(l.sym, l.text);
      for (const auto& g : n.gears) collect_runtime_syms(g.body);
    }
  }

  Val view(const Op& op) {
    const Val& a = in(op, 0);
    Shape off = ev(op.offsets), win = ev(op.shape);
    if (off.size() != a.shape.size() || win.size() != a.shape.size())
      fail(fmt::format("internal: view of rank {} has {} offsets and a {}-axis window", a.shape.size(), off.size(),
                       win.size()));
    Shape valid(win.size());
    for (size_t k = 0; k < win.size(); ++k) {
      if (off[k] < 0 || off[k] > a.shape[k])
        fail(fmt::format("slice start {} on axis {} is outside the source's extent {}", off[k], k, a.shape[k]));
      if (win[k] < 0) fail(fmt::format("slice on axis {} has negative extent {}", k, win[k]));
      int64_t v = std::clamp<int64_t>(a.valid[k] - off[k], 0, win[k]);
      if (!op.valid.empty()) {
        const int64_t want = std::max<int64_t>(0, ev(op.valid.at(k)));
        // An offset read at run time (a block table, index_select's index) must keep the window inside.
        if (std::string rv; want > v && !(rv = runtime_value_in(op.offsets[k])).empty())
          fail(fmt::format("the window [{}, {}) on axis {} of '{}' is outside its extent {}: its offset is computed "
                           "from the run-time value {}", off[k], off[k] + want, k, source_name(op), a.shape[k], rv));
        v = std::min(v, want);
      }
      valid[k] = v;
    }
    Val r = make(a.dtype, win, valid);
    Shape sta = strides_of(a.shape), st = strides_of(win);
    int64_t base = dot(off, sta);
    Data& d = mut(r);
    // Row by row: the last axis is contiguous in the source and the window alike (stride 1).
    for_rows(valid, [&](const Shape& idx, int64_t run) {
      std::copy_n(a.data->begin() + base + dot(idx, sta), run, d.begin() + dot(idx, st));
    });
    return r;
  }

  Val concat(const Op& op) {
    if (op.inputs.empty() || op.axes.size() != 1) fail("internal: concat needs inputs and one axis");
    size_t ax = size_t(op.axes[0]);
    const Val& first = in(op, 0);
    Shape shape = first.shape, valid = first.valid;
    if (ax >= shape.size()) fail("internal: concat axis out of range");
    shape[ax] = 0;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Val& v = in(op, i);
      if (v.shape.size() != shape.size() || v.dtype != first.dtype)
        fail(fmt::format("input {} has shape {} {}, unlike input 0 {} {}", i, shape_str(v.shape),
                         dtype_name(v.dtype), shape_str(first.shape), dtype_name(first.dtype)));
      for (size_t k = 0; k < shape.size(); ++k) {
        if (k == ax) continue;
        if (v.shape[k] != first.shape[k])
          fail(fmt::format("input {} has shape {}, which differs from input 0 {} off axis {}", i,
                           shape_str(v.shape), shape_str(first.shape), ax));
        valid[k] = std::min(valid[k], v.valid[k]);
      }
      // Padding inside the joined axis would sit between valid elements.
      if (i + 1 < op.inputs.size() && v.valid[ax] != v.shape[ax])
        fail(fmt::format("input {} has valid extent {} of {} on the concatenated axis {}; only the last input may "
                         "have a tail there",
                         i, v.valid[ax], v.shape[ax], ax));
      if (i + 1 == op.inputs.size()) valid[ax] = shape[ax] + v.valid[ax];
      shape[ax] += v.shape[ax];
    }
    Val r = make(first.dtype, shape, valid);
    Shape st = strides_of(shape);
    Data& d = mut(r);
    int64_t at = 0;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Val& v = in(op, i);
      Shape box = v.valid;
      for (size_t k = 0; k < box.size(); ++k)
        if (k != ax) box[k] = valid[k];
      Shape sv = strides_of(v.shape);
      for_box(box, [&](const Shape& idx) {
        Shape o = idx;
        o[ax] += at;
        d[size_t(dot(o, st))] = (*v.data)[size_t(dot(idx, sv))];
      });
      at += v.shape[ax];
    }
    return r;
  }

  // Writes the value's valid box into the tensor at `offsets`; elements that
  // would land outside the tensor are dropped (a tail tile's overhang).
  void assemble(const Op& op) {
    const Val& v = in(op, 0);
    Gm& g = gm_.at(size_t(op.tensor));
    const std::string& name = p_.tensors.at(size_t(op.tensor)).name;
    Shape off = ev(op.offsets);
    if (off.size() != g.shape.size() || v.shape.size() != g.shape.size())
      fail(fmt::format("value of rank {} assembled into {} of rank {} at {} offsets", v.shape.size(), name,
                       g.shape.size(), off.size()));
    for (size_t k = 0; k < off.size(); ++k) {
      // An offset read at run time (a KV-cache slot: scatter_update, cache[slot[b], :] = row) must keep the
      // whole row inside, as the compiled run's window check requires.
      if (std::string rv; (off[k] < 0 || off[k] + v.valid[k] > g.shape[k]) && v.valid[k] > 0 &&
                          !(rv = runtime_value_in(op.offsets[k])).empty())
        fail(fmt::format("assemble into {}: the box [{}, {}) on axis {} is outside its extent {}: its offset is "
                         "computed from the run-time value {}", name, off[k], off[k] + v.valid[k], k, g.shape[k], rv));
      if (off[k] < 0 || off[k] > g.shape[k])
        fail(fmt::format("assemble into {}: offset {} on axis {} is outside its extent {}", name, off[k], k,
                         g.shape[k]));
    }
    if (g.data.use_count() > 1) g.data = std::make_shared<Data>(*g.data);  // a value still holds the old contents
    Shape box(v.valid.size());
    for (size_t k = 0; k < box.size(); ++k) box[k] = std::min(v.valid[k], g.shape[k] - off[k]);
    Shape sv = strides_of(v.shape), sg = strides_of(g.shape);
    int64_t base = dot(off, sg);
    Data& d = *g.data;
    if (v.dtype == g.dtype)  // already rounded to the tensor's dtype: a plain copy
      for_box(box, [&](const Shape& idx) { d[size_t(base + dot(idx, sg))] = (*v.data)[size_t(dot(idx, sv))]; });
    else
      for_box(box, [&](const Shape& idx) {
        d[size_t(base + dot(idx, sg))] = eval::convert((*v.data)[size_t(dot(idx, sv))], v.dtype, g.dtype);
      });
    cur_ = nullptr;
  }
};

}  // namespace

std::map<std::string, TensorData> evaluate(const Program& p, const std::map<std::string, TensorData>& inputs,
                                           const DimExpr::Env& dims, const EvalOptions& opts) {
  try {
    return Evaluator(p, dims, opts).run(inputs);
  } catch (const BindError& e) {
    throw EvalError(e.what());
  }
}

std::map<std::string, TensorData> evaluate(const Program& p, const std::map<std::string, TensorData>& inputs,
                                           const DimExpr::Env& dims) {
  return evaluate(p, inputs, dims, EvalOptions{});
}

}  // namespace ptoc
