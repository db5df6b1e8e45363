// A run-folder artifact written in chunks as it is produced, so that a large one (the Machine View
// of merged_swimlane.json: about 1 KB per task) never sits whole in memory. Atomic like
// write_file_atomic (runtime/core/atomic_file.h): the bytes go to PATH.tmp.PID, renamed into place
// by commit(); the temporary is removed on an error, on SIGINT/SIGTERM, or when never committed.
// For new regular files only (a run folder's files).
#pragma once
#include <string>
#include <string_view>

namespace ptoc::profiling {

class ChunkedFile {
 public:
  // Throws std::runtime_error("cannot write PATH: reason") when the temporary cannot be created.
  explicit ChunkedFile(std::string path);
  ~ChunkedFile();
  ChunkedFile(const ChunkedFile&) = delete;
  ChunkedFile& operator=(const ChunkedFile&) = delete;

  // Buffered; written out every 4 MiB. Throws like the constructor on a write error (ENOSPC, ...).
  void append(std::string_view bytes);
  // Writes the rest, closes and renames the file into place. Throws like the constructor.
  void commit();

 private:
  void flush();
  void release();
  [[noreturn]] void fail(int err);
  std::string path_, tmp_, buf_;
  int fd_ = -1;
  int interrupt_slot_ = -1;  // interrupt::hold_temp_file's, so that SIGINT/SIGTERM removes tmp_
};

}  // namespace ptoc::profiling
