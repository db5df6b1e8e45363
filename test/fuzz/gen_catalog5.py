"""The fuzzer's hook for structops5's ops (specs/README.md section 8, "Strided picks"; compiler/frontend/
elaborate_structural_ops.cpp): one construct at the end of the body, with its own inputs (`c5in...`) and outputs
(`c5out...`). gen.py calls program_hook() on the finished program; it draws from its own stream
(`catalog5{seed}`), so the rest of every seed's program is unchanged.

- `interleave`: `a, b = interleave(x, y)` of rank 1 to 3, any of the six dtypes, rows with a tail (a window
  clipped by its source), the vec_tile's last entry the axis (PyPTO's rule), both halves assembled.
- `deinterleave`: one input (the last tile entry even, possibly split) or two (the last axis whole).
- `gathermask`: pattern modes 1..7 on fp32 / fp16 / bf16 / int32, the tile's last entry a multiple of 2 or 4.
- `index_add_ub`: `index_add_ub` / `index_add__ub` with duplicates, an index outside the axis and alpha, the
  indexed axis whole in the vec_tile.
- `tbmm`: `transposed_batchmatmul(a [M, B, K], b [B, K, N], out_dtype)` in fp16 / bf16, sometimes followed by a
  vector op.
- `gather_in_ub`: PyPTO's paged gather of token rows through a block table, indices from an input (some outside
  the table) or computed on the device.
- `op_options`: `set_operation_options(combine_axis=...)` before a binary op with a `[R, 1]` operand (the
  numbers must not change).
- `atomic_add`: the statement `atomic_add(src, [offsets], dst)` into an output written first, from a static or a
  dynamic loop (row blocks with a tail, windows that overlap or not, offsets from the loop variable).

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import random

import numpy as np

import model as M
from gen_index_ops import IndexScatter
from gen_lang import Bind2
from model import ModelError, Value, rnd
import hook_stream  # noqa: E402

KINDS = ("interleave", "deinterleave", "gathermask", "index_add_ub", "tbmm", "atomic_add", "gather_in_ub",
         "op_options")
PAIR_TYPES = ("fp32", "fp16", "bf16", "int32", "int8", "uint8")
MASK_TYPES = ("fp32", "fp16", "bf16", "int32")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off (selftest_catalog5.py proves the comparison catches it)
PROB = 0.2


def _box(shape, a, valid):
    out = np.full(shape, np.nan)
    box = tuple(slice(0, v) for v in valid)
    out[box] = a[box]
    return out


class Pair(M.Node):
    """interleave(a, b) / deinterleave(a[, b]) as PyPTO's docs define them: two results (ev_both)."""

    def __init__(self, op, a, b, dtype, wrong=False):
        self.op, self.a, self.b, self.dtype, self.wrong = op, a, b, dtype, wrong

    def children(self):
        return [self.a] + ([self.b] if self.b is not None else [])

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        else:
            self.b = new

    def text(self):
        args = M.strip(self.a.text()) + ("" if self.b is None else ", " + M.strip(self.b.text()))
        return f"{self.op}({args})"

    def ev_both(self, env):
        va = self.a.ev(env)
        vb = self.b.ev(env) if self.b is not None else None
        lead = list(va.valid[:-1]) if vb is None else [min(x, y) for x, y in zip(va.valid[:-1], vb.valid[:-1])]
        a = va.a
        n = a.shape[-1]
        if self.op == "interleave":
            s = np.stack([a, vb.a], axis=-1).reshape(a.shape[:-1] + (2 * n,))
            r0, r1 = s[..., :n], s[..., n:]
        else:
            s = a if vb is None else np.concatenate([a, vb.a], axis=-1)
            r0, r1 = s[..., 0::2], s[..., 1::2]
        if self.wrong:
            r0, r1 = r1, r0
        valid = lead + [r0.shape[-1]]
        return Value(_box(r0.shape, r0, valid), valid), Value(_box(r1.shape, r1, valid), valid)

    def ev(self, env):
        raise ModelError("interleave / deinterleave has two results")


