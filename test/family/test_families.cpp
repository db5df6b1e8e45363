// Tile families (compiler/passes/tile_families.h): which roots qualify and why
// the others do not, and that the family path gives the TileRoot of the
// explicit path (ptoc --no-families) field for field, breadth merges included.
#include <catch2/catch.hpp>

#include <algorithm>

#include "compiler/passes/backend.h"
#include "compiler/passes/block_family_proof.h"
#include "compiler/passes/task_replica.h"
#include "compiler/pipeline.h"
#include "compiler/passes/leaf_classes.h"
#include "compiler/passes/tile_build.h"
#include "compiler/passes/tile_families.h"
#include "compiler/passes/tile_print.h"
#include "runtime/program/root_tasks.h"
#include "test/passes/program_builder.h"

using namespace ptoc;
using namespace ptoc::test;

namespace {

std::string spec_source() {
  std::string src;
  for (int i = 0; i < 80; ++i) src += "line " + std::to_string(i + 1) + "\n";
  return src;
}

// Root 0 of `p` expanded as build_tile_roots does it (with `copy`, expansion copies blocks: block_replica.h).
struct ExpandedRoot {
  DiagEngine d{"t.yaml", spec_source()};
  TilingStats st;
  TileRoot tr;
  tiling::Builder b;
  ExpandedRoot(const Program& p, bool copy)
      : tr(first_root()), b(p, tiling_platform("ascend910b1"), d, tr, st) {
    b.magic = 0;
    b.temp_base = int(p.tensors.size());
    b.copy_blocks = copy;
    b.expand_root(p.roots[0]);
  }
  static TileRoot first_root() {
    TileRoot t;
    t.root = 0;
    return t;
  }
};

// Root 0 expanded as build_tile_roots does it, then asked for its family.
tiling::FamilyCheck family_of(const Program& p) {
  ExpandedRoot e(p, false);
  REQUIRE(!e.b.failed);
  return tiling::find_tile_family(p, e.tr);
}

// Root 0 expanded, its family found both from the blocks expansion checked (EmittedBlocks) and by
// the search over the ops: the two must agree field for field. Returns the emitted-blocks record.
// With `copy`, expansion copies blocks (block_replica.h) and records the copies without checking them.
tiling::EmittedBlocks emitted_agrees(const Program& p, bool copy) {
  ExpandedRoot e(p, copy);
  tiling::Builder& b = e.b;
  TileRoot& tr = e.tr;
  REQUIRE(!b.failed);
  auto searched = tiling::find_tile_family(p, tr);
  // With copies, the order and GM conditions are proved from block 0 and the deltas
  // (block_family_proof.h): the same family and reason as the search. The copies' tile writers
  // are left pending, as build_tile_roots leaves them for a root its blocks cover.
  auto emitted = tiling::find_tile_family(p, tr, p.roots[0], b.tile_writer, &b.emitted_blocks, b.block_copies.get());
  if (b.block_copies && emitted.family && tiling::emitted_blocks_cover(b.emitted_blocks, tr))
    CHECK(tiling::copied_blocks_meet_family_conditions(tr, *emitted.family, *b.block_copies) ==
          std::all_of(b.block_copies->copied.begin() + 1, b.block_copies->copied.end(), [](char c) { return c != 0; }));
  INFO(searched.reason + " / " + emitted.reason);
  REQUIRE(bool(searched.family) == bool(emitted.family));
  CHECK(searched.reason == emitted.reason);
  if (searched.family) {
    const tiling::TileFamily &a = *searched.family, &e = *emitted.family;
    CHECK(a.members == e.members);
    CHECK(a.ops_per == e.ops_per);
    CHECK(a.tiles_per == e.tiles_per);
    CHECK(a.alike == e.alike);
    REQUIRE(a.segments.size() == e.segments.size());
    for (size_t i = 0; i < a.segments.size(); ++i) {
      CHECK(a.segments[i].op_begin == e.segments[i].op_begin);
      CHECK(a.segments[i].ops_per == e.segments[i].ops_per);
      CHECK(a.segments[i].tile_begin == e.segments[i].tile_begin);
      CHECK(a.segments[i].tiles_per == e.segments[i].tiles_per);
    }
  }
  return b.emitted_blocks;
}

// The record is the same whether expansion copies blocks or builds and checks each one.
tiling::EmittedBlocks emitted_agrees(const Program& p) {
  tiling::EmittedBlocks built = emitted_agrees(p, false), copied = emitted_agrees(p, true);
  CHECK(built.broken == copied.broken);
  CHECK(built.blocks == copied.blocks);
  CHECK(built.alike == copied.alike);
  CHECK(built.seg.ops_per == copied.seg.ops_per);
  CHECK(built.seg.tiles_per == copied.seg.tiles_per);
  return built;
}

struct Run {
  std::vector<TileRoot> roots;
  TilingStats stats;
  std::string errors;
};

Run tile_with(const Program& p, bool families) {
  Run r;
  DiagEngine d("t.yaml", spec_source());
  try {
    r.roots = build_tile_roots(p, tiling_platform("ascend910b1"), d, &r.stats, TilingOptions{families});
  } catch (const CompileError&) {
  }
  std::ostringstream os;
  d.print(os);
  r.errors = os.str();
  return r;
}

// Everything the backend and the reports read of the tiling result, as text.
std::string describe(const Run& r) {
  std::string s = print_tile_roots(r.roots, {});
  for (const TileRoot& t : r.roots) {
    for (const TileOp& op : t.ops) s += " seq " + std::to_string(op.seq) + (op.accumulate ? "a" : "") + (op.atomic_add ? "t" : "");
    for (const Subgraph& sg : t.subgraphs)
      s += "\n sg " + std::to_string(sg.id) + " hash " + std::to_string(sg.iso_hash) + " order " +
           std::to_string(sg.hash_order) + " label " + sg.label;
    for (const std::string& m : t.merges_applied) s += "\n merge: " + m;
    for (const GmTensor& g : t.temps) s += "\n temp " + g.name;
    s += "\n before " + std::to_string(t.tile_ops_before_merge);
  }
  const TilingStats& st = r.stats;
  for (int64_t v : {int64_t(st.roots), st.tile_ops, st.supernodes, st.depth_merges, st.scope_merges, st.cut_edges,
                    st.vec_nbuffer_merges, st.l1_reuse_merges, st.l1_loads_removed, st.cube_nbuffer_merges,
                    st.subgraphs})
    s += " " + std::to_string(v);
  return s + "\n" + r.errors;
}

// Both paths give the same result; returns how many roots took the family path.
int64_t same_both_ways(const Program& p) {
  Run fam = tile_with(p, true), exp = tile_with(p, false);
  REQUIRE(exp.stats.family_roots == 0);
  REQUIRE(describe(fam) == describe(exp));
  return fam.stats.family_roots;
}

// The leaf classes of the family path's roots with the replica shortcut equal those computed leaf
// by leaf (class and tiles of every leaf); returns how many leaves had a replica map.
int64_t classes_alike(const Program& p) {
  Run fam = tile_with(p, true);
  CompiledProgram cp;
  collect_tensors(p, fam.roots, cp);
  std::vector<LeafPlan> pa, pb;
  LeafClasses a = classify_leaves(fam.roots, cp.tensors, true, pa, true);
  LeafClasses b = classify_leaves(fam.roots, cp.tensors, true, pb, false);
  REQUIRE(a.class_of == b.class_of);
  for (int i = 0; i < int(a.class_of.size()); ++i) REQUIRE(a.tiles(i) == b.tiles(i));
  REQUIRE(a.classes.size() == b.classes.size());
  for (size_t c = 0; c < a.classes.size(); ++c) REQUIRE(a.classes[c].rep == b.classes[c].rep);
  int64_t n = 0;
  for (const TileRoot& t : fam.roots)
    if (t.replicas) n += int64_t(t.subgraphs.size());
  return n;
}

MergeSetting setting(int64_t count) {
  MergeSetting s;
  s.given = true;
  MergeSetting::Entry e;
  e.name = "DEFAULT";
  e.key = MergeSetting::Entry::Key::Default;
  e.count = count;
  s.entries = {e};
  return s;
}

// c[M, N] = a[M, K] @ w[K, N] by m 128, n 256 (k 64 in L0, 256 in L1).
Program gemm(int64_t M, int64_t K, int64_t N, std::optional<int64_t> l1_reuse = {}, bool split_k = false) {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {M, K});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {K, N});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {M, N});
  b.set_cube(128, 64, 256, 256, split_k);
  int m = b.matmul(b.ref(a), b.ref(w));
  b.assemble(m, c, {0, 0});
  if (l1_reuse) b.p.options.cube_l1_reuse_setting = setting(*l1_reuse);
  return b.finish();
}

