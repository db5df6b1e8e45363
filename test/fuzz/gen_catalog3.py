"""The fuzzer's hook for catalog3's constructs (specs/README.md "In-place outputs", "scatter_update", "String
literals"): an output declared `inplace:` of a fresh input, updated at the end of the body by reads and writes of
the one buffer in program order, by `scatter_update` at run-time slots (rank 2 or 4, duplicates: the later row
wins), and fillpad with its mode written as a string. gen.py calls program_hook() on the finished program; it
draws from its own stream, so the rest of every seed's program is unchanged.

The NumPy model gives the output its input's array (the same object), so a read of the input after a write to the
output sees it, as in ptoc; Program.expected is wrapped to lay the tensors out that way."""
import random
import types

import numpy as np

import model as M
from model import ModelError, Stmt, rnd

DTYPES = ("fp32", "fp16", "bf16", "int32", "int8")
FLOAT = ("fp32", "fp16", "bf16")


def _expected(self, inputs):
    """Program.expected with in-place outputs: such an output is its input's array."""
    tensors = {n: inputs[n].copy() for n in self.inputs}
    for n, ty in list(self.outputs.items()) + list(self.tensors.items()):
        tensors[n] = tensors[ty["inplace"]] if ty.get("inplace") else np.zeros(self.shape_of(ty))
    M.run_program(self.body, self.dimval, tensors)
    return {n: tensors[n] for n in self.outputs}


def _wrap(v, dt):
    """An integer result as the dtype holds it (int8 wraps, as ptoc's integer arithmetic)."""
    if dt == "int8":
        return ((v + 128) % 256) - 128
    if dt == "int32":
        return ((v + 2 ** 31) % 2 ** 32) - 2 ** 31
    return rnd(v, dt)


class RowUpdate(Stmt):
    """`dst[a:, 0:] = src[b:b + k, :] * m + c`: src and dst name one buffer (the input or its in-place output)."""

    def __init__(self, dst, src, a, b, k, m, c, dtype):
        self.dst, self.src, self.a, self.b, self.k, self.m, self.c, self.dtype = dst, src, a, b, k, m, c, dtype

    def emit(self):
        return f"{self.dst}[{self.a}:, 0:] = {self.src}[{self.b}:{self.b + self.k}, :] * {self.m} + {self.c}"

    def run(self, env):
        t = env["tensors"][self.src]
        if env["tensors"][self.dst] is not t:
            raise ModelError("catalog3: an in-place pair is not one array")
        v = t[self.b:self.b + self.k].copy()
        v = _wrap(v * self.m, self.dtype)
        v = _wrap(v + self.c, self.dtype)
        t[self.a:self.a + self.k] = v


class ScatterUpdate(Stmt):
    """`out = scatter_update(inp, -2, reshape(slots, [S, 1]), SRC)`, SRC rows b.. of the buffer times m (rank 2),
    or reshaped to [S, 1, 1, D] over a [NB, BS, 1, D] cache (rank 4): row j goes to slot slots[j], in order."""

    def __init__(self, out, inp, slots, nslots, b, m, dtype, rank, bs, d):
        self.out, self.inp, self.slots, self.nslots, self.b, self.m = out, inp, slots, nslots, b, m
        self.dtype, self.rank, self.bs, self.d = dtype, rank, bs, d

    def emit(self):
        s, d = self.nslots, self.d
        if self.rank == 2:
            src = f"{self.inp}[{self.b}:{self.b + s}, :] * {self.m}"
        else:
            # rows b.. of the cache seen as [NB * BS, D]
            src = (f"reshape(reshape({self.inp}, [{self.rows()}, {d}])[{self.b}:{self.b + s}, :] * {self.m}, "
                   f"[{s}, 1, 1, {d}])")
        return f"{self.out} = scatter_update({self.inp}, -2, {index_text(self)}, {src})"

    def rows(self):
        return self.nrows

    def run(self, env):
        t = env["tensors"][self.out]
        if env["tensors"][self.inp] is not t:
            raise ModelError("catalog3: an in-place pair is not one array")
        flat = t.reshape(-1, self.d)  # a view: writes go to t
        src = _wrap(flat[self.b:self.b + self.nslots].copy() * self.m, self.dtype)
        for j, s in enumerate(env["tensors"][self.slots].astype(np.int64)):
            flat[s] = src[j]


def index_text(st):
    """The scatter_update index: the slots input reshaped (read by the control flow), or a name bound to a
    value computed from it on the device (_BindIndex)."""
    return st.index_name or f"reshape({st.slots}, [{st.nslots}, 1])"


class _BindIndex(Stmt):
    """lang4: `idx = reshape(slots, [s, 1]) * 1` (int32) or `cast(reshape(slots, [s, 1]), int32)` (int64
    slots): the same slots, computed on the device, so scatter_update compares them there."""

    def __init__(self, name, st, dtype):
        self.name, self.st, self.dtype = name, st, dtype

    def emit(self):
        r = f"reshape({self.st.slots}, [{self.st.nslots}, 1])"
        return f"{self.name} = " + (f"cast({r}, int32)" if self.dtype == "int64" else f"{r} * 1")

    def run(self, env):
        env["values"][self.name] = env["tensors"][self.st.slots].reshape(-1, 1).astype(np.float64)


class FillpadString(Stmt):
    """`out[0:, 0:] = fillpad(view(inp, ...), 'constant', v)`: a whole input window (nothing to fill), with the
    mode written as a string in either quote."""

    def __init__(self, out, inp, quote):
        self.out, self.inp, self.quote = out, inp, quote

    def emit(self):
        q = self.quote
        return f"{self.out}[0:, 0:] = fillpad({self.inp}, mode={q}constant{q}, value=0)"

    def run(self, env):
        env["tensors"][self.out][...] = env["tensors"][self.inp]