class GatherMask(M.Node):
    """gathermask(x, mode): element k of every p along the last axis (modes 1, 2: p = 2; 3..6: p = 4; 7: all)."""

    def __init__(self, a, mode, dtype, wrong=False):
        self.a, self.mode, self.dtype, self.wrong = a, mode, dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"gathermask({M.strip(self.a.text())}, {self.mode})"

    def ev(self, env):
        v = self.a.ev(env)
        if self.mode == 7:
            return v
        p, k = (2, self.mode - 1) if self.mode <= 2 else (4, self.mode - 3)
        if self.wrong:
            k = (k + 1) % p
        r = v.a[..., k::p]
        valid = list(v.valid[:-1]) + [r.shape[-1]]
        return Value(_box(r.shape, r, valid), valid)


class IndexAddUb(IndexScatter):
    """index_add_ub / index_add__ub: index_add's numbers (gen_index_ops.IndexScatter's model)."""

    def __init__(self, fn, a, dim, index, source, dtype, alpha=1, wrong=False, dim_text=None):
        super().__init__("index_add", a, dim, index, source, dtype, alpha=alpha)
        self.fn, self.wrong, self.dim_text = fn, wrong, dim if dim_text is None else dim_text

    def text(self):
        al = f", alpha={self.alpha}" if self.alpha != 1 else ""
        return f"{self.fn}({self.a.text()}, {self.dim_text}, {self.index.text()}, {self.source.text()}{al})"

    def ev(self, env):
        v = super().ev(env)
        return Value(v.a + 1, v.valid) if self.wrong else v


class TBMM(M.Node):
    """transposed_batchmatmul(a [M, B, K], b [B, K, N], out): [B, M, K] x [B, K, N], rounded once, -> [M, B, N]."""

    def __init__(self, a, b, dtype, wrong=False):
        self.a, self.b, self.dtype, self.wrong = a, b, dtype, wrong

    def children(self):
        return [self.a, self.b]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        else:
            self.b = new

    def text(self):
        return f"transposed_batchmatmul({M.strip(self.a.text())}, {M.strip(self.b.text())}, {self.dtype})"

    def ev(self, env):
        va, vb = self.a.ev(env), self.b.ev(env)
        a = np.nan_to_num(va.masked(), nan=0.0).transpose(1, 0, 2)
        b = np.nan_to_num(vb.masked(), nan=0.0)
        r = rnd(np.matmul(a, b), self.dtype).transpose(1, 0, 2)
        if self.wrong:
            r = r * 2
        valid = [va.valid[0], min(va.valid[1], vb.valid[0]), vb.valid[2]]
        return Value(_box(r.shape, r, valid), valid)


