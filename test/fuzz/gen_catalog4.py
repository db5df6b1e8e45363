"""The fuzzer's hook for the language of the fourth round (specs/README.md "Compile-time constants", "String
literals", `index_put_` with several index tensors, rank-3 `scatter`, `clone isnan log10 lrelu hypot`): one
construct at the end of the body, with its own inputs (`c4in...`) and outputs (`c4out...`). gen.py calls
program_hook() on the finished program; it draws from its own stream (`catalog4{seed}`), so the rest of every
seed's program is unchanged (selftest_catalog4.py checks it).

- `const_bind`: top-level constants (`c4k = 3`, `c4w = min(c4k * 2, 5)`, an `if` on a constant binding another
  in both branches, a boolean) used as a `vec_tile` entry, slice bounds and scalar operands; a static loop
  binding a constant from its variable (`c4r = c4i * 2 + 1`) used as a row offset and a scalar.
- `const_unroll`: PyPTO's `tile_t = unroll_length` in an unroll-gear body over a dynamic dim with a tail.
- `string_mode`: `pad(..., mode='constant', value=v)` and `scatter(..., reduce="add")` with the mode quoted.
- `index_put_multi`: `index_put_(x, [i0, i1(, i2)], v[, accumulate=true])` over a rank-2 to rank-4 input.
- `scatter3`: `scatter` of a rank-3 input along any axis, `reduce=add` or the last write winning.
- `catalog_ops`: `clone`, `isnan` (of a `sqrt` that is NaN for negative inputs), `log10`, `lrelu`, `hypot`.
(In-place outputs with scatter_update are gen_catalog3.py's.)

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import random

import numpy as np

import model as M
from gen_index_ops import Scatter
from model import ModelError, Stmt, Value, dim_eval, rnd
import hook_stream  # noqa: E402

KINDS = ("const_bind", "const_unroll", "string_mode", "index_put_multi", "scatter3", "catalog_ops")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off (selftest_catalog4.py proves the comparison catches it)
PROB = 0.25


class ConstBind(Stmt):
    """`NAME = EXPR`, a compile-time constant: the model evaluates it as a dim (so slices and scalars see it)."""

    def __init__(self, name, expr):
        self.name, self.expr = name, expr

    def emit(self):
        return f"{self.name} = {self.expr}"

    def run(self, env):
        env["dims"][self.name] = dim_eval(self.expr.replace("True", "1").replace("False", "0"), env["dims"])


class ConstIf(Stmt):
    """An `if` on a compile-time condition whose branches bind constants."""

    def __init__(self, cond, then, other):
        self.cond, self.then, self.other = cond, then, other

    def items(self):
        return [self.then, self.other]

    def emit(self):
        return {"if": self.cond, "then": [s.emit() for s in self.then], "else": [s.emit() for s in self.other]}

    def run(self, env):
        for s in self.then if dim_eval(self.cond, env["dims"]) else self.other:
            s.run(env)


class ConstScalar(M.Const):
    """A scalar operand written as a constant's name: Bin reads `.value` after ev()."""

    def __init__(self, name, dtype, off=0):
        super().__init__(0, dtype)
        self.name, self.off = name, off

    def text(self):
        return self.name

    def ev(self, env):
        self.value = dim_eval(self.name, env["dims"]) + self.off
        return None


