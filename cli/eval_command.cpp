// `ptoc eval SPEC --input NAME=FILE.npy ... --output NAME=FILE.npy ... --dim NAME=V --seed S`:
// the spec's outputs computed by the reference evaluator.
#include <fmt/format.h>

#include <charconv>
#include <iostream>

#include "cli/ptoc_commands.h"
#include "runtime/program/bind_dims.h"
#include "compiler/eval/reference_eval.h"
#include "compiler/frontend/frontend.h"

namespace ptoc::driver {

namespace {

std::string names_of(const Program& p, TensorRole role) {
  std::string s;
  for (const auto& t : p.tensors)
    if (t.role == role) s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "none" : s;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

}  // namespace

int eval(const EvalArgs& a) {
  auto usage = [](const std::string& msg) {
    std::cerr << "ptoc eval: error: " << msg << "\n";
    return kUsageError;
  };
  auto error = [](const std::string& msg) {
    std::cerr << "ptoc eval: error: " << msg << "\n";
    return kSpecError;
  };

  // The switches' syntax first: a typo there should not wait for the spec.
  std::map<std::string, std::string> in_files, out_files, dim_texts;
  try {
    in_files = parse_assignments(a.inputs, "--input");
    out_files = parse_assignments(a.outputs, "--output");
    dim_texts = parse_assignments(a.dims, "--dim");
  } catch (const BindError& e) {
    return usage(e.what());
  }
  std::map<std::string, int64_t> dims;
  for (const auto& [name, text] : dim_texts) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
      return usage(fmt::format("--dim {}={}: the value must be an integer", name, text));
    dims[name] = v;
  }

  FrontendOptions fo;
  fo.sets = a.spec.sets;
  fo.target = a.spec.target;
  std::optional<Program> prog = load_spec_file(a.spec.spec, fo, std::cerr);
  if (!prog) return kSpecError;
  const Program& p = *prog;

  for (const auto& [name, file] : in_files) {
    int t = p.find_tensor(name);
    if (t < 0 || p.tensors[size_t(t)].role != TensorRole::Input)
      return usage(fmt::format("--input {}={}: '{}' is not an input of {} (inputs: {})", name, file, name, p.name,
                               names_of(p, TensorRole::Input)));
  }
  for (const auto& [name, file] : out_files) {
    int t = p.find_tensor(name);
    if (t < 0 || p.tensors[size_t(t)].role != TensorRole::Output)
      return usage(fmt::format("--output {}={}: '{}' is not an output of {} (outputs: {})", name, file, name, p.name,
                               names_of(p, TensorRole::Output)));
  }
  for (const auto& [name, v] : dims)
    if (!p.find_dim(name)) {
      std::string all;
      for (const auto& d : p.dims) all += (all.empty() ? "" : ", ") + d.name;
      return usage(fmt::format("--dim {}={}: the spec has no dim '{}' (dims: {})", name, v, name,
                               all.empty() ? "none" : all));
    }

  try {
    std::map<std::string, TensorData> inputs;
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto& [name, file] : in_files) {
      const TensorDecl& t = p.tensors[size_t(p.find_tensor(name))];
      TensorData d = read_npy_as(file, t.dtype, name);
      shapes[name] = d.shape;
      inputs.emplace(name, std::move(d));
    }
    DimExpr::Env env = bind_dims(p.dims, p.tensors, shapes, dims);
    for (const auto& t : p.tensors) {
      if (t.role != TensorRole::Input || inputs.count(t.name)) continue;
      auto shape = concrete_shape(t, env);
      std::cerr << fmt::format("ptoc eval: note: input {} not given; filled with seeded random values (seed {}, {} {})\n",
                               t.name, a.seed, dtype_name(t.dtype), shape_text(shape));
      inputs.emplace(t.name, random_input(t, shape, a.seed));
    }

    std::map<std::string, TensorData> outputs = evaluate(p, inputs, env);

    for (const auto& [name, file] : out_files) {
      const TensorData& d = outputs.at(name);
      write_npy(file, d);
      std::cout << fmt::format("{}: {} {} -> {}\n", name, dtype_name(d.dtype), shape_text(d.shape), file);
    }
    if (out_files.empty())
      std::cout << fmt::format("evaluated {}; no --output given (outputs: {})\n", p.name,
                               names_of(p, TensorRole::Output));
  } catch (const NpyError& e) {
    return error(e.what());
  } catch (const BindError& e) {
    return error(e.what());
  } catch (const EvalError& e) {
    return error(e.what());
  }
  return kOk;
}

}  // namespace ptoc::driver
