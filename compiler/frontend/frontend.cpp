#include "compiler/frontend/frontend.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compiler/frontend/elaborate.h"
#include "compiler/frontend/options.h"
#include "compiler/frontend/reporter.h"
#include "compiler/frontend/spec_reader.h"

namespace ptoc {

std::optional<Program> parse_spec(DiagEngine& diags, const FrontendOptions& opts) {
  fe::Reporter r(diags);
  try {
    auto ast = fe::read_spec(diags.source(), r);
    if (!ast) {
      r.flush();
      return std::nullopt;
    }
    // Command-line knobs override the file's options, with the same checks.
    for (const auto& item : opts.sets) fe::apply_set(item, ast->options, r);
    auto prog = fe::elaborate(*ast, diags.file(), opts.target, r);
    r.flush();  // diagnostics in file order
    if (diags.has_errors()) return std::nullopt;
    return prog;
  } catch (const std::exception& e) {
    r.flush();
    // A front-end bug must still read as a diagnostic, never as a crash.
    diags.error({}, std::string("internal error in the front end: ") + e.what());
    return std::nullopt;
  }
}

std::optional<Program> load_spec_text(const std::string& file_name, const std::string& text,
                                      const FrontendOptions& opts, std::ostream& err) {
  DiagEngine diags(file_name, text);
  auto p = parse_spec(diags, opts);
  diags.print(err);
  return p;
}

std::optional<Program> load_spec_file(const std::string& path, const FrontendOptions& opts, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << path << ": error: cannot read file: " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_spec_text(path, ss.str(), opts, err);
}

}  // namespace ptoc

namespace ptoc {

namespace {
int count_loops(const std::vector<LoopNode>& nodes) {
  int n = 0;
  for (const auto& x : nodes) {
    if (x.kind != LoopNode::Kind::Loop) continue;
    ++n;
    // Gears share one source loop; count nested loops once (from the first gear).
    if (!x.gears.empty()) n += count_loops(x.gears.front().body);
  }
  return n;
}
}  // namespace

std::string summarize(const Program& p) {
  int ops = 0;
  for (const auto& o : p.ops) ops += o.kind == OpKind::TensorRef ? 0 : 1;
  int loops = count_loops(p.body);
  std::ostringstream os;
  os << p.name << ": ok: " << ops << (ops == 1 ? " op, " : " ops, ") << loops << (loops == 1 ? " loop, " : " loops, ")
     << p.roots.size() << (p.roots.size() == 1 ? " root-function template" : " root-function templates");
  if (!p.dims.empty()) {
    os << ", dims: ";
    for (size_t i = 0; i < p.dims.size(); ++i) {
      const auto& d = p.dims[i];
      os << (i ? ", " : "") << d.name << "=";
      if (d.dynamic) os << "dynamic";
      else os << d.value;
    }
  }
  return os.str();
}

}  // namespace ptoc