class GatherInUb(M.Node):
    """gather_in_ub(param, indices, block_table, bs): row j = param[table[t // bs] * bs + t % bs]; outside: 0."""

    def __init__(self, param, indices, table, bs, dtype, wrong=False):
        self.param, self.indices, self.table, self.bs, self.dtype, self.wrong = param, indices, table, bs, dtype, wrong

    def children(self):
        return [self.param, self.indices, self.table]

    def replace_child(self, i, new):
        setattr(self, ("param", "indices", "table")[i], new)

    def text(self):
        return (f"gather_in_ub({M.strip(self.param.text())}, {M.strip(self.indices.text())}, "
                f"{M.strip(self.table.text())}, {self.bs})")

    def ev(self, env):
        p, ix, tb = self.param.ev(env).a, self.indices.ev(env), self.table.ev(env).a
        k = ix.a.shape[1]
        out = np.zeros((k, p.shape[1]))
        for j in range(ix.valid[1]):
            t = int(ix.a[0, j])
            if t < 0 or t // self.bs >= tb.shape[1]:
                continue
            row = int(tb[0, t // self.bs]) * self.bs + t % self.bs + (1 if self.wrong else 0)
            if 0 <= row < p.shape[0]:
                out[j] = p[row]
        valid = [ix.valid[1], p.shape[1]]
        return Value(_box(out.shape, out, valid), valid)


class AtomicAdd(M.Stmt):
    """atomic_add(src, [offsets], dst): dst's window at offsets += src's valid region, rounded to the dtype."""

    def __init__(self, src, offsets, dst, wrong=False):
        self.src, self.offsets, self.dst, self.wrong = src, list(offsets), dst, wrong

    def emit(self):
        return f"atomic_add({M.strip(self.src.text())}, [{', '.join(str(o) for o in self.offsets)}], {self.dst})"

    def run(self, env):
        v = self.src.ev(env)
        t = env["tensors"][self.dst]
        off = [M.dim_eval(str(o), env["dims"]) for o in self.offsets]
        box = tuple(slice(o, o + k) for o, k in zip(off, v.valid))
        add = v.a[tuple(slice(0, k) for k in v.valid)]
        t[box] = rnd(t[box] + add, self.src.dtype) if not self.wrong else rnd(t[box] - add, self.src.dtype)


# ------------------------------------------------------------------------------------------- constructs
def _inp(st, prog, shape, dt, kind=None):
    st["n"] += 1
    n = f"c5in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind or ("normal" if dt in FLOAT else "small")
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"c5out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def _window(r, st, prog, shape, dt):
    """An input of `shape`, read whole, or (rank 2 and up) as a window of `shape` over an input of C5R rows, a
    dynamic dim bound below shape[0] (a tail on axis 0: the window keeps its shape, its valid rows are C5R).
    Returns the node and the rows of the outputs that take it (an int or "C5R")."""
    if len(shape) > 1 and shape[0] > 1 and r.random() < 0.5:
        if "C5R" not in prog.dims:
            prog.dims["C5R"] = {"dynamic": True, "max": 64}
            prog.dimval["C5R"] = shape[0] - r.randint(1, min(3, shape[0] - 1))
        if prog.dimval["C5R"] < shape[0]:
            x = _inp(st, prog, ["C5R"] + shape[1:], dt)
            return M.Slice(x, dt, [0] * len(shape), shape), "C5R"
    x = _inp(st, prog, shape, dt)
    return M.Ref(x, dt), shape[0]


def _rows(a, b):
    return "C5R" if "C5R" in (a, b) else min(a, b)


def _lead(r, rank):
    return [r.randint(1, 6) for _ in range(rank - 1)]


def _tile(r, lead_shape, last):
    return M.Raw({"vec_tile": [r.randint(1, e) for e in lead_shape] + [last]})


def _bind_out(r, prog, st, body, name, shape, valid_rows, dt):
    """Assemble value `name` (shape) into a fresh output of the valid rows, sometimes through a vector op."""
    o = _out(st, prog, [valid_rows] + shape[1:], dt)
    node = M.Ref(name, dt)
    if dt in FLOAT and r.random() < 0.4:
        node = M.Bin("*", node, M.Const(2, dt), dt)
    body.append(M.Assemble(o, [0] * len(shape), node))


def c_interleave(r, prog, st):
    body = prog.body
    dt = r.choice(PAIR_TYPES)
    rank = r.randint(1, 3)
    n = 2 * r.randint(1, 16)
    shape = _lead(r, rank) + [n]
    x, rows = _window(r, st, prog, shape, dt)
    y, rows2 = _window(r, st, prog, shape, dt)
    body.append(_tile(r, shape[:-1], n))
    body.append(Bind2("c5a", "c5b", Pair("interleave", x, y, dt, wrong=WRONG == "interleave")))
    for name in ("c5a", "c5b"):
        _bind_out(r, prog, st, body, name, shape, _rows(rows, rows2) if rank > 1 else n, dt)


def c_deinterleave(r, prog, st):
    body = prog.body
    dt = r.choice(PAIR_TYPES)
    rank = r.randint(1, 3)
    two = r.random() < 0.4
    n = 2 * r.randint(1, 16)
    shape = _lead(r, rank) + [n]
    x, rows = _window(r, st, prog, shape, dt)
    if two:
        y, rows2 = _window(r, st, prog, shape, dt)
        rows = _rows(rows, rows2)
        body.append(_tile(r, shape[:-1], n))
        out_shape = shape
    else:
        y = None
        body.append(_tile(r, shape[:-1], 2 * r.randint(1, n // 2)))
        out_shape = shape[:-1] + [n // 2]
    body.append(Bind2("c5e", "c5o", Pair("deinterleave", x, y, dt, wrong=WRONG == "deinterleave")))
    for name in ("c5e", "c5o"):
        _bind_out(r, prog, st, body, name, out_shape, rows if rank > 1 else out_shape[0], dt)


def c_gathermask(r, prog, st):
    body = prog.body
    dt = r.choice(MASK_TYPES)
    rank = r.randint(1, 3)
    mode = r.randint(1, 7)
    p = 2 if mode <= 2 else 4
    n = p * r.randint(1, 8)
    shape = _lead(r, rank) + [n]
    x, rows = _window(r, st, prog, shape, dt)
    body.append(_tile(r, shape[:-1], p * r.randint(1, n // p)))
    out_shape = shape if mode == 7 else shape[:-1] + [n // p]
    body.append(M.Bind("c5g", GatherMask(x, mode, dt, wrong=WRONG == "gathermask")))
    _bind_out(r, prog, st, body, "c5g", out_shape, rows if rank > 1 else out_shape[0], dt)


def c_index_add_ub(r, prog, st):
    body = prog.body
    dt = r.choice(MASK_TYPES)
    rank = r.randint(1, 3)
    shape = [r.randint(1, 6) for _ in range(rank - 1)] + [r.choice([4, 8, 16])]
    ax = r.randrange(rank)
    t = r.randint(1, 6)
    x = _inp(st, prog, shape, dt)
    idx = _inp(st, prog, [t], "int32", kind=f"range:-1:{shape[ax]}")  # duplicates and one outside
    sshape = list(shape)
    sshape[ax] = t
    src = _inp(st, prog, sshape, dt)
    tile = [r.randint(1, e) for e in shape]
    tile[ax] = max(shape[ax], t)  # PyPTO's UB rule: the indexed axis and the index whole
    body.append(M.Raw({"vec_tile": tile}))
    alpha = r.choice([1, 1, 2, -1]) if dt == "int32" else r.choice([1, 2, 0.5, -1])
    fn = r.choice(["index_add_ub", "index_add__ub"])
    node = IndexAddUb(fn, M.Ref(x, dt), ax, M.Ref(idx, "int32"), M.Ref(src, dt), dt, alpha=alpha,
                      wrong=WRONG == "index_add_ub", dim_text=ax - rank if r.random() < 0.3 else ax)
    o = _out(st, prog, shape, dt)
    body.append(M.Assemble(o, [0] * rank, node))


def c_tbmm(r, prog, st):
    body = prog.body
    dt = r.choice(["fp16", "bf16"])
    od = r.choice(["fp16", "bf16"])
    m, b, k, n = r.randint(1, 20), r.randint(1, 3), r.choice([8, 16, 24, 32]), r.choice([8, 16, 32, 40])
    a = _inp(st, prog, [m, b, k], dt)
    w = _inp(st, prog, [b, k, n], dt)
    l0 = r.choice([16, 32])
    body.append(M.Raw({"cube_tile": {"m": [16, 16 * r.choice([1, 2])], "k": [l0, l0 * r.choice([1, 2])],
                                     "n": [16, 16 * r.choice([1, 2, 4])]}}))
    body.append(M.Raw({"vec_tile": [r.randint(1, m), b, n]}))
    node = TBMM(M.Ref(a, dt), M.Ref(w, dt), od, wrong=WRONG == "tbmm")
    if r.random() < 0.4:
        node = M.Bin("+", node, M.Const(1, od), od)
    o = _out(st, prog, [m, b, n], od)
    body.append(M.Assemble(o, [0, 0, 0], node))


def c_atomic_add(r, prog, st):
    body = prog.body
    dt = r.choice(["fp32", "fp16", "bf16", "int32"])
    d = r.choice([8, 16, 32])
    blk = r.randint(1, 6)
    slots = r.randint(1, 3)
    o = _out(st, prog, [slots * blk, d], dt)
    body.append(M.Raw({"vec_tile": [r.randint(1, blk), d]}))
    body.append(M.Assemble(o, [0, 0], M.Full([slots * blk, d], r.choice([0, 1, -2]), dt)))
    wrong = WRONG == "atomic_add"
    if r.random() < 0.5:
        # a dynamic loop over row blocks of C5R rows (the last a tail), each added into slot b % slots
        rows = r.randint(1, 5 * blk)
        prog.dims["C5A"] = {"dynamic": True, "max": 64}
        prog.dimval["C5A"] = rows
        x = _inp(st, prog, ["C5A", d], dt)
        src = M.Slice(x, dt, [f"c5b * {blk}", 0], [f"(c5b + 1) * {blk}", d])
        inner = [AtomicAdd(src, [f"(c5b % {slots}) * {blk}", 0], o, wrong)]
        body.append(M.Loop("c5b", f"ceil_div(C5A, {blk})", inner))
    else:
        # a static loop: windows of h rows at offsets that may overlap
        n = r.randint(1, 4)
        h = r.randint(1, slots * blk)
        step = r.randint(0, slots * blk - h) if n > 1 else 0
        step = min(step, (slots * blk - h) // max(n - 1, 1))
        x = _inp(st, prog, [n * h, d], dt)
        src = M.Slice(x, dt, [f"c5i * {h}", 0], [f"(c5i + 1) * {h}", d])
        if dt != "int32" and r.random() < 0.5:
            src = M.Bin("*", src, M.Const(2, dt), dt)
        inner = [M.Raw({"vec_tile": [r.randint(1, h), d]}), AtomicAdd(src, [f"c5i * {step}", 0], o, wrong)]
        body.append(M.Loop("c5i", n, inner, kind="static"))


def c_gather_in_ub(r, prog, st):
    body = prog.body
    dt = r.choice(["fp32", "fp16"])
    bs = r.choice([1, 2, 4, 8])
    nb = r.randint(1, 6)
    T = bs * nb + r.randint(0, 3)
    h = r.choice([8, 16, 32])
    k = r.randint(1, 8)
    kv = _inp(st, prog, [T, h], dt)
    tb = _inp(st, prog, [1, nb], "int32", kind=f"range:0:{(T - 1) // bs}")
    ix = _inp(st, prog, [1, k], "int32", kind=f"range:-1:{bs * nb}")  # one below and one past the table
    idx = M.Ref(ix, "int32")
    if r.random() < 0.4:  # computed on the device
        idx = M.Bin("+", idx, M.Const(r.choice([-1, 1]), "int32"), "int32")
    body.append(M.Raw({"vec_tile": [r.randint(1, k), r.choice([h, max(h // 2, 1)])]}))
    o = _out(st, prog, [k, h], dt)
    body.append(M.Assemble(o, [0, 0], GatherInUb(M.Ref(kv, dt), idx, M.Ref(tb, "int32"), bs, dt,
                                                 wrong=WRONG == "gather_in_ub")))


def c_op_options(r, prog, st):
    body = prog.body
    dt = r.choice(FLOAT + ("int32",))
    R, D = r.randint(1, 8), r.choice([8, 16, 32])
    x = _inp(st, prog, [R, D], dt)
    c = _inp(st, prog, [R, 1], dt)
    body.append(M.Raw("set_operation_options(combine_axis=" + r.choice(["true", "false", "True"]) + ")"))
    body.append(M.Raw({"vec_tile": [r.randint(1, R), D]}))
    op = r.choice(["+", "-", "*"]) if dt != "int32" or WRONG != "op_options" else "+"
    node = M.Bin(op, M.Ref(x, dt), M.Ref(c, dt), dt)
    if WRONG == "op_options":
        node = M.Bin(op, M.Ref(x, dt), M.Bin("+", M.Ref(c, dt), M.Const(1, dt), dt), dt)
        node.text = lambda n=node, x=x, c=c, op=op: f"{x} {op} {c}"
    o = _out(st, prog, [R, D], dt)
    body.append(M.Assemble(o, [0, 0], node))


CONSTRUCTS = {"interleave": c_interleave, "deinterleave": c_deinterleave, "gathermask": c_gathermask,
              "index_add_ub": c_index_add_ub, "tbmm": c_tbmm, "atomic_add": c_atomic_add,
              "gather_in_ub": c_gather_in_ub, "op_options": c_op_options}


def program_hook(g, prog):
    """With probability PROB (its own stream): one structops5 construct at the end of the body."""
    drawn = hook_stream.draw(g, "catalog5", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    st = {"n": 0}
    CONSTRUCTS[kind](r, prog, st)
    prog.catalog5 = [kind]


def used(prog):
    return list(getattr(prog, "catalog5", None) or [])
