#include "atomic_file.h"

#include "interrupt.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ptoc {

namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
}

// Writes all of `content` to `fd`; 0 or the errno of the failing write.
int write_all(int fd, std::string_view content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    p += n;
    left -= size_t(n);
  }
  return 0;
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view content) {
  std::string target = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    // Replace the file the link names, not the link.
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf)) target = buf;
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw std::runtime_error("cannot write " + path + ": it is a directory");
    if (!S_ISREG(st.st_mode)) {
      // A device, pipe or socket: written in place, never replaced.
      int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) fail(path, errno);
      int err = write_all(fd, content);
      if (::close(fd) != 0 && err == 0) err = errno;
      if (err) fail(path, err);
      return;
    }
  }
  std::string tmp = target + ".tmp." + std::to_string(::getpid());
  interrupt::set_temp_file(tmp);  // removed by the SIGINT/SIGTERM handler
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    interrupt::set_temp_file("");
    fail(path, e);
  }
  int err = write_all(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS and quotas report ENOSPC at close
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  interrupt::set_temp_file("");
  if (err) {
    ::unlink(tmp.c_str());
    fail(path, err);
  }
}

}  // namespace ptoc
