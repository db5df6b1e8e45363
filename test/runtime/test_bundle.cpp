// Bundle file: round trip, determinism, and refusal of damaged or foreign files.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "programs.h"
#include "runtime/program/bundle.h"
#include "runtime/core/dim_expr_parse.h"
#include "runtime/program/root_tasks.h"

using namespace ptoc;
using namespace ptoc::runtime;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> fake_so() {
  std::vector<uint8_t> b(3000);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(i * 7 + 3);
  return b;
}

CompiledProgram rich_program() {
  CompiledProgram p = test::flip_program();
  MergeSetting::Entry e;
  e.key = MergeSetting::Entry::Key::Func;
  e.name = "func8_0";
  e.func_magic = 8;
  e.func_order = 0;
  e.count = 2;
  e.side = "left";
  e.loc = {12, 9};
  p.options.cube_l1_reuse_setting.given = true;
  p.options.cube_l1_reuse_setting.entries = {e};
  p.options.stitch_function_max_num = 4;
  p.options.max_workspace_kb = 32;
  p.options.runtime_debug_mode = 1;
  p.tensors[0].format = Format::NZ;
  p.tensors[1].l2_bypass = true;
  p.leaves[1].core = CoreType::AIC;
  return p;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    decode_bundle(bytes, "op.bundle");
  } catch (const BundleError& e) {
    return e.what();
  }
  return "";
}

