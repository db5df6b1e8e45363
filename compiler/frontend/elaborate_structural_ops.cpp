// Structural ops of PyPTO's catalogue, PyPTO's names, argument orders, dtype and tile rules, written as
// ops ptoc has (so the evaluator, tiling, leaf programs, CCE and the machine model need nothing new):
//   interleave(input, other)        stream[.., 2k] = input[.., k], stream[.., 2k + 1] = other[.., k] (a concat
//                                   of [.., n, 1] pieces into [.., n, 2], reshaped to [.., 2n]); the two
//                                   results are the stream's halves [.., 0:n] and [.., n:2n]
//   deinterleave(input, other=None) the stream (input, or concat([input, other], -1)) reshaped to
//                                   [.., n, 2]; results: its column 0 and column 1, reshaped to [.., n]
//   gathermask(self, pattern_mode)  modes 1-2: column k of [.., n / 2, 2]; modes 3-6: of [.., n / 4, 4];
//                                   mode 7: self
//   index_add_ub / index_add__ub    index_add (elaborate_gather.cpp) under PyPTO's UB rules: fp32, fp16,
//                                   bf16 or int32, the indexed axis whole in the vec_tile
//   transposed_batchmatmul(a, b, out_dtype)  a [M, B, K] -> [B, M, K], batched matmul with b [B, K, N],
//                                   [B, M, N] -> [M, B, N]; fp16 / bf16 in and out, fp32 accumulation
//   gather_in_ub(param, indices, block_table, block_size, axis=-2)  PyPTO's paged gather of token rows:
//                                   row j = param[block_table[0, t / bs] * bs + t % bs], t = indices[0, j],
//                                   written as two one-hot masks (the block table's entry, then the row) and
//                                   sums of where, as gather is (elaborate_gather.cpp); exact in every dtype; an
//                                   index or a block outside its table reads a row of 0
//   set_operation_options(combine_axis=b)  a statement; PyPTO's combine_axis broadcasts a [.., 1] operand's
//                                   last axis inside the kernel instead of expanding it first, which is what
//                                   ptoc's kernels always do (size-1 axes broadcast in the tile library): so
//                                   it is checked and changes nothing
//   atomic_add(src, offsets, dst)   a statement: dst[offsets : offsets + src.shape] = that window + src, an
//                                   assemble of a read of dst (a GM tensor), so the adds land in program
//                                   order and the sum is the same on every run (PyPTO: any order)
// Every step moves bits only (views, reshapes, concat, transposes), so the numbers are the inputs' exactly;
// the matmul rounds once, as matmul does.
#include "compiler/frontend/elaborate_structural_ops.h"

#include <algorithm>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/scoped_tiles.h"
#include "compiler/frontend/shape_rules.h"

namespace ptoc::fe {

namespace {

// The vec_tile in force with its last entry replaced by `last` (more entries appended), or nullopt.
std::optional<VecTile> tile_with_last(const TileState* ts, size_t rank, std::vector<int64_t> last) {
  if (!ts || !ts->vec || ts->vec->shape.size() != rank) return std::nullopt;
  VecTile t = *ts->vec;
  t.shape.pop_back();
  for (int64_t e : last) t.shape.push_back(e);
  return t;
}

std::string dims_text(const Shape& s) { return shape_str(s); }

bool in_call_stmt = false;  // call_statement is elaborating the call

class Struct5 {
 public:
  Struct5(Elaborator& el, const Elaborator::Call& c) : el_(el), c_(c) {}

  EV run() {
    const std::string& f = c_.fn;
    if (f == "interleave") return interleave();
    if (f == "deinterleave") return deinterleave();
    if (f == "gathermask") return gathermask();
    if (f == "index_add_ub" || f == "index_add__ub") return index_add_ub();
    if (f == "transposed_batchmatmul") return transposed_batchmatmul();
    if (f == "atomic_add") return atomic_add();
    if (f == "gather_in_ub") return gather_in_ub();
    if (f == "set_operation_options") return set_operation_options();
    el_.err(c_.fo, c_.fl, "internal: structural op '" + f + "' has no elaboration");
    return EV::poison();
  }

 private:
  Elaborator& el_;
  const Elaborator::Call& c_;

  const Value& val(int v) const { return el_.p_.values[size_t(v)]; }
  std::string arg_text(size_t k) const { return el_.text_of(*c_.args[k]); }

