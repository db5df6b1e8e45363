"""The fuzzer's hook for the 8-bit floats (fp8e4m3 fp8e5m2 fp8e8m0, specs/README.md): one statement at the end
of the body with its own inputs (`f8in...`) and outputs (`f8out...`), drawn from its own stream (`fp8_19{seed}`,
after every other hook), so the rest of every seed's program is unchanged; a program that draws one is
compiled for ascend950pr (PyPTO has fp8 there only). Per seed, with probability PROB, one of:

- `down`: cast of an fp32 / fp16 / bf16 [R, N] input (values at the fp8 rounding boundaries, or normal
  values scaled up to the saturation range) to fp8e4m3 or fp8e5m2, over a vec_tile with a tail;
- `up`: cast of an fp8e4m3 / fp8e5m2 / fp8e8m0 input (every code) to fp32 / fp16 / bf16 (bf16 / fp32 for e8m0);
- `roundtrip`: fp32 -> fp8e4m3 / fp8e5m2 -> fp32 in one kernel.

The model is numerics.fp8_encode / fp8_decode (field by field, nearest code with ties to even). WRONG (a
selftest) breaks it: every result doubled (one power of two off)."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402
from numerics import rnd  # noqa: E402

KINDS = ("down", "up", "roundtrip")
FORCE = None
WRONG = False
PROB = 0.1


class Fp8Cast(M.Node):
    """cast(a, dtype) where a or dtype is an 8-bit float: bit-exact, NaN and inf kept."""

    def __init__(self, a, dtype, wrong=False):
        self.a, self.dtype, self.wrong = a, dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"cast({self.a.text()}, {self.dtype})"

    def ev(self, env):
        v = self.a.ev(env)
        with np.errstate(all="ignore"):
            r = rnd(v.a, self.dtype)
            if self.wrong:
                r = r * 2.0  # one power of two off: every nonzero finite result changes
        out = np.full(v.a.shape, np.nan)
        box = tuple(slice(0, n) for n in v.valid)
        out[box] = r[box]
        return Value(out, v.valid)


def construct(r, prog, kind):
    R, N = r.randint(1, 40), r.choice([16, 32, 48, 64])
    T = r.choice([8, 16]) if R > 8 else R
    prog.target = "ascend950pr"
    shape = [R, N]
    prog.body.append(M.Raw({"vec_tile": [T, N]}))
    if kind == "up":
        src = r.choice(["fp8e4m3", "fp8e5m2", "fp8e8m0"])
        dst = r.choice(["fp32", "bf16"] if src == "fp8e8m0" else ["fp32", "fp16", "bf16"])
        prog.inputs["f8in1"] = {"dtype": src, "shape": shape}
        node = Fp8Cast(M.Ref("f8in1", src), dst, wrong=WRONG)
    else:
        src = "fp32" if kind == "roundtrip" else r.choice(["fp32", "fp16", "bf16"])
        mid = r.choice(["fp8e4m3", "fp8e5m2"])
        prog.inputs["f8in1"] = {"dtype": src, "shape": shape}
        prog.kinds["f8in1"] = r.choice(["fp8edges", "normal"])
        node = Fp8Cast(M.Ref("f8in1", src), mid, wrong=WRONG)
        dst = mid
        if kind == "roundtrip":
            node, dst = Fp8Cast(node, "fp32"), "fp32"
    prog.outputs["f8out1"] = {"dtype": dst, "shape": shape}
    prog.body.append(M.Assemble("f8out1", [0, 0], node))


def program_hook(g, prog):
    """With probability PROB (its own stream): one fp8 cast at the end of the body (target ascend950pr)."""
    drawn = hook_stream.draw(g, "fp8_19", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.fp8_19 = [kind]


def used(prog):
    return ["fp8_19_" + k for k in (getattr(prog, "fp8_19", None) or [])]
