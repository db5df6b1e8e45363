// Pass: structural de-duplication of leaves into kernels.
//
// A leaf's canonical text lists what its kernel code depends on and nothing
// else: core type, buffers (memory, address, size, dtype, shape, layout), GM
// slots (dtype, format, rank), and per step the op with its attributes, the
// buffers and argument indices it uses, and its syncs. Offsets, valid extents
// and tensor identities are kernel arguments (kernel_args.cpp), so they are
// not in the text, and isomorphic leaves (every tile of a vector loop, every
// L0 step of a matmul) hash equal and share one kernel. xxHash64 of the text is
// the function hash; kernels are named `<spec>_<first 8 hex digits>`.
// Leaves whose whole LeafFunction record is equal (hash, kernel, costs, buffers, merge info) are one
// leaf class, stored once in CompiledProgram::leaves (LeafPlan::leaf_class, Task::cls); LeafPlan::leaf
// keeps the leaf's own index, which the artifacts name (leafIndex, psgId).
#include <fmt/format.h>
#include <xxhash.h>

#include <map>
#include <iterator>
#include <tuple>

#include "compiler/passes/backend.h"

namespace ptoc {

namespace {

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string sync_text(const SyncInstr& s) {
  switch (s.kind) {
    case SyncInstr::Kind::SetFlag:
      return fmt::format("set({},{},{})", pipe_name(s.src), pipe_name(s.dst), s.event);
    case SyncInstr::Kind::WaitFlag:
      return fmt::format("wait({},{},{})", pipe_name(s.src), pipe_name(s.dst), s.event);
    case SyncInstr::Kind::Barrier: return fmt::format("barrier({})", pipe_name(s.src));
    case SyncInstr::Kind::BarrierAll: return "barrier(ALL)";
  }
  return "?";
}

}  // namespace

std::string leaf_canonical_text(const TileRoot& root, const std::vector<GmTensor>& tensors, const LeafPlan& plan) {
  std::string o;
  o.reserve(96 * plan.steps.size() + 64 * plan.buffers.size() + 64);
  auto out = std::back_inserter(o);
  fmt::format_to(out, "core {}\n", plan.core == CoreType::AIC ? "AIC" : "AIV");
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const BufferSlot& s = plan.buffers[b];
    const LocalTile& t = local_tile(root, s.tile);
    fmt::format_to(out, "buf{} {} @{}+{} {}{}{} valid@{}\n", b, mem_kind_name(s.mem), s.addr, s.size,
                   dtype_name(t.dtype), ints(t.shape), t.layout == Format::NZ ? " NZ" : "",
                   plan.args.buffer_valid_arg[b]);
  }
  for (size_t g = 0; g < plan.args.gm_tensors.size(); ++g) {
    const GmTensor& t = tensors.at(plan.args.gm_tensors[g]);
    fmt::format_to(out, "gm{} {} rank{}{} shape@{}\n", g, dtype_name(t.dtype),
                   plan.args.slot_view[g].empty() ? t.shape.size() : plan.args.slot_view[g].size(),
                   t.format == Format::NZ ? " NZ" : "", plan.args.slot_shape_arg[g]);
  }
  fmt::format_to(out, "args {}\n", plan.args.values.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const LeafStep& st = plan.steps[i];
    const TileOp& op = tile_op(root, st.op);
    for (const auto& s : st.before) fmt::format_to(out, "  {}\n", sync_text(s));
    fmt::format_to(out, "{}:{} pipe {} in", int(op.kind),
                   op.kind == TileOpKind::Vec ? op_kind_name(op.vop) : std::string_view("-"), pipe_name(st.pipe));
    for (int s : op.srcs) fmt::format_to(out, " b{}", plan.buffer_index(s));
    fmt::format_to(out, " out b{}", op.dst >= 0 ? plan.buffer_index(op.dst) : -1);
    if (plan.args.step_gm_slot[i] >= 0)
      fmt::format_to(out, " gm{} off@{} ext@{} rank{}", plan.args.step_gm_slot[i], plan.args.step_offset_arg[i],
                     plan.args.step_extent_arg[i], op.gm.offset.size());
    o += " axes[";
    for (size_t a = 0; a < op.axes.size(); ++a) fmt::format_to(out, "{}{}", a ? "," : "", op.axes[a]);
    o += "]";
    if (op.scalar) fmt::format_to(out, " scalar {:a}{}", *op.scalar, op.scalar_first ? " first" : "");
    if (op.kind == TileOpKind::Vec && op.vop == OpKind::Full) fmt::format_to(out, " fill {:a}", op.fill);
    fmt::format_to(out, " dtype {}", dtype_name(op.dtype));
    if (op.trans_a) o += " ta";
    if (op.trans_b) o += " tb";
    if (op.accumulate) o += " acc";
    if (op.atomic_add) o += " atomic";
    if (!op.sub_offset.empty()) o += " sub" + ints(op.sub_offset);
    o += "\n";
    for (const auto& s : st.after) fmt::format_to(out, "  {}\n", sync_text(s));
  }
  return o;
}

