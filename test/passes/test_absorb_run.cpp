// VecNBuffer's incremental absorbs (breadth_merge.cpp, AbsorbRun): every merged leaf must be what
// absorbing one member at a time with a full recount makes. Checked against the reference count
// (peak_bytes over the whole leaf), not against the incremental one: the leaf's ops in (rank in
// chain, chain) order, within UB, and closed before N chains only when the next member would not
// fit as one more chain.
#include "compiler/passes/breadth_merge.h"
#include "compiler/passes/tile_build.h"
#include "test/passes/tiling_test_util.h"

#include <algorithm>
#include <map>

using namespace ptoc;
using namespace ptoc::test;
using ptoc::tiling::interleaved_peak;

namespace {

const std::array<int64_t, 6> kAlign{1, 32, 32, 512, 512, 64};
constexpr int64_t kUb = 196608;  // ascend910b1

void set_count(ProgramBuilder& b, int64_t n) {
  MergeSetting::Entry e;
  e.name = "DEFAULT";
  e.key = MergeSetting::Entry::Key::Default;
  e.count = n;
  b.p.options.vec_nbuffer_setting.given = true;
  b.p.options.vec_nbuffer_setting.entries = {e};
}

// Each chain's ops in leaf order.
std::vector<std::vector<int>> chains_of(const TileRoot& r, const Subgraph& sg) {
  std::vector<std::vector<int>> c(size_t(sg.chains));
  for (int o : sg.ops) c[size_t(r.ops[size_t(o)].chain)].push_back(o);
  return c;
}

// The ops of `chains` interleaved by (rank, chain).
std::vector<int> by_rank(const std::vector<std::vector<int>>& chains) {
  std::vector<int> out;
  for (size_t k = 0;; ++k) {
    bool any = false;
    for (auto& c : chains)
      if (k < c.size()) out.push_back(c[k]), any = true;
    if (!any) return out;
  }
}

// Returns the number of leaves closed early (fewer than N chains, the next member not fitting).
int check_greedy(const TileRoot& r, int64_t N) {
  check_invariants(r);
  int early = 0;
  for (size_t i = 0; i < r.subgraphs.size(); ++i) {
    const Subgraph& sg = r.subgraphs[i];
    auto chains = chains_of(r, sg);
    for (auto& c : chains) REQUIRE_FALSE(c.empty());
    REQUIRE(sg.ops == by_rank(chains));
    REQUIRE(sg.chains <= N);
    REQUIRE(peak_bytes(r, sg.ops.vec(), kAlign)[int(MemKind::UB)] <= kUb);
    if (sg.chains < N && i + 1 < r.subgraphs.size()) {
      // The next leaf's first chain is the member this one refused.
      chains.push_back(chains_of(r, r.subgraphs[i + 1])[0]);
      REQUIRE(peak_bytes(r, by_rank(chains), kAlign)[int(MemKind::UB)] > kUb);
      ++early;
    }
  }
  return early;
}

}  // namespace

TEST_CASE("AbsorbRun: one-element tiles, automatic N", "[tiling][breadth][vec][absorb]") {
  // 8 192 one-element transposes: N = 171 (8 192 / 48 AIV cores), 48 leaves.
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {128, 64});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {64, 128});
  b.set_vec({1, 1});
  b.assemble(b.transpose(b.ref(x), 0, 1), y, {0, 0});
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  REQUIRE(r.subgraphs.size() == 48);
  REQUIRE(check_greedy(r, 171) == 0);
  for (size_t i = 0; i + 1 < r.subgraphs.size(); ++i) REQUIRE(r.subgraphs[i].chains == 171);
  REQUIRE(r.subgraphs.back().chains == 8192 - 47 * 171);
}

TEST_CASE("AbsorbRun: leaves closed by UB, with in-place results", "[tiling][breadth][vec][absorb]") {
  // exp(x) * 2 + x over (16, 128) fp32 tiles (8 KiB): the exp and the scaling run in place, the
  // sum keeps x alive, so a chain holds 16 KiB at its worst; 40 chains would need 640 KiB.
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {2048, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {2048, 128});
  b.set_vec({16, 128});
  int xv = b.ref(x);
  int e = b.scalar(OpKind::Mul, b.unary(OpKind::Exp, xv), 2.0);
  b.assemble(b.binary(OpKind::Add, e, xv), y, {0, 0});
  set_count(b, 40);
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  const TileRoot& r = t.roots[0];
  REQUIRE(check_greedy(r, 40) >= 1);
  int chains = 0;
  for (auto& sg : r.subgraphs) chains += sg.chains;
  REQUIRE(chains == 128);
}

