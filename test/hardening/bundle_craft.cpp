// Crafts a hostile bundle from a valid one, as an attacker would: one field changed, then every
// checksum recomputed (and the sections laid out again where their sizes change), so that only
// the reader's own checks stand between the file and a run (issue 12). Used by crafted_bundles.py.
//   bundle_craft IN OUT MUTATION
// MUTATIONS (below) lists them; "none" re-packs IN unchanged and must give IN's bytes.
#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/program/leaf_program.h"

namespace {

using json = nlohmann::json;
using Bytes = std::vector<uint8_t>;

uint64_t get(const Bytes& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(b[at + size_t(i)]) << (8 * i);
  return v;
}
void put(Bytes& b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}

struct Section {
  std::string name;
  std::string data;
};

std::vector<Section> unpack(const Bytes& b) {
  std::vector<Section> out;
  const uint32_t n = uint32_t(get(b, 12, 4));
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = 16 + 48 * size_t(i);
    Section s;
    s.name.assign(reinterpret_cast<const char*>(b.data() + e), strnlen(reinterpret_cast<const char*>(b.data() + e), 16));
    const uint64_t off = get(b, e + 16, 8), len = get(b, e + 24, 8);
    s.data.assign(reinterpret_cast<const char*>(b.data() + off), size_t(len));
    out.push_back(std::move(s));
  }
  return out;
}

// The writer's layout (runtime/program/bundle.cpp, pack_sections): every checksum recomputed.
Bytes pack(const Bytes& head, const std::vector<Section>& ss) {
  const size_t table_end = 16 + 48 * ss.size() + 8;
  auto align = [](size_t x) { return (x + 63) / 64 * 64; };
  std::vector<size_t> off;
  size_t pos = align(table_end);
  for (auto& s : ss) {
    off.push_back(pos);
    pos = align(pos + s.data.size());
  }
  Bytes out(ss.empty() ? table_end : off.back() + ss.back().data.size(), 0);
  std::memcpy(out.data(), head.data(), 12);
  put(out, 12, ss.size(), 4);
  for (size_t i = 0; i < ss.size(); ++i) {
    const size_t e = 16 + 48 * i;
    std::memcpy(out.data() + e, ss[i].name.data(), std::min<size_t>(ss[i].name.size(), 15));
    put(out, e + 16, off[i], 8);
    put(out, e + 24, ss[i].data.size(), 8);
    put(out, e + 32, XXH64(ss[i].data.data(), ss[i].data.size(), 0), 8);
    std::memcpy(out.data() + off[i], ss[i].data.data(), ss[i].data.size());
  }
  put(out, table_end - 8, XXH64(out.data(), table_end - 8, 0), 8);
  return out;
}

// Recomputes the header checksum and each section's, in place (the layout left as it is).
void fix_checksums(Bytes& b) {
  const uint32_t n = uint32_t(get(b, 12, 4));
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = 16 + 48 * size_t(i);
    const uint64_t off = get(b, e + 16, 8), len = get(b, e + 24, 8);
    if (off <= b.size() && len <= b.size() - off) put(b, e + 32, XXH64(b.data() + off, len, 0), 8);
  }
  const size_t table_end = 16 + 48 * size_t(n) + 8;
  put(b, table_end - 8, XXH64(b.data(), table_end - 8, 0), 8);
}

Section& find(std::vector<Section>& ss, const std::string& name) {
  for (auto& s : ss)
    if (s.name == name) return s;
  throw std::runtime_error("no section " + name);
}

// A change to one JSON section, written back with nlohmann's dump (key order as the writer's).
void edit(std::vector<Section>& ss, const std::string& name, const std::function<void(json&)>& f) {
  Section& s = find(ss, name);
  json j = json::parse(s.data);
  f(j);
  s.data = j.dump(name == "roots" ? -1 : 1);
}

