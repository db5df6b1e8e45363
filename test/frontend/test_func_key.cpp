// func_key.h: PyPTO's func{magic}_{order} keys, integer texts and configuration-call heads, scanned
// without std::regex (which recursed once per character).
#include <catch2/catch.hpp>

#include <string>

#include "compiler/frontend/func_key.h"

using ptoc::fe::call_head;
using ptoc::fe::func_key;
using ptoc::fe::is_integer_text;

TEST_CASE("func_key takes func DIGITS _ DIGITS, the whole text", "[frontend][func_key]") {
  auto k = func_key("func3_12");
  REQUIRE(k);
  CHECK(k->magic == "3");
  CHECK(k->order == "12");
  for (const char* bad : {"func", "func_", "func3_", "func_1", "func3_1x", "xfunc3_1", "func3-1", "Func3_1", "func3__1",
                          "func3_1_2", ""})
    CHECK_FALSE(func_key(bad));
  const std::string digits(100000, '7');
  auto big = func_key("func" + digits + "_" + digits);
  REQUIRE(big);
  CHECK(big->magic.size() == 100000);
}

TEST_CASE("is_integer_text: an optional minus, then digits", "[frontend][func_key]") {
  CHECK(is_integer_text("0"));
  CHECK(is_integer_text("-17"));
  CHECK_FALSE(is_integer_text("-"));
  CHECK_FALSE(is_integer_text(""));
  CHECK_FALSE(is_integer_text("+1"));
  CHECK_FALSE(is_integer_text("1.0"));
  CHECK_FALSE(is_integer_text(" 1"));
  CHECK(is_integer_text(std::string(100000, '1')));
}

TEST_CASE("call_head: indent, an optional pypto. prefix, a name and its '('", "[frontend][func_key]") {
  auto h = call_head("  pypto . set_pass_options (x=1)");
  REQUIRE(h);
  CHECK(h->name_off == 10);
  CHECK(h->name_len == 16);
  CHECK(h->open == 27);
  h = call_head("set_vec_tile_shapes(8, 64)");
  REQUIRE(h);
  CHECK(h->name_off == 0);
  CHECK(h->open == 19);
  for (const char* bad : {"", "   ", "y = f(x)", "pypto.", "pypto.(1)", "xpypto.f(1)", "1f(x)", "f x"}) CHECK_FALSE(call_head(bad));
  const std::string indent(100000, ' ');
  h = call_head(indent + "pypto.set_semantic_label('A')");
  REQUIRE(h);
  CHECK(h->name_off == 100006);
}
