// PyPTO's configuration calls as statement strings (issue 13): a port transliterates
//   pypto.set_vec_tile_shapes(t_tile, 64)            -> {vec_tile: [t_tile, 64]}
//   pypto.set_vec_tile_shapes(*tile_shapes_1)        -> {vec_tile: tile_shapes_1}
//   pypto.set_cube_tile_shapes([m0, m1], [k0, k1], [n0, n1], enable_split_k=x)
//                                                    -> {cube_tile: {m: ..., k: ..., n: ..., split_k: x}}
//   pypto.set_semantic_label("MM1") / ("")                 -> {label: MM1} / {label: null}
//   pypto.set_pass_options(sg_set_scope=(1, True, False))  -> {scope: {id: 1, parallel_merge: true, ...}}
//   pypto.set_pass_options(vec_nbuffer_setting={"DEFAULT": 2})  -> options: {pass: {vec_nbuffer_setting: ...}}
//   pypto.set_codegen_options(enable_pmu_trace=True) / pypto.set_debug_options(runtime_debug_mode=1)
// The statements made here are the ones the mapping forms make (same fields, entries parsed the same way),
// so the IR is the same; the knobs go through options.cpp's read_options (the knob table's checks and
// messages), with positions mapped back into the statement string.
#include "compiler/frontend/elaborate_config_calls.h"
#include "compiler/frontend/elaborator.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>

#include "compiler/frontend/cube_tile_rules.h"
#include "compiler/frontend/func_key.h"
#include "compiler/frontend/label_text.h"
#include "compiler/frontend/options.h"
#include "compiler/frontend/parser.h"
#include "compiler/frontend/suggest.h"
#include "compiler/frontend/yaml_util.h"
#include "runtime/program/knobs.h"

