#include "runtime/control_flow.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "runtime/dim_program.h"
#include "runtime/gm_tracker.h"
#include "runtime/program/root_tasks.h"
#include "runtime/workspace_pool.h"

namespace ptoc::runtime {

ControlFlowOptions ControlFlowOptions::from(const Options& o) {
  ControlFlowOptions c;
  c.stitch_function_max_num = o.stitch_function_max_num;
  c.max_workspace_kb = o.max_workspace_kb;
  c.check_bounds = o.runtime_debug_mode == 4;
  c.check_divisible = o.runtime_debug_mode == 4;
  const char* drop = std::getenv("PTORUN_TEST_DROP_EDGES");
  c.drop_compiler_edges = drop && std::string(drop) == "1";
  return c;
}

namespace {

using namespace detail;

std::string env_text(const DimExpr::Env& env, const std::vector<std::string>& vars) {
  std::string s;
  for (auto& v : vars) {
    auto it = env.find(v);
    if (it == env.end()) continue;
    s += (s.empty() ? "" : ", ") + v + "=" + std::to_string(it->second);
  }
  return s;
}

void collect_load_tensors(const std::vector<LoopNode>& list, std::set<int>& out) {
  for (auto& n : list) {
    for (auto& l : n.loads) out.insert(l.tensor);
    for (auto& g : n.gears) collect_load_tensors(g.body, out);
  }
}

}  // namespace

std::vector<int> host_value_tensors(const CompiledProgram& p) {
  std::set<int> s;
  collect_load_tensors(p.control, s);
  return {s.begin(), s.end()};
}

// ---------------------------------------------------------------- the generator

struct ControlFlow::Impl {
  const CompiledProgram& p;
  DimExpr::Env dims;
  ControlFlowOptions opt;
  GmLayout layout;
  SlotTable st;
  WorkspacePool pool;
  ControlFlowStats stats;

  // Per root: one program computing every expression its instances need.
  struct RegionSlots {
    int tensor;
    bool write;
    int out;     // offsets at out..out+rank-1, extents at out+rank..
    SrcLoc loc;  // the statement that moves the box (for the bounds error)
  };
  // The values of a task body: a compact root's template or explicit task (shared by every task
  // that instantiates it: a task's value k is the body's plus the delta of group_of[k]), or one
  // task of a root built in memory. So the program and a root instance's values grow with the
  // bodies, not the tasks.
  struct TaskSlots {
    bool ready = false;
    int args = 0;  // first output index
    size_t nargs = 0;
    std::vector<RegionSlots> regions;
    const std::vector<int>* group_of = nullptr;  // template: per value, its delta group (-1: none)
  };
  struct RootCode {
    bool ready = false;
    ExprProgram code;
    int nout = 0;
    std::vector<TaskSlots> tasks;        // per body (body_of)
    std::vector<int> temp_shape;         // first output of each temp's shape
    std::vector<int> temp_slot_of;       // tensor index -> position in RootFunction::temps (-1)
    std::vector<int> window_at;          // per RootFunction::window_checks: start, extent, bound outputs
  };
  std::vector<RootCode> roots;
  std::vector<char> tracked;  // per tensor: written by some task and not a temp
  std::vector<int64_t> box;   // add_root: one region's offsets and extents with the task's deltas

  // Task ti's body in RootCode::tasks, and its deltas (null: none).
  static size_t body_of(const RootFunction& rf, size_t ti) {
    if (!rf.compact) return ti;
    const TaskInstanceRecord& r = rf.compact->instances[ti];
    return r.tmpl >= 0 ? size_t(r.tmpl) : rf.compact->templates.size() + size_t(r.explicit_task);
  }
  static size_t body_count(const RootFunction& rf) {
    return rf.compact ? rf.compact->templates.size() + rf.compact->explicit_tasks.size() : rf.tasks.size();
  }
  static const std::vector<int64_t>* deltas_of(const RootFunction& rf, size_t ti) {
    if (!rf.compact || rf.compact->instances[ti].tmpl < 0) return nullptr;
    return &rf.compact->instances[ti].deltas;
  }
  // Value k of a task whose body's values start at `vals`.
  static int64_t task_value(const TaskSlots& ts, const std::vector<int64_t>* d, const int64_t* vals, size_t k) {
    if (!d) return vals[k];
    const int g = (*ts.group_of)[k];
    return g < 0 ? vals[k] : int64_t(uint64_t(vals[k]) + uint64_t((*d)[size_t(g)]));
  }

  // Walk stack.
  struct Frame {
    const std::vector<LoopNode>* list = nullptr;  // list frame
    size_t i = 0;
    const LoopNode* loop = nullptr;               // loop frame
    int64_t begin = 0, step = 1, trip = 0, done = 0;
    int var = -1, factor = -1;
  };
  std::vector<Frame> stack;
  std::map<const LoopNode*, ExprProgram> loop_code;  // begin, end, step -> out[0..2]
  struct LoadCode {
    ExprProgram code;      // every index of every load, in order
    bool chained = false;  // an index uses an earlier load of the node: evaluate load by load
  };
  std::map<const LoopNode*, LoadCode> load_code;
  std::set<std::string> load_texts;                  // the tensors run-time values are read from, quoted
  std::set<const LoopNode*> divisible_checked;