// y = exp(x) over [rows, 128] fp16 by (64, 128) tiles.
Program exp_rows(int64_t rows, std::optional<int64_t> nbuffer = {}) {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp16, {rows, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp16, {rows, 128});
  b.set_vec({64, 128});
  int e = b.unary(OpKind::Exp, b.ref(x));
  b.assemble(e, y, {0, 0});
  if (nbuffer) b.p.options.vec_nbuffer_setting = setting(*nbuffer);
  return b.finish();
}

}  // namespace

TEST_CASE("families: a matmul's output blocks are one family", "[family]") {
  auto f = family_of(gemm(512, 512, 1024));
  REQUIRE(f.family);
  // 4 x 4 blocks; each: 2 x 2 L1 copies (k 256 of 512) and 8 k steps of L1->L0A, L1->L0B, Mmad, then FixOut.
  CHECK(f.family->members == 16);
  CHECK(f.family->ops_per == 2 + 2 + 8 * 3 + 1);
  CHECK(f.family->tiles_per == 2 + 2 + 8 * 2 + 1);
  CHECK(same_both_ways(gemm(512, 512, 1024)) == 1);
}

// Matmul output blocks emitted as copies of block 0 (block_replica.h) on the family path are the
// blocks the explicit path builds, field for field: orientations, batches, a broadcast batch, int8,
// split_k, tails (built, not copied), an output assembled at an offset and an operand viewed at one.
TEST_CASE("families: copied matmul blocks are the blocks the explicit path builds", "[family]") {
  auto check = [](const Program& p, int64_t blocks, int64_t copied) {
    Run fam = tile_with(p, true), exp = tile_with(p, false);
    REQUIRE(exp.stats.copied_blocks == 0);
    REQUIRE(describe(fam) == describe(exp));
    CHECK(fam.stats.family_roots == 1);
    CHECK(fam.stats.copied_blocks == copied);
    CHECK(fam.stats.subgraphs >= blocks);
  };
  check(gemm(512, 512, 1024), 16, 15);
  check(gemm(256, 1024, 512, {}, true), 4, 3);
  // Tails: of the 4 x 3 blocks of M 500 (by 128) and N 700 (by 256), the 3 x 2 full ones are copied
  // (block 0 aside); the tail blocks are built.
  check(gemm(500, 300, 700), 12, 3 * 2 - 1);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      ProgramBuilder b;
      int a = b.tensor("a", TensorRole::Input, DType::fp16, ta ? std::vector<int64_t>{256, 384} : std::vector<int64_t>{384, 256});
      int w = b.tensor("w", TensorRole::Input, DType::fp16, tb ? std::vector<int64_t>{512, 256} : std::vector<int64_t>{256, 512});
      int c = b.tensor("c", TensorRole::Output, DType::fp32, {384, 512});
      b.set_cube(128, 64, 128, 256);
      b.assemble(b.matmul(b.ref(a), b.ref(w), DType::fp32, ta, tb), c, {0, 0});
      INFO("trans_a " << ta << " trans_b " << tb);
      check(b.finish(), 6, 5);
    }
  {  // batched, and a rank-2 w read by every batch
    for (bool bcast : {false, true}) {
      ProgramBuilder b;
      int a = b.tensor("a", TensorRole::Input, DType::fp16, {3, 256, 128});
      int w = bcast ? b.tensor("w", TensorRole::Input, DType::fp16, {128, 512})
                    : b.tensor("w", TensorRole::Input, DType::fp16, {3, 128, 512});
      int c = b.tensor("c", TensorRole::Output, DType::fp32, {3, 256, 512});
      b.set_cube(128, 64, 128, 256);
      b.assemble(b.matmul(b.ref(a), b.ref(w)), c, {0, 0, 0});
      INFO("broadcast w " << bcast);
      check(b.finish(), 12, 11);
    }
  }
  {  // int8 x int8 into int32, split_k
    ProgramBuilder b;
    int a = b.tensor("a", TensorRole::Input, DType::int8, {256, 1024});
    int w = b.tensor("w", TensorRole::Input, DType::int8, {1024, 512});
    int c = b.tensor("c", TensorRole::Output, DType::int32, {256, 512});
    b.set_cube(128, 64, 256, 256, true);
    b.assemble(b.matmul(b.ref(a), b.ref(w), DType::int32), c, {0, 0});
    check(b.finish(), 4, 3);
  }
  {  // the output assembled at an offset of a larger tensor, the left operand a window of its tensor
    ProgramBuilder b;
    int a = b.tensor("a", TensorRole::Input, DType::fp16, {512, 256});
    int w = b.tensor("w", TensorRole::Input, DType::fp16, {256, 512});
    int c = b.tensor("c", TensorRole::Output, DType::fp32, {640, 768});
    b.set_cube(128, 64, 128, 256);
    int av = b.view(b.ref(a), {256, 256}, {128, 0});
    b.assemble(b.matmul(av, b.ref(w)), c, {128, 256});
    check(b.finish(), 4, 3);
  }
}

