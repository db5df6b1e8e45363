#include "compiler/passes/vec_tile_proposal.h"

namespace ptoc {

namespace {
thread_local bool g_checking = false;  // a re-tiling in progress on this thread
}

bool vec_tile_proposal_fits(const Program& prog, const Platform& plat, SrcLoc loc, const std::vector<int64_t>& from,
                            const std::vector<int64_t>& to) {
  if (g_checking || from.size() != to.size()) return false;
  Program p = prog;
  bool changed = false;
  for (Op& op : p.ops)
    if (op.vec_tile && op.vec_tile->loc.line == loc.line && op.vec_tile->loc.col == loc.col &&
        op.vec_tile->shape == from) {
      op.vec_tile->shape = to;
      changed = true;
    }
  if (!changed) return false;
  struct Guard {
    Guard() { g_checking = true; }
    ~Guard() { g_checking = false; }
  } guard;
  DiagEngine quiet("", "");
  try {
    (void)build_tile_roots(p, plat, quiet);
  } catch (const CompileError&) {
    return false;
  } catch (const std::exception&) {
    return false;
  }
  return !quiet.has_errors();
}

}  // namespace ptoc
