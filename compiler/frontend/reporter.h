// The front end's view of DiagEngine: drops exact repeats (a statement
// elaborated once per unroll gear or static iteration reports its error once),
// can redirect errors to "<command line>" while --set items are checked, and
// holds diagnostics back until flush() so that they come out in file order
// (line, then column), as clang prints them, whichever pass found them first.
#pragma once
#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/diag.h"

namespace ptoc::fe {

class Reporter {
 public:
  explicit Reporter(DiagEngine& d) : d_(d) {}
  ~Reporter() { flush(); }
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  void error(SrcLoc loc, const std::string& msg, const std::string& hint = {}, int len = 1) {
    if (!origin_.empty()) {
      error_in(origin_, msg, hint);
      return;
    }
    if (full()) return;
    if (seen_.insert({loc.line, loc.col, msg}).second) {
      pending_.push_back({Diagnostic::Severity::Error, loc, std::max(1, len), msg, hint, {}});
      ++errors_;
    }
  }
  // An error with no file position (e.g. "<command line>"); printed before the file's.
  void error_in(const std::string& origin, const std::string& msg, const std::string& hint = {}) {
    if (full()) return;
    if (seen_.insert({0, 0, origin + msg}).second) {
      pending_.push_back({Diagnostic::Severity::Error, SrcLoc{}, 1, msg, hint, origin});
      ++errors_;
    }
  }
  void warning(SrcLoc loc, const std::string& msg, const std::string& hint = {}, int len = 1) {
    if (seen_.insert({loc.line, loc.col, "w:" + msg}).second)
      pending_.push_back({Diagnostic::Severity::Warning, loc, std::max(1, len), msg, hint, {}});
  }
  bool full() const { return errors() >= DiagEngine::kMaxErrors; }
  int errors() const { return d_.error_count() + errors_; }
  // Errors go to `origin` (no file position) until cleared with "".
  void set_origin(std::string origin) { origin_ = std::move(origin); }

  // Hands the held diagnostics to the engine sorted by position: those
  // without a position (command line) first, then by line and column; ties
  // keep the order in which they were found.
  void flush() {
    std::stable_sort(pending_.begin(), pending_.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::make_pair(a.loc.line, a.loc.col) < std::make_pair(b.loc.line, b.loc.col);
    });
    for (auto& d : pending_) {
      if (d.severity == Diagnostic::Severity::Warning) d_.warning(d.loc, d.message, d.hint, d.length);
      else if (!d.origin.empty()) d_.error_in(d.origin, d.message, d.hint);
      else d_.error(d.loc, d.message, d.hint, d.length);
    }
    pending_.clear();
    errors_ = 0;
  }

 private:
  DiagEngine& d_;
  std::string origin_;
  std::set<std::tuple<int, int, std::string>> seen_;
  std::vector<Diagnostic> pending_;
  int errors_ = 0;  // errors in pending_
};

}  // namespace ptoc::fe