// Every task of a compiled program as text: what the bundle's root functions store of it.
std::string tasks_text(const CompiledProgram& cp) {
  std::ostringstream o;
  auto exprs = [&](const std::vector<DimExpr>& v) {
    for (const DimExpr& e : v) o << e.str() << ",";
  };
  for (const RootFunction& rf : cp.roots) {
    o << rf.name << " " << rf.hash << "\n";
    for (const Task& t : resolve_all_tasks(rf)) {
      o << " task " << t.leaf << " " << t.cls << " " << t.pred_count << " " << t.hash_order << " " << t.label << " "
        << t.op_magic << " gm";
      for (int g : t.gm) o << " " << g;
      o << " args ";
      exprs(t.args);
      for (const auto* rs : {&t.reads, &t.writes}) {
        o << " |";
        for (const Region& r : *rs) {
          o << " " << r.tensor << "@";
          exprs(r.offset);
          o << "+";
          exprs(r.extent);
          o << "L" << r.loc.line << ":" << r.loc.col;
        }
      }
      o << " succ";
      for (int x : t.succ) o << " " << x;
      o << "\n";
    }
  }
  return o.str();
}

// A root's compact records as text: templates (values, groups), instances, explicit tasks.
std::string records_text(const CompactRoot& cr) {
  std::ostringstream o;
  auto exprs = [&](const std::vector<DimExpr>& v) {
    for (const DimExpr& e : v) o << e.str() << ",";
  };
  auto regions = [&](const std::vector<Region>& rs) {
    for (const Region& r : rs) {
      o << " " << r.tensor << "@";
      exprs(r.offset);
      o << "+";
      exprs(r.extent);
      o << "L" << r.loc.line << ":" << r.loc.col;
    }
  };
  for (const TaskTemplate& t : cr.templates) {
    o << "template " << t.cls << " groups " << t.groups << " gm";
    for (int g : t.gm) o << " " << g;
    o << " args ";
    exprs(t.args);
    regions(t.reads);
    o << " |";
    regions(t.writes);
    o << " of";
    for (int g : t.group_of) o << " " << g;
    o << "\n";
  }
  for (const TaskInstanceRecord& r : cr.instances) {
    o << "instance " << r.tmpl << " " << r.leaf << " " << r.hash_order << " " << r.label << " " << r.explicit_task
      << " succ";
    for (int s : r.succ) o << " " << s;
    o << " d";
    for (int64_t d : r.deltas) o << " " << d;
    o << "\n";
  }
  for (const Task& t : cr.explicit_tasks) {
    o << "explicit " << t.cls << " args ";
    exprs(t.args);
    regions(t.reads);
    o << " |";
    regions(t.writes);
    o << "\n";
  }
  for (const std::string& l : cr.labels) o << "label " << l << "\n";
  o << "magic " << cr.op_magic_base << " " << cr.op_magics.size() << " preds " << cr.pred_counts.size() << "\n";
  return o.str();
}

