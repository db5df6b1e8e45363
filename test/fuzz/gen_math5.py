"""The fuzzer's hook for mathops5's ops (specs/README.md section 8): one statement at the end of the body with its
own inputs (`m5in...`) and outputs (`m5out...`), drawn from its own stream (`math5{seed}`), so the rest of every
seed's program is unchanged. Per seed, with probability PROB, one of:

- `unary`: one of acos asin atan acosh asinh atanh sinh cosh tan cbrt erfc of a float input (acos / asin /
  atanh of a small input: a few NaN outside [-1, 1]; acosh of abs(x) + 1), or signbit of a float or int input;
- `binary`: atan2 fmod remainder floor_div of floats, remainder floor_div ceil_div gcd and the shifts of ints
  (divisors with zeros, shift counts past the width), a tensor or a literal second operand, or a [R, 1]
  broadcast one;
- `compose`: prelu, axpy_ or expand_exp_dif.

The model restates the ops' rules in NumPy (each op rounded to its dtype). WRONG (a selftest) breaks it."""
import math

import numpy as np

import model as M
from model import ModelError, Value, rnd
import hook_stream  # noqa: E402

KINDS = ("unary", "binary", "compose")
FLOAT = ("fp32", "fp16", "bf16")
UNARY = ("acos", "asin", "atan", "acosh", "asinh", "atanh", "sinh", "cosh", "tan", "cbrt", "erfc", "signbit")
FLOAT_BINARY = ("atan2", "fmod", "remainder", "floor_div")
INT_BINARY = ("remainder", "floor_div", "ceil_div", "gcd", "bitwise_left_shift", "bitwise_right_shift")
FORCE = None
WRONG = False
PROB = 0.3


def _i64(x):
    return np.asarray(x).astype(np.int64)


def _fdiv_i(a, b):
    a, b = _i64(a), _i64(b)
    return np.where(b == 0, 0, np.floor_divide(a, np.where(b == 0, 1, b))).astype(np.float64)


def ev_unary(fn, x):
    with np.errstate(all="ignore"):
        if fn == "signbit":
            return (np.signbit(x) & ~np.isnan(x)).astype(np.float64)
        if fn == "erfc":
            return np.vectorize(math.erfc, otypes=[np.float64])(x)
        return {"acos": np.arccos, "asin": np.arcsin, "atan": np.arctan, "acosh": np.arccosh, "asinh": np.arcsinh,
                "atanh": np.arctanh, "sinh": np.sinh, "cosh": np.cosh, "tan": np.tan, "cbrt": np.cbrt}[fn](x)


def ev_binary(fn, a, b, integer):
    with np.errstate(all="ignore"):
        if not integer:
            if fn == "atan2":
                return np.arctan2(a, b)
            if fn == "fmod":
                return np.fmod(a, b)
            if fn == "remainder":
                return np.remainder(a, b)
            if fn == "floor_div":
                return np.floor(np.float32(a) / np.float32(b)).astype(np.float64)
            raise ModelError(fn)
        x, y = _i64(a), _i64(b)
        safe = np.where(y == 0, 1, y)
        if fn == "remainder":
            return np.where(y == 0, 0, np.remainder(x, safe)).astype(np.float64)
        if fn == "floor_div":
            return _fdiv_i(x, y)
        if fn == "ceil_div":
            return np.where(y == 0, 0, -np.floor_divide(-x, safe)).astype(np.float64)
        if fn == "gcd":
            return np.gcd(x, y).astype(np.float64)
        if fn == "bitwise_left_shift":
            ok = (y >= 0) & (y < 32)
            v = np.left_shift(x, np.where(ok, y, 0)) & 0xFFFFFFFF
            return np.where(ok, np.where(v >= 2 ** 31, v - 2 ** 32, v), 0).astype(np.float64)
        if fn == "bitwise_right_shift":
            ok = (y >= 0) & (y < 64)
            return np.where(ok, np.right_shift(x, np.where(ok, y, 0)), np.where(x < 0, -1, 0)).astype(np.float64)
        raise ModelError(fn)