TEST_CASE("AbsorbRun: members of several ops per chain and a broadcast row", "[tiling][breadth][vec][absorb]") {
  // (x - max(x)) per row block with a [1, 128] row added: chains of different op counts per tile.
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {1024, 128});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {1, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {1024, 128});
  b.set_vec({4, 128});
  int xv = b.ref(x);
  int m = b.reduce(OpKind::Amax, xv, 1, true);
  int d = b.binary(OpKind::Sub, xv, m);
  b.assemble(b.binary(OpKind::Add, d, b.ref(w)), y, {0, 0});
  set_count(b, 256);
  auto t = tile(b.finish());
  REQUIRE(t.ok);
  check_greedy(t.roots[0], 256);
}

TEST_CASE("InterleavedBytes: the peak of a (rank, chain) interleaving equals the full recount", "[tiling][breadth][absorb]") {
  // Hand-made chains of loads, unary ops (in place when the source dies there), binary ops and
  // stores, of different lengths and tile sizes, drawn from a fixed LCG: each prefix of chains
  // counted a chain at a time must give peak_bytes of the whole interleaved order.
  TileRoot r;
  uint64_t seed = 12345;
  auto rnd = [&](int n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return int((seed >> 33) % uint64_t(n));
  };
  auto new_tile = [&](int64_t cols) {
    LocalTile t;
    t.id = int(r.tiles.size());
    t.mem = MemKind::UB;
    t.dtype = DType::fp32;
    t.shape = {8, cols};
    r.tiles.push_back(t);
    return t.id;
  };
  auto new_op = [&](TileOpKind k, OpKind v, std::vector<int> srcs, int dst) {
    TileOp o;
    o.id = int(r.ops.size());
    o.kind = k;
    o.vop = v;
    o.srcs = std::move(srcs);
    o.dst = dst;
    r.ops.push_back(o);
    return o.id;
  };
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::vector<int>> chains;
    const int n_chains = 1 + rnd(12);
    for (int c = 0; c < n_chains; ++c) {
      std::vector<int> ops, live;
      const int64_t cols = 8 << rnd(5);
      for (int i = 0, n = 1 + rnd(8); i < n; ++i) {
        const int kind = live.empty() ? 0 : rnd(4);
        if (kind == 0) {  // load
          int t = new_tile(cols);
          ops.push_back(new_op(TileOpKind::CopyIn, OpKind::Add, {}, t));
          live.push_back(t);
        } else if (kind == 1) {  // unary: in place when its source is not read again
          int s = live[size_t(rnd(int(live.size())))], t = new_tile(cols);
          ops.push_back(new_op(TileOpKind::Vec, OpKind::Exp, {s}, t));
          if (rnd(2)) live.erase(std::find(live.begin(), live.end(), s));
          live.push_back(t);
        } else if (kind == 2) {  // binary of two live tiles
          int s0 = live[size_t(rnd(int(live.size())))], s1 = live[size_t(rnd(int(live.size())))], t = new_tile(cols);
          ops.push_back(new_op(TileOpKind::Vec, OpKind::Add, {s0, s1}, t));
          live.push_back(t);
        } else {  // store
          int s = live[size_t(rnd(int(live.size())))];
          ops.push_back(new_op(TileOpKind::CopyOut, OpKind::Add, {s}, -1));
          live.erase(std::find(live.begin(), live.end(), s));
        }
      }
      chains.push_back(ops);
      auto inc = interleaved_peak(r, chains, kAlign);
      REQUIRE(inc.has_value());
      const auto full = peak_bytes(r, by_rank(chains), kAlign);
      INFO("trial " << trial << ", chains " << chains.size());
      REQUIRE((*inc)[int(MemKind::UB)] == full[int(MemKind::UB)]);
    }
  }
  // A tile of two chains: the per-chain count does not apply.
  int t = new_tile(8);
  int l = new_op(TileOpKind::CopyIn, OpKind::Add, {}, t);
  int s = new_op(TileOpKind::CopyOut, OpKind::Add, {t}, -1);
  REQUIRE_FALSE(interleaved_peak(r, {{l}, {s}}, kAlign).has_value());
}