namespace ptoc::fe {

// The deepest nesting a knob's value may have: every knob takes a number, a tuple or a dict of them (two
// levels); the bound keeps a hostile value away from yaml-cpp's recursion.
constexpr int kKnobValueDepth = 16;

namespace {

// PyPTO keywords of set_pass_options / set_codegen_options / set_debug_options that ptoc's knob table has
// no counterpart for (python/pypto/config.py).
const std::vector<std::string> kPyptoOnlyPass = {"auto_mix_partition", "sg_set_ooo_scope", "ooo_sched_mode",
                                                 "sg_set_tunevf_mode", "enable_slice"};
const std::vector<std::string> kPyptoOnlyCodegen = {"support_dynamic_aligned"};
const std::vector<std::string> kPyptoOnlyDebug = {"compile_debug_mode", "dump_pass_graph"};

struct CallArg {
  std::string name;    // keyword; empty for a positional argument
  int name_off = -1;
  bool star = false;   // `*NAME`
  int b = 0, e = 0;    // the value: text[b, e)
};

struct Call {
  std::string fn;  // without `pypto.`
  int fn_off = 0, open = 0, close = 0;
  std::vector<CallArg> args;
};

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Reader {
 public:
  Reader(const std::string& text, const PosMapPtr& pos, Stmt& s, const ConfigCallContext& ctx, Reporter& r)
      : t_(text), pos_(pos), s_(s), ctx_(ctx), r_(r) {}

  ConfigCallResult run() {
    static const std::set<std::string_view> calls = {
        "set_vec_tile_shapes", "set_cube_tile_shapes", "set_semantic_label", "set_pass_options",
        "set_codegen_options", "set_debug_options", "set_runtime_options", "set_host_options", "set_verify_options"};
    const auto head = call_head(t_);  // func_key.h
    if (!head || !calls.count(std::string_view(t_).substr(size_t(head->name_off), size_t(head->name_len))))
      return ConfigCallResult::NotACall;
    c_.fn = t_.substr(size_t(head->name_off), size_t(head->name_len));
    c_.fn_off = head->name_off;
    c_.open = head->open;
    if (!split()) return broken();
    if (c_.fn == "set_vec_tile_shapes") return vec();
    if (c_.fn == "set_cube_tile_shapes") return cube();
    if (c_.fn == "set_semantic_label") return label();
    if (c_.fn == "set_pass_options") return options("pass", kPyptoOnlyPass);
    if (c_.fn == "set_codegen_options") return options("codegen", kPyptoOnlyCodegen);
    if (c_.fn == "set_debug_options") return options("debug", kPyptoOnlyDebug);
    if (c_.fn == "set_runtime_options")
      err(c_.fn_off, int(c_.fn.size()), "PyPTO has no set_runtime_options: its runtime knobs are the jit's runtime_options",
          "write them in the spec's options: runtime: group (stitch_function_max_num, device_sched_mode, "
          "max_workspace_kb)");
    else
      err(c_.fn_off, int(c_.fn.size()), "'" + c_.fn + "' sets PyPTO options that ptoc has no knobs for",
          "ptoc's knobs are options: runtime / pass / codegen / debug (ptoc --list-knobs)");
    return ConfigCallResult::Consumed;
  }

 private:
  const std::string& t_;
  const PosMapPtr& pos_;
  Stmt& s_;
  const ConfigCallContext& ctx_;
  Reporter& r_;
  Call c_;
  std::shared_ptr<Options> deferred_;        // knobs of a call under an `if` (Stmt::Kind::Knobs)
  std::vector<std::string> deferred_names_;

  void err(int off, int len, const std::string& msg, const std::string& hint = {}) {
    r_.error(pos_->at(off), msg, hint, std::max(1, len));
  }
  ConfigCallResult broken() {
    if (c_.fn == "set_vec_tile_shapes" || c_.fn == "set_cube_tile_shapes") {
      // kept, so the ops after it are not also reported as having no tile
      s_.kind = c_.fn == "set_vec_tile_shapes" ? Stmt::Kind::VecTile : Stmt::Kind::CubeTile;
      s_.vec.loc = s_.cube.loc = s_.loc;
      s_.broken = true;
      return ConfigCallResult::Stmt;
    }
    return ConfigCallResult::Consumed;
  }
  std::string arg_text(const CallArg& a) const { return t_.substr(size_t(a.b), size_t(a.e - a.b)); }
  int arg_start(const CallArg& a) const { return a.name.empty() ? (a.star ? a.b - 1 : a.b) : a.name_off; }

  // The arguments between the parentheses, split at top-level commas (brackets, braces, parentheses and
  // quotes nest); nothing but blanks may follow the closing parenthesis.
  bool split() {
    int depth = 0;
    char quote = 0;
    int start = c_.open + 1;
    std::vector<std::pair<int, int>> pieces;
    int i = c_.open + 1;
    for (; i < int(t_.size()); ++i) {
      char ch = t_[size_t(i)];
      if (quote) {
        if (ch == '\\') ++i;
        else if (ch == quote) quote = 0;
        continue;
      }
      if (ch == '"' || ch == '\'') quote = ch;
      else if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') {
        if (depth == 0) {
          if (ch != ')') {
            err(i, 1, std::string("unbalanced '") + ch + "' in the arguments of " + c_.fn);
            return false;
          }
          pieces.emplace_back(start, i);
          break;
        }
        --depth;
      } else if (ch == ',' && depth == 0) {
        pieces.emplace_back(start, i);
        start = i + 1;
      }
    }
    if (i >= int(t_.size())) {
      err(c_.open, 1, "'(' of " + c_.fn + " is never closed", "close the argument list with ')'");
      return false;
    }
    c_.close = i;
    for (size_t j = size_t(i) + 1; j < t_.size(); ++j)
      if (!std::isspace(static_cast<unsigned char>(t_[j]))) {
        err(int(j), int(t_.size() - j), "unexpected text after the call to " + c_.fn,
            c_.fn + " is a statement on its own; it returns nothing");
        return false;
      }
    bool ok = true;
    for (size_t k = 0; k < pieces.size(); ++k) {
      auto [b, e] = pieces[k];
      while (b < e && std::isspace(static_cast<unsigned char>(t_[size_t(b)]))) ++b;
      while (e > b && std::isspace(static_cast<unsigned char>(t_[size_t(e - 1)]))) --e;
      if (b == e) {
        if (k + 1 == pieces.size() && (k > 0 || pieces.size() == 1)) continue;  // `f()` or a trailing comma
        err(b, 1, "empty argument in the call to " + c_.fn);
        ok = false;
        continue;
      }
      CallArg a;
      a.b = b;
      a.e = e;
      int j = b;
      while (j < e && name_char(t_[size_t(j)])) ++j;
      int k2 = j;
      while (k2 < e && std::isspace(static_cast<unsigned char>(t_[size_t(k2)]))) ++k2;
      if (j > b && !std::isdigit(static_cast<unsigned char>(t_[size_t(b)])) && k2 < e && t_[size_t(k2)] == '=' &&
          (k2 + 1 >= e || t_[size_t(k2 + 1)] != '=')) {
        a.name = t_.substr(size_t(b), size_t(j - b));
        a.name_off = b;
        a.b = k2 + 1;
        while (a.b < e && std::isspace(static_cast<unsigned char>(t_[size_t(a.b)]))) ++a.b;
        if (a.b == e) {
          err(k2, 1, "keyword '" + a.name + "' of " + c_.fn + " has no value");
          ok = false;
          continue;
        }
      } else if (t_[size_t(b)] == '*' && (b + 1 >= e || t_[size_t(b + 1)] != '*')) {
        a.star = true;
        a.b = b + 1;
        while (a.b < e && std::isspace(static_cast<unsigned char>(t_[size_t(a.b)]))) ++a.b;
      }
      c_.args.push_back(std::move(a));
    }
    return ok;
  }

