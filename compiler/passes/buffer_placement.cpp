#include "compiler/passes/buffer_placement.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <queue>
#include <unordered_map>

namespace ptoc {

namespace {

int64_t align_up(int64_t v, int64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

std::vector<BufferSlot*> by_start_order(std::map<int, BufferSlot>& slots) {
  // Tiles in the order they start (then by id), so the sweep is one pass.
  std::vector<BufferSlot*> by_start;
  for (auto& [id, s] : slots) by_start.push_back(&s);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [](const BufferSlot* a, const BufferSlot* b) { return a->first < b->first; });
  return by_start;
}

BufferOverflow overflow_of(const BufferSlot& s, int64_t cap, const std::vector<const BufferSlot*>& same,
                           int64_t align) {
  int64_t live_bytes = 0, largest = 0, prev_end = 0;
  for (const BufferSlot* l : same) {
    live_bytes += l->size;
    largest = std::max(largest, l->addr - prev_end);
    prev_end = std::max(prev_end, align_up(l->addr + l->size, align));
  }
  largest = std::max(largest, cap - prev_end);
  BufferOverflow ov;
  ov.step = s.first;
  ov.tile = s.tile;
  ov.mem = s.mem;
  ov.needed = s.size;
  ov.capacity = cap;
  ov.live = live_bytes;
  ov.live_tiles = int(same.size());
  ov.largest_free = std::max<int64_t>(0, largest);
  for (const BufferSlot* l : same) ov.live_slots.push_back(*l);
  return ov;
}

// One memory's address grid (cells of its alignment): a segment tree with, per node, whether a cell
// is held, the latest release step over any cell (-1: never used), and the least release step over
// its candidate cells (any / free ones; kNone when it has none), for a best-first search.
class Grid {
 public:
  static constexpr int kNone = INT_MAX;
  int cells = 0;
  explicit Grid(int n) : cells(n), occ_(4 * size_t(std::max(n, 1)), 0), rec_(occ_.size(), -1),
                         cand_min_(occ_.size(), kNone), free_min_(occ_.size(), kNone),
                         tag_occ_(occ_.size(), -1), tag_rec_(occ_.size(), -1), count_(size_t(std::max(n, 1)), 0) {}

  void hold(int l, int r, bool held) { if (l <= r) occupy(1, 0, cells - 1, l, r, held ? 1 : 0); }
  void released(int l, int r, int step) { if (l <= r) raise(1, 0, cells - 1, l, r, step); }
  void candidate(int cell, int delta) {
    if (cell >= 0 && cell < cells) count(1, 0, cells - 1, cell, delta);
  }
  // FirstFit: the lowest candidate cell whose k cells are free; -1 when none.
  int lowest(int k) { return cells ? first_fit(1, 0, cells - 1, k) : -1; }
  // Spread: the candidate whose k cells are free and were released longest ago (the lowest on a tie).
  int least_recent(int k) {
    int best_rec = kNone, best = -1;
    if (cells) spread(1, 0, cells - 1, k, best_rec, best);
    return best;
  }

 private:
  std::vector<int> occ_, rec_, cand_min_, free_min_, tag_occ_, tag_rec_, count_;

