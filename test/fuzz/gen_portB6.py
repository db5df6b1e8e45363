"""The fuzzer's hook for portB6's constructs (specs/README.md section 4 "Run-time scalars"): PyPTO's SymbolicScalar
variables bound by name from int32 inputs, dims, loop variables and other run-time scalars (`+ - * // %`, min,
max, ceildiv), read in loop bounds, view offsets and valid extents, and in an `if` decided at run time. One
construct at the end of the body, with its own dims (`P6B`), inputs (`p6in...`) and outputs (`p6out...`).
gen.py calls program_hook() on the finished program after every other hook; it draws from its own stream
(`portB6{seed}`), so the rest of every seed's program is unchanged.

- `run_scalars`: per batch, a start and a length read from int32 inputs (sometimes clipped by min / max, a
  block count by ceildiv or ceil_div); a loop over the blocks carrying a sum, each block a view at a run-time
  scalar offset with a run-time valid extent; an `if` on the scalars (and, or) picks how the sum is stored.
- `pypto_forms`: PyPTO's spellings (specs/README.md section 8): a matmul with `a_trans=` / `b_trans=`, a view
  with `valid_shape=`, `where(..., float("-inf"))`-style literals, `concat([x] * k, dim=...)`, a local tensor
  declared with PyPTO's name argument, and `assemble(v, [offsets], t)` statements.

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import model as M
from gen_lang import RtIf
import hook_stream

KINDS = ("run_scalars", "pypto_forms")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off
PROB = 0.08


class RunScalar(M.Stmt):
    """`name = text`: a run-time scalar; the model computes it with `fn(env)` into the dims (where dim
    expressions look names up)."""

    def __init__(self, name, text, fn):
        self.name, self.text, self.fn = name, text, fn

    def emit(self):
        return f"{self.name} = {self.text}"

    def run(self, env):
        env["dims"][self.name] = int(self.fn(env))


def _elem(env, t, i):
    return int(env["tensors"][t][i])


def c_run_scalars(r, prog, st, dt):
    R = r.choice([4, 8, 16])               # rows a block
    D = r.choice([16, 32, 64])
    maxlen = r.choice([R, 3 * R + 1, 5 * R])
    NX = maxlen + r.randint(0, 40)
    nb = r.randint(1, 6)
    prog.dims["P6B"] = {"dynamic": True, "max": 8}
    prog.dimval["P6B"] = nb
    st["n"] += 1
    lo, ln, x = f"p6in{st['n']}a", f"p6in{st['n']}b", f"p6in{st['n']}x"
    prog.inputs[lo] = {"dtype": "int32", "shape": ["P6B"], "values": [0, NX - maxlen]}
    prog.kinds[lo] = f"range:0:{NX - maxlen}"
    prog.inputs[ln] = {"dtype": "int32", "shape": ["P6B"], "values": [0, maxlen]}
    prog.kinds[ln] = f"range:0:{maxlen}"
    prog.inputs[x] = {"dtype": dt, "shape": [NX, D]}
    prog.kinds[x] = "normal"
    out = f"p6out{st['n']}"
    prog.outputs[out] = {"dtype": dt, "shape": ["P6B", D]}
    wrong = 1 if WRONG == "run_scalars" else 0
    b = "p6b"
    # The length: read alone, or clipped (min with a literal, max with 0 of a difference).
    form = r.randrange(3)
    if form == 0:
        n_text, n_fn = f"{ln}[{b}]", lambda e: _elem(e, ln, e["dims"][b])
    elif form == 1:
        cap = r.randint(1, maxlen)
        n_text, n_fn = f"min({ln}[{b}], {cap})", lambda e: min(_elem(e, ln, e["dims"][b]), cap)
    else:
        n_text, n_fn = f"max(0, {ln}[{b}] - {R // 2})", lambda e: max(0, _elem(e, ln, e["dims"][b]) - R // 2)
    div = r.choice(["ceildiv", "ceil_div"])
    body = [RunScalar("p6s", f"{lo}[{b}]", lambda e: _elem(e, lo, e["dims"][b]) + wrong),
            RunScalar("p6n", n_text, n_fn),
            RunScalar("p6m", f"{div}(p6n, {R})", lambda e: M.ceil_div(e["dims"]["p6n"], R))]
    blk = M.View(x, dt, [R, D], ["p6o", 0], [f"min({R}, p6n - p6j * {R})", D])
    inner = [RunScalar("p6o", f"p6s + p6j * {R}", lambda e: e["dims"]["p6s"] + e["dims"]["p6j"] * R),
             M.Bind("p6acc", M.Bin("+", M.Ref("p6acc", dt), M.Red("sum", blk, 0, True, dt), dt))]
    body.append(M.Loop("p6j", "p6m", inner, carry={"p6acc": M.Full([1, D], 0, dt)}))
    t1, t2 = r.randint(0, maxlen), r.randint(0, NX - maxlen)
    op = r.choice(["and", "or"])
    cond = f"p6n > {t1} {op} p6s <= {t2}"

    def test(d):
        a, c = d["p6n"] > t1, d["p6s"] <= t2
        return (a and c) if op == "and" else (a or c)

    then = [M.Assemble(out, [b, 0], M.Ref("p6acc", dt))]
    els = [M.Assemble(out, [b, 0], M.Bin("*", M.Ref("p6acc", dt), M.Const(-2, dt), dt))]
    body.append(RtIf(r.choice(["if", "cond"]), cond, test, then, els))
    prog.body.append(M.Raw({"vec_tile": [R, D]}))
    prog.body.append(M.Loop(b, "P6B", body))


class PyMatmul(M.Matmul):
    """matmul written with PyPTO's a_trans= / b_trans=."""

    def text(self):
        return super().text().replace("trans_a=true", "a_trans=True").replace("trans_b=true", "b_trans=True")


