#include "swimlane_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "runtime/profiling/machine_view_text.h"
#include "runtime/program/program_json.h"
#include "runtime/program/root_tasks.h"
#include "runtime/core/json_out.h"

namespace ptoc::profiling {

using nlohmann::ordered_json;

namespace {

// Successor task ids in dyn_topo.txt order: intra-root (same funcId) first, then stitched ones.
std::vector<uint32_t> topo_successors(uint32_t task_id, const uint32_t* ids, size_t n) {
  std::vector<uint32_t> intra, stitched;
  for (size_t k = 0; k < n; ++k) ((ids[k] >> 16) == (task_id >> 16) ? intra : stitched).push_back(ids[k]);
  intra.insert(intra.end(), stitched.begin(), stitched.end());
  return intra;
}
std::vector<uint32_t> topo_successors(const sim::TaskRecord& t, const sim::RoundTrace& round) {
  return topo_successors(t.task_id, round.succ_ids.data() + t.succ_begin, t.succ_count);
}

// Tasks in dyn_topo.txt order: device task, then task order inside it, as DumpTopo appends them.
std::vector<const sim::TaskRecord*> topo_order(const sim::RoundTrace& round) {
  std::vector<const sim::TaskRecord*> order;
  for (const auto& t : round.tasks) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return a->seq != b->seq ? a->seq < b->seq : a->task_index < b->task_index;
  });
  return order;
}

// Tasks per core in tilefwk_L1_prof_data.json order (cores ascending, tasks by start, capped).
std::map<int, std::vector<const sim::TaskRecord*>> l1_order(const sim::RoundTrace& round) {
  std::map<int, std::vector<const sim::TaskRecord*>> per_core;
  for (const auto& t : round.tasks) per_core[t.core].push_back(&t);
  for (auto& [core, tasks] : per_core) {
    std::stable_sort(tasks.begin(), tasks.end(), [](auto* a, auto* b) { return a->start_ps < b->start_ps; });
    if (tasks.size() > kMaxDfxTasksPerCore) tasks.resize(kMaxDfxTasksPerCore);
  }
  return per_core;
}

// Python's repr() of a float: the shortest digits that round-trip, in exponent form below 1e-4 and
// from 1e16, otherwise fixed with at least one decimal ("2.0").
std::string py_float(double v) {
  if (v != v) return "nan";
  if (v > 1.7976931348623157e308) return "inf";
  if (v < -1.7976931348623157e308) return "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // [-]d[.ddd]e[+-]XX
  const size_t e = sci.find('e');
  const int exp = std::stoi(sci.substr(e + 1));
  std::string mant = sci.substr(0, e);
  const bool neg = mant[0] == '-';
  if (neg) mant = mant.substr(1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  } else if (exp < 0) {
    out = "0." + std::string(size_t(-exp - 1), '0') + digits;
  } else {
    if (digits.size() <= size_t(exp) + 1) digits += std::string(size_t(exp) + 1 - digits.size(), '0');
    const std::string frac = digits.substr(size_t(exp) + 1);
    out = digits.substr(0, size_t(exp) + 1) + "." + (frac.empty() ? "0" : frac);
  }
  return neg ? "-" + out : out;
}

// Python's repr() of a JSON value as json.load gives it (str/int/float/list/dict/bool/None).
std::string py_repr(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "None";
    case nlohmann::json::value_t::boolean: return v.get<bool>() ? "True" : "False";
    case nlohmann::json::value_t::number_integer: return std::to_string(v.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return std::to_string(v.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py_float(v.get<double>());
    case nlohmann::json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      const char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
      std::string out(1, q);
      for (char c : s) {
        if (c == '\\' || c == q) out += '\\';
        out += c;
      }
      return out + q;
    }
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + py_repr(v[i]);
      return out + "]";
    }
    default: {
      std::string out = "{";
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out += (first ? "" : ", ") + py_repr(nlohmann::json(it.key())) + ": " + py_repr(it.value());
        first = false;
      }
      return out + "}";
    }
  }
}

