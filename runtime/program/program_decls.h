// What a compiled program keeps of its spec: the dims, the declared tensors, the
// knobs (options) and the dynamic loop nest that instantiates root functions at
// run time. The front end produces them; the bundle carries them; the runtime
// binds dims and checks inputs against them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/dim_expr.h"
#include "runtime/core/dtype.h"
#include "runtime/core/src_loc.h"

namespace ptoc {

enum class Format : uint8_t { ND, NZ };

struct DimDecl {
  std::string name;
  bool dynamic = false;
  int64_t value = 0;         // static dims
  int64_t max = 0;           // dynamic: 0 = no bound given
  int64_t divisible_by = 1;  // dynamic: checked at loop entry under runtime_debug_mode 4
  SrcLoc loc;
};

enum class TensorRole : uint8_t { Input, Output, Workspace };

struct TensorDecl {
  std::string name;
  TensorRole role = TensorRole::Input;
  DType dtype = DType::fp32;
  std::vector<DimExpr> shape;  // over dims only
  Format format = Format::ND;
  bool l2_bypass = false;      // {cache_policy: {tensor: NAME, l2: bypass}}
  // int32 inputs read by the control flow (`values: [lo, hi]`): the range ptorun and `ptoc eval`
  // draw a generated input from. hi < lo: none declared.
  int64_t values_lo = 0, values_hi = -1;
  // An output declared `inplace: IN`: the input it updates in place (PyPTO passes one buffer as both);
  // the two are one GM tensor. Empty: its own memory.
  std::string inplace;
  SrcLoc loc;
};

// One *_setting map of `options.pass`.
struct MergeSetting {
  struct Entry {
    enum class Key : uint8_t { Global, Default, Func, Label } key = Key::Default;
    std::string name;       // the key as written ("DEFAULT", "0", "func8_0", "MM1")
    int64_t func_magic = -1, func_order = -1;  // Key::Func
    int64_t count = 1;      // 0 = automatic
    std::string side;       // cube_l1_reuse_setting only: "" (auto), "left", "right", "auto"
    SrcLoc loc;
  };
  bool given = false;
  std::vector<Entry> entries;
  // The entry that applies to a root function (magic, order) with a label; most specific wins.
  const Entry* lookup(int64_t magic, int64_t order, const std::string& label) const;
};

const char* merge_key_name(MergeSetting::Entry::Key k);  // "global", "default", "func", "label"

// The knobs' values. Declared, with ranges, defaults and docs, in runtime/program/knobs.h's table;
// the constructor sets every field to its table default.
struct Options {
  Options();
  // runtime
  int64_t stitch_function_max_num;
  int device_sched_mode;
  int64_t max_workspace_kb;
  // pass
  MergeSetting cube_l1_reuse_setting;     // default: on, automatic
  MergeSetting cube_nbuffer_setting;      // default: {DEFAULT: 1} (off)
  MergeSetting vec_nbuffer_setting;       // default: automatic
  // codegen
  bool enable_pmu_trace;
  // debug
  int runtime_debug_mode;
};

// A run-time value: one element of an int32 input tensor (PyPTO's host-ready tensors), read from GM
// by the control flow and bound to the symbol `sym`, which dim expressions of the node then use
// (a loop bound, a view offset, a valid extent). The index may use the enclosing loop variables.
struct ScalarLoad {
  std::string sym;                 // an identifier: "<tensor>__<k>"
  int tensor = -1;                 // index into the spec tensors (an int32 input)
  std::vector<DimExpr> index;      // one per axis of the tensor
  std::string text;                // as written ("seq_len[b]"), for messages
  SrcLoc loc;
};

struct LoopNode;
struct Gear {
  int64_t factor = 1;              // iterations this body covers
  std::vector<LoopNode> body;
};
struct LoopNode {
  enum class Kind : uint8_t { Root, Loop } kind = Kind::Root;
  int root = -1;                   // Kind::Root: index into Program::roots
  // Kind::Loop (always dynamic; static loops were unrolled):
  std::string var, name, factor_var;
  DimExpr begin, end, step = 1;    // trip count = ceil_div(end - begin, step)
  std::vector<Gear> gears;         // descending factors; the last has factor 1
  SrcLoc loc;
  // Both kinds: run-time values read (in order) before the node runs: before a loop's bounds are
  // evaluated, before each instance of a root. Their symbols stay bound for the node.
  std::vector<ScalarLoad> loads;
};

}  // namespace ptoc
