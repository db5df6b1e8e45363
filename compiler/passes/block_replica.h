// Copies of a matmul's first output block (tile_expand_cube.cpp). A later block whose valid
// extents are block 0's (no tail) and whose GM offsets are constants is block 0 with its tiles
// renumbered and each GM offset moved by its operand's delta: it is emitted by copying block 0's
// ops and tiles instead of building every box, GM reference and extent again. The ops are the
// ones the explicit path builds, field for field (`ptoc --no-families` never copies;
// test_families compares the two TileRoots).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/passes/tile_families.h"
#include "compiler/passes/tile_graph.h"

namespace ptoc::tiling {

struct Builder;

// Which matmul operand an op's `gm` addresses.
enum class BlockOperand : int8_t { None = -1, A = 0, B = 1, W = 2 };

struct BlockCopySource;  // block_replica.cpp

struct BlockTemplate {
  int op_begin = 0, op_end = 0, tile_begin = 0, tile_end = 0;
  std::vector<BlockOperand> operand;  // per op of block 0
  std::array<int, 3> rank{-1, -1, -1};  // per operand: the number of offsets of its references
  bool usable = false;                // every GM offset/extent and tile valid extent is a constant
  // What the copies are built from when read (made by the first copy).
  std::shared_ptr<BlockCopySource> source;
  std::shared_ptr<const LazyArray<TileOp>::Source> op_source;
  std::shared_ptr<const LazyArray<LocalTile>::Source> tile_source;
};

// What expansion copied, block by block, for a root that is one matmul's output blocks: carried by
// the root's FamilyReplicas, so that the backend derives a copied member's task from member 0's
// (task_replica.h) instead of reading the member's ops.
struct BlockCopies {
  int ops_per = 0, tiles_per = 0;                         // of block 0 (ops and tiles from 0)
  std::vector<BlockOperand> operand;                      // per op of block 0
  std::vector<char> copied;                               // per block: a copy of block 0
  std::vector<std::array<std::vector<int64_t>, 3>> delta;  // per block: its offsets minus block 0's, per operand
};

// Completes `t` (its range and `operand` filled while block 0 was emitted): usable when block 0's
// ops read and write only its own tiles and every offset and extent in it is a constant.
void finish_block_template(const TileRoot& r, BlockTemplate& t);

// Emits block 0 of `t` again with tiles renumbered after the root's last and every GM offset of
// operand X moved by delta[X] (one entry per offset axis of that operand's references), as a
// described run of the root's ops and tiles: built when a pass first reads it.
void emit_block_copy(Builder& b, BlockTemplate& t, const std::array<std::vector<int64_t>, 3>& delta);

// Records a copy just emitted (ops from `op_begin`, tiles from `tile_begin`) in expansion's family
// record as check_emitted_block would: a copy of block 0 when block 0 is the record's block 0 is
// block 0 moved with the same extents (alike). False: not that case, check_emitted_block decides.
bool note_block_copy(const BlockTemplate& t, int op_begin, int tile_begin, EmittedBlocks& eb);

}  // namespace ptoc::tiling
