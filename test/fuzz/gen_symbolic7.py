"""The fuzzer's hook for symbolic7: PyPTO's SymbolicScalar as one binding and the tensor attributes
(specs/README.md "Run-time scalars", "A tensor's extents"). One construct at the end of the body with its own
inputs (`p7in...`) and outputs (`p7out...`), drawn from its own stream (`symbolic7{seed}`), after every other
hook, so the rest of every seed's program is unchanged. Per seed, with probability PROB, one of:

- `extent_scalar`: `p7bsz, p7d = w.shape` of a dynamic extent as a loop count, and a scalar mixing the extent
  with a run-time value (`p7n = min(ln[p7b], p7bsz * R - p7b)`), its ceildiv a loop count and a view's valid
  extent;
- `shape_dtype_args`: `reshape(reshape(E, [x.shape[0] * x.shape[1] // 2, 2]), x.shape)`,
  `full(x.shape, c, fp32)` and `cast(..., x.dtype)` (DeepSeek-V4's compressor spellings).

WRONG (selftest only) breaks the model of the construct it names."""
import model as M
import hook_stream  # noqa: E402

KINDS = ("extent_scalar", "shape_dtype_args")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = None
PROB = 0.1


class Scalar(M.Stmt):
    """`name = text` (or `a, b = x.shape`): scalar bindings; the model computes them with `fn(env)` into the
    dims (where dim expressions look names up), one value per name."""

    def __init__(self, names, text, fn):
        self.names, self.text, self.fn = list(names), text, fn

    def emit(self):
        return f"{', '.join(self.names)} = {self.text}"

    def run(self, env):
        for n, v in zip(self.names, self.fn(env)):
            env["dims"][n] = int(v)


class ShapeReshape(M.Reshape):
    """A round trip through [x.shape[0] * x.shape[1] // 2, 2] and back to x.shape: the value unchanged."""

    def __init__(self, a, tensor, shape, dtype, wrong=False):
        super().__init__(a, shape, dtype)
        self.tensor, self.wrong = tensor, wrong

    def text(self):
        t = self.tensor
        return (f"reshape(reshape({M.strip(self.a.text())}, [{t}.shape[0] * {t}.shape[1] // 2, 2]), "
                f"{t}.shape)")

    def ev(self, env):
        v = super().ev(env)
        if self.wrong:  # the pairs swapped: what a wrong reading of the inner shape would give
            a = v.a.reshape(-1, 2)[:, ::-1].reshape(v.a.shape).copy()
            return M.Value(a, v.valid)
        return v


class FullShape(M.Full):
    def __init__(self, tensor, shape, value, dtype):
        super().__init__(shape, value, dtype)
        self.tensor = tensor

    def text(self):
        return f"full({self.tensor}.shape, {self.value}, {self.dtype})"


class CastDtype(M.Cast):
    def __init__(self, a, tensor, dtype):
        super().__init__(a, dtype)
        self.tensor = tensor

    def text(self):
        return f"cast({M.strip(self.a.text())}, {self.tensor}.dtype)"


def _elem(env, t, i):
    return int(env["tensors"][t][i])


