"""The fuzzer's third-round constructs (issue 11): what gen.py, gen_lang.py and gen_index_ops.py did not
write yet, each from its own random stream `cover{seed}` with its own names (`in2001`, `out2003`, ...), so
a seed that draws none of them generates the program it always did (fuzz_lang_selftest checks it).

- symbolic `vec_tile` entries in unroll-gear bodies (`[k, 64]`, `["min(k, 4)", 128]`, `["min(k * 16, 64)",
  ...]`) and in static-loop bodies (`["min(b + 1, 8)", 32]`): a rewrite of the body's tiles after it
  was generated (a tile never grows, so what fitted still fits; numerics do not change);
- 2-D index rows: `index_select(x, 0, ids[s, :])`, `gather(x[s:s + 1, :], 1, gi[s:s + 1, :])`,
  `scatter(..., si[s:s + 1, :], ...)` and `index_put_(x, [pi[s, :]], ...)` in a static or dynamic loop
  over the rows of the index tensors;
- scatter and index_put_ inside loops over the blocks of a dynamic dim with a tail (scatter along the
  columns of each row block, index_put_ along the rows of each column block);
- loops carrying several values (`carry: {c1: ..., c2: ..., c3: ...}`, each update reading the others);
- local tensors inside a dynamic loop whose last block is a tail, read back through `view(..., valid=...)`.

Every construct is its own root-level statement list at the end of the program (inputs, outputs and a
dynamic dim of its own), except the tile rewrite, which only changes `vec_tile` entries of a loop body.
"""
import random

import numpy as np

import model as M
from model import Assemble, Bin, Bind, Const, Full, Raw, Ref, Slice, Value, View
from gen_index_ops import Gather, IndexScatter, Scatter
import gen_lang as GL
from gen_lang import LocalTensor

FLOATS = ("fp32", "fp16", "bf16")

# `fuzz.py --cover NAME` (a test run of one construct, ~50 seeds): every seed that can take it does.
# None in every ordinary run, so seeds keep their programs.
FORCE = None


# ---------------------------------------------------------------- model nodes
class IdxRow(M.Node):
    """`ids[s, :]`: one row of a rank-2 int32 tensor as a rank-1 index (the loop variable picks it)."""

    def __init__(self, tensor, var):
        self.tensor, self.var, self.dtype = tensor, var, "int32"

    def text(self):
        return f"{self.tensor}[{self.var}, :]"

    def ev(self, env):
        t = env["tensors"][self.tensor]
        r = t[M.dim_eval(self.var, env["dims"])].copy()
        return Value(r, r.shape)


class IndexSelectBy(M.Node):
    """index_select(x, 0, idx) with any rank-1 index node (an input, or a row `ids[s, :]`)."""

    def __init__(self, tensor, idx, dtype):
        self.tensor, self.idx, self.dtype = tensor, idx, dtype

    def children(self):
        return [self.idx]

    def replace_child(self, i, new):
        self.idx = new

    def text(self):
        return f"index_select({self.tensor}, 0, {self.idx.text()})"

    def ev(self, env):
        x = env["tensors"][self.tensor]
        ids = self.idx.ev(env).a.astype(np.int64)
        if ids.min() < 0 or ids.max() >= x.shape[0]:
            raise M.ModelError("index_select index outside the input (a run-time error, not generated)")
        r = x[ids]
        return Value(r.copy(), r.shape)


# ---------------------------------------------------------------- generator side
class Side:
    """Swaps the generator's stream, counters and dictionaries for this module's own, and back."""

    def __init__(self, g):
        self.g = g

    def __enter__(self):
        g = self.g
        s = state(g)
        self.saved = (g.r, g.n, g.inputs, g.outputs, g.tensors, g.kinds)
        g.r, g.n, g.inputs, g.outputs, g.tensors, g.kinds = (s["r"], s["n"], s["inputs"], s["outputs"],
                                                             s["tensors"], s["kinds"])
        return g

    def __exit__(self, *exc):
        g = self.g
        g.cover["n"] = g.n
        g.r, g.n, g.inputs, g.outputs, g.tensors, g.kinds = self.saved
        return False