  // An argument's value parsed as an expression, with its own position map (as a mapping entry has).
  std::optional<SrcExpr> parse(int b, int e) {
    std::vector<SrcLoc> locs;
    for (int i = b; i <= e; ++i) locs.push_back(pos_->at(i));
    auto pm = std::make_shared<const PosMap>(std::move(locs));
    std::string sub = t_.substr(size_t(b), size_t(e - b));
    auto res = parse_expression(sub);
    if (auto* x = std::get_if<SyntaxError>(&res)) {
      r_.error(pm->at(x->off), x->message, x->hint, x->len);
      return std::nullopt;
    }
    return SrcExpr{std::get<ExprPtr>(res), pm, sub};
  }
  static std::optional<int64_t> int_literal(const Expr& x) {
    if (x.kind == Expr::Kind::Number && x.is_int) return x.ival;
    return std::nullopt;
  }

  // ---- set_vec_tile_shapes(*shapes) ----
  ConfigCallResult vec() {
    s_.kind = Stmt::Kind::VecTile;
    s_.vec.loc = s_.loc;
    const std::string hint = "e.g. set_vec_tile_shapes(16, 1024) or set_vec_tile_shapes(*tile_shapes)";
    for (const CallArg& a : c_.args)
      if (!a.name.empty()) {
        err(a.name_off, int(a.name.size()), "set_vec_tile_shapes has no keyword '" + a.name + "'",
            "its arguments are the tile's entries, positional (PyPTO's *shapes)");
        s_.broken = true;
        return ConfigCallResult::Stmt;
      }
    if (c_.args.size() == 1 && c_.args[0].star) {
      // `*tile_shapes_1`: a constant list bound by a statement, as `vec_tile: tile_shapes_1` reads it
      const CallArg& a = c_.args[0];
      std::string n = arg_text(a);
      if (!is_identifier(n)) {
        err(a.b, a.e - a.b, "set_vec_tile_shapes(*...) unpacks a constant list bound by a statement; '" + n +
                                "' is not a name",
            "bind it first: 'tiles = [16, 1024]', then set_vec_tile_shapes(*tiles)");
        s_.broken = true;
        return ConfigCallResult::Stmt;
      }
      auto x = parse(a.b, a.e);
      if (x) s_.vec_list = std::move(*x);
      s_.broken = !x;
      return ConfigCallResult::Stmt;
    }
    if (c_.args.empty() || c_.args.size() > 4) {
      int off = c_.args.empty() ? c_.open : arg_start(c_.args[4]);
      int len = c_.args.empty() ? c_.close - c_.open + 1 : c_.close - off;
      err(off, len,
          "set_vec_tile_shapes takes 1 to 4 tile entries, got " + std::to_string(c_.args.size()),
          hint);
      s_.broken = true;
      return ConfigCallResult::Stmt;
    }
    bool ok = true;
    for (const CallArg& a : c_.args) {
      if (a.star) {
        err(a.b - 1, 1, "set_vec_tile_shapes(*list) unpacks one list and takes no other entries",
            "write set_vec_tile_shapes(*tiles) alone, or the entries one by one");
        ok = false;
        continue;
      }
      auto x = parse(a.b, a.e);
      if (!x) {
        ok = false;
        continue;
      }
      if (auto i = int_literal(*x->expr)) {
        if (*i <= 0) {
          err(a.b, a.e - a.b, "vec_tile entries must be positive integers, got " + std::to_string(*i), hint);
          ok = false;
          continue;
        }
        s_.vec.shape.push_back(*i);
        continue;
      }
      if (x->expr->kind == Expr::Kind::List) {
        err(a.b, a.e - a.b, "set_vec_tile_shapes takes the entries themselves, not a list",
            "write set_vec_tile_shapes(*" + arg_text(a) + ") or the entries one by one");
        ok = false;
        continue;
      }
      // a dim expression over constants (elaborate_vec_tile.cpp evaluates it per gear)
      s_.vec_exprs.resize(s_.vec.shape.size());
      s_.vec_exprs.push_back(std::move(*x));
      s_.vec.shape.push_back(0);
    }
    if (!s_.vec_exprs.empty()) s_.vec_exprs.resize(s_.vec.shape.size());
    s_.broken = !ok;
    return ConfigCallResult::Stmt;
  }