  // A root instance taken from the walk but not yet placed in a device task.
  struct Pending {
    int root = -1;
    uint32_t func_id = 0;
    std::vector<int64_t> vals;
    std::vector<TensorGeometry> temp_geom;
    std::vector<uint64_t> temp_off;
    uint64_t ws = 0;
    std::vector<std::pair<int, int64_t>> bound;  // (slot, value) of every bound symbol
  };
  Pending pending;
  bool have_pending = false;
  // lazy_accesses: per device task not released, per root instance, what its tasks' accesses are
  // rebuilt from (the instance's dim-program values and temp shapes).
  struct LazyRoot {
    std::vector<int64_t> vals;
    std::vector<TensorGeometry> temp_geom;
  };
  std::map<int, std::vector<LazyRoot>> lazy_roots;
  std::vector<GmAccess> lazy_scratch;
  size_t n_roots = 0, n_tasks = 0;  // filled part of the device task being built
  uint32_t func_counter = 0;
  int next_seq = 0;

  GmTracker tracker;  // GM state inside the device task being built and across device tasks
  uint64_t gc_at = 4096;
  std::map<int, std::vector<std::pair<uint64_t, uint64_t>>> held_blocks;  // seq -> pool blocks
  std::set<int> done;
  uint32_t watermark = 0;  // every seq below it is released
  std::vector<uint32_t> deps, deps_dev;
  std::vector<GmAccess> scratch;

  Impl(const CompiledProgram& prog, DimExpr::Env d, ControlFlowOptions o)
      : p(prog), dims(std::move(d)), opt(o), layout(layout_gm(prog, dims)), pool(layout.pool_base) {
    if (opt.stitch_function_max_num < 1) opt.stitch_function_max_num = 1;
    std::set<std::string> rebound;  // loop and unroll-factor variables: values change during the walk
    collect_loop_vars(p.control, rebound);
    for (auto& [name, v] : dims) {
      int s = st.slot(name);
      st.value[size_t(s)] = v;
      st.bound[size_t(s)] = 1;
      st.fixed[size_t(s)] = !rebound.count(name);
    }
    roots.resize(p.roots.size());
    tracked.assign(p.tensors.size(), 0);
    for (auto& r : p.roots)
      for (size_t ti = 0; ti < task_count(r); ++ti)
        for_each_region_tensor(r, ti, [&](int w, bool write) {
          if (!write) return;
          if (w < 0 || size_t(w) >= p.tensors.size())
            throw ControlFlowError("root function '" + r.name + "' writes tensor #" + std::to_string(w) +
                                   ", which does not exist");
          if (p.tensors[size_t(w)].role != GmTensor::Role::Temp) tracked[size_t(w)] = 1;
        });
    std::vector<uint64_t> pitch(p.tensors.size(), 1);
    for (size_t i = 0; i < p.tensors.size(); ++i) {
      auto& g = layout.geometry[i];
      if (p.tensors[i].role == GmTensor::Role::Temp || g.shape.empty()) continue;
      pitch[i] = g.format == Format::NZ ? uint64_t(g.nz_rows * g.nz_c0 * g.esize)
                                        : uint64_t(g.shape.back()) * uint64_t(g.esize);
    }
    tracker.reset(p.tensors.size(), pitch, layout.base);
    check_loads(p.control);
    stack.push_back(Frame{&p.control, 0});
  }

  // A bundle's loads name int32 inputs of the right rank, and the caller gave their data.
  void check_loads(const std::vector<LoopNode>& list) {
    for (auto& n : list) {
      for (auto& l : n.loads) {
        if (l.tensor < 0 || size_t(l.tensor) >= p.tensors.size() || p.tensors[size_t(l.tensor)].role != GmTensor::Role::Input ||
            (p.tensors[size_t(l.tensor)].dtype != DType::int32 && p.tensors[size_t(l.tensor)].dtype != DType::int64) ||
            l.index.size() != p.tensors[size_t(l.tensor)].shape.size() || l.sym.empty())
          throw ControlFlowError("run-time value " + l.text + ": the load names no int32 or int64 input of rank " +
                                 std::to_string(l.index.size()) + " (tensor #" + std::to_string(l.tensor) + ")");
        const TensorData* d = size_t(l.tensor) < opt.host_values.size() ? opt.host_values[size_t(l.tensor)] : nullptr;
        if (!d || d->dtype != p.tensors[size_t(l.tensor)].dtype || d->shape != layout.geometry[size_t(l.tensor)].shape)
          throw ControlFlowError("run-time value " + l.text + " (" + spec_pos(l.loc) + "): the data of input '" +
                                 p.tensors[size_t(l.tensor)].name + "' was not given to the control flow");
        st.slot(l.sym);
        load_texts.insert("'" + p.tensors[size_t(l.tensor)].name + "'");
      }
      for (auto& g : n.gears) check_loads(g.body);
    }
  }

  // ", the run-time values read from 'block_table', 'seq_len'": what an offset may have been read from.
  std::string runtime_values_hint() const {
    if (load_texts.empty()) return "";
    std::string s;
    for (auto& t : load_texts) s += (s.empty() ? "" : ", ") + t;
    return ", the run-time values read from " + s;
  }

  // "b=3, j=1": the enclosing loop variables of the walk, for messages.
  std::string walk_vars() const {
    std::string s;
    for (auto& f : stack)
      if (f.loop && f.loop->var.rfind("_IF_", 0) != 0)
        s += (s.empty() ? "" : ", ") + f.loop->var + "=" + std::to_string(st.value[size_t(f.var)]);
    return s;
  }