  void put_occ(int x, int v) {
    occ_[size_t(x)] = v;
    free_min_[size_t(x)] = v ? kNone : cand_min_[size_t(x)];
    tag_occ_[size_t(x)] = v;
  }
  void put_rec(int x, int v) {
    rec_[size_t(x)] = std::max(rec_[size_t(x)], v);
    if (cand_min_[size_t(x)] != kNone) cand_min_[size_t(x)] = std::max(cand_min_[size_t(x)], v);
    if (free_min_[size_t(x)] != kNone) free_min_[size_t(x)] = std::max(free_min_[size_t(x)], v);
    tag_rec_[size_t(x)] = std::max(tag_rec_[size_t(x)], v);
  }
  void push(int x) {
    for (int c : {2 * x, 2 * x + 1}) {
      if (tag_occ_[size_t(x)] >= 0) put_occ(c, tag_occ_[size_t(x)]);
      if (tag_rec_[size_t(x)] >= 0) put_rec(c, tag_rec_[size_t(x)]);
    }
    tag_occ_[size_t(x)] = tag_rec_[size_t(x)] = -1;
  }
  void pull(int x) {
    const size_t l = 2 * size_t(x), r = l + 1;
    occ_[size_t(x)] = std::max(occ_[l], occ_[r]);
    rec_[size_t(x)] = std::max(rec_[l], rec_[r]);
    cand_min_[size_t(x)] = std::min(cand_min_[l], cand_min_[r]);
    free_min_[size_t(x)] = std::min(free_min_[l], free_min_[r]);
  }
  void occupy(int x, int lo, int hi, int l, int r, int v) {
    if (r < lo || hi < l) return;
    if (l <= lo && hi <= r) return put_occ(x, v);
    push(x);
    const int mid = (lo + hi) / 2;
    occupy(2 * x, lo, mid, l, r, v);
    occupy(2 * x + 1, mid + 1, hi, l, r, v);
    pull(x);
  }
  void raise(int x, int lo, int hi, int l, int r, int v) {
    if (r < lo || hi < l) return;
    if (l <= lo && hi <= r) return put_rec(x, v);
    push(x);
    const int mid = (lo + hi) / 2;
    raise(2 * x, lo, mid, l, r, v);
    raise(2 * x + 1, mid + 1, hi, l, r, v);
    pull(x);
  }
  void count(int x, int lo, int hi, int cell, int delta) {
    if (lo == hi) {
      count_[size_t(cell)] += delta;
      cand_min_[size_t(x)] = count_[size_t(cell)] > 0 ? rec_[size_t(x)] : kNone;
      free_min_[size_t(x)] = occ_[size_t(x)] ? kNone : cand_min_[size_t(x)];
      return;
    }
    push(x);
    const int mid = (lo + hi) / 2;
    if (cell <= mid) count(2 * x, lo, mid, cell, delta);
    else count(2 * x + 1, mid + 1, hi, cell, delta);
    pull(x);
  }
  int max_occ(int x, int lo, int hi, int l, int r) {
    if (r < lo || hi < l) return 0;
    if (l <= lo && hi <= r) return occ_[size_t(x)];
    push(x);
    const int mid = (lo + hi) / 2;
    return std::max(max_occ(2 * x, lo, mid, l, r), max_occ(2 * x + 1, mid + 1, hi, l, r));
  }
  int max_rec(int x, int lo, int hi, int l, int r) {
    if (r < lo || hi < l) return -1;
    if (l <= lo && hi <= r) return rec_[size_t(x)];
    push(x);
    const int mid = (lo + hi) / 2;
    return std::max(max_rec(2 * x, lo, mid, l, r), max_rec(2 * x + 1, mid + 1, hi, l, r));
  }
  bool room(int c, int k) { return c + k <= cells && max_occ(1, 0, cells - 1, c, c + k - 1) == 0; }
  int first_fit(int x, int lo, int hi, int k) {
    if (free_min_[size_t(x)] == kNone) return -1;
    if (lo == hi) return room(lo, k) ? lo : -1;
    push(x);
    const int mid = (lo + hi) / 2;
    const int l = first_fit(2 * x, lo, mid, k);
    return l >= 0 ? l : first_fit(2 * x + 1, mid + 1, hi, k);
  }
  void spread(int x, int lo, int hi, int k, int& best_rec, int& best) {
    // A window's recency is at least its first cell's: a node whose least is no better is skipped.
    if (free_min_[size_t(x)] == kNone || free_min_[size_t(x)] >= best_rec) return;
    if (lo == hi) {
      if (!room(lo, k)) return;
      const int rec = max_rec(1, 0, cells - 1, lo, lo + k - 1);
      if (rec < best_rec) best_rec = rec, best = lo;
      return;
    }
    push(x);
    const int mid = (lo + hi) / 2;
    spread(2 * x, lo, mid, k, best_rec, best);
    spread(2 * x + 1, mid + 1, hi, k, best_rec, best);
  }
};

}  // namespace

std::optional<BufferOverflow> place_buffers_scan(std::map<int, BufferSlot>& slots, const std::map<int, int>& inherit,
                                                 const PlacementLimits& lim, PlacePolicy policy,
                                                 std::array<int64_t, kNumMemKinds>& peak) {
  std::vector<BufferSlot*> live;
  // Per memory: address -> (end, last step) of released buffers there, for Spread.
  std::array<std::map<int64_t, std::pair<int64_t, int>>, kNumMemKinds> dead;
  // Per memory: the longest released range (end - address), so a recency query scans only the
  // released buffers that can reach a candidate, not all of them (a leaf of thousands of tiles).
  std::array<int64_t, kNumMemKinds> dead_span{};
  for (BufferSlot* s : by_start_order(slots)) {
    // Release the buffers whose last touch came before this tile's first.
    std::erase_if(live, [&](const BufferSlot* l) {
      if (l->last >= s->first) return false;
      auto& d = dead[int(l->mem)][l->addr];
      d.first = std::max(d.first, l->addr + l->size);
      d.second = std::max(d.second, l->last);
      dead_span[int(l->mem)] = std::max(dead_span[int(l->mem)], d.first - l->addr);
      return true;
    });
    // In place: the result takes its dying source's buffer over.
    if (auto in = inherit.find(s->tile); in != inherit.end()) {
      auto src = std::find_if(live.begin(), live.end(), [&](const BufferSlot* l) { return l->tile == in->second; });
      if (src != live.end()) {
        s->addr = (*src)->addr;
        live.erase(src);
        live.push_back(s);
        continue;
      }
    }
    std::vector<const BufferSlot*> same;
    for (const BufferSlot* l : live)
      if (l->mem == s->mem) same.push_back(l);
    std::sort(same.begin(), same.end(), [](auto* a, auto* b) { return a->addr < b->addr; });
    const int64_t align = lim.alignment[int(s->mem)], cap = lim.capacity[int(s->mem)];
    // Candidate addresses: 0, after each live buffer, and (Spread) where
    // released buffers started and ended.
    std::vector<int64_t> cands = {0};
    for (const BufferSlot* l : same) cands.push_back(align_up(l->addr + l->size, align));
    if (policy == PlacePolicy::Spread)
      for (const auto& [addr, d] : dead[int(s->mem)]) {
        cands.push_back(addr);
        cands.push_back(align_up(d.first, align));
      }
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
    // A candidate clashes when a live buffer starting before its end ends after its start: with
    // `same` sorted by address, the furthest end over that prefix decides (one binary search).
    std::vector<int64_t> furthest_end(same.size());
    for (size_t i = 0; i < same.size(); ++i)
      furthest_end[i] = std::max(i ? furthest_end[i - 1] : INT64_MIN, same[i]->addr + same[i]->size);
    int64_t best = -1;
    int best_recency = 0;
    for (int64_t c : cands) {
      if (c % align != 0 || c + s->size > cap) continue;
      const size_t k = size_t(std::lower_bound(same.begin(), same.end(), c + s->size,
                                               [](const BufferSlot* l, int64_t e) { return l->addr < e; }) -
                              same.begin());
      if (k > 0 && furthest_end[k - 1] > c) continue;
      if (policy == PlacePolicy::FirstFit) {
        best = c;
        break;
      }
      // Spread: the range whose previous data died longest ago, so the new
      // writer's WAR wait on the old readers is least likely to stall it.
      int recency = -1;
      const auto& dm = dead[int(s->mem)];
      for (auto it = dm.lower_bound(c - dead_span[int(s->mem)]); it != dm.end() && it->first < c + s->size; ++it)
        if (c < it->second.first) recency = std::max(recency, it->second.second);
      if (best < 0 || recency < best_recency) {
        best = c;
        best_recency = recency;
      }
    }
    if (best < 0) return overflow_of(*s, cap, same, align);
    s->addr = best;
    peak[int(s->mem)] = std::max(peak[int(s->mem)], best + s->size);
    live.push_back(s);
  }
  return std::nullopt;
}

std::optional<BufferOverflow> place_buffers_indexed(std::map<int, BufferSlot>& slots,
                                                    const std::map<int, int>& inherit, const PlacementLimits& lim,
                                                    PlacePolicy policy, std::array<int64_t, kNumMemKinds>& peak) {
  const bool spread = policy == PlacePolicy::Spread;
  std::array<std::unique_ptr<Grid>, kNumMemKinds> grids;
  for (auto& [id, s] : slots) {
    auto& g = grids[int(s.mem)];
    if (g) continue;
    const int64_t a = std::max<int64_t>(1, lim.alignment[int(s.mem)]);
    g = std::make_unique<Grid>(int(std::max<int64_t>(0, lim.capacity[int(s.mem)]) / a));
    g->candidate(0, 1);
  }
  auto cell = [&](MemKind m, int64_t addr) {
    return int(addr / std::max<int64_t>(1, lim.alignment[int(m)]));
  };
  std::array<std::map<int64_t, BufferSlot*>, kNumMemKinds> live_at;  // per memory, by address
  std::unordered_map<int, BufferSlot*> live_tile;
  using Due = std::pair<int, int>;  // (last step, tile)
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
  std::array<std::map<int64_t, std::pair<int64_t, int>>, kNumMemKinds> dead;
  for (BufferSlot* s : by_start_order(slots)) {
    while (!due.empty() && due.top().first < s->first) {
      const int t = due.top().second;
      due.pop();
      auto it = live_tile.find(t);
      if (it == live_tile.end()) continue;  // taken over in place
      BufferSlot* l = it->second;
      live_tile.erase(it);
      live_at[int(l->mem)].erase(l->addr);
      Grid& g = *grids[int(l->mem)];
      const int from = cell(l->mem, l->addr), to = cell(l->mem, l->addr + l->size);
      g.hold(from, to - 1, false);
      g.candidate(to, -1);
      auto [dit, fresh] = dead[int(l->mem)].try_emplace(l->addr, 0, 0);
      auto& d = dit->second;
      const int64_t old_end = d.first;
      d.first = std::max(d.first, l->addr + l->size);
      d.second = std::max(d.second, l->last);
      g.released(from, cell(l->mem, d.first) - 1, d.second);
      if (spread) {
        const int64_t a = lim.alignment[int(l->mem)];
        if (fresh) g.candidate(from, 1);
        if (fresh || align_up(old_end, a) != align_up(d.first, a)) {
          if (!fresh) g.candidate(cell(l->mem, align_up(old_end, a)), -1);
          g.candidate(cell(l->mem, align_up(d.first, a)), 1);
        }
      }
    }
    if (auto in = inherit.find(s->tile); in != inherit.end()) {
      auto src = live_tile.find(in->second);
      if (src != live_tile.end()) {
        BufferSlot* l = src->second;
        s->addr = l->addr;
        live_tile.erase(src);
        live_at[int(l->mem)].erase(l->addr);
        live_at[int(s->mem)][s->addr] = s;
        live_tile[s->tile] = s;
        due.push({s->last, s->tile});
        continue;  // same cells, same end
      }
    }
    Grid& g = *grids[int(s->mem)];
    const int64_t a = std::max<int64_t>(1, lim.alignment[int(s->mem)]);
    const int k = int(s->size / a);
    const int c = spread ? g.least_recent(k) : g.lowest(k);
    if (c < 0) {
      std::vector<const BufferSlot*> same;
      for (auto& [addr, l] : live_at[int(s->mem)]) same.push_back(l);
      return overflow_of(*s, lim.capacity[int(s->mem)], same, lim.alignment[int(s->mem)]);
    }
    s->addr = int64_t(c) * a;
    peak[int(s->mem)] = std::max(peak[int(s->mem)], s->addr + s->size);
    g.hold(c, c + k - 1, true);
    g.candidate(c + k, 1);
    live_at[int(s->mem)][s->addr] = s;
    live_tile[s->tile] = s;
    due.push({s->last, s->tile});
  }
  return std::nullopt;
}

}  // namespace ptoc
