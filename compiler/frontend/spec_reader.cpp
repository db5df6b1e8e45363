#include "compiler/frontend/spec_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <unordered_set>

#include <yaml-cpp/depthguard.h>

#include "compiler/frontend/binding_target.h"
#include "compiler/frontend/dict_constants.h"
#include "compiler/frontend/func_key.h"
#include "compiler/frontend/cube_tile_rules.h"
#include "compiler/frontend/elaborate_config_calls.h"
#include "compiler/frontend/function_block.h"
#include "compiler/frontend/knob_literals.h"
#include "compiler/frontend/label_text.h"
#include "compiler/frontend/loop_count_condition.h"
#include "compiler/frontend/options.h"
#include "runtime/core/resource_limits.h"
#include "compiler/frontend/parser.h"
#include "compiler/frontend/pypto_keywords.h"
#include "compiler/frontend/suggest.h"
#include "compiler/frontend/yaml_util.h"

namespace ptoc::fe {

namespace {

const std::vector<std::string> kTopKeys = {"ptoc", "name", "doc", "target", "dims", "inputs",
                                           "outputs", "tensors", "options", "body"};
const std::vector<std::string> kStmtKeys = {"vec_tile", "cube_tile", "loop", "if", "cond", "scope", "label", "cache_policy"};

std::vector<std::string> dtype_names() {
  std::vector<std::string> v;
  for (DType t : kAllDTypes) v.emplace_back(dtype_name(t));
  return v;
}

const std::vector<std::string> kLoopKeys = {"var", "range", "count", "kind", "unroll", "factor", "name", "carry"};

// True when the mapping has a key outside `allowed` (check_map reports it).
bool has_unknown_key(const YAML::Node& n, const std::vector<std::string>& allowed) {
  if (!n.IsMap()) return false;
  for (auto it = n.begin(); it != n.end(); ++it)
    if (!it->first.IsScalar() || std::find(allowed.begin(), allowed.end(), it->first.Scalar()) == allowed.end())
      return true;
  return false;
}

// Length of the UTF-8 sequence at text[i], or 0 when it is malformed
// (overlong forms, surrogates and code points above U+10FFFF included).
size_t utf8_len(const std::string& t, size_t i) {
  auto b = [&](size_t k) { return i + k < t.size() ? static_cast<unsigned char>(t[i + k]) : 0u; };
  unsigned c = b(0);
  if (c < 0x80) return 1;
  auto cont = [&](size_t k) { return (b(k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned c1 = b(1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0;
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned c1 = b(1);
    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

class Reader {
 public:
  Reader(const std::string& text, Reporter& r) : src_(text), text_(text), r_(r) {}

  std::optional<SpecAst> run(const std::string& text) {
    if (!utf8_ok(text)) return std::nullopt;
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
      // yaml-cpp's own message for this is a bare "bad file"
      r_.error({e.mark.line + 1, e.mark.column + 1},
               "invalid YAML: the document nests more than " + std::to_string(e.depth() - 1) +
                   " levels deep here (lists, mappings and flow brackets)",
               "a spec nests a few levels: loops, scopes and ifs in bodies, and their statements");
      return std::nullopt;
    } catch (const YAML::Exception& e) {
      std::string msg = e.msg;
      if (!msg.empty()) msg[0] = char(std::tolower(static_cast<unsigned char>(msg[0])));
      r_.error({e.mark.line + 1, e.mark.column + 1}, "invalid YAML: " + msg);
      return std::nullopt;
    }
    if (!root.IsDefined() || root.IsNull()) {
      r_.error({1, 1}, "empty spec", "a spec starts with 'ptoc: 1' and names its dims, inputs, outputs and body");
      return std::nullopt;
    }
    if (!root.IsMap()) {
      r_.error(YamlSource::loc(root), "a spec must be a YAML mapping, got " + node_kind(root));
      return std::nullopt;
    }
    check_map(root, kTopKeys, "the spec", r_);
    SpecAst s;
    version(root);
    name(root, s);
    if (root["doc"]) {
      if (!root["doc"].IsScalar()) r_.error(value_loc(root, "doc"), "doc must be a string");
      else s.doc = root["doc"].Scalar();
    }
    if (root["target"]) {
      s.target_loc = value_loc(root, "target");
      if (!root["target"].IsScalar()) r_.error(s.target_loc, "target must be a platform name");
      else s.target = root["target"].Scalar();
    }
    if (root["dims"] && !root["dims"].IsNull()) dims(root["dims"], s);
    if (root["inputs"] && !root["inputs"].IsNull()) tensors(root["inputs"], TensorRole::Input, "inputs", s);
    if (root["outputs"] && root["outputs"].IsMap() && root["outputs"].size() == 0)
      r_.error(value_loc(root, "outputs"), "outputs is empty: an operator needs at least one output",
               "add an entry, e.g. 'outputs: {y: {dtype: fp32, shape: [...]}}'");
    else if (root["outputs"] && !root["outputs"].IsNull()) tensors(root["outputs"], TensorRole::Output, "outputs", s);
    else r_.error(root["outputs"] ? value_loc(root, "outputs") : SrcLoc{1, 1}, "the spec has no outputs",
                  "add 'outputs: {y: {dtype: fp32, shape: [...]}}'");
    if (root["tensors"] && !root["tensors"].IsNull()) tensors(root["tensors"], TensorRole::Workspace, "tensors", s);
    if (root["options"] && !root["options"].IsNull()) read_options_node(root["options"], s);
    const YAML::Node body = root["body"];
    if (!body || body.IsNull()) {
      r_.error(body ? value_loc(root, "body") : SrcLoc{1, 1}, "the spec has no body",
               "add 'body:' with the statements that compute the outputs");
    } else if (!body.IsSequence()) {
      r_.error(YamlSource::loc(body), "body must be a list of statements, got " + node_kind(body));
    } else {
      s.body_loc = YamlSource::loc(body);
      options_ = &s.options;  // set_pass_options(...) at the top of the body sets knobs
      spec_ = &s;
      s.body = stmts(body);
    }
    // A limit was hit (cycle, expansion, depth): what was read is cut short, and
    // elaborating it would only report follow-on errors (and cost the time the limit saves).
    if (stopped_) return std::nullopt;
    s.labels_used.assign(labels_.begin(), labels_.end());
    for (const auto& [name, d] : dict_names_) s.dict_names[name] = d;
    return s;
  }

 private:
  YamlSource src_;
  const std::string& text_;
  Reporter& r_;
  int stmt_counter_ = 0;
  std::set<std::string> labels_;
  std::vector<YAML::Node> open_lists_;  // statement lists being read, outermost first
  int64_t statements_read_ = 0;
  bool stopped_ = false;                // a limit was hit: read nothing more
  Options* options_ = nullptr;          // the spec's options, for set_pass_options(...) statements
  bool top_loop_seen_ = false;          // a loop of the top-level body was read
  int function_bodies_ = 0;             // function statement bodies being read (function_block.h)
  KnobLiterals knob_literals_;          // top-level `NAME = LITERAL` bindings so far (knob_literals.h)
  DictConstants dicts_;                 // top-level `NAME = {KEY: VALUE, ...}` so far (dict_constants.h)
  std::map<std::string, int> dict_names_;  // every name a dict was bound to, with its line (SpecAst::dict_names)
  const SpecAst* spec_ = nullptr;       // the tensors declared, for function args
  std::vector<std::string> tensor_names_;        // their names, built at the first function statement
  std::unordered_set<std::string> tensor_set_;   // ... the same, for look-ups

  void read_options_node(const YAML::Node& n, SpecAst& s);

  // A spec is UTF-8 text (YAML 1.2); the first malformed byte is reported
  // with its position, here rather than as a JSON error when program.json is written.
  bool utf8_ok(const std::string& t) {
    int line = 1, col = 1;
    for (size_t i = 0; i < t.size();) {
      size_t n = utf8_len(t, i);
      if (n == 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(t[i]));
        r_.error({line, col}, std::string("byte ") + hex + " (offset " + std::to_string(i) + ") is not valid UTF-8",
                 "a spec is UTF-8 text; re-save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)");
        return false;
      }
      if (t[i] == '\n') { ++line; col = 1; } else { col += int(n); }
      i += n;
    }
    return true;
  }

  void version(const YAML::Node& root) {
    const YAML::Node v = root["ptoc"];
    if (!v) {
      r_.error({1, 1}, "missing required key 'ptoc' (the format version)", "add 'ptoc: 1' as the first line");
      return;
    }
    auto i = as_int(v);
    if (!i && v.IsScalar() && v.Scalar() == "1")
      r_.error(value_loc(root, "ptoc"), "the format version must be the integer 1, not a string",
               "write 'ptoc: 1' without quotes");
    else if (!i || *i != 1)
      r_.error(value_loc(root, "ptoc"), "unsupported format version " + node_kind(v) + "; this ptoc reads version 1",
               "write 'ptoc: 1'");
  }

  void name(const YAML::Node& root, SpecAst& s) {
    const YAML::Node n = root["name"];
    if (!n) {
      r_.error({1, 1}, "missing required key 'name'", "add 'name: my_operator'");
      return;
    }
    s.name_loc = value_loc(root, "name");
    if (!n.IsScalar() || !is_identifier(n.Scalar())) {
      r_.error(s.name_loc, "invalid operator name " + node_kind(n), "names match [A-Za-z_][A-Za-z0-9_]*");
      return;
    }
    s.name = n.Scalar();
  }

  // A dim expression written as a YAML integer or string.
  std::optional<SrcExpr> dim_src(const YAML::Node& n, const std::string& what) {
    if (!n.IsScalar()) {
      r_.error(YamlSource::loc(n), what + " must be an integer or a dim expression, got " + node_kind(n));
      return std::nullopt;
    }
    if (too_long(n, what)) return std::nullopt;
    PosMapPtr pos = src_.scalar_map(n);
    std::string text = n.Scalar();
    if (!dict_lookups(text, pos)) return std::nullopt;
    auto res = parse_expression(text);
    if (auto* e = std::get_if<SyntaxError>(&res)) {
      r_.error(pos->at(e->off), e->message, e->hint, e->len);
      return std::nullopt;
    }
    return SrcExpr{std::get<ExprPtr>(res), pos, text};
  }

  // `params['b']` of a dict bound at the top of the body, replaced by its value (dict_constants.h); false when
  // a key is missing (reported).
  bool dict_lookups(std::string& text, PosMapPtr& pos) {
    auto got = substitute_dict_lookups(text, pos, dicts_, limits::get(limits::Id::stmt_bytes));
    if (auto* e = std::get_if<LookupError>(&got)) {
      r_.error(pos->at(e->off), e->message, e->hint, e->len);
      return false;
    }
    if (auto* sub = std::get_if<Substituted>(&got)) {
      text = std::move(sub->text);
      pos = std::move(sub->pos);
    }
    return true;
  }

  void dims(const YAML::Node& n, SpecAst& s) {
    if (!n.IsMap()) {
      r_.error(YamlSource::loc(n), "dims must be a mapping of name to size, got " + node_kind(n));
      return;
    }
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      DimDecl d;
      d.loc = YamlSource::loc(it->first);
      if (!it->first.IsScalar() || !is_identifier(it->first.Scalar())) {
        r_.error(d.loc, "invalid dim name " + node_kind(it->first), "names match [A-Za-z_][A-Za-z0-9_]*");
        continue;
      }
      d.name = it->first.Scalar();
      if (!seen.insert(d.name).second) {
        r_.error(d.loc, "duplicate dim '" + d.name + "'", {}, int(d.name.size()));
        continue;
      }
      const YAML::Node v = it->second;
      SrcLoc vl = v.IsNull() ? d.loc : YamlSource::loc(v);
      if (v.IsScalar() && v.Scalar() == "dynamic") {
        d.dynamic = true;
      } else if (auto i = as_int(v)) {
        if (*i <= 0) {
          r_.error(vl, "dim '" + d.name + "' must be a positive integer, got " + std::to_string(*i));
          continue;
        }
        d.value = *i;
      } else if (v.IsMap()) {
        if (!check_map(v, {"dynamic", "max", "divisible_by"}, "dim '" + d.name + "'", r_)) continue;
        auto dyn = as_bool(v["dynamic"]);
        if (!v["dynamic"] || !dyn || !*dyn) {
          r_.error(v["dynamic"] ? YamlSource::loc(v["dynamic"]) : vl,
                   "dim '" + d.name + "': a mapping describes a dynamic dim and needs 'dynamic: true'",
                   "a static dim is written 'NAME: 1024'");
          continue;
        }
        d.dynamic = true;
        if (v["max"]) {
          auto m = as_int(v["max"]);
          if (!m || *m <= 0) r_.error(YamlSource::loc(v["max"]), "dim '" + d.name + "': max must be a positive integer");
          else d.max = *m;
        }
        if (v["divisible_by"]) {
          auto m = as_int(v["divisible_by"]);
          if (!m || *m <= 0)
            r_.error(YamlSource::loc(v["divisible_by"]), "dim '" + d.name + "': divisible_by must be a positive integer");
          else d.divisible_by = *m;
        }
        if (d.max > 0 && d.max % d.divisible_by != 0)
          r_.error(YamlSource::loc(v["max"]), "dim '" + d.name + "': max " + std::to_string(d.max) +
                                                  " is not divisible by divisible_by " + std::to_string(d.divisible_by));
      } else if (int_out_of_range(v)) {
        r_.error(vl, "dim '" + d.name + "' = " + v.Scalar() + " does not fit a 64-bit integer",
                 "dims are at most 9223372036854775807 (and the tile count limit stops far below that)",
                 int(v.Scalar().size()));
        continue;
      } else {
        std::string hint;
        if (v.IsScalar() && edit_distance(v.Scalar(), "dynamic") <= 2) hint = "did you mean 'dynamic'?";
        else hint = "write a positive integer, 'dynamic', or {dynamic: true, max: N, divisible_by: N}";
        r_.error(vl, "dim '" + d.name + "' must be a positive integer or 'dynamic', got " + node_kind(v), hint);
        continue;
      }
      s.dims.push_back(d);
    }
  }

  // `values: [lo, hi]` of an int32 input the control flow reads (specs/README.md, "Run-time values").
  bool tensor_values(const YAML::Node& v, TensorRole role, const std::string& what, TensorDecl& d) {
    const YAML::Node x = v["values"];
    const SrcLoc loc = value_loc(v, "values");
    if (role != TensorRole::Input) {
      r_.error(loc, what + ": values: is for inputs only", "remove it; outputs and workspaces are computed");
      return false;
    }
    std::optional<int64_t> lo, hi;
    if (x.IsSequence() && x.size() == 2) lo = as_int(x[0]), hi = as_int(x[1]);
    if (!lo || !hi || *lo > *hi) {
      r_.error(loc, what + ": values must be [lo, hi], two integers with lo <= hi, got " + node_kind(x),
               "for example 'values: [1, 1024]' (the range generated inputs are drawn from, both ends included)");
      return false;
    }
    if (d.dtype != DType::int64 && (*lo < INT32_MIN || *hi > INT32_MAX)) {
      r_.error(loc, what + ": values [" + std::to_string(*lo) + ", " + std::to_string(*hi) + "] do not fit int32");
      return false;
    }
    d.values_lo = *lo;
    d.values_hi = *hi;
    return true;
  }

  // `inplace: IN` of an output: the input it updates in place (specs/README.md, "In-place outputs"). The
  // elaborator checks that IN is an input of the same dtype and shape.
  bool tensor_inplace(const YAML::Node& v, TensorRole role, const std::string& what, TensorAst& t) {
    const YAML::Node x = v["inplace"];
    t.inplace_loc = value_loc(v, "inplace");
    if (role != TensorRole::Output) {
      r_.error(t.inplace_loc, what + ": inplace: is for outputs only",
               "declare it on the output that updates the input: 'y: {dtype: ..., shape: [...], inplace: x}'");
      return false;
    }
    if (!x.IsScalar() || !is_identifier(x.Scalar())) {
      r_.error(t.inplace_loc, what + ": inplace: names the input this output updates in place, got " + node_kind(x),
               "for example 'inplace: k_cache_in'");
      return false;
    }
    t.decl.inplace = x.Scalar();
    return true;
  }

  void tensors(const YAML::Node& n, TensorRole role, const std::string& section, SpecAst& s) {
    if (!n.IsMap()) {
      r_.error(YamlSource::loc(n), section + " must be a mapping of name to {dtype, shape}, got " + node_kind(n));
      return;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      TensorAst t;
      t.decl.role = role;
      t.decl.loc = YamlSource::loc(it->first);
      if (!it->first.IsScalar() || !is_identifier(it->first.Scalar())) {
        r_.error(t.decl.loc, "invalid tensor name " + node_kind(it->first), "names match [A-Za-z_][A-Za-z0-9_]*");
        continue;
      }
      t.decl.name = it->first.Scalar();
      const YAML::Node v = it->second;
      const std::string what = "tensor '" + t.decl.name + "'";
      if (!check_map(v, {"dtype", "shape", "format", "values", "inplace"}, what, r_, t.decl.loc)) continue;
      bool ok = true;
      if (!v["dtype"]) {
        r_.error(t.decl.loc, what + " has no dtype", "add 'dtype: fp32' (fp32 fp16 bf16 int32 int8 uint8 bool int64 int16 uint16 uint32 uint64 fp8e4m3 fp8e5m2 fp8e8m0)");
        ok = false;
      } else {
        const YAML::Node d = v["dtype"];
        auto dt = d.IsScalar() ? parse_dtype(d.Scalar()) : std::nullopt;
        if (!dt && d.IsScalar()) dt = pypto_dtype_name(d.Scalar());  // PyPTO's DT_UINT16 spelling
        if (!dt) {
          std::string w = d.IsScalar() ? d.Scalar() : "";
          std::string hint = did_you_mean(w, dtype_names());
          if (w == "float32" || w == "float") hint = "did you mean 'fp32'?";
          if (w == "float16" || w == "half") hint = "did you mean 'fp16'?";
          if (w == "bfloat16") hint = "did you mean 'bf16'?";
          if (w == "float8_e4m3fn" || w == "e4m3") hint = "did you mean 'fp8e4m3'?";
          if (w == "float8_e5m2" || w == "e5m2") hint = "did you mean 'fp8e5m2'?";
          if (w == "float8_e8m0fnu" || w == "e8m0") hint = "did you mean 'fp8e8m0'?";
          if (std::string why = unsupported_dtype_why(w); !why.empty()) {
            r_.error(value_loc(v, "dtype"), why, "dtypes: fp32 fp16 bf16 int32 int8 uint8 bool int64 int16 uint16 uint32 uint64 fp8e4m3 fp8e5m2 fp8e8m0", int(w.size()));
          } else {
            if (hint.empty()) hint = "dtypes: fp32 fp16 bf16 int32 int8 uint8 bool int64 int16 uint16 uint32 uint64 fp8e4m3 fp8e5m2 fp8e8m0";
            r_.error(value_loc(v, "dtype"), "unknown dtype " + node_kind(d), hint, int(w.size()));
          }
          ok = false;
        } else {
          t.decl.dtype = *dt;
        }
      }
      if (v["values"] && ok && t.decl.dtype != DType::int32 && t.decl.dtype != DType::int64) {
        r_.error(value_loc(v, "values"), what + ": values: is for int32 inputs (run-time values), not " +
                                             std::string(dtype_name(t.decl.dtype)) + " (int64 inputs take it too)");
        ok = false;
      } else if (v["values"]) {
        ok &= tensor_values(v, role, what, t.decl);
      }
      if (v["inplace"]) ok &= tensor_inplace(v, role, what, t);
      if (v["format"]) {
        const YAML::Node f = v["format"];
        std::string fs = f.IsScalar() ? f.Scalar() : "";
        if (fs == "ND") t.decl.format = Format::ND;
        else if (fs == "NZ") t.decl.format = Format::NZ;
        else {
          r_.error(value_loc(v, "format"), "unknown format " + node_kind(f), "formats: ND (default), NZ");
          ok = false;
        }
      }
      if (!v["shape"]) {
        r_.error(t.decl.loc, what + " has no shape", "add 'shape: [B, 1024]'");
        ok = false;
      } else {
        const YAML::Node sh = v["shape"];
        t.shape_loc = value_loc(v, "shape");
        if (!sh.IsSequence()) {
          r_.error(t.shape_loc, what + ": shape must be a list of dims, got " + node_kind(sh));
          ok = false;
        } else if (sh.size() < 1 || sh.size() > 4) {
          r_.error(t.shape_loc, what + " has rank " + std::to_string(sh.size()) + "; ranks 1 to 4 are supported");
          ok = false;
        } else {
          for (auto e : sh) {
            auto d = dim_src(e, "a shape entry");
            if (!d) { ok = false; continue; }
            t.shape_src.push_back(*d);
          }
        }
      }
      if (ok) s.tensors.push_back(std::move(t));
      else {
        // Keep the name known so later uses do not report "unknown name" again.
        t.decl.shape.clear();
        t.shape_src.clear();
        t.decl.dtype = DType::fp32;
        t.decl.name = "!" + t.decl.name;  // marked broken
        s.tensors.push_back(std::move(t));
      }
    }
  }

  std::vector<Stmt> stmts(const YAML::Node& list) {
    std::vector<Stmt> out;
    if (stopped_) return out;
    // An alias inside the list it names makes the statement graph a cycle.
    for (const auto& open : open_lists_)
      if (open.is(list)) {
        r_.error(YamlSource::loc(list), "this statement list contains itself through a YAML alias (a cycle)",
                 "an alias (*name) may only repeat a list defined outside it");
        stopped_ = true;
        return out;
      }
    if (int64_t(open_lists_.size()) >= limits::get(limits::Id::yaml_depth)) {
      r_.error(YamlSource::loc(list),
               "statement bodies nest more than " + std::to_string(limits::get(limits::Id::yaml_depth)) +
                   " levels deep (loop, if and scope bodies inside each other)",
               limits::raise_hint(limits::Id::yaml_depth));
      stopped_ = true;
      return out;
    }
    open_lists_.push_back(list);
    for (auto item : list) {
      if (r_.full() || stopped_) break;
      // Aliases repeat a list without repeating its text: count what is read
      // so that a small file cannot expand into billions of statements.
      if (++statements_read_ > limits::get(limits::Id::yaml_nodes)) {
        r_.error(YamlSource::loc(item),
                 "the spec expands to more than " + std::to_string(limits::get(limits::Id::yaml_nodes)) +
                     " statements (YAML aliases are expanded where they are used)",
                 limits::raise_hint(limits::Id::yaml_nodes));
        stopped_ = true;
        break;
      }
      if (is_function_block(item)) {
        function_body(item, out);
        continue;
      }
      if (auto s = stmt(item)) {
        if (at_top_level() && s->kind == Stmt::Kind::Loop) top_loop_seen_ = true;
        out.push_back(std::move(*s));
      }
    }
    open_lists_.pop_back();
    return out;
  }

  // The spec's top-level body: its own list, or a function statement's body in it (function_block.h).
  bool at_top_level() const { return open_lists_.size() == 1 + size_t(function_bodies_); }

  // `{function: main, args: [...], body: [...]}`: its body's statements are spliced into `out` as top-level ones.
  void function_body(const YAML::Node& n, std::vector<Stmt>& out) {
    if (!at_top_level() || function_bodies_ > 0) {
      r_.error(key_loc(n, "function"),
               function_bodies_ > 0 && at_top_level() ? "a function statement inside another function"
                                                      : "a function statement inside a loop, if or scope body",
               "pypto.function opens the operator's body: write it once, at the top of the spec's body");
      return;
    }
    if (spec_ && tensor_names_.empty())
      for (const TensorAst& t : spec_->tensors) {
        tensor_names_.push_back(t.decl.name);
        tensor_set_.insert(t.decl.name);
      }
    if (!check_function_block(n, tensor_names_, tensor_set_, r_)) return;
    ++function_bodies_;
    std::vector<Stmt> inner = stmts(n["body"]);
    --function_bodies_;
    for (Stmt& st : inner) out.push_back(std::move(st));
  }
  static SrcLoc key_loc(const YAML::Node& n, const std::string& key) {
    YAML::Node k = key_node(n, key);
    return k ? YamlSource::loc(k) : YamlSource::loc(n);
  }

  // A statement string or dim expression longer than the stmt_bytes limit (reported).
  bool too_long(const YAML::Node& n, const std::string& what) {
    const int64_t cap = limits::get(limits::Id::stmt_bytes);
    if (int64_t(n.Scalar().size()) <= cap) return false;
    r_.error(YamlSource::loc(n), what + " has " + std::to_string(n.Scalar().size()) + " characters, more than the " +
                                     std::to_string(cap) + " a statement may have",
             limits::raise_hint(limits::Id::stmt_bytes));
    return true;
  }

  std::vector<Stmt> body_of(const YAML::Node& map, const std::string& key, const std::string& what) {
    const YAML::Node b = map[key];
    if (!b || b.IsNull()) {
      r_.error(b ? value_loc(map, key) : YamlSource::loc(map), what + " needs a '" + key + "' list");
      return {};
    }
    if (!b.IsSequence()) {
      r_.error(YamlSource::loc(b), what + ": '" + key + "' must be a list of statements, got " + node_kind(b));
      return {};
    }
    return stmts(b);
  }

  // `NAME = <broken>` (reported) kept as a binding of NAME without a value, so that later uses of NAME are not
  // reported as unknown names too; nullopt when the text binds no name.
  static std::optional<Stmt> binding_without_value(Stmt& s) {
    auto t = binding_target(s.text);
    if (!t) return std::nullopt;
    s.assign.target = s.text.substr(size_t(t->off), size_t(t->len));
    s.assign.target_off = t->off;
    s.assign.target_len = t->len;
    s.assign.value = nullptr;
    return std::move(s);
  }

  std::optional<Stmt> stmt(const YAML::Node& n) {
    Stmt s;
    s.loc = YamlSource::loc(n);
    s.index = stmt_counter_++;
    if (n.IsScalar()) {
      if (too_long(n, "the statement")) return std::nullopt;
      s.kind = Stmt::Kind::Assign;
      s.pos = src_.scalar_map(n);
      s.text = n.Scalar();
      // a missing key, reported: `NAME = ...` still binds NAME, so its uses are no second error
      if (!dict_lookups(s.text, s.pos)) return binding_without_value(s);
      // `params = {"b": 4, "s2": 1024 * 64}`: constants looked up by key (dict_constants.h); a dict of literals
      // is also a knob value passed by name (`nbuf = {"DEFAULT": 8}`, knob_literals.h)
      if (auto db = dict_binding(s.text)) {
        if (!at_top_level()) {
          r_.error(s.pos->at(int(s.text.find('{'))),
                   "a dict binds constants ('" + db->name + "[KEY]') or a knob value (set_pass_options(...=" +
                       db->name + ")) and stands at the top of the spec's body",
                   "move the binding before the first loop, beside the statements that read it");
          return std::nullopt;
        }
        dicts_[db->name] = {db->entries, s.pos, s.loc.line};
        dict_names_[db->name] = s.loc.line;
        if (auto lb = literal_binding(s.text))
          knob_literals_[lb->first] = {lb->second, s.loc};
        else
          knob_literals_.erase(db->name);
        return std::nullopt;  // it means nothing else in a spec
      }
      // PyPTO's set_vec_tile_shapes / set_cube_tile_shapes / set_pass_options(...) (elaborate_config_calls.cpp)
      if (auto lb = literal_binding(s.text)) {
        const bool dict = lb->second.front() == '{';  // a dict with other keys than strings: a knob value only
        if (dict && !at_top_level()) {
          r_.error(s.pos->at(int(s.text.find('{'))),
                   "a dict literal binds a knob value ('" + lb->first + "' for set_pass_options(...=" + lb->first +
                       ")) and stands at the top of the spec's body",
                   "move the binding before the first loop, beside the configuration call that reads it");
          return std::nullopt;
        }
        if (at_top_level()) knob_literals_[lb->first] = {lb->second, s.loc};
        dicts_.erase(lb->first);
        if (dict) return std::nullopt;  // it means nothing else in a spec
      } else if (auto t = binding_target(s.text)) {
        // rebound to something else: a knob or a lookup can no longer read it
        const std::string name = s.text.substr(size_t(t->off), size_t(t->len));
        if (at_top_level()) knob_literals_.erase(name);
        dicts_.erase(name);
      }
      switch (read_config_call(s.text, s.pos, s, {options_, at_top_level(), top_loop_seen_, &knob_literals_}, r_)) {
        case ConfigCallResult::Stmt:
          if (s.kind == Stmt::Kind::Label && !s.label.empty()) labels_.insert(s.label);
          return s;
        case ConfigCallResult::Consumed: return std::nullopt;
        case ConfigCallResult::NotACall: break;
      }
      auto res = parse_assignment(s.text);
      if (auto* e = std::get_if<SyntaxError>(&res)) {
        r_.error(s.pos->at(e->off), e->message, e->hint, e->len);
        return binding_without_value(s);
      }
      s.assign = std::get<AssignAst>(res);
      return s;
    }
    if (n.IsNull()) {
      // yaml-cpp marks an empty item at the next token; point at its own '-'.
      const std::string& t = text_;
      size_t p = std::min(size_t(std::max(0, n.Mark().pos)), t.size());
      while (p > 0 && t[p - 1] != '-') --p;
      if (p > 0) {
        int line = 1, col = 1;
        for (size_t i = 0; i + 1 < p; ++i) {
          if (t[i] == '\n') { ++line; col = 1; } else { ++col; }
        }
        s.loc = {line, col};
      }
      r_.error(s.loc, "empty statement", "write a statement string or mapping after '-', or remove the line");
      return std::nullopt;
    }
    if (!n.IsMap()) {
      r_.error(s.loc, "a statement is a string 'NAME = EXPR' or a mapping ({vec_tile: ...}, {loop: ...}, ...), got " +
                          node_kind(n));
      return std::nullopt;
    }
    std::string kind;
    for (auto it = n.begin(); it != n.end(); ++it)
      if (it->first.IsScalar())
        for (const auto& k : kStmtKeys)
          if (it->first.Scalar() == k && kind.empty()) kind = k;
    if (kind.empty() && n.size() == 0) {
      r_.error(s.loc, "empty statement mapping", "statement keys: vec_tile, cube_tile, loop, if, scope, label, cache_policy");
      return std::nullopt;
    }
    if (kind.empty()) {
      const YAML::Node k0 = n.begin()->first;
      std::string k = k0.IsScalar() ? k0.Scalar() : "";
      std::string hint = did_you_mean(k, kStmtKeys);
      if (hint.empty()) hint = "statement keys: vec_tile, cube_tile, loop, if, scope, label, cache_policy";
      r_.error(YamlSource::loc(k0), "unknown statement '" + k + "'", hint, int(k.size()));
      return std::nullopt;
    }
    if (kind == "vec_tile") return vec_tile(n, s);
    if (kind == "cube_tile") return cube_tile(n, s);
    if (kind == "loop") return loop(n, s);
    if (kind == "if" || kind == "cond") return if_stmt(n, s, kind);
    if (kind == "scope") return scope(n, s);
    if (kind == "label") return label(n, s);
    return cache_policy(n, s);
  }

  std::optional<Stmt> vec_tile(const YAML::Node& n, Stmt& s) {
    check_map(n, {"vec_tile"}, "a vec_tile statement", r_);
    s.kind = Stmt::Kind::VecTile;
    const YAML::Node v = n["vec_tile"];
    s.vec.loc = s.loc;
    if (v.IsScalar() && is_identifier(v.Scalar())) {
      // `vec_tile: tile_shapes`: a constant list bound by a statement (elaborate_vec_tile.cpp).
      auto x = dim_src(v, "a vec_tile");
      if (x) s.vec_list = std::move(*x);
      s.broken = !x;
      return std::move(s);  // s is the caller's: a copy would copy the whole body
    }
    if (!v.IsSequence() || v.size() < 1 || v.size() > 4) {
      std::string got = !v.IsSequence() ? node_kind(v)
                        : v.size() == 0 ? std::string("an empty list")
                                        : "a list of " + std::to_string(v.size()) + " entries";
      r_.error(value_loc(n, "vec_tile"), "vec_tile must be a list of 1 to 4 positive integers, got " + got,
               "e.g. {vec_tile: [16, 1024]}");
      s.broken = true;
      return std::move(s);  // s is the caller's: a copy would copy the whole body
    }
    bool ok = true;
    for (auto e : v) {
      auto i = as_int(e);
      if (!i && e.IsScalar() && !e.Scalar().empty()) {
        // A dim expression over static dims, unroll factors and static-loop variables (PyPTO's
        // set_vec_tile_shapes(t_tile, ...)): evaluated per elaboration (elaborate_vec_tile.cpp).
        auto x = dim_src(e, "a vec_tile entry");
        if (!x) {
          ok = false;
          continue;
        }
        s.vec_exprs.resize(s.vec.shape.size());
        s.vec_exprs.push_back(std::move(*x));
        s.vec.shape.push_back(0);
        continue;
      }
      if (!i || *i <= 0) {
        r_.error(YamlSource::loc(e), "vec_tile entries must be positive integers, got " + node_kind(e));
        ok = false;
        continue;
      }
      s.vec.shape.push_back(*i);
    }
    if (!s.vec_exprs.empty()) s.vec_exprs.resize(s.vec.shape.size());
    s.broken = !ok;
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }

  // One axis of a cube_tile: integer entries are checked here; an entry written as a dim expression
  // (`[unroll_level, unroll_level]`) goes to `exprs` (index-aligned with `out`, whose entry is 0) and its
  // axis is checked per elaboration (elaborate_cube_tile.cpp).
  bool cube_axis(const YAML::Node& c, const char* axis, size_t max_len, std::vector<int64_t>& out,
                 std::vector<SrcExpr>& exprs) {
    const YAML::Node v = c[axis];
    std::string form = max_len == 3 ? "[L0, L1] or [L0, L1_A, L1_B]" : "[L0, L1]";
    if (!v) {
      r_.error(YamlSource::loc(c), std::string("cube_tile needs '") + axis + ": " + form + "'");
      return false;
    }
    if (!v.IsSequence() || v.size() < 2 || v.size() > max_len) {
      r_.error(value_loc(c, axis), std::string("cube_tile ") + axis + " must be " + form + ", got " + node_kind(v));
      return false;
    }
    bool ok = true, symbolic = false;
    for (auto e : v) {
      auto i = as_int(e);
      if (!i && e.IsScalar() && !e.Scalar().empty()) {
        auto x = dim_src(e, std::string("a cube_tile ") + axis + " entry");
        if (!x) {
          ok = false;
          continue;
        }
        exprs.resize(out.size());
        exprs.push_back(std::move(*x));
        out.push_back(0);
        symbolic = true;
        continue;
      }
      if (!i || *i <= 0) {
        r_.error(YamlSource::loc(e), std::string("cube_tile ") + axis + " entries must be positive integers, got " +
                                         node_kind(e));
        ok = false;
        continue;
      }
      // PyPTO's per-token m tiles 1, 2, 4, 8 pad to one 16-row fractal, as an expression m entry does.
      out.push_back(std::string(axis) == "m" && *i < 16 && 16 % *i == 0 ? 16 : *i);
    }
    exprs.resize(out.size());
    if (!ok) return false;
    if (symbolic) return true;  // checked once the entries are known
    for (const CubeAxisIssue& i : cube_axis_issues(axis, out)) {
      r_.error(value_loc(c, axis), i.message, i.hint);
      ok = false;
    }
    return ok;
  }

  std::optional<Stmt> cube_tile(const YAML::Node& n, Stmt& s) {
    check_map(n, {"cube_tile"}, "a cube_tile statement", r_);
    s.kind = Stmt::Kind::CubeTile;
    const YAML::Node c = n["cube_tile"];
    if (!check_map(c, {"m", "k", "n", "split_k"}, "cube_tile", r_, s.loc)) {
      s.broken = true;
      return std::move(s);  // s is the caller's: a copy would copy the whole body
    }
    std::vector<int64_t> m, k, nn;
    std::vector<SrcExpr> me, ke, ne;
    bool ok = cube_axis(c, "m", 2, m, me);
    ok = cube_axis(c, "k", 3, k, ke) && ok;
    ok = cube_axis(c, "n", 2, nn, ne) && ok;
    if (c["split_k"]) {
      auto b = as_bool(c["split_k"]);
      if (!b && c["split_k"].IsScalar() && is_identifier(c["split_k"].Scalar())) {
        // `split_k: enable_split_k`: PyPTO's per-gear flag, a constant bound by a statement
        // (elaborate_cube_tile.cpp reads it).
        if (auto e = dim_src(c["split_k"], "cube_tile split_k")) s.cube_split_k = *e;
        else ok = false;
      } else if (!b) {
        r_.error(value_loc(c, "split_k"), "cube_tile split_k must be true, false or a constant's name, got " +
                                              node_kind(c["split_k"]));
        ok = false;
      } else {
        s.cube.split_k = *b;
      }
    }
    if (!ok) {
      s.broken = true;  // kept, so the matmuls after it are not also reported as having no cube_tile
      return std::move(s);  // s is the caller's: a copy would copy the whole body
    }
    s.set_cube_extents(m, k, nn, me, ke, ne);
    s.cube.loc = s.loc;
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }

  std::optional<SrcExpr> loop_bound(const YAML::Node& n, const std::string& what) { return dim_src(n, what); }

  // `carry: {m: "full([G, 1], -inf, fp32)", ...}`: names and initial values, in order.
  bool carry(const YAML::Node& l, LoopAst& a) {
    const YAML::Node c = l["carry"];
    if (!c.IsMap() || c.size() == 0) {
      r_.error(value_loc(l, "carry"), "loop carry must be a mapping of name to initial value such as "
                                      "{m: \"full([G, 1], -inf, fp32)\"}, got " + node_kind(c));
      return false;
    }
    bool ok = true;
    std::set<std::string> seen;
    for (auto it = c.begin(); it != c.end(); ++it) {
      CarryAst ca;
      ca.name_loc = YamlSource::loc(it->first);
      if (!it->first.IsScalar() || !is_identifier(it->first.Scalar())) {
        r_.error(ca.name_loc, "a carried value needs a name, got " + node_kind(it->first),
                 "names match [A-Za-z_][A-Za-z0-9_]*");
        ok = false;
        continue;
      }
      ca.name = it->first.Scalar();
      if (!seen.insert(ca.name).second) {
        r_.error(ca.name_loc, "'" + ca.name + "' is carried twice", {}, int(ca.name.size()));
        ok = false;
        continue;
      }
      if (ca.name == a.var) {
        r_.error(ca.name_loc, "the carried value '" + ca.name + "' has the name of the loop variable",
                 "choose another name", int(ca.name.size()));
        ok = false;
        continue;
      }
      if (!it->second.IsScalar()) {
        r_.error(YamlSource::loc(it->second), "the initial value of '" + ca.name + "' must be an expression string "
                                              "such as \"full([G, 1], 0, fp32)\", got " + node_kind(it->second));
        ok = false;
        continue;
      }
      auto init = dim_src(it->second, "the initial value of '" + ca.name + "'");
      if (!init) { ok = false; continue; }
      ca.init = *init;
      a.carry.push_back(std::move(ca));
    }
    return ok;
  }

  std::optional<Stmt> loop(const YAML::Node& n, Stmt& s) {
    s.kind = Stmt::Kind::Loop;
    check_map(n, {"loop", "body"}, "a loop statement", r_);
    const YAML::Node l = n["loop"];
    LoopAst& a = s.loop;
    CountCond cc;  // set when the count is a condition: pypto.loop(cond)
    bool ok = check_map(l, kLoopKeys, "loop", r_, s.loc);
    if (ok) {
      if (!l["var"]) {
        r_.error(YamlSource::loc(l), "loop needs 'var: NAME' (the loop variable)");
        ok = false;
      } else if (!l["var"].IsScalar() || !is_identifier(l["var"].Scalar())) {
        r_.error(value_loc(l, "var"), "loop var must be a name, got " + node_kind(l["var"]));
        ok = false;
      } else {
        a.var = l["var"].Scalar();
        a.var_loc = value_loc(l, "var");
      }
      if (l["range"] && l["count"]) {
        r_.error(YamlSource::loc(key_node(l, "count")), "loop takes either 'range' or 'count', not both");
        ok = false;
      } else if (l["range"]) {
        const YAML::Node rg = l["range"];
        if (!rg.IsSequence() || rg.size() < 1 || rg.size() > 3) {
          r_.error(value_loc(l, "range"), "loop range must be [end], [begin, end] or [begin, end, step], got " +
                                              node_kind(rg));
          ok = false;
        } else {
          std::vector<SrcExpr> parts;
          for (auto e : rg) {
            if (rg.size() == 1) {
              if (auto c = condition_count(e, cc)) {  // `range: [COND]`: pypto.loop(cond)
                if (!*c) ok = false;
                continue;
              }
            } else if (e.IsScalar() && count_condition(e.Scalar())) {
              r_.error(YamlSource::loc(e), "a condition cannot be a bound of a loop range with " +
                                               std::to_string(rg.size()) + " entries",
                       "a loop over a condition (pypto.loop(cond)) is written 'range: [COND]' or 'count: COND'");
              ok = false;
              continue;
            }
            auto d = loop_bound(e, "a loop bound");
            if (!d) { ok = false; continue; }
            parts.push_back(*d);
          }
          if (ok && !cc.cond) {
            if (parts.size() == 1) a.end = parts[0];
            else { a.begin = parts[0]; a.end = parts[1]; }
            if (parts.size() == 3) a.step = parts[2];
          }
        }
      } else if (l["count"]) {
        a.has_count = true;
        a.count_loc = value_loc(l, "count");
        if (auto c = condition_count(l["count"], cc)) {  // `count: COND`: pypto.loop(cond)
          if (!*c) ok = false;
        } else {
          auto d = loop_bound(l["count"], "loop count");
          if (!d) ok = false;
          else a.count = *d;
        }
      } else {
        // A misspelt key ('cont') was just reported with its "did you mean": once is enough.
        if (!has_unknown_key(l, kLoopKeys)) r_.error(YamlSource::loc(l), "loop needs 'range: [begin, end, step]' or 'count: N'");
        ok = false;
      }
      if (l["kind"]) {
        a.kind_loc = value_loc(l, "kind");
        std::string k = l["kind"].IsScalar() ? l["kind"].Scalar() : "";
        if (k == "static") a.is_static = true;
        else if (k != "dynamic") {
          r_.error(a.kind_loc, "loop kind must be dynamic or static, got " + node_kind(l["kind"]),
                   did_you_mean(k, {"dynamic", "static"}));
          ok = false;
        }
      }
      if (l["name"]) {
        a.name_loc = value_loc(l, "name");
        if (!l["name"].IsScalar() || !is_identifier(l["name"].Scalar())) {
          r_.error(a.name_loc, "loop name must be an identifier, got " + node_kind(l["name"]));
          ok = false;
        } else {
          a.name = l["name"].Scalar();
        }
      }
      if (l["unroll"]) {
        a.unroll_loc = YamlSource::loc(key_node(l, "unroll"));
        const YAML::Node u = l["unroll"];
        if (u.IsScalar() && is_identifier(u.Scalar())) {
          a.unroll_const = u.Scalar();  // PyPTO's unroll_list=unroll_list: a constant list, read per elaboration
        } else if (!u.IsSequence() || u.size() == 0) {
          r_.error(value_loc(l, "unroll"), "unroll must be a list of positive factors such as [64, 16, 4], got " +
                                               node_kind(u));
          ok = false;
        } else {
          for (auto e : u) {
            auto i = as_int(e);
            if (!i || *i <= 0 || *i > 1 << 20) {
              r_.error(YamlSource::loc(e), "unroll factors must be positive integers, got " + node_kind(e));
              ok = false;
              continue;
            }
            a.unroll.push_back(*i);
          }
        }
        if (a.is_static) {
          r_.error(a.unroll_loc, "a static loop cannot carry unroll", "static loops are fully unrolled already; "
                                                                       "remove 'unroll' or use kind: dynamic");
          ok = false;
        }
      }
      if (l["factor"]) {
        a.factor_loc = value_loc(l, "factor");
        if (!l["factor"].IsScalar() || !is_identifier(l["factor"].Scalar())) {
          r_.error(a.factor_loc, "loop factor must be a name, got " + node_kind(l["factor"]));
          ok = false;
        } else if (!l["unroll"]) {
          r_.error(a.factor_loc, "'factor' names the unroll factor but the loop has no 'unroll' list",
                   "add 'unroll: [...]' or remove 'factor'");
          ok = false;
        } else if (l["factor"].Scalar() == a.var) {
          r_.error(a.factor_loc, "the factor name '" + a.var + "' is also the loop variable");
          ok = false;
        } else {
          a.factor = l["factor"].Scalar();
        }
      }
    }
    if (ok && cc.cond) ok = condition_loop_keys(l);
    if (ok && l["carry"]) ok = carry(l, a);
    s.body = body_of(n, "body", "a loop");
    if (!ok) return std::nullopt;
    if (cc.cond) return loop_under_condition(std::move(s), cc.cond, cc.pos, cc.text, stmt_counter_++);
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }

  // A loop count that is a condition (loop_count_condition.h), as read from `count:` or `range: [...]`.
  struct CountCond {
    ExprPtr cond;
    PosMapPtr pos;
    std::string text;
  };

  // nullopt: `n` is an ordinary bound. true: a condition, kept in `cc`. false: a condition that does not
  // parse, reported where it breaks.
  std::optional<bool> condition_count(const YAML::Node& n, CountCond& cc) {
    // A string past the statement limit is left to the bound's own read, which reports it once.
    if (!n.IsScalar() || int64_t(n.Scalar().size()) > limits::get(limits::Id::stmt_bytes)) return std::nullopt;
    PosMapPtr pos = src_.scalar_map(n);
    std::string text = n.Scalar();
    if (!dict_lookups(text, pos)) return false;
    auto c = count_condition(text);
    if (!c) return std::nullopt;
    if (auto* e = std::get_if<SyntaxError>(&*c)) {
      r_.error(pos->at(e->off), e->message, e->hint, e->len);
      return false;
    }
    cc = {std::get<ExprPtr>(*c), pos, text};
    return true;
  }

  // The header keys a loop over a condition (run once or not at all) cannot take, each refused at its key.
  bool condition_loop_keys(const YAML::Node& l) {
    bool ok = true;
    if (l["carry"]) {
      r_.error(YamlSource::loc(key_node(l, "carry")),
               "a loop whose count is a condition runs once or not at all: it cannot carry values",
               "write the branch itself, {cond: COND, then: [...]}: a name bound before it and rebound in the "
               "branch holds the new value after it", 5);
      ok = false;
    }
    if (l["kind"] && l["kind"].IsScalar() && l["kind"].Scalar() == "static") {
      r_.error(value_loc(l, "kind"), "a loop whose count is a condition cannot be static",
               "remove 'kind: static': the condition is decided at compile time when it is static, at run time "
               "otherwise", 6);
      ok = false;
    }
    if (l["unroll"]) {
      r_.error(YamlSource::loc(key_node(l, "unroll")),
               "a loop whose count is a condition runs once or not at all: it has nothing to unroll",
               "remove 'unroll' (and 'factor')", 6);
      ok = false;
    }
    return ok;
  }

  // `{if: COND, ...}` (compile time, or run time on is_loop_begin / is_loop_end) or `{cond: COND, ...}` (run time).
  std::optional<Stmt> if_stmt(const YAML::Node& n, Stmt& s, const std::string& key) {
    s.kind = Stmt::Kind::If;
    s.runtime = key == "cond";
    const std::string what = key == "if" ? "an if statement" : "a cond statement";
    check_map(n, {key, "then", "else"}, what, r_);
    const bool keys_ok = !has_unknown_key(n, {key, "then", "else"});
    const YAML::Node c = n[key];
    bool ok = true;
    if (!c.IsScalar()) {
      r_.error(value_loc(n, key), key + " needs a condition string such as " +
                                      (key == "if" ? "\"k <= 16\"" : "\"j == 0\"") + ", got " + node_kind(c));
      ok = false;
    } else {
      if (too_long(c, "the condition")) return std::nullopt;
      s.pos = src_.scalar_map(c);
      s.text = c.Scalar();
      if (!dict_lookups(s.text, s.pos)) {
        // a missing key, reported: kept without a condition, as after a syntax error
      } else if (auto res = parse_condition(s.text); auto* e = std::get_if<SyntaxError>(&res)) {
        // Reported; the statement is kept without a condition so that the
        // elaborator poisons the names its branches bind (no cascade).
        r_.error(s.pos->at(e->off), e->message, e->hint, e->len);
      } else {
        s.cond = std::get<ExprPtr>(res);
      }
    }
    // With a misspelt key ('than') already reported, a missing 'then' is not news.
    if (keys_ok || n["then"]) s.body = body_of(n, "then", what);
    if (n["else"]) s.else_body = body_of(n, "else", what);
    if (!ok) return std::nullopt;
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }

  std::optional<Stmt> scope(const YAML::Node& n, Stmt& s) {
    s.kind = Stmt::Kind::Scope;
    check_map(n, {"scope", "body"}, "a scope statement", r_);
    const YAML::Node v = n["scope"];
    bool ok = true;
    auto check_id = [&](const YAML::Node& idn, SrcLoc l) {
      auto i = as_int(idn);
      if (!i || *i < -1 || *i > 2147483647) {
        r_.error(l, "scope id must be an integer in -1..2147483647 (-1 ends scoping), got " + node_kind(idn));
        return false;
      }
      s.scope.id = *i;
      return true;
    };
    if (v.IsMap()) {
      if (!check_map(v, {"id", "parallel_merge", "cross_scope_merge"}, "scope", r_)) ok = false;
      else if (!v["id"]) {
        r_.error(YamlSource::loc(v), "scope needs 'id: N'");
        ok = false;
      } else {
        ok = check_id(v["id"], value_loc(v, "id"));
        for (const char* k : {"parallel_merge", "cross_scope_merge"}) {
          if (!v[k]) continue;
          auto b = as_bool(v[k]);
          if (!b) {
            r_.error(value_loc(v, k), std::string("scope ") + k + " must be true or false, got " + node_kind(v[k]));
            ok = false;
          } else {
            (std::string(k) == "parallel_merge" ? s.scope.parallel_merge : s.scope.cross_scope_merge) = *b;
          }
        }
      }
    } else {
      ok = check_id(v, value_loc(n, "scope"));
    }
    if (n["body"]) {
      s.has_body = true;
      s.body = body_of(n, "body", "a scope");
    }
    if (!ok) return std::nullopt;
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }

  std::optional<Stmt> label(const YAML::Node& n, Stmt& s) {
    s.kind = Stmt::Kind::Label;
    check_map(n, {"label"}, "a label statement", r_);
    const YAML::Node v = n["label"];
    SrcLoc l = value_loc(n, "label");
    if (v.IsNull()) return s;  // {label: null} clears the label
    if (!v.IsScalar() || !is_label_text(v.Scalar())) {  // label_text.cpp: PyPTO's "Attention Scores"
      r_.error(l, "label must be a name ([A-Za-z_][A-Za-z0-9_]*, words may be separated by single spaces), got " +
                      node_kind(v));
      return std::nullopt;
    }
    if (func_key(v.Scalar())) {
      r_.error(l, "label '" + v.Scalar() + "' looks like a function key func{magic}_{order}",
               "choose another name; func keys name root functions in the *_setting options", int(v.Scalar().size()));
      return std::nullopt;
    }
    s.label = v.Scalar();
    labels_.insert(s.label);
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }

  std::optional<Stmt> cache_policy(const YAML::Node& n, Stmt& s) {
    s.kind = Stmt::Kind::CachePolicy;
    check_map(n, {"cache_policy"}, "a cache_policy statement", r_);
    const YAML::Node c = n["cache_policy"];
    if (!check_map(c, {"tensor", "l2"}, "cache_policy", r_, s.loc)) return std::nullopt;
    bool ok = true;
    if (!c["tensor"] || !c["tensor"].IsScalar()) {
      r_.error(c["tensor"] ? value_loc(c, "tensor") : YamlSource::loc(c), "cache_policy needs 'tensor: NAME'");
      ok = false;
    } else {
      s.cache_tensor = c["tensor"].Scalar();
      s.cache_tensor_loc = value_loc(c, "tensor");
    }
    if (!c["l2"]) {
      r_.error(YamlSource::loc(c), "cache_policy needs 'l2: normal' or 'l2: bypass'");
      ok = false;
    } else {
      std::string v = c["l2"].IsScalar() ? c["l2"].Scalar() : "";
      if (v == "bypass") s.bypass = true;
      else if (v != "normal") {
        r_.error(value_loc(c, "l2"), "cache_policy l2 must be normal or bypass, got " + node_kind(c["l2"]),
                 did_you_mean(v, {"normal", "bypass"}));
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return std::move(s);  // s is the caller's: a copy would copy the whole body
  }
};

void Reader::read_options_node(const YAML::Node& n, SpecAst& s) { read_options(n, s.options, r_); }

}  // namespace

std::optional<SpecAst> read_spec(const std::string& text, Reporter& r) {
  Reader rd(text, r);
  return rd.run(text);
}

}  // namespace ptoc::fe
