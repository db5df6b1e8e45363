// Builds tensor-graph Programs by hand for the tiling tests (independent of
// the spec front end): tensors, ops with the tile state in force, one root.
#pragma once
#include <string>
#include <vector>

#include "compiler/ir.h"

namespace ptoc::test {

struct ProgramBuilder {
  Program p;
  std::optional<VecTile> vec;
  std::optional<CubeTile> cube;
  ScopeInfo scope;
  std::string label;
  int line = 1;
  std::vector<int> root_ops;

  ProgramBuilder() { p.name = "t"; }

  int tensor(const std::string& name, TensorRole role, DType t, std::vector<int64_t> shape,
             Format f = Format::ND) {
    TensorDecl d;
    d.name = name;
    d.role = role;
    d.dtype = t;
    for (auto s : shape) d.shape.push_back(DimExpr(s));
    d.format = f;
    p.tensors.push_back(d);
    return int(p.tensors.size()) - 1;
  }
  void set_vec(std::vector<int64_t> t) { vec = VecTile{std::move(t), SrcLoc{line, 1}}; }
  void set_cube(int64_t m0, int64_t k0, int64_t k1, int64_t n0, bool split_k = false) {
    CubeTile c;
    c.m = {m0, m0};
    c.k = {k0, k1, k1};
    c.n = {n0, n0};
    c.split_k = split_k;
    c.loc = SrcLoc{line, 1};
    cube = c;
  }
  int value(DType t, std::vector<DimExpr> shape, std::vector<DimExpr> valid = {}) {
    Value v;
    v.id = int(p.values.size());
    v.dtype = t;
    v.shape = shape;
    v.valid = valid.empty() ? shape : valid;
    p.values.push_back(v);
    return v.id;
  }
  Op& op(OpKind k, std::vector<int> in, int out) {
    Op o;
    o.id = int(p.ops.size());
    o.kind = k;
    o.inputs = std::move(in);
    o.output = out;
    o.vec_tile = vec;
    o.cube_tile = cube;
    o.scope = scope;
    o.label = label;
    o.loc = SrcLoc{++line, 5};
    if (out >= 0) p.values[out].def_op = o.id;
    p.ops.push_back(o);
    root_ops.push_back(o.id);
    return p.ops.back();
  }
  int ref(int t) {
    int v = value(p.tensors[t].dtype, p.tensors[t].shape);
    op(OpKind::TensorRef, {}, v).tensor = t;
    return v;
  }
  const Value& val(int v) const { return p.values[v]; }
  int view(int src, std::vector<int64_t> shape, std::vector<int64_t> off, std::vector<DimExpr> valid = {}) {
    std::vector<DimExpr> s, o;
    for (auto x : shape) s.push_back(DimExpr(x));
    for (auto x : off) o.push_back(DimExpr(x));
    int v = value(val(src).dtype, s, valid);
    Op& op_ = op(OpKind::View, {src}, v);
    op_.offsets = o;
    op_.shape = s;
    return v;
  }
  int unary(OpKind k, int a) { return op1(k, a, val(a).dtype); }
  int cast(int a, DType t) {
    int v = op1(OpKind::Cast, a, t);
    p.ops.back().dtype = t;
    return v;
  }
  int op1(OpKind k, int a, DType t) {
    int v = value(t, val(a).shape, val(a).valid);
    op(k, {a}, v);
    return v;
  }
  int binary(OpKind k, int a, int b) {
    // broadcasting: the larger rank's shape, size-1 axes taken from the other
    auto sa = val(a).shape, sb = val(b).shape;
    auto out = sa.size() >= sb.size() ? sa : sb;
    auto va = val(a).valid.size() >= val(b).valid.size() ? val(a).valid : val(b).valid;
    const auto& other = sa.size() >= sb.size() ? sb : sa;
    size_t lead = out.size() - other.size();
    for (size_t e = 0; e < other.size(); ++e)
      if (out[lead + e].as_const() == 1) out[lead + e] = other[e], va[lead + e] = other[e];
    int v = value(val(a).dtype, out, va);
    op(k, {a, b}, v);
    return v;
  }
  int scalar(OpKind k, int a, double s) {
    int v = value(val(a).dtype, val(a).shape, val(a).valid);
    op(k, {a}, v).scalar = s;
    return v;
  }
  int reduce(OpKind k, int a, int axis, bool keepdim) {
    auto s = val(a).shape, vd = val(a).valid;
    if (keepdim) {
      s[axis] = DimExpr(1), vd[axis] = DimExpr(1);
    } else {
      s.erase(s.begin() + axis), vd.erase(vd.begin() + axis);
    }
    int v = value(val(a).dtype, s, vd);
    Op& o = op(k, {a}, v);
    o.axes = {axis};
    o.keepdim = keepdim;
    return v;
  }
  int transpose(int a, int d0, int d1) {
    auto s = val(a).shape, vd = val(a).valid;
    std::swap(s[d0], s[d1]);
    std::swap(vd[d0], vd[d1]);
    int v = value(val(a).dtype, s, vd);
    op(OpKind::Transpose, {a}, v).axes = {d0, d1};
    return v;
  }
  int matmul(int a, int b, DType out = DType::fp32, bool ta = false, bool tb = false) {
    auto sa = val(a).shape, sb = val(b).shape;
    DimExpr M = ta ? sa[sa.size() - 1] : sa[sa.size() - 2];
    DimExpr N = tb ? sb[sb.size() - 2] : sb[sb.size() - 1];
    std::vector<DimExpr> s;
    if (sa.size() == 3) s.push_back(sa[0]);
    s.push_back(M);
    s.push_back(N);
    int v = value(out, s);
    Op& o = op(OpKind::Matmul, {a, b}, v);
    o.dtype = out;
    o.trans_a = ta;
    o.trans_b = tb;
    return v;
  }
  void assemble(int v, int t, std::vector<int64_t> off) {
    Op& o = op(OpKind::Assemble, {v}, -1);
    o.tensor = t;
    for (auto x : off) o.offsets.push_back(DimExpr(x));
  }
  // One top-level root holding every op.
  Program finish() {
    RootTemplate r;
    r.index = 0;
    r.name = "top_0";
    r.ops = root_ops;
    p.roots = {r};
    LoopNode n;
    n.kind = LoopNode::Kind::Root;
    n.root = 0;
    p.body = {n};
    return p;
  }
};

}  // namespace ptoc::test