class PyView(M.View):
    """view written with PyPTO's valid_shape=."""

    def text(self):
        return super().text().replace(", valid=[", ", valid_shape=[")


class RepeatConcat(M.Concat):
    """concat([x] * k, dim=d): k copies of one part."""

    def __init__(self, part, k, dim, dtype):
        super().__init__([part] * k, dim, dtype)
        self.k = k

    def text(self):
        return f"concat([{self.parts[0].text()}] * {self.k}, dim={self.dim})"


class WhereInf(M.Node):
    """where(mask, x, float('-inf')) (or 'inf') with a bool input mask."""

    def __init__(self, mask, x, sign, dtype):
        self.mask, self.x, self.sign, self.dtype = mask, x, sign, dtype

    def children(self):
        return [self.x]

    def replace_child(self, i, new):
        self.x = new

    def text(self):
        return f"where({self.mask}, {self.x.text()}, float('{'-' if self.sign < 0 else ''}inf'))"

    def ev(self, env):
        import numpy as np
        v = self.x.ev(env)
        m = env["tensors"][self.mask] != 0
        return M.Value(np.where(m, v.a, self.sign * np.inf), list(v.valid))


class AssembleCall(M.Assemble):
    """assemble(v, [offsets], t): the statement t[o0:, o1:] = v."""

    def emit(self):
        return f"assemble({M.strip(self.expr.text())}, [{', '.join(str(o) for o in self.offsets)}], {self.tensor})"


class LocalTensor(M.Stmt):
    """`t = tensor([shape], dtype, 'name')`: zero-filled; later assembles write it and a Ref reads it."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, list(shape), dtype

    def emit(self):
        return f"{self.name} = tensor([{', '.join(map(str, self.shape))}], {self.dtype}, '{self.name}')"

    def run(self, env):
        import numpy as np
        env["tensors"][self.name] = np.zeros(self.shape)


class _ZeroText(M.Const):
    """The literal 0 in the spec; the model adds `value` (1 for the deliberately wrong model)."""

    def text(self):
        return "0"


def c_pypto_forms(r, prog, st, dt):
    dt = r.choice(["fp16", "bf16"])  # matmul operands
    Mr, K, N = r.choice([16, 32]), r.choice([32, 64]), r.choice([16, 32, 48])
    st["n"] += 1
    a, b, m = f"p6in{st['n']}a", f"p6in{st['n']}b", f"p6in{st['n']}m"
    ta, tb = r.random() < 0.5, r.random() < 0.5
    prog.inputs[a] = {"dtype": dt, "shape": [K, Mr] if ta else [Mr, K]}
    prog.inputs[b] = {"dtype": dt, "shape": [N, K] if tb else [K, N]}
    prog.inputs[m] = {"dtype": "bool", "shape": [Mr, N]}
    prog.kinds[a] = prog.kinds[b] = "normal"
    prog.kinds[m] = "small"
    k = r.randint(1, 3)
    out = f"p6out{st['n']}"
    prog.outputs[out] = {"dtype": "fp32", "shape": [Mr, k * N]}
    rows = r.randint(1, Mr)
    wrong = 1 if WRONG == "pypto_forms" else 0
    va = PyView(a, dt, [K, Mr] if ta else [Mr, K], [0, 0], [K, rows] if ta else [rows, K])
    mm = PyMatmul(va, M.Ref(b, dt), "fp32", trans_a=ta, trans_b=tb)
    lt = "p6t"
    sign = r.choice([-1, 1])
    prog.body.append(M.Raw({"vec_tile": [16, N]}))
    prog.body.append(M.Raw({"cube_tile": {"m": [16, 16], "k": [K, K], "n": [N, N]}}))
    prog.body.append(M.Bind("p6s", mm))
    prog.body.append(LocalTensor(lt, [Mr, N], "fp32"))
    # where(m, s, +-inf) would put inf into the output: the where picks s or the literal, then a max / min with 0
    # keeps it finite (inf -> 0 both ways: -inf max 0 = 0, inf min 0 = 0).
    sel = WhereInf(m, M.Ref("p6s", "fp32"), sign, "fp32")
    fin = M.Bin("maximum" if sign < 0 else "minimum", sel, M.Const(0, "fp32"), "fp32")
    prog.body.append(AssembleCall(lt, [0, 0], M.Bin("+", fin, _ZeroText(wrong, "fp32"), "fp32")))
    prog.body.append(AssembleCall(out, [0, 0], RepeatConcat(M.Ref(lt, "fp32"), k, 1, "fp32")))


CONSTRUCTS = {"run_scalars": c_run_scalars, "pypto_forms": c_pypto_forms}


def program_hook(g, prog):
    """With probability PROB (its own stream): one portB6 construct at the end of the body."""
    drawn = hook_stream.draw(g, "portB6", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    dt = r.choice(FLOAT)
    st = {"n": 0}
    CONSTRUCTS[kind](r, prog, st, dt)
    prog.portB6 = [kind]


def used(prog):
    return list(getattr(prog, "portB6", None) or [])