  // Reads the node's run-time values from the host-ready tensors, every index checked against its
  // tensor (an index outside it never reads memory), and binds their symbols.
  void bind_loads(const LoopNode& n) {
    if (n.loads.empty()) return;
    auto it = load_code.find(&n);
    if (it == load_code.end()) {
      LoadCode lc;
      ExprProgram& code = lc.code;
      std::set<std::string> earlier;
      for (auto& l : n.loads) {
        for (auto& e : l.index) {
          std::vector<std::string> syms;
          e.collect_symbols(syms);
          for (auto& x : syms) lc.chained = lc.chained || earlier.count(x);
          try {
            code.add(e, st);
          } catch (const UnboundInExpr& u) {
            throw ControlFlowError("run-time value " + l.text + ": its index uses '" + u.symbol +
                                   "', which is not bound there");
          }
        }
        // Later loads may index by earlier ones: bind the symbol before compiling them.
        st.bound[size_t(st.slot(l.sym))] = 1;
        earlier.insert(l.sym);
      }
      it = load_code.emplace(&n, std::move(lc)).first;
    }
    std::vector<int64_t> idx(size_t(it->second.code.outputs()));
    size_t k = 0;
    for (size_t li = 0; li < n.loads.size(); ++li) {
      const ScalarLoad& l = n.loads[li];
      // Once for the node; load by load when an index uses an earlier load, so that it sees its value.
      if (li == 0 || it->second.chained) {
        try {
          it->second.code.run(st.value.data(), idx.data());
        } catch (const DimEvalError& e) {
          throw ControlFlowError("run-time value " + l.text + ": " + e.what());
        }
      }
      const TensorData& d = *opt.host_values[size_t(l.tensor)];
      int64_t flat = 0;
      for (size_t ax = 0; ax < l.index.size(); ++ax, ++k) {
        const int64_t i = idx[k];
        if (i < 0 || i >= d.shape[ax]) {
          std::string pos = spec_pos(l.loc);
          std::string vars = walk_vars();
          throw ControlFlowError((pos.empty() ? "" : pos + ": ") + "run-time value " + l.text + ": index " +
                                 std::to_string(i) + " on axis " + std::to_string(ax) + " of tensor '" +
                                 p.tensors[size_t(l.tensor)].name + "' is outside its bound " +
                                 std::to_string(d.shape[ax]) + (vars.empty() ? "" : " (at " + vars + ")"));
        }
        flat = flat * d.shape[ax] + i;
      }
      const int s = st.slot(l.sym);
      st.value[size_t(s)] = int64_t(d.get(flat));
      st.bound[size_t(s)] = 1;
    }
  }

  static void collect_loop_vars(const std::vector<LoopNode>& list, std::set<std::string>& out) {
    for (auto& n : list) {
      if (n.kind != LoopNode::Kind::Loop) continue;
      out.insert(n.var);
      if (!n.factor_var.empty()) out.insert(n.factor_var);
      for (auto& g : n.gears) collect_loop_vars(g.body, out);
    }
  }

  int64_t slot_of_bound(const std::string& n) const { return st.value[size_t(st.index.at(n))]; }

  DimExpr::Env current_env() const {
    DimExpr::Env e;
    for (size_t i = 0; i < st.names.size(); ++i)
      if (st.bound[i]) e.emplace(st.names[i], st.value[i]);
    return e;
  }

  // The body of task ti with the body's own values: its template's (no deltas) or the task itself.
  static Task body_task(const RootFunction& rf, size_t ti) {
    if (!rf.compact) return rf.tasks[ti];
    const CompactRoot& cr = *rf.compact;
    const TaskInstanceRecord& rec = cr.instances[ti];
    Task t;
    if (rec.tmpl < 0) {
      t = cr.explicit_tasks[size_t(rec.explicit_task)];
      return t;
    }
    const TaskTemplate& tp = cr.templates[size_t(rec.tmpl)];
    t.cls = tp.cls;
    t.gm = tp.gm;
    t.args = tp.args;
    t.reads = tp.reads;
    t.writes = tp.writes;
    return t;
  }