  // ---- set_semantic_label("Attention Scores") / set_semantic_label("") ----
  ConfigCallResult label() {
    const std::string hint = "e.g. set_semantic_label(\"MM1\"); set_semantic_label(\"\") clears it";
    if (c_.args.size() != 1 || (!c_.args[0].name.empty() && c_.args[0].name != "label") || c_.args[0].star) {
      int off = c_.args.empty() ? c_.open : arg_start(c_.args[c_.args.size() > 1 ? 1 : 0]);
      err(off, 1, "set_semantic_label takes one argument, the label string, got " + std::to_string(c_.args.size()) +
                      (c_.args.size() == 1 ? " of another form" : ""), hint);
      return ConfigCallResult::Consumed;
    }
    const CallArg& a = c_.args[0];
    std::string v = arg_text(a);
    if (v.size() < 2 || (v.front() != '"' && v.front() != '\'') || v.back() != v.front()) {
      err(a.b, a.e - a.b, "set_semantic_label takes a string literal, got '" + v + "'", hint);
      return ConfigCallResult::Consumed;
    }
    std::string text = v.substr(1, v.size() - 2);
    s_.kind = Stmt::Kind::Label;
    if (text.empty()) return ConfigCallResult::Stmt;  // "" clears the label, as {label: null}
    if (!is_label_text(text)) {
      err(a.b, a.e - a.b, "label must be a name ([A-Za-z_][A-Za-z0-9_]*, words may be separated by single spaces), got '" +
                              text + "'");
      return ConfigCallResult::Consumed;
    }
    if (func_key(text)) {
      err(a.b, a.e - a.b, "label '" + text + "' looks like a function key func{magic}_{order}",
          "choose another name; func keys name root functions in the *_setting options");
      return ConfigCallResult::Consumed;
    }
    s_.label = text;
    return ConfigCallResult::Stmt;
  }

  // ---- set_cube_tile_shapes(m, k, n, enable_split_k=False) ----
  ConfigCallResult cube() {
    s_.kind = Stmt::Kind::CubeTile;
    s_.cube.loc = s_.loc;
    static const std::vector<std::string> params = {"m", "k", "n", "enable_split_k"};
    const CallArg* bound[4] = {nullptr, nullptr, nullptr, nullptr};
    bool ok = true;
    size_t positional = 0;
    for (const CallArg& a : c_.args) {
      if (a.star) {
        err(a.b - 1, 1, "set_cube_tile_shapes(*...) is not read: write the axes m, k, n as lists",
            "e.g. set_cube_tile_shapes([128, 128], [64, 256], [128, 128])");
        ok = false;
        continue;
      }
      if (a.name.empty()) {
        if (positional >= 4) {
          err(a.b, a.e - a.b,
              "set_cube_tile_shapes takes 4 arguments (m, k, n, enable_split_k), got " +
                  std::to_string(c_.args.size()),
              "remove the extra argument");
          ok = false;
          continue;
        }
        bound[positional++] = &a;
        continue;
      }
      auto it = std::find(params.begin(), params.end(), a.name);
      if (it == params.end()) {
        std::string hint;
        std::string msg = "set_cube_tile_shapes has no keyword '" + a.name + "'";
        if (a.name == "enable_multi_data_load") {
          msg = "set_cube_tile_shapes's 'enable_multi_data_load' has no counterpart in ptoc";
          hint = "remove it: ptoc's cube_tile takes m, k, n and split_k (PyPTO's enable_split_k); the L1 loads are "
                 "planned by the compiler";
        } else {
          hint = did_you_mean(a.name, params);
          if (hint.empty()) hint = "its keywords are m, k, n and enable_split_k";
        }
        err(a.name_off, int(a.name.size()), msg, hint);
        ok = false;
        continue;
      }
      size_t idx = size_t(it - params.begin());
      if (bound[idx]) {
        err(a.name_off, int(a.name.size()), "set_cube_tile_shapes got '" + a.name + "' twice");
        ok = false;
        continue;
      }
      bound[idx] = &a;
    }
    if (!ok) {
      s_.broken = true;
      return ConfigCallResult::Stmt;
    }
    for (int i = 0; i < 3; ++i)
      if (!bound[i]) {
        err(c_.close, 1, "set_cube_tile_shapes needs '" + params[size_t(i)] + "': the call has " +
                             std::to_string(c_.args.size()) + " of m, k, n",
            "e.g. set_cube_tile_shapes([128, 128], [64, 256], [128, 128])");
        s_.broken = true;
        return ConfigCallResult::Stmt;
      }
    std::vector<int64_t> m, k, nn;
    std::vector<SrcExpr> me, ke, ne;
    ok = axis(*bound[0], "m", 2, m, me, 0);
    ok = axis(*bound[1], "k", 3, k, ke, 1) && ok;
    ok = axis(*bound[2], "n", 2, nn, ne, 2) && ok;
    if (const CallArg* a = bound[3]) {
      std::string v = arg_text(*a);
      if (v == "True" || v == "true") s_.cube.split_k = true;
      else if (v == "False" || v == "false") s_.cube.split_k = false;
      else if (is_identifier(v)) {
        // a constant bound by a statement (elaborate_cube_tile.cpp reads it), as `split_k: NAME`
        if (auto x = parse(a->b, a->e)) s_.cube_split_k = std::move(*x);
        else ok = false;
      } else {
        err(a->b, a->e - a->b, "enable_split_k must be True, False or a constant's name, got '" + v + "'",
            "bind it first: 'split_k = True', then enable_split_k=split_k");
        ok = false;
      }
    }
    if (!ok) {
      s_.broken = true;
      return ConfigCallResult::Stmt;
    }
    s_.set_cube_extents(m, k, nn, me, ke, ne);
    return ConfigCallResult::Stmt;
  }

