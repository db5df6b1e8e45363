// Large arrays of the tiler backed by transparent huge pages where the OS offers them (Linux,
// `madvise` mode): a GEMM 6144^3 root reserves 87 MB of TileOps at once, and faulting it in 4 KiB
// page by page was a seventh of the compile (about 21 000 faults). A hint only: the contents,
// and so every output, are the same with or without it.
#pragma once
#include <cstddef>
#include <vector>

namespace ptoc::tiling {

// Asks for huge pages over the whole 2 MiB pages inside [p, p + bytes) (nothing when smaller).
void advise_huge_pages(void* p, size_t bytes);

// v.reserve(n), with the new storage advised for huge pages when it is large.
template <class T>
void reserve_huge(std::vector<T>& v, size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace ptoc::tiling