class Math5(M.Node):
    """One mathops5 call over built operands (a literal second operand is a Const)."""

    def __init__(self, fn, args, dtype, out_dtype=None, alpha=None, wrong=False):
        self.fn, self.args, self.dtype, self.alpha, self.wrong = fn, list(args), dtype, alpha, wrong
        self.out_dtype = out_dtype or dtype

    def children(self):
        return [a for a in self.args if not isinstance(a, M.Const)]

    def replace_child(self, i, new):
        idx = [k for k, a in enumerate(self.args) if not isinstance(a, M.Const)]
        self.args[idx[i]] = new

    def text(self):
        a = ", ".join(M.strip(x.text()) for x in self.args)
        if self.alpha is not None:
            a += f", alpha={self.alpha}"
        t = f"{self.fn}({a})"
        return f"cast({t}, {self.out_dtype})" if self.fn == "signbit" else t

    def ev(self, env):
        vals = []
        for x in self.args:
            if isinstance(x, M.Const):
                vals.append(None)
            else:
                vals.append(x.ev(env))
        ts = [v for v in vals if v is not None]
        valid = list(ts[0].valid)  # the first operand has the result's shape; the others broadcast to it
        shape = np.broadcast_shapes(*[v.a.shape for v in ts])
        ops = [np.broadcast_to(v.a, shape) if v is not None else float(rnd(np.float64(x.value), self.dtype))
               for v, x in zip(vals, self.args)]
        dt, integer = self.dtype, self.dtype not in FLOAT
        with np.errstate(all="ignore"):
            if self.fn in UNARY:
                r = ev_unary(self.fn, ops[0])
                r = rnd(r, "bool") if self.fn == "signbit" else rnd(r, dt)
                if self.fn == "signbit":
                    r = rnd(r, self.out_dtype)
            elif self.fn == "prelu":
                r = np.where(ops[0] >= 0, ops[0], rnd(ops[0] * ops[1], dt))
            elif self.fn == "axpy_":
                xs = ops[1] if self.alpha in (None, 1) else rnd(ops[1] * float(rnd(np.float64(self.alpha), dt)), dt)
                r = rnd(ops[0] + xs, dt)
            elif self.fn == "expand_exp_dif":
                r = rnd(np.exp(rnd(ops[0] - ops[1], dt)), dt)
            else:
                r = rnd(ev_binary(self.fn, ops[0], ops[1], integer), dt)
        if self.wrong:
            r = r + 1
        return Value(np.array(r, np.float64), valid)


def _inp(st, prog, shape, dt, kind=None):
    st["n"] += 1
    n = f"m5in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind or ("normal" if dt in FLOAT else "small")
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"m5out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def construct(r, prog, kind):
    st = {"n": 0}
    R, D = r.randint(1, 20), r.choice([8, 16, 24, 40, 64])
    prog.body.append(M.Raw({"vec_tile": [r.choice([1, 4, 8, 16]), r.choice([8, 16, 32])]}))
    if kind == "unary":
        fn = r.choice(UNARY)
        dt = r.choice(FLOAT + (("int32", "int8") if fn == "signbit" else ()))
        x = _inp(st, prog, [R, D], dt, "small" if fn in ("acos", "asin", "atanh") or dt not in FLOAT else None)
        a = M.Ref(x, dt)
        if fn == "acosh":
            a = M.Bin("+", M.Un("abs", a, dt), M.Const(1, dt), dt)
        if fn == "signbit":
            out_dt = "fp32" if dt in FLOAT else "int32"
            node = Math5(fn, [a], dt, out_dtype=out_dt, wrong=WRONG)
            o = _out(st, prog, [R, D], out_dt)
        else:
            node = Math5(fn, [a], dt, wrong=WRONG)
            o = _out(st, prog, [R, D], dt)
    elif kind == "binary":
        dt = r.choice(FLOAT + ("int32", "int8", "uint8"))
        fns = FLOAT_BINARY if dt in FLOAT else INT_BINARY
        fn = r.choice(fns)
        if dt in ("int8", "uint8") and fn in ("remainder", "ceil_div"):
            fn = "floor_div"
        x = _inp(st, prog, [R, D], dt)
        shifts = fn.startswith("bitwise")
        form = r.choice(["tensor", "literal", "column"])
        if form == "literal":
            c = r.choice([2, 3, 5, 7] if not shifts else [0, 1, 3, 7, 9, 33]) if dt not in FLOAT else \
                r.choice([0.5, -1.5, 2, 0.75])
            b = M.Const(c, dt)
        else:
            y = _inp(st, prog, [R, D] if form == "tensor" else [R, 1], dt,
                     "range:-2:40" if shifts and dt == "int32" else ("range:0:12" if shifts else None))
            b = M.Ref(y, dt)
        node = Math5(fn, [M.Ref(x, dt), b], dt, wrong=WRONG)
        o = _out(st, prog, [R, D], dt)
    else:
        fn = r.choice(["prelu", "axpy_", "expand_exp_dif"])
        dt = r.choice(("fp32", "fp16") if fn == "axpy_" else FLOAT)
        x = _inp(st, prog, [R, D], dt)
        if fn == "prelu":
            w = _inp(st, prog, [D], dt)
            node = Math5(fn, [M.Ref(x, dt), M.Ref(w, dt)], dt, wrong=WRONG)
        elif fn == "axpy_":
            y = _inp(st, prog, [R, r.choice([1, D])], dt)
            node = Math5(fn, [M.Ref(x, dt), M.Ref(y, dt)], dt, alpha=r.choice([None, 2, 0.5, -1.5]), wrong=WRONG)
        else:
            y = _inp(st, prog, [R, 1], dt)
            node = Math5(fn, [M.Bin("*", M.Ref(x, dt), M.Const(0.5, dt), dt), M.Ref(y, dt)], dt, wrong=WRONG)
        o = _out(st, prog, [R, D], dt)
    prog.body.append(M.Assemble(o, [0, 0], node))


def program_hook(g, prog):
    """With probability PROB (its own stream): one mathops5 statement at the end of the body."""
    drawn = hook_stream.draw(g, "math5", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.math5 = [kind]


def used(prog):
    return ["math5_" + k for k in (getattr(prog, "math5", None) or [])]