  // One axis, `[L0, L1]` (k also `[L0, L1_A, L1_B]`): the rules of spec_reader.cpp's cube_axis.
  bool axis(const CallArg& a, const char* name, size_t max_len, std::vector<int64_t>& out,
            std::vector<SrcExpr>& exprs, size_t index) {
    std::string form = max_len == 3 ? "[L0, L1] or [L0, L1_A, L1_B]" : "[L0, L1]";
    auto x = parse(a.b, a.e);
    if (!x) return false;
    const Expr& e = *x->expr;
    if (e.kind == Expr::Kind::Name && !e.quoted) {
      // PyPTO's `set_cube_tile_shapes(m_tile, k_tile, n_tile)` after `m_tile = [16, 128]`: a constant list,
      // read when the statement is elaborated (elaborate_cube_tile.cpp); the entries stand in as 0 until then.
      s_.cube_lists.resize(3);
      s_.cube_lists[index] = std::move(*x);
      out.assign(2, 0);
      exprs.assign(2, SrcExpr{});
      return true;
    }
    if (e.kind != Expr::Kind::List) {
      std::string v = arg_text(a);
      err(a.b, a.e - a.b, std::string("set_cube_tile_shapes's ") + name + " must be a list " + form + ", got '" + v + "'",
          e.kind == Expr::Kind::Subscript
              ? "write the list itself, e.g. [" + v + "[0], " + v + "[1]]"
              : "e.g. [128, 128]");
      return false;
    }
    if (e.items.size() < 2 || e.items.size() > max_len) {
      err(a.b, a.e - a.b, std::string("set_cube_tile_shapes's ") + name + " must be " + form + ", got a list of " +
                              std::to_string(e.items.size()) + " entries");
      return false;
    }
    bool ok = true, symbolic = false;
    for (const ExprPtr& item : e.items) {
      if (auto i = int_literal(*item)) {
        if (*i <= 0) {
          err(a.b + item->off, item->len, std::string("cube_tile ") + name + " entries must be positive integers, got " +
                                              std::to_string(*i));
          ok = false;
          continue;
        }
        out.push_back(std::string(name) == "m" && *i < 16 && 16 % *i == 0 ? 16 : *i);
        continue;
      }
      // An entry written as a dim expression: its own text and positions, as a mapping's string entry.
      auto sub = parse(a.b + item->off, a.b + item->off + item->len);
      if (!sub) {
        ok = false;
        continue;
      }
      exprs.resize(out.size());
      exprs.push_back(std::move(*sub));
      out.push_back(0);
      symbolic = true;
    }
    exprs.resize(out.size());
    if (!ok) return false;
    if (symbolic) return true;
    for (const CubeAxisIssue& i : cube_axis_issues(name, out)) {
      err(a.b, a.e - a.b, i.message, i.hint);
      ok = false;
    }
    return ok;
  }