class Fn(M.Node):
    """A catalog op by name over already-built operands: the model composes it as elaborate_compose_math.cpp does
    (each step rounded to the dtype)."""

    def __init__(self, fn, args, dtype, slope=None, wrong=False):
        self.fn, self.args, self.dtype, self.slope, self.wrong = fn, list(args), dtype, slope, wrong

    def children(self):
        return list(self.args)

    def replace_child(self, i, new):
        self.args[i] = new

    def text(self):
        a = ", ".join(M.strip(x.text()) for x in self.args)
        if self.fn == "lrelu" and self.slope is not None:
            a += f", negative_slope={self.slope}"
        return f"{self.fn}({a})"

    def ev(self, env):
        vs = [x.ev(env) for x in self.args]
        x, dt = vs[0].a, self.dtype
        valid = list(vs[0].valid)
        with np.errstate(all="ignore"):
            if self.fn == "clone":
                r = x
            elif self.fn == "log10":
                r = rnd(rnd(np.log(x), dt) * 0.43429448190325182765, dt)  # log(x) * (1 / ln 10)
            elif self.fn == "lrelu":
                s = 0.01 if self.slope is None else self.slope
                r = np.where(x > 0, x, rnd(x * s, dt))
            elif self.fn == "hypot":
                y = vs[1].a
                r = rnd(np.sqrt(rnd(rnd(x * x, dt) + rnd(y * y, dt), dt)), dt)
                valid = [min(a, b) for a, b in zip(valid, vs[1].valid)]
            else:
                raise ModelError(self.fn)
        if self.wrong:
            r = r + 0.5
        return Value(r, valid)


class IsNanOf(M.Node):
    """`cast(isnan(sqrt(x)), DT)`: 1 where x < 0 (sqrt is NaN there), else 0."""

    def __init__(self, a, dtype, wrong=False):
        self.a, self.dtype, self.wrong = a, dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"cast(isnan(sqrt({M.strip(self.a.text())})), {self.dtype})"

    def ev(self, env):
        v = self.a.ev(env)
        with np.errstate(all="ignore"):
            r = np.where(v.a < 0, 1.0, 0.0)
        r = np.where(np.isnan(v.a), np.nan, r)
        if self.wrong:
            r = 1.0 - r
        return Value(r, list(v.valid))


class IndexPutMulti(M.Node):
    """`index_put_(x, [i0, i1, ...], v[, accumulate=true])`: x[i0[t], i1[t], ...] = v[t] (the last write wins)
    or += v[t]; a tuple with an index outside its axis writes nothing."""

    def __init__(self, x, idx, src, dtype, accumulate, wrong=False):
        self.x, self.idx, self.src, self.dtype, self.accumulate, self.wrong = x, list(idx), src, dtype, accumulate, wrong

    def children(self):
        return [self.x] + self.idx + [self.src]

    def replace_child(self, i, new):
        if i == 0:
            self.x = new
        elif i <= len(self.idx):
            self.idx[i - 1] = new
        else:
            self.src = new

    def text(self):
        acc = ", accumulate=true" if self.accumulate else ""
        ids = ", ".join(i.text() for i in self.idx)
        return f"index_put_({self.x.text()}, [{ids}], {self.src.text()}{acc})"

    def ev(self, env):
        xv, sv = self.x.ev(env), self.src.ev(env)
        ids = [i.ev(env).a.astype(np.int64) for i in self.idx]
        out = xv.a.copy()
        k = len(ids)
        lead = out.shape[:k]
        s = np.zeros_like(out)
        for t in range(len(ids[0])):
            pos = tuple(int(i[t]) for i in ids)
            if self.wrong and t == 0:
                continue  # drops the first write
            if all(0 <= p < n for p, n in zip(pos, lead)):
                if self.accumulate:
                    s[pos] += sv.a[t]
                else:
                    out[pos] = sv.a[t]
        if self.accumulate:
            out = rnd(out + rnd(s, self.dtype), self.dtype)
        return Value(out, list(xv.valid))


class WrongScatter(Scatter):
    """Scatter whose model writes along the wrong side of the last duplicate (selftest only)."""

    def ev(self, env):
        v = super().ev(env)
        return Value(v.a[::-1].copy() if v.a.shape[0] > 1 else v.a + 1, v.valid)


