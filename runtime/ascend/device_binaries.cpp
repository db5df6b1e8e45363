#include "device_binaries.h"

#include <cstring>

namespace ptoc::ascend {

namespace {
void put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_str(std::vector<uint8_t>& out, const std::string& s) {
  put(out, s.size(), 4);
  out.insert(out.end(), s.begin(), s.end());
}
struct Reader {
  const std::vector<uint8_t>& b;
  size_t pos = 0;
  uint64_t get(int bytes) {
    if (pos + size_t(bytes) > b.size()) throw std::runtime_error("device_bin section: truncated");
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(b[pos + size_t(i)]) << (8 * i);
    pos += size_t(bytes);
    return v;
  }
  std::string str() {
    uint64_t n = get(4);
    if (pos + n > b.size()) throw std::runtime_error("device_bin section: truncated name");
    std::string s(b.begin() + long(pos), b.begin() + long(pos + n));
    pos += n;
    return s;
  }
};
}  // namespace

std::vector<uint8_t> pack_device_binaries(const std::vector<DeviceBinary>& bins) {
  std::vector<uint8_t> out;
  put(out, bins.size(), 4);
  for (const auto& d : bins) {
    put_str(out, d.kernel);
    put(out, uint8_t(d.core), 1);
    put_str(out, d.arch);
    put(out, d.bytes.size(), 8);
    out.insert(out.end(), d.bytes.begin(), d.bytes.end());
  }
  return out;
}

std::vector<DeviceBinary> unpack_device_binaries(const std::vector<uint8_t>& bytes) {
  Reader r{bytes};
  uint64_t n = r.get(4);
  std::vector<DeviceBinary> out;
  for (uint64_t i = 0; i < n; ++i) {
    DeviceBinary d;
    d.kernel = r.str();
    d.core = CoreType(r.get(1));
    d.arch = r.str();
    uint64_t size = r.get(8);
    if (r.pos + size > bytes.size()) throw std::runtime_error("device_bin section: truncated object of " + d.kernel);
    d.bytes.assign(bytes.begin() + long(r.pos), bytes.begin() + long(r.pos + size));
    r.pos += size;
    out.push_back(std::move(d));
  }
  if (r.pos != bytes.size()) throw std::runtime_error("device_bin section: trailing bytes");
  return out;
}

}  // namespace ptoc::ascend