// A change to the first kernel's leaf program (decoded, edited, encoded again).
void edit_leaf_program(std::vector<Section>& ss, const std::function<void(ptoc::leaf::LeafProgram&)>& f) {
  Section& s = find(ss, "leaf_programs");
  Bytes d(s.data.begin(), s.data.end());
  const uint64_t len = get(d, 4, 8);
  ptoc::leaf::LeafProgram p = ptoc::leaf::decode_leaf_program(d.data() + 12, size_t(len));
  f(p);
  const std::vector<uint8_t> enc = ptoc::leaf::encode_leaf_program(p);
  Bytes out(d.begin(), d.begin() + 4);
  out.resize(12);
  put(out, 4, enc.size(), 8);
  out.insert(out.end(), enc.begin(), enc.end());
  out.insert(out.end(), d.begin() + 12 + std::ptrdiff_t(len), d.end());
  s.data.assign(out.begin(), out.end());
}

// The first call of `fn` in the first kernel that has one (the leaf programs decoded, that call
// edited, all encoded again).
void edit_call(std::vector<Section>& ss, ptoc::leaf::Fn fn, const std::function<void(ptoc::leaf::Instr&)>& f) {
  Section& s = find(ss, "leaf_programs");
  const Bytes d(s.data.begin(), s.data.end());
  const uint32_t n = uint32_t(get(d, 0, 4));
  Bytes out(d.begin(), d.begin() + 4);
  size_t at = 4;
  bool done = false;
  for (uint32_t k = 0; k < n; ++k) {
    const uint64_t len = get(d, at, 8);
    std::vector<uint8_t> prog(d.begin() + std::ptrdiff_t(at + 8), d.begin() + std::ptrdiff_t(at + 8 + len));
    at += 8 + size_t(len);
    if (!done && len) {
      ptoc::leaf::LeafProgram p = ptoc::leaf::decode_leaf_program(prog.data(), prog.size());
      for (auto& in : p.instrs)
        if (in.kind == ptoc::leaf::InstrKind::Call && in.fn == fn) {
          f(in);
          done = true;
          prog = ptoc::leaf::encode_leaf_program(p);
          break;
        }
    }
    const size_t e = out.size();
    out.resize(e + 8);
    put(out, e, prog.size(), 8);
    out.insert(out.end(), prog.begin(), prog.end());
  }
  if (!done) throw std::runtime_error("no such call");
  s.data.assign(out.begin(), out.end());
}

// An operand set to a constant, or to argument 0 times a constant.
void set_const(ptoc::leaf::Instr& in, size_t k, int64_t v) { in.operands.at(k).expr.toks = {{ptoc::leaf::ExprOp::Const, v}}; }
void set_arg_times(ptoc::leaf::Instr& in, size_t k, int64_t v) {
  using ptoc::leaf::ExprOp;
  in.operands.at(k).expr.toks = {{ExprOp::Arg, 0}, {ExprOp::Const, v}, {ExprOp::Mul, 0}};
}

// The first call of `fn` in `p`.
ptoc::leaf::Instr& first_call(ptoc::leaf::LeafProgram& p, ptoc::leaf::Fn fn) {
  for (auto& in : p.instrs)
    if (in.kind == ptoc::leaf::InstrKind::Call && in.fn == fn) return in;
  throw std::runtime_error("no such call");
}

json& first_root(json& j) { return j.at("roots").at(0); }

