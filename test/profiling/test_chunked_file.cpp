// ChunkedFile (runtime/profiling/chunked_file.h): a large artifact written in chunks, atomically.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include "runtime/profiling/chunked_file.h"

using ptoc::profiling::ChunkedFile;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const char* name) {
  fs::path d = fs::temp_directory_path() / (std::string("ptoc-chunked-") + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_CASE("chunked file: 10 MiB in pieces arrive whole, in order, only at commit") {
  const fs::path d = fresh_dir("whole");
  const fs::path out = d / "big.json";
  std::string expect;
  {
    ChunkedFile f(out.string());
    for (int i = 0; i < 200000; ++i) {
      const std::string piece = "{\"i\":" + std::to_string(i) + ",\"pad\":\"" + std::string(size_t(i % 97), 'x') + "\"},";
      expect += piece;
      f.append(piece);
    }
    REQUIRE(expect.size() > (size_t(10) << 20));
    CHECK_FALSE(fs::exists(out));  // not before commit: a reader never sees half of it
    f.commit();
  }
  CHECK(slurp(out) == expect);
  CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1);  // no temporary left
  fs::remove_all(d);
}

TEST_CASE("chunked file: never committed leaves nothing; an unwritable folder is a clear error") {
  const fs::path d = fresh_dir("abandon");
  {
    ChunkedFile f((d / "x.json").string());
    f.append(std::string(size_t(5) << 20, 'a'));  // one chunk already written to the temporary
  }
  CHECK(fs::is_empty(d));
  fs::remove_all(d);
  const std::string missing = (d / "no" / "such" / "x.json").string();
  CHECK_THROWS_WITH(ChunkedFile(missing), "cannot write " + missing + ": No such file or directory");
}
