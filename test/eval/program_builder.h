// Builds tensor-graph Programs by hand, so the evaluator can be tested
// without the front end. Each op goes into the open root template of the
// current body; `loop` builds one body per unroll gear, as the front end does.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runtime/program/bind_dims.h"
#include "compiler/eval/reference_eval.h"
#include "compiler/ir.h"

namespace ptoc::test {

using Dims = std::vector<DimExpr>;

inline DimExpr S(const std::string& n) { return DimExpr::sym(n); }

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name = "t") {
    p.name = std::move(name);
    p.file = "test.yaml";
    body_ = &p.body;
  }

  void dim(const std::string& n, int64_t v) { p.dims.push_back({n, false, v, 0, 1, {}}); }
  void dyn_dim(const std::string& n, int64_t max = 0, int64_t div = 1) { p.dims.push_back({n, true, 0, max, div, {}}); }

  int tensor(const std::string& n, TensorRole role, DType t, Dims shape) {
    TensorDecl d;
    d.name = n;
    d.role = role;
    d.dtype = t;
    d.shape = std::move(shape);
    p.tensors.push_back(d);
    return int(p.tensors.size()) - 1;
  }
  int input(const std::string& n, DType t, Dims s) { return tensor(n, TensorRole::Input, t, std::move(s)); }
  int output(const std::string& n, DType t, Dims s) { return tensor(n, TensorRole::Output, t, std::move(s)); }
  int workspace(const std::string& n, DType t, Dims s) { return tensor(n, TensorRole::Workspace, t, std::move(s)); }

  // --- ops: each returns the result value id ---
  int ref(const std::string& tensor_name) {
    int t = p.find_tensor(tensor_name);
    Op op;
    op.kind = OpKind::TensorRef;
    op.tensor = t;
    return add(op, p.tensors[size_t(t)].dtype, p.tensors[size_t(t)].shape);
  }
  int bin(OpKind k, int a, int b) {
    Op op;
    op.kind = k;
    op.inputs = {a, b};
    return add(op, val(a).dtype, broadcast(val(a).shape, val(b).shape));
  }
  int bin_s(OpKind k, int a, double s, bool scalar_first = false) {
    Op op;
    op.kind = k;
    op.inputs = {a};
    op.scalar = s;
    op.scalar_first = scalar_first;
    return add(op, val(a).dtype, val(a).shape);
  }
  int un(OpKind k, int a) {
    Op op;
    op.kind = k;
    op.inputs = {a};
    return add(op, val(a).dtype, val(a).shape);
  }
  int reduce(OpKind k, int a, int axis, bool keepdim = false) {
    Op op;
    op.kind = k;
    op.inputs = {a};
    op.axes = {axis};
    op.keepdim = keepdim;
    Dims s = val(a).shape;
    if (keepdim) s[size_t(axis)] = 1;
    else s.erase(s.begin() + axis);
    return add(op, val(a).dtype, s);
  }
  int cast(int a, DType t) {
    Op op;
    op.kind = OpKind::Cast;
    op.inputs = {a};
    op.dtype = t;
    return add(op, t, val(a).shape);
  }
  int matmul(int a, int b, DType out = DType::fp32, bool ta = false, bool tb = false) {
    Op op;
    op.kind = OpKind::Matmul;
    op.inputs = {a, b};
    op.dtype = out;
    op.trans_a = ta;
    op.trans_b = tb;
    const Dims& sa = val(a).shape;
    const Dims& sb = val(b).shape;
    Dims ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    Dims s = broadcast(ba, bb);
    s.push_back(ta ? sa.back() : sa[sa.size() - 2]);
    s.push_back(tb ? sb[sb.size() - 2] : sb.back());
    return add(op, out, s);
  }
  int transpose(int a, int d0, int d1) {
    Op op;
    op.kind = OpKind::Transpose;
    op.inputs = {a};
    op.axes = {d0, d1};
    Dims s = val(a).shape;
    std::swap(s[size_t(d0)], s[size_t(d1)]);
    return add(op, val(a).dtype, s);
  }
  int reshape(int a, Dims shape) {
    Op op;
    op.kind = OpKind::Reshape;
    op.inputs = {a};
    op.shape = shape;
    return add(op, val(a).dtype, shape);
  }
  int view(int a, Dims shape, Dims offsets, Dims valid = {}) {
    Op op;
    op.kind = OpKind::View;
    op.inputs = {a};
    op.shape = shape;
    op.offsets = std::move(offsets);
    op.valid = std::move(valid);
    return add(op, val(a).dtype, shape);
  }
  int concat(std::vector<int> xs, int axis) {
    Op op;
    op.kind = OpKind::Concat;
    op.inputs = xs;
    op.axes = {axis};
    Dims s = val(xs[0]).shape;
    for (size_t i = 1; i < xs.size(); ++i) s[size_t(axis)] = s[size_t(axis)] + val(xs[i]).shape[size_t(axis)];
    return add(op, val(xs[0]).dtype, s);
  }
  int full(Dims shape, double v, DType t) {
    Op op;
    op.kind = OpKind::Full;
    op.shape = shape;
    op.fill = v;
    op.dtype = t;
    return add(op, t, shape);
  }
  void assemble(const std::string& tensor_name, int v, Dims offsets) {
    Op op;
    op.kind = OpKind::Assemble;
    op.inputs = {v};
    op.tensor = p.find_tensor(tensor_name);
    op.offsets = std::move(offsets);
    add(op, DType::fp32, {}, false);
  }

  // A dynamic loop; `body(factor)` is called once per gear to build its body.
  void loop(const std::string& var, DimExpr begin, DimExpr end, DimExpr step, std::vector<int64_t> factors,
            const std::string& factor_var, const std::function<void(int64_t)>& body) {
    LoopNode n;
    n.kind = LoopNode::Kind::Loop;
    n.var = var;
    n.name = "LOOP_" + var;
    n.factor_var = factor_var;
    n.begin = begin;
    n.end = end;
    n.step = step;
    n.gears.resize(factors.size());
    std::vector<std::string> vars = loop_vars_;
    for (size_t g = 0; g < factors.size(); ++g) {
      n.gears[g].factor = factors[g];
      auto* saved_body = body_;
      int saved_root = root_;
      int64_t saved_factor = factor_;
      body_ = &n.gears[g].body;
      root_ = -1;
      loop_vars_.push_back(var);
      factor_ = factors[g];
      body(factors[g]);
      loop_vars_ = vars;
      body_ = saved_body;
      root_ = saved_root;
      factor_ = saved_factor;
    }
    root_ = -1;  // statements after the loop start a new root template
    body_->push_back(std::move(n));
  }
  void loop(const std::string& var, DimExpr count, const std::function<void()>& body) {
    loop(var, 0, count, 1, {1}, "", [&](int64_t) { body(); });
  }

  const Value& val(int id) const { return p.values.at(size_t(id)); }

  Program p;

 private:
  static Dims broadcast(const Dims& a, const Dims& b) {
    size_t r = std::max(a.size(), b.size());
    Dims s(r);
    for (size_t k = 0; k < r; ++k) {
      int ia = int(k) - int(r - a.size()), ib = int(k) - int(r - b.size());
      DimExpr ea = ia >= 0 ? a[size_t(ia)] : DimExpr(1), eb = ib >= 0 ? b[size_t(ib)] : DimExpr(1);
      s[k] = (ea.as_const() == 1) ? eb : ea;
    }
    return s;
  }

  int add(Op op, DType t, Dims shape, bool has_result = true) {
    if (root_ < 0) {
      RootTemplate rt;
      rt.index = int(p.roots.size());
      rt.name = "root_" + std::to_string(rt.index);
      rt.loop_vars = loop_vars_;
      rt.factor = factor_;
      p.roots.push_back(rt);
      root_ = rt.index;
      LoopNode n;
      n.kind = LoopNode::Kind::Root;
      n.root = root_;
      body_->push_back(n);
    }
    op.id = int(p.ops.size());
    if (has_result) {
      Value v;
      v.id = int(p.values.size());
      v.dtype = t;
      v.shape = shape;
      v.valid = shape;
      v.def_op = op.id;
      p.values.push_back(v);
      op.output = v.id;
    }
    p.ops.push_back(op);
    p.roots[size_t(root_)].ops.push_back(op.id);
    return op.output;
  }

  std::vector<LoopNode>* body_;
  int root_ = -1;
  std::vector<std::string> loop_vars_;
  int64_t factor_ = 1;
};

// Convenience: a TensorData from values (rounded to the dtype).
inline TensorData tensor_of(DType t, std::vector<int64_t> shape, const std::vector<double>& vals) {
  TensorData d = TensorData::zeros(t, std::move(shape));
  for (size_t i = 0; i < vals.size(); ++i) d.set(int64_t(i), vals[i]);
  return d;
}
inline std::vector<double> values_of(const TensorData& d) {
  std::vector<double> v(size_t(d.numel()));
  for (int64_t i = 0; i < d.numel(); ++i) v[size_t(i)] = d.get(i);
  return v;
}

// Binds dims from the inputs' shapes and evaluates.
inline std::map<std::string, TensorData> run(const Program& p, const std::map<std::string, TensorData>& inputs,
                                             const std::map<std::string, int64_t>& dims = {}) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& [n, d] : inputs) shapes[n] = d.shape;
  return evaluate(p, inputs, bind_dims(p.dims, p.tensors, shapes, dims));
}

}  // namespace ptoc::test