def program_hook(g, prog):
    """With probability 1/4 (its own stream): one in-place pair updated at the end of the body."""
    r = random.Random(f"catalog3{g.seed}")
    if "catalog3" in g.avoid or r.random() >= 0.25:
        return
    prog.expected = types.MethodType(_expected, prog)
    dt = r.choice(DTYPES)
    k = len([n for n in prog.inputs if n.startswith("c3")])
    inp, out = f"c3in{k}", f"c3out{k}"
    kind = r.choice(["rows", "scatter2", "scatter4", "fillpad"])
    d = r.choice([8, 16, 32])
    small = "small"
    if kind == "scatter4":
        nb, bs = r.choice([2, 3]), r.choice([2, 4])
        shape = [nb, bs, 1, d]
        nrows = nb * bs
    else:
        nrows = r.randint(4, 12)
        shape = [nrows, d]
    prog.inputs[inp] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[inp] = small if dt not in FLOAT else "normal"
    prog.outputs[out] = {"dtype": dt, "shape": list(shape), "inplace": inp}
    body = prog.body
    if kind == "rows":
        body.append(M.Raw({"vec_tile": [r.choice([2, 4, 16]), d]}))
        for _ in range(r.randint(1, 3)):
            kk = r.randint(1, nrows)
            a, b = r.randint(0, nrows - kk), r.randint(0, nrows - kk)
            m, c = r.choice([1, 2, -1]), r.choice([0, 1, -2])
            # either name as the target and as the source: one buffer
            dst, src = r.choice([inp, out]), r.choice([inp, out])
            body.append(RowUpdate(dst, src, a, b, kk, m, c, dt))
    elif kind == "fillpad":
        if dt not in FLOAT:
            dt = "fp32"
            prog.inputs[inp]["dtype"] = prog.outputs[out]["dtype"] = dt
            prog.kinds[inp] = "normal"
        body.append(M.Raw({"vec_tile": [r.choice([4, 8]), d]}))
        body.append(FillpadString(out, inp, r.choice(["'", "\""])))
    else:
        s = r.randint(1, min(nrows, 6))
        slots = f"c3slots{k}"
        # lang4 (its own stream, so the other draws of every seed stay as they were): int64 slots, PyPTO's
        # DT_INT64 cache index, and an index computed on the device.
        r4 = random.Random(f"lang4{g.seed}")
        slots_dt = r4.choice(["int32", "int64"])
        computed = r4.random() < 0.5
        prog.inputs[slots] = {"dtype": slots_dt, "shape": [s], "values": [0, nrows - 1]}
        prog.kinds[slots] = f"range:0:{nrows - 1}"
        b = r.randint(0, nrows - s)
        rank = 4 if kind == "scatter4" else 2
        body.append(M.Raw({"vec_tile": [s, d] if rank == 2 else [s, 1, 1, d]}))
        if rank == 4:
            body.append(M.Raw({"vec_tile": [s, d]}))  # the [rows, D] view and product
        st = ScatterUpdate(out, r.choice([inp, out]), slots, s, b, r.choice([1, 2, -1]), dt, rank,
                           shape[1] if rank == 4 else 1, d)
        st.nrows = nrows
        st.index_name = f"c3idx{k}" if computed else None
        if computed:  # bound under the rank-2 tile in force (the rank-4 one comes after)
            body.append(_BindIndex(st.index_name, st, slots_dt))
        if rank == 4:
            # the reshape and product need a rank-2 tile, scatter_update a rank-4 one: two statements
            tmp = f"c3src{k}"
            body.append(_Bind4(tmp, st, s, d))
            body.append(M.Raw({"vec_tile": [s, 1, 1, d]}))
            body.append(_Scatter4(st, tmp))
        else:
            body.append(st)


class _Bind4(Stmt):
    """The rank-4 source rows: `tmp = reshape(reshape(inp, [R, D])[b:b + s, :] * m, [s, 1, 1, D])`."""

    def __init__(self, name, st, s, d):
        self.name, self.st, self.s, self.d = name, st, s, d

    def emit(self):
        st = self.st
        return (f"{self.name} = reshape(reshape({st.inp}, [{st.nrows}, {self.d}])[{st.b}:{st.b + self.s}, :] * "
                f"{st.m}, [{self.s}, 1, 1, {self.d}])")

    def run(self, env):
        st = self.st
        flat = env["tensors"][st.inp].reshape(-1, self.d)
        env["values"][self.name] = _wrap(flat[st.b:st.b + self.s].copy() * st.m, st.dtype)


class _Scatter4(Stmt):
    """`out = scatter_update(inp, -2, reshape(slots, [s, 1]), tmp)` over a [NB, BS, 1, D] cache."""

    def __init__(self, st, tmp):
        self.st, self.tmp = st, tmp

    def emit(self):
        st = self.st
        return f"{st.out} = scatter_update({st.inp}, -2, {index_text(st)}, {self.tmp})"

    def run(self, env):
        st = self.st
        t = env["tensors"][st.out]
        if env["tensors"][st.inp] is not t:
            raise ModelError("catalog3: an in-place pair is not one array")
        flat = t.reshape(-1, st.d)
        src = env["values"][self.tmp]
        for j, s in enumerate(env["tensors"][st.slots].astype(np.int64)):
            flat[s] = src[j]