  // ---- set_pass_options / set_codegen_options / set_debug_options ----
  ConfigCallResult options(const std::string& group, const std::vector<std::string>& pypto_only) {
    const std::vector<std::string> keys = knob_keys(group);
    std::vector<std::string> all = keys;
    if (group == "pass") all.push_back("sg_set_scope");
    bool made_scope = false;
    ConfigCallResult result = ConfigCallResult::Consumed;
    if (c_.args.empty()) {
      err(c_.open, c_.close - c_.open + 1, c_.fn + "() sets nothing", "give a keyword, e.g. " + example(group));
      return result;
    }
    for (const CallArg& a : c_.args) {
      if (a.name.empty()) {
        err(arg_start(a), a.e - arg_start(a), c_.fn + " takes keyword arguments only (PyPTO's '*')",
            "e.g. " + example(group));
        continue;
      }
      if (std::find(pypto_only.begin(), pypto_only.end(), a.name) != pypto_only.end()) {
        err(a.name_off, int(a.name.size()), "'" + a.name + "' is a PyPTO " + group + " option that ptoc has no knob for",
            "remove it; ptoc's " + group + " knobs: " + join(all));
        continue;
      }
      if (std::find(all.begin(), all.end(), a.name) == all.end()) {
        std::string hint = did_you_mean(a.name, all);
        if (hint.empty()) hint = "keywords of " + c_.fn + ": " + join(all);
        err(a.name_off, int(a.name.size()), c_.fn + " has no keyword '" + a.name + "'", hint);
        continue;
      }
      if (a.name == "sg_set_scope") {
        if (made_scope) {
          err(a.name_off, int(a.name.size()), c_.fn + " got 'sg_set_scope' twice");
          continue;
        }
        made_scope = scope(a);
        if (made_scope) result = ConfigCallResult::Stmt;
        continue;
      }
      knob(group, a);
    }
    if (deferred_) {
      if (made_scope) {
        err(c_.fn_off, int(c_.fn.size()), c_.fn + " here sets sg_set_scope and knobs in one call",
            "write sg_set_scope=... in a call of its own");
        return ConfigCallResult::Consumed;
      }
      s_.kind = Stmt::Kind::Knobs;
      s_.knobs = deferred_;
      s_.knob_names = deferred_names_;
      s_.label = c_.fn;  // for the elaborator's message
      return ConfigCallResult::Stmt;
    }
    return result;
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
  }
  static std::string example(const std::string& group) {
    if (group == "pass") return "set_pass_options(vec_nbuffer_setting={\"DEFAULT\": 2})";
    if (group == "codegen") return "set_codegen_options(enable_pmu_trace=True)";
    return "set_debug_options(runtime_debug_mode=1)";
  }

  // sg_set_scope=N or (N, parallel_merge, cross_scope_merge): the scope statement without a body.
  bool scope(const CallArg& a) {
    std::string v = arg_text(a);
    int b = a.b, e = a.e;
    std::vector<std::pair<int, int>> items;  // text ranges
    if (v.size() >= 2 && (v.front() == '(' || v.front() == '[') && (v.back() == ')' || v.back() == ']')) {
      int start = b + 1, depth = 0;
      for (int i = b + 1; i < e - 1; ++i) {
        char ch = t_[size_t(i)];
        if (ch == '(' || ch == '[') ++depth;
        else if (ch == ')' || ch == ']') --depth;
        else if (ch == ',' && depth == 0) {
          items.emplace_back(start, i);
          start = i + 1;
        }
      }
      items.emplace_back(start, e - 1);
      if (items.size() != 3) {
        err(b, e - b, "sg_set_scope's tuple is (scope_id, allow_parallel_merge, allow_cross_scope_merge), got " +
                          std::to_string(items.size()) + " entries",
            "e.g. sg_set_scope=(1, True, False), or sg_set_scope=1 for (1, False, False)");
        return false;
      }
    } else {
      items.emplace_back(b, e);
    }
    auto trim = [&](std::pair<int, int>& p) {
      while (p.first < p.second && std::isspace(static_cast<unsigned char>(t_[size_t(p.first)]))) ++p.first;
      while (p.second > p.first && std::isspace(static_cast<unsigned char>(t_[size_t(p.second - 1)]))) --p.second;
    };
    for (auto& p : items) trim(p);
    std::string id = t_.substr(size_t(items[0].first), size_t(items[0].second - items[0].first));
    int64_t idv = 0;
    bool ok = is_integer_text(id) && id.size() < 12;
    if (ok) idv = std::stoll(id);
    if (!ok || idv < -1 || idv > 2147483647) {
      err(items[0].first, std::max(1, items[0].second - items[0].first),
          "scope id must be an integer in -1..2147483647 (-1 ends scoping), got '" + id + "'",
          is_identifier(id) ? "ptoc reads the scope id as a literal here: write the number" : "");
      return false;
    }
    s_.kind = Stmt::Kind::Scope;
    s_.scope.id = idv;
    s_.has_body = false;
    for (size_t i = 1; i < items.size(); ++i) {
      std::string f = t_.substr(size_t(items[i].first), size_t(items[i].second - items[i].first));
      bool bv;
      if (f == "True" || f == "true") bv = true;
      else if (f == "False" || f == "false") bv = false;
      else {
        err(items[i].first, std::max(1, items[i].second - items[i].first),
            std::string("sg_set_scope's ") + (i == 1 ? "allow_parallel_merge" : "allow_cross_scope_merge") +
                " must be True or False, got '" + f + "'");
        return false;
      }
      (i == 1 ? s_.scope.parallel_merge : s_.scope.cross_scope_merge) = bv;
    }
    return true;
  }

