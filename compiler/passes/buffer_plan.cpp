// Pass: buffer addresses for every on-chip tile of a leaf.
//
// Live range of a tile = [first step touching it, last step touching it] in
// schedule order. Sweeping the steps, tiles whose range ended are released and
// tiles starting here get an aligned address that overlaps no live buffer of
// the same memory. Spread (tried first) picks, among the places that fit, the
// one whose previous data died longest ago: the next k-step's copy-in lands
// beside the buffer the current step still reads, which is double buffering
// within one chain. FirstFit (the lowest address) is the compact fallback.
// Reusing a released address is safe because insert_sync orders the new
// writer after the old readers (WAR on the address range). A tile that finds no room is the
// compile error PyPTO only discovers in OoOSchedule; here it is reported at the
// spec op with the tile knob to change.
#include <algorithm>
#include <cstdint>
#include <array>
#include <map>
#include <sstream>

#include "compiler/passes/backend.h"
#include "compiler/passes/buffer_liveness.h"
#include "compiler/passes/buffer_placement.h"
#include "compiler/passes/vec_tile_proposal.h"

namespace ptoc {

namespace {

int64_t align_up(int64_t v, int64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

}  // namespace

int64_t buffer_bytes(const LocalTile& t) {
  int64_t n = dtype_size(t.dtype);
  for (int64_t d : t.shape) n *= d;
  if (t.mem == MemKind::UB || t.mem == MemKind::GM) return n;
  // Cube memories hold fractals (kernels/pto_tile.h pto_cube_tile_bytes):
  // rows padded to 16, a row's bytes to 32 (L1/L0A/L0B) or to 16 fp32 (L0C).
  int64_t rows = 1, cols = t.shape.empty() ? 1 : t.shape.back();
  for (size_t d = 0; d + 1 < t.shape.size(); ++d) rows *= t.shape[d];
  const int64_t row_align = t.mem == MemKind::L0C ? 64 : 32;
  return (rows + 15) / 16 * 16 * ((cols * dtype_size(t.dtype) + row_align - 1) / row_align * row_align);
}

int64_t mem_capacity(const Platform& p, MemKind m) {
  switch (m) {
    case MemKind::UB: return p.ub;
    case MemKind::L1: return p.l1;
    case MemKind::L0A: return p.l0a;
    case MemKind::L0B: return p.l0b;
    case MemKind::L0C: return p.l0c;
    case MemKind::GM: return p.hbm;
  }
  return 0;
}

int64_t mem_alignment(const Platform& p, MemKind m) {
  switch (m) {
    case MemKind::UB: return p.align_ub;
    case MemKind::L1: return p.align_l1;
    case MemKind::L0A: return p.align_l0a;
    case MemKind::L0B: return p.align_l0b;
    case MemKind::L0C: return p.align_l0c;
    case MemKind::GM: return 1;
  }
  return 1;
}

namespace {

// In-place takeovers (buffer_liveness.h) of one planning attempt: result tile -> source tile.
// `all` false: only the free ones, whose source no other pipe reads (a store of the
// source on MTE3 would make the in-place write wait for it).
std::map<int, int> takeovers(const TileRoot& root, const LeafPlan& plan, const std::map<int, BufferSlot>& slots,
                             bool all) {
  std::map<int, int> out;
  // The first step off the V pipe that reads each tile: a source read there before step i is not free
  // (one pass, not a rescan of the steps before every candidate: fuzz seed 9600099's leaves of thousands).
  std::map<int, int> first_other_read;
  if (!all)
    for (int j = 0; j < int(plan.steps.size()); ++j)
      if (plan.steps[j].pipe != PipeId::V)
        for (int t : op_reads(tile_op(root, plan.steps[j].op))) first_other_read.try_emplace(t, j);
  for (int i = 0; i < int(plan.steps.size()); ++i) {
    const TileOp& op = tile_op(root, plan.steps[i].op);
    const int c = in_place_source(root, op);
    if (c < 0) continue;
    auto sc = slots.find(c), sd = slots.find(op.dst);
    if (sc == slots.end() || sd == slots.end()) continue;
    if (sc->second.last != i || sd->second.first != i || sc->second.size != sd->second.size) continue;
    auto r = first_other_read.find(c);
    const bool free = all || r == first_other_read.end() || r->second >= i;
    if (free) out[op.dst] = c;
  }
  return out;
}

// Every on-chip tile of the leaf with its aligned size and live range.
std::map<int, BufferSlot> leaf_slots(const TileRoot& root, const Platform& plat, const LeafPlan& plan) {
  std::map<int, BufferSlot> slots;  // by tile id
  for (int i = 0; i < int(plan.steps.size()); ++i) {
    const TileOp& op = tile_op(root, plan.steps[i].op);
    std::vector<int> touched = op_reads(op);
    if (op.dst >= 0) touched.push_back(op.dst);
    for (int t : touched) {
      const LocalTile& lt = local_tile(root, t);
      if (lt.mem == MemKind::GM) continue;
      auto [it, fresh] = slots.try_emplace(t);
      BufferSlot& s = it->second;
      if (fresh) {
        s.tile = t;
        s.mem = lt.mem;
        s.size = align_up(buffer_bytes(lt), mem_alignment(plat, lt.mem));
        s.first = i;
      }
      s.last = i;
    }
  }
  return slots;
}

// Offline placement, largest first (the greedy-by-size heuristic of TFLite's
// and TVM's planners): each tile, with the tiles it hands its buffer to in
// place as one interval, goes to the lowest address clear of every placed
// interval it overlaps in time. The step sweep can fragment a memory filled to
// the byte (small tiles dead between big ones); this fallback rarely does.
bool plan_by_size(const TileRoot& root, const Platform& plat, LeafPlan& plan) {
  std::map<int, BufferSlot> slots = leaf_slots(root, plat, plan);
  const std::map<int, int> inherit = takeovers(root, plan, slots, true);
  struct Group {
    std::vector<BufferSlot*> members;
    MemKind mem;
    int first, last;
    int64_t size, addr = -1;
  };
  std::map<int, int> group_of;  // tile -> group index
  std::vector<Group> groups;
  for (auto& [id, sl] : slots) {  // sources have lower ids than their in-place results
    auto in = inherit.find(id);
    int g;
    if (in != inherit.end() && group_of.count(in->second)) {
      g = group_of[in->second];
    } else {
      g = int(groups.size());
      groups.push_back({{}, sl.mem, sl.first, sl.last, sl.size});
    }
    group_of[id] = g;
    Group& gr = groups[size_t(g)];
    gr.members.push_back(&sl);
    gr.first = std::min(gr.first, sl.first);
    gr.last = std::max(gr.last, sl.last);
    gr.size = std::max(gr.size, sl.size);
  }
  std::vector<Group*> order;
  for (Group& g : groups) order.push_back(&g);
  std::stable_sort(order.begin(), order.end(), [](const Group* a, const Group* b) {
    return a->size != b->size ? a->size > b->size : a->first < b->first;
  });
  std::vector<const Group*> placed;
  for (Group* g : order) {
    const int64_t align = mem_alignment(plat, g->mem), cap = mem_capacity(plat, g->mem);
    std::vector<const Group*> clash;
    for (const Group* p : placed)
      if (p->mem == g->mem && p->first <= g->last && g->first <= p->last) clash.push_back(p);
    std::vector<int64_t> cands = {0};
    for (const Group* p : clash) cands.push_back(align_up(p->addr + p->size, align));
    std::sort(cands.begin(), cands.end());
    for (int64_t c : cands) {
      if (c + g->size > cap) break;
      bool ok = true;
      for (const Group* p : clash) ok &= c + g->size <= p->addr || p->addr + p->size <= c;
      if (ok) {
        g->addr = c;
        break;
      }
    }
    if (g->addr < 0) return false;
    placed.push_back(g);
  }
  plan.buffers.clear();
  plan.peak.fill(0);
  for (Group& g : groups)
    for (BufferSlot* m : g.members) {
      m->addr = g.addr;
      plan.peak[int(g.mem)] = std::max(plan.peak[int(g.mem)], g.addr + m->size);
    }
  for (auto& [id, sl] : slots) plan.buffers.push_back(sl);
  return true;
}

std::optional<BufferOverflow> plan_once(const TileRoot& root, const Platform& plat, LeafPlan& plan,
                                        PlacePolicy policy, bool all_in_place, bool* more_in_place) {
  plan.buffers.clear();
  plan.peak.fill(0);
  std::map<int, BufferSlot> slots = leaf_slots(root, plat, plan);
  const std::map<int, int> inherit = takeovers(root, plan, slots, all_in_place);
  if (more_in_place) *more_in_place = !all_in_place && takeovers(root, plan, slots, true).size() > inherit.size();

  // The step sweep (buffer_placement.h); an empty buffer may share a live one's address, which only
  // the scan models.
  PlacementLimits lim;
  for (int m = 0; m < kNumMemKinds; ++m) {
    lim.capacity[size_t(m)] = mem_capacity(plat, MemKind(m));
    lim.alignment[size_t(m)] = mem_alignment(plat, MemKind(m));
  }
  bool gridded = true;
  for (auto& [id, s] : slots) gridded &= s.size > 0 && lim.alignment[int(s.mem)] >= 1 && s.size % lim.alignment[int(s.mem)] == 0;
  if (auto ov = gridded ? place_buffers_indexed(slots, inherit, lim, policy, plan.peak)
                        : place_buffers_scan(slots, inherit, lim, policy, plan.peak))
    return ov;
  for (auto& [id, s] : slots) plan.buffers.push_back(s);
  return std::nullopt;
}

}  // namespace

std::optional<BufferOverflow> plan_buffers(const TileRoot& root, const Platform& plat, LeafPlan& plan,
                                          PlacePolicy policy) {
  // The free takeovers first; all of them (the tiling passes' model) when that does not fit.
  bool more = false;
  auto ov = plan_once(root, plat, plan, policy, false, &more);
  if (ov && more) ov = plan_once(root, plat, plan, policy, true, nullptr);
  // The compact policy's last resort: largest first, offline (the overflow of the sweep is the report).
  if (ov && policy == PlacePolicy::FirstFit && plan_by_size(root, plat, plan)) return std::nullopt;
  return ov;
}

void report_overflow(const Program& prog, const TileRoot& root, const LeafPlan& plan, const BufferOverflow& ov,
                     const Platform& plat, DiagEngine& diags) {
  const TileOp& op = tile_op(root, plan.steps[ov.step].op);
  const LocalTile& lt = local_tile(root, ov.tile);
  const Op* src = op.source_op >= 0 && op.source_op < int(prog.ops.size()) ? &prog.ops[op.source_op] : nullptr;
  const SrcLoc loc = src ? src->loc : SrcLoc{};
  if (overflow_reported(diags, loc)) return;
  std::vector<int> ops;
  for (const LeafStep& st : plan.steps) ops.push_back(st.op);
  std::string mem(mem_kind_name(ov.mem));
  std::string op_name = src ? std::string(op_kind_name(src->kind)) : "tile op";
  // Every live buffer by name with its bytes (padding apart), then the free
  // bytes, so that they add up to the capacity.
  std::vector<BufferSlot> live = ov.live_slots;
  std::stable_sort(live.begin(), live.end(), [](const BufferSlot& x, const BufferSlot& y) { return x.size > y.size; });
  std::ostringstream list;
  int64_t held = 0;
  for (size_t i = 0; i < live.size(); ++i) {
    const LocalTile& t = local_tile(root, live[i].tile);
    const int64_t data = t.bytes();
    list << (i ? "; " : "") << tile_label(prog, root, ops, live[i].tile) << " " << tile_shape_text(t) << " " << data;
    if (live[i].size > data) list << " + " << live[i].size - data << " alignment padding";
    held += live[i].size;
  }
  std::sort(live.begin(), live.end(), [](const BufferSlot& x, const BufferSlot& y) { return x.addr < y.addr; });
  int holes = 0;
  int64_t at = 0;
  for (const BufferSlot& l : live) {
    holes += l.addr > at;
    at = std::max(at, l.addr + l.size);
  }
  holes += ov.capacity > at;
  const int64_t free_bytes = ov.capacity - held;
  std::ostringstream msg;
  msg << "'" << op_name << "' does not fit in " << mem << ": its " << (op.dst == ov.tile ? "output" : "input")
      << " tile " << tile_label(prog, root, ops, ov.tile) << " " << tile_shape_text(lt) << " needs " << ov.needed
      << " bytes";
  if (ov.needed > lt.bytes()) msg << " (" << lt.bytes() << " + " << ov.needed - lt.bytes() << " alignment padding)";
  msg << " but the largest free range of " << mem << " is " << ov.largest_free << " bytes; of its " << ov.capacity
      << " bytes, ";
  if (live.empty()) msg << "none are in use";
  else msg << live.size() << (live.size() == 1 ? " live buffer holds " : " live buffers hold ") << held << " ("
           << list.str() << ")";
  msg << " and " << free_bytes << " are free in " << holes << (holes == 1 ? " range" : " ranges");

  // The fix: the tile knob in force for that op, with the axis to shrink.
  std::ostringstream hint;
  std::string fit;
  if (src && src->vec_tile && ov.mem == MemKind::UB && held + ov.needed > ov.capacity) {
    std::array<int64_t, 6> align{};
    for (int m = 0; m < 6; ++m) align[size_t(m)] = mem_alignment(plat, MemKind(m));
    std::vector<TileLive> lives = tile_lives(root, ops, align);
    const VecTileCheck retile = [&](const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
      return vec_tile_proposal_fits(prog, plat, src->vec_tile->loc, from, to);
    };
    fit = fitting_vec_tile(prog, root, ops, lives, ov.mem, ov.step, ov.capacity, align, retile);
  }
  if (!fit.empty()) {
    hint << fit;
  } else if (src && src->vec_tile && ov.mem == MemKind::UB) {
    const auto& vt = src->vec_tile->shape;
    size_t ax = 0;
    for (size_t i = 1; i < vt.size(); ++i)
      if (vt[i] > vt[ax]) ax = i;
    hint << "reduce vec_tile on axis " << ax << " (now " << (vt.empty() ? 0 : vt[ax]) << ")";
    if (src->vec_tile->loc.valid()) hint << " at line " << src->vec_tile->loc.line;
  } else if (src && src->cube_tile) {
    const CubeTile& ct = *src->cube_tile;
    switch (ov.mem) {
      case MemKind::L0A: hint << "reduce cube_tile m or k at L0 (now m=" << ct.m[0] << ", k=" << ct.k[0] << ")"; break;
      case MemKind::L0B: hint << "reduce cube_tile k or n at L0 (now k=" << ct.k[0] << ", n=" << ct.n[0] << ")"; break;
      case MemKind::L0C: hint << "reduce cube_tile m or n at L0 (now m=" << ct.m[0] << ", n=" << ct.n[0] << ")"; break;
      default:
        hint << "reduce cube_tile at L1 (now m=" << ct.m[1] << ", k=" << ct.k[1] << "/" << ct.k[2] << ", n=" << ct.n[1]
             << ")";
        break;
    }
    if (ct.loc.valid()) hint << " at line " << ct.loc.line;
  } else {
    hint << "use smaller tiles for this op";
  }
  const Subgraph* sg = nullptr;
  for (const auto& g : root.subgraphs)
    if (g.id == plan.subgraph) sg = &g;
  if (sg && sg->chains > 1) {
    const char* knob = sg->core == CoreType::AIC ? "cube_nbuffer_setting / cube_l1_reuse_setting" : "vec_nbuffer_setting";
    hint << ", or merge fewer chains (" << sg->chains << " now) with " << knob << " for func"
         << (root.root >= 0 && root.root < int(prog.roots.size()) ? prog.roots[root.root].index : root.root) << "_"
         << sg->hash_order;
  }
  diags.error(loc, msg.str(), hint.str());
}

// The placement policy of one leaf: the most overlap first (Spread); then the compact placement
// (FirstFit); then the sequential order, which keeps the fewest tiles live (merged chains, and any
// leaf the list schedule made start loads early: the tiling passes checked the subgraph's own order,
// in-place writes included, against the buffers). `sequential` says the last was needed.
std::optional<BufferOverflow> fit_leaf_buffers(const TileRoot& root, const Subgraph& sg, const Platform& plat,
                                               LeafPlan& plan, bool& sequential) {
  sequential = false;
  auto ov = plan_buffers(root, plat, plan, PlacePolicy::Spread);
  if (ov) ov = plan_buffers(root, plat, plan, PlacePolicy::FirstFit);
  if (ov) {
    schedule_leaf(root, sg, plat, false, plan);
    ov = plan_buffers(root, plat, plan, PlacePolicy::Spread);
    if (ov) ov = plan_buffers(root, plat, plan, PlacePolicy::FirstFit);
    sequential = !ov;
  }
  return ov;
}

}  // namespace ptoc
