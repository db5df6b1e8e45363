// Host tensors in device representation, and .npy reading/writing.
//
// The .npy format (NumPy NEP 1): magic "\x93NUMPY", major/minor version, a
// little-endian header length (2 bytes in 1.0, 4 bytes in 2.0/3.0), a Python
// dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded so
// the data starts at a multiple of 64 bytes, then the raw elements.
#include "tensor_data.h"

#include "atomic_file.h"
#include "fp8.h"
#include "resource_limits.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <sys/stat.h>

namespace ptoc {

TensorData TensorData::zeros(DType t, std::vector<int64_t> shape) {
  TensorData d;
  d.dtype = t;
  d.shape = std::move(shape);
  d.bytes.assign(size_t(d.numel()) * size_t(dtype_size(t)), 0);
  return d;
}

int64_t TensorData::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

namespace {

template <class T>
T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // hosts we build for are little-endian, like the device
  return v;
}
template <class T>
void store_le(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

double TensorData::get(int64_t i) const {
  const uint8_t* p = bytes.data() + size_t(i) * size_t(dtype_size(dtype));
  switch (dtype) {
    case DType::fp32: return load_le<float>(p);
    case DType::fp16: return half_to_float(load_le<uint16_t>(p));
    case DType::bf16: return bf16_to_float(load_le<uint16_t>(p));
    case DType::int32: return load_le<int32_t>(p);
    case DType::int8: return load_le<int8_t>(p);
    case DType::uint8: return load_le<uint8_t>(p);
    case DType::boolean: return *p != 0 ? 1.0 : 0.0;
    case DType::int64: return double(load_le<int64_t>(p));
    case DType::int16: return load_le<int16_t>(p);
    case DType::uint16: return load_le<uint16_t>(p);
    case DType::uint32: return load_le<uint32_t>(p);
    case DType::uint64: return double(load_le<uint64_t>(p));
    case DType::fp8e4m3: return decode_fp8e4m3(*p);
    case DType::fp8e5m2: return decode_fp8e5m2(*p);
    case DType::fp8e8m0: return decode_fp8e8m0(*p);
  }
  return 0;
}

void TensorData::set(int64_t i, double v) {
  uint8_t* p = bytes.data() + size_t(i) * size_t(dtype_size(dtype));
  double r = round_to_dtype(v, dtype);
  switch (dtype) {
    case DType::fp32: store_le<float>(p, float(r)); break;
    case DType::fp16: store_le<uint16_t>(p, float_to_half(float(r))); break;
    case DType::bf16: store_le<uint16_t>(p, float_to_bf16(float(r))); break;
    case DType::int32: store_le<int32_t>(p, int32_t(r)); break;
    case DType::int8: store_le<int8_t>(p, int8_t(r)); break;
    case DType::uint8: store_le<uint8_t>(p, uint8_t(r)); break;
    case DType::boolean: *p = r != 0 ? 1 : 0; break;
    case DType::int64: store_le<int64_t>(p, r >= 9223372036854775807.0 ? INT64_MAX : int64_t(r)); break;
    case DType::int16: store_le<int16_t>(p, int16_t(r)); break;
    case DType::uint16: store_le<uint16_t>(p, uint16_t(r)); break;
    case DType::uint32: store_le<uint32_t>(p, uint32_t(r)); break;
    case DType::uint64: store_le<uint64_t>(p, r >= 18446744073709551615.0 ? UINT64_MAX : uint64_t(r)); break;
    case DType::fp8e4m3: *p = encode_fp8e4m3(r); break;
    case DType::fp8e5m2: *p = encode_fp8e5m2(r); break;
    case DType::fp8e8m0: *p = encode_fp8e8m0(r); break;
  }
}

namespace {

// The element types we read and write, by NumPy's descr letter code.
enum class NpyType { f2, f4, f8, i1, u1, i4, i8, b1, i2, u2, u4, u8, v1 };

struct NpyHeader {
  NpyType type;
  std::string descr;
  std::vector<int64_t> shape;
};

int npy_size(NpyType t) {
  switch (t) {
    case NpyType::f2: case NpyType::i2: case NpyType::u2: return 2;
    case NpyType::f4: case NpyType::i4: case NpyType::u4: return 4;
    case NpyType::f8: case NpyType::i8: case NpyType::u8: return 8;
    default: return 1;
  }
}

const char* npy_type_name(NpyType t) {
  switch (t) {
    case NpyType::f2: return "float16";
    case NpyType::f4: return "float32";
    case NpyType::f8: return "float64";
    case NpyType::i1: return "int8";
    case NpyType::u1: return "uint8";
    case NpyType::i4: return "int32";
    case NpyType::i8: return "int64";
    case NpyType::b1: return "bool";
    case NpyType::i2: return "int16";
    case NpyType::u2: return "uint16";
    case NpyType::u4: return "uint32";
    case NpyType::u8: return "uint64";
    case NpyType::v1: return "void1";
  }
  return "?";
}

bool npy_is_float(NpyType t) { return t == NpyType::f2 || t == NpyType::f4 || t == NpyType::f8; }
bool npy_is_int(NpyType t) {
  return t == NpyType::i1 || t == NpyType::u1 || t == NpyType::i4 || t == NpyType::i8 || t == NpyType::i2 ||
         t == NpyType::u2 || t == NpyType::u4 || t == NpyType::u8;
}

// What a tensor of `t` accepts, for messages.
std::string accepted(DType t) {
  switch (t) {
    case DType::fp32: case DType::fp16: return "a float16, float32 or float64 array";
    case DType::bf16: return "a float32 array (float16 and float64 are accepted too)";
    case DType::int32: return "an int32 array (other integer arrays are accepted when their values fit)";
    case DType::int8: return "an int8 array (other integer arrays are accepted when their values fit)";
    case DType::uint8: return "a uint8 array (other integer arrays are accepted when their values fit)";
    case DType::boolean: return "a bool array";
    case DType::int64: return "an int64 array (other integer arrays are accepted when their values fit)";
    case DType::int16: return "an int16 array (other integer arrays are accepted when their values fit)";
    case DType::uint16: return "a uint16 array (other integer arrays are accepted when their values fit)";
    case DType::uint32: return "a uint32 array (other integer arrays are accepted when their values fit)";
    case DType::uint64: return "a uint64 array (other integer arrays are accepted when their values fit)";
    case DType::fp8e4m3: case DType::fp8e5m2: case DType::fp8e8m0:
      return "a uint8 ('|u1') or one-byte void ('|V1') array holding the raw 8-bit codes (NumPy has no fp8)";
  }
  return "?";
}

// A tiny reader for the header's Python dict literal: string keys; values are
// strings, True/False, or tuples of non-negative integers.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}

  // Fills descr, fortran, shape; returns an error text or "".
  std::string parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip();
    if (!eat('{')) return "header is not a Python dict";
    skip();
    while (!eat('}')) {
      std::string key;
      if (!string_lit(key)) return "header key is not a string";
      skip();
      if (!eat(':')) return "expected ':' after header key '" + key + "'";
      skip();
      if (key == "descr") {
        if (!string_lit(descr)) return "'descr' is not a string (structured dtypes are not supported)";
        have_descr = true;
      } else if (key == "fortran_order") {
        if (s_.compare(i_, 4, "True") == 0) {
          fortran = true;
          i_ += 4;
        } else if (s_.compare(i_, 5, "False") == 0) {
          fortran = false;
          i_ += 5;
        } else {
          return "'fortran_order' is not True or False";
        }
        have_fortran = true;
      } else if (key == "shape") {
        if (!eat('(')) return "'shape' is not a tuple";
        skip();
        while (!eat(')')) {
          if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return "'shape' holds a non-integer";
          int64_t v = 0;
          while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
            if (v > (int64_t(1) << 50)) return "'shape' holds an absurdly large extent";
            v = v * 10 + (s_[i_++] - '0');
          }
          if (s_.compare(i_, 1, "L") == 0) ++i_;  // Python 2 long suffix
          shape.push_back(v);
          skip();
          if (eat(',')) skip();
          else if (i_ >= s_.size() || s_[i_] != ')') return "malformed 'shape' tuple";
        }
        have_shape = true;
      } else {
        return "unexpected header key '" + key + "'";
      }
      skip();
      if (eat(',')) skip();
      else if (i_ >= s_.size() || s_[i_] != '}') return "malformed header dict";
    }
    if (!have_descr) return "header has no 'descr'";
    if (!have_fortran) return "header has no 'fortran_order'";
    if (!have_shape) return "header has no 'shape'";
    return "";
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool string_lit(std::string& out) {
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return false;
    char q = s_[i_++];
    size_t end = s_.find(q, i_);
    if (end == std::string::npos) return false;
    out = s_.substr(i_, end - i_);
    i_ = end + 1;
    return true;
  }
  const std::string& s_;
  size_t i_ = 0;
};

std::optional<NpyType> parse_descr(const std::string& d, std::string& why) {
  if (d.size() < 2) {
    why = "unknown dtype '" + d + "'";
    return std::nullopt;
  }
  char order = d[0];
  std::string code = d.substr(1);
  if (order == '>' && code != "i1" && code != "u1" && code != "b1" && code != "V1") {
    why = "big-endian array ('" + d + "'); convert it with arr.astype(arr.dtype.newbyteorder('<'))";
    return std::nullopt;
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    why = "unknown dtype '" + d + "'";
    return std::nullopt;
  }
  static const std::pair<const char*, NpyType> table[] = {
      {"f2", NpyType::f2}, {"f4", NpyType::f4}, {"f8", NpyType::f8}, {"i1", NpyType::i1},
      {"u1", NpyType::u1}, {"i4", NpyType::i4}, {"i8", NpyType::i8}, {"b1", NpyType::b1},
      {"i2", NpyType::i2}, {"u2", NpyType::u2}, {"u4", NpyType::u4}, {"u8", NpyType::u8}, {"V1", NpyType::v1}};
  for (const auto& [c, t] : table)
    if (code == c) return t;
  why = "unsupported dtype '" + d + "'";
  return std::nullopt;
}

// Correctly rounded double -> fp16/bf16: first round to float with
// round-to-odd (sticky low bit), then to nearest even; avoids double rounding.
float to_float_round_odd(double d) {
  float f = float(d);
  if (!std::isfinite(d) || double(f) == d || !std::isfinite(f)) return f;
  if (std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);  // truncate toward zero
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  if (s.size() == 1) r += ",";
  return r + ")";
}

}  // namespace

