"""Model nodes of PyPTO's composition ops for the fuzzer (gen.py's catalog hook): each computes what
specs/README.md "PyPTO's composition ops" defines, step by step, rounding after every step as PyPTO's
operator.py does (in fp32, cast back to the input's dtype)."""
import numpy as np

from model import Node, Value, rnd


class Softmax(Node):
    def __init__(self, a, dim, dtype):
        self.a, self.dim, self.dtype = a, dim, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"softmax({self.a.text()}, {self.dim})"

    def ev(self, env):
        v = self.a.ev(env)
        f = "fp32"
        with np.errstate(all="ignore"):
            x = rnd(v.a, f)
            m = np.max(x, axis=self.dim, keepdims=True)
            e = rnd(np.exp(rnd(x - m, f)), f)
            s = rnd(e.sum(axis=self.dim, keepdims=True), f)
            return Value(rnd(rnd(e / s, f), self.dtype), v.valid)


class RmsNorm(Node):
    def __init__(self, a, eps, dtype):
        self.a, self.eps, self.dtype = a, eps, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"rms_norm({self.a.text()}, epsilon={self.eps!r})"

    def ev(self, env):
        v = self.a.ev(env)
        f = "fp32"
        n = v.a.shape[-1]
        with np.errstate(all="ignore"):
            x = rnd(v.a, f)
            s = rnd(rnd(rnd(x * x, f) * rnd(1.0 / n, f), f).sum(axis=-1, keepdims=True), f)
            r = rnd(np.sqrt(rnd(s + rnd(self.eps, f), f)), f)
            return Value(rnd(rnd(x / r, f), self.dtype), v.valid)


class ExpandClone(Node):
    """expand_clone(a, shape) of an operand whose stretched axes are 1."""

    def __init__(self, a, shape, dtype):
        self.a, self.shape, self.dtype = a, list(shape), dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"expand_clone({self.a.text()}, [{', '.join(map(str, self.shape))}])"

    def ev(self, env):
        v = self.a.ev(env)
        shape = list(self.shape)
        valid = [s if n == 1 and s != 1 else vv for s, n, vv in zip(shape, v.a.shape, v.valid)]
        return Value(np.broadcast_to(v.a, shape).copy(), valid)


class Permute(Node):
    def __init__(self, a, perm, dtype):
        self.a, self.perm, self.dtype = a, list(perm), dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"permute({self.a.text()}, [{', '.join(map(str, self.perm))}])"

    def ev(self, env):
        v = self.a.ev(env)
        return Value(np.transpose(v.a, self.perm).copy(), [v.valid[p] for p in self.perm])


class Scan(Node):
    """cumsum / cumprod as ptoc writes them: log-step shifts, rounding after every step."""

    def __init__(self, op, a, dim, dtype):
        self.op, self.a, self.dim, self.dtype = op, a, dim, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"{self.op}({self.a.text()}, {self.dim})"

    def ev(self, env):
        v = self.a.ev(env)
        y = v.a.copy()
        ax = self.dim % y.ndim
        n = y.shape[ax]
        ident = 0.0 if self.op == "cumsum" else 1.0
        s = 1
        with np.errstate(all="ignore"):
            while s < n:
                pad_shape = list(y.shape)
                pad_shape[ax] = s
                head = np.take(y, range(0, n - s), axis=ax)
                shifted = np.concatenate([np.full(pad_shape, ident), head], axis=ax)
                y = rnd(y + shifted if self.op == "cumsum" else y * shifted, self.dtype)
                s *= 2
        return Value(y, v.valid)


class TriMask(Node):
    """tril / triu on the last two axes: x where column - row <= (>=) diagonal, else 0."""

    def __init__(self, op, a, diagonal, dtype):
        self.op, self.a, self.diagonal, self.dtype = op, a, diagonal, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"{self.op}({self.a.text()}, {self.diagonal})"

    def ev(self, env):
        v = self.a.ev(env)
        m, n = v.a.shape[-2], v.a.shape[-1]
        d = np.arange(n)[None, :] - np.arange(m)[:, None]
        keep = d <= self.diagonal if self.op == "tril" else d >= self.diagonal
        return Value(np.where(keep, v.a, 0.0), v.valid)