def state(g):
    if not hasattr(g, "cover"):
        g.cover = {"r": random.Random(f"cover{g.seed}"), "n": 2000, "inputs": {}, "outputs": {},
                   "tensors": {}, "kinds": {}, "used": []}
    return g.cover


def _use(g, what):
    state(g)["used"].append(what)


def merge(g):
    """At the end of Gen.program: this module's inputs, outputs and tensors join the program's."""
    GL.merge_state(g, getattr(g, "cover", None))


def used(prog_or_gen):
    s = getattr(prog_or_gen, "cover", None)
    return list(s["used"]) if s else []


# ------------------------------------------------ symbolic vec_tile entries (a rewrite of a loop body)
def _tiles(stmts):
    """Every vec_tile list of a body, also inside `if` branches and nested bodies (same objects)."""
    out = []

    def obj(o):
        if isinstance(o, dict):
            if isinstance(o.get("vec_tile"), list):
                out.append(o)
            for k in ("then", "else", "body"):
                for x in o.get(k, []) or []:
                    obj(x)
    for s in stmts:
        if isinstance(s, Raw):
            obj(s.obj)
        for lst in s.items():
            out.extend(_tiles(lst))
    return out


# ops whose axis must be whole in the tile (argmax/argmin over any axis, topk/argsort: specs/README.md): a
# tile in force over one of them keeps its entries
WHOLE_IN_TILE = ("ArgExt", "Sort")


def _class_names(x, out):
    """Class names of every object reachable from x through attributes, lists and dicts."""
    seen, stack = set(), [x]
    while stack:
        y = stack.pop()
        if isinstance(y, (list, tuple)):
            stack.extend(y)
        elif isinstance(y, dict):
            stack.extend(y.values())
        elif hasattr(y, "__dict__") and id(y) not in seen:
            seen.add(id(y))
            out.add(type(y).__name__)
            stack.extend(vars(y).values())
    return out


def _tiles_in_force(stmts, current=None, groups=None):
    """[(tile dicts, class names of the statements they are in force over)] in program order."""
    groups = [] if groups is None else groups
    for s in stmts:
        if isinstance(s, Raw):
            found = _tiles([s])
            if found:
                current = (found, set())
                groups.append(current)
            continue
        if current is not None:
            _class_names(s, current[1])
        for lst in s.items():
            _tiles_in_force(lst, current, groups)
            current = groups[-1] if groups else current
    return groups


def symbolic_tiles(g, stmts, var, factor, gears, kind, prob=0.7):
    """Rewrites rank-2 tiles of a gear body (factor `factor`, gears `gears`) or of a static loop's body
    (variable `var`) with entries that are expressions of the factor or the loop variable. Each new
    entry is at most the old one in every gear or iteration, so the body fits as before."""
    s = state(g)
    r = s["r"]
    if FORCE == "symbolic_tile":
        prob = 1.0
    if r.random() >= prob or (factor is None and kind != "static"):
        return False
    done = False
    keep = set()
    for dicts, names in _tiles_in_force(stmts):
        if any(n in WHOLE_IN_TILE for n in names):
            keep.update(id(o) for o in dicts)
    for o in _tiles(stmts):
        if id(o) in keep:
            continue
        t = o["vec_tile"]
        if len(t) != 2 or not all(isinstance(x, int) for x in t) or r.random() < 0.3:
            continue
        if t[0] < 2:  # the entry would be 1 in every gear: nothing symbolic left to test
            continue
        t0, t1 = t
        if factor:
            kmax = max(gears)
            forms = [f"min({factor}, {t0})", f"min({factor} * 2, {t0})"]
            if kmax <= t0:
                forms.append(factor)  # PyPTO's set_vec_tile_shapes(t_tile, ...)
            new0 = r.choice(forms)
            new1 = t1
            if t1 >= 32 and r.random() < 0.3:
                new1 = f"min({factor} * 16, {t1})"
        else:
            new0 = r.choice([f"min({var} + 1, {t0})", f"max(1, min({t0}, 8 - {var}))"])
            new1 = t1
        o["vec_tile"] = [new0, new1]
        done = True
    if done:
        _use(g, "symbolic_tile")
    return done


