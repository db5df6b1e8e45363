#include "compiler/ir.h"

#include <cmath>
#include <stdexcept>

namespace ptoc {

std::string_view op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::TensorRef: return "tensor";
    case OpKind::Full: return "full";
    case OpKind::Add: return "add";
    case OpKind::Sub: return "sub";
    case OpKind::Mul: return "mul";
    case OpKind::Div: return "div";
    case OpKind::Maximum: return "maximum";
    case OpKind::Minimum: return "minimum";
    case OpKind::Exp: return "exp";
    case OpKind::Log: return "log";
    case OpKind::Sqrt: return "sqrt";
    case OpKind::Rsqrt: return "rsqrt";
    case OpKind::Abs: return "abs";
    case OpKind::Neg: return "neg";
    case OpKind::Reciprocal: return "reciprocal";
    case OpKind::Relu: return "relu";
    case OpKind::Sigmoid: return "sigmoid";
    case OpKind::Tanh: return "tanh";
    case OpKind::Gelu: return "gelu";
    case OpKind::Silu: return "silu";
    case OpKind::Sum: return "sum";
    case OpKind::Amax: return "amax";
    case OpKind::Amin: return "amin";
    case OpKind::Mean: return "mean";
    case OpKind::Cast: return "cast";
    case OpKind::Matmul: return "matmul";
    case OpKind::Transpose: return "transpose";
    case OpKind::Reshape: return "reshape";
    case OpKind::View: return "view";
    case OpKind::Concat: return "concat";
    case OpKind::Assemble: return "assemble";
  }
  return "?";
}

bool is_binary(OpKind k) { return k >= OpKind::Add && k <= OpKind::Minimum; }
bool is_unary(OpKind k) { return k >= OpKind::Exp && k <= OpKind::Silu; }
bool is_reduction(OpKind k) { return k >= OpKind::Sum && k <= OpKind::Mean; }
bool is_vector_op(OpKind k) {
  return is_binary(k) || is_unary(k) || is_reduction(k) || k == OpKind::Cast || k == OpKind::Transpose ||
         k == OpKind::Concat || k == OpKind::Full;
}

double scalar_unary(OpKind k, double x) {
  auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  switch (k) {
    case OpKind::Exp: return std::exp(x);
    case OpKind::Log: return std::log(x);
    case OpKind::Sqrt: return std::sqrt(x);
    case OpKind::Rsqrt: return 1.0 / std::sqrt(x);
    case OpKind::Abs: return std::fabs(x);
    case OpKind::Neg: return -x;
    case OpKind::Reciprocal: return 1.0 / x;
    case OpKind::Relu: return x > 0 ? x : (std::isnan(x) ? x : 0.0);
    case OpKind::Sigmoid: return sigmoid(x);
    case OpKind::Tanh: return std::tanh(x);
    case OpKind::Gelu: return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case OpKind::Silu: return x * sigmoid(x);
    default: throw std::logic_error("scalar_unary: not a unary op");
  }
}

int Program::find_tensor(const std::string& n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return int(i);
  return -1;
}

const DimDecl* Program::find_dim(const std::string& n) const {
  for (const auto& d : dims)
    if (d.name == n) return &d;
  return nullptr;
}

}  // namespace ptoc
