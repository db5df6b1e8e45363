// Pass: per-leaf op order and pipe assignment.
//
// The tiling passes hand over each subgraph's ops in a valid order, chain by
// chain. Issuing them that way would serialise merged chains: chain 1's copy-in
// waits behind chain 0's whole body in the MTE2 queue. We list-schedule over
// the dependencies instead and, among the ready ops, take the one with the
// smallest (position within its chain, chain) so that chains advance in lock
// step: chain 1's copy-in is issued while chain 0 computes. That is where
// double buffering comes from (as PyPTO's OoO scheduler does it). The
// sequential order (interleave = false) keeps the fewest buffers live and is
// the fallback when the interleaved one does not fit.
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "compiler/passes/backend.h"

namespace ptoc {

void schedule_leaf(const TileRoot& root, const Subgraph& sg, const Platform&, bool interleave, LeafPlan& plan) {
  plan.subgraph = sg.id;
  plan.core = sg.core;
  plan.interleaved = interleave;
  plan.steps.clear();
  const int n = int(sg.ops.size());

  // Dependencies by tile identity, from the given (valid) order: RAW on every
  // read, WAW and WAR on the write.
  std::vector<std::vector<int>> deps(n);
  std::map<int, int> last_writer;                 // tile -> position
  std::map<int, std::vector<int>> readers_since;  // tile -> positions reading since the last write
  for (int i = 0; i < n; ++i) {
    const TileOp& op = tile_op(root, sg.ops[i]);
    for (int t : op_reads(op)) {
      if (auto it = last_writer.find(t); it != last_writer.end()) deps[i].push_back(it->second);
    }
    if (int w = op_write(op); w >= 0) {
      if (auto it = last_writer.find(w); it != last_writer.end()) deps[i].push_back(it->second);
      for (int r : readers_since[w])
        if (r != i) deps[i].push_back(r);
    }
    for (int t : op_reads(op)) readers_since[t].push_back(i);
    if (int w = op_write(op); w >= 0) {
      last_writer[w] = i;
      readers_since[w].clear();
    }
  }

  std::vector<int> order;
  if (!interleave) {
    for (int i = 0; i < n; ++i) order.push_back(i);
  } else {
    std::vector<int> pos_in_chain(n);
    std::map<int, int> chain_len;
    for (int i = 0; i < n; ++i) pos_in_chain[i] = chain_len[tile_op(root, sg.ops[i]).chain]++;
    std::vector<int> pending(n, 0);
    std::vector<std::vector<int>> users(n);
    for (int i = 0; i < n; ++i)
      for (int d : deps[i]) {
        ++pending[i];
        users[d].push_back(i);
      }
    using Key = std::tuple<int, int, int>;  // (position in chain, chain, given position)
    std::set<Key> ready;
    auto key = [&](int i) { return Key{pos_in_chain[i], tile_op(root, sg.ops[i]).chain, i}; };
    for (int i = 0; i < n; ++i)
      if (pending[i] == 0) ready.insert(key(i));
    while (!ready.empty()) {
      int i = std::get<2>(*ready.begin());
      ready.erase(ready.begin());
      order.push_back(i);
      for (int u : users[i])
        if (--pending[u] == 0) ready.insert(key(u));
    }
    if (int(order.size()) != n) throw std::logic_error("schedule: dependency cycle inside a subgraph");
  }

  for (int i : order) {
    LeafStep s;
    s.op = sg.ops[i];
    s.pipe = op_pipe(tile_op(root, s.op));
    plan.steps.push_back(std::move(s));
  }
}

}  // namespace ptoc
