// Diagnostics in the style of clang: `file:line:col: error: message`, the
// source line, a caret (or ~~~ range) under the offending token, and an
// optional hint line. Every stage of ptoc reports through one DiagEngine so
// that errors found late (buffer overflow in a leaf) still point at the spec.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "runtime/core/src_loc.h"

namespace ptoc {

struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  Severity severity = Severity::Error;
  SrcLoc loc;
  int length = 1;          // columns underlined (>= 1)
  std::string message;     // what is wrong
  std::string hint;        // how to fix it ("did you mean 'vec_tile'?"); may be empty
  std::string origin;      // shown instead of the engine's file when set (e.g. "<command line>")
};

class DiagEngine {
 public:
  static constexpr int kMaxErrors = 20;
  DiagEngine(std::string file, std::string source);

  void error(SrcLoc loc, std::string message, std::string hint = {}, int length = 1);
  void warning(SrcLoc loc, std::string message, std::string hint = {}, int length = 1);
  void note(SrcLoc loc, std::string message, int length = 1);
  // An error that is not in the spec file (e.g. origin "<command line>" for --set); no source line.
  void error_in(std::string origin, std::string message, std::string hint = {});

  int error_count() const { return errors_; }
  bool has_errors() const { return errors_ > 0; }
  // True once kMaxErrors errors were recorded: callers stop checking.
  bool full() const { return errors_ >= kMaxErrors; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  const std::string& file() const { return file_; }
  const std::string& source() const { return source_; }
  // Text of 1-based line `n` without its newline ("" when out of range).
  std::string line_text(int n) const;

  // Renders every diagnostic clang-style, then "N errors generated." when > 1.
  void print(std::ostream& os) const;
  std::string render(const Diagnostic& d) const;

 private:
  std::string file_, source_;
  std::vector<size_t> line_starts_;
  std::vector<Diagnostic> diags_;
  int errors_ = 0;
};

// Thrown by stages that cannot go on after reporting (the message is already
// in the DiagEngine). Drivers catch it and exit with status 1.
struct CompileError : std::exception {
  const char* what() const noexcept override { return "compile error (see diagnostics)"; }
};

}  // namespace ptoc
