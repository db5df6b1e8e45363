// pack / unpack in the front end: PyPTO's byte reinterpretation written as one Bitcast op (plus a reshape to
// 1-D for a rank-2+ pack), PyPTO's dtype, rank, divisibility and TileShape rules as located diagnostics.
// Numerics: the conformance specs pack_unpack_dtypes and pack_rank2 (NumPy's .view).
#include "spec_helpers.h"

#include "compiler/op_table.h"

using fe_test::expect_error;
using fe_test::ok;

namespace {

std::string pspec(const std::string& stmts, const std::string& tile = "[16]") {
  return "ptoc: 1\n"
         "name: t\n"
         "dims: {N: 40}\n"
         "inputs:\n"
         "  a: {dtype: int32, shape: [N]}\n"
         "  m: {dtype: fp16, shape: [4, 10]}\n"
         "  b: {dtype: uint8, shape: [N]}\n"
         "  c: {dtype: uint8, shape: [30]}\n"
         "  q: {dtype: bool, shape: [N]}\n"
         "  u2: {dtype: uint8, shape: [4, 10]}\n"
         "outputs:\n"
         "  y: {dtype: uint8, shape: [160]}\n"
         "  z: {dtype: int32, shape: [10]}\n"
         "body:\n"
         "  - {vec_tile: " + tile + "}\n" + stmts;
}
std::string st(const std::string& s) { return "  - \"" + s + "\"\n"; }

const ptoc::Op* find_kind(const ptoc::Program& p, ptoc::OpKind k) {
  for (const auto& op : p.ops)
    if (op.kind == k) return &op;
  return nullptr;
}

}  // namespace

TEST_CASE("pack is a Bitcast to uint8, then a reshape to 1-D for rank 2+", "[frontend][pack]") {
  auto p = ok(pspec(st("y[:] = pack(a)") + st("z[:] = unpack(b, DT_INT32)")));
  const ptoc::Op* bc = find_kind(p, ptoc::OpKind::Bitcast);
  REQUIRE(bc);
  const ptoc::Value& v = p.values[size_t(bc->output)];
  CHECK(v.dtype == ptoc::DType::uint8);
  CHECK(v.shape.at(0).as_const() == 160);
  REQUIRE(bc->vec_tile);
  CHECK(bc->vec_tile->shape == std::vector<int64_t>{64});  // the input's tile [16] in bytes
  auto q = ok(pspec("  - {vec_tile: [2, 4]}\n" + st("t = pack(m)") + st("y[0:80] = t") + "  - {vec_tile: [16]}\n" + st("z[:] = unpack(b, DT_INT32)")));
  const ptoc::Op* b2 = find_kind(q, ptoc::OpKind::Bitcast);
  REQUIRE(b2);
  CHECK(q.values[size_t(b2->output)].shape.at(1).as_const() == 20);
  CHECK(b2->vec_tile->shape == std::vector<int64_t>{2, 8});
  const ptoc::Op* rs = find_kind(q, ptoc::OpKind::Reshape);
  REQUIRE(rs);
  CHECK(q.values[size_t(rs->output)].shape.size() == 1);
  CHECK(q.values[size_t(rs->output)].shape.at(0).as_const() == 80);
  // PyPTO's spellings: the pypto. prefix, the method form, dtype= by keyword
  ok(pspec(st("y[:] = pypto.pack(a)") + st("z[:] = pypto.unpack(b, dtype=pypto.DT_INT32)")));
  ok(pspec(st("y[:] = a.pack()") + st("z[:] = b.unpack(DT_INT32)")));
  CHECK(ptoc::find_pypto_op("pack")->ptoc == "pack");
  CHECK(ptoc::find_pypto_op("unpack")->ptoc == "unpack");
}

TEST_CASE("pack / unpack: PyPTO's rules, located", "[frontend][pack]") {
  expect_error(pspec(st("y[0:40] = pack(q)")), "q)",
               "'pack' takes bf16, fp16, fp32, int32, int64, int8 or uint8 (PyPTO's DT_BF16 ... DT_UINT8), not bool",
               "cast(q, uint8) first");
  expect_error(pspec(st("z[:] = unpack(a, DT_INT32)")), "a, DT",
               "'unpack' takes a uint8 input (PyPTO's DT_UINT8), got int32", "pack(a) gives the uint8 bytes");
  expect_error(pspec(st("z[:] = unpack(u2, DT_INT32)")), "u2,", "'unpack' takes a 1-D input (PyPTO's rule), got rank 2");
  // PyPTO's DT_UINT16 / DT_UINT32 are ptoc dtypes now (issue 13, test_dtype16.cpp): unpack gives them.
  expect_error(pspec(st("z[:] = unpack(b, DT_BOOL)")), "DT_BOOL", "'unpack' gives uint8, int8, int32, int64, fp16, bf16 or fp32");
  expect_error(pspec(st("z[:] = unpack(b, DT_FOO)")), "DT_FOO", "unknown dtype 'DT_FOO'");
  expect_error(pspec(st("z[0:7] = unpack(c, DT_INT32)")), "c, DT",
               "the length 30 of 'c' given to 'unpack' must be a multiple of sizeof(int32) = 4 (PyPTO's rule)");
  expect_error(pspec(st("z[0:8] = unpack(b[0:34], DT_INT32)")), "b[0:34]",
               "given to 'unpack' must be a multiple of sizeof(int32) = 4 (PyPTO's rule)");
  expect_error(pspec(st("z[:] = unpack(b, DT_INT32)"), "[10]"), "unpack(",
               "the vec_tile [10] (set at line 15) of 'unpack' must be a multiple of sizeof(int32) = 4 (PyPTO's rule)",
               "write {vec_tile: [12]}");
  expect_error(pspec(st("y[0:80] = pack(m)")), "pack(",
               "'pack' needs a vec_tile of the input's rank 2 (PyPTO's TileShape), the one in force is [16] (set at line 15)");
  expect_error(pspec(st("y[0:80] = pack(m)"), "[2, 4, 2]"), "pack(", "'pack' needs a vec_tile of the input's rank 2");
}

TEST_CASE("pack without a vec_tile names pack", "[frontend][pack]") {
  const std::string s = "ptoc: 1\nname: t\ninputs:\n  a: {dtype: int32, shape: [8]}\noutputs:\n  y: {dtype: uint8, shape: [32]}\n"
                        "body:\n  - \"y[:] = pack(a)\"\n";
  expect_error(s, "pack(", "no vec_tile in force for 'pack'", "the input's rank, PyPTO's TileShape");
}
