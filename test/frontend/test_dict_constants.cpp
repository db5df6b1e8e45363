// dict_constants.h: PyPTO's parameter dicts bound at the top of the body and read by key, replaced by their
// values before parsing, with the positions of the values in the dict's statement.
#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include "compiler/frontend/dict_constants.h"
#include "spec_helpers.h"

using namespace ptoc::fe;

namespace {

constexpr int64_t kMax = 1 << 16;  // the default stmt_bytes limit

PosMapPtr line_map(int line, size_t n) {  // character k of a statement at (line, k + 1)
  std::vector<ptoc::SrcLoc> locs;
  for (size_t k = 0; k <= n; ++k) locs.push_back({line, int(k) + 1});
  return std::make_shared<const PosMap>(std::move(locs));
}

DictConstants dicts_of(const std::string& stmt, int line) {
  auto b = dict_binding(stmt);
  REQUIRE(b);
  DictConstants d;
  d[b->name] = {b->entries, line_map(line, stmt.size()), line};
  return d;
}

}  // namespace

TEST_CASE("dict_binding: string keys, values any balanced text", "[frontend][dict_constants]") {
  auto b = dict_binding("params = {'b': 4, \"s2\": 1024 * 64, 'shape': [8, min(N, 4)], 'f': f(1, 2),}");
  REQUIRE(b);
  CHECK(b->name == "params");
  REQUIRE(b->entries.size() == 4);
  CHECK(b->entries["b"].value == "4");
  CHECK(b->entries["s2"].value == "1024 * 64");
  CHECK(b->entries["shape"].value == "[8, min(N, 4)]");
  CHECK(b->entries["f"].value == "f(1, 2)");
  CHECK(b->entries["b"].value_off == 15);
  auto empty = dict_binding("e = {}");
  REQUIRE(empty);
  CHECK(empty->entries.empty());
  auto dup = dict_binding("d = {'a': 1, 'a': 2}");
  REQUIRE(dup);
  CHECK(dup->entries["a"].value == "2");  // Python keeps the last
  CHECK(dup->duplicates == std::vector<std::string>{"a"});
  for (const char* no : {"d = {1: 2}", "d = {'a' 1}", "d = {'a': }", "d = {'a': (1}", "d = {'a': 1} + 1", "d == {'a': 1}",
                         "d = x", "d[0:1] = {'a': 1}", "d = {'a': 1"})
    CHECK_FALSE(dict_binding(no));
}

TEST_CASE("substitute_dict_lookups replaces NAME['KEY'] by (VALUE), positions from the dict", "[frontend][dict_constants]") {
  const std::string dict = "p = {'rows': 8, 'scale': 0.5 * 2}";
  const DictConstants d = dicts_of(dict, 3);
  const std::string stmt = "y = x[0:p['rows'], :] * p [ \"scale\" ] + q['rows'] + a.p['rows']";
  auto got = substitute_dict_lookups(stmt, line_map(9, stmt.size()), d, kMax);
  auto* sub = std::get_if<Substituted>(&got);
  REQUIRE(sub);
  // one token as written, an expression in parentheses (a knob value reads `(4)` as a tuple)
  CHECK(sub->text == "y = x[0:8, :] * (0.5 * 2) + q['rows'] + a.p['rows']");
  // the value's characters in the dict's statement, '(' and ')' at the lookup, the rest where they were
  CHECK(sub->pos->at(8).line == 3);
  CHECK(sub->pos->at(8).col == int(dict.find("8")) + 1);
  const size_t paren = sub->text.find('(');
  CHECK(sub->pos->at(int(paren)).line == 9);
  CHECK(sub->pos->at(int(paren)).col == int(stmt.find("p [")) + 1);
  CHECK(sub->pos->at(int(paren) + 1).line == 3);
  const size_t plus = sub->text.find(" + q");
  CHECK(sub->pos->at(int(plus) + 1).line == 9);
  CHECK(sub->pos->at(int(plus) + 1).col == int(stmt.find(" + q")) + 2);
  CHECK(std::holds_alternative<std::monostate>(substitute_dict_lookups("y = x * 2", nullptr, d, kMax)));
  CHECK(std::holds_alternative<std::monostate>(substitute_dict_lookups("y = p['rows", nullptr, d, kMax)));
  CHECK(std::holds_alternative<std::monostate>(substitute_dict_lookups("label('p['rows']')", nullptr, d, kMax)));
}

