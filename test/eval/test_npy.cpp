// .npy reading and writing: round trips for every dtype, the conversion rules
// of DESIGN.md, format versions 1/2/3, NumPy interoperability, and every error.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "runtime/core/tensor_data.h"
#include "program_builder.h"

using namespace ptoc;
using ptoc::test::tensor_of;
using ptoc::test::values_of;
namespace fs = std::filesystem;

namespace {

fs::path tmpdir() {
  static fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("ptoc_test_npy_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

std::string tmpfile(const std::string& name) { return (tmpdir() / name).string(); }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A hand-made .npy file: `version` 1, 2 or 3, the given header dict and raw data.
std::string npy(int version, const std::string& dict, const std::string& data) {
  std::string h = dict;
  size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(version);
  out += char(0);
  uint32_t n = uint32_t(h.size());
  out.append(reinterpret_cast<const char*>(&n), version == 1 ? 2 : 4);
  return out + h + data;
}

template <class T>
std::string raw(std::initializer_list<T> xs) {
  std::string s;
  for (T x : xs) s.append(reinterpret_cast<const char*>(&x), sizeof(T));
  return s;
}

std::string read_error(const std::string& path, DType t, const std::string& name = "x") {
  try {
    read_npy_as(path, t, name);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("npy round trip keeps every dtype's values and shape", "[npy]") {
  const std::vector<double> vals = {0, 1, -2, 3.5, -0.25, 100, 7, -1};
  for (DType t : kAllDTypes) {
    std::vector<double> v = vals;
    if (t == DType::uint8) for (auto& x : v) x = std::fabs(std::trunc(x));
    if (t == DType::fp8e8m0) for (auto& x : v) x = std::ldexp(1.0, int(x));  // powers of two (no zero, no sign)
    TensorData d = tensor_of(t, {2, 4}, v);
    std::string path = tmpfile(std::string("rt_") + std::string(dtype_name(t)) + ".npy");
    write_npy(path, d);
    TensorData back = read_npy_as(path, t, "x");
    INFO(dtype_name(t));
    CHECK(back.shape == std::vector<int64_t>{2, 4});
    CHECK(back.bytes == d.bytes);
    CHECK(values_of(back) == values_of(d));
  }
}

TEST_CASE("npy writes float16 for fp16, float32 for fp32 and bf16, matching types otherwise", "[npy]") {
  const std::pair<DType, const char*> expect[] = {
      {DType::fp32, "'<f4'"}, {DType::fp16, "'<f2'"}, {DType::bf16, "'<f4'"}, {DType::int32, "'<i4'"},
      {DType::int8, "'|i1'"}, {DType::uint8, "'|u1'"}, {DType::boolean, "'|b1'"}};
  for (auto [t, descr] : expect) {
    std::string path = tmpfile("descr.npy");
    write_npy(path, TensorData::zeros(t, {3}));
    std::string b = read_bytes(path);
    INFO(dtype_name(t));
    CHECK(b.find(std::string("'descr': ") + descr) != std::string::npos);
    CHECK(b.find("'shape': (3,)") != std::string::npos);
    CHECK(b.find("'fortran_order': False") != std::string::npos);
    // Data starts on a 64-byte boundary and the header ends with a newline.
    uint16_t hl = uint16_t(uint8_t(b[8]) | (uint8_t(b[9]) << 8));
    CHECK((10 + hl) % 64 == 0);
    CHECK(b[9 + hl] == '\n');
    CHECK(b.size() == 10 + hl + 3 * size_t(t == DType::bf16 ? 4 : dtype_size(t)));
  }
}

TEST_CASE("npy writes no temporary file and replaces an existing one", "[npy]") {
  std::string path = tmpfile("replace.npy");
  write_bytes(path, "old content");
  write_npy(path, tensor_of(DType::fp32, {2}, {1, 2}));
  CHECK(values_of(read_npy_as(path, DType::fp32, "x")) == std::vector<double>{1, 2});
  for (const auto& e : fs::directory_iterator(tmpdir()))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  CHECK_THROWS_WITH(write_npy((tmpdir() / "no_such_dir" / "y.npy").string(), tensor_of(DType::fp32, {1}, {1})),
                    Catch::Contains("cannot write") && Catch::Contains("no_such_dir"));
}

TEST_CASE("float tensors take float16, float32 and float64 arrays", "[npy]") {
  std::string dict2 = "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }";
  std::string dict4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::string dict8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  write_bytes(tmpfile("f2.npy"), npy(1, dict2, raw<uint16_t>({0x3c00, 0xc000})));  // 1, -2
  write_bytes(tmpfile("f4.npy"), npy(1, dict4, raw<float>({0.1f, -3.0f})));
  write_bytes(tmpfile("f8.npy"), npy(1, dict8, raw<double>({0.1, 65520.0})));
  CHECK(values_of(read_npy_as(tmpfile("f2.npy"), DType::fp32, "x")) == std::vector<double>{1, -2});
  CHECK(values_of(read_npy_as(tmpfile("f4.npy"), DType::fp32, "x")) == std::vector<double>{double(0.1f), -3});
  CHECK(values_of(read_npy_as(tmpfile("f8.npy"), DType::fp32, "x"))[0] == double(0.1f));
  // fp16: 0.1 rounds to the nearest half (0x2e66); 65520 is past the largest half (65504) and rounds to inf.
  auto h = read_npy_as(tmpfile("f8.npy"), DType::fp16, "x");
  CHECK(h.bytes[0] == 0x66);
  CHECK(h.bytes[1] == 0x2e);
  CHECK(std::isinf(h.get(1)));
  CHECK(values_of(read_npy_as(tmpfile("f4.npy"), DType::fp16, "x"))[1] == -3);
}

TEST_CASE("bf16 tensors take float32 rounded to nearest even", "[npy]") {
  // bf16 keeps 7 mantissa bits: around 1.0 its step is 2^-7.
  const float tie_down = 1.0f + std::ldexp(1.0f, -8);      // halfway between 1 and 1+2^-7: to even (1)
  const float tie_up = 1.0f + 3 * std::ldexp(1.0f, -8);    // halfway between 1+2^-7 and 1+2^-6: to even (1+2^-6)
  const float above = 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20);  // just above a tie: up
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  write_bytes(tmpfile("bf.npy"), npy(1, dict, raw<float>({tie_down, tie_up, above})));
  auto v = values_of(read_npy_as(tmpfile("bf.npy"), DType::bf16, "x"));
  CHECK(v[0] == 1.0);
  CHECK(v[1] == 1.0 + std::ldexp(1.0, -6));
  CHECK(v[2] == 1.0 + std::ldexp(1.0, -7));
}

TEST_CASE("float64 into a 16-bit float is rounded once, correctly", "[npy]") {
  // 1 + 2^-11 + 2^-40: float32 would first round it to the tie 1 + 2^-11, then fp16 to even (1.0).
  // Correct rounding of the double gives 1 + 2^-10.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
  write_bytes(tmpfile("f8tie.npy"), npy(1, dict, raw<double>({d})));
  CHECK(read_npy_as(tmpfile("f8tie.npy"), DType::fp16, "x").get(0) == 1.0 + std::ldexp(1.0, -10));
}

TEST_CASE("npy format versions 2.0 and 3.0 are read", "[npy]") {
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1), }";
  for (int v : {2, 3}) {
    write_bytes(tmpfile("v.npy"), npy(v, dict, raw<int32_t>({-5, 123456})));
    auto t = read_npy_as(tmpfile("v.npy"), DType::int32, "x");
    CHECK(t.shape == std::vector<int64_t>{2, 1});
    CHECK(values_of(t) == std::vector<double>{-5, 123456});
  }
}

TEST_CASE("integer tensors take integer arrays whose values fit; bool takes bool", "[npy]") {
  std::string d8 = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  write_bytes(tmpfile("i8.npy"), npy(1, d8, raw<int64_t>({-1, 2, 100})));
  CHECK(values_of(read_npy_as(tmpfile("i8.npy"), DType::int32, "x")) == std::vector<double>{-1, 2, 100});
  CHECK(values_of(read_npy_as(tmpfile("i8.npy"), DType::int8, "x")) == std::vector<double>{-1, 2, 100});
  CHECK_THAT(read_error(tmpfile("i8.npy"), DType::uint8, "idx"),
             Catch::Contains("input 'idx'") && Catch::Contains("element 0 = -1 does not fit uint8 [0, 255]"));
  write_bytes(tmpfile("big.npy"), npy(1, d8, raw<int64_t>({1, int64_t(1) << 40, 0})));
  CHECK_THAT(read_error(tmpfile("big.npy"), DType::int32), Catch::Contains("element 1") && Catch::Contains("int32"));
  std::string db = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  write_bytes(tmpfile("b.npy"), npy(1, db, std::string("\x01\x00\x01", 3)));
  CHECK(values_of(read_npy_as(tmpfile("b.npy"), DType::boolean, "m")) == std::vector<double>{1, 0, 1});
}

TEST_CASE("npy errors name the tensor and say what was expected", "[npy]") {
  const std::string f4_2x2 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  const std::string data4 = raw<float>({1, 2, 3, 4});

  SECTION("missing file") {
    CHECK_THAT(read_error(tmpfile("absent.npy"), DType::fp32, "q"),
               Catch::Contains("input 'q'") && Catch::Contains("cannot open file"));
  }
  SECTION("a directory") {
    CHECK_THAT(read_error(tmpdir().string(), DType::fp32, "q"),
               Catch::Contains("input 'q'") && Catch::Contains("is a directory"));
  }
  SECTION("not an npy file") {
    write_bytes(tmpfile("text.npy"), "hello, world\n1,2,3\n");
    CHECK_THAT(read_error(tmpfile("text.npy"), DType::fp32, "q"),
               Catch::Contains("input 'q'") && Catch::Contains("not a .npy file"));
    write_bytes(tmpfile("empty.npy"), "");
    CHECK_THAT(read_error(tmpfile("empty.npy"), DType::fp32), Catch::Contains("not a .npy file"));
  }
  SECTION("truncated data") {
    write_bytes(tmpfile("trunc.npy"), npy(1, f4_2x2, data4.substr(0, 10)));
    CHECK_THAT(read_error(tmpfile("trunc.npy"), DType::fp32, "w"),
               Catch::Contains("input 'w'") && Catch::Contains("truncated file") &&
                   Catch::Contains("needs 16 data bytes but the file has 10"));
  }
  SECTION("truncated header") {
    std::string full = npy(1, f4_2x2, data4);
    write_bytes(tmpfile("trunch.npy"), full.substr(0, 30));
    CHECK_THAT(read_error(tmpfile("trunch.npy"), DType::fp32), Catch::Contains("truncated .npy header"));
  }
  SECTION("trailing bytes") {
    write_bytes(tmpfile("trail.npy"), npy(1, f4_2x2, data4 + "xx"));
    CHECK_THAT(read_error(tmpfile("trail.npy"), DType::fp32), Catch::Contains("2 bytes after the data"));
  }
  SECTION("fortran order is refused") {
    std::string d = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }";
    write_bytes(tmpfile("fo.npy"), npy(1, d, data4));
    CHECK_THAT(read_error(tmpfile("fo.npy"), DType::fp32, "a"),
               Catch::Contains("input 'a'") && Catch::Contains("Fortran order") &&
                   Catch::Contains("ascontiguousarray"));
  }
  SECTION("wrong dtype") {
    std::string d = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }";
    write_bytes(tmpfile("i8f.npy"), npy(1, d, raw<int64_t>({1, 2})));
    CHECK_THAT(read_error(tmpfile("i8f.npy"), DType::fp32, "x"),
               Catch::Contains("input 'x'") && Catch::Contains("wrong dtype") &&
                   Catch::Contains("float16, float32 or float64") && Catch::Contains("int64"));
    write_bytes(tmpfile("f4i.npy"), npy(1, f4_2x2, data4));
    CHECK_THAT(read_error(tmpfile("f4i.npy"), DType::int32, "n"),
               Catch::Contains("input 'n'") && Catch::Contains("int32 array") && Catch::Contains("float32"));
    CHECK_THAT(read_error(tmpfile("f4i.npy"), DType::boolean, "m"),
               Catch::Contains("a bool array") && Catch::Contains("float32"));
    std::string dc = "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }";
    write_bytes(tmpfile("c8.npy"), npy(1, dc, data4));
    CHECK_THAT(read_error(tmpfile("c8.npy"), DType::fp32), Catch::Contains("unsupported dtype '<c8'"));
  }
  SECTION("big-endian") {
    std::string d = "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }";
    write_bytes(tmpfile("be.npy"), npy(1, d, data4));
    CHECK_THAT(read_error(tmpfile("be.npy"), DType::fp32), Catch::Contains("big-endian"));
  }
  SECTION("unknown format version") {
    std::string b = npy(1, f4_2x2, data4);
    b[6] = 4;
    write_bytes(tmpfile("v4.npy"), b);
    CHECK_THAT(read_error(tmpfile("v4.npy"), DType::fp32), Catch::Contains("unsupported .npy format version 4.0"));
  }
  SECTION("malformed header") {
    write_bytes(tmpfile("h1.npy"), npy(1, "{'descr': '<f4', 'shape': (2, 2), }", data4));
    CHECK_THAT(read_error(tmpfile("h1.npy"), DType::fp32), Catch::Contains("no 'fortran_order'"));
    write_bytes(tmpfile("h2.npy"), npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", data4));
    CHECK_THAT(read_error(tmpfile("h2.npy"), DType::fp32), Catch::Contains("malformed .npy header"));
    write_bytes(tmpfile("h3.npy"), npy(1, "[1, 2]", data4));
    CHECK_THAT(read_error(tmpfile("h3.npy"), DType::fp32), Catch::Contains("not a Python dict"));
  }
}

TEST_CASE("files written by NumPy are read and files we write load in NumPy", "[npy][numpy]") {
  // A PATH python3 (pyenv, venv) may lack numpy while Debian's python3-numpy is installed.
  std::string py;
  for (const char* cand : {"python3", "/usr/bin/python3"})
    if (std::system((std::string(cand) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0) {
      py = cand;
      break;
    }
  if (py.empty()) FAIL("python3 with numpy is required (Debian package python3-numpy)");
  std::string dir = tmpdir().string();
  std::string script = "import numpy as np, numpy.lib.format as f\n"
                       "a = np.arange(12, dtype=np.float32).reshape(3, 4) / 8 - 0.5\n"
                       "for v in [(1, 0), (2, 0), (3, 0)]:\n"
                       "    with open('" + dir + "/np_v%d.npy' % v[0], 'wb') as fh: f.write_array(fh, a, version=v)\n"
                       "np.save('" + dir + "/np_h.npy', a.astype(np.float16))\n"
                       "np.save('" + dir + "/np_b.npy', np.array([[True, False, True]]))\n"
                       "np.save('" + dir + "/np_i.npy', np.array([-3, 0, 7], dtype=np.int8))\n"
                       "np.save('" + dir + "/np_u.npy', np.array([0, 200, 255], dtype=np.uint8))\n"
                       "np.save('" + dir + "/np_s.npy', np.float32(1.5))\n";
  write_bytes(tmpfile("gen.py"), script);
  REQUIRE(std::system((py + " " + tmpfile("gen.py")).c_str()) == 0);
  for (int v : {1, 2, 3}) {
    auto t = read_npy_as(tmpfile("np_v" + std::to_string(v) + ".npy"), DType::fp32, "a");
    CHECK(t.shape == std::vector<int64_t>{3, 4});
    for (int i = 0; i < 12; ++i) CHECK(t.get(i) == i / 8.0 - 0.5);
  }
  CHECK(read_npy_as(tmpfile("np_h.npy"), DType::fp16, "h").get(11) == 11 / 8.0 - 0.5);
  CHECK(values_of(read_npy_as(tmpfile("np_b.npy"), DType::boolean, "b")) == std::vector<double>{1, 0, 1});
  CHECK(values_of(read_npy_as(tmpfile("np_i.npy"), DType::int8, "i")) == std::vector<double>{-3, 0, 7});
  CHECK(values_of(read_npy_as(tmpfile("np_u.npy"), DType::uint8, "u")) == std::vector<double>{0, 200, 255});
  CHECK(read_npy_as(tmpfile("np_s.npy"), DType::fp32, "s").shape.empty());

  // The other direction: every dtype we write, checked by NumPy itself.
  write_npy(tmpfile("w_f16.npy"), tensor_of(DType::fp16, {2, 2}, {0.5, -1, 2, 65504}));
  write_npy(tmpfile("w_bf16.npy"), tensor_of(DType::bf16, {3}, {1.0, 3.0, -0.0078125}));
  write_npy(tmpfile("w_i32.npy"), tensor_of(DType::int32, {2}, {-2147483648.0, 2147483647.0}));
  write_npy(tmpfile("w_b.npy"), tensor_of(DType::boolean, {2}, {1, 0}));
  std::string check = "import numpy as np\n"
                      "d = '" + dir + "/'\n"
                      "a = np.load(d + 'w_f16.npy'); assert a.dtype == np.float16 and a.tolist() == [[0.5, -1], [2, 65504]], a\n"
                      "a = np.load(d + 'w_bf16.npy'); assert a.dtype == np.float32 and a.tolist() == [1, 3, -0.0078125], a\n"
                      "a = np.load(d + 'w_i32.npy'); assert a.dtype == np.int32 and a.tolist() == [-2**31, 2**31 - 1], a\n"
                      "a = np.load(d + 'w_b.npy'); assert a.dtype == np.bool_ and a.tolist() == [True, False], a\n";
  write_bytes(tmpfile("check.py"), check);
  CHECK(std::system((py + " " + tmpfile("check.py")).c_str()) == 0);
}