std::optional<PipelineResult> compile_program(Program p, bool families) {
  DiagEngine d("t.yaml", spec_source());
  PipelineOptions po;
  po.families = families;
  return run_pipeline(std::move(p), tiling_platform("ascend910b1"), d, po);
}

// The tasks of copied members derived from member 0's (task_replica.h) are the tasks the explicit
// path builds from each member's own ops; `derived`: whether the family root derives them.
void tasks_alike(const Program& p, bool derived) {
  auto fam = compile_program(p, true), exp = compile_program(p, false);
  REQUIRE(fam);
  REQUIRE(exp);
  REQUIRE(tasks_text(fam->compiled) == tasks_text(exp->compiled));
  REQUIRE(fam->roots.size() == 1);
  CHECK(TaskReplicas(fam->roots[0]).active() == derived);
  CHECK(!TaskReplicas(exp->roots[0]).active());
  // A derived root is built compact (no Task per member), into the records the explicit path's
  // tasks compact to (what the bundle stores).
  const RootFunction& fr = fam->compiled.roots.at(0);
  CHECK((fr.compact != nullptr) == derived);
  CHECK(exp->compiled.roots.at(0).compact == nullptr);
  if (fr.compact) {
    CHECK(fr.tasks.empty());
    CHECK(records_text(*fr.compact) == records_text(compact_root(exp->compiled, exp->compiled.roots.at(0))));
  }
}

TEST_CASE("families: tasks of copied members are member 0's moved, the explicit path's tasks", "[family]") {
  tasks_alike(gemm(512, 512, 1024), true);
  tasks_alike(gemm(256, 1024, 512, {}, true), true);  // split_k: zero fill and atomic partial sums
  tasks_alike(gemm(500, 300, 700), true);             // tail members built, the others derived
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      ProgramBuilder b;
      int a = b.tensor("a", TensorRole::Input, DType::fp16, ta ? std::vector<int64_t>{256, 384} : std::vector<int64_t>{384, 256});
      int w = b.tensor("w", TensorRole::Input, DType::fp16, tb ? std::vector<int64_t>{512, 256} : std::vector<int64_t>{256, 512});
      int c = b.tensor("c", TensorRole::Output, DType::fp32, {384, 512});
      b.set_cube(128, 64, 128, 256);
      b.assemble(b.matmul(b.ref(a), b.ref(w), DType::fp32, ta, tb), c, {0, 0});
      INFO("trans_a " << ta << " trans_b " << tb);
      tasks_alike(b.finish(), true);
    }
  {  // batched with a broadcast w, the output at an offset
    ProgramBuilder b;
    int a = b.tensor("a", TensorRole::Input, DType::fp16, {3, 256, 128});
    int w = b.tensor("w", TensorRole::Input, DType::fp16, {128, 512});
    int c = b.tensor("c", TensorRole::Output, DType::fp32, {4, 256, 512});
    b.set_cube(128, 64, 128, 256);
    b.assemble(b.matmul(b.ref(a), b.ref(w)), c, {1, 0, 0});
    tasks_alike(b.finish(), true);
  }
  {  // x @ x: both operands one tensor, so a box of one could be a box of the other: not derived
    ProgramBuilder b;
    int x = b.tensor("x", TensorRole::Input, DType::fp16, {512, 512});
    int c = b.tensor("c", TensorRole::Output, DType::fp32, {512, 512});
    b.set_cube(128, 64, 128, 256);
    b.assemble(b.matmul(b.ref(x), b.ref(x)), c, {0, 0});
    tasks_alike(b.finish(), false);
  }
}