class PadString(M.Node):
    """`pad(x, [0, pr(, 0, pb)], mode='constant', value=v)`: right (and bottom) padding, the mode quoted."""

    def __init__(self, a, pr, pb, value, quote, dtype, wrong=False):
        self.a, self.pr, self.pb, self.value, self.quote, self.dtype, self.wrong = a, pr, pb, value, quote, dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        q = self.quote
        p = f"[0, {self.pr}]" if self.pb is None else f"[0, {self.pr}, 0, {self.pb}]"
        return f"pad({self.a.text()}, {p}, mode={q}constant{q}, value={self.value})"

    def ev(self, env):
        v = self.a.ev(env)
        x = v.a
        pb = self.pb or 0
        out = np.full((x.shape[0] + pb, x.shape[1] + self.pr), rnd(self.value, self.dtype))
        out[:x.shape[0], :x.shape[1]] = x
        if self.wrong:
            out[-1, -1] += 1
        return Value(out, list(out.shape))


# ------------------------------------------------------------------------------------------- constructs
def _inp(st, prog, shape, dt, kind=None):
    st["n"] += 1
    n = f"c4in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind or ("normal" if dt in FLOAT else "small")
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"c4out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def c_const_bind(r, prog, st, dt):
    body = prog.body
    D = r.choice([16, 32, 64])
    K = r.randint(2, 6)
    body.append(ConstBind("c4k", str(K)))
    form = r.choice(["min(c4k * 2, 7)", "ceil_div(c4k * 3, 2)", "c4k + 1", "max(c4k - 1, 1)", "(c4k * 5) % 4 + 1",
                     "c4k // 2 + 1"])
    body.append(ConstBind("c4w", form))
    W = dim_eval(form, {"c4k": K})
    flag = r.random() < 0.5
    if flag:
        body.append(ConstBind("c4f", r.choice(["True", "False"])))
        body.append(ConstIf("not c4f", [ConstBind("c4s", "2")], [ConstBind("c4s", "c4k - 4")]))
    else:
        body.append(ConstIf(f"c4k <= {r.randint(2, 6)}", [ConstBind("c4s", "2")], [ConstBind("c4s", "-1 * c4k")]))
    R = W + r.randint(0, 3)
    x = _inp(st, prog, [R, D], dt)
    o = _out(st, prog, [W, D], dt)
    body.append(M.Raw({"vec_tile": [r.choice(["c4w", "min(c4w, 2)", "c4k // 2 + 1"]), D]}))
    e = M.Bin("*", M.Slice(x, dt, [0, 0], ["c4w", D]), ConstScalar("c4s", dt, 1 if WRONG == "const_bind" else 0), dt)
    e = M.Bin("+", e, ConstScalar("c4k", dt), dt)
    body.append(M.Assemble(o, [0, 0], e))
    if r.random() < 0.5:
        # an if on the constants choosing between two computations (PyPTO's `if not split_k:` per gear)
        o3 = _out(st, prog, [W, D], dt)
        xs = M.Slice(x, dt, [0, 0], ["c4w", D])
        cond = r.choice(["c4k > 3", "c4w % 2 == 0", "c4k >= 2 and c4w < 6", "not c4k == 4"])
        two = M.Bin("*", xs, M.Const(2, dt), dt)
        one = M.Bin("+", xs, ConstScalar("c4w", dt), dt)
        body.append(ConstIf(cond, [M.Assemble(o3, [0, 0], two)], [M.Assemble(o3, [0, 0], one)]))
    if r.random() < 0.5:
        # a static loop whose constants come from its variable
        n = r.randint(2, 4)
        x2 = _inp(st, prog, [2 * n + 1, D], dt)
        o2 = _out(st, prog, [n, D], dt)
        inner = [ConstBind("c4r", "c4i * 2 + 1"), M.Raw({"vec_tile": [1, D]}),
                 M.Assemble(o2, ["c4i", 0], M.Bin("*", M.Slice(x2, dt, ["c4r", 0], ["c4r + 1", D]),
                                                  ConstScalar("c4r", dt), dt))]
        body.append(M.Loop("c4i", n, inner, kind="static"))


