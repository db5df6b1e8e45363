// A position in a spec file, which the bundle keeps so run-time errors can point back at the spec.
#pragma once

namespace ptoc {

// 1-based position in the spec file; line 0 means "no position".
struct SrcLoc {
  int line = 0;
  int col = 0;
  bool valid() const { return line > 0; }
};

}  // namespace ptoc