// describe_moved (task_replica.h) takes a copied member's task as member 0's moved without reading its
// steps: it must refuse when member 0's noted steps or buffers leave block 0 (then member k's are not
// member 0's moved by k ops and tiles per member), when the leaf is not member 0's leaf of that
// subgraph moved to this member, and when the member is not a copy of block 0.
TEST_CASE("families: a copied member's task is derived without its steps only when provably moved", "[family]") {
  auto fam = compile_program(gemm(500, 300, 700, 1), true);
  REQUIRE(fam);
  REQUIRE(fam->roots.size() == 1);
  const TileRoot& r = fam->roots[0];
  REQUIRE(r.replicas);
  REQUIRE(r.replicas->copies);
  const tiling::FamilyReplicas& rep = *r.replicas;
  const tiling::BlockCopies& c = *rep.copies;
  const int s0 = rep.of_member0.at(0);
  int copy = -1, tail = -1;  // member k's copy of member 0's subgraph 0: a copied block, a built one
  for (int s = 0; s < int(rep.member.size()); ++s)
    if (rep.local[size_t(s)] == 0 && rep.member[size_t(s)] > 0)
      (c.copied.at(size_t(rep.member[size_t(s)])) ? copy : tail) = s;
  REQUIRE(copy >= 0);
  REQUIRE(tail >= 0);
  const int k = rep.member[size_t(copy)];
  // A member-0 task with no GM step (nothing moves): only the block-0 condition and the leaf decide.
  auto noted = [&](std::vector<int> step_ops, std::vector<int> buffer_tiles, int leaf) {
    TaskReplicas t(r);
    REQUIRE(t.active());
    LeafArgs layout;
    layout.step_gm_slot.assign(step_ops.size(), -1);
    REQUIRE(t.note_member0(s0, layout, step_ops, buffer_tiles, Task{}, leaf) == 0);
    return t;
  };
  int j = -1;
  std::vector<int64_t> deltas;
  const TaskReplicas ok = noted({0, c.ops_per - 1}, {0, c.tiles_per - 1}, 7);
  CHECK(ok.describe_moved(copy, 7, k, j, deltas));
  CHECK(j == 0);
  CHECK(!ok.describe_moved(copy, 8, k, j, deltas));      // another leaf's ids
  CHECK(!ok.describe_moved(copy, 7, k + 1, j, deltas));  // moved to another member
  CHECK(!ok.describe_moved(tail, 7, rep.member[size_t(tail)], j, deltas));  // a built (tail) member
  CHECK(!ok.describe_moved(s0, 7, 0, j, deltas));        // member 0 itself
  CHECK(!noted({0, c.ops_per}, {0}, 7).describe_moved(copy, 7, k, j, deltas));    // a step past block 0
  CHECK(!noted({0}, {c.tiles_per}, 7).describe_moved(copy, 7, k, j, deltas));     // a buffer past block 0
  CHECK(!noted({0}, {0}, -1).describe_moved(copy, -1, k, j, deltas));            // no leaf noted
}

// Copied blocks are described, not stored (lazy_array.h): through the whole pipeline without dumps
// only the blocks some pass reads are built (member 0 and the members merged into the first leaf),
// so the ops and tiles built do not grow with the member count; the tasks are the explicit path's.
TEST_CASE("families: copied blocks stay described through the pipeline", "[family]") {
  auto built = [](int64_t M, int64_t N) {
    Program p = gemm(M, 512, N, 1);  // L1Reuse off: every member its own leaf
    tasks_alike(p, true);
    auto fam = compile_program(p, true);
    REQUIRE(fam);
    const TileRoot& r = fam->roots[0];
    INFO("M " << M << " N " << N << " ops " << r.ops.size() << " unbuilt " << r.ops.unbuilt());
    CHECK(r.ops.unbuilt() > r.ops.size() / 2);
    CHECK(r.tiles.unbuilt() > r.tiles.size() / 2);
    return std::pair<size_t, size_t>{r.ops.size() - r.ops.unbuilt(), r.tiles.size() - r.tiles.unbuilt()};
  };
  const auto small = built(1024, 2048), large = built(2048, 4096);  // 64 and 256 blocks
  CHECK(small.first > 0);
  CHECK(large == small);
  // The explicit path stores every op.
  auto exp = compile_program(gemm(1024, 512, 2048, 1), false);
  REQUIRE(exp);
  CHECK(exp->roots[0].ops.unbuilt() == 0);
}

TEST_CASE("families: tail blocks are members (only valid extents differ)", "[family]") {
  auto f = family_of(gemm(500, 300, 700));
  REQUIRE(f.family);
  CHECK(f.family->members == 4 * 3);
  CHECK(same_both_ways(gemm(500, 300, 700)) == 1);
}

TEST_CASE("families: split_k blocks (zero fill, atomic partial sums) are one family", "[family]") {
  auto f = family_of(gemm(256, 1024, 512, {}, true));
  REQUIRE(f.family);
  CHECK(f.family->members == 2 * 2);
  CHECK(same_both_ways(gemm(256, 1024, 512, {}, true)) == 1);
}

TEST_CASE("families: an elementwise statement's tiles are one family of two segments", "[family]") {
  // Expansion emits copy in + exp per tile, then every copy out at the assemble: each member is
  // its block of both segments.
  auto f = family_of(exp_rows(6144));
  INFO(f.reason);
  REQUIRE(f.family);
  CHECK(f.family->members == 96);
  REQUIRE(f.family->segments.size() == 2);
  CHECK(f.family->segments[0].ops_per == 2);  // copy in, exp
  CHECK(f.family->segments[1].ops_per == 1);  // copy out
  CHECK(f.family->segments[1].op_begin == 192);
  CHECK(f.family->op(5, 2) == 192 + 5);
  CHECK(f.family->op_member(192 + 5) == std::make_pair(5, 2));
  CHECK(f.family->tile(3, 1) == 3 * 2 + 1);
  CHECK(same_both_ways(exp_rows(6144)) == 1);     // VecNBuffer automatic: 48 leaves of 2 chains
  CHECK(same_both_ways(exp_rows(6144, 8)) == 1);  // 8 chains (fewer where UB is short)
  CHECK(same_both_ways(exp_rows(6100, 3)) == 1);  // a tail member, groups of 3
}

