// TaskCompactor (runtime/program/task_compactor.h): a task given as a moved copy of a whole task
// compacts to exactly the records its values given whole compact to (templates, groups, deltas,
// explicit tasks), whichever task becomes the template and when the base cannot share one.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <stdexcept>

#include "runtime/program/task_compactor.h"

using namespace ptoc;

namespace {

std::string exprs(const std::vector<DimExpr>& v) {
  std::string s;
  for (const DimExpr& e : v) s += e.str() + ",";
  return s;
}

std::string regions(const std::vector<Region>& rs) {
  std::string s;
  for (const Region& r : rs) s += std::to_string(r.tensor) + "@" + exprs(r.offset) + "+" + exprs(r.extent) + " ";
  return s;
}

// Everything the bundle stores of a compact root, as text.
std::string text(const CompactRoot& cr) {
  std::ostringstream o;
  for (const TaskTemplate& t : cr.templates) {
    o << "T " << t.cls << " " << t.groups << " " << exprs(t.args) << regions(t.reads) << "| " << regions(t.writes)
      << "of";
    for (int g : t.group_of) o << " " << g;
    o << "\n";
  }
  for (const TaskInstanceRecord& r : cr.instances) {
    o << "I " << r.tmpl << " " << r.leaf << " " << r.hash_order << " " << r.label << " " << r.explicit_task << " s";
    for (int s : r.succ) o << " " << s;
    o << " d";
    for (int64_t d : r.deltas) o << " " << d;
    o << "\n";
  }
  for (const Task& t : cr.explicit_tasks) o << "X " << t.cls << " " << exprs(t.args) << regions(t.reads) << "| " << regions(t.writes) << "\n";
  for (const std::string& l : cr.labels) o << "L " << l << "\n";
  o << "M " << cr.op_magic_base << " " << cr.op_magics.size() << " " << cr.pred_counts.size() << "\n";
  return o.str();
}

// A GEMM-like task: args (row, col, extent, and a symbolic one), a read of A, a read of B, a write of C.
Task base_task(int cls, int leaf, int64_t row, int64_t col, DimExpr extra) {
  Task t;
  t.cls = cls;
  t.leaf = leaf;
  t.gm = {0, 1, 2};
  t.args = {DimExpr(row), DimExpr(col), DimExpr(128), std::move(extra)};
  t.reads = {Region{0, {DimExpr(row), DimExpr(0)}, {DimExpr(128), DimExpr(64)}, {}},
             Region{1, {DimExpr(0), DimExpr(col)}, {DimExpr(64), DimExpr(256)}, {}}};
  t.writes = {Region{2, {DimExpr(row), DimExpr(col)}, {DimExpr(128), DimExpr(256)}, {}}};
  t.label = "GEMM";
  return t;
}

// Slot 0: the row delta, slot 1: the column delta (value positions of base_task).
std::vector<std::pair<int, int>> gemm_pattern() {
  // args 0..3; read A offsets at 4,5 (extents 6,7); read B offsets 8,9 (10,11); write C offsets 12,13.
  return {{0, 0}, {1, 1}, {4, 0}, {9, 1}, {12, 0}, {13, 1}};
}

// Only the rows move (slot 0), and the symbolic argument's neighbour, the extent at 2 (slot 1).
std::vector<std::pair<int, int>> row_pattern() { return {{0, 0}, {4, 0}, {12, 0}, {2, 1}}; }

struct Moved {
  int base;                 // index into the whole tasks
  std::vector<int64_t> d;   // per slot
  int cls = -1;             // -1: the base's
  int pattern = 0;          // 0: gemm_pattern, 1: row_pattern
};

// The same tasks compacted twice: moved ones described, and materialised then given whole.
CompactRoot same_records(const std::vector<Task>& whole, const std::vector<Moved>& moved, const std::vector<int>& order) {
  TaskCompactor described, given;
  std::vector<int> handle(whole.size(), -1);
  const int patterns[2] = {described.add_pattern(gemm_pattern()), described.add_pattern(row_pattern())};
  int magic = 0, i = 0;
  std::vector<Task> materialised;
  for (int k : order) {  // k >= 0: whole task k; k < 0: moved task -k - 1
    Task meta;
    if (k >= 0) {
      Task t = whole[size_t(k)];
      t.op_magic = magic++;
      t.succ = {i + 1};
      handle[size_t(k)] = described.add_owned(t);
      given.add_owned(t);
    } else {
      const Moved& m = moved[size_t(-k - 1)];
      meta.leaf = 100 + i;
      meta.cls = m.cls >= 0 ? m.cls : whole[size_t(m.base)].cls;
      meta.label = "GEMM";
      meta.op_magic = magic++;
      meta.succ = {i + 1};
      REQUIRE(handle[size_t(m.base)] >= 0);
      const int h = described.add_moved(handle[size_t(m.base)], patterns[m.pattern], m.d, meta);
      Task t = described.materialise(h);
      CHECK(t.leaf == meta.leaf);
      given.add_owned(std::move(t));
    }
    ++i;
  }
  const CompactRoot a = described.finish(), b = given.finish();
  CHECK(text(a) == text(b));
  CHECK(validate_compact_root(a, 4, 3).find("successor") != std::string::npos);  // the last task's succ is past the end
  return a;
}

}  // namespace