// The loop nest `depth` loops deep around root 0, as text (a recursive dump would overflow here).
std::string deep_control(int depth) {
  const std::string open =
      "{\"begin\":\"0\",\"end\":\"2\",\"factor_var\":\"\",\"gears\":[{\"body\":[";
  const std::string close = "],\"factor\":1}],\"kind\":\"loop\",\"loc\":[1,1],\"name\":\"l\",\"step\":\"1\",\"var\":\"i\"}";
  std::string s;
  s.reserve(size_t(depth) * (open.size() + close.size()) + 64);
  for (int i = 0; i < depth; ++i) s += open;
  s += "{\"kind\":\"root\",\"root\":0}";
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: bundle_craft IN OUT MUTATION\n";
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  Bytes in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string m = argv[3];
  std::vector<Section> ss = unpack(in);
  Bytes out;
  bool repack = true;
  try {
    if (m == "none") {
    } else if (m == "arg_offset") {  // the first template's first argument (a row offset): 100000000
      edit(ss, "roots", [](json& j) { first_root(j).at("templates").at(0).at("args").at(0) = "100000000"; });
    } else if (m == "arg_extent") {  // its third (the valid rows of the first load): 100000
      edit(ss, "roots", [](json& j) { first_root(j).at("templates").at(0).at("args").at(2) = "100000"; });
    } else if (m == "tile_extent") {  // the first load's tile rows x 8: past its buffer
      edit_leaf_program(ss, [](ptoc::leaf::LeafProgram& p) { first_call(p, ptoc::leaf::Fn::TLOAD).tparams.at(1).v *= 8; });
    } else if (m == "buffer_offset") {  // the first load's buffer offset: 1000000 elements
      edit_leaf_program(ss, [](ptoc::leaf::LeafProgram& p) {
        first_call(p, ptoc::leaf::Fn::TLOAD).operands.at(0).expr.toks = {{ptoc::leaf::ExprOp::Const, 1000000}};
      });
    } else if (m == "buffer_offset_arg") {  // ... arg0 * 100000 elements: inside for the first instance only
      edit_leaf_program(ss, [](ptoc::leaf::LeafProgram& p) {
        using ptoc::leaf::ExprOp;
        first_call(p, ptoc::leaf::Fn::TLOAD).operands.at(0).expr.toks = {
            {ExprOp::Arg, 0}, {ExprOp::Const, 100000}, {ExprOp::Mul, 0}};
      });
    } else if (m == "reduce_cols") {  // a row reduction's valid columns: 100000 (softmax)
      edit_call(ss, ptoc::leaf::Fn::TREDUCE, [](ptoc::leaf::Instr& in) { set_const(in, 3, 100000); });
    } else if (m == "reduce_rows") {  // ... its valid rows, one result each: 100000
      edit_call(ss, ptoc::leaf::Fn::TREDUCE, [](ptoc::leaf::Instr& in) { set_const(in, 2, 100000); });
    } else if (m == "reduce_cols_arg") {  // ... arg0 x 4096 columns: only the bound dims tell
      edit_call(ss, ptoc::leaf::Fn::TREDUCE, [](ptoc::leaf::Instr& in) { set_arg_times(in, 3, 4096); });
    } else if (m == "transpose_cols") {  // a transpose's valid columns: 100000 (transpose_tiles)
      edit_call(ss, ptoc::leaf::Fn::TTRANSPOSE, [](ptoc::leaf::Instr& in) { set_const(in, 3, 100000); });
    } else if (m == "extract_row") {  // an L0A extract's first row in its L1 tile: 100000 (matmul)
      edit_call(ss, ptoc::leaf::Fn::TEXTRACT_L0A, [](ptoc::leaf::Instr& in) { set_const(in, 2, 100000); });
    } else if (m == "mmad_k") {  // a matmul's valid K: 100000 (matmul)
      edit_call(ss, ptoc::leaf::Fn::TMMAD, [](ptoc::leaf::Instr& in) { set_const(in, 4, 100000); });
    } else if (m == "buffer_addr") {  // the first buffer placed past the end of its memory
      edit_leaf_program(ss, [](ptoc::leaf::LeafProgram& p) { p.buffers.at(0).addr = 1 << 20; });
    } else if (m == "successor") {
      edit(ss, "roots", [](json& j) { first_root(j).at("instances").at(0).at(4) = json::array({999999}); });
    } else if (m == "float_value") {  // a double where an int is read (fuzz_bundle: get<int>() of it was undefined)
      edit(ss, "roots", [](json& j) { first_root(j).at("op_magic_base") = 9.2e19; });
    } else if (m == "class") {
      edit(ss, "roots", [](json& j) { first_root(j).at("templates").at(0).at("class") = 4242; });
    } else if (m == "gm_slots") {  // one GM slot fewer than the kernel reads
      edit(ss, "roots", [](json& j) {
        auto& g = first_root(j).at("templates").at(0).at("gm");
        g.erase(g.size() - 1);
      });
    } else if (m == "deltas") {  // an instance with one delta too many
      edit(ss, "roots", [](json& j) {
        for (auto& r : first_root(j).at("instances"))
          if (r.at(0).get<int>() >= 0) {
            r.at(5).push_back(7);
            break;
          }
      });
    } else if (m == "region_tensor") {
      edit(ss, "roots", [](json& j) { first_root(j).at("templates").at(0).at("reads").at(0).at("tensor") = 77; });
    } else if (m == "control_root") {
      edit(ss, "roots", [](json& j) { j.at("control") = json::array({json{{"kind", "root"}, {"root", 99}}}); });
    } else if (m == "load_tensor") {  // a run-time value read from a tensor that does not exist
      edit(ss, "roots", [](json& j) {
        j.at("control").at(0)["loads"] =
            json::array({json{{"sym", "x__0"}, {"tensor", 99}, {"index", json::array()}, {"text", "x[0]"},
                              {"loc", json::array({1, 1})}}});
      });
    } else if (m == "depth") {  // control flow 20 000 loops deep
      Section& s = find(ss, "roots");
      json j = json::parse(s.data);
      j.at("control") = json::array();
      std::string t = j.dump(-1);
      const std::string key = "\"control\":[]";
      t.replace(t.find(key), key.size(), "\"control\":[" + deep_control(20000) + "]");
      s.data = t;
    } else if (m == "leaf_kernel") {
      edit(ss, "leaves", [](json& j) { j.at(0).at("kernel") = 99; });
    } else if (m == "leaf_id") {
      edit(ss, "leaves", [](json& j) { j.at(0).at("id") = 5; });
    } else if (m == "temp_root") {
      edit(ss, "manifest", [](json& j) {
        for (auto& t : j.at("tensors"))
          if (t.at("role") == "temp") {
            t.at("root") = 50;
            return;
          }
        j.at("tensors").at(0).at("root") = 50;
      });
    } else if (m == "kernel_count") {  // the leaf_programs section's kernel count
      Section& s = find(ss, "leaf_programs");
      s.data[0] = char(uint8_t(s.data[0]) + 1);
    } else if (m == "leaf_program_truncated") {
      Section& s = find(ss, "leaf_programs");
      s.data.resize(s.data.size() - 3);
    } else if (m == "roots_truncated") {
      Section& s = find(ss, "roots");
      s.data.resize(s.data.size() / 2);
    } else {
      repack = false;
    }
    out = pack(in, ss);
    if (!repack) {  // byte-level changes after a faithful re-pack
      if (m == "padding") {  // flip the first padding byte after the section table (24 + 48 N is never 64-aligned)
        out[16 + 48 * size_t(get(out, 12, 4)) + 8] ^= 0x5a;
      } else if (m == "trailing") {
        out.insert(out.end(), 4096, uint8_t(0xab));
      } else if (m == "truncated_file") {
        out.resize(out.size() - 100);
      } else if (m == "section_count") {
        put(out, 12, 65, 4);
      } else if (m == "reserved") {
        put(out, 16 + 40, 1, 8);
      } else if (m == "overlap") {  // the second section's offset moved onto the first
        put(out, 16 + 48 + 16, get(out, 16 + 16, 8), 8);
      } else if (m == "magic") {  // one byte of the magic
        out[3] ^= 0x20;
      } else if (m == "version") {  // the format version + 1
        put(out, 8, get(out, 8, 4) + 1, 4);
      } else if (m == "header_checksum" || m == "section_checksum" || m == "payload") {
        // Byte flips the checksums must catch: the header checksum, a section's checksum, a payload byte.
        if (m == "header_checksum") out[16 + 48 * size_t(get(out, 12, 4))] ^= 1;
        if (m == "section_checksum") {  // the first section's checksum, the header checksum made to fit
          out[16 + 32] ^= 1;
          const size_t table_end = 16 + 48 * size_t(get(out, 12, 4)) + 8;
          put(out, table_end - 8, XXH64(out.data(), table_end - 8, 0), 8);
        }
        if (m == "payload") out[size_t(get(out, 16 + 48 + 16, 8)) + 5] ^= 1;
        std::ofstream o(argv[2], std::ios::binary);
        o.write(reinterpret_cast<const char*>(out.data()), std::streamsize(out.size()));
        return o ? 0 : 2;
      } else {
        std::cerr << "bundle_craft: unknown mutation " << m << "\n";
        return 2;
      }
      fix_checksums(out);
    }
  } catch (const std::exception& e) {
    std::cerr << "bundle_craft: " << m << ": " << e.what() << "\n";
    return 2;
  }
  std::ofstream o(argv[2], std::ios::binary);
  o.write(reinterpret_cast<const char*>(out.data()), std::streamsize(out.size()));
  return o ? 0 : 2;
}