TEST_CASE("families: a statement chain of tile ops per member", "[family]") {
  // y = exp(x) * 2 - x over [512, 128] by (64, 128): three vec ops per member, x read twice.
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {512, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {512, 128});
  b.set_vec({64, 128});
  int xv = b.ref(x);
  int e = b.scalar(OpKind::Mul, b.unary(OpKind::Exp, xv), 2.0);
  b.assemble(b.binary(OpKind::Sub, e, xv), y, {0, 0});
  Program p = b.finish();
  auto f = family_of(p);
  INFO(f.reason);
  REQUIRE(f.family);
  CHECK(f.family->members == 8);
  CHECK(same_both_ways(p) == 1);
}

TEST_CASE("families: L1Reuse merges and refusals are the explicit path's", "[family]") {
  CHECK(same_both_ways(gemm(256, 256, 512, 2)) == 1);   // merges, one shared L1 copy each
  CHECK(same_both_ways(gemm(512, 512, 1024, 3)) == 1);  // groups of 3 over a 4 x 4 grid
  CHECK(same_both_ways(gemm(256, 4096, 512, 2)) == 1);  // refused: the shared row of K does not fit L1
  Run r = tile_with(gemm(256, 256, 512, 2), true);
  CHECK(r.stats.l1_reuse_merges == 2);
  CHECK(r.roots[0].subgraphs.size() == 2);
}

TEST_CASE("families: L1Reuse decides a class with no possible merge at once, builds each L1 copy's key once per class", "[family]") {
  // 4 x 4 blocks, automatic N is 16 / (2 x 24 AIC) -> 1: no member may absorb another, so the
  // class is decided as a whole and no key is built on either path.
  Run fam = tile_with(gemm(512, 512, 1024), true), exp = tile_with(gemm(512, 512, 1024), false);
  REQUIRE(fam.stats.family_roots == 1);
  CHECK(fam.stats.l1_classes_skipped == 1);
  CHECK(exp.stats.l1_classes_skipped == 1);
  CHECK(fam.stats.l1_keys_rendered + fam.stats.l1_keys_moved + exp.stats.l1_keys_rendered == 0);
  // 2 x 2 blocks of 16 + 16 L1 copies, N = 2, every merge refused: member 0's 32 keys are built
  // from their text; the class proof moves them to one block sharing A (block 1) and one sharing
  // B (block 2), 64 keys; the explicit path builds 128.
  Run fam1 = tile_with(gemm(256, 4096, 512, 2), true), exp1 = tile_with(gemm(256, 4096, 512, 2), false);
  REQUIRE(fam1.stats.l1_reuse_merges == 0);
  CHECK(fam1.stats.l1_classes_skipped == 0);
  CHECK(fam1.stats.l1_classes_proved == 1);
  CHECK(fam1.stats.l1_keys_rendered == 32);
  CHECK(fam1.stats.l1_keys_moved == 64);
  CHECK(exp1.stats.l1_keys_rendered == 128);
  CHECK(exp1.stats.l1_keys_moved == 0);
  // 2 x 2 blocks of 1 + 1 L1 copies, two merges: an anchor's keys after a merge are its own and
  // the member's kept ones, not built again (it was 8 + 2 x 3 on the explicit path).
  Run fam2 = tile_with(gemm(256, 256, 512, 2), true), exp2 = tile_with(gemm(256, 256, 512, 2), false);
  REQUIRE(fam2.stats.l1_reuse_merges == 2);
  CHECK(fam2.stats.l1_keys_rendered == 2);
  CHECK(fam2.stats.l1_keys_moved == 6 + 2);  // + the class proof's first pair, which fits
  CHECK(exp2.stats.l1_keys_rendered == 8);
  CHECK(describe(fam2) == describe(exp2));
}

TEST_CASE("families: L1Reuse proves once per class that no member can merge", "[family]") {
  // 4 x 16 blocks whose shared row (or column) of K does not fit L1 beside a member's own copies:
  // one pair sharing A and one sharing B are refused, so the class is decided without a key per
  // member, and the result is the explicit path's (which tries every member).
  for (const Program& p : {gemm(256, 4096, 512, 2), gemm(512, 4096, 2048, 4), gemm(1024, 8192, 256, 3)}) {
    Run fam = tile_with(p, true), exp = tile_with(p, false);
    REQUIRE(fam.stats.family_roots == 1);
    CHECK(fam.stats.l1_classes_proved == 1);
    CHECK(exp.stats.l1_classes_proved == 0);
    CHECK(fam.stats.l1_reuse_merges == 0);
    CHECK(fam.stats.l1_keys_moved <= 2 * fam.stats.l1_keys_rendered);
    CHECK(describe(fam) == describe(exp));
  }
  // Merges that fit are not proved away: the member loop makes them, as the explicit path does.
  Run fam = tile_with(gemm(256, 256, 512, 2), true), exp = tile_with(gemm(256, 256, 512, 2), false);
  CHECK(fam.stats.l1_classes_proved == 0);
  CHECK(fam.stats.l1_reuse_merges == 2);
  CHECK(describe(fam) == describe(exp));
  // Tails: the members are not all copies of block 0, so nothing is proved.
  Run tail = tile_with(gemm(500, 4096, 700, 2), true);
  CHECK(tail.stats.l1_classes_proved == 0);
  CHECK(same_both_ways(gemm(500, 4096, 700, 2)) == 1);
}