// program.json as draw_swim_lane.py reads it: functions found by hash string; a root's CALL ops by
// opmagic with their semantic label, operand hints and hash-order attributes.
struct ProgramIndex {
  struct Op {
    std::string label;
    std::string in_hint = "[]", out_hint = "[]";
    nlohmann::json attr;
  };
  struct Func {
    std::string hash;
    std::vector<std::pair<int64_t, Op>> ops;  // (opmagic, op) in file order
    std::unordered_map<int64_t, size_t> by_magic;  // opmagic -> its first op
  };
  std::vector<Func> funcs;
  std::unordered_map<std::string, size_t> by_hash;  // hash -> first function with it

  explicit ProgramIndex(const std::string& text) { add_document(text); }
  // From the compiled program directly: its root functions as program_json_text() writes them, then its
  // BLOCK_GRAPH texts, each parsed on its own (a GEMM's root is 10 MB of JSON text that need not be built
  // and parsed back for this). Any doubt (a text that is no UTF-8, a block that is no JSON object) falls
  // back to parsing program_json_text(), so the index is the same.
  explicit ProgramIndex(const CompiledProgram& p) {
    if (!p.graph_json.empty() || !p.graph_from_blocks || !add_program(p)) {
      funcs.clear(), by_hash.clear();
      add_document(program_json_text(p));
    }
  }

  void add_document(const std::string& text) {
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (!doc.is_object() || !doc.contains("functions") || !doc["functions"].is_array()) return;
    for (const auto& f : doc["functions"]) add_function(f);
  }

  void add_function(const nlohmann::json& f) {
    Func fn;
    if (f.contains("hash")) fn.hash = f["hash"].is_string() ? f["hash"].get<std::string>() : f["hash"].dump();
    std::unordered_map<int64_t, const nlohmann::json*> tensors, raws;
    if (f.contains("tensors"))
      for (const auto& t : f["tensors"])
        if (t.contains("magic")) tensors[t["magic"].get<int64_t>()] = &t;
    if (f.contains("rawtensors"))
      for (const auto& r : f["rawtensors"])
        if (r.contains("rawmagic")) raws[r["rawmagic"].get<int64_t>()] = &r;
    const bool root = f.value("graphtype", 0) == 2;
    if (f.contains("operations"))
      for (const auto& o : f["operations"]) {
        Op op;
        if (o.contains("semantic_label") && o["semantic_label"].is_object())
          op.label = o["semantic_label"].value("label", "");
        if (o.contains("op_attr")) op.attr = o["op_attr"];
        // [{magic: {'shape': [...], 'dtype': <rawtensor datatype>, 'rawmagic': N}}, ...], each magic once.
        auto hint = [&](const char* key) {
          std::string out = "[";
          if (!o.contains(key)) return out + "]";
          std::vector<int64_t> seen;
          for (const auto& m : o[key]) {
            const int64_t magic = m.get<int64_t>();
            if (std::find(seen.begin(), seen.end(), magic) != seen.end()) continue;
            auto t = tensors.find(magic);
            if (t == tensors.end()) continue;
            const nlohmann::json& tj = *t->second;
            auto r = raws.find(tj.value("rawtensor", int64_t(-1)));
            nlohmann::json dt, rm;
            if (r != raws.end()) dt = r->second->value("datatype", nlohmann::json()), rm = r->second->value("rawmagic", nlohmann::json());
            out += std::string(seen.empty() ? "{" : ", {") + std::to_string(magic) + ": {'shape': " +
                   py_repr(tj.value("shape", nlohmann::json::array())) + ", 'dtype': " + py_repr(dt) +
                   ", 'rawmagic': " + py_repr(rm) + "}}";
            seen.push_back(magic);
          }
          return out + "]";
        };
        if (root) {
          op.in_hint = hint("ioperands");
          op.out_hint = hint("ooperands");
        }
        const int64_t magic = o.value("opmagic", int64_t(-1));
        fn.by_magic.emplace(magic, fn.ops.size());
        fn.ops.emplace_back(magic, std::move(op));
      }
    by_hash.emplace(fn.hash, funcs.size());
    funcs.push_back(std::move(fn));
  }

