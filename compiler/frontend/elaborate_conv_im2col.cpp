// conv and gather_in_l1 of PyPTO's catalogue, PyPTO's names, argument orders, dtype and shape rules, written as ops
// ptoc has, so the evaluator, tiling, leaf programs, CCE and the machine model need nothing new:
//
//   conv(input_conv, weight, out_dtype, strides, paddings, dilations, *, groups=1, transposed=False,
//        output_paddings=[], bias_tensor=None, relu_type=NO_RELU)
//     input [N, Cin, (H,) W] (NCL / NCHW), weight [Cout, Cin / groups, (Kh,) Kw]; the result
//     [N, Cout, (Ho,) Wo], o = (i + p_lo + p_hi - d * (k - 1) - 1) / s + 1. (The elaboration is written
//     for any number of spatial axes, but PyPTO's 3D conv needs rank-5 tensors, which ptoc does not have.)
//     Written as im2col on the cube, the columns by data movement only: each spatial axis
//     zero-padded (full + concat) or cut to L = s * ((k - 1) * d / s + o), each tap k a view at k * d, a
//     stride s by splitting the axis as [L / s, s] (tap k's positions k * d + j * s are [k * d / s + j,
//     k * d % s]); the Kh * Kw taps of each channel are concatenated into the [Cin * K, N * P] column
//     matrix, and one matmul per group with the weight as [Cout / g, Cin / g * K] accumulates in fp32
//     (rounded once). The bias (fp32) and the relu are added to the fp32 sums, then cast to out_dtype.
//     PyPTO's extend_params dict is written as its keys: bias_tensor=, relu_type= (RELU or NO_RELU).
//   gather_in_l1(src, indices, block_table, block_size, size, is_b_matrix, is_trans)
//     PyPTO's paged gather of token rows into L1 to feed the cube: row j = src[block_table[0, t / bs] * bs +
//     t % bs, 0:size], t = indices[0, j]; [k, size]. Written as a one-hot [k, T] mask (the block table's
//     entry, then the row, as gather_in_ub finds them), each row picked by where and a sum over the tokens (
//     not a one-hot matmul, whose 0 * inf spread an inf or NaN of src to every row): exact;
//     an index or a block outside its table gives a row of 0. is_b_matrix and is_trans say how PyPTO lays
//     the rows out in L1 for the matmul that reads them (its a_trans / b_trans still transposes): checked,
//     the value is the same.
// Limits: static shapes, ND. (Columns built by 0/1 selection matmuls would spread an inf or NaN
// input over a whole selection row (0 * inf = NaN): the data is moved instead.)
#include "compiler/frontend/elaborate_conv_im2col.h"

#include <algorithm>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborate_structural_ops.h"
#include "compiler/frontend/scoped_tiles.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

