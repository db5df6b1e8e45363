#include "runtime/task_preflight.h"

#include <algorithm>
#include <map>
#include <memory>

#include "runtime/program/leaf_footprint.h"
#include "runtime/program/leaf_program.h"
#include "runtime/program/leaf_tiles.h"
#include "runtime/program/root_tasks.h"

namespace ptoc::runtime {

namespace {

using leaf::Fn;
using i128 = __int128;

// A kernel's loops run over leading tile axes: a few trips. More dry steps than this for one task
// means a crafted trip count (the run would spin for hours), refused as such.
constexpr uint64_t kMaxStepsPerTask = uint64_t(1) << 24;
constexpr int64_t kMaxValue = int64_t(1) << 50;

// One kernel's program with its loops matched, evaluated dry for each task that calls it.
struct DryKernel {
  leaf::LeafProgram p;
  std::vector<int32_t> jump;  // LoopBegin: index after its LoopEnd; LoopEnd: its LoopBegin
  std::vector<bool> dynamic_tiles;  // per instruction: a call whose tiles only the task's values decide
  std::vector<bool> dynamic_operands;  // per instruction: a call with an operand that is not a constant
  std::vector<int64_t> locals, trips;
};

std::unique_ptr<DryKernel> make_dry(const Kernel& k) {
  if (k.program.empty()) return nullptr;
  auto d = std::make_unique<DryKernel>();
  d->p = leaf::decode_leaf_program(k.program.data(), k.program.size());
  leaf::verify_leaf_program(d->p);  // balanced loops, locals defined before use, indices in range
  d->jump.assign(d->p.instrs.size(), 0);
  std::vector<int32_t> open;
  for (size_t i = 0; i < d->p.instrs.size(); ++i) {
    const auto kind = d->p.instrs[i].kind;
    if (kind == leaf::InstrKind::LoopBegin) open.push_back(int32_t(i));
    if (kind == leaf::InstrKind::LoopEnd) {
      d->jump[i] = open.back();
      d->jump[size_t(open.back())] = int32_t(i + 1);
      open.pop_back();
    }
  }
  d->dynamic_tiles.assign(d->p.instrs.size(), false);
  d->dynamic_operands.assign(d->p.instrs.size(), false);
  for (size_t i = 0; i < d->p.instrs.size(); ++i) {
    const leaf::Instr& in = d->p.instrs[i];
    if (in.kind != leaf::InstrKind::Call) continue;
    d->dynamic_tiles[i] = leaf::tiles_depend_on_args(in);
    for (const leaf::Operand& o : in.operands)
      if ((o.kind == leaf::OperandKind::Int || o.kind == leaf::OperandKind::Buf) && !leaf::constant_expr(o.expr))
        d->dynamic_operands[i] = true;
  }
  d->locals.assign(d->p.locals.size(), 0);
  d->trips.assign(d->p.instrs.size(), 0);
  return d;
}

// The mapped GM of the run: spec tensors and temp slabs, by virtual base.
struct GmBlocks {
  std::map<uint64_t, uint64_t> blocks;
  bool contains(i128 lo, i128 hi) const {
    if (lo < 0 || hi < lo || hi > i128(UINT64_MAX)) return false;
    auto it = blocks.upper_bound(uint64_t(lo));
    if (it == blocks.begin()) return false;
    --it;
    return hi <= i128(it->first) + i128(it->second);
  }
};

struct Checker {
  const CompiledProgram& p;
  GmBlocks gm;
  PreflightStats stats;
  // The task being checked, for the message.
  const std::string* kernel = nullptr;
  const std::string* root = nullptr;
  uint32_t task = 0;
  int seq = 0;

  std::string fail(const std::string& what) const {
    return "kernel '" + *kernel + "' (task " + std::to_string(task) + " of root function '" + *root +
           "', device task " + std::to_string(seq) + "): " + what +
           "; the bundle is refused before the run (its task arguments or leaf program are corrupted: recompile "
           "the spec)";
  }

  // [addr + min(0, (rows-1)*stride), addr + max(0, (rows-1)*stride) + row_bytes) in bytes, as
  // check_gm_window computes it; nothing moves when rows or row_bytes is 0 or less.
  std::string window(const char* fn, i128 addr, i128 rows, i128 row_bytes, i128 stride, const char* kind,
                     int slot, const TaskInstance& t) {
    if (rows <= 0 || row_bytes <= 0) return "";
    ++stats.gm_windows;
    const i128 span = (rows - 1) * stride;
    const i128 lo = addr + std::min<i128>(0, span), hi = addr + std::max<i128>(0, span) + row_bytes;
    if (gm.contains(lo, hi)) return "";
    const std::string tensor = tensor_of(t, slot);
    return fail(std::string(fn) + ": a GM " + kind + " of " + std::to_string(int64_t(rows)) + " rows x " +
                std::to_string(int64_t(row_bytes)) + " bytes (row stride " + std::to_string(int64_t(stride)) +
                " bytes) through GM slot " + std::to_string(slot) + " (tensor '" + tensor +
                "') lies outside every GM tensor of the run");
  }

