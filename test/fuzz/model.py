"""The generated program as a tree: each node prints itself as spec text and evaluates itself in NumPy.

Written for the fuzzer from spec-language.md and specs/README.md alone (nothing shared with the
evaluator): every value is a float64 array of its full static shape plus its valid extents; padding
is NaN, so a model that let padding into a reduction or an output would show it. Results are rounded
to the op's dtype after every op (numerics.rnd, test/conformance/numerics.py).
"""
import os
import sys

import math

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from numerics import rnd, cast as np_cast, idiv, sigmoid, gelu, FLOATS  # noqa: E402


class ModelError(Exception):
    """The generated program does something the model cannot define (the generator's bug)."""


def ceil_div(a, b):
    return -(-a // b)


def dim_eval(text, env):
    if isinstance(text, int):
        return text
    return int(eval(str(text), {"__builtins__": {}}, dict(env, ceil_div=ceil_div, min=min, max=max)))


class Value:
    __slots__ = ("a", "valid")

    def __init__(self, a, valid):
        self.a = a
        self.valid = tuple(int(v) for v in valid)

    def masked(self):
        """The array with everything outside the valid box set to NaN."""
        out = np.full(self.a.shape, np.nan)
        box = tuple(slice(0, v) for v in self.valid)
        out[box] = self.a[box]
        return out


# ---------------------------------------------------------------- expressions
class Node:
    dtype = None

    def children(self):
        return []

    def replace_child(self, i, new):
        raise NotImplementedError


class Const(Node):
    def __init__(self, value, dtype):
        self.value, self.dtype = value, dtype

    def text(self):
        v = self.value
        return str(v) if isinstance(v, int) else repr(float(v))

    def ev(self, env):
        return None  # broadcast scalar, handled by Bin


class Ref(Node):
    """A bound value or a whole GM tensor by name."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def text(self):
        return self.name

    def ev(self, env):
        v = env["values"].get(self.name)
        if v is not None:
            return v
        t = env["tensors"][self.name]
        return Value(t.copy(), t.shape)


class Slice(Node):
    """tensor[s0:e0, ...] with start and stop dim expressions (window clipping gives the tail)."""

    def __init__(self, tensor, dtype, starts, stops):
        self.tensor, self.dtype, self.starts, self.stops = tensor, dtype, list(starts), list(stops)

    def text(self):
        return f"{self.tensor}[" + ", ".join(f"{s}:{e}" for s, e in zip(self.starts, self.stops)) + "]"

    def ev(self, env):
        t = env["tensors"][self.tensor]
        s = [dim_eval(x, env["dims"]) for x in self.starts]
        e = [dim_eval(x, env["dims"]) for x in self.stops]
        shape = [b - a for a, b in zip(s, e)]
        out = np.full(shape, np.nan)
        valid = []
        for ax, (a, b) in enumerate(zip(s, e)):
            if a >= t.shape[ax]:
                raise ModelError(f"window start {a} past extent {t.shape[ax]} of {self.tensor}")
            valid.append(min(b, t.shape[ax]) - a)
        box = tuple(slice(a, a + v) for a, v in zip(s, valid))
        out[tuple(slice(0, v) for v in valid)] = t[box]
        return Value(out, valid)


class View(Node):
    def __init__(self, tensor, dtype, shape, offsets, valid):
        self.tensor, self.dtype, self.shape, self.offsets, self.valid = tensor, dtype, list(shape), list(offsets), valid

    def text(self):
        s = f"view({self.tensor}, [{', '.join(map(str, self.shape))}], [{', '.join(map(str, self.offsets))}]"
        if self.valid is not None:
            s += f", valid=[{', '.join(map(str, self.valid))}]"
        return s + ")"

    def ev(self, env):
        t = env["tensors"][self.tensor]
        d = env["dims"]
        shape = [dim_eval(x, d) for x in self.shape]
        off = [dim_eval(x, d) for x in self.offsets]
        valid = [min(n, ext - o) for n, ext, o in zip(shape, t.shape, off)]
        if self.valid is not None:
            valid = [min(v, dim_eval(x, d)) for v, x in zip(valid, self.valid)]
        if any(v <= 0 for v in valid):
            raise ModelError("view with an empty valid box")
        out = np.full(shape, np.nan)
        out[tuple(slice(0, v) for v in valid)] = t[tuple(slice(o, o + v) for o, v in zip(off, valid))]
        return Value(out, valid)


BIN_TEXT = {"+": "+", "-": "-", "*": "*", "/": "/"}
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")


def bitwise(op, x, y):
    """Two's complement on the (sign-extended) integer values; NaN padding stays NaN; rnd() wraps."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    bad = np.isnan(x) | np.isnan(y)
    xi = np.where(bad, 0, x).astype(np.int64)
    yi = np.where(bad, 0, y).astype(np.int64)
    r = {"bitwise_and": xi & yi, "bitwise_or": xi | yi, "bitwise_xor": xi ^ yi}[op].astype(np.float64)
    r[bad] = np.nan
    return r


class Bin(Node):
    def __init__(self, op, a, b, dtype, fn_form=False):
        self.op, self.a, self.b, self.dtype, self.fn_form = op, a, b, dtype, fn_form

    def children(self):
        return [self.a, self.b]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        else:
            self.b = new

    def text(self):
        if self.op in ("maximum", "minimum") or self.op in BITWISE or self.fn_form:
            name = {"+": "add", "-": "sub", "*": "mul", "/": "div"}.get(self.op, self.op)
            return f"{name}({self.a.text()}, {self.b.text()})"
        return f"({self.a.text()} {self.op} {self.b.text()})"

    def ev(self, env):
        va = self.a.ev(env)
        vb = self.b.ev(env)
        if va is None:  # literal first
            x = rnd(self.a.value, self.dtype)
            y, valid = vb.a, vb.valid
        elif vb is None:
            x, valid = va.a, va.valid
            y = rnd(self.b.value, self.dtype)
        else:
            x, y = va.a, vb.a
            nd = max(x.ndim, y.ndim)
            sa = (1,) * (nd - x.ndim) + x.shape
            sb = (1,) * (nd - y.ndim) + y.shape
            vla = (1,) * (nd - x.ndim) + va.valid
            vlb = (1,) * (nd - y.ndim) + vb.valid
            valid = []
            for ea, eb, wa, wb in zip(sa, sb, vla, vlb):
                if ea == 1 and eb != 1:
                    valid.append(wb)
                elif eb == 1 and ea != 1:
                    valid.append(wa)
                else:
                    valid.append(min(wa, wb))
            x, y = x.reshape(sa), y.reshape(sb)
        with np.errstate(all="ignore"):
            if self.op == "+":
                r = x + y
            elif self.op == "-":
                r = x - y
            elif self.op == "*":
                r = x * y
            elif self.op == "/":
                r = x / y if self.dtype in FLOATS else idiv(x, y)
            elif self.op == "maximum":
                r = np.maximum(x, y)
            elif self.op == "minimum":
                r = np.minimum(x, y)
            elif self.op in BITWISE:
                r = bitwise(self.op, x, y)
            else:
                raise ModelError(self.op)
        r = rnd(r, self.dtype)
        if va is None or vb is None:
            return Value(r, valid)
        return Value(r, valid)


UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "abs": np.abs,
    "neg": np.negative, "reciprocal": lambda x: 1.0 / x, "relu": lambda x: np.maximum(x, 0.0),
    "sigmoid": sigmoid, "tanh": np.tanh, "gelu": gelu, "silu": lambda x: x * sigmoid(x),
    "sin": np.sin, "cos": np.cos, "erf": np.vectorize(math.erf, otypes=[np.float64]), "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "sign": np.sign,
    "bitwise_not": lambda x: -x - 1.0,  # ~x of a two's complement integer (uint8: 255 - x after the wrap)
}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}


