// The incremental JSON reader (runtime/program/json_stream.h) and the roots section decoded with it
// (runtime/program/bundle.cpp): what a caller streams arrives member by member, with its path, and
// what it captures arrives as the value json::parse builds; a bundle decodes to the same program
// as the one written, and a roots section that is not what the writer writes is refused.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/program/bundle.h"
#include "runtime/program/json_stream.h"
#include "runtime/program/root_tasks.h"
#include "test/hardening/xy_program.h"

using namespace ptoc;
using namespace ptoc::runtime;
using json = nlohmann::json;

namespace {

// Streams the document and every object/array whose path is in `walk`; records the events.
struct Recorder : JsonStreamReader {
  std::vector<std::string> walk;
  std::vector<std::string> events;
  static std::string text(const JsonPath& p) {
    std::string s = "$";
    for (const JsonStep& st : p) s += st.in_array ? "[" + std::to_string(st.index) + "]" : "." + st.key;
    return s;
  }
  bool stream(const JsonPath& p, bool is_array) override {
    const std::string t = text(p);
    for (const std::string& w : walk)
      if (w == t) {
        events.push_back("open " + t + (is_array ? " array" : " object"));
        return true;
      }
    return false;
  }
  void value(const JsonPath& p, json&& v) override { events.push_back(text(p) + " = " + v.dump()); }
  void end(const JsonPath& p) override { events.push_back("end " + text(p)); }
};

std::vector<std::string> events_of(const std::string& doc, std::vector<std::string> walk) {
  Recorder r;
  r.walk = std::move(walk);
  const auto* b = reinterpret_cast<const uint8_t*>(doc.data());
  parse_json_stream(b, b + doc.size(), r);
  return r.events;
}

}  // namespace

TEST_CASE("json stream: streamed containers arrive member by member, captured ones whole") {
  const std::string doc = R"({"a": 1, "big": [[1, 2], {"k": [true, null]}, "s", 2.5], "z": {"y": {"x": -3}}})";
  CHECK(events_of(doc, {"$", "$.big"}) == std::vector<std::string>{
                                             "open $ object",
                                             "$.a = 1",
                                             "open $.big array",
                                             "$.big[0] = [1,2]",
                                             R"($.big[1] = {"k":[true,null]})",
                                             R"($.big[2] = "s")",
                                             "$.big[3] = 2.5",
                                             "end $.big",
                                             R"($.z = {"y":{"x":-3}})",
                                             "end $",
                                         });
  // Nothing streamed: the document arrives as json::parse builds it (a duplicate key keeps the last).
  const std::string dup = R"({"b": [1, {"c": 18446744073709551615}], "a": 1, "a": 2})";
  const auto whole = events_of(dup, {});
  REQUIRE(whole.size() == 1);
  CHECK(whole[0] == "$ = " + json::parse(dup).dump());
}

TEST_CASE("json stream: a syntax error is JsonSyntaxError with json::parse's message") {
  for (const std::string bad : {"", "{", R"({"a": [1, 2})", R"({"a": 1} x)", R"([1, 2,])", "{\"a\": \"\xff\"}"}) {
    std::string parse_text;
    try {
      const json j = json::parse(bad);
      (void)j;
    } catch (const json::exception& e) {
      parse_text = e.what();
    }
    REQUIRE_FALSE(parse_text.empty());
    Recorder r;
    r.walk = {"$", "$.a"};
    const auto* b = reinterpret_cast<const uint8_t*>(bad.data());
    try {
      parse_json_stream(b, b + bad.size(), r);
      FAIL("accepted: " << bad);
    } catch (const JsonSyntaxError& e) {
      CHECK(std::string(e.what()) == parse_text);
    }
  }
}

TEST_CASE("json stream: nesting 100 000 deep neither recurses nor overflows") {
  // Streamed to the innermost array, and captured whole (measured without recursing, as dump() would).
  struct Deepest : JsonStreamReader {
    size_t deepest = 0, captured_depth = 0;
    bool stream(const JsonPath& p, bool) override {
      deepest = std::max(deepest, p.size());
      return p.size() < 50000;
    }
    void value(const JsonPath&, json&& v) override {
      const json* at = &v;
      for (captured_depth = 1; at->is_array() && !at->empty(); ++captured_depth) at = &(*at)[0];
    }
  } r;
  const int depth = 100000;
  const std::string doc = std::string(depth, '[') + std::string(depth, ']');
  const auto* b = reinterpret_cast<const uint8_t*>(doc.data());
  parse_json_stream(b, b + doc.size(), r);
  CHECK(r.deepest == 50000);
  CHECK(r.captured_depth == 50000);
}