  // Root functions (pjson::assemble_program_json's EXECUTE_GRAPH part), then the blocks; false when the
  // document it mirrors would not parse.
  bool add_program(const CompiledProgram& p) {
    JsonOut probe(-1);  // every string the document holds, to see that it is well-formed UTF-8
    probe.begin_array().value(p.name).value(p.target);
    for (const GmTensor& g : p.tensors) {
      probe.value(g.name);
      for (const DimExpr& e : g.shape)
        if (!e.as_const()) probe.value(e.str());
    }
    for (const Kernel& k : p.kernels) probe.value(k.name);
    for (const LeafFunction& lf : p.leaves) probe.value(lf.merge_info);
    for (const RootFunction& rf : p.roots) {
      probe.value(rf.name);
      for (const std::string& v : rf.loop_vars) probe.value(v);
      Func fn;
      fn.hash = pjson::hash_text(rf.hash);
      std::vector<std::string> shapes;  // by tensor magic: repr() of the region's extent as json.load gives it
      std::vector<int> raw_of;          // by tensor magic: its GM tensor
      auto dims_repr = [&](const std::vector<DimExpr>& v) {
        std::string out = "[";
        for (const DimExpr& e : v) {
          if (out.size() > 1) out += ", ";
          if (auto c = e.as_const()) {
            out += std::to_string(*c);
          } else {
            const std::string text = e.str();
            probe.value(text);
            out += py_repr(nlohmann::json(text));
          }
        }
        return out + "]";
      };
      std::vector<std::pair<int, int>> operands;  // per task: first magic, reads
      std::vector<int> writes;
      for (size_t ti = 0; ti < task_count(rf); ++ti) {
        const Task t = task_at(rf, ti, false);
        operands.push_back({int(shapes.size()), int(t.reads.size())});
        writes.push_back(int(t.writes.size()));
        for (const auto* v : {&t.reads, &t.writes})
          for (const Region& g : *v) {
            for (const DimExpr& e : g.offset)
              if (!e.as_const()) probe.value(e.str());
            shapes.push_back(dims_repr(g.extent));
            raw_of.push_back(g.tensor);
          }
        Op op;
        op.label = t.label;
        probe.value(t.label);
        const LeafFunction& lf = p.leaves.at(size_t(p.class_index(t)));
        // op_attr's merge keys (only they matter here), a repeated key keeping its last value as json.load does
        op.attr = nlohmann::json::object();
        for (const auto& [key, v] : pjson::merge_attrs(lf.merge_info)) {
          op.attr[key + "_hashOrder"] = v.first;
          op.attr[key + "_subgraphCount"] = v.second;
        }
        const int64_t magic = t.op_magic;
        fn.by_magic.emplace(magic, fn.ops.size());
        fn.ops.emplace_back(magic, std::move(op));
      }
      // Operand hints: [{magic: {'shape': [...], 'dtype': <rawtensor datatype>, 'rawmagic': N}}, ...]
      auto hint = [&](int first, int n) {
        std::string out = "[";
        for (int m = first; m < first + n; ++m) {
          const int raw = raw_of[size_t(m)];
          const bool known = raw >= 0 && size_t(raw) < p.tensors.size();
          out += std::string(m == first ? "{" : ", {") + std::to_string(m) + ": {'shape': " + shapes[size_t(m)] +
                 ", 'dtype': " + (known ? std::to_string(pjson::pypto_datatype(p.tensors[size_t(raw)].dtype)) : "None") +
                 ", 'rawmagic': " + (known ? std::to_string(raw) : "None") + "}}";
        }
        return out + "]";
      };
      for (size_t ti = 0; ti < fn.ops.size(); ++ti) {
        fn.ops[ti].second.in_hint = hint(operands[ti].first, operands[ti].second);
        fn.ops[ti].second.out_hint = hint(operands[ti].first + operands[ti].second, writes[ti]);
      }
      by_hash.emplace(fn.hash, funcs.size());
      funcs.push_back(std::move(fn));
    }
    if (!probe.ok()) return false;
    for (const std::string& b : p.graph_blocks) {
      nlohmann::json f = nlohmann::json::parse(b, nullptr, false);
      if (!f.is_object()) return false;
      add_function(f);
    }
    return true;
  }