def c_extent_scalar(r, prog, st, dt):
    R = r.choice([4, 8, 16])  # rows a block
    D = r.choice([16, 32, 64])
    maxlen = r.choice([R, 3 * R + 1, 5 * R])
    NX = maxlen + r.randint(0, 40)
    nb = r.randint(1, 6)
    prog.dims["P7B"] = {"dynamic": True, "max": 8}
    prog.dimval["P7B"] = nb
    st["n"] += 1
    lo, ln, x, w = (f"p7in{st['n']}{c}" for c in "abxw")
    prog.inputs[lo] = {"dtype": "int32", "shape": ["P7B"], "values": [0, NX - maxlen]}
    prog.kinds[lo] = f"range:0:{NX - maxlen}"
    prog.inputs[ln] = {"dtype": "int32", "shape": ["P7B"], "values": [0, maxlen]}
    prog.kinds[ln] = f"range:0:{maxlen}"
    prog.inputs[x] = {"dtype": dt, "shape": [NX, D]}
    prog.kinds[x] = "normal"
    prog.inputs[w] = {"dtype": dt, "shape": ["P7B", D]}
    prog.kinds[w] = "normal"
    out = f"p7out{st['n']}"
    prog.outputs[out] = {"dtype": dt, "shape": ["P7B", D]}
    wrong = 1 if WRONG == "extent_scalar" else 0
    b = "p7b"
    cap = r.randint(0, R)  # p7bsz * cap - p7b is below ln[b] on some batches (cap 0: never above 0)
    prog.body.append(M.Raw({"vec_tile": [R, D]}))
    prog.body.append(Scalar(["p7bsz", "p7d"], f"{w}.shape", lambda e: (e["dims"]["P7B"], D)))
    body = [Scalar(["p7s"], f"{lo}[{b}]", lambda e: (_elem(e, lo, e["dims"][b]),)),
            Scalar(["p7n"], f"max(0, min({ln}[{b}], p7bsz * {cap} - {b}))",
                   lambda e: (max(0, min(_elem(e, ln, e["dims"][b]), e["dims"]["p7bsz"] * cap - e["dims"][b])) + wrong,)),
            Scalar(["p7m"], f"ceildiv(p7n, {R})", lambda e: (M.ceil_div(e["dims"]["p7n"], R),))]
    blk = M.View(x, dt, [R, D], ["p7o", 0], [f"min({R}, p7n - p7j * {R})", D])
    inner = [Scalar(["p7o"], f"p7s + p7j * {R}", lambda e: (e["dims"]["p7s"] + e["dims"]["p7j"] * R,)),
             M.Bind("p7acc", M.Bin("+", M.Ref("p7acc", dt), M.Red("sum", blk, 0, True, dt), dt))]
    body.append(M.Loop("p7j", "p7m", inner, carry={"p7acc": M.Full([1, D], 0, dt)}))
    body.append(M.Assemble(out, [b, 0], M.Ref("p7acc", dt)))
    prog.body.append(M.Loop(b, "p7bsz", body))


def c_shape_dtype_args(r, prog, st, dt):
    R, D = r.randint(1, 20), r.choice([8, 16, 32, 64])
    st["n"] += 1
    x, o = f"p7in{st['n']}", f"p7out{st['n']}"
    prog.inputs[x] = {"dtype": dt, "shape": [R, D]}
    prog.kinds[x] = "normal"
    prog.outputs[o] = {"dtype": dt, "shape": [R, D]}
    c = r.choice([0.5, -1.25, 2.0])
    prog.body.append(M.Raw({"vec_tile": [r.choice([1, 4, 8, 16]), r.choice([8, 16, 32])]}))
    e = M.Bin("*", M.Cast(M.Ref(x, dt), "fp32"), M.Const(2.0, "fp32"), "fp32")
    e = ShapeReshape(e, x, [R, D], "fp32", wrong=WRONG == "shape_dtype_args")
    e = M.Bin("+", e, FullShape(x, [R, D], c, "fp32"), "fp32")
    prog.body.append(M.Assemble(o, [0, 0], CastDtype(e, x, dt)))


CONSTRUCTS = {"extent_scalar": c_extent_scalar, "shape_dtype_args": c_shape_dtype_args}


def program_hook(g, prog):
    """With probability PROB (its own stream): one symbolic7 construct at the end of the body."""
    drawn = hook_stream.draw(g, "symbolic7", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    dt = r.choice(FLOAT)
    CONSTRUCTS[kind](r, prog, {"n": 0}, dt)
    prog.symbolic7 = [kind]


def used(prog):
    return ["symbolic7_" + k for k in (getattr(prog, "symbolic7", None) or [])]
