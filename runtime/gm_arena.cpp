#include "runtime/gm_arena.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ptoc::runtime {

TensorGeometry make_geometry(DType dtype, const std::vector<int64_t>& shape, Format format) {
  TensorGeometry g;
  g.dtype = dtype;
  g.esize = dtype_size(dtype);
  g.format = format;
  g.shape = shape;
  uint64_t n = 1;
  for (auto d : shape) n *= uint64_t(std::max<int64_t>(d, 0));
  if (format == Format::NZ && shape.size() >= 2) {
    int64_t r = shape[shape.size() - 2], c = shape.back();
    g.nz_c0 = std::max(1, 32 / g.esize);
    g.nz_rows = (r + 15) / 16 * 16;
    g.nz_cols = (c + g.nz_c0 - 1) / g.nz_c0 * g.nz_c0;
    uint64_t batch = 1;
    for (size_t i = 0; i + 2 < shape.size(); ++i) batch *= uint64_t(shape[i]);
    g.bytes = batch * uint64_t(g.nz_rows) * uint64_t(g.nz_cols) * uint64_t(g.esize);
  } else {
    g.format = Format::ND;  // NZ only means something for matrices
    g.bytes = n * uint64_t(g.esize);
  }
  return g;
}

namespace {

// Per-axis scratch of a box: region_accesses runs for every region of every task instance, so
// the ranks that occur (<= 8) live on the stack rather than in a heap allocation.
class AxisBuf {
 public:
  AxisBuf(size_t n, int64_t v) {
    if (n > kInline) {
      heap_.resize(n);
      p_ = heap_.data();
    }
    std::fill(p_, p_ + n, v);
  }
  AxisBuf(const AxisBuf&) = delete;
  AxisBuf& operator=(const AxisBuf&) = delete;
  int64_t& operator[](size_t i) { return p_[i]; }
  const int64_t* data() const { return p_; }

 private:
  static constexpr size_t kInline = 8;
  int64_t inl_[kInline];
  std::vector<int64_t> heap_;
  int64_t* p_ = inl_;
};

// Enumerates the index tuples of axes [0, upto) of a box, calling f(linear element offset of the tuple).
template <class F>
void for_each_outer(const int64_t* strides, const int64_t* off, const int64_t* ext, size_t upto, F&& f) {
  AxisBuf idx(upto, 0);
  for (;;) {
    int64_t lin = 0;
    for (size_t i = 0; i < upto; ++i) lin += (off[i] + idx[i]) * strides[i];
    f(lin);
    size_t i = upto;
    while (i > 0) {
      --i;
      if (++idx[i] < ext[i]) break;
      idx[i] = 0;
      if (i == 0) return;
    }
    if (upto == 0) return;
  }
}

}  // namespace

void region_accesses(const TensorGeometry& g, uint64_t base, const int64_t* off, const int64_t* ext, int tensor,
                     bool write, std::vector<GmAccess>& out) {
  const size_t n = g.shape.size();
  for (size_t i = 0; i < n; ++i)
    if (ext[i] <= 0) return;
  const uint64_t es = uint64_t(g.esize);
  if (n == 0) {
    out.push_back(GmAccess{base, 1, es, es, tensor, write});
    return;
  }
  if (g.format == Format::NZ) {
    const int64_t c0 = g.nz_c0, rp = g.nz_rows;
    const size_t lead = n - 2;
    AxisBuf strides(lead, 0);
    int64_t s = rp * g.nz_cols;
    for (size_t i = lead; i-- > 0;) {
      strides[i] = s;
      s *= g.shape[i];
    }
    int64_t r0 = off[n - 2], er = ext[n - 2];
    int64_t jb0 = off[n - 1] / c0, jb1 = (off[n - 1] + ext[n - 1] - 1) / c0;
    for_each_outer(strides.data(), off, ext, lead, [&](int64_t lin) {
      uint64_t a = base + uint64_t(lin + jb0 * rp * c0 + r0 * c0) * es;
      out.push_back(GmAccess{a, uint64_t(jb1 - jb0 + 1), uint64_t(er * c0) * es, uint64_t(rp * c0) * es, tensor, write});
    });
    return;
  }
  AxisBuf strides(n, 1);
  for (size_t i = n - 1; i-- > 0;) strides[i] = strides[i + 1] * g.shape[i + 1];
  // The contiguous run covers axes a..n-1: fold inner axes while they are whole.
  size_t a = n - 1;
  int64_t run = ext[a];
  while (a > 0 && ext[a] == g.shape[a]) {
    --a;
    run *= ext[a];
  }
  if (a == 0) {
    out.push_back(GmAccess{base + uint64_t(off[0] * strides[0]) * es, 1, uint64_t(run) * es, uint64_t(run) * es, tensor, write});
    return;
  }
  // Rows step along axis a-1; outer axes fold into rows while the axis inside them is whole.
  size_t b = a - 1;
  const int64_t row_stride = strides[b];
  int64_t rows = ext[b];
  while (b > 0 && ext[b] == g.shape[b]) {
    --b;
    rows *= ext[b];
  }
  // Axes [0, b) are enumerated; the first row of each starts at the box's own offsets on axes >= b.
  int64_t inner = 0;
  for (size_t i = b; i < n; ++i) inner += off[i] * strides[i];
  for_each_outer(strides.data(), off, ext, b, [&](int64_t lin) {
    out.push_back(GmAccess{base + uint64_t(lin + inner) * es, uint64_t(rows), uint64_t(run) * es,
                           uint64_t(row_stride) * es, tensor, write});
  });
}