TEST_CASE("negative numbers, lists and strings keep their meaning where they are put", "[frontend][dict_constants]") {
  const DictConstants d = dicts_of("p = {'neg': -1, 'shape': [16, 64], 'name': 'MM', 'f': 1e-6, 'on': True}", 2);
  auto got = substitute_dict_lookups("y = p['neg'] ** 2 + z(p['shape'], p['name'], p['f'], p['on'])", nullptr, d, kMax);
  REQUIRE(std::get_if<Substituted>(&got));
  CHECK(std::get<Substituted>(got).text == "y = (-1) ** 2 + z([16, 64], 'MM', (1e-6), True)");
}

TEST_CASE("a lookup past the length limit is an error at the lookup", "[frontend][dict_constants]") {
  const DictConstants d = dicts_of("p = {'long': 1 + 1 + 1 + 1 + 1 + 1}", 4);
  auto got = substitute_dict_lookups("y = p['long'] * p['long']", nullptr, d, 40);
  auto* e = std::get_if<LookupError>(&got);
  REQUIRE(e);
  CHECK(e->off == 16);
  CHECK(e->len == 9);
  CHECK(e->message == "with 'p['long']' read in place the text has more than 40 characters, the limit of a statement");
  CHECK(std::holds_alternative<Substituted>(substitute_dict_lookups("y = p['long'] * p['long']", nullptr, d, 60)));
}

TEST_CASE("a key the dict lacks is an error at the key", "[frontend][dict_constants]") {
  const DictConstants d = dicts_of("p = {'rows': 8, 'scale': 0.5}", 3);
  auto got = substitute_dict_lookups("y = p['row'] + 1", nullptr, d, kMax);
  auto* e = std::get_if<LookupError>(&got);
  REQUIRE(e);
  CHECK(e->off == 6);
  CHECK(e->len == 5);
  CHECK(e->message == "the dict 'p' (line 3) has no key 'row'");
  CHECK(e->hint == "did you mean 'rows'?");
  got = substitute_dict_lookups("y = p['zzzzzz']", nullptr, d, kMax);
  REQUIRE(std::get_if<LookupError>(&got));
  CHECK(std::get<LookupError>(got).hint == "its keys are 'rows', 'scale'");
}

TEST_CASE("parameter dicts in a spec: statements, calls, loop bounds, conditions", "[frontend][dict_constants]") {
  const std::string with_dict = fe_test::spec(
      "  - \"params = {'rows': 16, 'k': 2.0, 'on': True}\"\n"
      "  - \"pypto.set_vec_tile_shapes(params['rows'], 64)\"\n"
      "  - loop: {var: b, count: \"ceil_div(B, params['rows'])\"}\n"
      "    body:\n"
      "      - {if: \"params['on']\", then: [\"y[b * 16:, :] = x[b * 16:(b + 1) * params['rows'], :] * params['k']\"]}\n");
  const std::string written = fe_test::spec(
      "  - \"pypto.set_vec_tile_shapes(16, 64)\"\n"
      "  - loop: {var: b, count: \"ceil_div(B, 16)\"}\n"
      "    body:\n"
      "      - {if: \"True\", then: [\"y[b * 16:, :] = x[b * 16:(b + 1) * 16, :] * 2.0\"]}\n");
  auto strip = [](std::string t) {  // positions differ with the text
    std::string out;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '@') {
        while (i < t.size() && t[i] != '\n') ++i;
      }
      if (i < t.size()) out += t[i];
    }
    return out;
  };
  CHECK(strip(ptoc::print_ir(fe_test::ok(with_dict))) == strip(ptoc::print_ir(fe_test::ok(written))));
  // rebinding the name ends the dict
  auto r = fe_test::run(fe_test::spec("  - \"p = {'rows': 16}\"\n  - \"p = x[0:16, :]\"\n  - vec_tile: [16, 64]\n"
                                      "  - \"y[0:16, :] = p['rows']\"\n"));
  CHECK_FALSE(r.prog);
}
