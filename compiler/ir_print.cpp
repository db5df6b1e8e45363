// The stable text form of a Program (`ptoc SPEC --emit ir`). Golden tests
// pin it, so everything is printed in program order with fixed formatting.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "compiler/ir.h"
#include "compiler/ops_random.h"  // --- random ops ---
#include "runtime/program/knobs.h"

namespace ptoc {

namespace {

std::string dims_str(const std::vector<DimExpr>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) { if (i) r += ", "; r += s[i].str(); }
  return r + "]";
}

std::string ints_str(const int64_t* v, size_t n) {
  std::string r = "[";
  for (size_t i = 0; i < n; ++i) { if (i) r += ", "; r += std::to_string(v[i]); }
  return r + "]";
}

std::string num_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  return s;
}

std::string type_str(DType t, const std::vector<DimExpr>& shape) {
  return std::string(dtype_name(t)) + dims_str(shape);
}

bool same_shape(const std::vector<DimExpr>& a, const std::vector<DimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same(b[i])) return false;
  return true;
}

std::string vref(const Program& p, int id) {
  if (id < 0 || size_t(id) >= p.values.size()) return "%?";
  const Value& v = p.values[size_t(id)];
  std::string r = "%";
  r += std::to_string(id);
  if (!v.name.empty()) {
    r += ':';
    r += v.name;
  }
  return r;
}

std::string setting_str(const MergeSetting& s, const char* dflt) {
  if (!s.given) return dflt;
  std::string r = "{";
  for (size_t i = 0; i < s.entries.size(); ++i) {
    const auto& e = s.entries[i];
    if (i) r += ", ";
    r += e.name;
    r += ": ";
    if (e.side.empty()) {
      r += std::to_string(e.count);
    } else {
      r += '[';
      r += std::to_string(e.count);
      r += ", ";
      r += e.side;
      r += ']';
    }
  }
  return r + "}";
}

std::string op_line(const Program& p, const Op& op) {
  std::ostringstream os;
  if (op.output >= 0) os << vref(p, op.output) << " = ";
  os << op_kind_name(op.kind);
  auto operands = [&] {
    for (size_t i = 0; i < op.inputs.size(); ++i) os << (i ? ", " : " ") << "%" << op.inputs[i];
  };
  switch (op.kind) {
    case OpKind::TensorRef: os << " " << p.tensors[size_t(op.tensor)].name; break;
    case OpKind::Full: os << " " << num_str(op.fill); break;
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Maximum:
    case OpKind::Minimum:
      if (op.scalar) {
        if (op.scalar_first) os << " " << num_str(*op.scalar) << ", %" << op.inputs[0];
        else os << " %" << op.inputs[0] << ", " << num_str(*op.scalar);
      } else {
        operands();
      }
      break;
    case OpKind::Sum: case OpKind::Amax: case OpKind::Amin: case OpKind::Mean:
      operands();
      os << " axis=" << op.axes.at(0) << (op.keepdim ? " keepdim" : "");
      break;
    case OpKind::Matmul:
      operands();
      if (op.trans_a) os << " trans_a";
      if (op.trans_b) os << " trans_b";
      break;
    case OpKind::Transpose: operands(); os << " axes=(" << op.axes.at(0) << ", " << op.axes.at(1) << ")"; break;
    case OpKind::Reshape: operands(); if (op.inplace) os << " inplace"; break;
    case OpKind::View:
      operands();
      os << " offsets=" << dims_str(op.offsets);
      if (!op.valid.empty()) os << " valid_given=" << dims_str(op.valid);
      break;
    case OpKind::Concat: operands(); os << " axis=" << op.axes.at(0); break;
    case OpKind::SortValues: case OpKind::SortIndices:  // --- sort --- {axis, largest, index base}
      operands();
      os << " axis=" << op.axes.at(0) << (op.axes.at(1) ? " largest" : " smallest");
      if (op.axes.at(2) != 0) os << " base=" << op.axes.at(2);
      break;
    case OpKind::Uniform: case OpKind::Normal: {  // --- random ops ---
      operands();
      const PhiloxArgs a = philox_args(op.axes);
      os << " key=" << a.key << " counter=" << a.counter;
      break;
    }
    case OpKind::Assemble:
      operands();
      os << " -> " << p.tensors[size_t(op.tensor)].name << " offsets=" << dims_str(op.offsets);
      break;
    default: operands(); break;
  }
  if (op.output >= 0) {
    const Value& v = p.values[size_t(op.output)];
    os << " : " << type_str(v.dtype, v.shape);
    if (!same_shape(v.shape, v.valid)) os << " valid=" << dims_str(v.valid);
  }
  // Tile state that matters for this op, then scope and label.
  std::string st;
  if (is_vector_op(op.kind) && op.vec_tile) st += " vec=" + ints_str(op.vec_tile->shape.data(), op.vec_tile->shape.size());
  if (op.kind == OpKind::Matmul && op.cube_tile) {
    const CubeTile& c = *op.cube_tile;
    st += " cube=m" + ints_str(c.m.data(), 2) + "k" + ints_str(c.k.data(), c.k[2] == c.k[1] ? 2 : 3) + "n" +
          ints_str(c.n.data(), 2) + (c.split_k ? " split_k" : "");
  }
  if (op.scope.id >= 0) {
    st += " scope=" + std::to_string(op.scope.id);
    if (op.scope.parallel_merge) st += "+parallel";
    if (op.scope.cross_scope_merge) st += "+cross";
  }
  if (!op.label.empty()) st += " label=" + op.label;
  if (!st.empty()) os << "  {" << st.substr(1) << "}";
  if (op.loc.valid()) os << "  @" << op.loc.line << ":" << op.loc.col;
  return os.str();
}