  // A dtype PyPTO lists for the op (ptoc has no int16 / uint16 / uint32); `allowed` names them for the message.
  bool dtype_in(DType t, std::initializer_list<DType> ok, size_t k, const std::string& allowed) {
    if (std::find(ok.begin(), ok.end(), t) != ok.end()) return true;
    el_.err(c_.args[k]->off, c_.args[k]->len,
            "'" + c_.fn + "' takes " + allowed + ", '" + arg_text(k) + "' is " + std::string(dtype_name(t)),
            "insert cast(" + arg_text(k) + ", " + (dtype_is_float(t) ? "fp32" : "int32") + ")");
    return false;
  }

  // The second operand of interleave / deinterleave: the first one's dtype and shape (PyPTO's rule 1).
  EV same_as_input(size_t k, const EV& a) {
    EV b = el_.tensor_arg(c_, c_.args[k], "its other input");
    if (!b.ok() || !el_.check_nz(b, *c_.args[k], c_.fn)) return EV::poison();
    const Value& x = val(a.value);
    const Value& y = val(b.value);
    if (y.dtype != x.dtype) {
      el_.err(c_.args[k]->off, c_.args[k]->len,
              "'" + c_.fn + "' needs other of input's dtype: '" + arg_text(0) + "' is " +
                  std::string(dtype_name(x.dtype)) + ", '" + arg_text(k) + "' is " + std::string(dtype_name(y.dtype)),
              "insert cast(" + arg_text(k) + ", " + std::string(dtype_name(x.dtype)) + ")");
      return EV::poison();
    }
    bool same = x.shape.size() == y.shape.size();
    for (size_t i = 0; same && i < x.shape.size(); ++i) same = provably_equal(x.shape[i], y.shape[i]);
    if (!same) {
      el_.err(c_.args[k]->off, c_.args[k]->len,
              "'" + c_.fn + "' needs other of input's shape: '" + arg_text(0) + "' is " + dims_text(x.shape) +
                  ", '" + arg_text(k) + "' is " + dims_text(y.shape));
      return EV::poison();
    }
    return b;
  }

  // Ranks 1 to 3 (the pairs live one rank up), the last axis static, whole, and a multiple of p.
  std::optional<int64_t> last_axis(const Value& x, size_t k, int64_t p, const std::string& why) {
    const size_t rank = x.shape.size();
    if (rank < 1 || rank > 3) {
      el_.err(c_.args[k]->off, c_.args[k]->len,
              "'" + c_.fn + "' of a rank-" + std::to_string(rank) + " value is not supported; ranks 1 to 3 are",
              "reshape to rank 3 or less first (PyPTO allows 4)");
      return std::nullopt;
    }
    auto n = x.shape.back().as_const();
    if (!n || !provably_equal(x.valid.back(), x.shape.back())) {
      el_.err(c_.args[k]->off, c_.args[k]->len,
              "'" + c_.fn + "' needs a static, whole last axis, '" + arg_text(k) + "' has shape " +
                  dims_text(x.shape) + " valid " + dims_text(x.valid),
              "PyPTO's rule: the last axis is not split by a view");
      return std::nullopt;
    }
    if (*n % p != 0) {
      el_.err(c_.args[k]->off, c_.args[k]->len,
              "'" + c_.fn + "' needs the last axis a multiple of " + std::to_string(p) + " (" + why + "), '" +
                  arg_text(k) + "' has " + std::to_string(*n));
      return std::nullopt;
    }
    return *n;
  }

  // PyPTO's tile rules on the last vec_tile entry (a tile of another rank is reported by the first op).
  bool tile_last_whole(size_t rank, int64_t n) {
    if (!el_.ts_ || !el_.ts_->vec || el_.ts_->vec->shape.size() != rank) return true;
    if (el_.ts_->vec->shape.back() >= n) return true;
    el_.err(c_.fo, c_.fl,
            "'" + c_.fn + "' needs the last axis whole in the vec_tile: the tile has " +
                std::to_string(el_.ts_->vec->shape.back()) + ", the axis " + std::to_string(n),
            "set the vec_tile's last entry to " + std::to_string(n) + " (PyPTO's rule)");
    return false;
  }
  bool tile_last_multiple(size_t rank, int64_t p) {
    if (!el_.ts_ || !el_.ts_->vec || el_.ts_->vec->shape.size() != rank) return true;
    if (el_.ts_->vec->shape.back() % p == 0) return true;
    el_.err(c_.fo, c_.fl,
            "'" + c_.fn + "' needs the vec_tile's last entry a multiple of " + std::to_string(p) + ", it is " +
                std::to_string(el_.ts_->vec->shape.back()),
            "PyPTO's rule: a tile holds whole groups of " + std::to_string(p));
    return false;
  }

