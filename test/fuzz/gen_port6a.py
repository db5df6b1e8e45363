"""The fuzzer's hook for port6a's PyPTO spellings (specs/README.md "Two ports with PyPTO's own spellings"): one
construct at the end of the body with its own inputs (`p6in...`) and outputs (`p6out...`), drawn from its own
stream (`port6a{seed}`), after every other hook, so the rest of every seed's program is unchanged. Per seed,
with probability PROB, one of:

- `assemble_call`: `assemble(EXPR, [o0, o1], out)` of a `view(x, shape, offsets, valid_shape=[...])` window
  (PyPTO's keyword), a partly valid window written at an offset;
- `reshape_valid`: a partly valid [R, D] window reshaped to [R, 1, D] with `valid_shape=` stated equal to what
  the window holds, or narrower (fewer rows valid);
- `div_precision`: `div(a, b, INTRINSIC)` / `div(a, b, precision_type=HIGH_PRECISION)`: the exact quotient;
- `label_float_if`: a label of two words and an `if` comparing float constants (`sc != 1.0`, `sc * 2 >= 2.5`),
  decided at compile time as Python decides it.

WRONG (selftest only) breaks the model of the construct it names."""
import numpy as np

import model as M
from model import Stmt, Value, dim_eval, rnd
import hook_stream  # noqa: E402

KINDS = ("assemble_call", "reshape_valid", "div_precision", "label_float_if")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = None
PROB = 0.2


class AssembleCall(M.Assemble):
    """PyPTO's `assemble(src, [offsets], dst)`: the model is the assemble's (`wrong`: one row lower)."""

    def __init__(self, tensor, offsets, expr, wrong=False):
        super().__init__(tensor, offsets, expr)
        self.wrong = wrong

    def run(self, env):
        if not self.wrong:
            return super().run(env)
        off = self.offsets
        self.offsets = [M.dim_eval(off[0], env["dims"]) + 1] + off[1:]
        try:
            super().run(env)
        finally:
            self.offsets = off

    def emit(self):
        return f"assemble({M.strip(self.expr.text())}, [{', '.join(map(str, self.offsets))}], {self.tensor})"


class ViewValidShape(M.View):
    """`view(..., valid_shape=[...])`, PyPTO's keyword for `valid=`."""

    def text(self):
        return super().text().replace(", valid=[", ", valid_shape=[")


class ReshapeValid(M.Node):
    """reshape of a partly valid [R, D] value to [R, 1, D] with `valid_shape=[rows, 1, D]`, rows at most the
    value's valid rows; the model narrows the valid box to it."""

    def __init__(self, a, shape, valid_shape, dtype, wrong=False):
        self.a, self.shape, self.valid_shape, self.dtype, self.wrong = a, list(shape), list(valid_shape), dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return (f"reshape({M.strip(self.a.text())}, [{', '.join(map(str, self.shape))}], "
                f"valid_shape=[{', '.join(map(str, self.valid_shape))}])")

    def ev(self, env):
        v = self.a.ev(env)
        rows = dim_eval(self.valid_shape[0], env["dims"])
        if rows > v.valid[0] or v.valid[1] != v.a.shape[1]:
            raise M.ModelError("reshape valid_shape wider than the value")
        out = v.a.reshape([v.a.shape[0], 1, v.a.shape[1]]).copy()
        if self.wrong:
            rows = v.valid[0]  # ignores the narrower valid shape: writes padding rows' neighbours too
            out = out + 1
        out[rows:] = np.nan
        return Value(out, [rows, 1, v.a.shape[1]])


class DivPrecision(M.Node):
    def __init__(self, a, b, dtype, mode, wrong=False):
        self.a, self.b, self.dtype, self.mode, self.wrong = a, b, dtype, mode, wrong

    def children(self):
        return [self.a, self.b]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        else:
            self.b = new

    def text(self):
        return f"div({M.strip(self.a.text())}, {M.strip(self.b.text())}, {self.mode})"

    def ev(self, env):
        x, y = self.a.ev(env), self.b.ev(env)
        with np.errstate(all="ignore"):
            r = rnd(x.a / y.a, self.dtype)
        return Value(r * (1.001 if self.wrong else 1.0), list(x.valid))