  // The GM tensor per kernel slot of the task (shared with its template in a compact root).
  const std::vector<int>* gm_of(const DeviceTask& dt, const TaskInstance& t) const {
    if (t.root_instance >= dt.roots.size()) return nullptr;
    const RootFunction& rf = p.roots.at(size_t(dt.roots[t.root_instance].root));
    return t.task < task_count(rf) ? &task_gm(rf, t.task) : nullptr;
  }
  const std::vector<int>* cur_gm = nullptr;
  std::string tensor_of(const TaskInstance&, int slot) const {
    if (!cur_gm || slot < 0 || size_t(slot) >= cur_gm->size()) return "?";
    const int g = (*cur_gm)[size_t(slot)];
    return g >= 0 && size_t(g) < p.tensors.size() ? p.tensors[size_t(g)].name : "?";
  }

  std::string check_call(DryKernel& d, size_t at, const TaskInstance& t) {
    const leaf::Instr& in = d.p.instrs[at];
    const int64_t* args = t.args.data();
    const char* name = leaf::fn_name(in.fn);
    // Each operand's value once (a buffer's element offset, an integer); the signatures have at
    // most 8 operands. No GM tensor, tile or stride is 2^50 elements (the gm_bytes limit's
    // range): a value past that is corrupted, and bounding it keeps the arithmetic below in range.
    int64_t vals[8] = {};
    if (in.operands.size() > 8) return fail("leaf program instruction " + std::to_string(at) + ": too many operands");
    for (size_t k = 0; k < in.operands.size(); ++k) {
      const leaf::Operand& o = in.operands[k];
      if (o.kind != leaf::OperandKind::Int && o.kind != leaf::OperandKind::Buf) continue;
      const int64_t v = vals[k] = o.expr.empty() ? 0 : leaf::eval_expr(o.expr, args, d.locals.data());
      if (v > kMaxValue || v < -kMaxValue)
        return fail("leaf program instruction " + std::to_string(at) + " (" + name + "): operand " +
                    std::to_string(k) + " is " + std::to_string(v) + ", beyond any GM or local extent");
    }
    auto int_op = [&](int k) { return i128(vals[k]); };
    auto at_text_of = [&] { return "leaf program instruction " + std::to_string(at) + " (" + name + ")"; };
    // Local memory: every buffer operand points into its buffer.
    const leaf::TileUse use = leaf::tile_use(in.fn);
    int64_t shape[2] = {0, 0};
    int ns = 0;
    for (const leaf::TParam& tp : in.tparams)
      if (tp.kind == leaf::TParamKind::Int && ns < 2) shape[ns++] = tp.v;
    // Calls with constant offsets and extents were checked at load (leaf::verify_leaf_tiles).
    for (size_t k = 0; d.dynamic_tiles[at] && k < in.operands.size(); ++k) {
      const leaf::Operand& o = in.operands[k];
      if (o.kind != leaf::OperandKind::Buf) continue;
      ++stats.local_tiles;
      const leaf::Buffer& b = d.p.buffers[size_t(o.index)];
      const int eb = leaf::elem_bytes(b.dtype);
      const i128 at_byte = i128(b.addr) + i128(vals[k]) * eb, end = i128(b.addr) + b.bytes;
      if (at_byte < b.addr || at_byte > end)
        return fail(at_text_of() + ": operand " + std::to_string(k) + " points at byte " + std::to_string(int64_t(at_byte)) +
                    " of " + leaf::fn_name(in.fn) + "'s " + std::to_string(b.bytes) + "-byte buffer " +
                    std::to_string(o.index) + " at byte " + std::to_string(b.addr) + " of its local memory, outside it");
      if (int(k) != use.buf || ns < 2) continue;
      const i128 R = shape[0], C = shape[1];
      if (at_byte + R * C * eb > end)
        return fail(at_text_of() + ": its " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " tile of " +
                    std::to_string(eb) + "-byte elements at byte " + std::to_string(int64_t(at_byte)) +
                    " runs past the end of buffer " + std::to_string(o.index) + " (" + std::to_string(b.bytes) +
                    " bytes at byte " + std::to_string(b.addr) + " of a " + std::to_string(leaf::memory_bytes(b.mem)) +
                    "-byte local memory)");
      // The kernels walk vr rows of vc elements at a row pitch of C (kernels/host/pto_host_ops.h):
      // a valid extent past the tile is safe only while it stays inside the buffer.
      const i128 vr = int_op(use.vr), vc = int_op(use.vc);
      if (vr <= 0 || vc <= 0) continue;
      const i128 reach = at_byte + ((vr - 1) * C + vc) * eb;
      if (reach > end)
        return fail(at_text_of() + ": valid extent " + std::to_string(int64_t(vr)) + " x " + std::to_string(int64_t(vc)) +
                    " of its " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) +
                    " tile reaches byte " + std::to_string(int64_t(std::min<i128>(reach, INT64_MAX))) +
                    ", past the end of buffer " + std::to_string(o.index) + " (" + std::to_string(b.bytes) +
                    " bytes at byte " + std::to_string(b.addr) + " of a " + std::to_string(leaf::memory_bytes(b.mem)) +
                    "-byte local memory)");
    }
    // Every element each buffer operand's kernel loop reaches (leaf_footprint.h): the reductions,
    // transposes, copies, extracts and matmuls too, whose extents tile_use() does not
    // name. Calls whose operands are all constants were checked at load (verify_leaf_tiles).
    if (d.dynamic_operands[at]) {
      leaf::Footprint fp[leaf::kMaxFootprints];
      const int nf = leaf::call_footprints(in, vals, fp);
      for (int i = 0; i < nf; ++i) {
        if (fp[i].hi <= fp[i].lo) continue;
        const leaf::Operand& o = in.operands[size_t(fp[i].operand)];
        if (o.kind != leaf::OperandKind::Buf) continue;
        ++stats.local_windows;
        const leaf::Buffer& b = d.p.buffers[size_t(o.index)];
        const int eb = leaf::elem_bytes(b.dtype);
        const i128 ptr = i128(b.addr) + i128(vals[size_t(fp[i].operand)]) * eb;
        const i128 lo = ptr + fp[i].lo * eb, hi = ptr + fp[i].hi * eb;
        // Bounded by the local memory, not the buffer: ptoc's K-tail extracts read a few columns
        // past their L1 tile (masked by the matmul's valid extent), which stays inside the memory.
        if (lo >= 0 && hi <= leaf::memory_bytes(b.mem)) continue;
        auto num = [](i128 x) { return std::to_string(int64_t(std::clamp<i128>(x, INT64_MIN, INT64_MAX))); };
        return fail(at_text_of() + ": operand " + std::to_string(fp[i].operand) + " (buffer " + std::to_string(o.index) +
                    ", " + std::to_string(b.bytes) + " bytes at byte " + std::to_string(b.addr) +
                    ") reaches bytes [" + num(lo) + ", " + num(hi) + ") for these extents, outside its " +
                    std::to_string(leaf::memory_bytes(b.mem)) + "-byte local memory");
      }
    }
    // GM: the windows the move would report to the GM guard (kernels/host/pto_host_ops.h).
    int slot = -1;
    for (const leaf::Operand& o : in.operands)
      if (o.kind == leaf::OperandKind::Gm) slot = o.index;
    if (slot < 0) return "";
    if (size_t(slot) >= t.gm.size()) return fail(at_text_of() + ": GM slot " + std::to_string(slot) + " is not passed");
    const i128 base = i128(t.gm[size_t(slot)]);
    const int sz = leaf::elem_bytes(d.p.gm_dtypes[size_t(slot)]);
    switch (in.fn) {
      case Fn::TLOAD:
        return window(name, base + int_op(2) * sz, int_op(4), int_op(5) * sz, int_op(3) * sz, "read", slot, t);
      case Fn::TSTORE:
      case Fn::TFIXPIPE:
        return window(name, base + int_op(2) * sz, int_op(4), int_op(5) * sz, int_op(3) * sz,
                      in.tparams[3].v ? "atomic add" : "write", slot, t);
      case Fn::TLOAD_L1: {
        const i128 off = int_op(2), row0 = int_op(3), col0 = int_op(4), ld = int_op(5), vr = int_op(6), vc = int_op(7);
        if (in.tparams[3].v == 0)
          return window(name, base + (off + row0 * ld + col0) * sz, vr, vc * sz, ld * sz, "read", slot, t);
        if (vr <= 0 || vc <= 0) return "";
        // NZ: one window per fractal column block (vr rows of C0 elements); the first and the last
        // bound them all.
        const i128 C0 = 32 / sz, last = col0 + vc - 1;
        auto block = [&](i128 c) { return c >= 0 ? c / C0 : -((-c + C0 - 1) / C0); };
        const i128 lb = block(last), lstart = std::max(col0, lb * C0);
        const i128 first_at = off + block(col0) * ld * C0 + row0 * C0 + (col0 - block(col0) * C0);
        const i128 last_at = off + lb * ld * C0 + row0 * C0 + (lstart - lb * C0);
        const i128 first_run = std::min(vc, (block(col0) + 1) * C0 - col0);
        if (std::string bad = window(name, base + first_at * sz, vr, first_run * sz, C0 * sz, "read", slot, t);
            !bad.empty())
          return bad;
        return window(name, base + last_at * sz, vr, (last - lstart + 1) * sz, C0 * sz, "read", slot, t);
      }
      default: return "";
    }
  }