  // x [.., n] -> [.., n / p, p]: the last axis whole, so the valid leading axes carry over.
  int split_last(int v, int64_t p) {
    const Value x = val(v);
    Shape sh = x.shape, va = x.valid;
    const int64_t n = *x.shape.back().as_const();
    sh.back() = DimExpr(n / p);
    va.back() = DimExpr(n / p);
    sh.push_back(DimExpr(p));
    va.push_back(DimExpr(p));
    return el_.reshape_to(v, sh, va, c_.fo);
  }

  // A window [start, start + len) of the last axis.
  int last_window(int v, int64_t start, int64_t len) {
    const Value x = val(v);
    Op op;
    op.kind = OpKind::View;
    op.inputs = {v};
    op.shape = x.shape;
    op.shape.back() = DimExpr(len);
    op.offsets = Shape(x.shape.size(), DimExpr(0));
    op.offsets.back() = DimExpr(start);
    Shape va = x.valid;
    va.back() = DimExpr(len);
    return el_.emit(op, x.dtype, op.shape, va, c_.fo, c_.fl);
  }

  // Element k of every group of p along the last axis: [.., n] -> [.., n / p, p], transposed to
  // [.., p, n / p] (under a tile of that rank: the caller's leading entries, the two axes whole), row k
  // of it, reshaped to [.., n / p]. (A window of one column read straight off [.., n / p, p] would be a
  // strided view, which the tiling does not lower.)
  int pick(int v, int64_t p, int64_t k) {
    int g = split_last(v, p);
    const size_t r = val(g).shape.size();
    const int64_t m = *val(g).shape[r - 2].as_const();
    int t;
    {
      ScopedTiles scope(el_.ts_, tile_with_last(el_.ts_, r - 1, {p, m}));
      t = el_.swap_axes(g, int(r) - 2, int(r) - 1, c_.fo, c_.fl);
    }
    const Value x = val(t);
    Op op;
    op.kind = OpKind::View;
    op.inputs = {t};
    op.shape = x.shape;
    op.shape[r - 2] = DimExpr(1);
    op.offsets = Shape(r, DimExpr(0));
    op.offsets[r - 2] = DimExpr(k);
    Shape va = x.valid;
    va[r - 2] = DimExpr(1);
    int w = el_.emit(op, x.dtype, op.shape, va, c_.fo, c_.fl);
    Shape sh = x.shape, vb = x.valid;
    sh.erase(sh.begin() + long(r - 2));
    vb.erase(vb.begin() + long(r - 2));
    return el_.reshape_to(w, sh, vb, c_.fo);
  }

  int concat_last(std::vector<int> parts, std::optional<VecTile> tile) {
    ScopedTiles scope(el_.ts_, std::move(tile));
    const Value x = val(parts[0]);
    Shape sh = x.shape, va = x.valid;
    const int64_t n = *x.shape.back().as_const();
    sh.back() = DimExpr(n * int64_t(parts.size()));
    va.back() = sh.back();
    for (int p : parts) {
      const Value& y = val(p);
      for (size_t d = 0; d + 1 < sh.size(); ++d) va[d] = combine_valid(va[d], y.valid[d]);
    }
    Op op;
    op.kind = OpKind::Concat;
    op.inputs = std::move(parts);
    op.axes = {int(sh.size()) - 1};
    return el_.emit(op, x.dtype, sh, va, c_.fo, c_.fl);
  }

  static constexpr std::initializer_list<DType> kPairTypes = {DType::fp32,  DType::fp16,  DType::bf16,   DType::int32,
                                                              DType::int8,  DType::uint8, DType::int16,  DType::uint16,
                                                              DType::uint32};
  static constexpr const char* kPairNames = "fp32, fp16, bf16, int32, int8, uint8, int16, uint16 or uint32 (PyPTO's dtypes)";

  bool need_two() {
    if (c_.two_targets) return true;
    el_.err(c_.fo, c_.fl, "'" + c_.fn + "' has two results (out0, out1)", "bind both: 'a, b = " + c_.fn + "(...)'");
    return false;
  }

  EV interleave() {
    if (!need_two()) return EV::poison();
    EV a = el_.catalog_input(c_);
    if (!a.ok() || !dtype_in(val(a.value).dtype, kPairTypes, 0, kPairNames)) return EV::poison();
    EV b = same_as_input(1, a);
    if (!b.ok()) return EV::poison();
    const Value x = val(a.value);
    auto n = last_axis(x, 0, 2, "PyPTO's rule");
    if (!n || !tile_last_whole(x.shape.size(), *n)) return EV::poison();
    auto column = [&](int v) {
      const Value y = val(v);
      Shape sh = y.shape, va = y.valid;
      sh.push_back(DimExpr(1));
      va.push_back(DimExpr(1));
      return el_.reshape_to(v, sh, va, c_.fo);
    };
    const size_t rank = x.shape.size();
    int pairs = concat_last({column(a.value), column(b.value)}, tile_with_last(el_.ts_, rank, {*n, 2}));
    const Value pv = val(pairs);
    Shape sh(pv.shape.begin(), pv.shape.end() - 1), va(pv.valid.begin(), pv.valid.end() - 1);
    sh.back() = DimExpr(2 * *n);
    va.back() = sh.back();
    int stream = el_.reshape_to(pairs, sh, va, c_.fo);
    EV out = EV::tensor(last_window(stream, 0, *n));
    out.value2 = last_window(stream, *n, *n);
    return out;
  }

