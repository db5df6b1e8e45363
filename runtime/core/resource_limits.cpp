#include "runtime/core/resource_limits.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>

namespace ptoc::limits {

namespace {

constexpr int64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

// Defaults sit far above any real operator (specs/ holds kilobyte specs with
// nesting below 10) and far below what exhausts memory or the stack: the
// recursive walks over statements and expressions use well under 1 KiB of stack
// per level, so 1000 levels stay inside an 8 MiB stack also under ASan.
const std::vector<Limit> kTable = {
    {Id::spec_bytes, "spec_bytes", 16 * kMiB, 1, 1 * kGiB, "bytes", "size of a spec file"},
    {Id::npy_bytes, "npy_bytes", 4 * kGiB, 1, int64_t(1) << 50, "bytes", "size of an .npy input file"},
    {Id::yaml_nodes, "yaml_nodes", 100000, 1, 100000000, "statements",
     "statements read from a spec, YAML aliases expanded (stops \"billion laughs\" expansion)"},
    {Id::yaml_depth, "yaml_depth", 100, 1, 1000, "levels", "nesting of statement bodies (loop, if, scope)"},
    {Id::expr_depth, "expr_depth", 1000, 1, 5000, "levels",
     "nesting of one expression: parentheses, unary minus, calls, lists and chains such as a + a + ..."},
    {Id::stmt_bytes, "stmt_bytes", 64 * kKiB, 1, 16 * kMiB, "bytes", "length of one statement string or dim expression"},
    {Id::tiles_per_root, "tiles_per_root", 1000000, 1, int64_t(1) << 40, "tiles",
     "static tile count of one root function (the tiler materialises every tile)"},
    {Id::gm_bytes, "gm_bytes", 0, 0, int64_t(1) << 50, "bytes",
     "GM bytes of one run; 0 means the memory the system reports available (MemAvailable)"},
    {Id::bundle_bytes, "bundle_bytes", 4 * kGiB, 1, int64_t(1) << 40, "bytes",
     "size of a bundle file read by ptorun (ptorun, ptorun info)"},
    // The loop nest is walked recursively after this check (control flow, `ptorun info`); the
    // front end nests at most yaml_depth (max 1000) bodies, so 1000 is every bundle ptoc writes.
    {Id::loop_depth, "loop_depth", 1000, 1, 1000, "levels", "nesting of control-flow loops in a bundle"},
    // dyn_topo.txt, tilefwk_L1_prof_data.json and the PMU csv are streamed (profiling/task_stream.h);
    // the kept records feed the writers that need the whole round: the Machine View (draw_swim_lane.py
    // reads it whole) and the 950 PMU trace. The Machine View is built in memory at about 0.7 KiB per
    // record, so the default keeps a profiled run of any length ~100 MB above an unprofiled one.
    {Id::task_records, "task_records", 200000, 1, int64_t(1) << 40, "records",
     "profiled task records kept for merged_swimlane.json and the PMU trace (dyn_topo.txt, the L1 file and the "
     "PMU csv hold every task); later tasks are left out of those two, with a warning"},
    {Id::dump_bytes, "dump_bytes", 256 * kMiB, 1, int64_t(1) << 40, "bytes",
     "total size of the --dump-after files of one compile; later dumps are left out with a warning"},
    {Id::static_iterations, "static_iterations", 100000, 1, 100000000, "bodies",
     "static-loop bodies unrolled in one spec, nested loops multiplied (each loop alone: at most 4096)"},
    // ptorun decodes the section into a JSON tree of about 27-30 bytes per byte (fuzz seed 9402238:
    // 34 MB -> 0.93 GB RSS; 865 MB -> killed past 24 GB), so 256 MiB keeps a load near 8 GB.
    {Id::roots_bytes, "roots_bytes", 256 * kMiB, 1, int64_t(1) << 40, "bytes",
     "task records (the bundle's 'roots' section) one compile may write, estimated before writing"},
    // topk and argsort are native row sorts (elaborate_topk_tiles.cpp): one sort op per tile of the sorted
    // axis and the merge, each a few tile ops. The bound keeps a split of a huge axis into tiny tiles (2^26
    // columns in tiles of 256: 262145 sorts) from making millions of ops before tiling refuses them; the
    // lightning indexer's 131072 columns in tiles of 8192 are 17.
    {Id::select_steps, "select_steps", 8192, 1, 100000000, "sorts",
     "sorts one topk or argsort writes (one per tile of the sorted axis, plus the merge of a split axis), "
     "checked before any op is made"},
};

using Values = std::array<std::atomic<int64_t>, size_t(Id::kCount)>;
Values& values() {
  static Values v;
  static const bool init = [] {
    for (const auto& l : kTable) v[size_t(l.id)].store(l.default_value);
    return true;
  }();
  (void)init;
  return v;
}

std::string names() {
  std::string s;
  for (const auto& l : kTable) s += (s.empty() ? "" : ", ") + std::string(l.name);
  return s;
}

}  // namespace

const std::vector<Limit>& table() { return kTable; }
int64_t get(Id id) { return values()[size_t(id)].load(std::memory_order_relaxed); }
const char* name(Id id) { return kTable[size_t(id)].name; }

std::string set(const std::string& item) {
  size_t eq = item.find('=');
  if (eq == std::string::npos) return "--limit expects NAME=VALUE, got '" + item + "' (limits: " + names() + ")";
  std::string key = item.substr(0, eq), val = item.substr(eq + 1);
  const Limit* l = nullptr;
  for (const auto& x : kTable)
    if (key == x.name) l = &x;
  if (!l) return "unknown limit '" + key + "' (limits: " + names() + ")";
  int64_t mult = 1;
  if (!val.empty()) {
    char u = val.back();
    if (u == 'K' || u == 'k') mult = kKiB;
    if (u == 'M' || u == 'm') mult = kMiB;
    if (u == 'G' || u == 'g') mult = kGiB;
    if (mult != 1) val.pop_back();
  }
  errno = 0;
  char* end = nullptr;
  long long v = val.empty() ? 0 : std::strtoll(val.c_str(), &end, 10);
  if (val.empty() || *end != '\0' || errno == ERANGE || v < 0 || (mult > 1 && v > l->max / mult))
    return "limit " + key + ": '" + item.substr(eq + 1) + "' is not a non-negative integer in range";
  v *= mult;
  if (v < l->min || v > l->max)
    return "limit " + key + " must be in " + std::to_string(l->min) + ".." + std::to_string(l->max) + ", got " +
           std::to_string(v);
  values()[size_t(l->id)].store(v);
  return {};
}

std::string set_from_env() {
  const char* e = std::getenv("PTOC_LIMITS");
  if (!e || !*e) return {};
  std::string s = e;
  size_t p = 0;
  while (p <= s.size()) {
    size_t c = s.find(',', p);
    if (c == std::string::npos) c = s.size();
    std::string item = s.substr(p, c - p);
    if (!item.empty())
      if (std::string err = set(item); !err.empty()) return "PTOC_LIMITS: " + err;
    p = c + 1;
  }
  return {};
}

void reset() {
  for (const auto& l : kTable) values()[size_t(l.id)].store(l.default_value);
}

std::string raise_hint(Id id) {
  return std::string("raise the limit with --limit ") + name(id) + "=N (or PTOC_LIMITS=" + name(id) + "=N)";
}

}  // namespace ptoc::limits

namespace ptoc::limits {

std::string apply_all(const std::vector<std::string>& items) {
  std::string err = set_from_env();
  for (size_t i = 0; err.empty() && i < items.size(); ++i) err = set(items[i]);
  return err;
}

}  // namespace ptoc::limits