namespace {

// A tile of `want`: its extents, the largest axis outside `keep` halved until it holds at most 4096
// elements (then the kept axes too).
VecTile fit_tile(std::vector<int64_t> want, std::vector<size_t> keep = {}) {
  auto elems = [&] {
    int64_t p = 1;
    for (int64_t w : want) p *= w;
    return p;
  };
  while (elems() > 4096) {
    size_t big = want.size();
    for (size_t i = 0; i < want.size(); ++i)
      if (std::find(keep.begin(), keep.end(), i) == keep.end() && want[i] > 1 &&
          (big == want.size() || want[i] > want[big]))
        big = i;
    if (big == want.size())
      for (size_t i = 0; i < want.size(); ++i)
        if (want[i] > 1 && (big == want.size() || want[i] > want[big])) big = i;
    if (big == want.size()) break;
    want[big] = (want[big] + 1) / 2;
  }
  VecTile t;
  t.shape = std::move(want);
  return t;
}

int64_t prod(const std::vector<int64_t>& v, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

Shape dims(const std::vector<int64_t>& v) {
  Shape s;
  for (int64_t x : v) s.push_back(DimExpr(x));
  return s;
}

class ConvIm2col {
 public:
  ConvIm2col(Elaborator& el, const Elaborator::Call& c) : el_(el), c_(c) {}

  EV run() {
    if (c_.fn == "conv") return conv();
    if (c_.fn == "gather_in_l1") return gather_in_l1();
    el_.err(c_.fo, c_.fl, "internal: conv op '" + c_.fn + "' has no elaboration");
    return EV::poison();
  }

 private:
  Elaborator& el_;
  const Elaborator::Call& c_;

  const Value& val(int v) const { return el_.p_.values[size_t(v)]; }
  std::string arg_text(size_t k) const { return el_.text_of(*c_.args[k]); }
  void err_at(const Expr& e, const std::string& msg, const std::string& hint = "") {
    el_.err(e.off, e.len, msg, hint);
  }

  int reshape(int v, const std::vector<int64_t>& sh) { return el_.reshape_to(v, dims(sh), dims(sh), c_.fo); }
  // A reshape of a view (a tap, a split axis), which copies it: under a tile of the view's rank.
  int reshape_copy(int v, const std::vector<int64_t>& sh) {
    std::vector<int64_t> s;
    for (const auto& d : val(v).shape) s.push_back(*d.as_const());
    ScopedTiles t(el_.ts_, fit_tile(s));
    return reshape(v, sh);
  }

  int cast(int v, DType to) {
    const Value x = val(v);
    if (x.dtype == to) return v;
    Op op;
    op.kind = OpKind::Cast;
    op.inputs = {v};
    op.dtype = to;
    return el_.emit(op, to, x.shape, x.valid, c_.fo, c_.fl);
  }

  // Axis `ax` of v with `lo` zeros before and `hi` after (a negative `hi` cuts that many off the end):
  // data movement only, so an inf or NaN stays in its element.
  int pad_axis(int v, size_t ax, int64_t lo, int64_t hi) {
    const Value x = val(v);
    std::vector<int64_t> s;
    for (const auto& d : x.shape) s.push_back(*d.as_const());
    if (hi < 0) {
      std::vector<int64_t> at(s.size(), 0);
      s[ax] += hi;
      v = window(v, at, s);
      hi = 0;
    }
    if (lo == 0 && hi == 0) return v;
    std::vector<int> parts;
    auto zeros = [&](int64_t n) {
      std::vector<int64_t> fs = s;
      fs[ax] = n;
      ScopedTiles t(el_.ts_, fit_tile(fs));
      Op f;
      f.kind = OpKind::Full;
      f.shape = dims(fs);
      f.fill = 0;
      f.dtype = x.dtype;
      return el_.emit(f, x.dtype, dims(fs), dims(fs), c_.fo, c_.fl);
    };
    if (lo > 0) parts.push_back(zeros(lo));
    parts.push_back(v);
    if (hi > 0) parts.push_back(zeros(hi));
    std::vector<int64_t> os = s;
    os[ax] += lo + hi;
    ScopedTiles t(el_.ts_, fit_tile(os, {ax}));
    Op op;
    op.kind = OpKind::Concat;
    op.inputs = parts;
    op.axes = {int(ax)};
    return el_.emit(op, x.dtype, dims(os), dims(os), c_.fo, c_.fl);
  }

  // A list of `n` compile-time integers in [lo, hi] (PyPTO's CheckDimParam / CheckDimensionRange).
  std::optional<std::vector<int64_t>> int_list(size_t k, size_t n, int64_t lo, int64_t hi, const std::string& form) {
    const Expr* x = c_.args[k];
    const std::string& name = c_.names[k];
    if (x->kind != Expr::Kind::List) {
      err_at(*x, "conv's " + name + " must be a list of " + std::to_string(n) + " integers (" + form + "), got '" +
                     el_.text_of(*x) + "'");
      return std::nullopt;
    }
    if (x->items.size() != n) {
      err_at(*x, "conv's " + name + " has " + std::to_string(x->items.size()) + " entries, a " +
                     std::to_string(n / (name == "paddings" ? 2 : 1)) + "D conv takes " + std::to_string(n) + " (" +
                     form + ")",
             "PyPTO's rule: len(" + name + ") matches the conv's dimension");
      return std::nullopt;
    }
    std::vector<int64_t> out;
    for (const auto& item : x->items) {
      auto v = el_.const_int(*item, "conv " + name + " entry");
      if (!v) return std::nullopt;
      if (*v < lo || *v > hi) {
        err_at(*item, "conv's " + name + " entries must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "], got " + std::to_string(*v),
               "PyPTO's rule");
        return std::nullopt;
      }
      out.push_back(*v);
    }
    return out;
  }

  // A tensor argument of static, whole shape in ND format.
  std::optional<std::vector<int64_t>> static_tensor(size_t k, const EV& v) {
    if (!el_.check_nz(v, *c_.args[k], c_.fn)) return std::nullopt;
    const Value& x = val(v.value);
    std::vector<int64_t> s;
    for (size_t i = 0; i < x.shape.size(); ++i) {
      auto n = x.shape[i].as_const();
      if (!n || !provably_equal(x.valid[i], x.shape[i])) {
        err_at(*c_.args[k], "'" + c_.fn + "' needs '" + arg_text(k) + "' of a static, whole shape, it has shape " +
                                shape_str(x.shape) + " valid " + shape_str(x.valid),
               "bind the dims in dims: (ptoc's conv and gather_in_l1 take static shapes)");
        return std::nullopt;
      }
      s.push_back(*n);
    }
    return s;
  }

  bool float_dtype(DType t, size_t k, const std::string& what) {
    if (t == DType::fp16 || t == DType::bf16 || t == DType::fp32) return true;
    err_at(*c_.args[k], "conv's " + what + " must be fp16, bf16 or fp32 (PyPTO's rule), '" + arg_text(k) + "' is " +
                            std::string(dtype_name(t)),
           "insert cast(" + arg_text(k) + ", fp16)");
    return false;
  }

  EV conv() {
    size_t positional = 0;
    for (const auto& a : c_.e.args)
      if (a.name.empty() && ++positional > 6) {
        err_at(*a.value, "conv's arguments after dilations are keyword-only (PyPTO's '*'), '" +
                             el_.text_of(*a.value) + "' is given by position",
               "write " + c_.names[positional - 1] + "=" + el_.text_of(*a.value));
        return EV::poison();
      }
    EV xv = el_.tensor_arg(c_, c_.args[0], "input_conv");
    EV wv = el_.tensor_arg(c_, c_.args[1], "weight");
    if (!xv.ok() || !wv.ok()) return EV::poison();
    auto xs = static_tensor(0, xv);
    auto ws = static_tensor(1, wv);
    if (!xs || !ws) return EV::poison();
    const DType dt = val(xv.value).dtype;
    if (!float_dtype(dt, 0, "input_conv") || !float_dtype(val(wv.value).dtype, 1, "weight")) return EV::poison();
    const size_t rank = xs->size();
    if (rank < 3 || rank > 5) {
      err_at(*c_.args[0], "conv's input_conv must have rank 3 (NCL) or 4 (NCHW), '" + arg_text(0) + "' has rank " +
                              std::to_string(rank),
             "PyPTO's 3D conv (NCDHW) needs rank-5 tensors, which ptoc does not have");
      return EV::poison();
    }
    if (ws->size() != rank) {
      err_at(*c_.args[1], "conv's weight must have input_conv's rank " + std::to_string(rank) + ", '" + arg_text(1) +
                              "' has rank " + std::to_string(ws->size()),
             "PyPTO's rule: weight [Cout, Cin / groups, kernel...] of the input's dimension");
      return EV::poison();
    }
    if (val(wv.value).dtype != dt) {
      err_at(*c_.args[1], "conv's weight must have input_conv's dtype " + std::string(dtype_name(dt)) + ", '" +
                              arg_text(1) + "' is " + std::string(dtype_name(val(wv.value).dtype)),
             "insert cast(" + arg_text(1) + ", " + std::string(dtype_name(dt)) + ")");
      return EV::poison();
    }
    auto od = el_.dtype_arg(c_.args[2], dt);
    if (!od) return EV::poison();
    if (*od != dt) {
      err_at(*c_.args[2], "conv's out_dtype must be input_conv's dtype " + std::string(dtype_name(dt)) + ", got " +
                              std::string(dtype_name(*od)),
             "PyPTO's rule (a different out_dtype is its fixpipe quantisation, not supported); cast the result");
      return EV::poison();
    }
    const size_t sd = rank - 2;  // spatial dims
    const char* form = sd == 1 ? "[w]" : sd == 2 ? "[h, w]" : "[d, h, w]";
    const char* pform = sd == 1 ? "[left, right]" : sd == 2 ? "[top, bottom, left, right]"
                                                            : "[front, back, top, bottom, left, right]";
    auto strides = int_list(3, sd, 1, 63, form);
    if (!strides) return EV::poison();
    auto pads = int_list(4, 2 * sd, 0, 255, pform);
    if (!pads) return EV::poison();
    auto dil = int_list(5, sd, 1, 63, form);
    if (!dil) return EV::poison();
    int64_t groups = 1;
    if (c_.args[6]) {
      auto g = el_.const_int(*c_.args[6], "conv groups");
      if (!g) return EV::poison();
      if (*g < 1 || *g > 65535) {
        err_at(*c_.args[6], "conv's groups must be in [1, 65535], got " + std::to_string(*g), "PyPTO's rule");
        return EV::poison();
      }
      groups = *g;
    }
    auto tr = el_.bool_arg(c_, 7, false);
    if (!tr) return EV::poison();
    if (*tr) {
      err_at(*c_.args[7], "conv with transposed=true is not supported (PyPTO raises RuntimeError too)",
             "write the transposed conv as a conv of the zero-stuffed input");
      return EV::poison();
    }
    if (const Expr* op = c_.args[8]; op && !(op->kind == Expr::Kind::List && op->items.empty())) {
      err_at(*op, "conv's output_paddings is only for transposed=true, which is not supported", "leave it out");
      return EV::poison();
    }
    const int64_t N = (*xs)[0], Cin = (*xs)[1], Cout = (*ws)[0], Cw = (*ws)[1];
    if (Cin % groups != 0 || Cout % groups != 0 || Cw * groups != Cin) {
      const size_t k = c_.args[6] ? 6 : 1;
      err_at(*c_.args[k], "conv's channels do not match groups " + std::to_string(groups) + ": input_conv's Cin is " +
                              std::to_string(Cin) + ", weight's Cout " + std::to_string(Cout) + " and Cin " +
                              std::to_string(Cw),
             "PyPTO's rule: Cin and Cout divisible by groups, input Cin == weight Cin * groups");
      return EV::poison();
    }
    std::vector<int64_t> in(xs->begin() + 2, xs->end()), ker(ws->begin() + 2, ws->end()), out(sd);
    // PyPTO's Load3D limits: Kh, Kw <= 255 and Kh * Kw * (32 bytes / dtype size) <= 65535.
    const int64_t khw = sd == 1 ? ker[0] : ker[sd - 2] * ker[sd - 1];
    if (ker.back() > 255 || (sd > 1 && ker[sd - 2] > 255) || khw * (32 / int64_t(dtype_size(dt))) > 65535) {
      err_at(*c_.args[1], "conv's kernel " + shape_str(dims(ker)) + " is past PyPTO's Load3D limits (Kh, Kw <= 255, "
                          "Kh * Kw * " + std::to_string(32 / dtype_size(dt)) + " <= 65535)");
      return EV::poison();
    }
    for (size_t i = 0; i < sd; ++i) {
      const int64_t lo = (*pads)[2 * i], hi = (*pads)[2 * i + 1];
      if (lo >= ker[i] || hi >= ker[i]) {
        const Expr& pe = *c_.args[4]->items[lo >= ker[i] ? 2 * i : 2 * i + 1];
        err_at(pe, "conv's padding " + std::to_string(std::max(lo, hi)) + " on spatial axis " + std::to_string(i) +
                       " must be less than the kernel's " + std::to_string(ker[i]),
               "PyPTO's rule: each padding < its kernel size");
        return EV::poison();
      }
      const int64_t span = in[i] + lo + hi - (*dil)[i] * (ker[i] - 1) - 1;
      if (span < 0) {
        err_at(*c_.args[1], "conv's kernel " + std::to_string(ker[i]) + " (dilation " + std::to_string((*dil)[i]) +
                                ") is wider than spatial axis " + std::to_string(i) + " of '" + arg_text(0) +
                                "' padded: " + std::to_string(in[i] + lo + hi),
               "the output would be empty (PyPTO's rule: each output extent >= 1)");
        return EV::poison();
      }
      out[i] = span / (*strides)[i] + 1;
    }
    std::optional<EV> bias;
    if (const Expr* be = c_.args[9]) {
      EV b = el_.tensor_arg(c_, be, "bias_tensor");
      if (!b.ok()) return EV::poison();
      auto bs = static_tensor(9, b);
      if (!bs) return EV::poison();
      const DType bt = val(b.value).dtype;
      if (bs->size() != 1 || (*bs)[0] != Cout) {
        err_at(*be, "conv's bias_tensor must have shape [Cout] = [" + std::to_string(Cout) + "], '" + el_.text_of(*be) +
                        "' has " + shape_str(val(b.value).shape),
               "PyPTO's rule");
        return EV::poison();
      }
      if (bt != dt && !(dt == DType::bf16 && bt == DType::fp32)) {
        err_at(*be, "conv's bias_tensor must be " + std::string(dtype_name(dt)) +
                        (dt == DType::bf16 ? " or fp32" : "") + ", '" + el_.text_of(*be) + "' is " +
                        std::string(dtype_name(bt)),
               "PyPTO's rule: the input's dtype (fp32 also for a bf16 input)");
        return EV::poison();
      }
      bias = b;
    }
    bool relu = false;
    if (const Expr* re = c_.args[10]) {
      if (re->kind == Expr::Kind::Name && (re->name == "RELU" || re->name == "NO_RELU")) {
        relu = re->name == "RELU";
      } else {
        err_at(*re, "conv's relu_type must be RELU or NO_RELU, got '" + el_.text_of(*re) + "'",
               "PyPTO's ConvReLuType.RELU is written RELU");
        return EV::poison();
      }
    }
    if (!el_.ts_->cube) {
      if (el_.ts_->cube_broken) return EV::poison();  // the cube_tile was reported already
      el_.err(c_.fo, c_.fl, "no cube_tile in force for 'conv' (PyPTO needs set_conv_tile_shapes before conv)",
              "add {cube_tile: {m: [L0, L1], k: [L0, L1], n: [L0, L1]}}: m tiles Cout / groups, k Cin / groups * "
              "kernel size, n the output's N * spatial positions");
      return EV::poison();
    }

    // [N, Cin, P] -> [Cin * N, in...]: channels first, so each channel's taps line up as rows of the columns.
    const int64_t P = prod(in), Po = prod(out), B = Cin * N;
    int x = reshape(xv.value, {N, Cin, P});
    if (N > 1) x = swap_axes01(x);
    std::vector<int64_t> cur = {B};
    cur.insert(cur.end(), in.begin(), in.end());
    x = reshape(x, cur);
    // Each spatial axis zero-padded (concat with full) or cut to L = s * (q_max + o), q_max = (K - 1) * d / s:
    // tap k's positions k * d + j * s (j < o) are then (q + j) * s + r with q = k * d / s, r = k * d % s,
    // inside the axis split as [L / s, s]. (At stride 1, L is the padded extent.)
    std::vector<int64_t> L(sd);
    for (size_t a = 0; a < sd; ++a) {
      const int64_t s = (*strides)[a], d = (*dil)[a];
      L[a] = s * ((ker[a] - 1) * d / s + out[a]);
      x = pad_axis(x, 1 + a, (*pads)[2 * a], L[a] - (*pads)[2 * a] - in[a]);
    }
    // The taps, in weight order (k_0 outer .. k_last inner), each [Cin, 1, N * Po].
    const int64_t K = prod(ker);
    std::vector<int> cols;
    if (sd == 1) {
      const int64_t s = (*strides)[0];
      const int xs1 = s == 1 ? x : reshape_copy(x, {B, L[0] / s, s});
      for (int64_t k = 0; k < ker[0]; ++k) {
        const int64_t at = k * (*dil)[0];
        const int t = s == 1 ? window(xs1, {0, at}, {B, out[0]})
                             : window(xs1, {0, at / s, at % s}, {B, out[0], 1});
        cols.push_back(reshape_copy(t, {Cin, 1, N * Po}));
      }
    } else {
      // The W taps first when W is strided (the split [B * Hp, Wp / sw, sw] leaves room for H's split in
      // rank 4), then each H tap a view of [B, Hp / sh, sh, W'] at the W tap's offset.
      const int64_t sh = (*strides)[0], sw = (*strides)[1], Hp = L[0], Wp = L[1];
      std::vector<int> wtap;        // per kw: [B, Hp, W'] holding the tap's ow columns from woff
      std::vector<int64_t> woff;
      if (sw == 1) {
        wtap.assign(size_t(ker[1]), x);
        for (int64_t k = 0; k < ker[1]; ++k) woff.push_back(k * (*dil)[1]);
      } else {
        const int split = reshape_copy(x, {B * Hp, Wp / sw, sw});
        for (int64_t k = 0; k < ker[1]; ++k) {
          const int64_t at = k * (*dil)[1];
          wtap.push_back(reshape_copy(window(split, {0, at / sw, at % sw}, {B * Hp, out[1], 1}), {B, Hp, out[1]}));
          woff.push_back(0);
        }
      }
      std::vector<std::vector<int>> by_kw(static_cast<size_t>(ker[1]));
      for (int64_t kw = 0; kw < ker[1]; ++kw) {
        const int src = wtap[size_t(kw)];
        const int64_t wc = *val(src).shape[2].as_const();
        const int hs = sh == 1 ? src : reshape_copy(src, {B, Hp / sh, sh, wc});
        for (int64_t kh = 0; kh < ker[0]; ++kh) {
          const int64_t at = kh * (*dil)[0];
          const int t = sh == 1 ? window(hs, {0, at, woff[size_t(kw)]}, {B, out[0], out[1]})
                                : window(hs, {0, at / sh, at % sh, woff[size_t(kw)]}, {B, out[0], 1, out[1]});
          by_kw[size_t(kw)].push_back(reshape_copy(t, {Cin, 1, N * Po}));
        }
      }
      for (int64_t kh = 0; kh < ker[0]; ++kh)
        for (int64_t kw = 0; kw < ker[1]; ++kw) cols.push_back(by_kw[size_t(kw)][size_t(kh)]);
    }
    int col = cols[0];
    if (K > 1) {
      ScopedTiles t(el_.ts_, fit_tile({Cin, K, N * Po}, {1}));
      Op op;
      op.kind = OpKind::Concat;
      op.inputs = cols;
      op.axes = {1};
      col = el_.emit(op, dt, dims({Cin, K, N * Po}), dims({Cin, K, N * Po}), c_.fo, c_.fl);
    }
    col = reshape(col, {Cin * K, N * Po});
    const int w = reshape(wv.value, {Cout, Cw * K});
    const int64_t cg = Cout / groups, kg = Cw * K;
    std::vector<int> parts;
    for (int64_t g = 0; g < groups; ++g) {
      int wg = w, cgv = col;
      if (groups > 1) {
        wg = window(w, {g * cg, 0}, {cg, kg});
        cgv = window(col, {g * kg, 0}, {kg, N * Po});
      }
      Op op;
      op.kind = OpKind::Matmul;
      op.inputs = {wg, cgv};
      op.dtype = DType::fp32;
      parts.push_back(el_.emit(op, DType::fp32, dims({cg, N * Po}), dims({cg, N * Po}), c_.fo, c_.fl));
    }
    int acc = parts[0];
    ScopedTiles t(el_.ts_, fit_tile({Cout, N * Po}));
    if (groups > 1) {
      Op op;
      op.kind = OpKind::Concat;
      op.inputs = parts;
      op.axes = {0};
      acc = el_.emit(op, DType::fp32, dims({Cout, N * Po}), dims({Cout, N * Po}), c_.fo, c_.fl);
    }
    const Expr& e0 = *c_.args[0];
    if (bias) {
      const int b2 = cast(reshape(bias->value, {Cout, 1}), DType::fp32);
      EV s = el_.binary(OpKind::Add, EV::tensor(acc), EV::tensor(b2), e0, *c_.args[9], c_.fo, c_.fl, c_.fn);
      if (!s.ok()) return EV::poison();
      acc = s.value;
    }
    if (relu) {
      EV r = el_.unary(OpKind::Relu, EV::tensor(acc), e0, c_.fo, c_.fn);
      if (!r.ok()) return EV::poison();
      acc = r.value;
    }
    int res = cast(acc, dt);
    std::vector<int64_t> osh = {N, Cout};
    osh.insert(osh.end(), out.begin(), out.end());
    if (N > 1) {
      res = reshape(res, {Cout, N, Po});
      ScopedTiles t3(el_.ts_, fit_tile({N, Cout, Po}, {0, 1}));
      res = el_.swap_axes(res, 0, 1, c_.fo, c_.fl);
    }
    return EV::tensor(reshape(res, osh));
  }

  // [A, C, P] -> [C, A, P] under a tile holding the two swapped axes whole where it can.
  int swap_axes01(int v) {
    const Value x = val(v);
    std::vector<int64_t> s;
    for (const auto& d : x.shape) s.push_back(*d.as_const());
    std::swap(s[0], s[1]);
    ScopedTiles t(el_.ts_, fit_tile(s, {0, 1}));
    return el_.swap_axes(v, 0, 1, c_.fo, c_.fl);
  }

  int window(int v, const std::vector<int64_t>& at, const std::vector<int64_t>& ext) {
    const Value x = val(v);
    Op op;
    op.kind = OpKind::View;
    op.inputs = {v};
    op.shape = dims(ext);
    op.offsets = dims(at);
    return el_.emit(op, x.dtype, op.shape, op.shape, c_.fo, c_.fl);
  }

  EV gather_in_l1() {
    EV sv = el_.tensor_arg(c_, c_.args[0], "src");
    EV ix = el_.tensor_arg(c_, c_.args[1], "indices");
    EV bt = el_.tensor_arg(c_, c_.args[2], "block_table");
    if (!sv.ok() || !ix.ok() || !bt.ok()) return EV::poison();
    auto ss = static_tensor(0, sv);
    auto is = static_tensor(1, ix);
    auto ts = static_tensor(2, bt);
    if (!ss || !is || !ts) return EV::poison();
    const DType dt = val(sv.value).dtype;
    if (dt != DType::fp32 && dt != DType::fp16 && dt != DType::bf16 && dt != DType::int8) {
      err_at(*c_.args[0], "gather_in_l1's src must be fp32, fp16, bf16 or int8 (PyPTO's rule), '" + arg_text(0) +
                              "' is " + std::string(dtype_name(dt)));
      return EV::poison();
    }
    for (size_t k : {size_t(1), size_t(2)}) {
      const DType t = val(k == 1 ? ix.value : bt.value).dtype;
      if (t != DType::int32) {
        err_at(*c_.args[k], "gather_in_l1's " + c_.names[k] + " must be int32, '" + arg_text(k) + "' is " +
                                std::string(dtype_name(t)),
               k == 1 && t == DType::int64 ? "PyPTO also takes int64 indices; ptoc takes int32: insert cast(" +
                                                 arg_text(k) + ", int32)"
                                           : "PyPTO's rule");
        return EV::poison();
      }
    }
    auto two_d = [&](const std::vector<int64_t>& v, size_t k, bool one_row, const std::string& form) {
      if (v.size() == 2 && (!one_row || v[0] == 1)) return true;
      err_at(*c_.args[k], "gather_in_l1's " + c_.names[k] + " must be " + form + ", '" + arg_text(k) +
                              "' has shape " + shape_str(dims(v)),
             "PyPTO's rule");
      return false;
    };
    if (!two_d(*ss, 0, false, "[tokens, columns]") || !two_d(*is, 1, true, "[1, n]") ||
        !two_d(*ts, 2, true, "[1, block_table_size]"))
      return EV::poison();
    auto bs = el_.const_int(*c_.args[3], "gather_in_l1 block_size");
    auto size = el_.const_int(*c_.args[4], "gather_in_l1 size");
    if (!bs || !size) return EV::poison();
    if (*bs < 1) {
      err_at(*c_.args[3], "gather_in_l1's block_size must be at least 1, got " + std::to_string(*bs));
      return EV::poison();
    }
    const int64_t T = (*ss)[0], H = (*ss)[1], K = (*is)[1], NB = (*ts)[1];
    if (*size < 1 || *size > H) {
      err_at(*c_.args[4], "gather_in_l1's size must be in [1, " + std::to_string(H) + "] (src's columns), got " +
                              std::to_string(*size),
             "PyPTO: each row's first size elements are moved");
      return EV::poison();
    }
    if (!el_.bool_arg(c_, 5, false) || !el_.bool_arg(c_, 6, false)) return EV::poison();
    const Expr& e1 = *c_.args[1];
    const Expr& e3 = *c_.args[3];
    auto bin = [&](OpKind k, const EV& a, const EV& b) { return el_.binary(k, a, b, e1, e3, c_.fo, c_.fl, c_.fn); };
    int row = -1;
    {
      // The block table's entry of each token: a [n, NB] mask and its int32 sums (-1: no valid entry).
      ScopedTiles tile(el_.ts_, fit_tile({K, NB}, {1}));
      row = paged_token_rows(el_, c_, reshape(ix.value, {K, 1}), bt.value, *bs, NB);
      if (row < 0) return EV::poison();
    }
    // The one-hot [n, T] rows (a row outside src matches nothing: a row of 0), times src's first size
    // columns on the cube: one product per element, exact (int8: summed in int32, cast back).
    // Each row picked by where over a [n, T, size] mask, then summed over T (one element and zeros:
    // exact), not a one-hot matmul, whose 0 * inf would turn a column NaN in every row when any src row
    // holds an inf or NaN.
    int hit;
    {
      ScopedTiles tile(el_.ts_, fit_tile({K, T}));
      EV m = bin(OpKind::Eq, EV::tensor(row), EV::tensor(el_.iota(1, T, 2, DType::int32, e1, c_.fo, c_.fl)));
      if (!m.ok()) return EV::poison();
      hit = m.value;
    }
    const int cols = *size == H ? sv.value : window(sv.value, {0, 0}, {T, *size});
    int out;
    {
      ScopedTiles tile(el_.ts_, fit_tile({K, T, *size}, {1}));
      const int h3 = reshape(hit, {K, T, 1});
      const int s3 = reshape(cols, {1, T, *size});
      const int picked = el_.select3(h3, s3, el_.const_like(0, dt, 3, c_.fo, c_.fl), c_.fo, c_.fl);
      out = el_.sum_drop(picked, 1, c_.fo, c_.fl);
    }
    return EV::tensor(out);
  }
};

}  // namespace

bool is_conv_op(std::string_view fn) { return fn == "conv" || fn == "gather_in_l1"; }

EV call_conv(Elaborator& el, const Elaborator::Call& c) { return ConvIm2col(el, c).run(); }

}  // namespace ptoc::fe
