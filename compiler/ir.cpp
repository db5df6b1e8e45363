#include "compiler/ir.h"

#include "compiler/op_table.h"

#include <cmath>
#include <stdexcept>

namespace ptoc {

std::string_view op_kind_name(OpKind k) { return op_spec(k).name; }

bool is_binary(OpKind k) { return op_spec(k).form == OpForm::Binary; }
bool is_unary(OpKind k) { return op_spec(k).form == OpForm::Unary; }
bool is_reduction(OpKind k) { return op_spec(k).form == OpForm::Reduce; }
bool is_vector_op(OpKind k) {
  const OpForm f = op_spec(k).form;
  return f == OpForm::Binary || f == OpForm::Unary || f == OpForm::Reduce || f == OpForm::Select ||
         k == OpKind::Cast || k == OpKind::Transpose || k == OpKind::Concat || k == OpKind::Full ||
         k == OpKind::Uniform || k == OpKind::Normal ||  // --- random ops ---
         k == OpKind::Bitcast ||  // --- pack / unpack ---
         k == OpKind::SortValues || k == OpKind::SortIndices;  // --- sort ---
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
    case OpKind::Exp2: return std::exp2(x);
    case OpKind::Log2: return std::log2(x);
    case OpKind::Log1p: return std::log1p(x);
    case OpKind::Expm1: return std::expm1(x);
    case OpKind::Sin: return std::sin(x);
    case OpKind::Cos: return std::cos(x);
    case OpKind::Erf: return std::erf(x);
    case OpKind::Round: return std::nearbyint(x);  // half to even (FE_TONEAREST), as NumPy's rint
    case OpKind::Floor: return std::floor(x);
    case OpKind::Ceil: return std::ceil(x);
    case OpKind::Trunc: return std::trunc(x);
    case OpKind::Sign: return std::isnan(x) ? x : double((x > 0) - (x < 0));
    case OpKind::Isfinite: return std::isfinite(x) ? 1.0 : 0.0;
    case OpKind::LogicalNot: return x == 0 ? 1.0 : 0.0;
    case OpKind::BitwiseNot: return double(~int64_t(x));
    // --- math ops ---
    case OpKind::Acos: return std::acos(x);
    case OpKind::Asin: return std::asin(x);
    case OpKind::Atan: return std::atan(x);
    case OpKind::Acosh: return std::acosh(x);
    case OpKind::Asinh: return std::asinh(x);
    case OpKind::Atanh: return std::atanh(x);
    case OpKind::Sinh: return std::sinh(x);
    case OpKind::Cosh: return std::cosh(x);
    case OpKind::Tan: return std::tan(x);
    case OpKind::Cbrt: return std::cbrt(x);
    case OpKind::Erfc: return std::erfc(x);
    case OpKind::Signbit: return std::signbit(x) && !std::isnan(x) ? 1.0 : 0.0;  // PyPTO: NaN is false
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
