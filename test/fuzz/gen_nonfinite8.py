"""The fuzzer's hook for inf and NaN in elementwise inputs (issue 12): the main generator keeps every value
finite, so NaN and inf reached only conv6's ops. Drawn from its own stream (`nonfinite8{seed}`, after every
other hook), so every seed that draws nothing generates what it did before. Per seed, with probability PROB,
one of:

- `mark`: up to MAX_MARKED float inputs of the program already generated take the input kind "nonfinite"
  (numerics.make_input: about one element in ten inf, -inf or NaN). The spec text is unchanged; only inputs
  whose every read flows through ops whose inf / NaN results IEEE and NumPy define alike are taken (SAFE_*:
  + - * /, maximum, minimum, where and its comparisons, the reductions, the transcendental unary ops, and
  the moves transpose, concat, reshape), followed through bound names, loop carries and written tensors.
  Cast and matmul are left out: the model maps NaN to 0 there (model.Cast, model.Matmul).
- `minmax`: one statement at the end with its own nonfinite inputs (`n8in...`) and outputs (`n8out...`):
  maximum / minimum / relu / where trees and an amax / amin over them, the NaN-keeping semantics of
  specs/README.md (NumPy's maximum / minimum, not fmax / fmin), under a vec_tile with tails.

NaN compares by position in numerics.compare, inf by sign. WRONG (selftest only) breaks the model of the
construct it names: `mark` reads the marked inputs with NaN as 0, `minmax` uses fmax / fmin."""
import json
import re

import numpy as np

import model as M
import hook_stream  # noqa: E402

KINDS = ("mark", "minmax")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = None
PROB = 0.25
MAX_MARKED = 3

SAFE_BIN = {"+", "-", "*", "/", "maximum", "minimum"}
SAFE_UNARY = {"abs", "neg", "relu", "exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid", "erf",
              "floor", "ceil", "trunc", "sign", "sin", "cos"}
SAFE_RED = {"sum", "mean", "amax", "amin", "prod", "var"}
MOVES = (M.Transpose, M.Concat, M.Reshape)


def _mentions(text, names):
    return any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)


class Taint:
    """Which names (inputs, bound values, written tensors) may hold inf / NaN, and whether any of them reaches
    an op outside the safe set (`bad`). Node and statement types are matched exactly: a subclass (another
    hook's model of another op) is not assumed safe, and what is not known is judged by its text."""

    def __init__(self, names):
        self.names = set(names)
        self.bad = False

    def node(self, n):
        t = type(n)
        if t is M.Const or t is M.Full:
            return False
        if t is M.Ref:
            return n.name in self.names
        if t in (M.Slice, M.View):
            return n.tensor in self.names
        safe = ((t is M.Bin and n.op in SAFE_BIN and n.dtype in FLOAT) or (t is M.Un and n.op in SAFE_UNARY)
                or t is M.Where or (t is M.Red and n.op in SAFE_RED) or t in MOVES)
        if not safe:
            self.bad = self.bad or _mentions(n.text(), self.names)
            return False
        return any([self.node(c) for c in n.children()])

    def stmts(self, body):
        for s in body:
            t = type(s)
            if t is M.Bind:
                if self.node(s.expr):
                    self.names.add(s.name)
            elif t is M.Assemble:
                if self.node(s.expr):
                    self.names.add(s.tensor)
            elif t is M.Loop:
                for name, init in s.carry.items():
                    if self.node(init):
                        self.names.add(name)
                self.stmts(s.body)
            elif t is M.Block:
                self.stmts(s.body)
            elif t is M.Raw:
                self.bad = self.bad or _mentions(json.dumps(s.emit()), self.names)
            else:
                self.bad = self.bad or _mentions(json.dumps(s.emit()), self.names)


def safe_inputs(prog, names):
    """True when the inputs `names` may hold inf / NaN: every read of them, and of what they flow into
    (followed to a fixed point: a loop body reads names bound later in it), is a safe op."""
    t = Taint(names)
    for _ in range(16):
        before = set(t.names)
        t.stmts(prog.body)
        if t.bad or t.names == before:
            break
    return not t.bad


