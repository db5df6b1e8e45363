// The program both hardening unit tests start from: inputs x and outputs y of [N, 16] fp32 (N dynamic,
// at most 2^20) and one leaf function of kernel 0; each test adds its kernel and roots.
#pragma once

#include "runtime/program/compiled_program.h"

namespace ptoc::test {

inline CompiledProgram xy_program(const char* name) {
  CompiledProgram p;
  p.name = name;
  p.target = "ascend910b1";
  DimDecl n;
  n.name = "N";
  n.dynamic = true;
  n.max = 1 << 20;
  p.dims = {n};
  for (const char* tensor : {"x", "y"}) {
    GmTensor t;
    t.name = tensor;
    t.role = tensor[0] == 'x' ? GmTensor::Role::Input : GmTensor::Role::Output;
    t.shape = {DimExpr::sym("N"), DimExpr(16)};
    p.tensors.push_back(t);
  }
  LeafFunction l;
  l.id = 0;
  l.kernel = 0;
  p.leaves = {l};
  return p;
}

}  // namespace ptoc::test
