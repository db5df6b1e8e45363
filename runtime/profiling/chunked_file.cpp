#include "chunked_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

#include "runtime/core/interrupt.h"

namespace ptoc::profiling {

namespace {
constexpr size_t kChunkBytes = size_t(4) << 20;
}

ChunkedFile::ChunkedFile(std::string path) : path_(std::move(path)) {
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  // Removed by the SIGINT/SIGTERM handler: a slot of its own, as a profiled run streams several files at once.
  interrupt_slot_ = interrupt::hold_temp_file(tmp_);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int e = errno;
    release();
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(e));
  }
  buf_.reserve(kChunkBytes + 64 * 1024);
}

ChunkedFile::~ChunkedFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
  release();
}

void ChunkedFile::release() {
  interrupt::release_temp_file(interrupt_slot_);
  interrupt_slot_ = -1;
}

void ChunkedFile::fail(int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  release();
  throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(err));
}

void ChunkedFile::flush() {
  const char* p = buf_.data();
  size_t left = buf_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : EIO);
    p += n;
    left -= size_t(n);
  }
  buf_.clear();
}

void ChunkedFile::append(std::string_view bytes) {
  buf_.append(bytes);
  if (buf_.size() >= kChunkBytes) flush();
}

void ChunkedFile::commit() {
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {  // NFS and quotas report ENOSPC at close
    const int e = errno;
    ::unlink(tmp_.c_str());
    release();
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(e));
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp_.c_str());
    release();
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(e));
  }
  release();
}

}  // namespace ptoc::profiling
