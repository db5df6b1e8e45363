// DiagEngine renders clang-style diagnostics and caps the error count.
#include <catch2/catch.hpp>

#include <sstream>

#include "compiler/diag.h"

using namespace ptoc;

TEST_CASE("an error renders position, source line, caret range and hint", "[core][diag]") {
  DiagEngine d("spec.yaml", "ptoc: 1\nbody:\n  - \"t = exp(xx)\"\n");
  d.error({3, 14}, "unknown name 'xx'", "did you mean 'x'?", 2);
  REQUIRE(d.error_count() == 1);
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() ==
        "spec.yaml:3:14: error: unknown name 'xx'\n"
        "  - \"t = exp(xx)\"\n"
        "             ^~\n"
        "hint: did you mean 'x'?\n");
}

TEST_CASE("tabs are kept so the caret lines up", "[core][diag]") {
  DiagEngine d("f", "\tab cd\n");
  d.error({1, 5}, "here");
  CHECK(d.render(d.diagnostics()[0]) == "f:1:5: error: here\n\tab cd\n\t   ^\n");
}

TEST_CASE("warnings, notes and diagnostics without a position", "[core][diag]") {
  DiagEngine d("f.yaml", "a: 1\n");
  d.warning({1, 4}, "odd value");
  d.note({}, "just so you know");
  d.error_in("<command line>", "--set x.y=1: unknown option group 'x'", "groups: runtime, pass, codegen, debug");
  CHECK(d.error_count() == 1);
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() ==
        "f.yaml:1:4: warning: odd value\na: 1\n   ^\n"
        "f.yaml: note: just so you know\n"
        "<command line>: error: --set x.y=1: unknown option group 'x'\n"
        "hint: groups: runtime, pass, codegen, debug\n");
}

TEST_CASE("a caret past the end of the line still lines up", "[core][diag]") {
  DiagEngine d("f", "ab\n");
  d.error({1, 5}, "end");
  CHECK(d.render(d.diagnostics()[0]) == "f:1:5: error: end\nab\n    ^\n");
  CHECK(d.line_text(2).empty());
  CHECK(d.line_text(0).empty());
}

TEST_CASE("errors stop at 20 and the summary says so", "[core][diag]") {
  DiagEngine d("f", "x\n");
  for (int i = 0; i < 25; ++i) {
    std::string msg = "e";
    msg += std::to_string(i);
    d.error({1, 1}, msg);
  }
  CHECK(d.error_count() == DiagEngine::kMaxErrors);
  CHECK(d.full());
  CHECK(d.diagnostics().size() == 20);
  std::ostringstream os;
  d.print(os);
  CHECK(os.str().find("20 errors generated. (stopped after 20)\n") != std::string::npos);
  DiagEngine two("f", "x\n");
  two.error({1, 1}, "a");
  two.error({1, 1}, "b");
  std::ostringstream o2;
  two.print(o2);
  CHECK(o2.str().find("2 errors generated.\n") != std::string::npos);
}