# ------------------------------------------------ exact operands of the step functions
def _reads_input(g, node):
    """Is the node an input read as it is (whole, a slice or a view of an input)?"""
    names = set(g.inputs) | set(state(g)["inputs"]) | set(getattr(g, "lang2", {}).get("inputs", {}))
    if isinstance(node, Ref) and node.name in names:
        return True
    return isinstance(node, (Slice, View)) and node.tensor in names


def exact_operand(g, ctx, a, ta):
    """floor/ceil/trunc/sign jump: one ulp of an earlier op may move the result by 1, so they read exact
    input values. gen.py's leaf() may hand them a pool value, which is computed (long-run seed 9502848:
    `trunc(t7)`, t7 holding an fp16 matmul, 16 against the model's 17); such an operand becomes a fresh
    input window of the same type, drawn from this module's stream (the main stream is untouched, so
    the rest of the program is what it was)."""
    if _reads_input(g, a):
        return a, ta
    with Side(g):
        b, tb = g.window_input(ctx, list(ta.shape), ta.dtype)
    if tb.shape != ta.shape or tb.vkey != ta.vkey:
        return a, ta  # no window of that type here: keep the old operand (rare; was the only behaviour)
    _use(g, "exact_step_operand")
    return b, tb


# ------------------------------------------------ root-level constructs
def _dyn_dim(g, R):
    """A dynamic dim whose run-time value leaves a tail block of R rows (or none), and its count."""
    r = g.r
    val = R * r.randint(1, 4) + r.choice([0, r.randint(1, max(1, R - 1))])
    return g.dim(None, dynamic=True, runtime=val), val


def h_index_rows(g, body):
    """A loop over the rows of index tensors: index_select / gather / scatter / index_put_ per row."""
    r = g.r
    dt = g.dtype
    NB = r.choice([1, 2, 3, 5])
    D = r.choice([16, 32, 64])
    kinds = r.sample(["index_select", "gather", "scatter", "index_put"], r.randint(1, 3))
    s = g.fresh("s")
    inner = [Raw({"vec_tile": [r.choice([1, 4, 8]), D]})]
    for kd in kinds:
        if kd == "index_select":
            NX, n = r.choice([4, 9, 16]), r.choice([1, 3, 8])
            x = g.new_input([NX, D], dt)
            ids = g.new_input([NB, n], "int32", kind=f"range:0:{NX - 1}")
            g.inputs[ids]["values"] = [0, NX - 1]
            o = g.fresh("out")
            g.outputs[o] = {"dtype": dt, "shape": [NB * n, D]}
            t = g.fresh("t")
            inner.append(Bind(t, IndexSelectBy(x, IdxRow(ids, s), dt)))
            inner.append(Assemble(o, [f"{s} * {n}", 0], Bin("+", Ref(t, dt), Const(1, dt), dt)))
        elif kd in ("gather", "scatter"):
            m = r.choice([4, 8, 16])
            x = g.new_input([NB, D], dt)
            ix = g.new_input([NB, m if kd == "gather" else D], "int32", kind=f"range:-1:{D}")
            xw = Slice(x, dt, [s, 0], [f"{s} + 1", D])
            iw = Slice(ix, "int32", [s, 0], [f"{s} + 1", m if kd == "gather" else D])
            o = g.fresh("out")
            if kd == "gather":
                node, w = Gather(xw, 1, iw, dt), m
            else:
                src = g.new_input([NB, D], dt)
                node = Scatter(xw, 1, iw, Slice(src, dt, [s, 0], [f"{s} + 1", D]), r.choice([None, "add"]), dt)
                w = D
            g.outputs[o] = {"dtype": dt, "shape": [NB, w]}
            t = g.fresh("t")
            inner.append(Bind(t, node))
            inner.append(Assemble(o, [s, 0], Ref(t, dt)))
        else:
            Mr, n = r.choice([4, 8, 12]), r.choice([1, 2, 5])
            x = g.new_input([Mr, D], dt)
            pi = g.new_input([NB, n], "int32", kind=f"range:-1:{Mr}")
            src = g.new_input([NB * n, D], dt)
            acc = r.random() < 0.3
            node = IndexScatter("index_put", Ref(x, dt), 0, IdxRow(pi, s),
                                Slice(src, dt, [f"{s} * {n}", 0], [f"({s} + 1) * {n}", D]), dt, accumulate=acc)
            o = g.fresh("out")
            g.outputs[o] = {"dtype": dt, "shape": [NB * Mr, D]}
            t = g.fresh("t")
            inner.append(Bind(t, node))
            inner.append(Assemble(o, [f"{s} * {Mr}", 0], Ref(t, dt)))
    body.append(M.Loop(s, NB, inner, kind=r.choice(["dynamic", "static"])))
    return True


