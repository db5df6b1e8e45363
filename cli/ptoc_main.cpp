// ptoc: the operator compiler. Argument parsing only; the commands are in cli/ptoc_commands.h.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/ptoc_commands.h"
#include "runtime/core/interrupt.h"
#include "runtime/core/resource_limits.h"
#include "runtime/program/knobs.h"

namespace {

void add_spec_options(CLI::App& app, ptoc::driver::SpecArgs& s, bool positional_required) {
  auto* opt = app.add_option("spec", s.spec, "operator spec (YAML)");
  if (positional_required) opt->required();
  app.add_option("--set", s.sets, "override a knob, e.g. --set runtime.stitch_function_max_num=64 (--list-knobs)")
      ->type_name("GROUP.KEY=VALUE")->allow_extra_args(false);
  app.add_option("--target", s.target, "ascend910b1 (default), ascend910_9391, ascend950pr, ascend950dt");
  app.add_flag("--no-loop-merge", s.no_loop_merge, "do not merge adjacent independent loops with equal bounds");
  // Debug: the explicit tiling path for every root (the family path must give the same bytes).
  app.add_flag("--no-families", s.no_families, "tile every member of a tile family explicitly")->group("");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ptoc::driver;
  CLI::App app{"ptoc: ahead-of-time compiler for fused Ascend NPU operators", "ptoc"};
  app.set_version_flag("--version", std::string("ptoc ") + PTOC_VERSION + " (bundle format " +
                                        std::to_string(PTOC_BUNDLE_FORMAT_VERSION) + ")");
  app.footer(
      "Examples:\n"
      "  ptoc specs/rmsnorm.yaml -o rmsnorm.bundle        compile a spec into a bundle\n"
      "  ptoc check specs/softmax.yaml                    check a spec, print a summary\n"
      "  ptoc specs/softmax.yaml --emit ir                print the tensor graph\n"
      "  ptoc specs/gemm.yaml -o g.bundle --emit cce,graph,report --emit-dir out/\n"
      "  ptoc eval specs/softmax.yaml --input x=x.npy --output y=y.npy   reference evaluator\n"
      "Exit status: 0 ok, 1 spec error, 2 usage error, 3 environment error, 4 internal error,\n"
      "130/143 interrupted (SIGINT/SIGTERM).");

  CompileArgs compile_args;
  add_spec_options(app, compile_args.spec, false);
  app.add_option("-o,--output", compile_args.output, "bundle to write");
  app.add_option("--emit", compile_args.emit, "also write: ir (to stdout without --emit-dir), cce, graph, report")
      ->delimiter(',')->allow_extra_args(false);
  app.add_option("--emit-dir", compile_args.emit_dir, "folder for --emit files");
  app.add_option("-j,--jobs", compile_args.jobs, "parallel host-twin compiles (default: all cores)");
  app.add_option("--host-twin", compile_args.host_twin,
                 "none (default): ptorun runs the bundle's leaf programs, no C++ compiler is invoked; "
                 "cce: also compile the emitted CCE into the host twin (g++) that ptorun --twin=cce runs")
      ->check(CLI::IsMember({"none", "cce"}));
  app.add_flag("--time-passes", compile_args.time_passes, "print the time spent in each stage");
  app.add_option("--dump-after", compile_args.dump_after,
                 "write the IR after STAGE (or all) to DIR/dump-after-STAGE.txt (the --emit dir)")
      ->type_name("STAGE");
  app.add_flag("--print-device-commands", compile_args.print_device_commands,
               "print the bisheng command lines for the device kernels");
  app.add_option("--cann", compile_args.cann, "CANN toolkit folder (default: $ASCEND_HOME_PATH)");
  bool list_knobs = false;
  app.add_flag("--list-knobs", list_knobs, "print every knob: type, values, default, whether ptorun --set may change it");
  bool md = false;
  app.add_flag("--MD", md, "write a Make depfile (also spelled -MD; with -MF FILE)");
  app.add_option("--MF", compile_args.depfile, "depfile path");

  std::vector<std::string> limit_items;
  app.add_option("--limit", limit_items, "raise or lower a resource limit (see specs/README.md, Limits), e.g. --limit spec_bytes=64M")
      ->type_name("NAME=VALUE")->allow_extra_args(false);

  auto* check_cmd = app.add_subcommand("check", "check a spec and print a one-line summary");
  SpecArgs check_args;
  add_spec_options(*check_cmd, check_args, true);
  check_cmd->add_option("--limit", limit_items, "as ptoc --limit")->type_name("NAME=VALUE")->allow_extra_args(false);

  auto* eval_cmd = app.add_subcommand("eval", "compute a spec's outputs with the reference evaluator");
  EvalArgs eval_args;
  add_spec_options(*eval_cmd, eval_args.spec, true);
  eval_cmd->add_option("--limit", limit_items, "as ptoc --limit")->type_name("NAME=VALUE")->allow_extra_args(false);
  eval_cmd->add_option("--input", eval_args.inputs, "input tensor from a .npy file")->type_name("NAME=FILE.npy")->allow_extra_args(false);
  eval_cmd->add_option("--output", eval_args.outputs, "write an output tensor")->type_name("NAME=FILE.npy")->allow_extra_args(false);
  eval_cmd->add_option("--dim", eval_args.dims, "bind a dynamic dim")->type_name("NAME=VALUE")->allow_extra_args(false);
  eval_cmd->add_option("--seed", eval_args.seed, "seed for inputs not given (default 0)");

  // Make's and compilers' spelling -MD / -MF (single dash, two letters) maps onto --MD / --MF.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string a = argv[i];
    args.push_back(a == "-MD" ? "--MD" : a == "-MF" ? "--MF" : a);
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    app.exit(e);
    return kUsageError;
  }
  if (std::string err = ptoc::limits::apply_all(limit_items); !err.empty()) {
    std::cerr << "ptoc: error: " << err << "\n";
    return kUsageError;
  }
  ptoc::interrupt::install("ptoc");
  try {
    if (*check_cmd) return check(check_args);
    if (*eval_cmd) return eval(eval_args);
    if (list_knobs) {
      std::cout << ptoc::knob_table_markdown();
      return kOk;
    }
    if (compile_args.spec.spec.empty()) {
      std::cerr << "ptoc: error: no spec given\n" << app.help();
      return kUsageError;
    }
    if (!md && !compile_args.depfile.empty()) {
      std::cerr << "ptoc: error: --MF needs --MD\n";
      return kUsageError;
    }
    if (md && compile_args.depfile.empty()) compile_args.depfile = compile_args.output + ".d";
    return compile(compile_args);
  } catch (const std::exception& e) {
    // Last line of defence: an internal error is reported, never a stack trace.
    std::cerr << "ptoc: internal error: " << e.what() << "\n";
    return ptoc::kExitInternal;
  }
}
