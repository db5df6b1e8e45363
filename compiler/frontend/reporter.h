// The front end's view of DiagEngine: drops exact repeats (a statement
// elaborated once per unroll gear or static iteration reports its error once)
// and can redirect errors to "<command line>" while --set items are checked.
#pragma once
#include <set>
#include <string>
#include <tuple>

#include "compiler/diag.h"

namespace ptoc::fe {

class Reporter {
 public:
  explicit Reporter(DiagEngine& d) : d_(d) {}
  void error(SrcLoc loc, const std::string& msg, const std::string& hint = {}, int len = 1) {
    if (!origin_.empty()) {
      if (seen_.insert({0, 0, origin_ + msg}).second) d_.error_in(origin_, msg, hint);
      return;
    }
    if (seen_.insert({loc.line, loc.col, msg}).second) d_.error(loc, msg, hint, len);
  }
  void warning(SrcLoc loc, const std::string& msg, const std::string& hint = {}, int len = 1) {
    if (seen_.insert({loc.line, loc.col, "w:" + msg}).second) d_.warning(loc, msg, hint, len);
  }
  bool full() const { return d_.full(); }
  int errors() const { return d_.error_count(); }
  // Errors go to `origin` (no file position) until cleared with "".
  void set_origin(std::string origin) { origin_ = std::move(origin); }
  DiagEngine& engine() { return d_; }

 private:
  DiagEngine& d_;
  std::string origin_;
  std::set<std::tuple<int, int, std::string>> seen_;
};

}  // namespace ptoc::fe