  std::string check_task(DryKernel& d, const TaskInstance& t) {
    ++stats.tasks;
    if (t.args.size() < size_t(d.p.num_args))
      return fail(std::to_string(t.args.size()) + " arguments for a kernel that reads " + std::to_string(d.p.num_args));
    uint64_t steps = 0;
    const auto& ins = d.p.instrs;
    for (size_t i = 0; i < ins.size();) {
      if (++steps > kMaxStepsPerTask)
        return fail("its leaf program runs more than " + std::to_string(kMaxStepsPerTask) +
                    " steps (a crafted loop trip count)");
      const leaf::Instr& in = ins[i];
      switch (in.kind) {
        case leaf::InstrKind::DefLocal:
          d.locals[size_t(in.a)] = leaf::eval_expr(in.expr, t.args.data(), d.locals.data());
          ++i;
          break;
        case leaf::InstrKind::LoopBegin:
          d.trips[i] = leaf::eval_expr(in.expr, t.args.data(), d.locals.data());
          d.locals[size_t(in.a)] = 0;
          i = d.trips[i] > 0 ? i + 1 : size_t(d.jump[i]);
          break;
        case leaf::InstrKind::LoopEnd: {
          const size_t b = size_t(d.jump[i]);
          i = ++d.locals[size_t(ins[b].a)] < d.trips[b] ? b + 1 : i + 1;
          break;
        }
        case leaf::InstrKind::Call:
          if (std::string bad = check_call(d, i, t); !bad.empty()) return bad;
          ++i;
          break;
        default: ++i; break;
      }
    }
    return "";
  }
};

}  // namespace