TEST_CASE("families: L1Reuse over tail members: keys of member 0's copy positions, the explicit path's merges", "[family]") {
  // Tails in m, k and n: members' L1 copies sit where member 0's do but their keys (extents) differ.
  Run fam = tile_with(gemm(500, 600, 700, 2), true);
  CHECK(fam.stats.family_roots == 1);
  CHECK(fam.stats.l1_reuse_merges > 0);
  CHECK(same_both_ways(gemm(500, 600, 700, 2)) == 1);
  CHECK(same_both_ways(gemm(500, 600, 700, 3)) == 1);
}

TEST_CASE("families: iso hashes by class are the hashes subgraph by subgraph", "[family]") {
  // partition_family hashes each subgraph of member 0 once; the explicit hashes must agree.
  for (const Program& p : {gemm(500, 300, 700), exp_rows(1000), gemm(256, 1024, 512, {}, true)}) {
    Run fam = tile_with(p, true);
    REQUIRE(fam.stats.family_roots == 1);
    TileRoot r = fam.roots[0];
    std::vector<std::pair<uint64_t, int>> given;
    for (const Subgraph& sg : r.subgraphs) given.push_back({sg.iso_hash, sg.hash_order});
    tiling::compute_iso_hashes(r);
    std::vector<std::pair<uint64_t, int>> fresh;
    for (const Subgraph& sg : r.subgraphs) fresh.push_back({sg.iso_hash, sg.hash_order});
    CHECK(given == fresh);
    // A class map that groups nothing hashes as compute_iso_hashes does.
    tiling::compute_iso_hashes_by_class(r, std::vector<int>(r.subgraphs.size(), -1));
    std::vector<std::pair<uint64_t, int>> none;
    for (const Subgraph& sg : r.subgraphs) none.push_back({sg.iso_hash, sg.hash_order});
    CHECK(none == fresh);
  }
}

TEST_CASE("families: a matmul's blocks checked as they are emitted are the family the search finds", "[family]") {
  // Whole roots of one matmul: the record covers them (no search), tails and split_k included.
  for (const Program& p : {gemm(512, 512, 1024), gemm(500, 300, 700), gemm(256, 1024, 512, {}, true),
                           gemm(128, 64, 512), gemm(200, 70, 300)}) {
    tiling::EmittedBlocks eb = emitted_agrees(p);
    CHECK(!eb.broken);
    CHECK(eb.blocks >= 2);
    CHECK(int64_t(eb.alike.size()) == eb.blocks);
  }
  // Tails make some members unlike member 0 (their leaves compute their own class).
  tiling::EmittedBlocks tails = emitted_agrees(gemm(500, 300, 700));
  CHECK(std::count(tails.alike.begin(), tails.alike.end(), 0) > 0);
  // One output block: no family either way.
  CHECK(emitted_agrees(gemm(128, 256, 256)).blocks == 1);
  // A vector epilogue after the matmul: the record does not cover the root, the search decides.
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {256, 256});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {256, 512});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {256, 512});
  b.set_cube(128, 64, 256, 256);
  b.set_vec({128, 256});
  int m = b.matmul(b.ref(a), b.ref(w));
  int e = b.unary(OpKind::Exp, m);
  b.assemble(e, c, {0, 0});
  emitted_agrees(b.finish());
  // Elementwise roots never fill the record.
  CHECK(emitted_agrees(exp_rows(512)).blocks == 0);
}