class FloatIf(Stmt):
    """`{if: COND, then: [...], else: [...]}` on float constants bound before (in the model's dims)."""

    def __init__(self, cond, then, other, wrong=False):
        self.cond, self.then, self.other, self.wrong = cond, list(then), list(other), wrong

    def items(self):
        return [self.then, self.other]

    def emit(self):
        return {"if": self.cond, "then": [s.emit() for s in self.then], "else": [s.emit() for s in self.other]}

    def run(self, env):
        taken = eval(self.cond, {"__builtins__": {}}, dict(env["dims"])) != self.wrong
        for s in (self.then if taken else self.other):
            s.run(env)


class FloatBind(Stmt):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def emit(self):
        return f"{self.name} = {self.value!r}"

    def run(self, env):
        env["dims"][self.name] = float(self.value)


def _inp(st, prog, shape, dt):
    st["n"] += 1
    n = f"p6in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = "normal"
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"p6out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def construct(r, prog, kind):
    st = {"n": 0}
    dt = r.choice(FLOAT)
    R, D = r.randint(2, 20), r.choice([8, 16, 32, 64])
    body = prog.body
    body.append(M.Raw({"vec_tile": [r.choice([1, 4, 8, 16]), r.choice([8, 16, 32])]}))
    if kind == "assemble_call":
        x = _inp(st, prog, [R, D], dt)
        rows = r.randint(1, R)
        off = r.randint(0, R - 1)
        o = _out(st, prog, [R + off, D], dt)
        body.append(AssembleCall(o, [0, 0], M.Full([R + off, D], 0.0, dt)))  # the rows the window does not write
        v = ViewValidShape(x, dt, [R, D], [0, 0], [rows, D])
        body.append(AssembleCall(o, [off, 0], M.Bin("*", v, M.Const(-1.5, dt), dt), wrong=WRONG == kind))
    elif kind == "reshape_valid":
        x = _inp(st, prog, [R, D], dt)
        rows = r.randint(1, R)
        stated = r.choice([rows, r.randint(1, rows)])
        o = _out(st, prog, [R, 1, D], dt)
        body.append(M.Raw({"vec_tile": [r.choice([1, 4, 8]), 1, r.choice([8, 16, 32])]}))
        body.append(M.Assemble(o, [0, 0, 0], M.Full([R, 1, D], 0.0, dt)))
        v = M.View(x, dt, [R, D], [0, 0], [rows, D])
        body.append(M.Assemble(o, [0, 0, 0], ReshapeValid(v, [R, 1, D], [stated, 1, D], dt, wrong=WRONG == kind)))
    elif kind == "div_precision":
        x, y = _inp(st, prog, [R, D], dt), _inp(st, prog, [R, r.choice([1, D])], dt)
        mode = r.choice(["INTRINSIC", "HIGH_PRECISION", "precision_type=INTRINSIC"])
        yy = M.Bin("+", M.Un("abs", M.Ref(y, dt), dt), M.Const(0.5, dt), dt)
        o = _out(st, prog, [R, D], dt)
        body.append(M.Assemble(o, [0, 0], DivPrecision(M.Ref(x, dt), yy, dt, mode, wrong=WRONG == kind)))
    else:
        x = _inp(st, prog, [R, D], dt)
        o = _out(st, prog, [R, D], dt)
        sc = r.choice([1.0, 1.5, 0.5])
        cond = r.choice(["p6sc != 1.0", "p6sc * 2 >= 2.5", "not p6sc < 1.0"])
        body.append(FloatBind("p6sc", sc))
        body.append(M.Raw({"label": r.choice(["Attention Scores", "Weighted Summation", "Rms Norm"])}))
        body.append(FloatIf(cond, [M.Assemble(o, [0, 0], M.Bin("*", M.Ref(x, dt), M.Const(2.0, dt), dt))],
                            [M.Assemble(o, [0, 0], M.Bin("*", M.Ref(x, dt), M.Const(-1.0, dt), dt))],
                            wrong=WRONG == kind))
        body.append(M.Raw({"label": None}))


def program_hook(g, prog):
    """With probability PROB (its own stream): one port6a construct at the end of the body."""
    drawn = hook_stream.draw(g, "port6a", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.port6a = [kind]


def used(prog):
    return ["port6a_" + k for k in (getattr(prog, "port6a", None) or [])]
