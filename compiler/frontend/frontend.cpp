#include "compiler/frontend/frontend.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "runtime/core/resource_limits.h"

#include "compiler/frontend/elaborate.h"
#include "compiler/frontend/options.h"
#include "compiler/frontend/reporter.h"
#include "compiler/frontend/spec_reader.h"
#include "compiler/frontend/static_tiles.h"
#include "compiler/frontend/tile_budget.h"

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
    // ... also over set_pass_options(...) statements the elaboration applied (elaborate_config_calls.cpp)
    if (prog) for (const auto& item : opts.sets) fe::apply_set(item, prog->options, r);
    if (prog) fe::check_tile_budget(*prog, r);
    if (prog) fe::check_static_tile_shapes(*prog, r);
    r.flush();  // diagnostics in file order
    if (diags.has_errors()) return std::nullopt;
    return prog;
  } catch (const DimEvalError& e) {
    // Dim arithmetic outside a statement (declarations, options): still an error of the spec.
    r.flush();
    diags.error({}, e.what(), "dims and the products of shapes must stay below 2^63");
    return std::nullopt;
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

std::optional<std::string> read_spec_file(const std::string& path, std::ostream& err) {
  const int64_t cap = limits::get(limits::Id::spec_bytes);
  auto fail = [&](const std::string& why, const std::string& hint = {}) -> std::optional<std::string> {
    err << path << ": error: " << why << "\n";
    if (!hint.empty()) err << "hint: " << hint << "\n";
    return std::nullopt;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fail(std::string("cannot read file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail("is a directory, not a spec file", "give the path of a .yaml spec");
  // A device has no size to check and may never end (/dev/zero): refused.
  // Pipes (`ptoc <(gen_spec)`) are read as a stream, up to the same cap.
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    return fail("is a device, not a spec file", "give the path of a .yaml spec");
  if (S_ISREG(st.st_mode) && st.st_size > cap)
    return fail("the file has " + std::to_string(st.st_size) + " bytes, more than the spec size limit of " +
                    std::to_string(cap),
                limits::raise_hint(limits::Id::spec_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(std::string("cannot read file: ") + std::strerror(errno));
  std::string text;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    text.append(buf, size_t(in.gcount()));
    if (int64_t(text.size()) > cap)
      return fail("more than the spec size limit of " + std::to_string(cap) + " bytes",
                  limits::raise_hint(limits::Id::spec_bytes));
  }
  if (in.bad()) return fail(std::string("read error: ") + std::strerror(errno));
  return text;
}

std::optional<Program> load_spec_file(const std::string& path, const FrontendOptions& opts, std::ostream& err) {
  auto text = read_spec_file(path, err);
  if (!text) return std::nullopt;
  return load_spec_text(path, *text, opts, err);
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