def h_loop_scatter(g, body):
    """scatter along the columns of each row block, or index_put_ along the rows of each column block,
    of a dynamic dim whose last block is a tail."""
    r = g.r
    dt = g.dtype
    b = g.fresh("b")
    if r.random() < 0.5:
        R, D = r.choice([2, 4, 8]), r.choice([8, 16, 32])
        T, _ = _dyn_dim(g, R)
        x, ix, src = g.new_input([T, D], dt), g.new_input([T, D], "int32", kind=f"range:-1:{D}"), \
            g.new_input([T, D], dt)
        rows = ([f"{b} * {R}", 0], [f"({b} + 1) * {R}", D])
        node = Scatter(Slice(x, dt, *rows), 1, Slice(ix, "int32", *rows), Slice(src, dt, *rows),
                       r.choice([None, "add"]), dt)
        o = g.fresh("out")
        g.outputs[o] = {"dtype": dt, "shape": [T, D]}
        t = g.fresh("t")
        inner = [Raw({"vec_tile": [r.choice([1, R]), D]}), Bind(t, node),
                 Assemble(o, [f"{b} * {R}", 0], Bin("*", Ref(t, dt), Const(2, dt), dt))]
        body.append(M.Loop(b, f"ceil_div({T}, {R})", inner))
        _use(g, "loop_scatter")
    else:
        C, Mr, n = r.choice([16, 32]), r.choice([4, 8]), r.choice([1, 3, 6])
        N, _ = _dyn_dim(g, C)
        x, src = g.new_input([Mr, N], dt), g.new_input([n, N], dt)
        pi = g.new_input([n], "int32", kind=f"range:-1:{Mr}")
        cols = lambda rows: ([0, f"{b} * {C}"], [rows, f"({b} + 1) * {C}"])  # noqa: E731
        node = IndexScatter("index_put", Slice(x, dt, *cols(Mr)), 0, Ref(pi, "int32"), Slice(src, dt, *cols(n)),
                            dt, accumulate=r.random() < 0.3)
        o = g.fresh("out")
        g.outputs[o] = {"dtype": dt, "shape": [Mr, N]}
        t = g.fresh("t")
        inner = [Raw({"vec_tile": [r.choice([1, 4, Mr]), C]}), Bind(t, node),
                 Assemble(o, [0, f"{b} * {C}"], Bin("+", Ref(t, dt), Const(1, dt), dt))]
        body.append(M.Loop(b, f"ceil_div({N}, {C})", inner))
        _use(g, "loop_index_put")
    return True


