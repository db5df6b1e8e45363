// The cost of the task preflight (runtime/task_preflight.h) on one bundle: the median of RUNS
// walks, with the tasks, GM windows and local tiles it checked.
//   preflight_bench BUNDLE RUNS [NAME=VALUE ...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/control_flow.h"
#include "runtime/program/bind_dims.h"
#include "runtime/program/bundle.h"
#include "runtime/task_preflight.h"

using namespace ptoc;
using namespace ptoc::runtime;

namespace {
// The spec tensors' declarations, as the session binds dims from them (runtime/session.cpp).
std::vector<TensorDecl> decls_of(const CompiledProgram& p) {
  std::vector<TensorDecl> v;
  for (const GmTensor& t : p.tensors) {
    if (t.role == GmTensor::Role::Temp) continue;
    TensorDecl d;
    d.name = t.name;
    d.role = t.role == GmTensor::Role::Input ? TensorRole::Input
             : t.role == GmTensor::Role::Output ? TensorRole::Output : TensorRole::Workspace;
    d.dtype = t.dtype;
    d.shape = t.shape;
    v.push_back(std::move(d));
  }
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: preflight_bench BUNDLE RUNS [NAME=VALUE ...]\n");
    return 2;
  }
  LoadedBundle b = read_bundle(argv[1]);
  const CompiledProgram& p = b.program;
  std::map<std::string, int64_t> dims;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    dims[a.substr(0, a.find('='))] = std::stoll(a.substr(a.find('=') + 1));
  }
  const DimExpr::Env env = bind_dims(p.dims, decls_of(p), {}, dims);
  ControlFlowOptions cfo = ControlFlowOptions::from(p.options);
  cfo.host_values.assign(p.tensors.size(), nullptr);
  std::vector<double> secs;
  PreflightStats st;
  for (int r = 0; r < std::max(1, std::atoi(argv[2])); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const std::string bad = preflight_tasks(p, env, cfo, &st);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!bad.empty()) {
      std::fprintf(stderr, "%s\n", bad.c_str());
      return 1;
    }
  }
  std::sort(secs.begin(), secs.end());
  // The control-flow walk alone (what the preflight costs beyond the dry kernel runs).
  std::vector<double> walk;
  for (int r = 0; r < std::max(1, std::atoi(argv[2])); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    ControlFlow cf(p, env, cfo);
    DeviceTask dt;
    while (cf.next(dt)) cf.release(dt.seq);
    walk.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(walk.begin(), walk.end());
  std::printf("control-flow walk alone: median %.4f s\n", walk[walk.size() / 2]);
  std::printf("preflight: %llu tasks, %llu GM windows, %llu local tiles: median %.4f s of %zu runs (%.0f ns/task)\n",
              (unsigned long long)st.tasks, (unsigned long long)st.gm_windows, (unsigned long long)st.local_tiles,
              secs[secs.size() / 2], secs.size(), 1e9 * secs[secs.size() / 2] / double(std::max<uint64_t>(st.tasks, 1)));
  return 0;
}