std::string preflight_tasks(const CompiledProgram& p, const DimExpr::Env& dims, const ControlFlowOptions& cfo,
                            PreflightStats* stats, uint64_t task_budget) {
  std::vector<std::unique_ptr<DryKernel>> kernels;
  kernels.reserve(p.kernels.size());
  for (const Kernel& k : p.kernels) {
    try {
      kernels.push_back(make_dry(k));
    } catch (const leaf::LeafProgramError& e) {
      return std::string(e.what());
    }
  }
  ControlFlow cf(p, dims, cfo);
  Checker c{p, {}, {}};
  const GmLayout& layout = cf.layout();
  for (size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].role != GmTensor::Role::Temp)
      c.gm.blocks[layout.base[i]] = std::max<uint64_t>(layout.geometry[i].bytes, 1);
  size_t slabs = 0;
  DeviceTask dt;
  while (cf.next(dt)) {
    for (; slabs < cf.slabs().size(); ++slabs) c.gm.blocks[cf.slabs()[slabs].addr] = cf.slabs()[slabs].bytes;
    for (const TaskInstance& t : dt.tasks) {
      const int ci = t.class_index();
      const LeafFunction* l = ci >= 0 && size_t(ci) < p.leaves.size() ? &p.leaves[size_t(ci)] : nullptr;
      if (!l || l->kernel < 0 || size_t(l->kernel) >= kernels.size() || !kernels[size_t(l->kernel)]) continue;
      c.cur_gm = c.gm_of(dt, t);
      const RootFunction& rf = p.roots.at(size_t(dt.roots.at(t.root_instance).root));
      c.kernel = &p.kernels[size_t(l->kernel)].name;
      c.root = &rf.name;
      c.task = t.task;
      c.seq = dt.seq;
      if (std::string bad = c.check_task(*kernels[size_t(l->kernel)], t); !bad.empty()) return bad;
    }
    cf.release(dt.seq);
    if (task_budget && c.stats.tasks >= task_budget) break;
  }
  if (stats) *stats = c.stats;
  return "";
}

}  // namespace ptoc::runtime
