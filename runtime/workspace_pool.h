// The temp workspace pool: GM blocks for root instances' temps, grown in slabs, recycled when a
// device task is released. Part of the control-flow walk (runtime/control_flow.cpp), split out as its own unit.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "runtime/gm_arena.h"

namespace ptoc::runtime {

// A block of the temp workspace pool: the pool grows in slabs and a block never spans two,
// so each slab can be backed by one host allocation.
struct WorkspaceSlab {
  uint64_t addr = 0, bytes = 0;
};

}  // namespace ptoc::runtime

namespace ptoc::runtime::detail {

inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

class WorkspacePool {
 public:
  static constexpr uint64_t kSlab = 64ull << 20;
  explicit WorkspacePool(uint64_t base) : next_(base) {}

  uint64_t alloc(uint64_t bytes) {
    bytes = align_up(std::max<uint64_t>(bytes, 1), kGmAlign);
    for (size_t s = 0; s < slabs_.size(); ++s) {
      auto& fl = free_[s];
      for (auto it = fl.begin(); it != fl.end(); ++it) {
        if (it->second < bytes) continue;
        uint64_t a = it->first, rest = it->second - bytes;
        fl.erase(it);
        if (rest) fl.emplace(a + bytes, rest);
        held_ += bytes;
        return a;
      }
    }
    WorkspaceSlab slab{next_, std::max(kSlab, bytes)};
    next_ = align_up(next_ + slab.bytes, kGmAlign);
    slabs_.push_back(slab);
    free_.emplace_back();
    if (slab.bytes > bytes) free_.back().emplace(slab.addr + bytes, slab.bytes - bytes);
    held_ += bytes;
    return slab.addr;
  }
  void free(uint64_t addr, uint64_t bytes) {
    bytes = align_up(std::max<uint64_t>(bytes, 1), kGmAlign);
    held_ -= bytes;
    auto s = size_t(std::upper_bound(slabs_.begin(), slabs_.end(), addr,
                                     [](uint64_t a, const WorkspaceSlab& w) { return a < w.addr; }) -
                    slabs_.begin() - 1);
    auto& fl = free_[s];
    auto it = fl.emplace(addr, bytes).first;
    if (auto nx = std::next(it); nx != fl.end() && it->first + it->second == nx->first) {  // coalesce right
      it->second += nx->second;
      fl.erase(nx);
    }
    if (it != fl.begin()) {  // coalesce left
      auto pv = std::prev(it);
      if (pv->first + pv->second == it->first) {
        pv->second += it->second;
        fl.erase(it);
      }
    }
  }
  uint64_t held() const { return held_; }
  const std::vector<WorkspaceSlab>& slabs() const { return slabs_; }

 private:
  uint64_t next_;
  uint64_t held_ = 0;
  std::vector<WorkspaceSlab> slabs_;
  std::vector<std::map<uint64_t, uint64_t>> free_;
};

}  // namespace ptoc::runtime::detail
