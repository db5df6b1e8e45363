"""The fuzzer's hook for portB6's constructs (specs/README.md section 4 "Run-time scalars"): PyPTO's SymbolicScalar
variables bound by name from int32 inputs, dims, loop variables and other run-time scalars (`+ - * // %`, min,
max, ceildiv), read in loop bounds, view offsets and valid extents, and in an `if` decided at run time. One
construct at the end of the body, with its own dims (`P6B`), inputs (`p6in...`) and outputs (`p6out...`).
gen.py calls program_hook() on the finished program after every other hook; it draws from its own stream
(`portB6{seed}`), so the rest of every seed's program is unchanged.

- `run_scalars`: per batch, a start and a length read from int32 inputs (sometimes clipped by min / max, a
  block count by ceildiv or ceil_div); a loop over the blocks carrying a sum, each block a view at a run-time
  scalar offset with a run-time valid extent; an `if` on the scalars (and, or) picks how the sum is stored.

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import model as M
from gen_lang import RtIf
import hook_stream

KINDS = ("run_scalars",)
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


CONSTRUCTS = {"run_scalars": c_run_scalars}


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