namespace {

// x, y [N, 16] fp32; one root of three tasks of one class: 0 -> 1, 0 -> 2; task 2 has its own offset.
CompiledProgram three_tasks() {
  CompiledProgram p = ptoc::test::xy_program("stream");
  Kernel k;
  k.name = "copy";
  k.num_args = 1;
  k.num_gm = 2;
  p.kernels = {k};
  RootFunction r;
  r.index = 0;
  r.name = "top";
  for (int i = 0; i < 3; ++i) {
    Task t;
    t.leaf = 0;
    t.cls = 0;
    t.gm = {0, 1};
    const DimExpr row = i < 2 ? DimExpr(8 * i) : DimExpr::sym("N") - 8;
    t.args = {row};
    t.reads = {Region{0, {row, DimExpr(0)}, {DimExpr(8), DimExpr(16)}, SrcLoc{3, 5}}};
    t.writes = {Region{1, {row, DimExpr(0)}, {DimExpr(8), DimExpr(16)}, SrcLoc{3, 5}}};
    t.op_magic = 100 + i;
    t.label = i == 2 ? "tail" : "";
    r.tasks.push_back(t);
  }
  r.tasks[0].succ = {1, 2};
  r.tasks[1].pred_count = r.tasks[2].pred_count = 1;
  p.roots = {r};
  LoopNode call;
  call.root = 0;
  p.control = {call};
  return p;
}

std::string section_text(const std::vector<uint8_t>& b, const LoadedBundle& lb, const std::string& name) {
  for (const BundleSection& s : lb.sections)
    if (s.name == name) return std::string(reinterpret_cast<const char*>(b.data() + s.offset), s.length);
  return "";
}

// p's bundle with its roots section replaced by edit(roots text).
std::vector<uint8_t> with_roots(const CompiledProgram& p, const std::function<std::string(std::string)>& edit) {
  const std::vector<uint8_t> good = encode_bundle(p, {}, {});
  const LoadedBundle lb = decode_bundle(good, "good");
  return pack_bundle(p, section_text(good, lb, "manifest"), edit(section_text(good, lb, "roots")),
                     section_text(good, lb, "leaves"), section_text(good, lb, "kernels"), {}, {});
}

std::string refusal(const std::vector<uint8_t>& b) {
  try {
    (void)decode_bundle(b, "crafted.bundle");
  } catch (const BundleError& e) {
    return e.what();
  }
  return "accepted";
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("roots section: decoded incrementally, the tasks are the ones written") {
  const CompiledProgram p = three_tasks();
  const LoadedBundle lb = decode_bundle(encode_bundle(p, {}, {}), "three.bundle");
  REQUIRE(lb.program.roots.size() == 1);
  const auto got = resolve_all_tasks(lb.program.roots[0]);
  const auto& want = p.roots[0].tasks;
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("task " << i);
    CHECK(got[i].cls == want[i].cls);
    CHECK(got[i].gm == want[i].gm);
    REQUIRE(got[i].args.size() == 1);
    CHECK(got[i].args[0].str() == want[i].args[0].str());
    REQUIRE(got[i].reads.size() == 1);
    CHECK(got[i].reads[0].offset[0].str() == want[i].reads[0].offset[0].str());
    CHECK(got[i].reads[0].loc.line == 3);
    CHECK(got[i].succ == want[i].succ);
    CHECK(got[i].pred_count == want[i].pred_count);
    CHECK(got[i].op_magic == want[i].op_magic);
    CHECK(got[i].label == want[i].label);
  }
  REQUIRE(lb.program.control.size() == 1);
  CHECK(lb.program.control[0].root == 0);
  // The bundle written again from what was read is the same bytes.
  CompiledProgram again = lb.program;
  CHECK(encode_bundle(again, {}, {}) == encode_bundle(p, {}, {}));
}

TEST_CASE("roots section: what the writer never writes is refused, naming the section") {
  const CompiledProgram p = three_tasks();
  const std::string lead = "crafted.bundle: corrupted bundle: section 'roots' does not have the expected content: ";
  // Unchanged, it loads.
  CHECK(refusal(with_roots(p, [](std::string s) { return s; })) == "accepted");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"instances\":", "\"instancez\":"); })) ==
        lead + "key 'instances' not found");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"explicit\":", "\"explicjt\":"); })) ==
        lead + "key 'explicit' not found");
  CHECK(refusal(with_roots(p, [](std::string s) {
          return replace_once(s, "\"instances\":", "\"instances\":[],\"instances\":");
        })) == lead + "key 'instances' appears twice");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"roots\":[", "\"roots\":[],\"roots\":["); })) ==
        lead + "key 'roots' appears twice");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"roots\":[", "\"roots\":7,\"x\":["); })) ==
        lead + "'roots' is not a list");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"roots\":[", "\"roots\":[3,"); })) ==
        lead + "a root function is not an object");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"instances\":[", "\"instances\":5,\"z\":["); })) ==
        lead + "'instances' is not a list");
  CHECK(refusal(with_roots(p, [](std::string) { return std::string("[1]"); })) == lead + "the section is not an object");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"control\":", "\"contrl\":"); })) ==
        lead + "key 'control' not found");
  // An instance record of five fields, and one whose successor is out of range (validate_compact_root).
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"instances\":[[", "\"instances\":[[0,"); }))
            .find("an instance record is not [template, leaf") != std::string::npos);
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "[1,2]", "[1,9]"); }))
            .find("instance 0: successor 9 out of range") != std::string::npos);
  // A float where an integer belongs (fuzz_bundle: 9.2e19 read by get<int>() was undefined
  // behaviour), in the streamed roots section and in the others.
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "\"op_magic_base\":100", "\"op_magic_base\":9.22337e+19"); })) ==
        lead + "the number 9.22337e+19 is not a 64-bit integer (a fraction, an exponent or too many digits), and a bundle "
                "holds nothing else");
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "[1,2]", "[1,2.0]"); })) ==
        lead + "the number 2.0 is not a 64-bit integer (a fraction, an exponent or too many digits), and a bundle holds "
               "nothing else");
  // The fuzzer's input: an integer of 20 digits, which nlohmann reads as a double.
  CHECK(refusal(with_roots(p, [](std::string s) { return replace_once(s, "[1,2]", "[1,92233720368547758071]"); })) ==
        lead + "the number 92233720368547758071 is not a 64-bit integer (a fraction, an exponent or too many digits), "
               "and a bundle holds nothing else");
  // A syntax error anywhere, also after every root was decoded.
  CHECK(refusal(with_roots(p, [](std::string s) { return s + "]"; })).find("section 'roots' is not valid JSON: "
                                                                           "[json.exception.parse_error.101]") !=
        std::string::npos);
}

