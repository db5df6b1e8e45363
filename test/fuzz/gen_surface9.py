"""The fuzzer's hook for PyPTO's Python surface in statements (surf9, issue 13): statements at the end of the
body with their own inputs (`s9in...`) and outputs (`s9out...`), spelt as PyPTO's Python writes them, drawn
from their own stream (`surface9{seed}`, after every other hook), so every seed that draws nothing generates
what it did before. Per seed, with probability PROB, one of:

- `chain`: a Tensor method chain on an input (`x.reshape([..]).exp().mul(0.5).transpose(1, 0)...`), methods on
  parenthesised expressions and on call results, keyword arguments (`keepdim=True`), `pypto.` prefixes
  (`pypto.exp(x)`, `pypto.DT_FP32`), ending in a reduction method or not;
- `pow`: `**` with small integer and float exponents on positive inputs (`x ** 2`, `x ** -1`, `x ** 0.5`,
  `-x ** 2`, `2 ** x`, `x ** y`), exponents that fold (`2 ** -1`, a constant `n = 2 ** (bit - 1)`) and a folded
  constant used in a slice bound;
- `matmul`: `a @ b` on fp32 / fp16 / bf16 / int8 operands (PyPTO's __matmul__: the result has b's dtype, int32
  for int8), an operand an expression (`(a * 0.5) @ b.exp()` on floats).

The model computes each node in NumPy, rounded to its dtype per op (model.rnd) as the evaluator does. WRONG
(selftest only) breaks the model of the construct it names."""
import numpy as np

import model as M
from model import Value, rnd
import hook_stream  # noqa: E402

KINDS = ("chain", "pow", "matmul")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = None
PROB = 0.3

# PyPTO's precision_type on sqrt, in its spellings, picked by the operand's text (no draw: the stream stays):
# the same result in every mode.
PRECISIONS = ("", ", precision_type=pypto.PrecisionType.INTRINSIC", ", PrecisionType.HIGH_PRECISION",
              ", precision_type=INTRINSIC")


def _precision(op, operand_text):
    return PRECISIONS[len(operand_text) % len(PRECISIONS)] if op == "sqrt" else ""


UNARY_METHODS = ("exp", "sqrt", "sigmoid", "tanh", "relu", "reciprocal", "abs_free")  # abs is no Tensor method
REDUCE_METHODS = ("sum", "amax", "amin")


class S9(M.Node):
    """One node of the surface spelling: `text` is the PyPTO spelling, `fn` computes it from the children's
    arrays (each a float64 array rounded to its dtype), `valid` is the first child's unless given."""

    def __init__(self, text, kids, fn, dtype, shape_fn=None, wrong=False):
        self._text, self.kids, self.fn, self.dtype, self.shape_fn, self.wrong = text, list(kids), fn, dtype, shape_fn, wrong

    def children(self):
        return list(self.kids)

    def replace_child(self, i, new):
        self.kids[i] = new

    def text(self):
        return self._text(*[k.text() for k in self.kids])

    def ev(self, env):
        vals = [k.ev(env) for k in self.kids]
        with np.errstate(all="ignore"):
            r = self.fn(*[v.a for v in vals])
        r = rnd(np.asarray(r, np.float64), self.dtype)
        if self.wrong:
            r = r * 1.25 + 1
        valid = list(r.shape) if self.shape_fn is None else self.shape_fn(*[v.valid for v in vals])
        return Value(r, valid)


def _inp(st, prog, shape, dt, kind="normal"):
    st["n"] += 1
    n = f"s9in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"s9out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def _lit(v):
    return repr(float(v)) if not isinstance(v, int) else str(v)


