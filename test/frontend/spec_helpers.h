// Helpers for front-end tests: run the front end on inline YAML and find
// diagnostics by position and wording.
#pragma once
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/ptoc_commands.h"
#include "compiler/frontend/frontend.h"
#include "compiler/ir.h"

namespace fe_test {

struct Result {
  std::optional<ptoc::Program> prog;
  std::vector<ptoc::Diagnostic> diags;
  std::string rendered;
  int errors = 0;
};

inline Result run(const std::string& yaml, ptoc::FrontendOptions opts = {}) {
  ptoc::DiagEngine d("spec.yaml", yaml);
  Result r;
  r.prog = ptoc::parse_spec(d, opts);
  r.diags = d.diagnostics();
  std::ostringstream os;
  d.print(os);
  r.rendered = os.str();
  r.errors = d.error_count();
  return r;
}

// The program of a spec that must elaborate without errors.
inline ptoc::Program ok(const std::string& yaml, ptoc::FrontendOptions opts = {}) {
  auto r = run(yaml, opts);
  INFO(r.rendered);
  REQUIRE(r.prog.has_value());
  REQUIRE(r.errors == 0);
  return std::move(*r.prog);
}

// The op kinds of the program, in order, as their spec names, without tensor references and assembles:
// what a composite op was written as.
// The loop nest as text: a root is R, a loop `name(child child ...)`, gears separated by '|'.
inline std::string outline(const std::vector<ptoc::LoopNode>& nodes) {
  std::string s;
  for (const auto& n : nodes) {
    if (!s.empty()) s += " ";
    if (n.kind == ptoc::LoopNode::Kind::Root) {
      s += "R";
      continue;
    }
    s += n.name + "(";
    for (size_t g = 0; g < n.gears.size(); ++g) s += (g ? "|" : "") + outline(n.gears[g].body);
    s += ")";
  }
  return s;
}

// The tensor graph without source positions: two spellings of one program print the same.
inline std::string graph(const std::string& yaml) {
  auto r = run(yaml);
  INFO(r.rendered);
  REQUIRE(r.prog);
  REQUIRE(r.errors == 0);
  std::string ir = ptoc::print_ir(*r.prog), out;
  for (size_t i = 0; i < ir.size(); ++i) {
    if (ir[i] == '@') {
      while (i + 1 < ir.size() && (std::isdigit(static_cast<unsigned char>(ir[i + 1])) || ir[i + 1] == ':')) ++i;
      continue;
    }
    out += ir[i];
  }
  return out;
}

inline std::vector<std::string> kinds(const ptoc::Program& p) {
  std::vector<std::string> v;
  for (const auto& op : p.ops)
    if (op.kind != ptoc::OpKind::TensorRef && op.kind != ptoc::OpKind::Assemble)
      v.emplace_back(ptoc::op_kind_name(op.kind));
  return v;
}

// Position of `needle` in `text`, where an '@' inside the needle marks the
// expected column (default: the needle's first character).
// The vec_tile of every op of one kind, in program order (each must have one).
inline std::vector<std::vector<int64_t>> op_tiles(const ptoc::Program& p, ptoc::OpKind kind) {
  std::vector<std::vector<int64_t>> v;
  for (const auto& op : p.ops)
    if (op.kind == kind) {
      REQUIRE(op.vec_tile.has_value());
      v.push_back(op.vec_tile->shape);
    }
  return v;
}
inline std::vector<std::vector<int64_t>> exp_tiles(const ptoc::Program& p) { return op_tiles(p, ptoc::OpKind::Exp); }

inline ptoc::SrcLoc find_pos(const std::string& text, std::string needle) {
  size_t mark = needle.find('@');
  size_t delta = 0;
  if (mark != std::string::npos) {
    delta = mark;
    needle.erase(mark, 1);
  }
  size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(needle, at + 1) == std::string::npos);  // unambiguous
  at += delta;
  int line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return {line, col};
}

// The spec fails with an error containing `message` at the position of `needle` (see find_pos),
// and, when `hint` is given, a hint containing it.
inline void expect_error(const std::string& yaml, const std::string& needle, const std::string& message,
                         const std::string& hint = {}) {
  INFO(yaml);
  auto r = run(yaml);
  INFO(r.rendered);
  CHECK_FALSE(r.prog.has_value());
  const ptoc::SrcLoc want = find_pos(yaml, needle);
  bool found = false;
  for (const auto& d : r.diags) {
    if (d.severity != ptoc::Diagnostic::Severity::Error || d.message.find(message) == std::string::npos) continue;
    CHECK(d.loc.line == want.line);
    CHECK(d.loc.col == want.col);
    if (!hint.empty()) CHECK_THAT(d.hint, Catch::Contains(hint));
    found = true;
  }
  CHECK(found);
}

// Exit status of `ptoc check` on the text (written to a temporary file), stderr captured.
inline int check_status(const std::string& yaml, std::string* err = nullptr,
                        const std::vector<std::string>& sets = {}, const std::string& target = {}) {
  static int counter = 0;
  std::string path = "fe_test_" + std::to_string(counter++) + ".yaml";
  {
    std::ofstream f(path);
    f << yaml;
  }
  std::ostringstream cap, out;
  auto* old_err = std::cerr.rdbuf(cap.rdbuf());
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  ptoc::driver::SpecArgs a;
  a.spec = path;
  a.sets = sets;
  a.target = target;
  int rc = ptoc::driver::check(a);
  std::cerr.rdbuf(old_err);
  std::cout.rdbuf(old_out);
  std::remove(path.c_str());
  if (err) *err = cap.str() + out.str();
  return rc;
}

// A small valid spec with `body` spliced in (each body line indented by 2).
inline std::string spec(const std::string& body, const std::string& extra_top = {}) {
  return "ptoc: 1\n"
         "name: t\n"
         "dims:\n"
         "  B: dynamic\n"
         "  H: 64\n"
         "inputs:\n"
         "  x: {dtype: fp32, shape: [B, H]}\n"
         "  h: {dtype: fp16, shape: [B, H]}\n"
         "  w: {dtype: fp16, shape: [H, 32]}\n"
         "  n: {dtype: int32, shape: [B, H]}\n"
         "outputs:\n"
         "  y: {dtype: fp32, shape: [B, H]}\n" +
         extra_top + "body:\n" + body;
}

}  // namespace fe_test
