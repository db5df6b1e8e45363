// The op table (compiler/op_table.h) is the one list of the spec language's
// ops: every kind has a row, names are unique, and specs/README.md's op table
// documents exactly the callable names (no more, no fewer).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "compiler/op_table.h"

using namespace ptoc;

namespace {
std::string readme() {
  const char* root = std::getenv("PTOC_SOURCE_ROOT");
  std::ifstream f(std::string(root ? root : PTOC_SOURCE_ROOT) + "/specs/README.md");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("every op kind has one row and names are unique") {
  std::set<std::string_view> names;
  for (const auto& r : op_table()) {
    CHECK(names.insert(r.name).second);
    if (r.kind) CHECK(&op_spec(*r.kind) == &r);
    CHECK(!r.doc.empty());
    if (r.form == OpForm::Internal) CHECK(find_op(r.name) == nullptr);
    else CHECK(find_op(r.name) == &r);
  }
  for (int k = 0; k <= int(OpKind::Where); ++k) CHECK_NOTHROW(op_spec(OpKind(k)));
  CHECK(op_kind_name(OpKind::Argmax) == "argmax");
  CHECK(is_binary(OpKind::Eq));
  CHECK(is_unary(OpKind::Isfinite));
  CHECK(is_reduction(OpKind::Prod));
  CHECK(is_vector_op(OpKind::Where));
}

TEST_CASE("specs/README.md's op table lists exactly the callable ops") {
  const std::string text = readme();
  REQUIRE(!text.empty());
  const size_t start = text.find("| op | form | result |");
  REQUIRE(start != std::string::npos);
  const size_t end = text.find("\n\n", start);
  const std::string table = text.substr(start, end - start);
  // Names in backticks in the first column of each row.
  std::set<std::string> documented;
  std::istringstream lines(table);
  std::string line;
  const std::regex word("[a-z_][a-z0-9_]*");
  while (std::getline(lines, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::string first = line.substr(2, line.find(" |", 2) - 2);
    size_t i = 0;
    while ((i = first.find('`', i)) != std::string::npos) {
      const size_t j = first.find('`', i + 1);
      std::istringstream ws(first.substr(i + 1, j - i - 1));
      std::string w;
      while (ws >> w)
        if (std::regex_match(w, word)) documented.insert(w);
      i = j + 1;
    }
  }
  for (const auto& r : op_table())
    if (r.form != OpForm::Internal) CHECK(documented.count(std::string(r.name)) == 1);
  for (const auto& w : documented) {
    INFO(w);
    CHECK(find_op(w) != nullptr);
  }
}

TEST_CASE("PyPTO's catalogue names what ptoc supports under the names ptoc has") {
  CHECK(pypto_catalogue().size() == 134);  // docs/zh/api/operation/pypto-*.md of hicann/pypto
  for (const auto& p : pypto_catalogue()) {
    INFO(p.name);
    if (!p.ptoc.empty() && p.ptoc.find(' ') == std::string_view::npos) CHECK(find_op(p.ptoc) != nullptr);
    // Every callable op whose name PyPTO also has is marked supported.
    if (find_op(p.name)) CHECK(p.ptoc == p.name);
  }
}
