// Binding dims to values from input shapes and --dim switches, with errors
// that say which tensors and axes disagree.
#include "runtime/program/bind_dims.h"

#include "runtime/core/fp8.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>

namespace ptoc {

namespace {

// Where a dynamic dim got its value, for conflict messages.
struct Binding {
  int64_t value = 0;
  std::string where;   // "input x axis 0" or "--dim B=64"
  std::string source;  // "input x axis 0 has 64" or "--dim B=64"
};

std::string declared_shape(const TensorDecl& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + t.shape[i].str();
  return s + "]";
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + ")";
}

}  // namespace

DimExpr::Env bind_dims(const std::vector<DimDecl>& dims, const std::vector<TensorDecl>& tensors,
                       const std::map<std::string, std::vector<int64_t>>& arrays,
                       const std::map<std::string, int64_t>& explicit_dims) {
  DimExpr::Env env;
  std::map<std::string, Binding> bound;  // dynamic dims only
  auto find_dim = [&](const std::string& n) -> const DimDecl* {
    for (const auto& d : dims)
      if (d.name == n) return &d;
    return nullptr;
  };

  for (const auto& d : dims)
    if (!d.dynamic) env[d.name] = d.value;

  // --dim first: it is what the user asked for explicitly.
  for (const auto& [name, v] : explicit_dims) {
    const DimDecl* d = find_dim(name);
    if (!d) {
      std::string names;
      for (const auto& x : dims) names += (names.empty() ? "" : ", ") + x.name;
      throw BindError(fmt::format("--dim {}={}: the spec has no dim '{}' (dims: {})", name, v, name,
                                  names.empty() ? "none" : names));
    }
    if (!d->dynamic) {
      if (v != d->value)
        throw BindError(fmt::format("--dim {}={}: dim {} is static with value {}", name, v, name, d->value));
      continue;
    }
    if (v < 0) throw BindError(fmt::format("--dim {}={}: a dim cannot be negative", name, v));
    bound[name] = {v, fmt::format("--dim {}={}", name, v), fmt::format("--dim {}={}", name, v)};
  }

  // Then every input axis whose declared extent is a bare dynamic dim binds it.
  for (const auto& t : tensors) {
    if (t.role != TensorRole::Input) continue;
    auto it = arrays.find(t.name);
    if (it == arrays.end()) continue;
    const auto& shape = it->second;
    if (shape.size() != t.shape.size())
      throw BindError(fmt::format("input {}: array has rank {} {} but the tensor is declared with rank {} {}", t.name,
                                  shape.size(), shape_text(shape), t.shape.size(), declared_shape(t)));
    for (size_t a = 0; a < shape.size(); ++a) {
      const DimExpr& e = t.shape[a];
      if (e.kind() != DimExpr::Kind::Sym) continue;
      const DimDecl* d = find_dim(e.name());
      if (!d || !d->dynamic) continue;
      std::string src = fmt::format("input {} axis {}", t.name, a);
      auto b = bound.find(d->name);
      if (b == bound.end()) {
        bound[d->name] = {shape[a], src, fmt::format("{} has {}", src, shape[a])};
      } else if (b->second.value != shape[a]) {
        throw BindError(fmt::format("dim {}: {} but {} has {}", d->name, b->second.source, src, shape[a]));
      }
    }
  }

  // Range checks of the dynamic dims, and unbound ones.
  for (const auto& d : dims) {
    if (!d.dynamic) continue;
    auto b = bound.find(d.name);
    if (b == bound.end()) continue;  // may still be unbound; reported below only if some shape needs it
    int64_t v = b->second.value;
    if (d.max > 0 && v > d.max)
      throw BindError(fmt::format("dim {} = {} (from {}) exceeds its declared max {}", d.name, v, b->second.where,
                                  d.max));
    if (d.divisible_by > 1 && v % d.divisible_by != 0)
      throw BindError(fmt::format("dim {} = {} (from {}) is not divisible by {} as the spec declares "
                                  "(divisible_by: {})",
                                  d.name, v, b->second.where, d.divisible_by, d.divisible_by));
    env[d.name] = v;
  }
  for (const auto& d : dims) {
    if (d.dynamic && !env.count(d.name)) {
      std::string users;
      for (const auto& t : tensors) {
        std::vector<std::string> syms;
        for (const auto& e : t.shape) e.collect_symbols(syms);
        for (const auto& s : syms)
          if (s == d.name) {
            users += (users.empty() ? "" : ", ") + t.name;
            break;
          }
      }
      throw BindError(fmt::format("dim {} is dynamic and no input binds it{}; give an input whose shape has {} "
                                  "as an axis, or --dim {}=VALUE",
                                  d.name, users.empty() ? "" : " (used by " + users + ")", d.name, d.name));
    }
  }

  // Every axis of every given input must now agree with its declared extent.
  for (const auto& t : tensors) {
    if (t.role != TensorRole::Input) continue;
    auto it = arrays.find(t.name);
    if (it == arrays.end()) continue;
    const auto& shape = it->second;
    for (size_t a = 0; a < shape.size(); ++a) {
      int64_t want = 0;
      try {
        want = t.shape[a].eval(env);
      } catch (const std::exception& e) {
        throw BindError(fmt::format("input {} axis {}: cannot evaluate its extent {}: {}", t.name, a,
                                    t.shape[a].str(), e.what()));
      }
      if (want != shape[a]) {
        const DimExpr& e = t.shape[a];
        std::string what = e.is_const() ? fmt::format("{}", want) : fmt::format("{} = {}", e.str(), want);
        throw BindError(fmt::format("input {} axis {} has {} but the tensor is declared {} with {} on that axis "
                                    "(array shape {})",
                                    t.name, a, shape[a], declared_shape(t), what, shape_text(shape)));
      }
    }
  }
  return env;
}

std::vector<int64_t> concrete_shape(const TensorDecl& t, const DimExpr::Env& env) {
  std::vector<int64_t> s;
  for (size_t a = 0; a < t.shape.size(); ++a) {
    int64_t v = 0;
    try {
      v = t.shape[a].eval(env);
    } catch (const std::exception& e) {
      throw BindError(fmt::format("tensor {} axis {}: cannot evaluate its extent {}: {}", t.name, a,
                                  t.shape[a].str(), e.what()));
    }
    if (v < 0)
      throw BindError(fmt::format("tensor {} axis {}: extent {} evaluates to {}", t.name, a, t.shape[a].str(), v));
    s.push_back(v);
  }
  return s;
}

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// FNV-1a: a fixed, platform-independent string hash (std::hash is neither).
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

TensorData random_tensor(DType dtype, const std::vector<int64_t>& shape, uint64_t seed, const std::string& name) {
  TensorData t = TensorData::zeros(dtype, shape);
  uint64_t state = seed ^ fnv1a(name);
  for (int64_t s : shape) state = state * 0x100000001b3ull + uint64_t(s);
  const int64_t n = t.numel();
  // Stored directly, the bits t.set(i, v) stores: a float rounded once (v is finite, never -0), an integer
  // exactly (set's round_to_dtype round trip is the identity on these values, and costs more than the draw).
  uint8_t* p = t.bytes.data();
  auto put = [&](int64_t i, auto x) { std::memcpy(p + size_t(i) * sizeof x, &x, sizeof x); };
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = splitmix64(state);
    const float u = float(double(r >> 11) * 0x1.0p-53 * 2.0 - 1.0);  // uniform in [-1, 1)
    const int64_t k = int64_t(r % 17) - 8;                            // -8..8
    switch (dtype) {
      case DType::fp32: put(i, u); break;
      case DType::fp16: put(i, float_to_half(u)); break;
      case DType::bf16: put(i, float_to_bf16(u)); break;
      case DType::int32: put(i, int32_t(k)); break;
      case DType::int8: put(i, int8_t(k)); break;
      case DType::int64: put(i, k); break;
      case DType::uint8: put(i, uint8_t(r % 17)); break;  // 0..16
      case DType::boolean: put(i, uint8_t(r & 1)); break;
      case DType::int16: put(i, int16_t(k)); break;
      case DType::uint16: put(i, uint16_t(r % 17)); break;
      case DType::uint32: put(i, uint32_t(r % 17)); break;
      case DType::uint64: put(i, uint64_t(r % 17)); break;
      case DType::fp8e4m3: put(i, encode_fp8e4m3(u)); break;
      case DType::fp8e5m2: put(i, encode_fp8e5m2(u)); break;
      case DType::fp8e8m0: put(i, uint8_t(120 + r % 15)); break;  // 2^-7 .. 2^7
    }
  }
  return t;
}

