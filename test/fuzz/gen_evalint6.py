"""The fuzzer's hook for int64 past 2^53 (issue 13): one construct at the end of the body with its own inputs
(`e6in...`, int64 values near +-2^62 of the input kind "huge") and outputs (`e6out...`), drawn from its own
stream (`evalint6{seed}`), so the rest of every seed's program is unchanged. Per seed, with probability PROB,
one of:

- `move`: transpose and concat of int64 tensors, and the low 32 bits of the moved values (`cast(.., int32)`);
- `index_put`: `index_put_` of int64 rows into an int64 input (indices repeat: the later write wins; one past
  the axis writes nothing), and its low 32 bits;
- `low_bits`: `cast(h, int32)` (the low 32 bits, as NumPy's astype) then `*`, `+` and `cumsum` wrapping in int32.

The model holds the int64 inputs as NumPy int64 (exact) and computes in integer arithmetic; its int32 outputs
are exact in the float64 comparison, so a lost low bit shows there, and `ptorun --check` compares the int64
outputs with the evaluator bit for bit. WRONG (a selftest) adds 1 to the first exact
int32 output (a lost lowest bit; the float64 comparison of an int64 output near 2^62 cannot see one there)."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402

KINDS = ("move", "index_put", "low_bits")
FORCE = None
WRONG = False
PROB = 0.15


def wrap32(x):
    """int64 values -> the int32 they wrap to (two's complement), as float64 (exact)."""
    x = np.asarray(x, np.int64)
    return (((x + 2 ** 31) & 0xFFFFFFFF) - 2 ** 31).astype(np.float64)


def exact(env, name):
    return np.asarray(env["tensors"][name]).astype(np.int64)


class E6(M.Node):
    """One construct's value from the exact int64 inputs (by name). Its text is the spec expression."""

    def __init__(self, text, fn, names, wrong=False):
        self.t, self.fn, self.names, self.wrong = text, fn, list(names), wrong

    def children(self):
        return []

    def text(self):
        return self.t

    def ev(self, env):
        r = self.fn(*[exact(env, n) for n in self.names])
        if self.wrong:
            r = r ^ 1 if r.dtype == np.int64 else r + 1
        a = np.array(r)
        return Value(a if a.dtype == np.int64 else a.astype(np.float64), a.shape)


def _inp(st, prog, shape, dt, kind):
    st["n"] += 1
    n = f"e6in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"e6out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def _put(st, prog, shape, dt, node):
    prog.body.append(M.Assemble(_out(st, prog, shape, dt), [0] * len(shape), node))


def construct(r, prog, kind):
    st = {"n": 0}
    R, D = r.choice([2, 4, 8]), r.choice([8, 16])
    prog.body.append(M.Raw({"vec_tile": [R, D]}))
    w = WRONG
    if kind == "move":
        h = _inp(st, prog, [R, D], "int64", "huge")
        h2 = _inp(st, prog, [R, D], "int64", "huge")
        _put(st, prog, [D, R], "int64", E6(f"transpose({h}, 0, 1)", lambda a: a.T.copy(), [h]))
        _put(st, prog, [2 * R, D], "int64", E6(f"concat([{h}, {h2}], 0)", lambda a, b: np.concatenate([a, b], 0),
                                                [h, h2]))
        _put(st, prog, [D, R], "int32", E6(f"cast(transpose({h}, 0, 1), int32)", lambda a: wrap32(a.T), [h], w))
    elif kind == "index_put":
        T = r.choice([2, 3, 5])
        h = _inp(st, prog, [R, D], "int64", "huge")
        ix = _inp(st, prog, [T], "int32", f"range:0:{R}")  # R itself is one past the axis: writes nothing
        pv = _inp(st, prog, [T, D], "int64", "huge")

        def put(a, i, v):
            out = a.copy()
            for t, row in enumerate(i):
                if 0 <= row < a.shape[0]:
                    out[row] = v[t]
            return out
        _put(st, prog, [R, D], "int64", E6(f"index_put_({h}, [{ix}], {pv})", put, [h, ix, pv]))
        _put(st, prog, [R, D], "int32", E6(f"cast(index_put_({h}, [{ix}], {pv}), int32)",
                                           lambda a, i, v: wrap32(put(a, i, v)), [h, ix, pv], w))
    else:
        h = _inp(st, prog, [R, D], "int64", "huge")
        h2 = _inp(st, prog, [R, D], "int64", "huge")
        lo, lo2 = f"cast({h}, int32)", f"cast({h2}, int32)"
        _put(st, prog, [R, D], "int32", E6(f"{lo} * {lo2}", lambda a, b: wrap32(wrap32(a).astype(np.int64) *
                                                                             wrap32(b).astype(np.int64)), [h, h2], w))
        _put(st, prog, [R, D], "int32", E6(f"{lo} + {lo2}", lambda a, b: wrap32(wrap32(a).astype(np.int64) +
                                                                             wrap32(b).astype(np.int64)), [h, h2]))
        _put(st, prog, [R, D], "int32", E6(f"cumsum({lo}, 1)",
                                           lambda a: wrap32(np.cumsum(wrap32(a).astype(np.int64), 1)), [h]))


def program_hook(g, prog):
    """With probability PROB (its own stream): one int64 construct at the end of the body."""
    drawn = hook_stream.draw(g, "evalint6", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.evalint6 = [kind]


def used(prog):
    return ["evalint6_" + k for k in (getattr(prog, "evalint6", None) or [])]
