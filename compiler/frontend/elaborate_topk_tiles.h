// topk along the last axis split by a vec_tile entry `tile` (k <= tile < the axis): per-tile candidates,
// then a merge of them (elaborate_topk_tiles.cpp). {values, int32 indices}, each with extent k.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

// Selection steps a topk of `k` over an axis of `n` writes out when the vec_tile splits it into tiles of
// `tile` (tile >= n: one selection of k steps; else k per tile, fewer in a short tail, plus k for the
// merge). Each step is a handful of tile ops, so this bounds the ops before any is made. Saturates.
int64_t select_steps(int64_t n, int64_t k, int64_t tile);
// False, with an error at the call naming `what` (the op as written), the count, the limit and the fix,
// when select_steps(n, k, tile) exceeds the select_steps limit (runtime/core/resource_limits.h).
bool check_select_steps(Elaborator& el, const Elaborator::Call& c, const std::string& what, int axis, int64_t n,
                        int64_t k, int64_t tile);

std::optional<std::pair<int, int>> select_k_tiled(Elaborator& el, const Elaborator::Call& c, int value, int64_t k, bool largest,
                                                  int64_t tile);

}  // namespace ptoc::fe