void print_nodes(const Program& p, const std::vector<LoopNode>& nodes, int depth, std::ostringstream& os) {
  std::string ind(size_t(depth) * 2, ' ');
  for (const auto& n : nodes) {
    // Run-time values read before the node (specs/README.md "Run-time values").
    for (const auto& l : n.loads) os << ind << "reads " << l.sym << " = " << l.text << "\n";
    if (n.kind == LoopNode::Kind::Root) {
      const RootTemplate& r = p.roots[size_t(n.root)];
      os << ind << "root func" << r.index << " " << r.name << " (" << r.ops.size() << " ops)\n";
      continue;
    }
    os << ind << "loop " << n.name << ": " << n.var << " in range(" << n.begin.str() << ", " << n.end.str() << ", "
       << n.step.str() << ")";
    if (!n.factor_var.empty()) os << " factor " << n.factor_var;
    os << "\n";
    for (const auto& g : n.gears) {
      if (n.gears.size() > 1 || g.factor != 1) os << ind << "  gear " << g.factor << ":\n";
      print_nodes(p, g.body, depth + (n.gears.size() > 1 || g.factor != 1 ? 2 : 1), os);
    }
  }
}

}  // namespace

std::string print_ir(const Program& p) {
  std::ostringstream os;
  os << "program " << p.name << "\n";
  os << "target " << p.target << "\n";
  os << "dims\n";
  for (const auto& d : p.dims) {
    os << "  " << d.name << " = ";
    if (!d.dynamic) {
      os << d.value << "\n";
      continue;
    }
    os << "dynamic";
    if (d.max > 0) os << " max " << d.max;
    if (d.divisible_by > 1) os << " divisible_by " << d.divisible_by;
    os << "\n";
  }
  os << "tensors\n";
  for (const auto& t : p.tensors) {
    const char* role = t.role == TensorRole::Input ? "input" : t.role == TensorRole::Output ? "output" : "workspace";
    os << "  " << role << " " << t.name << " : " << type_str(t.dtype, t.shape);
    if (t.format == Format::NZ) os << " format=NZ";
    if (t.l2_bypass) os << " l2=bypass";
    if (!t.inplace.empty()) os << " inplace=" << t.inplace;
    os << "\n";
  }
  const Options& o = p.options;
  os << "options\n";
  for (const Knob& k : knobs()) {
    os << "  " << k.name() << " = ";
    switch (k.type) {
      case Knob::Type::Int: os << k.get(o); break;
      case Knob::Type::Bool: os << (k.get(o) ? "true" : "false"); break;
      case Knob::Type::Setting: os << setting_str(o.*(k.setting), std::string(k.setting_default).c_str()); break;
    }
    os << "\n";
  }
  os << "structure\n";
  print_nodes(p, p.body, 1, os);
  for (const auto& r : p.roots) {
    os << "\nroot func" << r.index << " " << r.name;
    if (!r.loop_vars.empty()) {
      os << " (loop vars:";
      for (const auto& v : r.loop_vars) os << " " << v;
      os << "; factor " << r.factor << ")";
    }
    os << "\n";
    for (int id : r.ops) os << "  " << op_line(p, p.ops[size_t(id)]) << "\n";
  }
  return os.str();
}

}  // namespace ptoc