std::vector<uint8_t> to_gm_layout(const TensorGeometry& g, const TensorData& t) {
  if (g.format == Format::ND) return t.bytes;
  std::vector<uint8_t> out(g.bytes, 0);
  const size_t n = g.shape.size();
  const int64_t r = g.shape[n - 2], c = g.shape[n - 1], es = g.esize, c0 = g.nz_c0;
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < n; ++i) batch *= g.shape[i];
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) {
        int64_t src = (bt * r + i) * c + j;
        int64_t dst = bt * g.nz_rows * g.nz_cols + (j / c0) * g.nz_rows * c0 + i * c0 + j % c0;
        std::memcpy(out.data() + dst * es, t.bytes.data() + src * es, size_t(es));
      }
  return out;
}

TensorData from_gm_layout(const TensorGeometry& g, const uint8_t* gm) {
  TensorData t = TensorData::zeros(g.dtype, g.shape);
  if (g.format == Format::ND) {
    if (!t.bytes.empty()) std::memcpy(t.bytes.data(), gm, t.bytes.size());  // 0 rows: data() may be null
    return t;
  }
  const size_t n = g.shape.size();
  const int64_t r = g.shape[n - 2], c = g.shape[n - 1], es = g.esize, c0 = g.nz_c0;
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < n; ++i) batch *= g.shape[i];
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) {
        int64_t dst = (bt * r + i) * c + j;
        int64_t src = bt * g.nz_rows * g.nz_cols + (j / c0) * g.nz_rows * c0 + i * c0 + j % c0;
        std::memcpy(t.bytes.data() + dst * es, gm + src * es, size_t(es));
      }
  return t;
}

void check_gm_fits(const std::vector<GmDemand>& tensors, uint64_t limit) {
  const char* source = "the --limit gm_bytes";
  if (limit == 0) {
    source = "the memory available (MemAvailable in /proc/meminfo)";
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    while (f >> key >> kb) {
      if (key == "MemAvailable:") {
        limit = kb * 1024;
        break;
      }
      f.ignore(256, '\n');
    }
    if (limit == 0) return;  // no figure to check against
  }
  unsigned __int128 total = 0, largest = 0;
  const GmDemand* big = nullptr;
  for (const auto& t : tensors) {
    unsigned __int128 b = dtype_size(t.dtype);
    for (int64_t d : t.shape) b = d > 0 && b < (unsigned __int128)(1) << 100 ? b * uint64_t(d) : d > 0 ? b : 0;
    total += b;
    if (!big || b > largest) big = &t, largest = b;
  }
  if (total <= limit || !big) return;
  auto num = [](unsigned __int128 v) {
    if (v >> 64) return std::string("more than 2^64");
    return std::to_string(uint64_t(v));
  };
  std::ostringstream m;
  m << "the GM tensors need " << num(total) << " bytes, more than " << source << ": " << limit << " bytes; the largest, '"
    << big->name << "' " << dtype_name(big->dtype) << " [";
  for (size_t i = 0; i < big->shape.size(); ++i) m << (i ? ", " : "") << big->shape[i];
  m << "], needs " << num(largest) << " bytes (bind smaller dims with --dim, or raise the limit with --limit gm_bytes=N)";
  throw GmError(m.str());
}

void GmArena::map(uint64_t addr, uint64_t bytes) {
  auto it = blocks_.find(addr);
  if (it != blocks_.end()) {
    if (it->second.bytes == bytes) return;
    std::ostringstream m;
    m << "GM block at 0x" << std::hex << addr << " remapped with another size";
    throw GmError(m.str());
  }
  Block b{bytes, std::unique_ptr<uint8_t[]>(new uint8_t[std::max<uint64_t>(bytes, 1)]())};
  by_host_.emplace(reinterpret_cast<uintptr_t>(b.mem.get()), addr);
  blocks_.emplace(addr, std::move(b));
  total_ += bytes;
}

uint64_t GmArena::virtual_of(const void* host) const {
  const uintptr_t h = reinterpret_cast<uintptr_t>(host);
  auto it = by_host_.upper_bound(h);
  if (it == by_host_.begin()) return 0;
  --it;
  const Block& b = blocks_.at(it->second);
  return h - it->first <= b.bytes ? it->second + (h - it->first) : 0;
}

bool GmArena::is_mapped(uint64_t addr) const { return contains(addr, 0); }

bool GmArena::contains(uint64_t addr, uint64_t bytes) const {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return false;
  --it;
  return addr - it->first <= it->second.bytes && bytes <= it->second.bytes - (addr - it->first);
}

uint8_t* GmArena::host(uint64_t addr) const {
  auto it = blocks_.upper_bound(addr);
  if (it != blocks_.begin()) {
    --it;
    if (addr - it->first <= it->second.bytes) return it->second.mem.get() + (addr - it->first);
  }
  std::ostringstream m;
  m << "GM address 0x" << std::hex << addr << " is outside every mapped tensor and workspace";
  throw GmError(m.str());
}

}  // namespace ptoc::runtime