def c_chain(r, st, prog):
    dt = r.choice(FLOAT)
    R, D = r.randint(1, 24), r.choice([8, 16, 32, 48])
    x = _inp(st, prog, [R, D], dt, "positive")
    wrong = WRONG == "chain"
    node = M.Ref(x, dt)
    shape = [R, D]
    pre = "pypto." if r.random() < 0.5 else ""
    for _ in range(r.randint(1, 4)):
        k = r.choice(["unary", "unary", "fn", "scale", "add", "transpose", "reshape", "paren"])
        if k == "unary":
            op = r.choice(["exp", "sqrt", "sigmoid", "tanh", "relu", "reciprocal"])
            f = M.UNARY[op] if op != "reciprocal" else (lambda a: 1.0 / a)
            if op == "exp":  # keep the values small: exp of a positive input of a chain can grow
                node = S9(lambda a: f"{a}.mul(0.25).exp()", [node], lambda a, d=dt: np.exp(rnd(a * 0.25, d)), dt)
            else:
                node = S9(lambda a, op=op: f"{a}.{op}()", [node], f, dt)
        elif k == "fn":  # a call result, then a method on it
            op = r.choice(["sqrt", "sigmoid", "tanh"])
            node = S9(lambda a, op=op: f"{pre}{op}({M.strip(a)}{_precision(op, a)}).add(1.0)", [node],
                      lambda a, op=op, d=dt: rnd(M.UNARY[op](a), d) + 1.0, dt)
        elif k == "scale":
            c = r.choice([0.5, 2.0, 1.5])
            m = r.choice(["mul", "div", "add", "sub"])
            f = {"mul": np.multiply, "div": np.divide, "add": np.add, "sub": np.subtract}[m]
            node = S9(lambda a, m=m, c=c: f"{a}.{m}({c})", [node], lambda a, f=f, c=c: f(a, c), dt)
        elif k == "add":  # a second input, by a method with a tensor argument
            y = _inp(st, prog, shape, dt, "positive")
            m = r.choice(["add", "mul", "sub"])
            f = {"mul": np.multiply, "add": np.add, "sub": np.subtract}[m]
            node = S9(lambda a, b, m=m: f"{a}.{m}({b})", [node, M.Ref(y, dt)], f, dt)
        elif k == "transpose":
            node = S9(lambda a: f"{a}.transpose(1, 0)", [node], lambda a: np.swapaxes(a, 0, 1).copy(), dt)
            shape = shape[::-1]
        elif k == "reshape":
            new = [shape[0] * shape[1] // 8, 8] if (shape[0] * shape[1]) % 8 == 0 else shape
            node = S9(lambda a, s=new: f"{a}.reshape([{s[0]}, {s[1]}])", [node],
                      lambda a, s=new: a.reshape(s), dt)
            shape = list(new)
        else:  # a method on a parenthesised expression
            node = S9(lambda a: f"({a} + 0.5).sqrt()", [node], lambda a, d=dt: np.sqrt(rnd(a + 0.5, d)), dt)
    if r.random() < 0.5:
        op = r.choice(REDUCE_METHODS)
        f = {"sum": np.sum, "amax": np.max, "amin": np.min}[op]
        kw = r.choice(["keepdim=True", "keepdim=true"])
        node = S9(lambda a, op=op: f"{a}.{op}(-1, {kw})", [node], lambda a, f=f: f(a, axis=-1, keepdims=True), dt)
        shape = [shape[0], 1]
    if wrong:
        node = S9(lambda a: a, [node], lambda a: a, dt, wrong=True)
    prog.body.append(M.Raw({"vec_tile": [r.choice([1, 4, 8, 16]), r.choice([8, 16, 32])]}))
    if r.random() < 0.5 and dt != "fp32":  # PyPTO's cast with the prefixed dtype
        out = _out(st, prog, shape, "fp32")
        node = S9(lambda a: f"{pre}cast({M.strip(a)}, pypto.DT_FP32)", [node], lambda a: a, "fp32")
    else:
        out = _out(st, prog, shape, dt)
    prog.body.append(M.Assemble(out, [0, 0], node))


def c_pow(r, st, prog):
    dt = r.choice(("fp32", "fp32", "fp16"))
    R, D = r.randint(1, 24), r.choice([8, 16, 32, 64])
    x = _inp(st, prog, [R, D], dt, "positive")
    wrong = WRONG == "pow"
    X = M.Ref(x, dt)
    prog.body.append(M.Raw({"vec_tile": [r.choice([1, 4, 8, 16]), r.choice([8, 16, 32, 64])]}))
    terms = []
    for _ in range(r.randint(1, 3)):
        k = r.choice(["int", "neg_int", "float", "neg_unary", "rpow", "fold", "const", "tensor"])
        if k == "int":
            e = r.choice([2, 3])
            terms.append(S9(lambda a, e=e: f"{a} ** {e}", [X], lambda a, e=e: np.power(a, e), dt))
        elif k == "neg_int":
            e = r.choice([-1, -2])
            terms.append(S9(lambda a, e=e: f"{a} ** {e}", [X], lambda a, e=e: np.power(a, float(e)), dt))
        elif k == "float":
            e = r.choice([0.5, 1.5, -0.5, 2.5])
            terms.append(S9(lambda a, e=e: f"{a} ** {e}", [X], lambda a, e=e: np.power(a, e), dt))
        elif k == "neg_unary":  # -x ** 2 is -(x ** 2)
            terms.append(S9(lambda a: f"-{a} ** 2", [X], lambda a, d=dt: -rnd(np.power(a, 2), d), dt))
        elif k == "rpow":
            b = r.choice([2, 0.5, 3])
            terms.append(S9(lambda a, b=b: f"{b} ** {a}", [X], lambda a, b=b: np.power(float(b), a), dt))
        elif k == "fold":  # the exponent folds: 2 ** -1 is 0.5, 2 ** 3 ** 0 is 2
            e, txt = r.choice([(0.5, "2 ** -1"), (2, "2 ** 3 ** 0"), (4, "(2 ** 2)")])
            terms.append(S9(lambda a, t=txt: f"{a} ** {t}" if t.startswith("(") else f"{a} * ({t})", [X],
                            (lambda a, e=e: np.power(a, e)) if txt.startswith("(") else (lambda a, e=e: a * e), dt))
        elif k == "const":  # PyPTO's n_levels = 2 ** (bit - 1): a constant binding, then a scalar operand
            st["n"] += 1
            name, bit = f"s9n{st['n']}", r.randint(1, 4)
            prog.body.append(M.Raw(f"{name} = 2 ** ({bit} - 1)"))
            terms.append(S9(lambda a, n=name: f"{a} * {n}", [X], lambda a, v=2 ** (bit - 1): a * v, dt))
        else:  # tensor ** tensor, a small exponent tensor
            y = _inp(st, prog, [R, D], dt, "small")
            terms.append(S9(lambda a, b: f"{a} ** {b}", [X, M.Ref(y, dt)], lambda a, b: np.power(a, b), dt))
    node = terms[0]
    for t in terms[1:]:
        node = S9(lambda a, b: f"{a} + {b}", [node, t], np.add, dt)
    if wrong:
        node = S9(lambda a: a, [node], lambda a: a, dt, wrong=True)
    out = _out(st, prog, [R, D], dt)
    if r.random() < 0.3:  # a folded constant as a slice bound: x[:, 0:2 ** k]
        k = {8: 3, 16: 4, 32: 5, 64: 6}[D]
        node = S9(lambda a, k=k: f"({a})[:, 0:2 ** {k}]", [node], lambda a: a, dt)
    prog.body.append(M.Assemble(out, [0, 0], node))


def c_matmul(r, st, prog):
    dt = r.choice(("fp32", "fp16", "bf16", "int8"))
    out_dt = "int32" if dt == "int8" else dt
    Mm, K, N = r.choice([1, 8, 16, 20, 32]), r.choice([16, 32, 64]) if dt != "int8" else r.choice([32, 64]), \
        r.choice([16, 32, 48, 64])
    a = _inp(st, prog, [Mm, K], dt, "small")
    b = _inp(st, prog, [K, N], dt, "small")
    A, B = M.Ref(a, dt), M.Ref(b, dt)
    wrong = WRONG == "matmul"
    kl0 = 32 if dt == "int8" else 16
    prog.body.append(M.Raw({"vec_tile": [r.choice([1, 8, 16]), r.choice([16, 32, 64])]}))
    prog.body.append(M.Raw({"cube_tile": {"m": [16, 16], "k": [kl0, K], "n": [16, N if N % 16 == 0 else 16]}}))
    if dt != "int8" and r.random() < 0.5:
        lhs = S9(lambda x: f"({x} * 0.5)", [A], lambda x: x * 0.5, dt)
    else:
        lhs = A
    rhs = B
    if dt != "int8" and r.random() < 0.3:
        rhs = S9(lambda x: f"{x}.mul(2.0)", [B], lambda x: x * 2.0, dt)
    node = S9(lambda x, y: f"({x} @ {y})", [lhs, rhs], lambda x, y: np.matmul(x, y), out_dt)
    if wrong:
        node = S9(lambda x: x, [node], lambda x: x, out_dt, wrong=True)
    out = _out(st, prog, [Mm, N], out_dt)
    prog.body.append(M.Assemble(out, [0, 0], node))


CONSTRUCTS = {"chain": c_chain, "pow": c_pow, "matmul": c_matmul}


def program_hook(g, prog):
    """With probability PROB (its own stream): one surface9 construct at the end of the body."""
    drawn = hook_stream.draw(g, "surface9", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    CONSTRUCTS[kind](r, {"n": 0}, prog)
    prog.surface9 = [kind]


def used(prog):
    return ["surface9_" + k for k in (getattr(prog, "surface9", None) or [])]