  // One knob: the value is a Python literal (int, bool, dict, tuple); it is read as YAML flow text, laid out
  // at the same offsets as in the statement so that the knob table's messages land on the right column.
  void knob(const std::string& group, const CallArg& a) {
    if (!ctx_.options) return;
    Options* into = ctx_.options;
    if (!ctx_.top_level && !ctx_.after_loop) {
      // under an `if` or in a scope body (before the first loop): checked now, applied if elaborated
      if (!deferred_) deferred_ = std::make_shared<Options>();
      into = deferred_.get();
      deferred_names_.push_back(group + "." + a.name);
    } else if (!ctx_.top_level || ctx_.after_loop) {
      err(a.name_off, int(a.name.size()),
          c_.fn + "(" + a.name + "=...) here is not supported: ptoc's " + group + " knobs hold for the whole operator",
          ctx_.top_level ? "move the call before the first loop of the body, or into options: " + group + ":"
                         : "move the call to the top of the spec's body (before any loop), or into options: " + group +
                               ":");
      return;
    }
    std::string v = arg_text(a);
    // a name bound to a literal at the top of the body (knob_literals.h): its text is read in its place, and
    // every message about it points at the name
    const KnobLiteral* lit = nullptr;
    if (is_identifier(v) && v != "True" && v != "False" && v != "true" && v != "false") {
      auto it = ctx_.literals ? ctx_.literals->find(v) : KnobLiterals::const_iterator{};
      if (!ctx_.literals || it == ctx_.literals->end()) {
        err(a.b, a.e - a.b,
            c_.fn + "'s " + a.name + " names '" + v + "', which is not bound to a literal at the top of the body",
            "bind it to a literal before the call ('" + v + " = 1', '" + v + " = True', '" + v +
                " = {\"DEFAULT\": 2}', or a list of them), or write the value out: " + example(group));
        return;
      }
      lit = &it->second;
    }
    const std::string& src = lit ? lit->text : t_;
    const int from = lit ? 0 : a.b, to = lit ? int(src.size()) : a.e;
    const std::string shown = lit ? lit->text : v;
    char f = shown.empty() ? 0 : shown.front();
    if (!(f == '{' || f == '(' || f == '[' || f == '-' || f == '"' || f == '\'' || std::isdigit(static_cast<unsigned char>(f)) ||
          shown == "True" || shown == "False" || shown == "true" || shown == "false")) {
      err(a.b, a.e - a.b, c_.fn + "'s " + a.name + " must be a literal here, got '" + v + "'",
          "ptoc reads the value from the spec: write it out, e.g. " + example(group) +
              ", or bind it to a literal at the top of the body ('NAME = {\"DEFAULT\": 2}') and pass NAME");
      return;
    }
    // offsets into the statement (or, for a bound name, the name's own) for the knob table's messages
    auto at = [&](int i) { return lit ? a.b : i; };
    std::string y(size_t(from), ' ');
    char quote = 0;
    int depth = 0;
    const int max_depth = kKnobValueDepth;
    for (int i = from; i < to; ++i) {
      char ch = src[size_t(i)];
      if (quote) {
        if (ch == quote) quote = 0;
        y += ch;
        continue;
      }
      if (ch == '"' || ch == '\'') { quote = ch; y += ch; continue; }
      // yaml-cpp refuses deep flow nesting (a few hundred levels) with a bare "bad file": say what and where
      if (ch == '(' || ch == '[' || ch == '{') {
        if (++depth > max_depth) {
          err(at(i), 1, c_.fn + "'s " + a.name + ": the value nests more than " + std::to_string(max_depth) +
                            " levels deep",
              "a knob's value is a number, a tuple or a dict of them (two levels)");
          return;
        }
      } else if (ch == ')' || ch == ']' || ch == '}') {
        --depth;
      }
      if (ch == '\n' || ch == '\r' || ch == '\t') { y += ' '; continue; }
      if (ch == '(') { y += '['; continue; }
      if (ch == ')') { y += ']'; continue; }
      bool word_start = i == from || !name_char(src[size_t(i - 1)]);
      auto word = [&](const char* w, const char* rep) {
        size_t n = std::strlen(w);
        if (word_start && src.compare(size_t(i), n, w) == 0 &&
            (size_t(i) + n >= size_t(to) || !name_char(src[size_t(i) + n]))) {
          y += rep;
          i += int(n) - 1;
          return true;
        }
        return false;
      };
      if (word("True", "true") || word("False", "false") || word("None", "null")) continue;
      y += ch;
    }
    YAML::Node value;
    try {
      value = YAML::Load(y);
    } catch (const YAML::Exception& e) {
      int col = e.mark.column >= 0 ? e.mark.column : from;
      err(at(std::min(std::max(col, from), to - 1)), 1, c_.fn + "'s " + a.name + ": cannot read the value" +
                                                            (lit ? " of '" + v + "'" : std::string()) + ": " + e.msg);
      return;
    }
    YAML::Node opts(YAML::NodeType::Map);
    YAML::Node g(YAML::NodeType::Map);
    g[a.name] = value;
    opts[group] = g;
    // The knob table's checks, reported into a scratch engine and moved into the statement string.
    DiagEngine scratch("", y);
    {
      Reporter sr(scratch);
      read_options(opts, *into, sr);
    }
    auto remap = [&](SrcLoc l) { return l.line == 1 && !lit ? pos_->at(l.col - 1) : pos_->at(a.b); };
    // a bound name's messages say where its value was written
    const std::string from_name =
        lit ? " (the value of '" + v + "', bound at line " + std::to_string(lit->loc.line) + ")" : "";
    for (const Diagnostic& d : scratch.diagnostics()) {
      const int len = lit ? int(v.size()) : d.length;
      if (d.severity == Diagnostic::Severity::Error) r_.error(remap(d.loc), d.message + from_name, d.hint, len);
      else if (d.severity == Diagnostic::Severity::Warning)
        r_.warning(remap(d.loc), d.message + from_name, d.hint, len);
    }
    if (const Knob* k = find_knob(group, a.name); k && k->type == Knob::Type::Setting)
      for (auto& e : (into->*(k->setting)).entries) e.loc = remap(e.loc);
  }
};

}  // namespace

