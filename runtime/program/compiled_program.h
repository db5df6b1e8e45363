// What ptoc produces and ptorun consumes: the compiled operator. Root
// functions with their task graphs (leaf calls with successors and the GM
// regions each task reads and writes, all as dim expressions over the dims
// and the loop variables of the root), leaf functions with their costs, the
// generated kernels, and the loop nest that instantiates roots at run time.
// The bundle (runtime/bundle.h) serialises exactly this.
#pragma once
#include <array>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/dim_expr.h"
#include "runtime/core/dtype.h"
#include "runtime/program/program_decls.h"

namespace ptoc {

// PyPTO's CoreType numbering (dyn_topo.txt): AIV=0, AIC=1.
enum class CoreType : uint8_t { AIV = 0, AIC = 1 };

const char* core_type_name(CoreType c);  // "AIV", "AIC" (the bundle's spelling)

// Pipes of an AI Core, in the order the cost arrays use.
enum class PipeId : uint8_t { MTE2, MTE1, M, FIX, V, MTE3, S };
inline constexpr int kNumPipes = 7;
std::string_view pipe_name(PipeId p);  // "MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S"

// PMU-trace marker id of a leaf (mark_stamp), as PyPTO's GenPMUId: "1" for a main
// block followed by the last three characters of the function hash (decimal), mod 4096.
int pmu_id(uint64_t function_hash, bool main_block = true);

struct GmTensor {
  enum class Role : uint8_t { Input, Output, Workspace, Temp };
  std::string name;
  Role role = Role::Input;
  DType dtype = DType::fp32;
  std::vector<DimExpr> shape;  // Temp shapes may use the root's loop variables and factor
  Format format = Format::ND;
  bool l2_bypass = false;
  int root = -1;               // Temp: the root function that owns it (one copy per instance)
  int64_t values_lo = 0, values_hi = -1;  // TensorDecl::values_lo/hi (inputs read by the control flow)
  int inplace = -1;            // Output declared `inplace: IN`: the index of that input, whose GM it shares
};

const char* gm_role_name(GmTensor::Role r);  // "input", "output", "workspace", "temp"

// A box in a GM tensor, in elements of that tensor's logical (ND) shape.
struct Region {
  int tensor = -1;
  std::vector<DimExpr> offset;
  std::vector<DimExpr> extent;
  SrcLoc loc;                      // the spec statement that moves it (run-time bounds errors name it)
};

// A leaf class: what every task calling one leaf of that class shares (kernel, costs, buffers,
// merge info). Stored once however many tasks call it; Task::cls indexes these.
struct LeafFunction {
  int id = -1;                     // its index in CompiledProgram::leaves
  uint64_t hash = 0;               // structural hash (the "leafHash"/function hash)
  CoreType core = CoreType::AIV;
  int kernel = -1;                 // index into CompiledProgram::kernels (deduplicated)
  std::array<int64_t, kNumPipes> pipe_cycles{};  // busy cycles per pipe for one call
  int64_t est_cycles = 0;          // one call, with the overlap its merged chains allow
  int chains = 1;                  // independent tile chains merged into this leaf
  int64_t ub_bytes = 0, l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0;
  int num_ops = 0;                 // tile ops in the leaf
  std::string merge_info;          // e.g. "l1ReuseInfo hashOrder: func8_0, subGraphCount: 24"
};

struct Kernel {
  std::string name;                // C symbol, e.g. "rmsnorm_3_0"
  CoreType core = CoreType::AIV;
  std::string source;              // CCE source; compiles for the device and, with -DPTO_HOST, for the host
  uint64_t source_hash = 0;
  int num_args = 0;                // int64 arguments it reads (PtoKernelArgs::args)
  int num_gm = 0;                  // GM base pointers it reads (PtoKernelArgs::gm)
  std::vector<uint8_t> program;    // its encoded leaf program (runtime/program/leaf_program.h); empty in old bundles
};

struct Task {
  int leaf = -1;                   // leaf index (PyPTO's leafIndex/psgId: one per compiled leaf, as named
                                   // in the artifacts); not an index into `leaves` unless cls < 0
  int cls = -1;                    // its class: index into CompiledProgram::leaves; -1 (hand-built
                                   // programs only) means every leaf is its own class, `leaf` indexes it
  std::vector<int> gm;             // GM tensor index per kernel GM slot
  std::vector<DimExpr> args;       // kernel int64 arguments (offsets, valid extents)
  std::vector<Region> reads, writes;
  std::vector<int> succ;           // successor task indices within the root
  int pred_count = 0;
  int hash_order = 0;              // order of first appearance of this leaf's hash in its root
  std::string label;               // semantic label of its ops (first one), "" if none
  int op_magic = 0;                // id of the CALL op (PyPTO's callOpMagic)
};

// A slice or view window of a source whose extent is known only at run time: its start must lie
// inside the source (specs/README.md, "Slice clipping"), checked once per root instance.
struct WindowCheck {
  std::string source;              // the sliced tensor or value, as the spec names it
  int axis = 0;
  DimExpr start, extent, bound;    // the window's start and static extent, the source's extent
  SrcLoc loc;                      // the statement
};

// A task id keeps the task's index in its root function in 16 bits (runtime/control_flow.cpp).
inline constexpr size_t kMaxTasksPerRoot = 0xFFFF;

struct CompactRoot;  // runtime/program/task_instances.h

struct RootFunction {
  int index = -1;                  // function magic (func{index}_{order})
  std::string name;
  uint64_t hash = 0;
  std::vector<std::string> loop_vars;
  int64_t factor = 1;
  std::vector<Task> tasks;         // topologically ordered; empty when `compact` holds them
  // The tasks as instance records, never expanded (read through root_tasks.h, which serves both
  // forms): a loaded bundle's roots, and the compiler's tile-family roots (task_graph builds them with
  // runtime/program/task_compactor.h); null for explicit roots built in memory, whose tasks are `tasks`.
  std::shared_ptr<const CompactRoot> compact;
  std::vector<int> temps;          // GmTensor indices with role Temp owned by this root
  std::vector<WindowCheck> window_checks;
};

struct CompiledProgram {
  std::string name, target, doc;
  std::string spec_file, spec_source;        // kept so ptorun --check can rebuild the tensor graph
  std::string graph_json;                    // program.json (PyPTO's compute-graph view), copied into run folders;
                                             // a loaded bundle leaves it empty: program_json_text() builds it
  std::vector<std::string> graph_blocks;     // program.json's BLOCK_GRAPH functions, as rendered at their depth
                                             // (the EXECUTE_GRAPH part is rebuilt from the tasks)
  bool graph_from_blocks = false;            // a loaded bundle had program.json: program_json_text() rebuilds it
  std::vector<std::string> set_overrides;    // the `--set` switches the bundle was compiled with
  std::vector<DimDecl> dims;
  Options options;
  std::vector<GmTensor> tensors;             // spec tensors first (same order as Program::tensors), then temps
  std::vector<LeafFunction> leaves;          // leaf classes (Task::cls)
  std::vector<Kernel> kernels;
  std::vector<RootFunction> roots;
  std::vector<LoopNode> control;             // LoopNode::root indexes `roots`

  // The class index of a task (see Task::cls), and its class; -1 / nullptr when out of range.
  int class_index(const Task& t) const { return t.cls >= 0 ? t.cls : t.leaf; }
  const LeafFunction* leaf_class(const Task& t) const {
    int c = class_index(t);
    return c >= 0 && size_t(c) < leaves.size() ? &leaves[size_t(c)] : nullptr;
  }
};

}  // namespace ptoc