def h_multi_carry(g, body):
    """A dynamic loop carrying two or three values; each update may read the values updated before it."""
    r = g.r
    dt = g.dtype if g.dtype in FLOATS else "fp32"
    R, D = r.choice([1, 2, 4, 8]), r.choice([16, 32, 64, 128])
    T, _ = _dyn_dim(g, R)
    x = g.new_input([T, D], dt)
    b = g.fresh("b")
    names = [g.fresh("c") for _ in range(r.choice([2, 2, 3]))]
    inits = {c: Full([1, D], r.choice([0, 0, 1, -1]), dt) for c in names}
    m = g.fresh("t")
    red = r.choice(["amax", "amin", "sum"])
    inner = [Raw({"vec_tile": [R, D]}),
             Bind(m, M.Red(red, Slice(x, dt, [f"{b} * {R}", 0], [f"({b} + 1) * {R}", D]), 0, True, dt)),
             Raw({"vec_tile": [1, D]})]
    for i, c in enumerate(names):
        other = Ref(names[r.randrange(i)], dt) if i and r.random() < 0.7 else Ref(m, dt)
        form = r.choice(["decay", "max", "min", "mix"])
        if form == "decay":
            e = Bin("+", Bin("*", Ref(c, dt), Const(0.5, dt), dt), other, dt)
        elif form in ("max", "min"):
            e = Bin("maximum" if form == "max" else "minimum", Ref(c, dt), Bin("*", other, Const(0.25, dt), dt), dt)
        else:
            e = Bin("-", Bin("*", other, Const(0.5, dt), dt), Bin("*", Ref(c, dt), Const(0.25, dt), dt), dt)
        inner.append(Bind(c, e))
    body.append(Raw({"vec_tile": [1, D]}))  # the initial full() values are vector ops
    body.append(M.Loop(b, f"ceil_div({T}, {R})", inner, carry=inits))
    for c in names:
        o = g.fresh("out")
        g.outputs[o] = {"dtype": dt, "shape": [1, D]}
        body.append(Assemble(o, [0, 0], Bin("+", Ref(c, dt), Const(0, dt), dt)))
    _use(g, "multi_carry")
    return True


def h_loop_local(g, body):
    """A local tensor per iteration of a dynamic loop with a tail: written in column pieces (maybe a gap
    that reads as zero, maybe overlapping), read back through view(..., valid=[rows left, D])."""
    r = g.r
    dt = g.dtype
    R, D = r.choice([2, 4, 8]), r.choice([32, 64])
    T, _ = _dyn_dim(g, R)
    x = g.new_input([T, D], dt)
    b = g.fresh("b")
    lt = g.fresh("lt")
    inner = [Raw({"vec_tile": [r.choice([1, R]), r.choice([16, D])]}), LocalTensor(lt, [R, D], dt)]
    cuts = sorted(set([0, D] + [r.choice(range(8, D, 8)) for _ in range(r.randint(1, 2))]))
    pieces = list(zip(cuts[:-1], cuts[1:]))
    r.shuffle(pieces)
    if len(pieces) > 2 and r.random() < 0.3:
        pieces.pop()
    for c0, c1 in pieces:
        if r.random() < 0.2 and c0 >= 8:
            c0 -= 8
        src = Slice(x, dt, [f"{b} * {R}", c0], [f"({b} + 1) * {R}", c1])
        val = Bin("*", src, Const(2, dt), dt) if r.random() < 0.5 else M.Un("abs", src, dt)
        inner.append(Assemble(lt, [0, c0], val))
    o = g.fresh("out")
    g.outputs[o] = {"dtype": dt, "shape": [T, D]}
    read = View(lt, dt, [R, D], [0, 0], [f"min({R}, {T} - {b} * {R})", D])
    inner.append(Assemble(o, [f"{b} * {R}", 0], Bin("+", read, Const(1, dt), dt)))
    body.append(M.Loop(b, f"ceil_div({T}, {R})", inner))
    _use(g, "loop_local")
    return True