def c_mark(r, prog):
    cands = [n for n, ty in prog.inputs.items()
             if ty["dtype"] in FLOAT and ty.get("format") != "NZ" and prog.kinds.get(n, "normal") == "normal"]
    r.shuffle(cands)
    marked = []
    for n in cands:
        if len(marked) < MAX_MARKED and safe_inputs(prog, marked + [n]):
            marked.append(n)
    for n in marked:
        prog.kinds[n] = "nonfinite"
    if WRONG == "mark" and marked:
        model = prog.expected
        prog.expected = lambda vals: model({n: np.nan_to_num(v, nan=0.0) if n in marked else v
                                            for n, v in vals.items()})
    return marked


class MinMax(M.Node):
    """maximum / minimum of two operands (NaN wins, NumPy's); `wrong`: fmax / fmin (NaN loses)."""

    def __init__(self, op, a, b, dtype, wrong=False):
        self.op, self.a, self.b, self.dtype, self.wrong = op, a, b, dtype, wrong

    def children(self):
        return [self.a, self.b]

    def replace_child(self, i, new):
        setattr(self, "ab"[i], new)

    def text(self):
        return f"{self.op}({self.a.text()}, {self.b.text()})"

    def ev(self, env):
        va, vb = self.a.ev(env), self.b.ev(env)
        f = {("maximum", False): np.maximum, ("minimum", False): np.minimum,
             ("maximum", True): np.fmax, ("minimum", True): np.fmin}[(self.op, self.wrong)]
        b = vb.a if vb is not None else M.rnd(self.b.value, self.dtype)
        return M.Value(M.rnd(f(va.a, b), self.dtype), va.valid)


def c_minmax(r, prog):
    dt = r.choice(FLOAT)
    R, C = r.randint(1, 24), r.randint(1, 80)
    ins = []

    def leaf():
        if ins and r.random() < 0.4:
            return M.Ref(r.choice(ins), dt)
        n = f"n8in{len(ins) + 1}"
        prog.inputs[n] = {"dtype": dt, "shape": [R, C]}
        prog.kinds[n] = "nonfinite"
        ins.append(n)
        return M.Ref(n, dt)

    wrong = WRONG == "minmax"

    def tree(depth):
        if depth == 0:
            return leaf()
        k = r.choice(["max", "min", "lit", "relu", "where", "add"])
        if k in ("max", "min"):
            return MinMax("maximum" if k == "max" else "minimum", tree(depth - 1), tree(depth - 1), dt, wrong)
        if k == "lit":
            return MinMax(r.choice(["maximum", "minimum"]), tree(depth - 1), M.Const(r.choice([0.0, -1.5, 2.0]), dt),
                          dt, wrong)
        if k == "relu":
            return M.Un("relu", tree(depth - 1), dt)
        if k == "where":
            return M.Where(r.choice(["lt", "ge", "ne", "eq"]), leaf(), leaf(), tree(depth - 1), tree(depth - 1), dt)
        return M.Bin("+", tree(depth - 1), tree(depth - 1), dt)

    prog.body.append(M.Raw({"vec_tile": [r.randint(1, R), r.choice([c for c in (16, 32, 64) if c <= max(C, 16)])]}))
    prog.outputs["n8out1"] = {"dtype": dt, "shape": [R, C]}
    prog.body.append(M.Assemble("n8out1", [0, 0], tree(r.randint(1, 3))))
    red = r.choice(["amax", "amin"])
    prog.outputs["n8out2"] = {"dtype": dt, "shape": [R, 1]}
    prog.body.append(M.Assemble("n8out2", [0, 0], M.Red(red, tree(r.randint(0, 2)), -1, True, dt)))
    return ins


CONSTRUCTS = {"mark": c_mark, "minmax": c_minmax}


def program_hook(g, prog):
    """With probability PROB (its own stream): inf / NaN in some inputs."""
    drawn = hook_stream.draw(g, "nonfinite8", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    if CONSTRUCTS[kind](r, prog):
        prog.nonfinite8 = [kind]


def used(prog):
    return ["nonfinite8_" + k for k in (getattr(prog, "nonfinite8", None) or [])]