void dedup_leaves(const std::string& spec_name, const std::vector<TileRoot>& roots,
                  const std::vector<GmTensor>& tensors, std::vector<LeafPlan>& plans, CompiledProgram& out,
                  const std::vector<int>& class_of) {
  out.leaves.clear();
  out.kernels.clear();
  std::map<std::string, int> by_text;  // canonical text -> kernel
  std::map<std::string, uint64_t> names;
  using ClassKey = std::tuple<uint64_t, int, int64_t, int, int, int, std::array<int64_t, kNumPipes>,
                              std::array<int64_t, 5>, std::string>;
  std::map<ClassKey, int> class_of_record;
  // Leaves of one structural class (class_of) have one text: it is built and
  // hashed on the first of them only (and kept in that plan's `canonical`).
  std::vector<int> first_of_class;
  // Subgraph position by id, per root (built when the root is first seen).
  std::vector<std::vector<int>> pos_of_id(roots.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    LeafPlan& p = plans[i];
    const TileRoot& root = roots.at(p.root);
    const int cls = i < class_of.size() ? class_of[i] : -1;
    if (cls >= int(first_of_class.size())) first_of_class.resize(size_t(cls) + 1, -1);
    if (cls >= 0 && first_of_class[size_t(cls)] >= 0) {
      const LeafPlan& q = plans[size_t(first_of_class[size_t(cls)])];
      p.hash = q.hash;
      p.kernel = q.kernel;
      p.canonical.clear();
    } else {
      if (cls >= 0) first_of_class[size_t(cls)] = int(i);
      p.canonical = leaf_canonical_text(root, tensors, p);
      p.hash = XXH64(p.canonical.data(), p.canonical.size(), 0);
      auto [it, fresh] = by_text.try_emplace(p.canonical, int(out.kernels.size()));
      if (fresh) {
        Kernel k;
        std::string base = fmt::format("{}_{:08x}", spec_name, uint32_t(p.hash >> 32));
        k.name = base;
        // Two different texts whose hashes share 32 bits: keep symbols distinct.
        for (int n = 2; names.count(k.name); ++n) k.name = fmt::format("{}_{}", base, n);
        names[k.name] = p.hash;
        k.core = p.core;
        k.num_args = int(p.args.values.size());
        k.num_gm = int(p.args.gm_tensors.size());
        out.kernels.push_back(std::move(k));
      }
      p.kernel = it->second;
    }

    std::vector<int>& pos = pos_of_id[size_t(p.root)];
    if (pos.empty())
      for (int g = 0; g < int(root.subgraphs.size()); ++g) {
        int id = root.subgraphs[g].id;
        if (id >= int(pos.size())) pos.resize(size_t(id) + 1, -1);
        pos[size_t(id)] = g;
      }
    const Subgraph* sg = p.subgraph >= 0 && p.subgraph < int(pos.size()) && pos[size_t(p.subgraph)] >= 0
                             ? &root.subgraphs[size_t(pos[size_t(p.subgraph)])]
                             : nullptr;
    LeafFunction lf;
    lf.hash = p.hash;
    lf.core = p.core;
    lf.kernel = p.kernel;
    lf.pipe_cycles = p.pipe_cycles;
    lf.est_cycles = p.est_cycles;
    lf.chains = sg ? sg->chains : 1;
    lf.ub_bytes = p.peak[int(MemKind::UB)];
    lf.l1_bytes = p.peak[int(MemKind::L1)];
    lf.l0a_bytes = p.peak[int(MemKind::L0A)];
    lf.l0b_bytes = p.peak[int(MemKind::L0B)];
    lf.l0c_bytes = p.peak[int(MemKind::L0C)];
    // A class's copies may carry no steps (lazy leaf copies): its first leaf has them all.
    lf.num_ops = int((cls >= 0 ? plans[size_t(first_of_class[size_t(cls)])] : p).steps.size());
    lf.merge_info = sg ? sg->merge_info : "";
    p.leaf = int(i);
    // Leaves with equal records are one class, stored once (the structural class usually, but
    // merge info and chains come from the subgraph, so the record itself is the key).
    ClassKey key{lf.hash, lf.kernel, lf.est_cycles, lf.chains, lf.num_ops, int(lf.core), lf.pipe_cycles,
                 {lf.ub_bytes, lf.l1_bytes, lf.l0a_bytes, lf.l0b_bytes, lf.l0c_bytes}, lf.merge_info};
    auto [cit, fresh_class] = class_of_record.try_emplace(std::move(key), int(out.leaves.size()));
    if (fresh_class) {
      lf.id = cit->second;
      out.leaves.push_back(std::move(lf));
    }
    p.leaf_class = cit->second;
  }
}

}  // namespace ptoc
