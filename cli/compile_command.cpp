// `ptoc SPEC -o BUNDLE [--emit ir|cce,graph,report --emit-dir DIR]`:
// front end -> pass pipeline (compiler/pipeline.cpp) -> host-twin build ->
// bundle. Any error means no bundle: the bundle writer renames a complete
// temporary file into place only at the very end.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "runtime/core/atomic_file.h"
#include "compiler/codegen/device_build.h"
#include "compiler/codegen/graph_emit.h"
#include "compiler/codegen/host_build.h"
#include "compiler/codegen/report_emit.h"
#include "compiler/depfile.h"
#include "runtime/core/resource_limits.h"
#include "cli/ptoc_commands.h"
#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/ascend/device_binaries.h"
#include "runtime/program/bundle.h"

namespace ptoc::driver {

namespace fs = std::filesystem;

namespace {

// Writes one --emit file; false (with a message) when it cannot.
bool emit_file(const fs::path& p, std::string_view text) {
  try {
    if (p.has_parent_path()) fs::create_directories(p.parent_path());
    write_file_atomic(p.string(), text);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "ptoc: error: cannot write " << p.string() << ": " << e.what() << "\n";
    return false;
  }
}

}  // namespace

int compile(const CompileArgs& a) {
  static const std::set<std::string> kinds = {"ir", "cce", "graph", "report"};
  std::set<std::string> emit;
  for (const auto& e : a.emit) {
    if (!kinds.count(e)) {
      std::cerr << "ptoc: error: unknown --emit kind '" << e << "' (expected ir, cce, graph, report)\n";
      return kUsageError;
    }
    emit.insert(e);
  }
  const bool backend_emits = emit.count("cce") || emit.count("graph") || emit.count("report");
  if (a.output.empty() && !(emit.count("ir") && !backend_emits) && a.emit_dir.empty()) {
    std::cerr << "ptoc: error: no output: give -o BUNDLE (or --emit ir, or --emit ... --emit-dir DIR)\n";
    return kUsageError;
  }
  const fs::path emit_dir = !a.emit_dir.empty()                               ? fs::path(a.emit_dir)
                            : fs::path(a.output).has_parent_path()            ? fs::path(a.output).parent_path()
                                                                              : fs::path(".");

  if (!a.output.empty() && fs::is_directory(a.output)) {
    std::cerr << "ptoc: error: cannot write " << a.output << ": it is a directory\n"
              << "hint: -o names the bundle file, e.g. -o " << (fs::path(a.output) / "op.bundle").string() << "\n";
    return kSpecError;
  }
  // Front end.
  std::optional<std::string> text = read_spec_file(a.spec.spec, std::cerr);
  if (!text) return kSpecError;
  DiagEngine diags(a.spec.spec, *text);
  FrontendOptions fo;
  fo.sets = a.spec.sets;
  fo.target = a.spec.target;
  if (!a.dump_after.empty() && a.dump_after != "all") {
    const auto& stages = pipeline_stages();
    if (std::find(stages.begin(), stages.end(), a.dump_after) == stages.end()) {
      std::string all;
      for (const auto& st : stages) all += (all.empty() ? "" : ", ") + st;
      std::cerr << "ptoc: error: --dump-after: unknown stage '" << a.dump_after << "' (stages: " << all << ", or all)\n";
      return kUsageError;
    }
  }
  bool dump_failed = false;
  // --dump-after=all on a huge spec writes one IR text per stage: their total is capped
  // (dump_bytes); a dump past the cap is left out with a warning, the compile goes on.
  int64_t dumped = 0;
  bool dump_capped = false;
  auto dump_stage = [&](const std::string& stage, const std::string& ir) {
    const int64_t cap = limits::get(limits::Id::dump_bytes);
    if (dumped + int64_t(ir.size()) > cap) {
      if (!dump_capped)
        std::cerr << "ptoc: warning: --dump-after: the dump after '" << stage << "' (" << ir.size()
                  << " bytes) would pass the dump_bytes limit of " << cap << " bytes (" << dumped
                  << " written); it and later dumps are left out: name one stage, or "
                  << limits::raise_hint(limits::Id::dump_bytes) << "\n";
      dump_capped = true;
      return true;
    }
    dumped += int64_t(ir.size());
    return emit_file(emit_dir / ("dump-after-" + stage + ".txt"), ir);
  };
  PassTimer front_timer;
  std::optional<Program> prog = front_timer.run("front_end", [&] { return parse_spec(diags, fo); });
  if (prog && (a.dump_after == "front_end" || a.dump_after == "all"))
    if (!dump_stage("front_end", print_ir(*prog))) return kEnvError;
  if (!prog || diags.has_errors()) {
    diags.print(std::cerr);
    return kSpecError;
  }
  if (emit.count("ir")) {
    std::string ir = print_ir(*prog);
    if (!a.emit_dir.empty()) {
      if (!emit_file(emit_dir / "ir.txt", ir)) return kEnvError;
    } else {
      std::cout << ir;
    }
    if (a.output.empty() && !backend_emits) {
      diags.print(std::cerr);
      return kOk;
    }
  }

  const Platform* plat = find_platform(prog->target);
  if (!plat) {
    diags.error(SrcLoc{}, "unknown target '" + prog->target + "'", "known targets: " + platform_names());
    diags.print(std::cerr);
    return kSpecError;
  }

  // Passes and CCE.
  PipelineOptions po;
  po.loop_merge = !a.spec.no_loop_merge;
  po.families = !a.spec.no_families;
  po.program_json_text = emit.count("graph") > 0;  // the bundle needs only its BLOCK_GRAPH part
  if (!a.dump_after.empty()) {
    po.dump_after = a.dump_after;
    po.dump = [&](const std::string& stage, const std::string& ir) {
      if (!dump_stage(stage, ir)) dump_failed = true;
    };
  }
  std::optional<PipelineResult> res = run_pipeline(std::move(*prog), *plat, diags, po);
  // The result is large (GEMM 6144^3: ~200 MiB of tile ops, plans and tasks in ~2 M blocks) and
  // freeing it block by block was a fifth of ptoc's CPU; ptoc exits right after, so it is kept,
  // reachable (no leak to LeakSanitizer), until the next compile in this process or the exit.
  struct KeepResult {
    std::optional<PipelineResult>& r;
    ~KeepResult() {
      static PipelineResult* kept = nullptr;
      delete kept;
      kept = r ? new PipelineResult(std::move(*r)) : nullptr;
    }
  } keep_result{res};
  diags.print(std::cerr);
  if (dump_failed) return kEnvError;
  if (!res) return kSpecError;
  res->timings.insert(res->timings.begin(), front_timer.timings().begin(), front_timer.timings().end());
  CompiledProgram& cp = res->compiled;
  cp.spec_source = *text;
  cp.set_overrides = a.spec.sets;

  // Emitted views first: they help most when something later fails.
  if (emit.count("cce"))
    for (const Kernel& k : cp.kernels)
      if (!emit_file(emit_dir / "cce" / (k.name + ".cce"), k.source)) return kEnvError;
  // program.json (made by the pipeline) travels in the bundle too: ptorun copies it into every swimlane run folder.
  if (emit.count("graph")) {
    if (!emit_file(emit_dir / "program.json", cp.graph_json)) return kEnvError;
    if (!emit_file(emit_dir / "graph.dot", emit_graph_dot(*res))) return kEnvError;
  }
  if (a.print_device_commands) {
    const codegen::CannToolkit cann = codegen::find_cann_toolkit(a.cann);
    codegen::DeviceBuildOptions dopt;
    dopt.source_dir = (emit_dir / "cce").string();
    dopt.output_dir = (emit_dir / "device").string();
    std::cout << codegen::format_device_commands(
        codegen::device_compile_commands(cp.kernels, *plat, cann.found ? cann.bisheng : "bisheng", dopt));
    if (!cann.found) std::cerr << "ptoc: note: " << cann.missing << "; the commands above were not run\n";
  }
  // Host twin, device binaries, the bundle file (compiler/pipeline.cpp).
  if (!a.output.empty()) {
    BundleStageOptions bo;
    bo.output = a.output;
    bo.jobs = a.jobs;
    bo.cann = a.cann;
    bo.host_twin = a.host_twin == "cce";
    if (std::optional<StageError> err = write_bundle_stages(*res, *plat, bo)) {
      std::cerr << "ptoc: error: " << err->message << "\n";
      return err->code;
    }
  }
  if (emit.count("report") && !emit_file(emit_dir / "report.txt", emit_report(*res, *plat, true))) return kEnvError;
  if (a.time_passes) std::cerr << format_pass_times(res->timings);

  if (!a.depfile.empty()) {
    // The bundle depends on the spec, on ptoc (its platform tables) and on the tile library its host twin
    // compiles against.
    std::vector<std::string> deps = {a.spec.spec};
    if (auto self = running_executable(); !self.empty()) deps.push_back(self);
    for (const auto& h : codegen::kernels_header_files(codegen::kernels_include_dir())) deps.push_back(h);
    if (!emit_file(a.depfile, format_depfile(a.output, deps))) return kEnvError;
  }
  return kOk;
}

}  // namespace ptoc::driver