def c_const_unroll(r, prog, st, dt):
    body = prog.body
    D = r.choice([16, 32, 64])
    T = r.randint(3, 40)
    prog.dims["C4T"] = {"dynamic": True, "max": 64}
    prog.dimval["C4T"] = T
    x = _inp(st, prog, ["C4T", D], dt)
    o = _out(st, prog, ["C4T", D], dt)
    unroll = sorted(r.sample([2, 4, 8], r.randint(1, 2)), reverse=True)
    off = 1 if WRONG == "const_unroll" else 0
    if r.random() < 0.5:
        tile = [ConstBind("c4t", "c4u"), ConstBind("c4h", "c4t"),
                ConstIf(f"c4t <= {r.choice([2, 4])}", [M.Raw({"vec_tile": ["c4t", D]})],
                        [M.Raw({"vec_tile": [2, D]})])]
    else:
        tile = [ConstBind("c4t", "c4u"), ConstBind("c4h", r.choice(["min(c4t, 2)", "c4t", "max(c4t // 2, 1)"])),
                M.Raw({"vec_tile": ["c4h", D]})]
    inner = tile + [
             M.Assemble(o, ["c4b", 0], M.Bin("-", M.Bin("*", M.Slice(x, dt, ["c4b", 0], ["c4b + c4t", D]),
                                                        ConstScalar("c4t", dt, off), dt), ConstScalar("c4h", dt), dt))]
    body.append(M.Loop("c4b", "C4T", inner, unroll=unroll, factor="c4u"))


def c_string_mode(r, prog, st, dt):
    body = prog.body
    R, D = r.randint(2, 8), r.choice([8, 16])
    wrong = WRONG == "string_mode"
    if r.random() < 0.5:
        x = _inp(st, prog, [R, D], dt)
        pr, pb = r.choice([1, 3, 8]), r.choice([None, 0, 2])
        o = _out(st, prog, [R + (pb or 0), D + pr], dt)
        body.append(M.Raw({"vec_tile": [R + (pb or 0), D + pr]}))
        body.append(M.Assemble(o, [0, 0], PadString(M.Ref(x, dt), pr, pb, r.choice([0, 1.5, -2]),
                                                    r.choice(["'", '"']), dt, wrong)))
    else:
        x = _inp(st, prog, [R, D], dt)
        j = r.randint(1, D)
        ix = _inp(st, prog, [R, j], "int32", kind=f"range:-1:{D}")
        src = _inp(st, prog, [R, j], dt)
        o = _out(st, prog, [R, D], dt)
        q = r.choice(["'", '"'])
        node = (WrongScatter if wrong else Scatter)(M.Ref(x, dt), 1, M.Ref(ix, "int32"), M.Ref(src, dt), "add", dt)
        node.text = lambda n=node, q=q: (f"scatter({n.a.text()}, 1, {n.index.text()}, {n.src.text()}, "
                                         f"reduce={q}add{q})")
        body.append(M.Raw({"vec_tile": [r.choice([1, R]), D]}))
        body.append(M.Assemble(o, [0, 0], node))


def c_index_put_multi(r, prog, st, dt):
    body = prog.body
    rank = r.randint(2, 3)  # index_put_ takes ranks 1 to 3
    k = r.randint(1, rank)  # k == rank: every axis indexed, values [n]
    lead = [r.randint(2, 5) for _ in range(k)]
    rest = ([r.choice([1, 2, 3]) for _ in range(rank - k - 1)] + [r.choice([8, 16])]) if k < rank else []
    shape = lead + rest
    n = r.randint(1, 6)
    x = _inp(st, prog, shape, dt)
    ids = [_inp(st, prog, [n], "int32", kind=f"range:-1:{e}") for e in lead]
    src = _inp(st, prog, [n] + rest, dt)
    o = _out(st, prog, shape, dt)
    acc = r.random() < 0.35
    node = IndexPutMulti(M.Ref(x, dt), [M.Ref(i, "int32") for i in ids], M.Ref(src, dt), dt, acc,
                         WRONG == "index_put_multi")
    body.append(M.Raw({"vec_tile": [1] * (rank - 1) + [shape[-1]] if r.random() < 0.5 else list(shape)}))
    body.append(M.Assemble(o, [0] * rank, node))