  void compile_root(int r) {
    auto& rf = p.roots[size_t(r)];
    RootCode rc;
    int n = 0;
    auto emit = [&](const DimExpr& e, const std::string& what) {
      try {
        if (expr_depth(e) > 60) throw ControlFlowError("root function '" + rf.name + "': " + what + " is too deep");
        rc.code.add(e, st);
      } catch (const UnboundInExpr& u) {
        throw ControlFlowError("root function '" + rf.name + "': " + what + " uses '" + u.symbol +
                               "', which is not bound where the root is called (" + e.str() + ")");
      } catch (const DimEvalError& x) {
        throw ControlFlowError("root function '" + rf.name + "': " + what + ": " + x.what());
      }
      return n++;
    };
    rc.temp_slot_of.assign(p.tensors.size(), -1);
    for (size_t k = 0; k < rf.temps.size(); ++k) {
      int ti = rf.temps[k];
      if (ti < 0 || size_t(ti) >= p.tensors.size() || p.tensors[size_t(ti)].role != GmTensor::Role::Temp)
        throw ControlFlowError("root function '" + rf.name + "' lists tensor #" + std::to_string(ti) + " as a temp");
      rc.temp_slot_of[size_t(ti)] = int(k);
      auto& shape = p.tensors[size_t(ti)].shape;
      rc.temp_shape.push_back(n);
      for (auto& d : shape) emit(d, "the shape of temp '" + p.tensors[size_t(ti)].name + "'");
    }
    const size_t ntasks = task_count(rf);
    rc.tasks.resize(body_count(rf));
    for (size_t ti = 0; ti < ntasks; ++ti) {
      std::string where = "task " + std::to_string(ti);
      const int cls = task_class(rf, ti);
      if (cls < 0 || size_t(cls) >= p.leaves.size())
        throw ControlFlowError("root function '" + rf.name + "': " + where + " calls leaf class #" +
                               std::to_string(cls) + ", which does not exist (" +
                               std::to_string(p.leaves.size()) + " classes)");
      const std::vector<int>& succ = task_succ(rf, ti);
      for (size_t s = 0; s < succ.size(); ++s)
        if (succ[s] <= int(ti) || size_t(succ[s]) >= ntasks)
          throw ControlFlowError("root function '" + rf.name + "': " + where +
                                 " has successor " + std::to_string(succ[s]) +
                                 " (tasks must be topologically ordered and successors in range)");
      // Each body once, at its first task (the task its errors name): the template's own values.
      TaskSlots& ts = rc.tasks[body_of(rf, ti)];
      if (ts.ready) continue;
      const Task t = body_task(rf, ti);
      ts.ready = true;
      ts.args = n;
      ts.nargs = t.args.size();
      if (rf.compact && rf.compact->instances[ti].tmpl >= 0)
        ts.group_of = &rf.compact->templates[size_t(rf.compact->instances[ti].tmpl)].group_of;
      for (size_t a = 0; a < t.args.size(); ++a) emit(t.args[a], where + " argument " + std::to_string(a));
      for (int pass = 0; pass < 2; ++pass)
        for (auto& rg : pass == 0 ? t.reads : t.writes) {
          if (rg.tensor < 0 || size_t(rg.tensor) >= p.tensors.size())
            throw ControlFlowError("root function '" + rf.name + "': " + where + " accesses tensor #" +
                                   std::to_string(rg.tensor) + ", which does not exist");
          auto& gt = p.tensors[size_t(rg.tensor)];
          if (gt.role == GmTensor::Role::Temp && rc.temp_slot_of[size_t(rg.tensor)] < 0)
            throw ControlFlowError("root function '" + rf.name + "': " + where + " accesses temp '" + gt.name +
                                   "' of another root function");
          if (rg.offset.size() != gt.shape.size() || rg.extent.size() != gt.shape.size())
            throw ControlFlowError("root function '" + rf.name + "': " + where + " has a region of rank " +
                                   std::to_string(rg.offset.size()) + " on tensor '" + gt.name + "' of rank " +
                                   std::to_string(gt.shape.size()));
          RegionSlots rs{rg.tensor, pass == 1, n, rg.loc};
          for (auto& d : rg.offset) emit(d, where + " offset into '" + gt.name + "'");
          for (auto& d : rg.extent) emit(d, where + " extent in '" + gt.name + "'");
          ts.regions.push_back(rs);
        }
      for (int g : t.gm) {
        if (g < 0 || size_t(g) >= p.tensors.size())
          throw ControlFlowError("root function '" + rf.name + "': " + where + " passes tensor #" + std::to_string(g) +
                                 ", which does not exist");
        if (p.tensors[size_t(g)].role == GmTensor::Role::Temp && rc.temp_slot_of[size_t(g)] < 0)
          throw ControlFlowError("root function '" + rf.name + "': " + where + " passes temp '" +
                                 p.tensors[size_t(g)].name + "' of another root function");
      }
    }
    for (auto& w : rf.window_checks) {
      rc.window_at.push_back(n);
      std::string what = "the window of '" + w.source + "' on axis " + std::to_string(w.axis);
      emit(w.start, what + " (start)");
      emit(w.extent, what + " (extent)");
      emit(w.bound, what + " (bound)");
    }
    if (ntasks > kMaxTasksPerRoot)
      throw ControlFlowError("root function '" + rf.name + "' has " + std::to_string(ntasks) +
                             " tasks; a task id holds at most " + std::to_string(kMaxTasksPerRoot));
    rc.nout = n;
    rc.ready = true;
    roots[size_t(r)] = std::move(rc);
  }

  void check_divisible(const LoopNode& n) {
    if (!divisible_checked.insert(&n).second) return;
    std::vector<std::string> syms;
    n.begin.collect_symbols(syms);
    n.end.collect_symbols(syms);
    n.step.collect_symbols(syms);
    for (auto& d : p.dims) {
      if (!d.dynamic || d.divisible_by <= 1) continue;
      if (std::find(syms.begin(), syms.end(), d.name) == syms.end()) continue;
      int64_t v = dims.at(d.name);
      if (v % d.divisible_by != 0)
        throw ControlFlowError("runtime_debug_mode 4: at entry of loop '" + (n.name.empty() ? n.var : n.name) +
                               "': dim " + d.name + " = " + std::to_string(v) + " is not divisible by " +
                               std::to_string(d.divisible_by) + " (divisible_by declared at line " +
                               std::to_string(d.loc.line) + ")");
    }
  }