TensorData read_npy_as(const std::string& path, DType dtype, const std::string& tensor) {
  const std::string who = "input '" + tensor + "' (" + path + ")";
  auto fail = [&](const std::string& msg) -> NpyError { return NpyError(who + ": " + msg); };

  const int64_t cap = limits::get(limits::Id::npy_bytes);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw fail(std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail("is a directory, not a .npy file");
  // A device has no size and may never end (/dev/zero); pipes are read up to the cap.
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) throw fail("is a device, not a .npy file");
  auto too_big = [&](const std::string& size) {
    return fail(size + " bytes, more than the .npy size limit of " + std::to_string(cap) + " bytes; " +
                limits::raise_hint(limits::Id::npy_bytes));
  };
  if (S_ISREG(st.st_mode) && st.st_size > cap) throw too_big("the file has " + std::to_string(st.st_size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fail(std::string("cannot open file: ") + std::strerror(errno));
  std::string file;
  try {
    if (S_ISREG(st.st_mode)) file.reserve(size_t(st.st_size));
    char buf[1 << 16];
    while (in) {
      in.read(buf, sizeof buf);
      file.append(buf, size_t(in.gcount()));
      if (int64_t(file.size()) > cap) throw too_big("more than " + std::to_string(cap));
    }
  } catch (const NpyError&) {
    throw;
  } catch (const std::exception& e) {
    throw fail(std::string("read error: ") + e.what());
  }
  if (in.bad()) throw fail(std::string("read error: ") + std::strerror(errno));

  static const char kMagic[] = "\x93NUMPY";
  if (file.size() < 10 || file.compare(0, 6, kMagic, 6) != 0)
    throw fail("not a .npy file (no \\x93NUMPY magic); save arrays with numpy.save");
  int major = static_cast<unsigned char>(file[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = load_le<uint16_t>(reinterpret_cast<const uint8_t*>(file.data() + 8));
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) throw fail("truncated .npy header");
    header_len = load_le<uint32_t>(reinterpret_cast<const uint8_t*>(file.data() + 8));
    header_start = 12;
  } else {
    throw fail("unsupported .npy format version " + std::to_string(major) + "." +
               std::to_string(static_cast<unsigned char>(file[7])) + " (1.0, 2.0 and 3.0 are read)");
  }
  if (file.size() < header_start + header_len) throw fail("truncated .npy header");
  std::string header = file.substr(header_start, header_len);

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  std::string err = HeaderParser(header).parse(descr, fortran, shape);
  if (!err.empty()) throw fail("malformed .npy header: " + err);
  if (fortran)
    throw fail("array is stored in Fortran order; save a C-ordered array (numpy.ascontiguousarray(a))");
  std::string why;
  auto type = parse_descr(descr, why);
  if (!type) throw fail(why + "; a " + std::string(dtype_name(dtype)) + " tensor takes " + accepted(dtype));

  bool ok = false;
  switch (dtype) {
    case DType::fp32: case DType::fp16: case DType::bf16: ok = npy_is_float(*type); break;
    case DType::int32: case DType::int8: case DType::uint8: case DType::int64:
    case DType::int16: case DType::uint16: case DType::uint32: case DType::uint64: ok = npy_is_int(*type); break;
    case DType::boolean: ok = *type == NpyType::b1; break;
    case DType::fp8e4m3: case DType::fp8e5m2: case DType::fp8e8m0:
      ok = *type == NpyType::u1 || *type == NpyType::v1;
      break;
  }
  if (!ok)
    throw fail(std::string("wrong dtype: the tensor is ") + std::string(dtype_name(dtype)) + " and takes " +
               accepted(dtype) + ", but the file holds " + npy_type_name(*type) + " ('" + descr + "')");

  int64_t n = 1;
  for (int64_t s : shape) {
    if (s != 0 && n > std::numeric_limits<int64_t>::max() / 16 / s) throw fail("array shape is too large");
    n *= s;
  }
  size_t data_start = header_start + header_len;
  size_t need = size_t(n) * size_t(npy_size(*type));
  size_t have = file.size() - data_start;
  if (have < need)
    throw fail("truncated file: shape " + shape_str(shape) + " of " + npy_type_name(*type) + " needs " +
               std::to_string(need) + " data bytes but the file has " + std::to_string(have));
  if (have > need)
    throw fail("file has " + std::to_string(have - need) + " bytes after the data of shape " + shape_str(shape) +
               "; not a well-formed .npy file");

  TensorData t = TensorData::zeros(dtype, shape);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(file.data() + data_start);
  const int esz = npy_size(*type);
  if (dtype_is_fp8(dtype)) {  // the bytes are the codes: the spec's dtype says how to read them
    if (n > 0) std::memcpy(t.bytes.data(), p, size_t(n));
    return t;
  }
  if (dtype_is_int(dtype) && npy_is_int(*type)) {
    // Integer array into an integer tensor: exact (never through double), each value checked against the
    // tensor's range; int64 / uint64 keep every bit.
    for (int64_t i = 0; i < n; ++i, p += esz) {
      int64_t sv = 0;    // the value when it is signed or below 2^63
      uint64_t uv = 0;   // the value of a uint64 element
      bool big = false;  // a uint64 element >= 2^63 (held in uv)
      switch (*type) {
        case NpyType::i1: sv = load_le<int8_t>(p); break;
        case NpyType::u1: sv = load_le<uint8_t>(p); break;
        case NpyType::i2: sv = load_le<int16_t>(p); break;
        case NpyType::u2: sv = load_le<uint16_t>(p); break;
        case NpyType::i4: sv = load_le<int32_t>(p); break;
        case NpyType::u4: sv = load_le<uint32_t>(p); break;
        case NpyType::i8: sv = load_le<int64_t>(p); break;
        case NpyType::u8:
          uv = load_le<uint64_t>(p);
          big = uv > uint64_t(INT64_MAX);
          sv = int64_t(uv);
          break;
        default: break;
      }
      bool fits;
      std::string range;
      if (dtype == DType::uint64) {
        fits = big || sv >= 0;
        range = "[0, 18446744073709551615]";
      } else if (dtype == DType::int64) {
        fits = !big;
        range = "[-9223372036854775808, 9223372036854775807]";
      } else {
        const int64_t lo = int64_t(dtype_int_min(dtype)), hi = int64_t(dtype_int_max(dtype));
        fits = !big && sv >= lo && sv <= hi;
        range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      }
      if (!fits)
        throw fail("element " + std::to_string(i) + " = " + (big ? std::to_string(uv) : std::to_string(sv)) +
                   " does not fit " + std::string(dtype_name(dtype)) + " " + range);
      uint8_t* d = t.bytes.data() + size_t(i) * size_t(dtype_size(dtype));
      std::memcpy(d, &sv, size_t(dtype_size(dtype)));  // little-endian: the low bytes are the value
    }
    return t;
  }
  for (int64_t i = 0; i < n; ++i, p += esz) {
    double v = 0;
    switch (*type) {
      case NpyType::f2: v = half_to_float(load_le<uint16_t>(p)); break;
      case NpyType::f4: v = load_le<float>(p); break;
      case NpyType::f8: v = load_le<double>(p); break;
      case NpyType::b1: v = *p != 0 ? 1 : 0; break;
      default: break;  // integer arrays took the exact path above (a float or bool tensor refuses them)
    }
    // float64 into 16-bit floats: round once, correctly (no float32 double rounding).
    if (*type == NpyType::f8 && (dtype == DType::fp16 || dtype == DType::bf16)) v = to_float_round_odd(v);
    t.set(i, v);
  }
  return t;
}

void write_npy(const std::string& path, const TensorData& t) {
  const char* descr = "<f4";
  int esz = 4;
  switch (t.dtype) {
    case DType::fp16: descr = "<f2"; esz = 2; break;
    case DType::fp32: case DType::bf16: descr = "<f4"; esz = 4; break;
    case DType::int32: descr = "<i4"; esz = 4; break;
    case DType::int8: descr = "|i1"; esz = 1; break;
    case DType::uint8: descr = "|u1"; esz = 1; break;
    case DType::boolean: descr = "|b1"; esz = 1; break;
    case DType::int64: descr = "<i8"; esz = 8; break;
    case DType::int16: descr = "<i2"; esz = 2; break;
    case DType::uint16: descr = "<u2"; esz = 2; break;
    case DType::uint32: descr = "<u4"; esz = 4; break;
    case DType::uint64: descr = "<u8"; esz = 8; break;
    case DType::fp8e4m3: case DType::fp8e5m2: case DType::fp8e8m0: descr = "|u1"; esz = 1; break;  // raw codes
  }
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                       shape_str(t.shape) + ", }";
  // Pad with spaces and a final newline so the data starts on a 64-byte boundary.
  size_t prefix = 10;
  size_t total = prefix + header.size() + 1;
  bool v2 = false;
  if (total + 63 > 65535 + prefix) {
    v2 = true;
    prefix = 12;
    total = prefix + header.size() + 1;
  }
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string out("\x93NUMPY", 6);
  out += char(v2 ? 2 : 1);
  out += char(0);
  if (v2) {
    uint32_t len = uint32_t(header.size());
    out.append(reinterpret_cast<const char*>(&len), 4);
  } else {
    uint16_t len = uint16_t(header.size());
    out.append(reinterpret_cast<const char*>(&len), 2);
  }
  out += header;

  const int64_t n = t.numel();
  size_t data_start = out.size();
  out.resize(data_start + size_t(n) * size_t(esz));
  uint8_t* p = reinterpret_cast<uint8_t*>(out.data() + data_start);
  if (t.dtype == DType::bf16) {
    for (int64_t i = 0; i < n; ++i) store_le<float>(p + 4 * i, float(t.get(i)));
  } else if (n > 0) {  // an empty tensor has no bytes (data() may be null)
    std::memcpy(p, t.bytes.data(), size_t(n) * size_t(esz));  // device representation == npy representation
  }

  try {
    write_file_atomic(path, out);  // temporary name, then rename
  } catch (const std::runtime_error& e) {
    throw NpyError(e.what());
  }
}

}  // namespace ptoc
