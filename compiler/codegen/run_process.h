// Running an external tool (the host C++ compiler, bisheng) without a shell:
// argv as given, stdout and stderr captured together, exit status returned.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ptoc::codegen {

struct ProcessResult {
  bool started = false;   // false: the program could not be executed (see `output`)
  int exit_code = -1;     // the exit status; 128 + signal when killed by a signal
  std::string output;     // stdout and stderr, interleaved
  bool ok() const { return started && exit_code == 0; }
};

// Runs argv[0] (searched on PATH when it has no '/') and waits for it.
// `cwd` (optional) is the child's working directory.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd = "");

// The full path of an executable `name` on `path_list` (a PATH-style, ':'
// separated list), or nullopt. A name containing '/' is checked as is.
std::optional<std::string> find_executable(const std::string& name, const std::string& path_list);

// Quotes one argument for display in a shell-like command line.
std::string shell_quote(const std::string& arg);
std::string join_command(const std::vector<std::string>& argv);

}  // namespace ptoc::codegen