TEST_CASE("task compactor: moved tasks compact as their values given whole", "[compactor]") {
  const DimExpr m = DimExpr::sym("M");
  std::vector<Task> whole = {base_task(0, 0, 0, 0, m), base_task(0, 1, 0, 256, m + DimExpr(4))};
  SECTION("one template, row and column groups") {
    const CompactRoot cr =
        same_records(whole, {{0, {128, 0}}, {0, {128, 256}}, {1, {128, 0}}, {0, {256, 512}}}, {0, 1, -1, -2, -3, -4});
    REQUIRE(cr.templates.size() == 1);
    CHECK(cr.templates[0].groups == 3);  // the row, the column, the symbolic argument (M vs M + 4)
    CHECK(cr.explicit_tasks.empty());
  }
  SECTION("a moved task of another class becomes a template of its own") {
    CHECK(same_records(whole, {{0, {128, 0}, 1}, {0, {256, 0}, 1}, {1, {0, 0}}}, {0, -1, 1, -2, -3}).templates.size() == 2);
  }
  SECTION("a base whose value is not the template's plus a constant: it and its copies stored explicitly") {
    whole.push_back(base_task(0, 2, 512, 0, DimExpr::sym("N")));
    CHECK(same_records(whole, {{2, {128, 0}}, {0, {128, 0}}, {2, {0, 256}}}, {0, 2, -1, -2, -3}).explicit_tasks.size() == 3);
  }
}

TEST_CASE("task compactor: random copies of several bases under two patterns", "[compactor]") {
  uint64_t x = 88172645463325252ull;
  auto next = [&](int64_t n) {  // xorshift: a fixed sequence, so the test is deterministic
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return int64_t(x % uint64_t(n));
  };
  const DimExpr m = DimExpr::sym("M");
  for (int round = 0; round < 20; ++round) {
    INFO("round " << round);
    std::vector<Task> whole;
    for (int b = 0; b < 3; ++b) whole.push_back(base_task(int(next(2)), b, 128 * next(4), 256 * next(4), next(3) ? m : m + DimExpr(next(3))));
    std::vector<Moved> moved;
    std::vector<int> order = {0, 1, 2};
    for (int k = 0; k < 40; ++k) {
      Moved mv{int(next(3)), {128 * next(3), 256 * next(2)}, next(5) ? -1 : int(next(2)), int(next(2))};
      moved.push_back(mv);
      order.push_back(-k - 1);
    }
    same_records(whole, moved, order);
  }
}

TEST_CASE("task compactor: a moved task needs its base and a delta per slot", "[compactor]") {
  TaskCompactor c;
  const int p = c.add_pattern(gemm_pattern());
  Task meta;
  CHECK_THROWS_AS(c.add_moved(0, p, {1, 2}, meta), std::logic_error);  // no base yet
  const int b = c.add_owned(base_task(0, 0, 0, 0, DimExpr(1)));
  CHECK_THROWS_AS(c.add_moved(b, p, {1}, meta), std::logic_error);     // slot 1 missing
  const int h = c.add_moved(b, p, {128, 256}, meta);
  CHECK_THROWS_AS(c.add_moved(h, p, {1, 2}, meta), std::logic_error);  // a moved task is no base
  const Task t = c.materialise(h);
  CHECK(exprs(t.args) == "128,256,128,1,");
  CHECK(regions(t.writes) == "2@128,256,+128,256, ");
}
