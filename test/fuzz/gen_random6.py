"""The fuzzer's hook for the random6 ops, PyPTO's uniform / normal (specs/README.md section 8): one
statement at the end of the body with its own outputs (`r6out...`) and inputs (`r6in...`), drawn from its
own stream (`random6{seed}`, after every other hook), so the rest of every seed's program is unchanged.
Per seed, with probability PROB, one of:

- `uniform`: uniform of a [R, D] shape (D a multiple of 4), fp32 / fp16 / bf16, random key (up to 2^40),
  counter (counter[0] ignored, counter[1] up to 2^36) and alg 1 or 3, under a vec_tile whose last entry is a
  multiple of 4 (tails on both axes);
- `normal`: normal of a small [R, D] shape under the whole-shape vec_tile (PyPTO's rule);
- `mix`: uniform or normal used as a value, `x * u + x` with a float input x, or of rank 1 or 3.

The model is the NumPy Philox 4x32-10 of test/conformance/philox_ref.py (each op rounded to its dtype).
WRONG (a selftest) breaks it."""
import os
import sys

import numpy as np

import model as M
from model import Value, rnd
import hook_stream  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import philox_ref as P  # noqa: E402

KINDS = ("uniform", "normal", "mix")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = False
PROB = 0.2


class Random6(M.Node):
    """uniform / normal(shape, [key], [c0, c1], [alg], dtype): no tensor operands."""

    def __init__(self, fn, shape, key, counter, alg, dtype, wrong=False):
        self.fn, self.shape, self.key, self.counter, self.alg = fn, list(shape), key, list(counter), alg
        self.dtype, self.wrong = dtype, wrong

    def text(self):
        return (f"{self.fn}({self.shape}, [{self.key}], [{self.counter[0]}, {self.counter[1]}], [{self.alg}], "
                f"{self.dtype})")

    def ev(self, env):
        if self.fn == "uniform":
            r = P.uniform(self.shape, self.key, self.counter[1], self.dtype)
        else:
            r = rnd(P.normal(self.shape, self.key, self.counter[1]), self.dtype)
        if self.wrong:
            r = r + 1
        return Value(np.array(r, np.float64), self.shape)


def _draw_args(r):
    key = r.choice([0, 1234, (1 << 33) + 5, r.randrange(1 << 40)])
    counter = [r.choice([0, 7, r.randrange(1 << 20)]), r.choice([0, 1, r.randrange(1 << 36)])]
    return key, counter, r.choice([1, 3])


def construct(r, prog, kind):
    dt = r.choice(FLOAT)
    key, counter, alg = _draw_args(r)
    if kind == "uniform":
        shape = [r.randint(1, 20), r.choice([4, 8, 16, 24, 40, 64])]
        prog.body.append(M.Raw({"vec_tile": [r.choice([1, 3, 4, 8, 16]), r.choice([4, 8, 12, 16, 32])]}))
        node = Random6("uniform", shape, key, counter, alg, dt, wrong=WRONG)
    elif kind == "normal":
        shape = [r.randint(1, 8), r.choice([4, 8, 12, 16, 20])]
        prog.body.append(M.Raw({"vec_tile": list(shape)}))
        node = Random6("normal", shape, key, counter, alg, dt, wrong=WRONG)
    else:
        fn = r.choice(["uniform", "normal"])
        rank = r.choice([1, 2, 3])
        shape = {1: [r.choice([4, 12, 36])], 2: [r.randint(1, 6), r.choice([4, 8, 12])],
                 3: [r.randint(1, 3), r.randint(1, 4), r.choice([4, 8])]}[rank]
        tile = list(shape) if fn == "normal" else [max(1, s // 2) for s in shape[:-1]] + [4]
        prog.body.append(M.Raw({"vec_tile": tile}))
        node = Random6(fn, shape, key, counter, alg, dt, wrong=WRONG)
        if rank == 2:
            prog.inputs["r6in1"] = {"dtype": dt, "shape": list(shape)}
            prog.kinds["r6in1"] = "normal"
            x = M.Ref("r6in1", dt)
            node = M.Bin("+", M.Bin("*", x, node, dt), x, dt)
    o = "r6out1"
    prog.outputs[o] = {"dtype": dt, "shape": list(shape)}
    prog.body.append(M.Assemble(o, [0] * len(shape), node))


def program_hook(g, prog):
    """With probability PROB (its own stream): one uniform / normal statement at the end of the body."""
    drawn = hook_stream.draw(g, "random6", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.random6 = [kind]


def used(prog):
    return ["random6_" + k for k in (getattr(prog, "random6", None) or [])]