  EV deinterleave() {
    if (!need_two()) return EV::poison();
    EV a = el_.catalog_input(c_);
    if (!a.ok() || !dtype_in(val(a.value).dtype, kPairTypes, 0, kPairNames)) return EV::poison();
    const Value x = val(a.value);
    const size_t rank = x.shape.size();
    int stream = a.value;
    if (c_.args[1]) {
      EV b = same_as_input(1, a);
      if (!b.ok()) return EV::poison();
      auto n = last_axis(x, 0, 2, "PyPTO's rule");
      if (!n || !tile_last_whole(rank, *n)) return EV::poison();
      stream = concat_last({a.value, b.value}, tile_with_last(el_.ts_, rank, {2 * *n}));
    } else {
      auto n = last_axis(x, 0, 2, "even and odd elements pair up");
      if (!n || !tile_last_multiple(rank, 2)) return EV::poison();
    }
    EV out = EV::tensor(pick(stream, 2, 0));
    out.value2 = pick(stream, 2, 1);
    return out;
  }

  EV gathermask() {
    EV a = el_.catalog_input(c_);
    if (!a.ok()) return EV::poison();
    const Value x = val(a.value);
    if (!dtype_in(x.dtype, {DType::fp32, DType::fp16, DType::bf16, DType::int32, DType::int16, DType::uint16, DType::uint32},
                  0, "fp32, fp16, bf16, int32, int16, uint16 or uint32 (PyPTO's dtypes)"))
      return EV::poison();
    auto mode = el_.const_int(*c_.args[1], "gathermask pattern_mode");
    if (!mode) return EV::poison();
    if (*mode < 1 || *mode > 7) {
      el_.err(c_.args[1]->off, c_.args[1]->len,
              "gathermask pattern_mode must be 1..7, got " + std::to_string(*mode),
              "1, 2: the first / second of every 2 elements; 3..6: the first..fourth of every 4; 7: all");
      return EV::poison();
    }
    if (*mode == 7) return a;
    const int64_t p = *mode <= 2 ? 2 : 4;
    const int64_t k = *mode <= 2 ? *mode - 1 : *mode - 3;
    auto n = last_axis(x, 0, p, "pattern_mode " + std::to_string(*mode) + " takes groups of " + std::to_string(p));
    if (!n || !tile_last_multiple(x.shape.size(), p)) return EV::poison();
    return EV::tensor(pick(a.value, p, k));
  }

  EV index_add_ub() {
    EV a = el_.catalog_input(c_);
    if (!a.ok()) return EV::poison();
    const Value x = val(a.value);
    if (!dtype_in(x.dtype, {DType::fp32, DType::fp16, DType::bf16, DType::int32}, 0,
                  "fp32, fp16, bf16 or int32 (PyPTO's UB dtypes ptoc has)"))
      return EV::poison();
    auto dim = el_.axis_arg(c_.args[1], x.shape.size(), "dim");
    if (!dim) return EV::poison();
    EV src = el_.tensor_arg(c_, c_.args[3], "its source");
    if (!src.ok()) return EV::poison();
    const Value s = val(src.value);
    // PyPTO's rule 5: the dim axis of input and source, and the index, are not split by the tile.
    if (el_.ts_ && el_.ts_->vec && el_.ts_->vec->shape.size() == x.shape.size() && s.shape.size() == x.shape.size()) {
      auto nx = x.shape[size_t(*dim)].as_const();
      auto ns = s.shape[size_t(*dim)].as_const();
      const int64_t need = std::max(nx.value_or(0), ns.value_or(0));
      const int64_t have = el_.ts_->vec->shape[size_t(*dim)];
      if (have < need) {
        el_.err(c_.fo, c_.fl,
                "'" + c_.fn + "' needs axis " + std::to_string(*dim) + " whole in the vec_tile: the tile has " +
                    std::to_string(have) + ", input and source have " + x.shape[size_t(*dim)].str() + " and " +
                    s.shape[size_t(*dim)].str(),
                "set the vec_tile's entry " + std::to_string(*dim) + " to " + std::to_string(need) +
                    " (PyPTO's UB rule: the indexed axis and the index are not split), or use index_add");
        return EV::poison();
      }
    }
    return el_.call_index_add(c_);
  }