TEST_CASE("families: a tile loaded once and read by every member is no family", "[family]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {512, 128});
  int r = b.tensor("r", TensorRole::Input, DType::fp32, {1, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {512, 128});
  b.set_vec({64, 128});
  int s = b.binary(OpKind::Add, b.ref(x), b.ref(r));
  b.assemble(s, y, {0, 0});
  Program p = b.finish();
  auto f = family_of(p);
  CHECK(!f.family);
  CHECK(f.reason == "the tile ops do not repeat");
  CHECK(same_both_ways(p) == 0);
}

TEST_CASE("families: a matmul with a vector epilogue does not repeat as a whole", "[family]") {
  ProgramBuilder b;
  int a = b.tensor("a", TensorRole::Input, DType::fp16, {256, 256});
  int w = b.tensor("w", TensorRole::Input, DType::fp16, {256, 512});
  int c = b.tensor("c", TensorRole::Output, DType::fp32, {256, 512});
  b.set_cube(128, 64, 256, 256);
  b.set_vec({128, 256});
  int m = b.matmul(b.ref(a), b.ref(w));
  int e = b.unary(OpKind::Exp, m);
  b.assemble(e, c, {0, 0});
  Program p = b.finish();
  auto f = family_of(p);
  CHECK(!f.family);
  CHECK(same_both_ways(p) == 0);
}

TEST_CASE("families: a parallel_merge scope packs across members, so no family", "[family]") {
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {512, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {512, 128});
  b.set_vec({64, 128});
  b.scope.id = 1;
  b.scope.parallel_merge = true;
  int e = b.unary(OpKind::Exp, b.ref(x));
  b.assemble(e, y, {0, 0});
  Program p = b.finish();
  auto f = family_of(p);
  CHECK(!f.family);
  CHECK(f.reason == "a parallel_merge scope packs branches across members");
  CHECK(same_both_ways(p) == 0);
}

TEST_CASE("families: members writing overlapping GM boxes are no family", "[family]") {
  // Two statements writing the same rows of y: every tile of the second overwrites one of the first.
  ProgramBuilder b;
  int x = b.tensor("x", TensorRole::Input, DType::fp32, {128, 128});
  int y = b.tensor("y", TensorRole::Output, DType::fp32, {64, 128});
  b.set_vec({64, 128});
  int top = b.view(b.ref(x), {64, 128}, {0, 0});
  int bot = b.view(b.ref(x), {64, 128}, {64, 0});
  b.assemble(b.unary(OpKind::Exp, top), y, {0, 0});
  b.assemble(b.unary(OpKind::Exp, bot), y, {0, 0});
  Program p = b.finish();
  auto f = family_of(p);
  CHECK(!f.family);
  CHECK(same_both_ways(p) == 0);
}

TEST_CASE("families: copied blocks' GM conditions proved from block 0 and the deltas", "[family]") {
  // Block 0 of a 4-block GEMM, copied; the proof holds, and a W delta that makes two members'
  // output boxes overlap (or a family that is not the copies') refutes it.
  const Program p = gemm(512, 512, 512);
  ExpandedRoot e(p, true);
  tiling::Builder& b = e.b;
  TileRoot& tr = e.tr;
  REQUIRE(b.block_copies);
  auto f = tiling::find_tile_family(p, tr, p.roots[0], b.tile_writer, &b.emitted_blocks, b.block_copies.get());
  REQUIRE(f.family);
  CHECK(f.family->members >= 2);
  CHECK(tiling::copied_blocks_meet_family_conditions(tr, *f.family, *b.block_copies));
  tiling::BlockCopies overlap = *b.block_copies;
  for (auto& d : overlap.delta[1][size_t(tiling::BlockOperand::W)]) d = 0;  // member 1 writes member 0's box
  CHECK(!tiling::copied_blocks_meet_family_conditions(tr, *f.family, overlap));
  tiling::BlockCopies built = *b.block_copies;
  built.copied[1] = 0;  // a block built, not copied: the member-by-member checks decide
  CHECK(!tiling::copied_blocks_meet_family_conditions(tr, *f.family, built));
  tiling::TileFamily two = *f.family;
  two.segments.push_back(two.segments[0]);
  CHECK(!tiling::copied_blocks_meet_family_conditions(tr, two, *b.block_copies));
}

TEST_CASE("families: a single tile is no family", "[family]") {
  auto f = family_of(exp_rows(64));
  CHECK(!f.family);
  CHECK(same_both_ways(exp_rows(64)) == 0);
}

TEST_CASE("families: a member's copy of a leaf takes member 0's class, a tail member computes its own", "[family]") {
  auto even = family_of(gemm(512, 512, 1024));
  REQUIRE(even.family);
  CHECK(std::count(even.family->alike.begin(), even.family->alike.end(), 1) == 16);
  // 500 x 700 by 128 x 256: the last block row (m 384..500) and column (n 512..700) are tails.
  auto tails = family_of(gemm(500, 300, 700));
  REQUIRE(tails.family);
  REQUIRE(tails.family->alike.size() == 12);
  std::vector<char> want(12, 1);
  for (int k = 0; k < 12; ++k) want[size_t(k)] = k % 4 != 3 && k / 4 != 2;  // blocks n-major, m-minor
  CHECK(tails.family->alike == want);
  CHECK(classes_alike(gemm(512, 512, 1024)) == 16);
  CHECK(classes_alike(gemm(500, 300, 700)) == 12);
  CHECK(classes_alike(gemm(256, 1024, 512, {}, true)) > 0);  // split_k: zero fill and partial sums
  CHECK(classes_alike(exp_rows(6144, 1)) == 96);             // VecNBuffer off: every tile its own leaf
  CHECK(classes_alike(exp_rows(6100, 1)) == 96);             // a tail member
  // Breadth merges joined members: no replica map (the classes are computed leaf by leaf).
  CHECK(classes_alike(exp_rows(6144, 8)) == 0);
  CHECK(classes_alike(gemm(256, 256, 512, 2)) == 0);
  Run r = tile_with(gemm(512, 512, 1024), true);
  REQUIRE(r.roots[0].replicas);
  const tiling::FamilyReplicas& rep = *r.roots[0].replicas;
  for (size_t s = 0; s < r.roots[0].subgraphs.size(); ++s) {
    const Subgraph& sg = r.roots[0].subgraphs[s];
    const Subgraph& sg0 = r.roots[0].subgraphs[size_t(rep.of_member0[size_t(rep.local[s])])];
    REQUIRE(sg.ops.size() == sg0.ops.size());
    for (size_t i = 0; i < sg.ops.size(); ++i)
      CHECK(sg.ops[i] == rep.family.op(rep.member[s], rep.family.op_member(sg0.ops[i]).second));
  }
}
