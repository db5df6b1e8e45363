// A GM box in the axes of the tile it moves: when a value has size-1 axes that no tensor axis maps to
// (a reshape or unsqueeze adding them), the copy pairs tile and GM axes from the right, so the box
// gets those axes too, at their places, under a view of the tensor with the same bytes.
#pragma once

#include <vector>

#include "compiler/passes/tile_build.h"

namespace ptoc::tiling {

// Does a value of rank `rank` at `loc` have an unmapped axis after a mapped one (a trailing or middle
// size-1 axis)? Leading ones are not (right alignment pairs them). Only maps that keep axis order.
// With the tensor's `shape` (in loc's addressing), also: does the tensor have a size-1 axis no value
// axis maps to after a mapped one (a reshape dropping it: [N, 1] -> [1, N], [L, 1, D] -> [1, L, D])?
bool size_one_axes_after_mapped(const GmLoc& loc, size_t rank, const std::vector<DimExpr>* shape = nullptr);

// `r` (gm_ref(loc, box) of a value of rank `rank`) with one axis per value axis, in the value's order:
// the unmapped ones of extent 1, the tensor's squeezed ones where they are, except those of size 1, which
// address nothing and are left out of the view. `shape`: the tensor's shape in r's addressing (r.view,
// or the tensor's own when that is empty).
GmRef with_value_axes(const GmRef& r, const GmLoc& loc, size_t rank, const std::vector<DimExpr>& shape);

}  // namespace ptoc::tiling