  EV transposed_batchmatmul() {
    EV a = el_.tensor_arg(c_, c_.args[0], "tensor_a");
    EV b = el_.tensor_arg(c_, c_.args[1], "tensor_b");
    if (!a.ok() || !b.ok()) return EV::poison();
    auto od = el_.dtype_arg(c_.args[2], DType::fp16);
    if (!od) return EV::poison();
    const Value x = val(a.value), y = val(b.value);
    const std::initializer_list<DType> halves = {DType::fp16, DType::bf16};
    const char* hn = "fp16 or bf16 (PyPTO's rule)";
    if (!dtype_in(x.dtype, halves, 0, hn) || !dtype_in(y.dtype, halves, 1, hn)) return EV::poison();
    if (*od != DType::fp16 && *od != DType::bf16) {
      el_.err(c_.args[2]->off, c_.args[2]->len,
              "transposed_batchmatmul out_dtype must be fp16 or bf16 (PyPTO's rule), got " +
                  std::string(dtype_name(*od)));
      return EV::poison();
    }
    if (y.dtype != x.dtype) {
      el_.err(c_.args[1]->off, c_.args[1]->len,
              "transposed_batchmatmul operands have different dtypes: " + std::string(dtype_name(x.dtype)) +
                  " and " + std::string(dtype_name(y.dtype)),
              "insert cast(" + arg_text(1) + ", " + std::string(dtype_name(x.dtype)) + ")");
      return EV::poison();
    }
    if (x.shape.size() != 3 || y.shape.size() != 3) {
      size_t k = x.shape.size() != 3 ? 0 : 1;
      el_.err(c_.args[k]->off, c_.args[k]->len,
              "transposed_batchmatmul takes tensor_a [M, B, K] and tensor_b [B, K, N], '" + arg_text(k) +
                  "' has rank " + std::to_string(val(k == 0 ? a.value : b.value).shape.size()));
      return EV::poison();
    }
    if (!el_.check_nz(a, *c_.args[0], c_.fn)) return EV::poison();
    if (!provably_equal(x.shape[1], y.shape[0])) {
      el_.err(c_.args[1]->off, c_.args[1]->len,
              "transposed_batchmatmul batch sizes differ: tensor_a [M, B, K] is " + dims_text(x.shape) +
                  ", tensor_b [B, K, N] is " + dims_text(y.shape));
      return EV::poison();
    }
    if (!provably_equal(x.shape[2], y.shape[1])) {
      el_.err(c_.args[1]->off, c_.args[1]->len,
              "transposed_batchmatmul inner dimensions differ: K of tensor_a " + dims_text(x.shape) + " is " +
                  x.shape[2].str() + ", of tensor_b " + dims_text(y.shape) + " is " + y.shape[1].str());
      return EV::poison();
    }
    int at = el_.swap_axes(a.value, 0, 1, c_.fo, c_.fl);  // [B, M, K]
    const Value xt = val(at);
    Op op;
    op.kind = OpKind::Matmul;
    op.inputs = {at, b.value};
    op.dtype = *od;
    Shape sh = {xt.shape[0], xt.shape[1], y.shape[2]};
    Shape va = {combine_valid(xt.valid[0], y.valid[0]), xt.valid[1], y.valid[2]};
    int c = el_.emit(op, *od, sh, va, c_.fo, c_.fl);  // [B, M, N]
    return EV::tensor(el_.swap_axes(c, 0, 1, c_.fo, c_.fl));  // [M, B, N]
  }

  // A tile of `want`'s rank for a mask: the static entries of `want`, the largest of axes other than `keep`
  // halved until it holds at most 8192 elements (as gather's masks).
  static VecTile mask_tile(const VecTile& user, std::vector<int64_t> want, size_t keep) {
    auto elems = [&] {
      int64_t p = 1;
      for (int64_t w : want) p *= w;
      return p;
    };
    while (elems() > 8192) {
      size_t big = keep == 0 ? 1 : 0;
      for (size_t i = 0; i < want.size(); ++i)
        if (i != keep && want[i] > want[big]) big = i;
      if (want[big] <= 1) big = keep;
      if (want[big] <= 1) break;
      want[big] = (want[big] + 1) / 2;
    }
    VecTile t;
    t.shape = std::move(want);
    t.loc = user.loc;
    return t;
  }