  size_t index_of(uint64_t hash) const {
    auto it = by_hash.find(std::to_string(hash));
    return it == by_hash.end() ? funcs.size() : it->second;
  }
  const Op* op(size_t func, int64_t opmagic) const {
    if (func >= funcs.size()) return nullptr;
    auto it = funcs[func].by_magic.find(opmagic);
    return it == funcs[func].by_magic.end() ? nullptr : &funcs[func].ops[it->second].second;
  }
  // "l1ReuseInfo hashOrder: func8_0, subGraphCount: 24" lines (l1_reuse / cube_merge / vec_merge keys).
  static std::string hash_order_text(const nlohmann::json& attr) {
    static const std::pair<const char*, const char*> kinds[] = {
        {"l1_reuse", "l1ReuseInfo"}, {"cube_merge", "cubeMergeInfo"}, {"vec_merge", "vecMergeInfo"}};
    std::string out;
    if (!attr.is_object()) return out;
    for (auto [key, label] : kinds) {
      auto h = attr.find(std::string(key) + "_hashOrder");
      auto c = attr.find(std::string(key) + "_subgraphCount");
      if (h == attr.end() || c == attr.end() || h->is_null() || c->is_null()) continue;
      const std::string hs = h->is_string() ? h->get<std::string>() : py_repr(*h);
      out += (out.empty() ? "" : "\n") + fmt::format("{} hashOrder: {}, subGraphCount: {}", label, hs, py_repr(*c));
    }
    return out;
  }
  // The task's root CALL op first, else the first op of its leaf function that has any.
  std::string hash_order(size_t root, int64_t opmagic, size_t leaf) const {
    if (const Op* o = op(root, opmagic)) {
      std::string s = hash_order_text(o->attr);
      if (!s.empty()) return s;
    }
    if (leaf >= funcs.size()) return {};
    // The leaf's answer is the same for all its tasks (a GEMM leaf: ~400 ops to walk): once per leaf.
    if (leaf_order.size() != funcs.size()) leaf_order.assign(funcs.size(), std::nullopt);
    if (!leaf_order[leaf]) {
      leaf_order[leaf] = std::string();
      for (const auto& [m, o] : funcs[leaf].ops) {
        std::string s = hash_order_text(o.attr);
        if (!s.empty()) {
          leaf_order[leaf] = std::move(s);
          break;
        }
      }
    }
    return *leaf_order[leaf];
  }
  mutable std::vector<std::optional<std::string>> leaf_order;  // per function: hash_order's leaf walk
};

}  // namespace

ordered_json l1_task_entry(const sim::Trace& trace, int32_t seq, int32_t leaf, uint32_t task_id, int64_t start_ps,
                           int64_t end_ps) {
  return {{"seqNo", seq}, {"leafIndex", leaf}, {"taskId", task_id & 0x3ffffffu},
          {"execStart", trace.ticks(start_ps)}, {"execEnd", trace.ticks(end_ps)}};
}

ordered_json l1_core_entry(int core, CoreType type, ordered_json&& tasks) {
  return {{"blockIdx", core}, {"coreType", type == CoreType::AIC ? "AIC" : "AIV"}, {"tasks", std::move(tasks)}};
}

// Each core's entry of tilefwk_L1_prof_data.json, in file order.
static void l1_prof_entries(const sim::Trace& trace, const sim::RoundTrace& round,
                            const std::function<void(ordered_json&&)>& emit) {
  std::map<int, std::vector<const sim::TaskRecord*>> per_core;
  for (const auto& t : round.tasks) per_core[t.core].push_back(&t);
  for (auto& [core, tasks] : per_core) {
    std::stable_sort(tasks.begin(), tasks.end(), [](auto* a, auto* b) { return a->start_ps < b->start_ps; });
    ordered_json list = ordered_json::array();
    for (size_t i = 0; i < tasks.size() && i < kMaxDfxTasksPerCore; ++i) {
      const auto* t = tasks[i];
      list.push_back(l1_task_entry(trace, t->seq, t->leaf, t->task_id, t->start_ps, t->end_ps));
    }
    emit(l1_core_entry(core, tasks.front()->core_type, std::move(list)));
  }
}