class Where(Node):
    """where(cmp(a, b), x, y), all four of one shape: the comparison in the operands' dtype."""

    def __init__(self, cmp, a, b, x, y, dtype, logic=None):
        # logic: None, ("logical_not",) or ("logical_and" | "logical_or", cmp2): cmp2(b, a) is the second
        # condition, so the logical ops are generated over the same exact operands.
        self.cmp, self.a, self.b, self.x, self.y, self.dtype, self.logic = cmp, a, b, x, y, dtype, logic

    def children(self):
        return [self.a, self.b, self.x, self.y]

    def replace_child(self, i, new):
        setattr(self, "abxy"[i], new)

    def cond_text(self):
        c = f"{self.cmp}({self.a.text()}, {self.b.text()})"
        if not self.logic:
            return c
        if self.logic[0] == "logical_not":
            return f"logical_not({c})"
        return f"{self.logic[0]}({c}, {self.logic[1]}({self.b.text()}, {self.a.text()}))"

    def text(self):
        return f"where({self.cond_text()}, {self.x.text()}, {self.y.text()})"

    def ev(self, env):
        va, vb, vx, vy = (n.ev(env) for n in (self.a, self.b, self.x, self.y))
        valid = [min(w) for w in zip(va.valid, vb.valid, vx.valid, vy.valid)]
        with np.errstate(all="ignore"):
            c = COMPARE[self.cmp](va.a, vb.a)
            if self.logic and self.logic[0] == "logical_not":
                c = np.logical_not(c)
            elif self.logic:
                c2 = COMPARE[self.logic[1]](vb.a, va.a)
                c = np.logical_and(c, c2) if self.logic[0] == "logical_and" else np.logical_or(c, c2)
            r = np.where(c, vx.a, vy.a)
        return Value(rnd(r, self.dtype), valid)


