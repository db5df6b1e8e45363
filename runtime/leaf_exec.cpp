#include "runtime/leaf_exec.h"

namespace ptoc::runtime {

// The stand-in local memories of the calling thread, in leaf::Memory order
// (runtime/leaf_exec_kernels.cpp: kernels/host/pto_host.h's memories()).
unsigned char* const* leaf_local_memories();

namespace {
int32_t add_expr(std::vector<leaf::Expr>& exprs, const leaf::Expr& e) {
  if (e.empty()) return -1;
  exprs.push_back(e);
  return int32_t(exprs.size() - 1);
}
}  // namespace

LeafKernel::LeafKernel(const leaf::LeafProgram& p) : name_(p.kernel), num_args_(p.num_args), num_gm_(p.num_gm) {
  leaf::verify_leaf_program(p);
  num_slots_ = int(p.locals.size());
  std::vector<size_t> open;
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    const leaf::Instr& in = p.instrs[i];
    Step s;
    switch (in.kind) {
      case leaf::InstrKind::DefLocal:
        s.op = Op::Def;
        s.local = in.a;
        s.expr = add_expr(exprs_, in.expr);
        break;
      case leaf::InstrKind::LoopBegin:
        s.op = Op::LoopBegin;
        s.local = in.a;
        s.count_slot = num_slots_++;
        s.expr = add_expr(exprs_, in.expr);
        open.push_back(steps_.size());
        break;
      case leaf::InstrKind::LoopEnd: {
        s.op = Op::LoopEnd;
        const size_t b = open.back();
        open.pop_back();
        s.local = steps_[b].local;
        s.count_slot = steps_[b].count_slot;
        s.jump = int32_t(b + 1);
        steps_[b].jump = int32_t(steps_.size() + 1);
        break;
      }
      case leaf::InstrKind::Call: {
        s.op = Op::Call;
        s.fn = resolve_leaf_call(in.fn, in.tparams);
        if (!s.fn)
          throw leaf::LeafProgramError("kernel '" + p.kernel + "': leaf program instruction " + std::to_string(i) + ": " +
                                       leaf::fn_name(in.fn) +
                                       " with these template parameters has no precompiled kernel in this ptorun");
        int ns = 0;
        for (const leaf::TParam& t : in.tparams)
          if (t.kind == leaf::TParamKind::Int) s.shape[ns++] = t.v;
        for (const leaf::Operand& o : in.operands) {
          switch (o.kind) {
            case leaf::OperandKind::Buf: {
              const leaf::Buffer& b = p.buffers[size_t(o.index)];
              s.ptrs[s.nptr++] = Ptr{false, int32_t(b.mem), b.addr, int32_t(leaf::elem_bytes(b.dtype)), add_expr(exprs_, o.expr)};
              break;
            }
            case leaf::OperandKind::Gm: s.ptrs[s.nptr++] = Ptr{true, o.index, 0, 1, -1}; break;
            case leaf::OperandKind::Int: s.ints[s.nint++] = add_expr(exprs_, o.expr); break;
            case leaf::OperandKind::Real: s.real = o.real; break;
          }
        }
        break;
      }
      default: continue;  // comments, pointers, sync flags, PMU stamps: nothing to do on the host
    }
    steps_.push_back(s);
  }
}

void LeafKernel::run(const PtoKernelArgs* a) const {
  if (a->num_args < num_args_)
    throw std::runtime_error("kernel '" + name_ + "' reads " + std::to_string(num_args_) + " args but the task passes " +
                             std::to_string(a->num_args));
  int64_t small[64];
  std::vector<int64_t> big;
  int64_t* locals = small;
  if (num_slots_ > 64) {
    big.resize(size_t(num_slots_));
    locals = big.data();
  }
  unsigned char* const* mem = leaf_local_memories();
  const int64_t* args = a->args;
  auto ev = [&](int32_t e) { return e < 0 ? int64_t(0) : leaf::eval_expr(exprs_[size_t(e)], args, locals); };
  const size_t n = steps_.size();
  for (size_t i = 0; i < n;) {
    const Step& s = steps_[i];
    switch (s.op) {
      case Op::Def:
        locals[s.local] = ev(s.expr);
        ++i;
        break;
      case Op::LoopBegin:
        locals[s.count_slot] = ev(s.expr);
        locals[s.local] = 0;
        i = locals[s.count_slot] > 0 ? i + 1 : size_t(s.jump);
        break;
      case Op::LoopEnd:
        i = ++locals[s.local] < locals[s.count_slot] ? size_t(s.jump) : i + 1;
        break;
      case Op::Call: {
        void* ptrs[4];
        int64_t ints[8];
        for (int k = 0; k < s.nptr; ++k) {
          const Ptr& p = s.ptrs[k];
          if (p.gm) ptrs[k] = a->gm[p.index];
          else ptrs[k] = mem[p.index] + p.byte_base + ev(p.expr) * p.elem_bytes;
        }
        for (int k = 0; k < s.nint; ++k) ints[k] = ev(s.ints[k]);
        s.fn(s.shape, ptrs, ints, s.real);
        ++i;
        break;
      }
    }
  }
}

LeafExecutor::LeafExecutor(const std::vector<Kernel>& kernels) {
  kernels_.reserve(kernels.size());
  for (const Kernel& k : kernels) {
    if (k.program.empty())
      throw leaf::LeafProgramError("kernel '" + k.name +
                                   "' has no leaf program (the bundle was compiled by an older ptoc): recompile it, "
                                   "or run its compiled twin with --twin=cce");
    leaf::LeafProgram p = leaf::decode_leaf_program(k.program.data(), k.program.size());
    if (p.kernel != k.name || p.num_args != k.num_args || p.num_gm != k.num_gm)
      throw leaf::LeafProgramError("kernel '" + k.name + "': its leaf program is for kernel '" + p.kernel + "' with " +
                                   std::to_string(p.num_args) + " args and " + std::to_string(p.num_gm) +
                                   " GM slots: the bundle is corrupted, recompile it");
    kernels_.emplace_back(p);
  }
}

}  // namespace ptoc::runtime
