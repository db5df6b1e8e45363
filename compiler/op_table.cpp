#include "compiler/op_table.h"

#include <stdexcept>

namespace ptoc {

namespace {

using F = OpForm;
using O = OperandRule;
using R = ResultRule;
using K = OpKind;

// Rows in the order of specs/README.md's op table. The first block is the
// first release's ops (their parameter names and messages are pinned by
// tests); later rows take PyPTO's parameter names.
constexpr OpSpec kOps[] = {
    {"tensor", K::TensorRef, F::Internal, O::Any, R::Operand, "", 0, "a whole GM tensor as a value"},
    {"assemble", K::Assemble, F::Internal, O::Any, R::Operand, "", 0, "NAME[SLICES] = EXPR: store a value into a tensor"},
    {"add", K::Add, F::Binary, O::Any, R::Operand, "a b", 2, "a + b"},
    {"sub", K::Sub, F::Binary, O::Any, R::Operand, "a b", 2, "a - b"},
    {"mul", K::Mul, F::Binary, O::Any, R::Operand, "a b", 2, "a * b"},
    {"div", K::Div, F::Binary, O::Any, R::Operand, "a b precision_type", 2, "a / b (integers truncate, x / 0 is 0)"},
    {"maximum", K::Maximum, F::Binary, O::Any, R::Operand, "a b", 2, "elementwise maximum, NaN propagates"},
    {"minimum", K::Minimum, F::Binary, O::Any, R::Operand, "a b", 2, "elementwise minimum, NaN propagates"},
    {"exp", K::Exp, F::Unary, O::Float, R::Operand, "a precision_type", 1, "e^x"},
    {"log", K::Log, F::Unary, O::Float, R::Operand, "a precision_type", 1, "natural logarithm"},
    {"sqrt", K::Sqrt, F::Unary, O::Float, R::Operand, "a precision_type", 1, "square root"},
    {"rsqrt", K::Rsqrt, F::Unary, O::Float, R::Operand, "a precision_type", 1, "1 / sqrt(x)"},
    {"abs", K::Abs, F::Unary, O::Any, R::Operand, "a", 1, "|x|"},
    {"neg", K::Neg, F::Unary, O::Any, R::Operand, "a", 1, "-x"},
    {"reciprocal", K::Reciprocal, F::Unary, O::Float, R::Operand, "a precision_type", 1, "1 / x"},
    {"relu", K::Relu, F::Unary, O::Any, R::Operand, "a", 1, "max(x, 0)"},
    {"sigmoid", K::Sigmoid, F::Unary, O::Float, R::Operand, "a", 1, "1 / (1 + e^-x)"},
    {"tanh", K::Tanh, F::Unary, O::Float, R::Operand, "a", 1, "hyperbolic tangent"},
    {"gelu", K::Gelu, F::Unary, O::Float, R::Operand, "a", 1, "tanh form 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))"},
    {"silu", K::Silu, F::Unary, O::Float, R::Operand, "a", 1, "x * sigmoid(x)"},
    {"sum", K::Sum, F::Reduce, O::Any, R::Operand, "a dim keepdim", 2, "sum over one axis"},
    {"amax", K::Amax, F::Reduce, O::Any, R::Operand, "a dim keepdim", 2, "maximum over one axis"},
    {"amin", K::Amin, F::Reduce, O::Any, R::Operand, "a dim keepdim", 2, "minimum over one axis"},
    {"mean", K::Mean, F::Reduce, O::Float, R::Operand, "a dim keepdim", 2, "mean over one axis"},
    {"cast", K::Cast, F::Cast, O::Any, R::Attribute, "a dtype mode satmode", 2,
     "convert to dtype (PyPTO's CastMode rounding, SaturationMode clipping)"},
    {"matmul", K::Matmul, F::Matmul, O::Numeric, R::Attribute, "a b out_dtype trans_a trans_b scale relu_type", 2,
     "matrix product on the cube unit (float, int8 x int8 -> int32, or -> fp16 with the fixpipe's scale=)"},
    {"transpose", K::Transpose, F::Transpose, O::Any, R::Operand, "a d0 d1", 3, "swap two axes"},
    {"reshape", K::Reshape, F::Reshape, O::Any, R::Operand, "a shape inplace valid_shape", 2, "same elements, new shape"},
    {"view", K::View, F::View, O::Any, R::Operand, "a shape offsets valid dtype", 1,
     "a window of a value, or (dtype=) its bytes read as another dtype"},
    {"concat", K::Concat, F::Concat, O::Any, R::Operand, "tensors dim", 1, "join along one axis (dim 0 by default, PyPTO's)"},
    {"full", K::Full, F::Full, O::Any, R::Attribute, "shape value dtype", 3, "a constant tensor"},
    // PyPTO's catalogue, first tranche.
    {"eq", K::Eq, F::Binary, O::Any, R::Bool, "input other", 2, "input == other (also the operator ==)"},
    {"ne", K::Ne, F::Binary, O::Any, R::Bool, "input other", 2, "input != other (also !=)"},
    {"lt", K::Lt, F::Binary, O::Any, R::Bool, "input other", 2, "input < other (also <)"},
    {"le", K::Le, F::Binary, O::Any, R::Bool, "input other", 2, "input <= other (also <=)"},
    {"gt", K::Gt, F::Binary, O::Any, R::Bool, "input other", 2, "input > other (also >)"},
    {"ge", K::Ge, F::Binary, O::Any, R::Bool, "input other", 2, "input >= other (also >=)"},
    {"logical_and", K::LogicalAnd, F::Binary, O::Any, R::Bool, "input other", 2, "both non-zero"},
    {"logical_or", K::LogicalOr, F::Binary, O::Any, R::Bool, "input other", 2, "either non-zero"},
    {"logical_not", K::LogicalNot, F::Unary, O::Any, R::Bool, "input", 1, "x == 0"},
    {"bitwise_and", K::BitwiseAnd, F::Binary, O::Integer, R::Operand, "input other", 2, "two's-complement AND"},
    {"bitwise_or", K::BitwiseOr, F::Binary, O::Integer, R::Operand, "input other", 2, "two's-complement OR"},
    {"bitwise_xor", K::BitwiseXor, F::Binary, O::Integer, R::Operand, "input other", 2, "two's-complement XOR"},
    {"bitwise_not", K::BitwiseNot, F::Unary, O::Integer, R::Operand, "input", 1, "two's-complement NOT (~x)"},
    {"where", K::Where, F::Select, O::Any, R::Operand, "condition input other", 3, "input where condition else other"},
    {"pow", K::Pow, F::Binary, O::Float, R::Operand, "input other precision_type", 2, "input ** other"},
    {"clip", std::nullopt, F::Composite, O::Numeric, R::Operand, "input min max", 1, "minimum(maximum(input, min), max)"},
    {"exp2", K::Exp2, F::Unary, O::Float, R::Operand, "input", 1, "2^x"},
    {"log2", K::Log2, F::Unary, O::Float, R::Operand, "input precision_type", 1, "base-2 logarithm"},
    {"log1p", K::Log1p, F::Unary, O::Float, R::Operand, "input", 1, "log(1 + x)"},
    {"expm1", K::Expm1, F::Unary, O::Float, R::Operand, "input", 1, "e^x - 1"},
    {"sin", K::Sin, F::Unary, O::Float, R::Operand, "input", 1, "sine"},
    {"cos", K::Cos, F::Unary, O::Float, R::Operand, "input", 1, "cosine"},
    {"erf", K::Erf, F::Unary, O::Float, R::Operand, "input", 1, "error function"},
    {"round", K::Round, F::Unary, O::Numeric, R::Operand, "input decimals", 1, "round half to even, to `decimals` places"},
    {"floor", K::Floor, F::Unary, O::Numeric, R::Operand, "input", 1, "round toward -inf"},
    {"ceil", K::Ceil, F::Unary, O::Numeric, R::Operand, "input", 1, "round toward +inf"},
    {"trunc", K::Trunc, F::Unary, O::Numeric, R::Operand, "input", 1, "round toward 0"},
    {"sign", K::Sign, F::Unary, O::Numeric, R::Operand, "input", 1, "-1, 0 or 1 (NaN stays NaN)"},
    {"isfinite", K::Isfinite, F::Unary, O::Any, R::Bool, "input", 1, "not inf and not NaN"},
    {"prod", K::Prod, F::Reduce, O::Any, R::Operand, "input dim keepdim", 2, "product over one axis"},
    {"var", std::nullopt, F::Composite, O::Float, R::Operand, "input dim correction keepdim unbiased", 1,
     "variance over axes (all by default), divided by N - correction"},
    {"argmax", K::Argmax, F::Reduce, O::Numeric, R::Int32, "input dim keepdim", 2, "int32 index of the first maximum"},
    {"argmin", K::Argmin, F::Reduce, O::Numeric, R::Int32, "input dim keepdim", 2, "int32 index of the first minimum"},
    // --- quant: quantisation (elaborate_quant.cpp writes them as round/clip/mul/add/cast/matmul)
    {"quantize", std::nullopt, F::Composite, O::Float, R::Attribute, "input scale otype axis zero_points", 4,
     "saturate(rint(input * scale + zero_points)) to int8/uint8, a scale per row or per column"},
    {"dequantize", std::nullopt, F::Composite, O::Integer, R::Attribute, "input scale otype axis zero_points", 4,
     "(fp32(input) + zero_points) * scale, a scale per row or per column"},
    {"scaled_mm", std::nullopt, F::Composite, O::Integer, R::Attribute,
     "mat_a mat_b out_dtype scale_a scale_b a_trans b_trans", 5,
     "int8 x int8 -> int32 matmul, times scale_a per row and scale_b per column, to out_dtype"},
    // --- catalog: PyPTO's composition ops, written by the front end as the ops above (elaborate_catalog.cpp) ---
    {"zeros", std::nullopt, F::Composite, O::Any, R::Attribute, "size dtype", 1, "a tensor of 0: zeros(16, 64, dtype=fp32)"},
    {"ones", std::nullopt, F::Composite, O::Any, R::Attribute, "size dtype", 1, "a tensor of 1: ones([16, 64], dtype=fp32)"},
    {"unsqueeze", std::nullopt, F::Composite, O::Any, R::Operand, "input dim", 2, "a size-1 axis inserted at dim"},
    {"expand_clone", std::nullopt, F::Composite, O::Any, R::Operand, "input shape valid_shape", 2,
     "size-1 axes stretched to shape, a copy"},
    {"permute", std::nullopt, F::Composite, O::Any, R::Operand, "input perm", 2, "axes reordered: result axis i is perm[i]"},
    {"softmax", std::nullopt, F::Composite, O::Float, R::Operand, "input dim", 2, "exp(x - amax) / sum over dim, in fp32"},
    {"rms_norm", std::nullopt, F::Composite, O::Float, R::Operand, "input gamma epsilon", 1,
     "x / sqrt(mean(x * x) + epsilon) * gamma over the last axis, in fp32"},
    {"tril", std::nullopt, F::Composite, O::Any, R::Operand, "input diagonal", 1,
     "x where column - row <= diagonal, else 0 (last two axes)"},
    {"triu", std::nullopt, F::Composite, O::Any, R::Operand, "input diagonal", 1,
     "x where column - row >= diagonal, else 0 (last two axes)"},
    {"arange", std::nullopt, F::Composite, O::Numeric, R::Attribute, "start end step", 1,
     "start, start + step, ... below end: int32 for integers, else fp32"},
    {"one_hot", std::nullopt, F::Composite, O::Integer, R::Int32, "input num_classes", 2,
     "int32 [..., num_classes], 1 at each element's class"},
    {"topk", std::nullopt, F::Composite, O::Numeric, R::Operand, "input k dim largest", 2,
     "v, i = topk(x, k): the k largest (smallest) along the last axis, sorted, with int32 indices"},
    {"argsort", std::nullopt, F::Composite, O::Numeric, R::Int32, "input dim descending", 1,
     "int32 indices of a stable sort along dim"},
    {"cumsum", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim", 2,
     "inclusive prefix sum along dim (a log-step scan)"},
    {"cumprod", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim", 2,
     "inclusive prefix product along dim (a log-step scan)"},
    // --- flash attention's online softmax, padding, gather and scatter by an index tensor
    // (elaborate_online_softmax.cpp, elaborate_pad.cpp, elaborate_gather.cpp) ---
    {"online_softmax", std::nullopt, F::Composite, O::Float, R::Operand, "scores scale", 2,
     "e, m, l = online_softmax(scores, scale): bf16 exp(scores * scale - column max), column max and sum"},
    {"online_softmax_update", std::nullopt, F::Composite, O::Float, R::Operand,
     "previous_max previous_sum previous_output current_max current_sum current_output", 6,
     "m, l, o = online_softmax_update(...): two online-softmax states merged"},
    {"pad", std::nullopt, F::Composite, O::Numeric, R::Operand, "input pad mode value", 2,
     "constant padding on the right and bottom: pad=[0, right, 0, bottom]"},
    {"fillpad", std::nullopt, F::Composite, O::Numeric, R::Operand, "input mode value", 1,
     "the same shape, every element past the valid shape set to value"},
    {"gather", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index", 3,
     "out[..j..] = input[..index[..j..]..] along dim, index int32 of the result's shape"},
    {"index_add", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index source alpha", 4,
     "input with alpha * source[.., t, ..] added at index[t] along dim; duplicates accumulate"},
    {"index_add_", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index source alpha", 4,
     "x = index_add_(x, dim, index, source): index_add, bound by name (PyPTO updates in place and returns input)"},
    {"scatter", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index src reduce", 4,
     "input with src[..j..] written at index[..j..] along dim (the last write wins), or added / multiplied in"},
    {"scatter_", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index src reduce", 4,
     "x = scatter_(x, dim, index, src): scatter, bound by name (PyPTO updates in place)"},
    {"index_put_", std::nullopt, F::Composite, O::Numeric, R::Operand, "input indices values accumulate", 3,
     "y = index_put_(x, [index], values): rows index[t] set to values[t] (the last write wins), or added"},
    // --- scatter_update of a GM tensor in place (elaborate_scatter_update.cpp) ---
    {"scatter_update", std::nullopt, F::Composite, O::Any, R::Operand, "input dim index src", 4,
     "cache = scatter_update(cache, -2, index, src): src's rows written in place at the slots index holds"},
    // --- compositions (elaborate_compose_math.cpp) ---
    {"clone", std::nullopt, F::Composite, O::Any, R::Operand, "input", 1, "the same value (values are immutable)"},
    {"isnan", std::nullopt, F::Composite, O::Numeric, R::Bool, "input", 1, "x != x"},
    {"log10", std::nullopt, F::Composite, O::Float, R::Operand, "input precision_type", 1, "log(x) * (1 / ln 10)"},
    {"lrelu", std::nullopt, F::Composite, O::Float, R::Operand, "input negative_slope", 1,
     "x where x > 0, else x * negative_slope (0.01)"},
    {"hypot", std::nullopt, F::Composite, O::Float, R::Operand, "input other", 2, "sqrt(x * x + y * y)"},
    // --- structural ops --- (elaborate_structural_ops.cpp: views, reshapes, concat, transposes, index_add, matmul)
    {"interleave", std::nullopt, F::Composite, O::Numeric, R::Operand, "input other", 2,
     "a, b = interleave(x, y): the stream x0 y0 x1 y1 ... along the last axis, split at its middle"},
    {"deinterleave", std::nullopt, F::Composite, O::Numeric, R::Operand, "input other", 1,
     "e, o = deinterleave(s) or (s0, s1): the stream's even and odd elements along the last axis"},
    {"gathermask", std::nullopt, F::Composite, O::Numeric, R::Operand, "self pattern_mode", 2,
     "element k of every 2 (modes 1, 2) or 4 (modes 3..6) along the last axis; mode 7: all"},
    {"index_add_ub", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index source alpha", 4,
     "index_add with PyPTO's UB rules (the indexed axis whole in the vec_tile)"},
    {"index_add__ub", std::nullopt, F::Composite, O::Numeric, R::Operand, "input dim index source alpha", 4,
     "x = index_add__ub(x, dim, index, source): index_add_ub, bound by name"},
    {"transposed_batchmatmul", std::nullopt, F::Composite, O::Float, R::Attribute, "tensor_a tensor_b out_dtype", 3,
     "[M, B, K] x [B, K, N] -> [M, B, N]: a batched matmul over axis 1 of tensor_a (fp16 / bf16)"},
    {"atomic_add", std::nullopt, F::Composite, O::Numeric, R::Operand, "src offsets dst", 3,
     "the statement atomic_add(src, [offsets], dst): dst's window at offsets += src, in program order"},
    {"gather_in_ub", std::nullopt, F::Composite, O::Float, R::Operand, "param indices block_table block_size axis", 4,
     "rows param[block_table[0, t / bs] * bs + t % bs] for t in indices[0, :]: [k, hidden_dim]"},
    {"set_operation_options", std::nullopt, F::Composite, O::Any, R::Operand, "combine_axis", 0,
     "the statement set_operation_options(combine_axis=true): accepted; ptoc's kernels broadcast inline already"},
    // --- math ops --- (their own op kinds and tile-library op codes; compiler/ops_math.cpp,
    // elaborate_math_ops.cpp for the dtype rules past the operand rule)
    {"acos", K::Acos, F::Unary, O::Float, R::Operand, "input", 1, "arccosine in [0, pi]; NaN outside [-1, 1]"},
    {"asin", K::Asin, F::Unary, O::Float, R::Operand, "input", 1, "arcsine in [-pi/2, pi/2]; NaN outside [-1, 1]"},
    {"atan", K::Atan, F::Unary, O::Float, R::Operand, "input", 1, "arctangent in (-pi/2, pi/2)"},
    {"acosh", K::Acosh, F::Unary, O::Float, R::Operand, "input", 1, "inverse hyperbolic cosine; NaN below 1"},
    {"asinh", K::Asinh, F::Unary, O::Float, R::Operand, "input", 1, "inverse hyperbolic sine"},
    {"atanh", K::Atanh, F::Unary, O::Float, R::Operand, "input", 1, "inverse hyperbolic tangent; +-inf at +-1"},
    {"sinh", K::Sinh, F::Unary, O::Float, R::Operand, "input", 1, "hyperbolic sine"},
    {"cosh", K::Cosh, F::Unary, O::Float, R::Operand, "input", 1, "hyperbolic cosine"},
    {"tan", K::Tan, F::Unary, O::Float, R::Operand, "input", 1, "tangent"},
    {"cbrt", K::Cbrt, F::Unary, O::Float, R::Operand, "input", 1, "cube root (negative for negative x)"},
    {"erfc", K::Erfc, F::Unary, O::Float, R::Operand, "input", 1, "1 - erf(x), without the cancellation"},
    {"signbit", K::Signbit, F::Unary, O::Numeric, R::Bool, "input", 1,
     "sign bit set: true for x < 0 and -0.0, false for NaN (not uint8)"},
    {"atan2", K::Atan2, F::Binary, O::Float, R::Operand, "y x", 2, "the angle of (x, y) in [-pi, pi]"},
    {"fmod", K::Fmod, F::Binary, O::Float, R::Operand, "input other precision_type", 2,
     "input - trunc(input / other) * other, the dividend's sign (C fmod; x fmod 0 is NaN)"},
    {"remainder", K::Remainder, F::Binary, O::Numeric, R::Operand, "input other precision_type", 2,
     "input - floor(input / other) * other, the divisor's sign; integers (int32) % 0 is 0"},
    {"floor_div", K::FloorDiv, F::Binary, O::Numeric, R::Operand, "input other", 2,
     "floor(input / other): floats floor the fp32 quotient, integers // 0 is 0"},
    {"ceil_div", K::CeilDiv, F::Binary, O::Integer, R::Operand, "self other", 2,
     "ceil(self / other) of int32; ceil_div(x, 0) is 0"},
    {"gcd", K::Gcd, F::Binary, O::Integer, R::Operand, "input other", 2, "greatest common divisor, >= 0; gcd(0, 0) = 0"},
    {"bitwise_left_shift", K::BitwiseLeftShift, F::Binary, O::Integer, R::Operand, "input other", 2,
     "input << other, wrapped; a count outside [0, width) gives 0"},
    {"bitwise_right_shift", K::BitwiseRightShift, F::Binary, O::Integer, R::Operand, "input other", 2,
     "input >> other, arithmetic; a count past the width gives -1 or 0"},
    {"prelu", std::nullopt, F::Composite, O::Float, R::Operand, "input weight", 2,
     "input where input >= 0, else input * weight (a weight per channel, axis 1)"},
    {"axpy_", std::nullopt, F::Composite, O::Float, R::Operand, "y x alpha", 2,
     "y = axpy_(y, x, alpha): y + x * alpha, x broadcast to y (PyPTO updates y in place)"},
    {"expand_exp_dif", std::nullopt, F::Composite, O::Float, R::Operand, "input other", 2,
     "exp(input - other), broadcasting"},
    // --- conv ops --- (elaborate_conv_im2col.cpp: im2col by views, transposes, concat; one matmul per group)
    {"conv", std::nullopt, F::Composite, O::Float, R::Operand,
     "input_conv weight out_dtype strides paddings dilations groups transposed output_paddings bias_tensor relu_type", 6,
     "1D / 2D convolution of NCL / NCHW input, im2col on the cube (fp32 sums, rounded once)"},
    {"gather_in_l1", std::nullopt, F::Composite, O::Numeric, R::Operand,
     "src indices block_table block_size size is_b_matrix is_trans", 7,
     "rows src[block_table[0, t / bs] * bs + t % bs, 0:size] for t in indices[0, :], for a matmul: [k, size]"},
    // --- random ops --- (op kinds of their own, tile function TRANDOM; compiler/ops_random.cpp,
    // elaborate_random.cpp for PyPTO's argument rules)
    {"uniform", K::Uniform, F::Composite, O::Float, R::Attribute, "shape key counter alg dtype", 5,
     "Philox 4x32-10 uniform [0, 1) of a shape, from key [k] and counter [c0, c1] (c0 ignored), alg [1] or [3]"},
    {"normal", K::Normal, F::Composite, O::Float, R::Attribute, "shape key counter alg dtype", 5,
     "Philox 4x32-10 standard normal (Box-Muller in fp32) of a shape, from key, counter, alg as uniform"},
    // --- pack / unpack --- (elaborate_pack.cpp: a byte reinterpretation, op kind Bitcast, then a reshape)
    {"pack", std::nullopt, F::Composite, O::Numeric, R::Attribute, "input", 1,
     "the input flattened to 1-D and its bytes read as uint8 (little-endian), numel * sizeof elements"},
    {"unpack", std::nullopt, F::Composite, O::Any, R::Attribute, "input dtype", 2,
     "a 1-D uint8 input's consecutive bytes read as dtype (PyPTO's dstDataType) elements, n / sizeof of them"},
    {"bitcast", K::Bitcast, F::Internal, O::Any, R::Attribute, "", 0, "the bytes of a tile read as another dtype"},
    // --- sort --- (topk and argsort's per-tile sort and merge, elaborate_catalog.cpp)
    {"sort_values", K::SortValues, F::Internal, O::Numeric, R::Operand, "", 0, "the first k values of a row sort"},
    {"sort_indices", K::SortIndices, F::Internal, O::Numeric, R::Int32, "", 0, "the first k int32 indices of a row sort"},
};

// docs/zh/api/operation/ of hicann/pypto (pypto-NAME.md; experimental-NAME is
// written NAME here, as a port calls it).
constexpr PyptoOp kPypto[] = {
    {"abs", "abs"}, {"acos", "acos"}, {"acosh", "acosh"}, {"add", "add"}, {"amax", "amax"}, {"amin", "amin"},
    {"arange", "arange"}, {"argmax", "argmax"}, {"argmin", "argmin"}, {"argsort", "argsort"}, {"asin", "asin"}, {"asinh", "asinh"},
    {"assemble", "NAME[...] = x"}, {"atan", "atan"}, {"atan2", "atan2"}, {"atanh", "atanh"}, {"atomic_add", "atomic_add"}, {"axpy_", "axpy_"},
    {"bitwise_and", "bitwise_and"}, {"bitwise_left_shift", "bitwise_left_shift"}, {"bitwise_not", "bitwise_not"},
    {"bitwise_or", "bitwise_or"}, {"bitwise_right_shift", "bitwise_right_shift"}, {"bitwise_xor", "bitwise_xor"}, {"cast", "cast"},
    {"cbrt", "cbrt"}, {"ceil", "ceil"}, {"ceil_div", "ceil_div"}, {"clip", "clip"}, {"clone", "clone"}, {"concat", "concat"},
    {"conv", "conv"}, {"cos", "cos"}, {"cosh", "cosh"}, {"cumprod", "cumprod"}, {"cumsum", "cumsum"}, {"deinterleave", "deinterleave"},
    {"dequantize", "dequantize"}, {"div", "div"}, {"eq", "eq"}, {"erf", "erf"}, {"erfc", "erfc"}, {"exp", "exp"},
    {"exp2", "exp2"}, {"expand_clone", "expand_clone"}, {"expand_exp_dif", "expand_exp_dif"}, {"gather_in_l1", "gather_in_l1"}, {"gather_in_ub", "gather_in_ub"},
    {"get_operation_options", ""}, {"online_softmax", "online_softmax"}, {"online_softmax_update", "online_softmax_update"},
    {"set_operation_options", "set_operation_options"}, {"transposed_batchmatmul", "transposed_batchmatmul"}, {"expm1", "expm1"}, {"fillpad", "fillpad"},
    {"floor", "floor"}, {"floor_div", "floor_div"}, {"fmod", "fmod"}, {"full", "full"}, {"gather", "gather"}, {"gathermask", "gathermask"},
    {"gcd", "gcd"}, {"ge", "ge"}, {"gt", "gt"}, {"hypot", "hypot"}, {"index_add", "index_add"}, {"index_add_", "index_add_"},
    {"index_add__ub", "index_add__ub"}, {"index_add_ub", "index_add_ub"}, {"index_put_", "index_put_"}, {"index_select", "index_select(x, dim, idx)"}, {"interleave", "interleave"},
    {"isfinite", "isfinite"}, {"isnan", "isnan"}, {"le", "le"}, {"log", "log"}, {"log10", "log10"}, {"log1p", "log1p"},
    {"log2", "log2"}, {"logical_and", "logical_and"}, {"logical_not", "logical_not"}, {"lrelu", "lrelu"}, {"lt", "lt"},
    {"matmul", "matmul"}, {"maximum", "maximum"}, {"minimum", "minimum"}, {"mul", "mul"}, {"ne", "ne"},
    {"neg", "neg"}, {"normal", "normal"}, {"one_hot", "one_hot"}, {"ones", "ones"}, {"pack", "pack"}, {"pad", "pad"}, {"permute", "permute"},
    {"pow", "pow"}, {"prelu", "prelu"}, {"prod", "prod"}, {"quant_mx", ""}, {"quantize", "quantize"},
    {"reciprocal", "reciprocal"}, {"relu", "relu"}, {"remainder", "remainder"}, {"reshape", "reshape"}, {"rms_norm", "rms_norm"},
    {"round", "round"}, {"rsqrt", "rsqrt"}, {"scaled_mm", "scaled_mm"}, {"scatter", "scatter"}, {"scatter_", "scatter_"},
    {"scatter_update", "scatter_update"}, {"sigmoid", "sigmoid"}, {"sign", "sign"}, {"signbit", "signbit"}, {"sin", "sin"},
    {"sinh", "sinh"}, {"softmax", "softmax"}, {"sqrt", "sqrt"}, {"sub", "sub"}, {"sum", "sum"}, {"tan", "tan"},
    {"tanh", "tanh"}, {"topk", "topk"}, {"transpose", "transpose"}, {"tril", "tril"}, {"triu", "triu"}, {"trunc", "trunc"},
    {"uniform", "uniform"}, {"unpack", "unpack"}, {"unsqueeze", "unsqueeze"}, {"var", "var"}, {"view", "view"}, {"where", "where"},
    {"zeros", "zeros"},
};

}  // namespace

std::span<const OpSpec> op_table() { return kOps; }

const OpSpec& op_spec(OpKind k) {
  for (const auto& r : kOps)
    if (r.kind == k) return r;
  throw std::logic_error("op_spec: an op kind without a row in the op table");
}

const OpSpec* find_op(std::string_view name) {
  for (const auto& r : kOps)
    if (r.form != OpForm::Internal && r.name == name) return &r;
  return nullptr;
}

std::span<const PyptoOp> pypto_catalogue() { return kPypto; }

const PyptoOp* find_pypto_op(std::string_view name) {
  for (const auto& r : kPypto)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace ptoc
