// The spec front end: YAML + statement strings -> checked, elaborated Program.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/diag.h"
#include "compiler/ir.h"

namespace ptoc {

struct FrontendOptions {
  std::vector<std::string> sets;  // "group.key=value" overrides (`--set`), applied over the file's options
  std::string target;             // overrides the spec's target when not empty
};

// Parses, checks and elaborates the spec whose text `diags` holds (diags.file() names it).
// Every error goes to `diags` (up to 20); returns nullopt when any error was reported.
std::optional<Program> parse_spec(DiagEngine& diags, const FrontendOptions& opts);

// Reads `path` and parses it; prints diagnostics (errors and warnings) to `err`.
// A file that cannot be read is reported as "<path>: error: cannot read file: <reason>".
std::optional<Program> load_spec_file(const std::string& path, const FrontendOptions& opts, std::ostream& err);
// The text of a spec file, refused (with the reason on `err`) when it is a
// directory or a device, or larger than the spec_bytes limit.
std::optional<std::string> read_spec_file(const std::string& path, std::ostream& err);
// Same, for text already in memory (ptorun --check rebuilds the graph from the bundle's copy).
std::optional<Program> load_spec_text(const std::string& file_name, const std::string& text,
                                      const FrontendOptions& opts, std::ostream& err);

// One line: "softmax: ok: 9 ops, 1 loop, 2 root-function templates, dims: B=dynamic, H=1024".
// Ops exclude TensorRef (reads of GM tensors); loops count dynamic loops (static ones are unrolled).
std::string summarize(const Program& p);

}  // namespace ptoc