class Un(Node):
    def __init__(self, op, a, dtype):
        self.op, self.a, self.dtype = op, a, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"{self.op}({self.a.text()})"

    def ev(self, env):
        v = self.a.ev(env)
        with np.errstate(all="ignore"):
            r = UNARY[self.op](v.a)
        return Value(rnd(r, self.dtype), v.valid)


class Red(Node):
    def __init__(self, op, a, axis, keepdim, dtype):
        self.op, self.a, self.axis, self.keepdim, self.dtype = op, a, axis, keepdim, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        k = ", keepdim=true" if self.keepdim else ""
        return f"{self.op}({self.a.text()}, {self.axis}{k})"

    def var(self, data, ax):
        """var(x, dim) as the front end composes it (correction 1): every step rounded to the dtype."""
        n = data.shape[ax]
        m = rnd(data.sum(axis=ax, keepdims=True) / n, self.dtype)
        d = rnd(data - m, self.dtype)
        sq = rnd(d * d, self.dtype)
        return rnd(sq.sum(axis=ax, keepdims=True), self.dtype) / (n - 1)

    def ev(self, env):
        v = self.a.ev(env)
        ax = self.axis % v.a.ndim
        box = tuple(slice(0, n) for n in v.valid)
        data = v.a[box]
        with np.errstate(all="ignore"):
            if self.op == "sum":
                r = data.sum(axis=ax, keepdims=True)
            elif self.op == "mean":
                r = data.sum(axis=ax, keepdims=True) / data.shape[ax]
            elif self.op == "prod":
                r = data.prod(axis=ax, keepdims=True)
            elif self.op == "var":
                r = self.var(data, ax)
            elif self.op == "amax":
                r = data.max(axis=ax, keepdims=True)
            else:
                r = data.min(axis=ax, keepdims=True)
        shape = list(v.a.shape)
        shape[ax] = 1
        out = np.full(shape, np.nan)
        valid = list(v.valid)
        valid[ax] = 1
        out[tuple(slice(0, n) for n in valid)] = rnd(r, self.dtype)
        if not self.keepdim:
            out = out.reshape([n for i, n in enumerate(shape) if i != ax])
            valid = [n for i, n in enumerate(valid) if i != ax]
        return Value(out, valid)


class Cast(Node):
    def __init__(self, a, dtype):
        self.a, self.dtype = a, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"cast({self.a.text()}, {self.dtype})"

    def ev(self, env):
        v = self.a.ev(env)
        with np.errstate(all="ignore"):
            r = np_cast(np.nan_to_num(v.a, nan=0.0), self.a.dtype, self.dtype)
        out = np.full(v.a.shape, np.nan)
        box = tuple(slice(0, n) for n in v.valid)
        out[box] = r[box]
        return Value(out, v.valid)


