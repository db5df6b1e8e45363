// topk along the last axis split by a vec_tile entry `tile` (k <= tile < the axis): per-tile candidates,
// then a merge of them (elaborate_topk_tiles.cpp). {values, int32 indices}, each with extent k.
#pragma once

#include <optional>
#include <utility>

#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

std::optional<std::pair<int, int>> select_k_tiled(Elaborator& el, const Elaborator::Call& c, int value, int64_t k, bool largest,
                                                  int64_t tile);

}  // namespace ptoc::fe