ordered_json l1_prof_data(const sim::Trace& trace, const sim::RoundTrace& round) {
  ordered_json out = ordered_json::array();
  l1_prof_entries(trace, round, [&](ordered_json&& e) { out.push_back(std::move(e)); });
  return out;
}

std::string l1_prof_data_text(const sim::Trace& trace, const sim::RoundTrace& round) {
  std::string out = "[";
  l1_prof_entries(trace, round, [&](ordered_json&& e) {
    if (out.size() > 1) out += ',';
    out += e.dump();
  });
  return out + "]";
}

std::string dyn_topo_row(const sim::TaskRecord& t, const uint32_t* succ_ids, size_t n) {
  const auto succ = topo_successors(t.task_id, succ_ids, n);
  size_t intra = 0;
  for (auto id : succ) intra += (id >> 16) == (t.task_id >> 16);
  std::string out = fmt::format("{},{},{},{},{},{},{},{},{},{},{}", t.seq, t.task_id, t.root, t.root_hash, t.op_magic,
                                t.leaf, t.leaf_hash, int(t.core_type), t.leaf, -1, intra);
  for (auto id : succ) out += fmt::format(",{}", id);
  out += "\n";
  return out;
}

std::string dyn_topo(const sim::Trace&, const sim::RoundTrace& round, const CompiledProgram&) {
  std::string out = kDynTopoHeader;
  for (const auto* t : topo_order(round)) out += dyn_topo_row(*t, round.succ_ids.data() + t->succ_begin, t->succ_count);
  return out;
}

// The Machine View as draw_swim_lane.py builds it from the three raw files it is given
// (tilefwk_L1_prof_data.json, dyn_topo.txt, program.json; --label_type=1, time_convert_denominator =
// freq), so the file we write is the one PyPTO's script would write from ours:
// - tasks in L1 order (cores ascending, tasks by start), then topology tasks with no L1 record as fake
//   tasks on "Fake Core_0" (tid 1000), timed from their neighbours;
// - ts/dur from the counter values (execStart/freq, execEnd/freq - execStart/freq);
// - names "<seq>-<funcId>-<opIdx>-<rootIndex>-<psgId>(<semantic label>)", rootIndex being the root
//   function's position in program.json; hints as the script formats them;
// - one flow per dependency edge, ids continuing after the slices';
// - ReadyCount counters stepped at every slice start/end that changes them, Dependence Solving over
//   windows longer than 5 us.
std::vector<ordered_json> machine_view_events(const sim::Trace& trace, const sim::RoundTrace& round,
                                              const CompiledProgram& p) {
  std::vector<ordered_json> ev;
  machine_view_event_text(trace, round, p, [&](const std::string& e) { ev.push_back(ordered_json::parse(e)); });
  return ev;
}

void machine_view_events(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& p,
                         const std::function<void(ordered_json&&)>& emit) {
  machine_view_event_text(trace, round, p, [&](const std::string& e) { emit(ordered_json::parse(e)); });
}