class Matmul(Node):
    def __init__(self, a, b, dtype, trans_a=False, trans_b=False):
        self.a, self.b, self.dtype, self.trans_a, self.trans_b = a, b, dtype, trans_a, trans_b

    def children(self):
        return [self.a, self.b]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        else:
            self.b = new

    def text(self):
        s = f"matmul({self.a.text()}, {self.b.text()}"
        if self.dtype != "fp32":
            s += f", out_dtype={self.dtype}"
        if self.trans_a:
            s += ", trans_a=true"
        if self.trans_b:
            s += ", trans_b=true"
        return s + ")"

    def ev(self, env):
        va, vb = self.a.ev(env), self.b.ev(env)
        a, b = np.nan_to_num(va.masked(), nan=0.0), np.nan_to_num(vb.masked(), nan=0.0)
        wa, wb = list(va.valid), list(vb.valid)
        if self.trans_a:
            a = np.swapaxes(a, -1, -2)
            wa[-1], wa[-2] = wa[-2], wa[-1]
        if self.trans_b:
            b = np.swapaxes(b, -1, -2)
            wb[-1], wb[-2] = wb[-2], wb[-1]
        r = np.matmul(a, b)
        valid = [max(x, y) for x, y in zip(wa[:-2], wb[:-2])] + [wa[-2], wb[-1]]
        out = np.full(r.shape, np.nan)
        box = tuple(slice(0, n) for n in valid)
        out[box] = rnd(r, self.dtype)[box]
        return Value(out, valid)


class Transpose(Node):
    def __init__(self, a, d0, d1, dtype):
        self.a, self.d0, self.d1, self.dtype = a, d0, d1, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"transpose({self.a.text()}, {self.d0}, {self.d1})"

    def ev(self, env):
        v = self.a.ev(env)
        valid = list(v.valid)
        valid[self.d0], valid[self.d1] = valid[self.d1], valid[self.d0]
        return Value(np.swapaxes(v.a, self.d0, self.d1).copy(), valid)


class Reshape(Node):
    """Only of fully valid values (the generator guarantees it)."""

    def __init__(self, a, shape, dtype, inplace=False):
        self.a, self.shape, self.dtype, self.inplace = a, list(shape), dtype, inplace

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"reshape({self.a.text()}, [{', '.join(map(str, self.shape))}]" + (", inplace=true)" if self.inplace else ")")

    def ev(self, env):
        v = self.a.ev(env)
        if tuple(v.valid) != v.a.shape:
            raise ModelError("reshape of a partially valid value")
        return Value(v.a.reshape(self.shape).copy(), self.shape)


class Concat(Node):
    def __init__(self, parts, dim, dtype):
        self.parts, self.dim, self.dtype = list(parts), dim, dtype

    def children(self):
        return list(self.parts)

    def replace_child(self, i, new):
        self.parts[i] = new

    def text(self):
        return f"concat([{', '.join(p.text() for p in self.parts)}], {self.dim})"

    def ev(self, env):
        vs = [p.ev(env) for p in self.parts]
        d = self.dim
        r = np.concatenate([v.a for v in vs], axis=d)
        valid = [min(v.valid[i] for v in vs) for i in range(r.ndim)]
        valid[d] = sum(v.a.shape[d] for v in vs[:-1]) + vs[-1].valid[d]
        return Value(r, valid)


class Full(Node):
    def __init__(self, shape, value, dtype):
        self.shape, self.value, self.dtype = list(shape), value, dtype

    def text(self):
        return f"full([{', '.join(map(str, self.shape))}], {self.value}, {self.dtype})"

    def ev(self, env):
        shape = [dim_eval(x, env["dims"]) for x in self.shape]
        return Value(np.full(shape, rnd(self.value, self.dtype)), shape)


# ---------------------------------------------------------------- statements
class Stmt:
    def items(self):
        """Nested statement lists (for the shrinker)."""
        return []


