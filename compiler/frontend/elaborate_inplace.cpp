// In-place outputs: `y: {dtype, shape, inplace: x}` declares that the output y updates the input x in place
// (PyPTO passes one buffer as both, as its KV-cache updates do). The two names are one GM tensor: the body's
// reads of x and writes to either name go to y's tensor, so the compiler orders them as accesses of one
// tensor, and the runtime gives y x's memory (runtime/control_flow.cpp, layout_gm). specs/README.md,
// "In-place outputs".
#include <fmt/format.h>

#include "compiler/frontend/dim_simplify.h"
#include "compiler/frontend/elaborator.h"
#include "compiler/frontend/shape_rules.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

namespace {

std::string shape_text(const std::vector<DimExpr>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + s[i].str();
  return t + "]";
}

}  // namespace

void Elaborator::resolve_inplace() {
  for (const auto& ta : ast_.tensors) {
    if (ta.decl.inplace.empty() || ta.decl.name.empty() || ta.decl.name[0] == '!') continue;
    const int out = p_.find_tensor(ta.decl.name);
    if (out < 0) continue;  // its declaration was reported
    const std::string& in_name = ta.decl.inplace;
    const int len = int(in_name.size());
    const int in = p_.find_tensor(in_name);
    const TensorDecl& o = p_.tensors[size_t(out)];
    if (in < 0) {
      if (broken_tensors_.count(in_name)) continue;
      std::vector<std::string> inputs;
      for (const auto& d : p_.tensors)
        if (d.role == TensorRole::Input) inputs.push_back(d.name);
      std::string hint = did_you_mean(in_name, inputs);
      r_.error(ta.inplace_loc, "output '" + o.name + "': inplace: '" + in_name + "' is not an input",
               hint.empty() ? "inplace: names the input tensor this output updates in place" : hint, len);
      continue;
    }
    const TensorDecl& i = p_.tensors[size_t(in)];
    if (i.role != TensorRole::Input) {
      r_.error(ta.inplace_loc,
               "output '" + o.name + "': inplace: '" + in_name + "' is " +
                   (i.role == TensorRole::Output ? "an output" : "a tensors: workspace") + ", not an input",
               "inplace: names the input tensor this output updates in place", len);
      continue;
    }
    if (i.dtype != o.dtype) {
      r_.error(ta.inplace_loc,
               fmt::format("output '{}' ({}) cannot update input '{}' ({}) in place: their dtypes differ", o.name,
                           dtype_name(o.dtype), in_name, dtype_name(i.dtype)),
               fmt::format("one buffer has one dtype: declare '{}' with dtype: {}", o.name, dtype_name(i.dtype)), len);
      continue;
    }
    bool same = i.shape.size() == o.shape.size();
    for (size_t k = 0; same && k < i.shape.size(); ++k)
      same = simplify(i.shape[k].substitute(static_dims_)).same(simplify(o.shape[k].substitute(static_dims_)));
    if (!same) {
      r_.error(ta.inplace_loc,
               fmt::format("output '{}' {} cannot update input '{}' {} in place: their shapes differ", o.name,
                           shape_text(o.shape), in_name, shape_text(i.shape)),
               fmt::format("one buffer has one shape: declare '{}' with shape {}", o.name, shape_text(i.shape)), len);
      continue;
    }
    if (i.format == Format::NZ) {
      r_.error(ta.inplace_loc,
               "output '" + o.name + "' cannot update input '" + in_name + "' in place: the input has format NZ",
               "outputs are ND; declare the input ND", len);
      continue;
    }
    if (auto it = inplace_of_.find(in); it != inplace_of_.end()) {
      r_.error(ta.inplace_loc,
               "input '" + in_name + "' is already updated in place by output '" +
                   p_.tensors[size_t(it->second)].name + "'",
               "one input is one buffer: at most one output updates it in place", len);
      continue;
    }
    inplace_of_[in] = out;
    p_.tensors[size_t(out)].inplace = in_name;
    p_.tensors[size_t(out)].shape = i.shape;  // the same expressions, as the bundle verifier compares them
  }
}

int Elaborator::inplace_target(int tensor) const {
  auto it = inplace_of_.find(tensor);
  return it == inplace_of_.end() ? tensor : it->second;
}

bool Elaborator::check_not_inplace_values(int tensor, int off, int len) {
  auto it = inplace_of_.find(tensor);
  if (it == inplace_of_.end()) return true;
  const std::string& in = p_.tensors[size_t(tensor)].name;
  err(off, len,
      "'" + in + "' is updated in place by output '" + p_.tensors[size_t(it->second)].name +
          "'; the control flow cannot read run-time values from a tensor the kernels write",
      "pass the values in an input of their own");
  return false;
}

}  // namespace ptoc::fe