fs::path temp_path(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("ptoc-rt-test-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

}  // namespace

TEST_CASE("dim expression text parses back to the same expression") {
  DimExpr B = DimExpr::sym("B"), i = DimExpr::sym("i"), k = DimExpr::sym("k");
  std::vector<DimExpr> es = {DimExpr(0),
                             DimExpr(-3),
                             B,
                             B + i * 64,
                             B - (i - k),
                             B - -i,
                             -(B + 1),
                             floordiv(B, 16) - 1 - i,
                             mod(B * 3, k + 2),
                             ceil_div(B - i * 16, 64) * (k + 1),
                             min(B - i * 64, 64) + max(k, DimExpr(1) - i),
                             B * (i * k),
                             floordiv(B, floordiv(i, 2)),
                             i + DimExpr(-5)};
  for (auto& e : es) {
    DimExpr back = parse_dim_expr(e.str());
    CHECK(back.str() == e.str());
    DimExpr::Env env{{"B", 1000}, {"i", 7}, {"k", 3}};
    CHECK(back.eval(env) == e.eval(env));
  }
  CHECK_THROWS_WITH(parse_dim_expr("B + * 2"), Catch::Contains("column 5"));
  CHECK_THROWS_WITH(parse_dim_expr("foo(B, 2)"), Catch::Contains("unknown function 'foo'"));
  CHECK_THROWS_WITH(parse_dim_expr("(B + 2"), Catch::Contains("expected ')'"));
}

TEST_CASE("bundle round trip keeps every field") {
  CompiledProgram p = rich_program();
  auto so = fake_so();
  std::vector<uint8_t> dev = {1, 2, 3};
  auto bytes = encode_bundle(p, so, dev);
  LoadedBundle b = decode_bundle(bytes, "op.bundle");
  CHECK(b.format_version == kBundleFormatVersion);
  CHECK(b.toolchain == std::string("ptoc ") + PTOC_VERSION);
  CHECK(b.host_twin_so == so);
  CHECK(b.device_binaries == dev);
  const CompiledProgram& q = b.program;
  CHECK(q.name == p.name);
  CHECK(q.doc == p.doc);
  CHECK(q.spec_source == p.spec_source);
  CHECK(q.set_overrides == p.set_overrides);
  REQUIRE(q.dims.size() == 2);
  CHECK(q.dims[0].dynamic);
  CHECK(q.dims[0].divisible_by == 16);
  CHECK(q.dims[0].loc.line == 3);
  CHECK(q.dims[1].value == 64);
  REQUIRE(q.tensors.size() == p.tensors.size());
  CHECK(q.tensors[0].format == Format::NZ);
  CHECK(q.tensors[1].l2_bypass);
  CHECK(q.tensors[4].role == GmTensor::Role::Temp);
  CHECK(q.tensors[4].shape[0].str() == "16 * k");
  CHECK(q.options.stitch_function_max_num == 4);
  CHECK(q.options.max_workspace_kb == 32);
  CHECK(q.options.runtime_debug_mode == 1);
  REQUIRE(q.options.cube_l1_reuse_setting.entries.size() == 1);
  CHECK(q.options.cube_l1_reuse_setting.entries[0].side == "left");
  CHECK(q.options.cube_l1_reuse_setting.entries[0].func_magic == 8);
  REQUIRE(q.leaves.size() == 3);
  CHECK(q.leaves[1].core == CoreType::AIC);
  CHECK(q.leaves[2].est_cycles == 262);
  CHECK(q.leaves[2].pipe_cycles[4] == 52);
  CHECK(q.leaves[0].merge_info == p.leaves[0].merge_info);
  REQUIRE(q.kernels.size() == 3);
  CHECK(q.kernels[2].name == "flip_add");
  CHECK(q.kernels[2].num_gm == 2);
  REQUIRE(q.roots.size() == 3);
  CHECK(task_at(q.roots[2], 0).args[0].str() == "(N // 16 - 1 - j) * 16");
  CHECK(task_succ(q.roots[0], 0) == std::vector<int>{1});
  CHECK(task_at(q.roots[0], 0).label == "ADD");
  CHECK(task_at(q.roots[0], 1).writes[0].offset[0].str() == "i * 16");
  REQUIRE(q.control.size() == 2);
  CHECK(q.control[0].gears.size() == 2);
  CHECK(q.control[0].gears[0].factor == 4);
  CHECK(q.control[0].factor_var == "k");
  CHECK(q.control[0].end.str() == "N // 16");
  CHECK(q.control[0].loc.line == 7);
  // Re-encoding what was read gives the very same bytes: nothing was lost or reordered.
  CHECK(encode_bundle(q, b.host_twin_so, b.device_binaries) == bytes);
}

TEST_CASE("bundle bytes are deterministic and written atomically") {
  CompiledProgram p = rich_program();
  auto a = encode_bundle(p, fake_so());
  auto b = encode_bundle(rich_program(), fake_so());
  CHECK(a == b);
  fs::path f = temp_path("det.bundle");
  write_bundle(f.string(), p, fake_so());
  std::ifstream in(f, std::ios::binary);
  std::vector<uint8_t> disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(disk == a);
  // No temporary left beside it.
  int n = 0;
  for (auto& e : fs::directory_iterator(f.parent_path())) n += e.path().filename().string().rfind("det.bundle", 0) == 0;
  CHECK(n == 1);
  LoadedBundle lb = read_bundle(f.string());
  CHECK(lb.program.name == "flip");
  CHECK(lb.sections.size() == 5);
  CHECK(lb.sections[0].name == "manifest");
  CHECK(lb.sections[4].name == "host_twin");
  CHECK(lb.sections[4].length == 3000);
  // Writing into a folder that does not exist fails cleanly.
  CHECK_THROWS_WITH(write_bundle((f.parent_path() / "no/such/dir/x.bundle").string(), p, {}),
                    Catch::Contains("cannot write the bundle"));
}

TEST_CASE("damaged, truncated and foreign bundles are refused with a clear message") {
  auto good = encode_bundle(rich_program(), fake_so());
  REQUIRE(error_of(good).empty());

  SECTION("wrong magic") {
    auto b = good;
    b[0] = 'X';
    CHECK_THAT(error_of(b), Catch::Contains("not a ptoc bundle"));
    CHECK_THAT(error_of({'h', 'i'}), Catch::Contains("not a ptoc bundle"));
  }
  SECTION("other format version") {
    auto b = good;
    b[8] = uint8_t(kBundleFormatVersion + 1);
    CHECK(error_of(b) == "op.bundle: bundle format " + std::to_string(kBundleFormatVersion + 1) +
                             ", this ptorun reads format " + std::to_string(kBundleFormatVersion) +
                             ": recompile with this ptoc");
  }
  SECTION("truncated") {
    for (size_t keep : {size_t(12), size_t(40), good.size() / 2, good.size() - 1}) {
      std::vector<uint8_t> b(good.begin(), good.begin() + long(keep));
      CHECK_THAT(error_of(b), Catch::Contains("truncated"));
    }
  }
  SECTION("checksum mismatch names the section") {
    LoadedBundle lb = decode_bundle(good, "op.bundle");
    for (auto& s : lb.sections) {
      auto b = good;
      b[s.offset + s.length / 2] ^= 0x20;
      CHECK(error_of(b) == "op.bundle: corrupted bundle: checksum mismatch in section '" + s.name + "'");
    }
  }
  SECTION("damaged section table") {
    auto b = good;
    b[16 + 20] ^= 1;  // an offset in the table
    CHECK_THAT(error_of(b), Catch::Contains("header checksum"));
  }
  SECTION("missing file") {
    CHECK_THROWS_WITH(read_bundle("/nonexistent/op.bundle"), Catch::Contains("cannot open the bundle"));
  }
}