  EV gather_in_ub() {
    EV pv = el_.tensor_arg(c_, c_.args[0], "param");
    EV ix = el_.tensor_arg(c_, c_.args[1], "indices");
    EV bt = el_.tensor_arg(c_, c_.args[2], "block_table");
    if (!pv.ok() || !ix.ok() || !bt.ok()) return EV::poison();
    for (size_t k : {0, 1, 2})
      if (!el_.check_nz(k == 0 ? pv : k == 1 ? ix : bt, *c_.args[k], c_.fn)) return EV::poison();
    const Value param = val(pv.value), iv = val(ix.value), tv = val(bt.value);
    if (!dtype_in(param.dtype, {DType::fp32, DType::fp16}, 0, "fp32 or fp16 param (PyPTO's rule)")) return EV::poison();
    if (!dtype_in(iv.dtype, {DType::int32}, 1, "int32 indices (PyPTO's rule)") ||
        !dtype_in(tv.dtype, {DType::int32}, 2, "an int32 block_table (PyPTO's rule)"))
      return EV::poison();
    auto bs = el_.const_int(*c_.args[3], "gather_in_ub block_size");
    if (!bs) return EV::poison();
    if (*bs < 1) {
      el_.err(c_.args[3]->off, c_.args[3]->len, "gather_in_ub block_size must be at least 1, got " + std::to_string(*bs));
      return EV::poison();
    }
    if (c_.args[4]) {
      auto ax = el_.const_int(*c_.args[4], "gather_in_ub axis");
      if (!ax) return EV::poison();
      if (*ax != -2) {
        el_.err(c_.args[4]->off, c_.args[4]->len, "gather_in_ub gathers along axis -2 only (PyPTO's rule), got " +
                                                      std::to_string(*ax));
        return EV::poison();
      }
    }
    auto two_d = [&](const Value& v, size_t k, const std::string& form) {
      if (v.shape.size() == 2 && (k == 0 || v.shape[0].as_const() == 1)) return true;
      el_.err(c_.args[k]->off, c_.args[k]->len, "gather_in_ub's " + c_.names[k] + " must be " + form + ", '" +
                                                    arg_text(k) + "' has shape " + dims_text(v.shape),
              "PyPTO's rule");
      return false;
    };
    if (!two_d(param, 0, "[token_size, hidden_dim]") || !two_d(iv, 1, "[1, k]") ||
        !two_d(tv, 2, "[1, block_table_size]"))
      return EV::poison();
    auto T = param.shape[0].as_const();
    auto K = iv.shape[1].as_const();
    auto NB = tv.shape[1].as_const();
    auto H = param.shape[1].as_const();
    const std::pair<size_t, bool> whole[] = {
        {0, T && H && provably_equal(param.valid[0], param.shape[0]) && provably_equal(param.valid[1], param.shape[1])},
        {1, K.has_value()},
        {2, NB && provably_equal(tv.valid[1], tv.shape[1])}};
    for (auto [k, ok] : whole)
      if (!ok) {
        el_.err(c_.args[k]->off, c_.args[k]->len, "gather_in_ub needs '" + arg_text(k) +
                                                      "' of a static shape, whole, it has shape " +
                                                      dims_text(val(k == 0 ? pv.value : k == 1 ? ix.value : bt.value).shape),
                "the one-hot masks run over the whole token and block axes");
        return EV::poison();
      }
    if (!el_.ts_ || !el_.ts_->vec || el_.ts_->vec->shape.size() != 2) {
      el_.err(c_.fo, c_.fl, "gather_in_ub needs a vec_tile of rank 2 (the result [k, hidden_dim]) in force",
              "add {vec_tile: [k1, hidden_dim1]} before this statement (PyPTO's TileShape)");
      return EV::poison();
    }
    const VecTile user = *el_.ts_->vec;
    const int64_t k1 = std::min(user.shape[0], *K), h1 = std::min(user.shape[1], *H);
    const Expr& e1 = *c_.args[1];
    const Expr& e3 = *c_.args[3];
    auto bin = [&](OpKind k, const EV& a, const EV& b) { return el_.binary(k, a, b, e1, e3, c_.fo, c_.fl, c_.fn); };
    int out = -1;
    {
      // The block table's entry of each token: a [k, NB] mask, its int32 sums.
      ScopedTiles scope(el_.ts_, mask_tile(user, {k1, *NB}, 1));
      const int t = el_.reshape_to(ix.value, {iv.shape[1], DimExpr(1)}, {iv.valid[1], DimExpr(1)}, c_.fo);
      out = paged_token_rows(el_, c_, t, bt.value, *bs, *NB);  // [k, 1]: the token's row, -1 when none
      if (out < 0) return EV::poison();
    }
    // The rows: a [k, T, H] mask of row == t, the param's values where it holds, summed over T.
    ScopedTiles scope(el_.ts_, mask_tile(user, {k1, *T, h1}, 1));
    const Value ov = val(out);
    EV r3 = EV::tensor(el_.reshape_to(out, {ov.shape[0], DimExpr(1), DimExpr(1)}, {ov.valid[0], DimExpr(1), DimExpr(1)},
                                      c_.fo));
    EV ramp = EV::tensor(el_.iota(1, *T, 3, DType::int32, e1, c_.fo, c_.fl));
    EV m = bin(OpKind::Eq, r3, ramp);
    if (!m.ok()) return EV::poison();
    const int p3 = el_.reshape_to(pv.value, {DimExpr(1), param.shape[0], param.shape[1]},
                                  {DimExpr(1), param.shape[0], param.shape[1]}, c_.fo);
    const int zero = el_.const_like(0, param.dtype, 3, c_.fo, c_.fl);
    const int pick = el_.select3(m.value, p3, zero, c_.fo, c_.fl);
    return EV::tensor(el_.sum_drop(pick, 1, c_.fo, c_.fl));
  }

