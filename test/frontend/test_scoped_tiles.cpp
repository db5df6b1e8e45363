// ScopedTiles: a lowering's own tiles last for its scope; the user's tiles and broken flags come back.
#include <catch2/catch.hpp>

#include "compiler/frontend/scoped_tiles.h"

using namespace ptoc;
using namespace ptoc::fe;

TEST_CASE("ScopedTiles sets the lowering's tiles and restores the user's with their broken flags") {
  TileState ts;
  ts.vec = VecTile{{8, 128}, {}};
  ts.vec_broken = false;
  ts.cube_broken = true;
  {
    ScopedTiles scope(&ts, VecTile{{1, 4096}, {}}, CubeTile{{64, 64}, {64, 64}, {32, 64, 64}, false, {}});
    REQUIRE(ts.vec->shape == std::vector<int64_t>{1, 4096});
    REQUIRE(ts.cube);
    REQUIRE(ts.cube->m[0] == 64);
    ts.vec_broken = true;  // an error on the lowering's tile
    ts.cube_broken = false;
  }
  REQUIRE(ts.vec->shape == std::vector<int64_t>{8, 128});
  REQUIRE_FALSE(ts.cube);
  REQUIRE_FALSE(ts.vec_broken);
  REQUIRE(ts.cube_broken);
}

TEST_CASE("ScopedTiles without a new tile keeps the one in force and still restores it") {
  TileState ts;
  ts.vec = VecTile{{2, 2}, {}};
  {
    ScopedTiles scope(&ts);
    REQUIRE(ts.vec->shape == std::vector<int64_t>{2, 2});
    ts.vec = VecTile{{4, 4}, {}};
  }
  REQUIRE(ts.vec->shape == std::vector<int64_t>{2, 2});
}

TEST_CASE("ScopedTiles with no tile state does nothing") {
  ScopedTiles scope(nullptr, VecTile{{1}, {}});
  SUCCEED();
}