TensorData random_input(const TensorDecl& d, const std::vector<int64_t>& shape, uint64_t seed) {
  if (d.values_hi < d.values_lo) return random_tensor(d.dtype, shape, seed, d.name);
  TensorData t = TensorData::zeros(d.dtype, shape);
  uint64_t state = seed ^ fnv1a(d.name);
  for (int64_t s : shape) state = state * 0x100000001b3ull + uint64_t(s);
  const uint64_t span = uint64_t(d.values_hi - d.values_lo) + 1;
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, double(d.values_lo + int64_t(splitmix64(state) % span)));
  return t;
}

int64_t parse_integer(const std::string& text, const std::string& what) {
  try {
    size_t used = 0;
    int64_t x = std::stoll(text, &used);
    if (used == text.size()) return x;
  } catch (const std::exception&) {
  }
  throw BindError(what + ": '" + text + "' is not an integer");
}

std::map<std::string, std::string> parse_assignments(const std::vector<std::string>& items, const std::string& flag) {
  std::map<std::string, std::string> out;
  for (const auto& it : items) {
    size_t eq = it.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == it.size())
      throw BindError(fmt::format("{} '{}': expected NAME=VALUE", flag, it));
    std::string name = it.substr(0, eq);
    if (out.count(name)) throw BindError(fmt::format("{} {} is given twice", flag, name));
    out[name] = it.substr(eq + 1);
  }
  return out;
}

}  // namespace ptoc