  EV set_operation_options() {
    if (!in_call_stmt) {
      el_.err(c_.fo, c_.fl, "set_operation_options is a statement: it returns nothing",
              "write it on its own line: - \"set_operation_options(combine_axis=true)\"");
      return EV::poison();
    }
    in_call_stmt = false;
    for (const auto& a : c_.e.args)
      if (a.name.empty()) {
        el_.err(a.value->off, a.value->len, "set_operation_options takes keyword arguments only (PyPTO's '*')",
                "write combine_axis=" + el_.text_of(*a.value));
        return EV::poison();
      }
    if (!el_.bool_arg(c_, 0, false)) return EV::poison();
    return EV::poison();  // no result, no op: ptoc's kernels broadcast a size-1 last axis inline already
  }

  EV atomic_add() {
    if (!in_call_stmt) {
      el_.err(c_.fo, c_.fl, "atomic_add is a statement: it adds into dst and returns nothing",
              "write it on its own line: - \"atomic_add(src, [o0, o1], dst)\"");
      return EV::poison();
    }
    in_call_stmt = false;  // its arguments are expressions
    EV v = el_.tensor_arg(c_, c_.args[0], "src");
    if (!v.ok() || !el_.check_nz(v, *c_.args[0], c_.fn)) return EV::poison();
    const Value src = val(v.value);
    if (!el_.check_operand_dtype(c_.spec, src.dtype, *c_.args[0], c_.fo, c_.fl, c_.fn)) return EV::poison();
    const Expr* de = c_.args[2];
    const int t = de->kind == Expr::Kind::Name ? el_.inplace_target(el_.p_.find_tensor(de->name)) : -1;
    auto local = de->kind == Expr::Kind::Name ? el_.names_->find(de->name) : el_.names_->end();
    if (local != el_.names_->end() && local->second.is_local_tensor()) {
      el_.err(de->off, de->len, "atomic_add into the local tensor '" + de->name + "' is not supported",
              "write '" + de->name + "[...] = " + de->name + "[...] + src', or declare dst as an output or a "
              "tensors: workspace");
      return EV::poison();
    }
    if (t < 0 || el_.p_.tensors[size_t(t)].role == TensorRole::Input) {
      el_.err(de->off, de->len,
              "atomic_add's dst must be a GM tensor it can write, '" + el_.text_of(*de) + "' is " +
                  (t < 0 ? "not one" : "a read-only input"),
              t < 0 ? "name an output or a tensors: workspace"
                    : "declare an output with 'inplace: " + de->name + "' to add into it in place");
      return EV::poison();
    }
    const TensorDecl decl = el_.p_.tensors[size_t(t)];
    if (decl.dtype != src.dtype) {
      el_.err(c_.args[0]->off, c_.args[0]->len,
              "atomic_add of a " + std::string(dtype_name(src.dtype)) + " src into " +
                  std::string(dtype_name(decl.dtype)) + " tensor '" + decl.name + "'",
              "insert cast(" + arg_text(0) + ", " + std::string(dtype_name(decl.dtype)) + ")");
      return EV::poison();
    }
    const Expr* oe = c_.args[1];
    if (oe->kind != Expr::Kind::List) {
      el_.err(oe->off, oe->len, "atomic_add's offsets must be a list such as [0, b * 64], got '" +
                                    el_.text_of(*oe) + "'");
      return EV::poison();
    }
    Shape tshape;
    for (const auto& d : decl.shape) tshape.push_back(d.substitute(el_.static_dims_));
    if (oe->items.size() != tshape.size() || src.shape.size() != tshape.size()) {
      el_.err(oe->off, oe->len,
              "atomic_add needs len(offsets) == src's rank == dst's rank (PyPTO's rule): offsets has " +
                  std::to_string(oe->items.size()) + ", src " + std::to_string(src.shape.size()) + ", '" +
                  decl.name + "' " + std::to_string(tshape.size()));
      return EV::poison();
    }
    Shape offs;
    for (size_t i = 0; i < oe->items.size(); ++i) {
      auto d = el_.dim(*oe->items[i], DimUse::Loop);
      if (!d) return EV::poison();
      offs.push_back(simplify(*d));
      auto over = const_difference(offs[i] + src.shape[i], tshape[i]);
      if (over && *over > 0) {
        el_.err(oe->items[i]->off, oe->items[i]->len,
                "atomic_add's window runs past axis " + std::to_string(i) + " of '" + decl.name + "': offset " +
                    offs[i].str() + " + src extent " + src.shape[i].str() + " > " + tshape[i].str(),
                "PyPTO's rule: offsets[i] + src.shape[i] <= dst.shape[i]");
        return EV::poison();
      }
    }
    // The window of dst as it is now (what earlier statements assembled), plus src, assembled back.
    EV cur = el_.tensor_ref(t);
    Op view;
    view.kind = OpKind::View;
    view.inputs = {cur.value};
    view.shape = src.shape;
    view.offsets = offs;
    const int w = el_.emit(view, src.dtype, src.shape, src.valid, c_.fo, c_.fl);
    EV sum = el_.binary(OpKind::Add, EV::tensor(w), v, *c_.args[2], *c_.args[0], c_.fo, c_.fl, c_.fn);
    if (!sum.ok()) return EV::poison();
    Op op;
    op.kind = OpKind::Assemble;
    op.inputs = {sum.value};
    op.tensor = t;
    op.offsets = offs;
    el_.emit(op, src.dtype, {}, {}, c_.fo, c_.fl);
    el_.written_.insert(t);
    if (el_.seq_) el_.seq_->tensor_refs.erase(t);  // later reads see the new data
    return EV::poison();  // no result
  }
};

}  // namespace

void call_statement(Elaborator& el, const Stmt& s) {
  const AssignAst& a = s.assign;
  in_call_stmt = true;
  el.expr(*a.value);
  in_call_stmt = false;
}

bool is_structural_op(std::string_view fn) {
  for (std::string_view n : {"interleave", "deinterleave", "gathermask", "index_add_ub", "index_add__ub",
                             "transposed_batchmatmul", "atomic_add", "gather_in_ub", "set_operation_options"})
    if (fn == n) return true;
  return false;
}

EV call_structural(Elaborator& el, const Elaborator::Call& c) { return Struct5(el, c).run(); }

int paged_token_rows(Elaborator& el, const Elaborator::Call& c, int tokens, int block_table, int64_t block_size,
                     int64_t blocks) {
  const Expr& e1 = *c.args[1];
  const Expr& e3 = *c.args[3];
  auto bin = [&](OpKind k, const EV& a, const EV& b) { return el.binary(k, a, b, e1, e3, c.fo, c.fl, c.fn); };
  auto num = [](int64_t v) { return EV::number(double(v), true); };
  const EV t = EV::tensor(tokens);
  EV blk = bin(OpKind::Div, t, num(block_size));
  if (!blk.ok()) return -1;
  EV tail = bin(OpKind::Sub, t, bin(OpKind::Mul, blk, num(block_size)));
  EV hit = bin(OpKind::Eq, blk, EV::tensor(el.iota(1, blocks, 2, DType::int32, e1, c.fo, c.fl)));
  if (!tail.ok() || !hit.ok()) return -1;
  const int zero = el.const_like(0, DType::int32, 2, c.fo, c.fl);
  const int one = el.const_like(1, DType::int32, 2, c.fo, c.fl);
  EV slot = EV::tensor(el.reduce_keepdim(OpKind::Sum, el.select3(hit.value, block_table, zero, c.fo, c.fl), 1, c.fo, c.fl));
  EV hits = EV::tensor(el.reduce_keepdim(OpKind::Sum, el.select3(hit.value, one, zero, c.fo, c.fl), 1, c.fo, c.fl));
  EV row = bin(OpKind::Add, bin(OpKind::Mul, slot, num(block_size)), tail);
  EV ok = bin(OpKind::LogicalAnd, bin(OpKind::Eq, hits, num(1)), bin(OpKind::Ge, t, num(0)));
  if (!row.ok() || !ok.ok()) return -1;
  return el.select3(ok.value, row.value, el.const_like(-1, DType::int32, 2, c.fo, c.fl), c.fo, c.fl);
}

}  // namespace ptoc::fe