// A Knobs statement where the elaboration reaches it: outside any loop, its knobs replace the options'.
void Elaborator::config_knobs(const Stmt& s) {
  if (!s.knobs) return;
  if (seq_ && seq_->frame.in_loop) {
    // at the first keyword of the call
    const size_t open = s.text.find('(');
    SrcLoc at = s.pos && open != std::string::npos ? s.pos->at(int(open) + 1) : s.loc;
    for (size_t i = open + 1; s.pos && open != std::string::npos && i < s.text.size() && s.text[i] == ' '; ++i)
      at = s.pos->at(int(i) + 1);
    r_.error(at, s.label + "(...) inside a loop is not supported: ptoc's knobs hold for the whole operator",
             "move the call before the first loop of the body, or into options:");
    return;
  }
  for (const std::string& n : s.knob_names) {
    const size_t dot = n.find('.');
    const Knob* k = find_knob(n.substr(0, dot), n.substr(dot + 1));
    if (!k) continue;
    if (k->type == Knob::Type::Setting) p_.options.*(k->setting) = (*s.knobs).*(k->setting);
    else k->set(p_.options, k->get(*s.knobs));
  }
}

ConfigCallResult read_config_call(const std::string& text, const PosMapPtr& pos, Stmt& s,
                                  const ConfigCallContext& ctx, Reporter& r) {
  return Reader(text, pos, s, ctx, r).run();
}

}  // namespace ptoc::fe
