// ScopedTiles: a lowering that emits its own ops (conv's im2col, topk's merge tree, gather's masks)
// picks tiles for them; the user's tiles, and whether they were already reported invalid, come back
// when the lowering's scope ends, so the statements after it tile as the user wrote.
#pragma once

#include <optional>
#include <utility>

#include "compiler/frontend/elaborator.h"

namespace ptoc::fe {

class ScopedTiles {
 public:
  // Sets `vec` and `cube` where given (ts may be null: nothing to set or restore).
  explicit ScopedTiles(TileState* ts, std::optional<VecTile> vec = std::nullopt,
                       std::optional<CubeTile> cube = std::nullopt)
      : ts_(ts) {
    if (!ts_) return;
    saved_ = *ts_;
    if (vec) ts_->vec = std::move(vec);
    if (cube) ts_->cube = std::move(cube);
  }
  ~ScopedTiles() {
    if (!ts_) return;
    ts_->vec = std::move(saved_.vec);
    ts_->cube = std::move(saved_.cube);
    ts_->vec_broken = saved_.vec_broken;
    ts_->cube_broken = saved_.cube_broken;
  }
  ScopedTiles(const ScopedTiles&) = delete;
  ScopedTiles& operator=(const ScopedTiles&) = delete;

 private:
  TileState* ts_;
  TileState saved_;  // only its tiles and broken flags are restored; scope and label are not ours
};

}  // namespace ptoc::fe
