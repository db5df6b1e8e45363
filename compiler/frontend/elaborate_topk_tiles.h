// topk and argsort along the last axis as native row sorts (OpKind::SortValues / SortIndices), PyPTO's
// MERGE_SORT way (elaborate_topk_tiles.cpp). {values, int32 indices}, each with extent k.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

// Sort ops a topk over an axis of `n` writes when the vec_tile splits it into tiles of `tile`
// (tile >= n: one sort; else one per tile and the final merge; a merge tree adds fewer than the tiles).
// Bounds the ops before any is made. Saturates.
int64_t select_steps(int64_t n, int64_t tile);
// False, with an error at the call naming `what` (the op as written), the count, the limit and the fix,
// when select_steps(n, tile) exceeds the select_steps limit (runtime/core/resource_limits.h).
bool check_select_steps(Elaborator& el, const Elaborator::Call& c, const std::string& what, int axis, int64_t n,
                        int64_t k, int64_t tile);

// The k first of a sort of `value`'s rows along its last axis (static extent n, any valid extent <= n:
// the positions past it never selected; fewer than k valid: padded with -inf / +inf and index -1), the
// axis in tiles of `tile` (>= k): one sort per tile, then a merge of the tiles' candidates. Without
// `values` (argsort) a whole-axis sort makes only the indices (first: -1).
std::optional<std::pair<int, int>> sort_k(Elaborator& el, const Elaborator::Call& c, int value, int64_t k, bool largest,
                                          int64_t tile, bool values = true);

}  // namespace ptoc::fe