TEST_CASE("roots section: read from the file in pieces, the same program as from memory") {
  const CompiledProgram p = three_tasks();
  const std::vector<uint8_t> bytes = encode_bundle(p, {0x7f, 'E', 'L', 'F'}, {1, 2, 3});
  const std::string path = "/tmp/test_json_stream_" + std::to_string(::getpid()) + ".bundle";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  const LoadedBundle a = read_bundle(path), b = decode_bundle(bytes, path);
  CHECK(a.host_twin_so == b.host_twin_so);
  CHECK(a.device_binaries == std::vector<uint8_t>{1, 2, 3});
  CHECK(encode_bundle(a.program, a.host_twin_so, a.device_binaries) == bytes);
  // A flipped byte in the roots section: the checksum computed over the pieces of the file.
  std::vector<uint8_t> bad = bytes;
  for (const BundleSection& s : b.sections)
    if (s.name == "roots") bad[s.offset + s.length / 2] ^= 1;
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bad.data()), std::streamsize(bad.size()));
  }
  try {
    (void)read_bundle(path);
    FAIL("accepted");
  } catch (const BundleError& e) {
    CHECK(std::string(e.what()) == path + ": corrupted bundle: checksum mismatch in section 'roots'");
  }
  std::remove(path.c_str());
}

TEST_CASE("bundle sections: a float in a section parsed whole is refused too") {
  const CompiledProgram p = three_tasks();
  const std::vector<uint8_t> good = encode_bundle(p, {}, {});
  const LoadedBundle lb = decode_bundle(good, "good");
  std::string leaves = section_text(good, lb, "leaves");
  leaves = replace_once(leaves, "\"kernel\": 0", "\"kernel\": 1e300");
  const auto bad = pack_bundle(p, section_text(good, lb, "manifest"), section_text(good, lb, "roots"), leaves,
                               section_text(good, lb, "kernels"), {}, {});
  CHECK(refusal(bad) == "crafted.bundle: corrupted bundle: section 'leaves' does not have the expected content: "
                        "the number 1e+300 is not a 64-bit integer (a fraction, an exponent or too many digits), and a "
                        "bundle holds nothing else");
}
