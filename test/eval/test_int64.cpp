// int64 (PyPTO's DT_INT64, lang4): its size and rounding, and .npy <i8 read and written bit-exact (the
// values the evaluator's double cannot hold survive a file round trip), an <i8 file into an int32 tensor
// refused when a value does not fit.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "runtime/core/dtype.h"
#include "runtime/core/tensor_data.h"

using namespace ptoc;

TEST_CASE("int64 is an 8-byte integer dtype that saturates at +-2^63", "[int64]") {
  CHECK(parse_dtype("int64") == DType::int64);
  CHECK(dtype_size(DType::int64) == 8);
  CHECK(dtype_is_int(DType::int64));
  CHECK_FALSE(dtype_is_float(DType::int64));
  CHECK(round_to_dtype(-2.75, DType::int64) == -2.0);
  CHECK(round_to_dtype(4294967296.5, DType::int64) == 4294967296.0);  // no int32 wrap
  CHECK(round_to_dtype(1e30, DType::int64) == 9223372036854775807.0);
  CHECK(round_to_dtype(-1e30, DType::int64) == -9223372036854775808.0);
  CHECK(round_to_dtype(NAN, DType::int64) == 0.0);
}

TEST_CASE("npy <i8 round trip is bit-exact past 2^53", "[int64]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("ptoc_int64_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/w.npy";
  TensorData t = TensorData::zeros(DType::int64, {2, 2});
  const int64_t v[4] = {(int64_t(1) << 62) + 1, -(int64_t(1) << 53) - 1, INT64_MIN, 7};
  std::memcpy(t.bytes.data(), v, sizeof v);
  write_npy(path, t);
  TensorData back = read_npy_as(path, DType::int64, "w");
  CHECK(back.shape == std::vector<int64_t>{2, 2});
  CHECK(back.bytes == t.bytes);
  CHECK(back.get(3) == 7.0);
  // The same file into an int32 tensor: the first element does not fit.
  std::string msg;
  try {
    read_npy_as(path, DType::int32, "w");
  } catch (const NpyError& e) {
    msg = e.what();
  }
  CHECK(msg.find("element 0 = 4611686018427387905 does not fit int32") != std::string::npos);
  std::filesystem::remove_all(dir);
}
