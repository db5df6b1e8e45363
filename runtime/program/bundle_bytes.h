// Where the reader gets a bundle's bytes from (issue 12: a bundle's memory must not be its size):
// a buffer already in memory (decode_bundle, the fuzz target), or the file itself, read a piece at a
// time (read_bundle): the checksums are computed over 1 MiB pieces and the roots section, the one
// that grows with the program, is parsed straight from the file, so only the small sections are
// ever held whole.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/program/json_stream.h"

namespace ptoc::runtime {

class BundleBytes {
 public:
  virtual ~BundleBytes() = default;
  virtual uint64_t size() const = 0;
  // Bytes [at, at + n), in range (the caller checks); valid until the next call.
  virtual std::string_view view(uint64_t at, uint64_t n) = 0;
  // XXH64 of [at, at + n).
  virtual uint64_t hash(uint64_t at, uint64_t n) = 0;
  // Drives `r` over the JSON text [at, at + n) (parse_json_stream; a bundle holds integers only).
  virtual void parse(uint64_t at, uint64_t n, JsonStreamReader& r) = 0;
};

class MemoryBundleBytes : public BundleBytes {
 public:
  MemoryBundleBytes(const uint8_t* data, size_t size) : d_(data), n_(size) {}
  uint64_t size() const override { return n_; }
  std::string_view view(uint64_t at, uint64_t n) override;
  uint64_t hash(uint64_t at, uint64_t n) override;
  void parse(uint64_t at, uint64_t n, JsonStreamReader& r) override;

 private:
  const uint8_t* d_;
  size_t n_;
};

// An open regular file of `size` bytes (it is closed with this object). A read error, or a file
// that ends early because it changed while it was read, throws BundleError naming `path`.
class FileBundleBytes : public BundleBytes {
 public:
  FileBundleBytes(int fd, uint64_t size, std::string path) : fd_(fd), n_(size), path_(std::move(path)) {}
  ~FileBundleBytes() override;
  FileBundleBytes(const FileBundleBytes&) = delete;
  FileBundleBytes& operator=(const FileBundleBytes&) = delete;
  uint64_t size() const override { return n_; }
  std::string_view view(uint64_t at, uint64_t n) override;
  uint64_t hash(uint64_t at, uint64_t n) override;
  void parse(uint64_t at, uint64_t n, JsonStreamReader& r) override;
  // Reads [at, at + n) into `out`.
  void read(uint64_t at, uint64_t n, char* out) const;

 private:
  int fd_;
  uint64_t n_;
  std::string path_;
  std::vector<char> buf_;
};

}  // namespace ptoc::runtime