  // Advances the walk to the next root call; false at the end.
  bool walk(Pending& out) {
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.list) {
        if (f.i == f.list->size()) {
          stack.pop_back();
          continue;
        }
        const LoopNode& n = (*f.list)[f.i++];
        bind_loads(n);
        if (n.kind == LoopNode::Kind::Root) {
          instantiate(n.root, out);
          return true;
        }
        enter_loop(n);
        continue;
      }
      // Loop frame: next gear instance, or leave.
      if (f.done >= f.trip) {
        st.bound[size_t(f.var)] = 0;
        if (f.factor >= 0) st.bound[size_t(f.factor)] = 0;
        stack.pop_back();
        continue;
      }
      int64_t left = f.trip - f.done;
      const Gear* g = nullptr;
      for (auto& c : f.loop->gears)
        if (c.factor >= 1 && c.factor <= left && (!g || c.factor > g->factor)) g = &c;
      if (!g)
        throw ControlFlowError("loop '" + (f.loop->name.empty() ? f.loop->var : f.loop->name) +
                               "' has no unroll gear that fits " + std::to_string(left) +
                               " remaining iterations (the factor-1 body is missing)");
      st.value[size_t(f.var)] = f.begin + f.done * f.step;
      if (f.factor >= 0) st.value[size_t(f.factor)] = g->factor;
      f.done += g->factor;
      Frame body;
      body.list = &g->body;
      stack.push_back(body);  // invalidates f
    }
    return false;
  }

  void enter_loop(const LoopNode& n) {
    if (opt.check_divisible) check_divisible(n);
    auto it = loop_code.find(&n);
    if (it == loop_code.end()) {
      ExprProgram code;
      for (auto* e : {&n.begin, &n.end, &n.step}) {
        try {
          code.add(*e, st);
        } catch (const UnboundInExpr& u) {
          throw ControlFlowError("loop '" + (n.name.empty() ? n.var : n.name) + "': bound " + e->str() + " uses '" +
                                 u.symbol + "', which is not bound there");
        } catch (const DimEvalError& x) {
          throw ControlFlowError("loop '" + (n.name.empty() ? n.var : n.name) + "': " + x.what());
        }
      }
      it = loop_code.emplace(&n, std::move(code)).first;
    }
    int64_t v[3];
    try {
      it->second.run(st.value.data(), v);
    } catch (const DimEvalError& e) {
      throw ControlFlowError("loop '" + (n.name.empty() ? n.var : n.name) + "': " + e.what());
    }
    if (v[2] == 0) throw ControlFlowError("loop '" + (n.name.empty() ? n.var : n.name) + "' has step 0");
    Frame f;
    f.loop = &n;
    f.begin = v[0];
    f.step = v[2];
    f.trip = std::max<int64_t>(0, -floor_div_i64(-(v[1] - v[0]), v[2]));
    f.var = st.slot(n.var);
    st.bound[size_t(f.var)] = 1;
    if (!n.factor_var.empty()) {
      f.factor = st.slot(n.factor_var);
      st.bound[size_t(f.factor)] = 1;
    }
    stack.push_back(f);
  }

  void instantiate(int r, Pending& out) {
    if (r < 0 || size_t(r) >= p.roots.size())
      throw ControlFlowError("the control flow calls root function #" + std::to_string(r) + ", which does not exist");
    if (!roots[size_t(r)].ready) compile_root(r);
    const RootCode& rc = roots[size_t(r)];
    const RootFunction& rf = p.roots[size_t(r)];
    out.root = r;
    out.func_id = func_counter++;
    out.vals.resize(size_t(rc.nout));
    out.bound.clear();
    for (size_t i = 0; i < st.bound.size(); ++i)
      if (st.bound[i]) out.bound.emplace_back(int(i), st.value[i]);
    try {
      roots[size_t(r)].code.run(st.value.data(), out.vals.data());
    } catch (const DimEvalError& e) {
      throw ControlFlowError("root function '" + rf.name + "' (" + env_text(current_env(), rf.loop_vars) + "): " + e.what());
    }
    check_windows(rf, rc, out.vals);
    out.temp_geom.clear();
    out.temp_off.clear();
    out.ws = 0;
    for (size_t k = 0; k < rf.temps.size(); ++k) {
      auto& t = p.tensors[size_t(rf.temps[k])];
      std::vector<int64_t> shape(out.vals.begin() + rc.temp_shape[k], out.vals.begin() + rc.temp_shape[k] + long(t.shape.size()));
      for (auto d : shape)
        if (d < 0)
          throw ControlFlowError("root function '" + rf.name + "': temp '" + t.name + "' has a negative extent");
      out.temp_geom.push_back(make_geometry(t.dtype, shape, t.format));
      out.temp_off.push_back(out.ws);
      out.ws += align_up(out.temp_geom.back().bytes, kGmAlign);
    }
  }

  // "file:line:col" of a region's statement, or "" when the bundle does not carry it.
  std::string spec_pos(const SrcLoc& loc) const {
    if (!loc.valid()) return "";
    return (p.spec_file.empty() ? p.name + ".yaml" : p.spec_file) + ":" + std::to_string(loc.line) + ":" +
           std::to_string(loc.col);
  }

  [[noreturn]] void bounds_error(const RootFunction& rf, const DimExpr::Env& env, size_t ti, const GmTensor& t,
                                 const RegionSlots& rs, const int64_t* off, const int64_t* ext,
                                 const std::vector<int64_t>& shape, size_t axis) {
    std::ostringstream m;
    auto box = [&](const int64_t* v) {
      m << "[";
      for (size_t i = 0; i < shape.size(); ++i) m << (i ? ", " : "") << v[i];
      m << "]";
    };
    if (opt.check_bounds) {
      // runtime_debug_mode 4 keeps its per-task wording.
      m << "runtime_debug_mode 4: GM bounds check failed: task " << ti << " (leaf " << task_leaf(rf, ti)
        << ") of root function '" << rf.name << "' (" << env_text(env, rf.loop_vars) << ") "
        << (rs.write ? "writes" : "reads") << " tensor '" << t.name << "' at offset ";
      box(off);
      m << " extent ";
      box(ext);
      m << ": axis " << axis << " spans [" << off[axis] << ", " << off[axis] + ext[axis] << ") but the bound is "
        << shape[axis];
      if (rs.loc.valid()) m << " (statement at " << spec_pos(rs.loc) << ")";
      throw ControlFlowError(m.str());
    }
    if (rs.loc.valid()) m << spec_pos(rs.loc) << ": ";
    m << "out-of-bounds " << (rs.write ? "write to" : "read of") << " tensor '" << t.name
      << "': axis " << axis << " offset " << off[axis] << " extent " << ext[axis] << " spans [" << off[axis] << ", "
      << off[axis] + ext[axis] << ") but the bound is " << shape[axis] << " (box offset ";
    box(off);
    m << " extent ";
    box(ext);
    m << ", root function '" << rf.name << "'";
    if (std::string lv = env_text(env, rf.loop_vars); !lv.empty()) m << " at " << lv;
    m << "); the dims bound for this run (" << bound_dims_text() << ") do not fit the tensor's shape";
    m << (load_texts.empty() ? ": check the --dim values against the input shapes"
                             : ", or a run-time value is outside it: check" + runtime_values_hint().substr(1) +
                                   " and the --dim values against the input shapes");
    throw ControlFlowError(m.str());
  }

  // "B=8, S=4096": the dims bound for this run, in declaration order (run-time error messages).
  std::string bound_dims_text() const {
    std::string out;
    for (auto& d : p.dims)
      if (auto it = dims.find(d.name); it != dims.end())
        out += (out.empty() ? "" : ", ") + d.name + "=" + std::to_string(it->second);
    return out;
  }

  // specs/README.md: a window whose start is past its source's end (or before its start) is a
  // run-time error, in every mode, before any task of the root instance runs.
  void check_windows(const RootFunction& rf, const RootCode& rc, const std::vector<int64_t>& vals) {
    for (size_t i = 0; i < rf.window_checks.size(); ++i) {
      const int64_t* v = vals.data() + rc.window_at[i];
      const int64_t start = v[0], extent = v[1], bound = v[2];
      if (start >= 0 && start <= bound) continue;  // a start at the end is an empty window, as in Python
      const WindowCheck& w = rf.window_checks[i];
      std::ostringstream m;
      if (w.loc.valid()) m << spec_pos(w.loc) << ": ";
      m << "window " << (start < 0 ? "starts before the start" : "starts past the end") << " of '" << w.source
        << "': axis " << w.axis << " offset " << start << " extent " << extent << " but the bound is " << bound;
      m << " (root function '" << rf.name << "'";
      if (std::string lv = env_text(current_env(), rf.loop_vars); !lv.empty()) m << " at " << lv;
      m << "; dims " << bound_dims_text() << "): a window must start inside its source; check the loop bound"
        << runtime_values_hint() << " and the --dim values against the input shapes";
      throw ControlFlowError(m.str());
    }
  }

  void add_root(DeviceTask& dt, Pending& pd) {
    const RootFunction& rf = p.roots[size_t(pd.root)];
    const RootCode& rc = roots[size_t(pd.root)];
    const int32_t group = int32_t(n_roots);
    uint64_t block = pd.ws ? pool.alloc(pd.ws) : 0;
    if (pd.ws) held_blocks[dt.seq].emplace_back(block, pd.ws);
    stats.peak_workspace_bytes = std::max(stats.peak_workspace_bytes, pool.held());

    // Device-task storage is reused from one device task to the next: vectors keep their capacity.
    if (dt.roots.size() <= n_roots) dt.roots.resize(n_roots + 1);
    RootInstance& ri = dt.roots[n_roots++];
    ri.root = pd.root;
    fill_env(ri.env, pd.bound);
    ri.workspace_bytes = pd.ws;
    ri.temp_base.clear();
    for (auto off : pd.temp_off) ri.temp_base.push_back(block + off);

    const uint32_t first = uint32_t(n_tasks);
    const size_t ntasks = task_count(rf);
    n_tasks += ntasks;
    if (dt.tasks.size() < n_tasks) dt.tasks.resize(n_tasks);
    for (size_t ti = 0; ti < ntasks; ++ti) {
      TaskInstance& x = dt.tasks[first + ti];
      x.root_instance = uint32_t(group);
      x.task = uint32_t(ti);
      x.leaf = task_leaf(rf, ti);
      x.cls = task_class(rf, ti);
      x.task_id = ((pd.func_id << 16) | uint32_t(ti)) & 0x3FFFFFFu;
      auto addr_of = [&](int tensor) {
        int k = rc.temp_slot_of[size_t(tensor)];
        return k >= 0 ? ri.temp_base[size_t(k)] : layout.base[size_t(tensor)];
      };
      x.gm.clear();
      for (int g : task_gm(rf, ti)) x.gm.push_back(addr_of(g));
      const TaskSlots& ts = rc.tasks[body_of(rf, ti)];
      const std::vector<int64_t>* d = deltas_of(rf, ti);
      const int64_t* vals = pd.vals.data() + ts.args;
      x.args.resize(opt.resolve_args ? ts.nargs : 0);
      for (size_t a = 0; a < x.args.size(); ++a) x.args[a] = task_value(ts, d, vals, a);
      x.accesses.clear();
      for (auto& rs : ts.regions) {
        int k = rc.temp_slot_of[size_t(rs.tensor)];
        const TensorGeometry& g = k >= 0 ? pd.temp_geom[size_t(k)] : layout.geometry[size_t(rs.tensor)];
        const size_t rank = g.shape.size();
        box.resize(2 * rank);
        for (size_t v = 0; v < 2 * rank; ++v) box[v] = task_value(ts, d, vals, size_t(rs.out - ts.args) + v);
        const int64_t* off = box.data();
        const int64_t* ext = off + rank;
        // Every box inside its tensor before any host-twin access, in every mode: a --dim that
        // disagrees with an input's shape is a user error, never memory corruption. A few integer
        // compares per box of the root instance, from the values its dim program computed anyway.
        // An empty box (an extent of 0, e.g. the tail tile of a loop past the tensor's end) touches
        // no byte, wherever its offset points; negative extents are always wrong.
        bool empty = false;
        for (size_t a = 0; a < g.shape.size(); ++a) empty = empty || ext[a] == 0;
        for (size_t a = 0; a < g.shape.size(); ++a) {
          int64_t end = 0;
          if (ext[a] < 0 || (!empty && (off[a] < 0 || __builtin_add_overflow(off[a], ext[a], &end) || end > g.shape[a])))
            bounds_error(rf, ri.env, ti, p.tensors[size_t(rs.tensor)], rs, off, ext, g.shape, a);
        }
        if (!opt.lazy_accesses) region_accesses(g, addr_of(rs.tensor), off, ext, rs.tensor, rs.write, x.accesses);
      }
      if (opt.lazy_accesses) std::vector<GmAccess>().swap(x.accesses);  // ring storage keeps no capacity
      x.succ.clear();
      if (!opt.drop_compiler_edges)
        for (int s : task_succ(rf, ti)) x.succ.push_back(first + uint32_t(s));
      x.pred_count = 0;
    }
    for (size_t ti = 0; ti < ntasks; ++ti)
      for (uint32_t s : dt.tasks[first + ti].succ) dt.tasks[s].pred_count++;

    // Cross-root edges inside the device task, and device-task waits, by GM overlap.
    for (size_t ti = 0; ti < ntasks; ++ti) {
      const uint32_t id = first + uint32_t(ti);
      deps.clear();
      deps_dev.clear();
      const std::vector<GmAccess>* acc = &dt.tasks[id].accesses;
      if (opt.lazy_accesses) {
        lazy_scratch.clear();
        append_accesses(rf, rc, pd.vals, pd.temp_geom, ri.temp_base, ti, lazy_scratch);
        acc = &lazy_scratch;
      }
      for (auto& a : *acc)
        if (tracked[size_t(a.tensor)]) tracker.access(a, dt.seq, id, group, deps, deps_dev);
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      for (uint32_t d : deps) {
        dt.tasks[d].succ.push_back(id);
        dt.tasks[id].pred_count++;
      }
      stats.edges_cross_root += deps.size();
      for (uint32_t d : deps_dev)
        if (int(d) != dt.seq && !is_released(int(d))) dt.waits_for.push_back(int(d));
    }
    dt.workspace_bytes += pd.ws;
    if (opt.lazy_accesses) {
      std::vector<LazyRoot>& lr = lazy_roots[dt.seq];
      if (lr.size() <= size_t(group)) lr.resize(size_t(group) + 1);
      lr[size_t(group)].vals = pd.vals;
      lr[size_t(group)].temp_geom = pd.temp_geom;
    }
  }

  // Task `ti`'s accesses, region by region as add_root's eager walk makes them (its boxes were
  // bounds-checked when the root instance was added).
  void append_accesses(const RootFunction& rf, const RootCode& rc, const std::vector<int64_t>& all_vals,
                       const std::vector<TensorGeometry>& temp_geom, const std::vector<uint64_t>& temp_base,
                       size_t ti, std::vector<GmAccess>& out) {
    const TaskSlots& ts = rc.tasks[body_of(rf, ti)];
    const std::vector<int64_t>* d = deltas_of(rf, ti);
    const int64_t* vals = all_vals.data() + ts.args;
    for (auto& rs : ts.regions) {
      int k = rc.temp_slot_of[size_t(rs.tensor)];
      const TensorGeometry& g = k >= 0 ? temp_geom[size_t(k)] : layout.geometry[size_t(rs.tensor)];
      const uint64_t base = k >= 0 ? temp_base[size_t(k)] : layout.base[size_t(rs.tensor)];
      const size_t rank = g.shape.size();
      box.resize(2 * rank);
      for (size_t v = 0; v < 2 * rank; ++v) box[v] = task_value(ts, d, vals, size_t(rs.out - ts.args) + v);
      region_accesses(g, base, box.data(), box.data() + rank, rs.tensor, rs.write, out);
    }
  }

  bool task_accesses(const DeviceTask& dt, uint32_t t, std::vector<GmAccess>& out) {
    if (!opt.lazy_accesses) return false;
    auto it = lazy_roots.find(dt.seq);
    if (t >= dt.tasks.size() || it == lazy_roots.end() || dt.tasks[t].root_instance >= it->second.size() ||
        dt.tasks[t].root_instance >= dt.roots.size())
      throw ControlFlowError("internal: accesses asked of task " + std::to_string(t) + " of device task " +
                             std::to_string(dt.seq) + ", which this walk did not build or has released");
    const TaskInstance& x = dt.tasks[t];
    const RootInstance& ri = dt.roots[x.root_instance];
    const LazyRoot& lr = it->second[x.root_instance];
    out.clear();
    append_accesses(p.roots[size_t(ri.root)], roots[size_t(ri.root)], lr.vals, lr.temp_geom, ri.temp_base, x.task, out);
    return true;
  }

  // Updates an environment in place when it binds the same names (the common case), so
  // its nodes are reused; rebuilds it otherwise. The env is a map by name and `bound` is in
  // slot order: the permutation between the two is kept while the bound slots stay the same,
  // so an update is one pass with a name comparison per entry, no map lookups.
  void fill_env(DimExpr::Env& e, const std::vector<std::pair<int, int64_t>>& bound) {
    bool same_slots = env_slots.size() == bound.size();
    for (size_t i = 0; same_slots && i < bound.size(); ++i) same_slots = env_slots[i] == bound[i].first;
    if (!same_slots) {
      env_slots.clear();
      for (auto& b : bound) env_slots.push_back(b.first);
      env_perm.resize(bound.size());
      for (size_t i = 0; i < bound.size(); ++i) env_perm[i] = i;
      std::sort(env_perm.begin(), env_perm.end(), [&](size_t a, size_t b) {
        return st.names[size_t(bound[a].first)] < st.names[size_t(bound[b].first)];
      });
    }
    if (e.size() == bound.size()) {
      bool same = true;
      size_t i = 0;
      for (auto it = e.begin(); it != e.end(); ++it, ++i) {
        const auto& b = bound[env_perm[i]];
        if (it->first != st.names[size_t(b.first)]) {
          same = false;
          break;
        }
        it->second = b.second;
      }
      if (same) return;
    }
    e.clear();
    for (auto& [slot, v] : bound) e.emplace(st.names[size_t(slot)], v);
  }
  std::vector<int> env_slots;     // fill_env: the bound slots env_perm was made for
  std::vector<size_t> env_perm;   // env entry (name order) -> index in `bound`

  bool next(DeviceTask& dt) {
    dt.seq = next_seq;
    n_roots = 0;
    n_tasks = 0;
    dt.waits_for.clear();
    dt.workspace_bytes = 0;
    const uint64_t cap = opt.max_workspace_kb > 0 ? uint64_t(opt.max_workspace_kb) * 1024 : 0;
    while (int64_t(n_roots) < opt.stitch_function_max_num) {
      if (!have_pending) {
        if (!walk(pending)) break;
        have_pending = true;
      }
      if (cap && n_roots && dt.workspace_bytes + pending.ws > cap) break;
      add_root(dt, pending);
      have_pending = false;
    }
    dt.roots.resize(n_roots);
    dt.tasks.resize(n_tasks);
    if (n_roots == 0) return false;
    std::sort(dt.waits_for.begin(), dt.waits_for.end());
    dt.waits_for.erase(std::unique(dt.waits_for.begin(), dt.waits_for.end()), dt.waits_for.end());
    ++next_seq;
    stats.device_tasks++;
    stats.root_instances += dt.roots.size();
    stats.tasks += dt.tasks.size();
    stats.max_tasks_per_device_task = std::max<uint64_t>(stats.max_tasks_per_device_task, dt.tasks.size());
    return true;
  }

  bool is_released(int seq) const { return seq < int(watermark) || done.count(seq); }

  void release(int seq) {
    lazy_roots.erase(seq);
    auto it = held_blocks.find(seq);
    if (it != held_blocks.end()) {
      for (auto& [a, n] : it->second) pool.free(a, n);
      held_blocks.erase(it);
    }
    if (seq < int(watermark)) return;
    done.insert(seq);
    while (!done.empty() && *done.begin() == int(watermark)) {
      done.erase(done.begin());
      ++watermark;
    }
    // Forget dependency state of finished device tasks; sweeping only after as many new accesses
    // as cells survived the last sweep keeps the cost amortised O(1) per access.
    if (tracker.accesses() > gc_at) {
      tracker.collect(watermark);
      gc_at = std::max<uint64_t>(4096, tracker.cells());
    }
  }
};

