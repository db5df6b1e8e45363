#include "compiler/frontend/function_block.h"

#include <set>

#include "compiler/frontend/suggest.h"
#include "compiler/frontend/yaml_util.h"

namespace ptoc::fe {

bool is_function_block(const YAML::Node& n) { return n.IsMap() && n["function"]; }

bool check_function_block(const YAML::Node& n, const std::vector<std::string>& tensor_names,
                          const std::unordered_set<std::string>& tensor_set, Reporter& r) {
  if (!check_map(n, {"function", "args", "body"}, "a function statement", r)) return false;
  bool ok = true;
  const YAML::Node f = n["function"];
  if (!f.IsScalar() || !is_identifier(f.Scalar())) {
    // PyPTO's name is a string identifying the graph; a mapping here is most likely the keys one level too deep
    r.error(value_loc(n, "function"), "function needs a name ([A-Za-z_][A-Za-z0-9_]*), got " + node_kind(f),
            "write it as PyPTO's pypto.function(\"main\", a, b): '- function: main', then 'args: [a, b]' and 'body:' "
            "beside it");
    ok = false;
  }
  if (const YAML::Node a = n["args"]) {
    if (!a.IsSequence()) {
      r.error(value_loc(n, "args"), "function args must be a list of tensor names, got " + node_kind(a),
              "e.g. 'args: [x, y]'");
      ok = false;
    } else {
      std::set<std::string> seen;
      for (const YAML::Node& x : a) {
        std::string name = x.IsScalar() ? x.Scalar() : "";
        if (!x.IsScalar() || !is_identifier(name)) {
          r.error(YamlSource::loc(x), "function args are tensor names, got " + node_kind(x));
          ok = false;
          continue;
        }
        if (!seen.insert(name).second) {
          r.error(YamlSource::loc(x), "'" + name + "' is passed to the function twice", "list each tensor once",
                  int(name.size()));
          ok = false;
          continue;
        }
        if (!tensor_set.count(name)) {
          std::string hint = did_you_mean(name, tensor_names);
          r.error(YamlSource::loc(x), "function argument '" + name + "' is not a declared tensor",
                  (hint.empty() ? "" : hint + " (or ") + "declare it under inputs:, outputs: or tensors:" +
                      (hint.empty() ? "" : ")"),
                  int(name.size()));
          ok = false;
        }
      }
    }
  }
  if (!n["body"] || n["body"].IsNull()) {
    r.error(n["body"] ? value_loc(n, "body") : YamlSource::loc(n), "a function statement needs a 'body' list",
            "the statements under PyPTO's 'with pypto.function(...):' go in 'body: [...]'");
    ok = false;
  } else if (!n["body"].IsSequence()) {
    r.error(YamlSource::loc(n["body"]), "a function statement: 'body' must be a list of statements, got " +
                                            node_kind(n["body"]));
    ok = false;
  }
  return ok;
}

}  // namespace ptoc::fe