class Bind(Stmt):
    def __init__(self, name, expr):
        self.name, self.expr = name, expr

    def emit(self):
        return f"{self.name} = {strip(self.expr.text())}"

    def run(self, env):
        env["values"][self.name] = self.expr.ev(env)


class Assemble(Stmt):
    def __init__(self, tensor, offsets, expr):
        self.tensor, self.offsets, self.expr = tensor, list(offsets), expr

    def emit(self):
        return f"{self.tensor}[{', '.join(f'{o}:' for o in self.offsets)}] = {strip(self.expr.text())}"

    def run(self, env):
        v = self.expr.ev(env)
        t = env["tensors"][self.tensor]
        off = [dim_eval(o, env["dims"]) for o in self.offsets]
        if v.a.ndim != t.ndim:
            raise ModelError("assemble rank")
        for o, ext in zip(off, t.shape):
            if o >= ext:
                raise ModelError("assemble start past the end")
        n = [min(w, ext - o) for w, ext, o in zip(v.valid, t.shape, off)]
        t[tuple(slice(o, o + k) for o, k in zip(off, n))] = v.a[tuple(slice(0, k) for k in n)]


class Raw(Stmt):
    """A setting statement (vec_tile, cube_tile, label, stateful scope, cache_policy): no numerics."""

    def __init__(self, obj):
        self.obj = obj

    def emit(self):
        return self.obj

    def run(self, env):
        pass


class Block(Stmt):
    """scope with a body, or an if whose branches only hold settings: the body runs in place."""

    def __init__(self, head, body, key="body"):
        self.head, self.body, self.key = head, body, key

    def items(self):
        return [self.body]

    def emit(self):
        d = dict(self.head)
        d[self.key] = [s.emit() for s in self.body]
        return d

    def run(self, env):
        for s in self.body:
            s.run(env)


class Loop(Stmt):
    def __init__(self, var, count, body, kind="dynamic", unroll=None, factor=None, name=None, carry=None):
        self.var, self.count, self.body, self.kind, self.unroll, self.factor, self.name = \
            var, count, body, kind, unroll, factor, name
        self.carry = carry or {}  # name -> initial-value node: `carry: {...}` (specs/README.md)

    def items(self):
        return [self.body]

    def emit(self):
        h = {"var": self.var, "count": self.count}
        if self.kind != "dynamic":
            h["kind"] = self.kind
        if self.unroll:
            h["unroll"] = list(self.unroll)
            if self.factor:
                h["factor"] = self.factor
        if self.name:
            h["name"] = self.name
        if self.carry:
            h["carry"] = {n: strip(e.text()) for n, e in self.carry.items()}
        return {"loop": h, "body": [s.emit() for s in self.body]}

    def run(self, env):
        n = dim_eval(self.count, env["dims"])
        gears = sorted(set((self.unroll or []) + [1]), reverse=True)
        i = 0
        carried = {c: e.ev(env) for c, e in self.carry.items()}
        saved = dict(env["values"])
        env["values"].update(carried)
        while i < n:
            k = next(g for g in gears if g <= n - i) if self.unroll else 1
            env["dims"][self.var] = i
            if self.factor:
                env["dims"][self.factor] = k
            for s in self.body:
                s.run(env)
            i += k
        env["dims"].pop(self.var, None)
        if self.factor:
            env["dims"].pop(self.factor, None)
        carried = {c: env["values"][c] for c in self.carry}
        env["values"] = saved  # loop-local names end with the loop; carried ones hold the last value
        env["values"].update(carried)


def strip(t):
    """Drop one pair of outer parentheses the Bin printer adds."""
    if t.startswith("(") and t.endswith(")"):
        depth = 0
        for i, c in enumerate(t):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i != len(t) - 1:
                return t
        return t[1:-1]
    return t


def run_program(body, dims, tensors):
    """Runs the statements; `tensors` (name -> float64 array) is updated in place and returned."""
    env = {"dims": dict(dims), "tensors": tensors, "values": {}}
    for s in body:
        s.run(env)
    return tensors
