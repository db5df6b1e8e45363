// The load-time tile checks of leaf programs (runtime/program/leaf_tiles.h) and the run's task
// preflight (runtime/task_preflight.h), on the hand-built sample kernel: y[0:vr, 0:vc] = x + x
// over an 8 x 16 fp32 UB tile, args {vr, vc}, GM row stride 16 (test/program/leaf_program_sample.h).
#include <catch2/catch.hpp>

#include "runtime/control_flow.h"
#include "runtime/program/leaf_tiles.h"
#include "runtime/task_preflight.h"
#include "test/program/leaf_program_sample.h"
#include "test/hardening/xy_program.h"

using namespace ptoc;
using namespace ptoc::runtime;
namespace lt = ptoc::leaf::test;

namespace {

// One root over x, y [N, 16] fp32, one task running the sample kernel with args {vr, vc}.
CompiledProgram one_task(const leaf::LeafProgram& kernel, DimExpr vr, DimExpr vc, std::vector<DimExpr> more = {}) {
  CompiledProgram p = ptoc::test::xy_program("preflight");
  Kernel k;
  k.name = kernel.kernel;
  k.num_args = kernel.num_args;
  k.num_gm = kernel.num_gm;
  k.program = leaf::encode_leaf_program(kernel);
  p.kernels = {k};
  RootFunction r;
  r.index = 0;
  r.name = "top";
  Task t;
  t.leaf = 0;
  t.cls = 0;
  t.gm = {0, 1};
  t.args = {vr, vc};
  t.args.insert(t.args.end(), more.begin(), more.end());
  r.tasks = {t};
  p.roots = {r};
  LoopNode call;
  call.root = 0;
  p.control = {call};
  return p;
}

std::string preflight(const CompiledProgram& p, int64_t n, PreflightStats* st = nullptr) {
  ControlFlowOptions cfo;
  cfo.host_values.assign(p.tensors.size(), nullptr);
  return preflight_tasks(p, {{"N", n}}, cfo, st);
}

}  // namespace

TEST_CASE("leaf tiles: the sample kernel passes; a tile, offset or extent past its buffer is refused at load") {
  REQUIRE(leaf::verify_leaf_tiles(lt::sample_program()).empty());

  leaf::LeafProgram big_tile = lt::sample_program();
  big_tile.instrs[7].tparams[1].v = 16;  // TLOAD of 16 x 16 fp32 = 1024 bytes into a 512-byte buffer
  CHECK(leaf::verify_leaf_tiles(big_tile) ==
        "leaf program instruction 7 (TLOAD): its 16 x 16 tile of 4-byte elements at byte 0 of buffer 0 runs past its "
        "end (512 bytes at byte 0 of a 262144-byte local memory)");

  leaf::LeafProgram far = lt::sample_program();
  far.instrs[8].operands[1].expr = lt::c(200);  // TBINARY's first source 800 bytes into the buffer
  CHECK(leaf::verify_leaf_tiles(far) == "leaf program instruction 8 (TBINARY): operand 1 points 800 bytes into "
                                        "buffer 0, which has 512 bytes");

  leaf::LeafProgram rows = lt::sample_program();
  rows.instrs[9].operands[4].expr = lt::c(9);  // TSTORE of 9 valid rows from an 8-row tile
  rows.instrs[9].operands[5].expr = lt::c(16);
  CHECK(leaf::verify_leaf_tiles(rows) == "leaf program instruction 9 (TSTORE): valid extent 9 x 16 of its 8 x 16 "
                                         "tile runs past the end of buffer 0 (512 bytes)");
  // The same extents from the task's arguments are left to the preflight.
  CHECK(leaf::tiles_depend_on_args(lt::sample_program().instrs[9]));
  CHECK_FALSE(leaf::tiles_depend_on_args(rows.instrs[9]));
}

TEST_CASE("preflight: in-bounds tasks pass and are counted") {
  PreflightStats st;
  const CompiledProgram p = one_task(lt::sample_program(), DimExpr::sym("N"), DimExpr(16));
  CHECK(preflight(p, 8, &st).empty());
  CHECK(st.tasks == 1);
  CHECK(st.gm_windows == 2);   // the load and the store
  CHECK(st.local_tiles == 5);  // TLOAD dst, TBINARY dst + 2 sources, TSTORE src
  // Valid extents below the tile: fewer rows move, still inside.
  CHECK(preflight(one_task(lt::sample_program(), DimExpr(3), DimExpr(5)), 8).empty());
}

TEST_CASE("preflight: a valid extent past the tile's buffer is refused before the run") {
  // vr = N = 64 rows of 16 fp32 from an 8 x 16 tile: 4096 bytes from a 512-byte buffer.
  const CompiledProgram p = one_task(lt::sample_program(), DimExpr::sym("N"), DimExpr(16));
  const std::string bad = preflight(p, 64);
  CHECK(bad ==
        "kernel 'sample_0' (task 0 of root function 'top', device task 0): leaf program instruction 7 (TLOAD): valid "
        "extent 64 x 16 of its 8 x 16 tile reaches byte 4096, past the end of buffer 0 (512 bytes at byte 0 of a "
        "262144-byte local memory); the bundle is refused before the run (its task arguments or leaf program are "
        "corrupted: recompile the spec)");
}

TEST_CASE("preflight: a GM window past its tensor is refused before the run") {
  // 8 rows of x [4, 16] (256 bytes): the load reads 512 bytes from a 256-byte tensor.
  const CompiledProgram p = one_task(lt::sample_program(), DimExpr(8), DimExpr(16));
  const std::string bad = preflight(p, 4);
  CHECK_THAT(bad, Catch::Contains("kernel 'sample_0' (task 0 of root function 'top', device task 0): TLOAD: a GM read "
                                  "of 8 rows x 64 bytes (row stride 64 bytes) through GM slot 0 (tensor 'x') lies "
                                  "outside every GM tensor of the run"));
  // A negative offset (a crafted argument) points below the tensor.
  leaf::LeafProgram below = lt::sample_program();
  below.instrs[7].operands[2].expr = lt::a(0);  // the load's element offset = vr
  below.instrs[7].operands[4].expr = lt::c(1);
  const std::string neg = preflight(one_task(below, DimExpr(-1000), DimExpr(16)), 4);
  CHECK_THAT(neg, Catch::Contains("TLOAD: a GM read of 1 rows x 64 bytes"));
}

TEST_CASE("preflight: a crafted loop trip count is refused, not run for hours") {
  leaf::LeafProgram spin = lt::sample_program();
  leaf::Instr begin;
  begin.kind = leaf::InstrKind::LoopBegin;
  begin.a = 3;
  begin.expr = lt::a(2);  // a third argument: the trip count
  leaf::Instr end;
  end.kind = leaf::InstrKind::LoopEnd;
  spin.num_args = 3;
  spin.locals.push_back({leaf::LocalKind::LoopIndex, 0, 0});
  spin.instrs.insert(spin.instrs.begin() + 8, begin);
  spin.instrs.insert(spin.instrs.begin() + 10, end);  // around TBINARY
  REQUIRE_NOTHROW(leaf::verify_leaf_program(spin));
  CHECK(preflight(one_task(spin, DimExpr(4), DimExpr(16), {DimExpr(3)}), 8).empty());
  const std::string bad = preflight(one_task(spin, DimExpr(4), DimExpr(16), {DimExpr(int64_t(1) << 40)}), 8);
  CHECK_THAT(bad, Catch::Contains("its leaf program runs more than 16777216 steps (a crafted loop trip count)"));
}
