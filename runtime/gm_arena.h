// Global memory on the host: where each tensor lives in the virtual GM
// address space, how a box of a tensor becomes GM accesses, the NZ layout,
// and the arena that backs virtual GM with host memory for the executor.
//
// NZ layout (FRACTAL_NZ, as the cube reads it): a matrix [..., R, C] of an
// element size e is stored as [..., C/C0, Rp, C0] with C0 = 32/e elements
// (16 for fp16/bf16, 8 for fp32, 32 for int8), Rp = R rounded up to 16 and
// C rounded up to C0; the padding is zero. So one 16 x C0 fractal is 512
// contiguous bytes and a column block is Rp*C0 contiguous elements.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "runtime/core/tensor_data.h"
#include "runtime/device_task.h"

namespace ptoc::runtime {

inline constexpr uint64_t kGmAlign = 512;          // every tensor and workspace block starts 512-byte aligned
inline constexpr uint64_t kGmBase = 0x100000000;   // first virtual GM address (0 stays "null")

struct TensorGeometry {
  DType dtype = DType::fp32;
  int esize = 4;
  Format format = Format::ND;
  std::vector<int64_t> shape;  // logical (ND) shape
  uint64_t bytes = 0;          // GM footprint (NZ: padded)
  int64_t nz_c0 = 0, nz_rows = 0, nz_cols = 0;  // NZ: C0, padded R, padded C
};
TensorGeometry make_geometry(DType dtype, const std::vector<int64_t>& shape, Format format);

// Appends the GM accesses that cover the box [offset, offset+extent) of a tensor at `base`
// (strided 2-D windows; for NZ, whole C0-wide column blocks). Empty boxes append nothing.
void region_accesses(const TensorGeometry& g, uint64_t base, const int64_t* offset, const int64_t* extent,
                     int tensor, bool write, std::vector<GmAccess>& out);

// Row-major host array <-> GM bytes in the tensor's format (identity for ND).
std::vector<uint8_t> to_gm_layout(const TensorGeometry& g, const TensorData& t);
TensorData from_gm_layout(const TensorGeometry& g, const uint8_t* gm);

struct GmError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Checked before any GM or host copy is allocated: the run's GM tensors (name,
// dtype, bound shape) must fit in `limit` bytes (0: the memory the system
// reports available). Throws GmError naming the largest tensor, its shape and
// bytes, the total and the memory found.
struct GmDemand {
  std::string name;
  DType dtype = DType::fp32;
  std::vector<int64_t> shape;
};
void check_gm_fits(const std::vector<GmDemand>& tensors, uint64_t limit);

// Virtual GM backed by host memory: zero-filled blocks mapped at fixed virtual addresses.
class GmArena {
 public:
  // Maps [addr, addr+bytes) (no-op when exactly that block is already mapped).
  void map(uint64_t addr, uint64_t bytes);
  bool is_mapped(uint64_t addr) const;
  // Host pointer for a virtual address inside a mapped block; throws GmError otherwise.
  uint8_t* host(uint64_t addr) const;
  // Checks that [addr, addr+bytes) lies inside one mapped block.
  bool contains(uint64_t addr, uint64_t bytes) const;
  uint64_t mapped_bytes() const { return total_; }
  // The virtual address of a host pointer into a mapped block, or 0 when it is in none.
  uint64_t virtual_of(const void* host) const;

 private:
  struct Block {
    uint64_t bytes;
    std::unique_ptr<uint8_t[]> mem;
  };
  std::map<uint64_t, Block> blocks_;
  std::map<uintptr_t, uint64_t> by_host_;  // host start -> virtual start, for virtual_of
  uint64_t total_ = 0;
};

}  // namespace ptoc::runtime
