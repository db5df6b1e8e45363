// Resource limits on hostile or huge input: each a named constant with a
// documented default (specs/README.md, "Limits"), overridable for one process
// with `ptoc --limit NAME=VALUE` / `ptorun --limit NAME=VALUE` or the
// environment variable PTOC_LIMITS="NAME=VALUE,NAME=VALUE". A limit hit is a
// diagnostic that names the limit and how to raise it, never a crash.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptoc::limits {

enum class Id {
  spec_bytes,      // size of a spec file
  npy_bytes,       // size of an .npy input file
  yaml_nodes,      // statements visited while reading a spec, aliases expanded
  yaml_depth,      // nesting of statement bodies (loop/if/scope inside each other)
  expr_depth,      // nesting of a statement expression (parentheses, unary minus, calls, lists, operator chains)
  stmt_bytes,      // length of one statement string or dim expression
  tiles_per_root,  // static tile count of one root function
  gm_bytes,        // GM bytes of one run (0: the memory the system reports available)
  bundle_bytes,    // size of a bundle file read by ptorun
  loop_depth,      // nesting of control-flow loops in a bundle
  task_records,    // profiled task records kept per round (the artifacts' rows)
  dump_bytes,      // total bytes of the --dump-after files of one compile
  static_iterations,  // static-loop bodies unrolled in one spec, nested loops multiplied
  roots_bytes,     // task records (the bundle's 'roots' section) one compile writes
  select_steps,    // sorts one topk or argsort writes (one per tile of the sorted axis and the merge)
  kCount
};

struct Limit {
  Id id;
  const char* name;
  int64_t default_value;
  int64_t min, max;  // allowed range of an override
  const char* unit;
  const char* doc;
};

// Every limit, in Id order.
const std::vector<Limit>& table();
int64_t get(Id id);
const char* name(Id id);
// "NAME=VALUE" (VALUE may end in K, M or G for powers of 1024). Returns "" on
// success, else a message that says what is wrong and lists the names.
std::string set(const std::string& item);
// Applies $PTOC_LIMITS (comma-separated NAME=VALUE items); returns "" or the first error.
std::string set_from_env();
// Back to the defaults (tests).
void reset();
// "raise it with --limit NAME=N" for a diagnostic's hint.
std::string raise_hint(Id id);

}  // namespace ptoc::limits

namespace ptoc::limits {
// $PTOC_LIMITS, then the --limit items, in order; "" or the first error.
std::string apply_all(const std::vector<std::string>& items);
}  // namespace ptoc::limits
