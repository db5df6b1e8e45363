// The leaf-program executor: runs each kernel's leaf program
// (runtime/program/leaf_program.h) by calling the tile functions of
// kernels/host compiled once into ptorun (runtime/leaf_exec_kernels.cpp), the
// same function bodies the compiled CCE twin runs, with the twin's FP flags,
// so the outputs are the same bits. Programs are decoded, verified and
// resolved to function pointers once at load; a call only evaluates the
// argument expressions and calls.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernel_runner.h"
#include "runtime/program/compiled_program.h"
#include "runtime/program/leaf_program.h"

namespace ptoc::runtime {

// One resolved tile-function call: shape[] from the Int template parameters,
// then the pointers, int64 values and literal of the operands in order.
using LeafCallFn = void (*)(const int64_t* shape, void* const* ptrs, const int64_t* ints, double real);
// The precompiled function for `fn` with these template parameters (op, dtypes,
// broadcasts, pad, atomic, axis; the Int ones are run-time shapes), or null.
LeafCallFn resolve_leaf_call(leaf::Fn fn, const std::vector<leaf::TParam>& tparams);

// Installs the GM access recorder of the calling thread for the precompiled kernels.
void leaf_set_gm_trace(KernelRunner::GmTraceFn fn, void* ctx);

class LeafKernel {
 public:
  // Verifies `p` (throws leaf::LeafProgramError naming the kernel) and resolves every call.
  explicit LeafKernel(const leaf::LeafProgram& p);
  void run(const PtoKernelArgs* a) const;
  const std::string& name() const { return name_; }

 private:
  enum class Op : uint8_t { Def, LoopBegin, LoopEnd, Call };
  struct Ptr {
    bool gm = false;
    int32_t index = 0;         // GM slot, or memory (leaf::Memory)
    int64_t byte_base = 0;     // buffer address in its memory
    int32_t elem_bytes = 1;
    int32_t expr = -1;         // element offset expression, -1 for none
  };
  struct Step {
    Op op = Op::Def;
    int32_t local = -1;        // Def / loop index
    int32_t count_slot = -1;   // loops: where the trip count is kept
    int32_t expr = -1;         // Def: value; LoopBegin: trip count
    int32_t jump = -1;         // LoopBegin: past its end; LoopEnd: its body's first step
    LeafCallFn fn = nullptr;
    int64_t shape[6] = {};
    uint8_t nptr = 0, nint = 0;
    Ptr ptrs[4];
    int32_t ints[8] = {};      // expression indices
    double real = 0;
  };
  std::string name_;
  int num_args_ = 0, num_gm_ = 0, num_slots_ = 0;
  std::vector<leaf::Expr> exprs_;
  std::vector<Step> steps_;
};

class LeafExecutor : public KernelRunner {
 public:
  // Decodes and verifies the leaf program of every kernel. Throws leaf::LeafProgramError
  // when one is missing (a bundle compiled before leaf programs) or refused.
  explicit LeafExecutor(const std::vector<Kernel>& kernels);
  void run(int index, const PtoKernelArgs* args) const override { kernels_.at(size_t(index)).run(args); }
  bool can_trace_gm() const override { return true; }
  void set_gm_trace(GmTraceFn fn, void* ctx) const override { leaf_set_gm_trace(fn, ctx); }

 private:
  std::vector<LeafKernel> kernels_;
};

}  // namespace ptoc::runtime
