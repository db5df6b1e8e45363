// libFuzzer target: spec text -> the whole front end (YAML, statement parser, checks, elaboration),
// as `ptoc check` runs it. Any input must give a Program or diagnostics, never a crash, a hang or a
// sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/diag.h"
#include "compiler/frontend/frontend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  ptoc::DiagEngine diags("fuzz.yaml", text);
  ptoc::FrontendOptions opts;
  auto prog = ptoc::parse_spec(diags, opts);
  if (prog) (void)ptoc::summarize(*prog);
  return 0;
}
