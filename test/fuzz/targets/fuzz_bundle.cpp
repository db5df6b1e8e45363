// libFuzzer target: bytes -> the bundle reader (header, section table, checksums, JSON sections),
// as `ptorun` and `ptorun info` load a file. A bad bundle must be a BundleError, nothing else.
// Checksums make random bytes fail early; the dictionary and the seed corpus (real bundles) let
// the fuzzer reach the JSON decoders, and PTOC_FUZZ_FIX_CHECKSUMS=1 recomputes the hashes of a
// mutated input before decoding it (an attacker can do the same). A bundle that decodes then goes
// through the run's task preflight (runtime/task_preflight.h) with every dynamic dim bound to a
// small value: a refusal is a string or a ControlFlowError, nothing else either.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/control_flow.h"
#include "runtime/program/bundle.h"
#include "runtime/task_preflight.h"

namespace {

uint64_t rd64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void fix_checksums(std::vector<uint8_t>& b) {
  if (b.size() < 16) return;
  uint32_t n;
  std::memcpy(&n, b.data() + 12, 4);
  if (n > 64 || 16 + 48ull * n + 8 > b.size()) return;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t* e = b.data() + 16 + 48 * i;
    uint64_t off = rd64(e + 16), len = rd64(e + 24);
    if (off > b.size() || len > b.size() - off) continue;
    uint64_t h = XXH64(b.data() + off, len, 0);
    std::memcpy(e + 32, &h, 8);
  }
  uint64_t h = XXH64(b.data(), 16 + 48ull * n, 0);
  std::memcpy(b.data() + 16 + 48 * n, &h, 8);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool fix = [] {
    const char* e = std::getenv("PTOC_FUZZ_FIX_CHECKSUMS");
    return e && *e == '1';
  }();
  std::vector<uint8_t> bytes(data, data + size);
  if (fix) fix_checksums(bytes);
  try {
    auto b = ptoc::runtime::decode_bundle(bytes, "fuzz.bundle");
    ptoc::DimExpr::Env dims;
    for (const ptoc::DimDecl& d : b.program.dims)
      dims[d.name] = !d.dynamic ? d.value : d.max > 0 && d.max < 37 ? d.max : d.divisible_by > 1 ? d.divisible_by : 37;
    ptoc::runtime::ControlFlowOptions cfo = ptoc::runtime::ControlFlowOptions::from(b.program.options);
    cfo.host_values.assign(b.program.tensors.size(), nullptr);
    if (ptoc::runtime::host_value_tensors(b.program).empty())
      (void)ptoc::runtime::preflight_tasks(b.program, dims, cfo, nullptr, 2000);
  } catch (const ptoc::runtime::BundleError&) {
  } catch (const ptoc::runtime::ControlFlowError&) {
  }
  return 0;
}