def c_scatter3(r, prog, st, dt):
    body = prog.body
    shape = [r.randint(2, 4), r.randint(2, 6), r.choice([8, 16])]
    dim = r.randint(0, 2)
    ishape = list(shape)
    ishape[dim] = r.randint(1, shape[dim])
    x = _inp(st, prog, shape, dt)
    ix = _inp(st, prog, ishape, "int32", kind=f"range:-1:{shape[dim]}")
    src = _inp(st, prog, ishape, dt)
    o = _out(st, prog, shape, dt)
    red = r.choice([None, "add"])
    node = (WrongScatter if WRONG == "scatter3" else Scatter)(M.Ref(x, dt), dim, M.Ref(ix, "int32"),
                                                              M.Ref(src, dt), red, dt)
    if dim != 2 and r.random() < 0.5:
        node.dim = dim - 3  # a negative axis
        ev = node.ev
        node.ev = lambda env, n=node, d=dim, ev=ev: _with_dim(n, d, ev, env)
    body.append(M.Raw({"vec_tile": [1, shape[1], shape[2]] if r.random() < 0.5 else list(shape)}))
    body.append(M.Assemble(o, [0, 0, 0], node))


def _with_dim(node, d, ev, env):
    neg, node.dim = node.dim, d
    try:
        return ev(env)
    finally:
        node.dim = neg


def c_catalog_ops(r, prog, st, dt):
    body = prog.body
    R, D = r.randint(1, 8), r.choice([16, 32, 64])
    x = _inp(st, prog, [R, D], dt)
    y = _inp(st, prog, [R, D], dt)
    wrong = WRONG == "catalog_ops"
    body.append(M.Raw({"vec_tile": [r.choice([1, R]), D]}))
    ops = r.sample(["clone", "isnan", "log10", "lrelu", "hypot"], r.randint(1, 3))
    for i, fn in enumerate(ops):
        w = wrong and i == 0
        if fn == "isnan":
            node = IsNanOf(M.Ref(x, dt), dt, w)
        elif fn == "log10":
            node = Fn("log10", [M.Bin("+", M.Un("abs", M.Ref(x, dt), dt), M.Const(1, dt), dt)], dt, wrong=w)
        elif fn == "lrelu":
            node = Fn("lrelu", [M.Ref(x, dt)], dt, slope=r.choice([None, 0.2, 0.5]), wrong=w)
        elif fn == "hypot":
            node = Fn("hypot", [M.Ref(x, dt), M.Ref(y, dt)], dt, wrong=w)
        else:
            node = M.Bin("+", Fn("clone", [M.Ref(x, dt)], dt, wrong=w), M.Ref(y, dt), dt)
        o = _out(st, prog, [R, D], dt)
        body.append(M.Assemble(o, [0, 0], node))


CONSTRUCTS = {"const_bind": c_const_bind, "const_unroll": c_const_unroll, "string_mode": c_string_mode,
              "index_put_multi": c_index_put_multi, "scatter3": c_scatter3, "catalog_ops": c_catalog_ops}


def program_hook(g, prog):
    """With probability PROB (its own stream): one fourth-round construct at the end of the body."""
    drawn = hook_stream.draw(g, "catalog4", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    dt = r.choice(FLOAT)
    st = {"n": 0}
    CONSTRUCTS[kind](r, prog, st, dt)
    prog.catalog4 = [kind]


def used(prog):
    return list(getattr(prog, "catalog4", None) or [])
