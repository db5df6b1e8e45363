// docs/CATALOGUE.md lists every row of PyPTO's catalogue with a "ptoc" column
// (yes / partial (what) / no). This test ties that column to the op table
// (compiler/op_table.cpp, pypto_catalogue()) so the page cannot drift: "no"
// exactly when the op table has no ptoc spelling, the spelling column is the
// op table's, every catalogue row appears once, and the counts are recounted.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/op_table.h"

using namespace ptoc;

namespace {

std::string catalogue_md() {
  const char* root = std::getenv("PTOC_SOURCE_ROOT");
  std::ifstream f(std::string(root ? root : PTOC_SOURCE_ROOT) + "/docs/CATALOGUE.md");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Row {
  std::string kind, name, status, spelling;
};

// "| kind | `name` | `prototype` | status | spelling |": the prototype may hold escaped pipes, so the
// first two cells are split from the left and the last two from the right.
std::vector<Row> rows(const std::string& text) {
  std::vector<Row> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| controlflow | ", 0) != 0 && line.rfind("| operation | ", 0) != 0) continue;
    Row r;
    size_t a = line.find(" | ", 2);
    r.kind = line.substr(2, a - 2);
    size_t b = line.find(" | ", a + 3);
    r.name = line.substr(a + 3, b - a - 3);
    if (r.name.size() >= 2 && r.name.front() == '`') r.name = r.name.substr(1, r.name.size() - 2);
    std::string rest = line.substr(0, line.size() - 2);  // drop the closing " |"
    if (line.size() >= 2 && line.substr(line.size() - 2) != " |") rest = line;
    size_t c = rest.rfind(" | ");
    r.spelling = rest.substr(c + 3);
    if (r.spelling == "|") r.spelling.clear();
    std::string head = rest.substr(0, c);
    size_t d = head.rfind(" | ");
    r.status = head.substr(d + 3);
    out.push_back(r);
  }
  return out;
}

bool status_ok(const std::string& s) {
  if (s == "yes" || s == "no") return true;
  return s.rfind("partial (", 0) == 0 && s.back() == ')' && s.size() > 10;
}

}  // namespace

TEST_CASE("docs/CATALOGUE.md has every row of PyPTO's catalogue once, with the op table's support") {
  const std::string text = catalogue_md();
  REQUIRE(!text.empty());
  const auto rs = rows(text);
  std::map<std::string, Row> ops;
  std::set<std::string> controlflow;
  int yes = 0, partial = 0;
  for (const auto& r : rs) {
    INFO(r.kind << " " << r.name << " [" << r.status << "] [" << r.spelling << "]");
    CHECK(status_ok(r.status));
    if (r.status == "yes") ++yes;
    if (r.status.rfind("partial", 0) == 0) ++partial;
    if (r.kind == "controlflow") {
      CHECK(controlflow.insert(r.name).second);
      continue;
    }
    REQUIRE(r.kind == "operation");
    std::string name = r.name.rfind("experimental-", 0) == 0 ? r.name.substr(13) : r.name;
    CHECK(ops.emplace(name, r).second);
  }
  CHECK(controlflow == std::set<std::string>{"cond", "function", "is_loop_begin", "is_loop_end", "loop", "loop_unroll"});
  CHECK(ops.size() == pypto_catalogue().size());
  for (const auto& p : pypto_catalogue()) {
    const std::string name(p.name);
    INFO(name);
    auto it = ops.find(name);
    REQUIRE(it != ops.end());
    const Row& r = it->second;
    if (p.ptoc.empty()) {
      CHECK(r.status == "no");
      CHECK(r.spelling.empty());
    } else {
      CHECK(r.status != "no");
      CHECK(r.spelling == "`" + std::string(p.ptoc) + "`");
    }
  }
  const std::string summary = "ptoc has " + std::to_string(yes + partial) + " of " + std::to_string(rs.size()) +
                              " rows: " + std::to_string(yes) + " yes, " + std::to_string(partial) + " partial.";
  INFO(summary);
  CHECK(text.find(summary) != std::string::npos);
}

TEST_CASE("every callable op with a PyPTO name is in docs/CATALOGUE.md as supported") {
  const auto rs = rows(catalogue_md());
  std::set<std::string> supported;
  for (const auto& r : rs)
    if (r.status != "no") supported.insert(r.name.rfind("experimental-", 0) == 0 ? r.name.substr(13) : r.name);
  for (const auto& op : op_table()) {
    if (op.form == OpForm::Internal || !find_pypto_op(op.name)) continue;
    INFO(op.name);
    CHECK(supported.count(std::string(op.name)) == 1);
  }
}