GmLayout layout_gm(const CompiledProgram& p, const DimExpr::Env& dims) {
  GmLayout l;
  uint64_t at = kGmBase;
  for (auto& t : p.tensors) {
    if (t.role == GmTensor::Role::Temp) {
      l.base.push_back(0);
      l.geometry.emplace_back();
      continue;
    }
    std::vector<int64_t> shape;
    for (auto& d : t.shape) {
      int64_t v;
      try {
        v = d.eval(dims);
      } catch (const std::exception& e) {
        throw ControlFlowError("tensor '" + t.name + "': shape " + d.str() + ": " + e.what());
      }
      if (v < 0) throw ControlFlowError("tensor '" + t.name + "' has a negative extent " + std::to_string(v));
      shape.push_back(v);
    }
    l.geometry.push_back(make_geometry(t.dtype, shape, t.format));
    // An in-place output is its input's memory (the bundle verifier checked the pair matches).
    if (t.inplace >= 0 && size_t(t.inplace) < l.base.size() && l.geometry.back().bytes == l.geometry[size_t(t.inplace)].bytes) {
      l.base.push_back(l.base[size_t(t.inplace)]);
      continue;
    }
    l.base.push_back(at);
    at = align_up(at + std::max<uint64_t>(l.geometry.back().bytes, 1), kGmAlign);
  }
  l.pool_base = align_up(at + (1ull << 20), 1ull << 20);
  return l;
}

ControlFlow::ControlFlow(const CompiledProgram& p, DimExpr::Env dims, ControlFlowOptions opts)
    : impl_(std::make_unique<Impl>(p, std::move(dims), opts)) {}
ControlFlow::~ControlFlow() = default;
bool ControlFlow::next(DeviceTask& out) { return impl_->next(out); }
void ControlFlow::release(int seq) { impl_->release(seq); }
bool ControlFlow::task_accesses(const DeviceTask& dt, uint32_t t, std::vector<GmAccess>& out) {
  return impl_->task_accesses(dt, t, out);
}
const GmLayout& ControlFlow::layout() const { return impl_->layout; }
const std::vector<WorkspaceSlab>& ControlFlow::slabs() const { return impl_->pool.slabs(); }
const ControlFlowStats& ControlFlow::stats() const { return impl_->stats; }
const CompiledProgram& ControlFlow::program() const { return impl_->p; }

}  // namespace ptoc::runtime