class RtvLoop(M.Stmt):
    """`loop: {var: j, count: "ceil_div(seq[b], R)"}`: a trip count read from an int32 tensor at run time."""

    def __init__(self, var, seq, outer, R, body):
        self.var, self.seq, self.outer, self.R, self.body = var, seq, outer, R, body

    def items(self):
        return [self.body]

    def emit(self):
        return {"loop": {"var": self.var, "count": f"ceil_div({self.seq}[{self.outer}], {self.R})"},
                "body": [s.emit() for s in self.body]}

    def run(self, env):
        n = -(-int(env["tensors"][self.seq][env["dims"][self.outer]]) // self.R)
        for i in range(n):
            env["dims"][self.var] = i
            for s in self.body:
                s.run(env)
        env["dims"].pop(self.var, None)


def h_rtv_local(g, body, inner_decl=True):
    """A local tensor inside a loop whose trip count is a run-time value (`ceil_div(seq[b], R)`). `ptoc
    check` refuses it today ("the local tensor 'lt' is inside loop ..., whose trip count ... depends on
    'seq'"): only `fuzz.py --cover rtv_local` generates it (not in TOP), so that the language's support
    (engineer ctrl3) can be fuzzed by switching it on."""
    r = g.r
    dt = g.dtype
    R, D, MAXB = r.choice([2, 4, 8]), r.choice([16, 32]), r.choice([1, 2, 3])
    NB = r.randint(1, 4)
    hi = R * MAXB
    seq = g.new_input([NB], "int32", kind=f"range:0:{hi}")
    g.inputs[seq]["values"] = [0, hi]
    x = g.new_input([hi, D], dt)
    b, j, lt = g.fresh("b"), g.fresh("j"), g.fresh("lt")
    o = g.fresh("out")
    g.outputs[o] = {"dtype": dt, "shape": [NB * hi, D]}
    c = r.choice(range(8, D, 8))
    inner = [LocalTensor(lt, [R, D], dt)] if inner_decl else []
    inner += [Assemble(lt, [0, 0], Bin("*", Slice(x, dt, [f"{j} * {R}", 0], [f"({j} + 1) * {R}", c]), Const(2, dt), dt)),
             Assemble(o, [f"{b} * {hi} + {j} * {R}", 0], Bin("+", Ref(lt, dt), Const(1, dt), dt))]
    body.append(Raw({"vec_tile": [R, D]}))
    outer = [Assemble(o, [f"{b} * {hi}", 0], Full([hi, D], 0, dt))]
    if not inner_decl:
        # declared one loop out, as the error's hint says: every j writes the same columns, so the
        # numbers are those of the refused form
        outer.append(LocalTensor(lt, [R, D], dt))
    body.append(M.Loop(b, NB, outer + [RtvLoop(j, seq, b, R, inner)]))
    _use(g, "rtv_local" if inner_decl else "rtv_local_outer")
    return True


TOP = {"index_rows": h_index_rows, "loop_scatter": h_loop_scatter, "multi_carry": h_multi_carry,
       "loop_local": h_loop_local, "rtv_local_outer": lambda g, body: h_rtv_local(g, body, inner_decl=False)}
OPT_IN = {"rtv_local": h_rtv_local}  # refused by `ptoc check` today: generated only when forced


def top_hook(g, body, prob=0.15, force=None):
    """At the end of the program: maybe one of the root-level constructs (its own statement list)."""
    s = state(g)
    force = force or (FORCE if FORCE in TOP or FORCE in OPT_IN else None)
    if s["r"].random() >= prob and not force:
        return False
    with Side(g):
        f = force or g.r.choice(sorted(TOP))
        ok = dict(TOP, **OPT_IN)[f](g, body)
        if ok and f == "index_rows":
            _use(g, "index_rows")
    return ok
