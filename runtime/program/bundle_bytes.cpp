// A bundle's bytes, in memory or read from its file in pieces; see bundle_bytes.h.
#include "runtime/program/bundle_bytes.h"

#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <streambuf>
#include <unistd.h>

#include "runtime/program/bundle.h"

namespace ptoc::runtime {

namespace {
constexpr size_t kPiece = size_t(1) << 20;
}

std::string_view MemoryBundleBytes::view(uint64_t at, uint64_t n) {
  return {reinterpret_cast<const char*>(d_ + at), size_t(n)};
}
uint64_t MemoryBundleBytes::hash(uint64_t at, uint64_t n) { return XXH64(d_ + at, size_t(n), 0); }
void MemoryBundleBytes::parse(uint64_t at, uint64_t n, JsonStreamReader& r) {
  parse_json_stream(d_ + at, d_ + at + n, r, JsonNumbers::integers_only);
}

FileBundleBytes::~FileBundleBytes() { ::close(fd_); }

void FileBundleBytes::read(uint64_t at, uint64_t n, char* out) const {
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, size_t(std::min<uint64_t>(n, kPiece)), off_t(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw BundleError(path_ + ": cannot read the bundle: " + std::strerror(errno));
    if (got == 0)
      throw BundleError(path_ + ": the bundle ends at byte " + std::to_string(at) +
                        " while it is read (the file changed under ptorun: read it again once it is written)");
    at += uint64_t(got);
    n -= uint64_t(got);
    out += got;
  }
}

std::string_view FileBundleBytes::view(uint64_t at, uint64_t n) {
  buf_.resize(size_t(n));
  read(at, n, buf_.data());
  return {buf_.data(), buf_.size()};
}

uint64_t FileBundleBytes::hash(uint64_t at, uint64_t n) {
  std::unique_ptr<XXH64_state_t, decltype(&XXH64_freeState)> st(XXH64_createState(), &XXH64_freeState);
  if (!st) throw std::bad_alloc();
  XXH64_reset(st.get(), 0);
  std::vector<char> piece(size_t(std::min<uint64_t>(n, kPiece)));
  while (n > 0) {
    const uint64_t k = std::min<uint64_t>(n, kPiece);
    read(at, k, piece.data());
    XXH64_update(st.get(), piece.data(), size_t(k));
    at += k;
    n -= k;
  }
  return XXH64_digest(st.get());
}

namespace {

// The file's bytes [at, end) as a stream buffer, a piece at a time.
class RangeBuf : public std::streambuf {
 public:
  RangeBuf(const FileBundleBytes& f, uint64_t at, uint64_t end) : f_(f), at_(at), end_(end), buf_(kPiece) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (at_ >= end_) return traits_type::eof();
    const uint64_t k = std::min<uint64_t>(end_ - at_, buf_.size());
    f_.read(at_, k, buf_.data());
    at_ += k;
    setg(buf_.data(), buf_.data(), buf_.data() + k);
    return traits_type::to_int_type(*gptr());
  }

 private:
  const FileBundleBytes& f_;
  uint64_t at_, end_;
  std::vector<char> buf_;
};

}  // namespace

void FileBundleBytes::parse(uint64_t at, uint64_t n, JsonStreamReader& r) {
  RangeBuf rb(*this, at, at + n);
  std::istream in(&rb);
  parse_json_stream(in, r, JsonNumbers::integers_only);
}

}  // namespace ptoc::runtime
