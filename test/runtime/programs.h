// Hand-made CompiledPrograms for the runtime tests: small, fully understood
// task graphs, so the walk, the stitch and the dependencies can be checked by hand.
#pragma once
#include "runtime/program/compiled_program.h"

namespace ptoc::test {

inline DimExpr S(const char* s) { return DimExpr::sym(s); }

inline Region region(int tensor, std::vector<DimExpr> off, std::vector<DimExpr> ext) {
  Region r;
  r.tensor = tensor;
  r.offset = std::move(off);
  r.extent = std::move(ext);
  return r;
}

// Tensors: 0 x [N,64] input, 1 y [N,64] input, 2 ws [N,64] workspace, 3 out [N,64] output,
// 4 t [16*k, 64] temp of roots 0 and 1 (one per gear; each owns its own copy), 5 t1 temp of root 1.
//
// loop A: i in [0, N//16), gears 4 and 1 (factor k):      root 0 (k=4) / root 1 (k=1)
//   task 0 (leaf 0, kernel add_rows):   t = x[16i : 16i+16k] + y[...]
//   task 1 (leaf 1, kernel scale_rows): ws[16i : 16i+16k] = 2 * t
// loop B: j in [0, N//16):                                  root 2
//   task 0 (leaf 2, kernel flip_add):   out[16j : 16j+16] = ws[16(nb-1-j) : +16] + 1
// So B_j reads what the A instance covering block nb-1-j wrote.
inline CompiledProgram flip_program() {
  CompiledProgram p;
  p.name = "flip";
  p.target = "ascend910b1";
  p.doc = "runtime test program";
  p.spec_file = "flip.yaml";
  p.spec_source = "ptoc: 1\nname: flip\n";
  p.set_overrides = {"runtime.stitch_function_max_num=4"};
  DimDecl n;
  n.name = "N";
  n.dynamic = true;
  n.max = 1 << 20;
  n.divisible_by = 16;
  n.loc = {3, 5};
  DimDecl c;
  c.name = "C";
  c.value = 64;
  p.dims = {n, c};
  auto tensor = [&](const char* name, GmTensor::Role role, std::vector<DimExpr> shape, int root = -1) {
    GmTensor t;
    t.name = name;
    t.role = role;
    t.dtype = DType::fp32;
    t.shape = std::move(shape);
    t.root = root;
    p.tensors.push_back(t);
  };
  tensor("x", GmTensor::Role::Input, {S("N"), S("C")});
  tensor("y", GmTensor::Role::Input, {S("N"), S("C")});
  tensor("ws", GmTensor::Role::Workspace, {S("N"), S("C")});
  tensor("out", GmTensor::Role::Output, {S("N"), S("C")});
  tensor("t", GmTensor::Role::Temp, {DimExpr(16) * S("k"), S("C")}, 0);
  tensor("t1", GmTensor::Role::Temp, {DimExpr(16) * S("k"), S("C")}, 1);

  for (int i = 0; i < 3; ++i) {
    LeafFunction l;
    l.id = i;
    l.hash = 0x1000 + uint64_t(i);
    l.core = CoreType::AIV;
    l.kernel = i;
    l.pipe_cycles = {100, 0, 0, 0, 50 + i, 100, 0};
    l.est_cycles = 260 + i;
    l.num_ops = 3;
    l.ub_bytes = 8192;
    l.merge_info = i == 0 ? "vecNBuffer hashOrder: func0_0, subGraphCount: 1" : "";
    p.leaves.push_back(l);
  }
  const char* names[] = {"add_rows", "scale_rows", "flip_add"};
  for (int i = 0; i < 3; ++i) {
    Kernel k;
    k.name = names[i];
    k.core = CoreType::AIV;
    k.source = std::string("// kernel ") + names[i] + "\n";
    k.source_hash = 0xabc0 + uint64_t(i);
    k.num_args = 3;
    k.num_gm = i == 2 ? 2 : 3;
    p.kernels.push_back(k);
  }

  DimExpr i = S("i"), k = S("k"), j = S("j"), N = S("N"), C = S("C");
  for (int g = 0; g < 2; ++g) {
    int temp = 4 + g;
    RootFunction r;
    r.index = g;
    r.name = g == 0 ? "LOOP_A_k4" : "LOOP_A_k1";
    r.hash = 0x5000 + uint64_t(g);
    r.loop_vars = {"i"};
    r.factor = g == 0 ? 4 : 1;
    r.temps = {temp};
    Task t0;
    t0.leaf = 0;
    t0.gm = {0, 1, temp};
    t0.args = {i * 16, k * 16, C};
    t0.reads = {region(0, {i * 16, 0}, {k * 16, C}), region(1, {i * 16, 0}, {k * 16, C})};
    t0.writes = {region(temp, {0, 0}, {k * 16, C})};
    t0.succ = {1};
    t0.label = "ADD";
    t0.op_magic = 10;
    Task t1;
    t1.leaf = 1;
    t1.gm = {temp, 2, 2};
    t1.args = {i * 16, k * 16, C};
    t1.reads = {region(temp, {0, 0}, {k * 16, C})};
    t1.writes = {region(2, {i * 16, 0}, {k * 16, C})};
    t1.pred_count = 1;
    t1.hash_order = 1;
    t1.op_magic = 11;
    r.tasks = {t0, t1};
    p.roots.push_back(r);
  }
  {
    RootFunction r;
    r.index = 2;
    r.name = "LOOP_B";
    r.hash = 0x5002;
    r.loop_vars = {"j"};
    Task t;
    t.leaf = 2;
    t.gm = {2, 3};
    DimExpr src = (floordiv(N, 16) - 1 - j) * 16;
    t.args = {src, j * 16, C};
    t.reads = {region(2, {src, 0}, {16, C})};
    t.writes = {region(3, {j * 16, 0}, {16, C})};
    t.op_magic = 20;
    r.tasks = {t};
    p.roots.push_back(r);
  }
  LoopNode a;
  a.kind = LoopNode::Kind::Loop;
  a.var = "i";
  a.name = "LOOP_A";
  a.factor_var = "k";
  a.begin = 0;
  a.end = floordiv(N, 16);
  a.step = 1;
  a.loc = {7, 3};
  Gear g4;
  g4.factor = 4;
  LoopNode call0;
  call0.root = 0;
  g4.body = {call0};
  Gear g1;
  g1.factor = 1;
  LoopNode call1;
  call1.root = 1;
  g1.body = {call1};
  a.gears = {g4, g1};
  LoopNode b;
  b.kind = LoopNode::Kind::Loop;
  b.var = "j";
  b.name = "LOOP_B";
  b.begin = 0;
  b.end = floordiv(N, 16);
  Gear gb;
  LoopNode call2;
  call2.root = 2;
  gb.body = {call2};
  b.gears = {gb};
  p.control = {a, b};
  return p;
}

}  // namespace ptoc::test
