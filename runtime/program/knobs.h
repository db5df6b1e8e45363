// Every knob of ptoc and ptorun, declared once (the way Triton's knobs.py is the one list of its
// switches). A row says the group and key users write (`options: {runtime: {KEY: ...}}` in a spec,
// `--set GROUP.KEY=VALUE` to ptoc or ptorun), the type, range and default, a one-line doc, and
// whether `ptorun --set` may change it without a recompile. The front end, both `--set` parsers,
// the bundle writer and reader, `ptorun info`, `--help` texts and specs/README.md's option section
// (checked by test/program/test_knobs.cpp) all read this table; adding a knob is one row here plus
// its effect (docs/ARCHITECTURE.md says where each knob's effect is implemented).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/program/program_decls.h"

namespace ptoc {

struct Knob {
  enum class Type : uint8_t { Int, Bool, Setting };
  std::string_view group, key;
  Type type = Type::Int;
  int64_t lo = 0, hi = 0, def = 0;   // Int (Bool: 0..1)
  std::string_view meaning;          // after the range in messages: "0 = no cap"
  std::string_view doc;              // one line for --help, info and the language reference
  bool run_time = false;             // `ptorun --set` may change it
  bool setting_side = false;         // Setting: values may be [count, side] (cube_l1_reuse_setting)
  std::string_view setting_default;  // Setting: what applies when the map is not given ("auto", "{DEFAULT: 1}")
  int64_t (*get)(const Options&) = nullptr;      // Int, Bool
  void (*set)(Options&, int64_t) = nullptr;      // Int, Bool
  MergeSetting Options::*setting = nullptr;      // Setting
  // Int: why an in-range value is refused ("" when it is accepted), for values the range cannot say.
  std::string_view (*refuse)(int64_t) = nullptr;

  std::string name() const;          // "runtime.stitch_function_max_num"
  std::string range() const;         // "1..1024" or "0..3 (0 FIFO, ...)"
};

// In declaration order: runtime, pass, codegen, debug.
const std::vector<Knob>& knobs();
const Knob* find_knob(std::string_view group, std::string_view key);
std::vector<std::string> knob_groups();
std::vector<std::string> knob_keys(std::string_view group);
// "runtime.stitch_function_max_num, ..., and debug.runtime_debug_mode": what `ptorun --set` may change.
std::string run_time_knob_list();

// The table as the Markdown table of specs/README.md's section 9 (a test keeps the two equal) and
// `ptoc --list-knobs` / `ptorun --list-knobs`.
std::string knob_table_markdown();

// `GROUP.KEY=VALUE` or `GROUP.KEY.ENTRY=VALUE` (one entry of a *_setting map), as both tools take it.
struct KnobAssignment {
  std::string group, key, entry, value;
  std::string lhs() const;           // "GROUP.KEY" or "GROUP.KEY.ENTRY"
};
// nullopt when `item` is not of that form.
std::optional<KnobAssignment> split_knob_assignment(const std::string& item);

// runtime.device_sched_mode, decoded once: bit 0 L2 affinity (the newest ready task first, so a
// consumer runs where its producer's data is still in L2), bit 1 fair (cores take turns).
struct SchedPolicy {
  bool l2_affinity = false;
  bool fair = false;
};
SchedPolicy sched_policy(int device_sched_mode);

// debug.runtime_debug_mode values.
enum RuntimeDebugMode : int {
  kDebugOff = 0,
  kDebugSwimlane = 1,        // swimlane and stage artifacts
  kDebugAicoreModel = 2,     // PyPTO: AICORE_MODEL simulation; refused here (the simulator always models cores)
  kDebugDependencyCheck = 3, // every pair of tasks touching the same GM bytes with a write must be ordered
  kDebugBoundsCheck = 4,     // every GM box inside its tensor, dims divisible as declared
};
// The refusal for runtime_debug_mode 2, or "" for a supported value.
std::string_view unsupported_debug_mode(int64_t mode);
// Why `v` is refused for knob `k` ("" when accepted): the row's refuse hook, if any.
std::string_view knob_refusal(const Knob& k, int64_t v);

}  // namespace ptoc