void machine_view_event_text(const sim::Trace& trace, const sim::RoundTrace& round, const CompiledProgram& p,
                             const std::function<void(const std::string&)>& emit_text) {
  auto emit = [&](ordered_json&& e) { emit_text(e.dump()); };  // the few metadata events
  std::string text;  // the event being written
  const ProgramIndex prog(p);
  const double freq = double(trace.freq);
  struct Entry {
    uint64_t key = 0;
    const sim::TaskRecord* rec = nullptr;  // nullptr: fake
    int core_idx = 0;                      // blockIdx + 1; 0 = Fake Core
    std::string type;                      // "AIC" / "AIV" / "" (fake)
    double start = 0, end = 0;
    int offset = 0;                        // swim_lane_offset
    int preds = 0;
    std::vector<uint64_t> succ;
    const sim::TaskRecord* topo = nullptr; // the topology row
  };
  std::vector<Entry> tasks;
  std::unordered_map<uint64_t, size_t> index;
  struct Core {
    int idx;
    std::string name;
    bool overlap = false;
  };
  std::vector<Core> cores{{0, "Fake Core_0"}};
  double min_start = 0;
  bool any = false;
  for (auto& [core, list] : l1_order(round)) {
    const std::string type = list.front()->core_type == CoreType::AIC ? "AIC" : "AIV";
    cores.push_back({core + 1, fmt::format("{}_{}", type, core + 1)});
    const Entry* last = nullptr;
    for (const auto* t : list) {
      Entry e;
      e.key = (uint64_t(uint32_t(t->seq)) << 32) | (t->task_id & 0x3ffffffu);
      e.rec = t;
      e.core_idx = core + 1;
      e.type = type;
      e.start = double(trace.ticks(t->start_ps)) / freq;
      e.end = double(trace.ticks(t->end_ps)) / freq;
      if (last && e.start < last->end && last->offset == 0) e.offset = 1, cores.back().overlap = true;
      min_start = any ? std::min(min_start, e.start) : e.start;
      any = true;
      index[e.key] = tasks.size();
      tasks.push_back(std::move(e));
      last = &tasks.back();
    }
  }
  // Topology rows: successors, and fake entries for rows without an L1 record.
  std::vector<size_t> fakes;
  for (const auto* t : topo_order(round)) {
    const uint64_t key = (uint64_t(uint32_t(t->seq)) << 32) | t->task_id;
    auto it = index.find(key);
    if (it == index.end()) {
      Entry e;
      e.key = key;
      fakes.push_back(tasks.size());
      it = index.emplace(key, tasks.size()).first;
      tasks.push_back(std::move(e));
    }
    Entry& e = tasks[it->second];
    e.topo = t;
    e.succ.clear();
    for (uint32_t id : topo_successors(*t, round)) e.succ.push_back((uint64_t(uint32_t(t->seq)) << 32) | id);
  }
  for (const auto& e : tasks)
    for (uint64_t s : e.succ) {
      auto it = index.find(s);
      if (it != index.end()) tasks[it->second].preds++;
    }
  // Latest end among a task's recorded predecessors (a fake task with no recorded successor starts there).
  std::unordered_map<uint64_t, double> pred_end;
  if (!fakes.empty())
    for (const auto& o : tasks)
      if (o.rec)
        for (uint64_t s : o.succ) {
          auto [it, fresh] = pred_end.emplace(s, o.end);
          if (!fresh) it->second = std::max(it->second, o.end);
        }
  double fake_alloc = min_start;
  for (size_t f : fakes) {
    Entry& e = tasks[f];
    bool found = false;
    double lo = 0;
    for (uint64_t s : e.succ) {
      auto it = index.find(s);
      if (it == index.end() || !tasks[it->second].rec) continue;
      lo = found ? std::min(lo, tasks[it->second].start) : tasks[it->second].start;
      found = true;
    }
    if (found) {
      e.start = lo - 1, e.end = lo;
      continue;
    }
    auto pe = pred_end.find(e.key);
    if (pe != pred_end.end()) {
      e.start = pe->second, e.end = pe->second + 1;
    } else {
      e.start = fake_alloc, e.end = fake_alloc + 1;
      fake_alloc += 2;
    }
  }

  // Per task: the program.json lookups, shared by the tasks of one (root, call op, leaf) and computed
  // once (a leaf's op walk is per op), with the hints' JSON string text (they are the bulk of a slice).
  struct Info {
    size_t root = 0;
    std::string label, in_hint = "[]", out_hint = "[]", hash_order;
    std::string in_json, out_json, hash_order_json;
  };
  std::vector<Info> lookups(1);  // lookups[0]: a task without a topology row
  std::vector<size_t> info_of(tasks.size(), 0);
  std::map<std::tuple<uint64_t, int64_t, uint64_t>, size_t> lookup_of;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto* t = tasks[i].topo;
    if (!t) continue;
    auto [seen, fresh] = lookup_of.try_emplace({t->root_hash, t->op_magic, t->leaf_hash}, lookups.size());
    info_of[i] = seen->second;
    if (!fresh) continue;
    Info& in = lookups.emplace_back();
    in.root = prog.index_of(t->root_hash);
    if (const auto* op = prog.op(in.root, t->op_magic)) {
      in.label = op->label;
      in.in_hint = op->in_hint;
      in.out_hint = op->out_hint;
    }
    in.hash_order = prog.hash_order(in.root, t->op_magic, prog.index_of(t->leaf_hash));
  }
  for (Info& in : lookups) {
    append_json_string(in.in_json, in.in_hint);
    append_json_string(in.out_json, in.out_hint);
    append_json_string(in.hash_order_json, in.hash_order);
  }
  auto formal = [](uint64_t key) {
    return fmt::format("{}-{}-{}", key >> 32, (key >> 16) & 1023u, key & 0xffffu);
  };
  // execution-hint: per leaf hash over the non-fake tasks, in task order.
  struct Stat {
    int64_t n = 0;
    double total = 0, max = 0, min = 0;
    size_t max_task = 0, min_task = 0;
  };
  std::map<uint64_t, Stat> stats;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Entry& e = tasks[i];
    if (!e.rec || !e.topo || e.topo->leaf_hash == 0) continue;
    Stat& s = stats[e.topo->leaf_hash];
    const double d = e.end - e.start;
    if (s.n == 0 || s.max < d) s.max = d, s.max_task = i;
    if (s.n == 0 || s.min > d) s.min = d, s.min_task = i;
    s.total += d;
    ++s.n;
  }

  emit({{"args", {{"name", "Machine View"}}}, {"cat", "__metadata"}, {"name", "process_name"}, {"ph", "M"},
                {"pid", 1}});
  auto tid_of = [](int core_idx) { return 1000 + 2 * core_idx; };
  for (const auto& c : cores) {
    emit({{"args", {{"name", c.name}}}, {"cat", "__metadata"}, {"name", "thread_name"}, {"ph", "M"},
                  {"pid", 1}, {"tid", tid_of(c.idx)}});
    if (c.overlap)
      emit({{"args", {{"name", c.name}}}, {"cat", "__metadata"}, {"name", "thread_name"}, {"ph", "M"},
                    {"pid", 1}, {"tid", tid_of(c.idx) + 1}});
  }
  int64_t id = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Entry& e = tasks[i];
    const Info& in = lookups[info_of[i]];
    const auto* t = e.topo;
    const uint32_t ori_task = t ? t->task_id : 0;
    const std::string color = (e.rec ? "" : "fake") + in.label;
    std::string hint = fmt::format("Task:[{}], rootHash:{}, callOpMagic:{}, leafHash:{}, TaskId:{}", formal(e.key),
                                   t ? t->root_hash : 0, t ? t->op_magic : 0, t ? t->leaf_hash : 0, ori_task);
    if (!in.hash_order.empty()) hint += "\n" + in.hash_order;
    std::string exec;
    if (e.rec && t && t->leaf_hash != 0) {
      const Stat& s = stats[t->leaf_hash];
      exec = fmt::format("Average Execution Time: {}\nMax Execution Time: {}, Task: [{}]\nMin Execution Time: {}, "
                         "Task: [{}]\n",
                         py_float(s.total / double(s.n)), py_float(s.max), formal(tasks[s.max_task].key),
                         py_float(s.min), formal(tasks[s.min_task].key));
    }
    const int psg = t ? t->leaf : 0;
    // {"args": {event-hint, ioperand-hint, ooperand-hint, execution-hint, color, taskId, seqNo, wrapId
    // [, hashOrder-hint]}, "cat", "id", "name", "ph", "pid", "tid", "ts", "dur"} (machine_view_text.h)
    text.clear();
    text += R"({"args":{"event-hint":)";
    append_json_string(text, hint);
    text += R"(,"ioperand-hint":)";
    text += in.in_json;
    text += R"(,"ooperand-hint":)";
    text += in.out_json;
    text += R"(,"execution-hint":)";
    append_json_string(text, exec);
    text += R"(,"color":)";
    append_json_string(text, color);
    text += R"(,"taskId":)";
    append_json_int(text, ori_task);
    text += R"(,"seqNo":)";
    append_json_int(text, t ? t->seq : 0);
    text += R"(,"wrapId":-1)";
    if (!in.hash_order.empty()) {
      text += R"(,"hashOrder-hint":)";
      text += in.hash_order_json;
    }
    text += R"(},"cat":"event","id":)";
    append_json_int(text, id++);
    text += R"(,"name":)";
    append_json_string(text, fmt::format("{}-{}-{}({})", formal(e.key), t ? int64_t(in.root) : int64_t(-1), psg, color));
    text += R"(,"ph":"X","pid":1,"tid":)";
    append_json_int(text, tid_of(e.core_idx) + e.offset);
    text += R"(,"ts":)";
    append_json_double(text, e.start);
    text += R"(,"dur":)";
    append_json_double(text, e.end - e.start);
    text += '}';
    emit_text(text);
  }
  // One flow per dependency edge: from the predecessor's end (less 0.0001) to the successor's start.
  for (const auto& e : tasks)
    for (uint64_t s : e.succ) {
      auto it = index.find(s);
      if (it == index.end()) continue;
      const Entry& d = tasks[it->second];
      text.clear();
      append_flow_event(text, false, id, tid_of(e.core_idx) + e.offset, e.end - 0.0001);
      emit_text(text);
      text.clear();
      append_flow_event(text, true, id, tid_of(d.core_idx) + d.offset, d.start);
      emit_text(text);
      ++id;
    }

  // ReadyCount and Dependence Solving: a walk over the distinct slice start/end times in order. A task
  // becomes ready when its last predecessor's slice ends; a device task's source tasks are added when the
  // walk first reaches a time whose first event belongs to it.
  std::map<double, std::vector<std::pair<size_t, bool>>> times;  // time -> (task, is_end), insertion order
  for (size_t i = 0; i < tasks.size(); ++i) {
    times[tasks[i].start].push_back({i, false});
    times[tasks[i].end].push_back({i, true});
  }
  auto kind = [&](size_t i) { return tasks[i].type == "AIC" ? 0 : tasks[i].type == "AIV" ? 1 : -1; };
  std::map<uint64_t, std::array<int64_t, 2>> sources;  // seq -> {aic, aiv}
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].preds == 0 && kind(i) >= 0) sources[tasks[i].key >> 32][size_t(kind(i))]++;
  std::vector<int> remaining(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) remaining[i] = tasks[i].preds;
  int64_t ready[2] = {0, 0};
  int64_t cur_seq = -1;
  double dpd_time = min_start;
  int64_t dpd_count = 0;
  auto counter = [&](const char* name, double ts, auto size) {  // size: int64_t or double
    text.clear();
    append_counter_event(text, name, ts, size);
    emit_text(text);
  };
  for (const auto& [ts, list] : times) {
    int64_t diff[2] = {0, 0};
    const int64_t seq = int64_t(tasks[list.front().first].key >> 32);
    if (seq != cur_seq) {
      cur_seq = seq;
      auto it = sources.find(uint64_t(seq));
      if (it != sources.end()) diff[0] += it->second[0], diff[1] += it->second[1];
    }
    for (auto [i, is_end] : list) {
      if (!is_end) {
        if (kind(i) >= 0) diff[kind(i)] -= 1;
        continue;
      }
      dpd_count += int64_t(tasks[i].succ.size());
      for (uint64_t s : tasks[i].succ) {
        auto it = index.find(s);
        if (it == index.end()) continue;
        if (--remaining[it->second] == 0 && kind(it->second) >= 0) diff[kind(it->second)] += 1;
      }
    }
    if (diff[0] != 0) ready[0] += diff[0], counter("ReadyCount_AIC", ts, ready[0]);
    if (diff[1] != 0) ready[1] += diff[1], counter("ReadyCount_AIV", ts, ready[1]);
    if (diff[0] + diff[1] != 0) counter("ReadyCount_Total", ts, ready[0] + ready[1]);
    if (ts - dpd_time > 5) {
      counter("Dependence Solving (MHz)", dpd_time, double(dpd_count) / (ts - dpd_time));
      dpd_time = ts;
      dpd_count = 0;
    }
  }
}

}  // namespace ptoc::profiling
