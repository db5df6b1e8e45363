"""The fuzzer's hook for the language of the fifth round (specs/README.md "Comparisons that mean the first or
last iteration", one_hot of an int64 input): one construct at the end of the body, with its own dims
(`L5N`), inputs (`l5in...`) and outputs (`l5out...`). gen.py calls program_hook() on the finished program; it
draws from its own stream (`lang5{seed}`), so the rest of every seed's program is unchanged.

- `loop_position`: a dynamic loop over L5N (0 to 12 iterations, sometimes in unroll gears [2, 1]) carrying
  two values, with `if` / `cond` on comparisons of its variable with its first value (`j == 0`, `0 == j`,
  `j < 1`, `not j > 0`, `j != 0`) and its last (`j == L5N - 1`, `j + 1 == L5N`, `j >= L5N - 1`,
  `not j < L5N - 1`): ptoc lowers them to loop paths (elaborate_loop_paths.cpp); the model decides each per
  instance (an instance of gear k starts at j).
- `one_hot_int64`: one_hot of an int64 input, classes in and outside 0..C-1, or past int32 (2^40).

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import random

import model as M
from gen_lang import OneHot, RtIf  # noqa: F401 (OneHot: selftest_lang5.py reads it here)

KINDS = ("loop_position", "one_hot_int64")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off
PROB = 0.15

FIRST = (("{j} == 0", True), ("0 == {j}", True), ("{j} < 1", True), ("not {j} > 0", True), ("{j} != 0", False))
LAST = (("{j} == L5N - 1", True), ("{j} + 1 == L5N", True), ("{j} >= L5N - 1", True),
        ("not {j} < L5N - 1", True), ("{j} != L5N - 1", False))


def _inp(st, prog, shape, dt, kind=None):
    st["n"] += 1
    n = f"l5in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind or ("normal" if dt in FLOAT else "small")
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"l5out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def c_loop_position(r, prog, st, dt):
    D = r.choice([16, 32, 64])
    n = r.randint(0, 12)
    prog.dims["L5N"] = {"dynamic": True, "max": 16}
    prog.dimval["L5N"] = n
    x = _inp(st, prog, ["L5N", D], dt)
    oa, oc = _out(st, prog, [1, D], dt), _out(st, prog, [1, D], dt)
    gears = r.random() < 0.4
    k = "l5k" if gears else 1
    j = "l5j"
    wrong = WRONG == "loop_position"
    first, first_true = r.choice(FIRST)
    last, last_true = r.choice(LAST)
    first, last = first.format(j=j), last.format(j=j)
    s = M.Red("sum", M.Slice(x, dt, [j, 0], [f"{j} + {k}", D]), 0, True, dt)
    start = [M.Bind("l5a", M.Bin("*", M.Ref("l5s", dt), M.Const(2, dt), dt))]
    more = [M.Bind("l5a", M.Bin("+", M.Ref("l5a", dt), M.Ref("l5s", dt), dt))]

    def is_first(d):
        return (d[j] == 0) != wrong

    def is_last(d):
        return d[j] == M.dim_eval("L5N", d) - 1

    t1, e1 = (start, more) if first_true else (more, start)
    body = [M.Raw({"vec_tile": [1, D]}), M.Bind("l5s", s),
            RtIf(r.choice(["if", "cond"]), first, (lambda d: is_first(d)) if first_true else (lambda d: not is_first(d)),
                 t1, e1)]
    bump = [M.Bind("l5c", M.Bin("+", M.Ref("l5c", dt), M.Const(5, dt), dt))]
    keep = [M.Bind("l5c", M.Bin("-", M.Ref("l5c", dt), M.Ref("l5s", dt), dt))]
    t2, e2 = (bump, keep) if last_true else (keep, bump)
    body.append(RtIf(r.choice(["if", "cond"]), last, (lambda d: is_last(d)) if last_true else (lambda d: not is_last(d)),
                     t2, e2 if r.random() < 0.7 else None))
    carry = {"l5a": M.Full([1, D], 0, dt), "l5c": M.Full([1, D], 1, dt)}
    loop = M.Loop(j, "L5N", body, unroll=[2] if gears else None, factor="l5k" if gears else None, carry=carry)
    prog.body.append(M.Raw({"vec_tile": [1, D]}))  # the carried values' full()
    prog.body.append(loop)
    prog.body.append(M.Raw({"vec_tile": [1, D]}))
    prog.body.append(M.Assemble(oa, [0, 0], M.Ref("l5a", dt)))
    prog.body.append(M.Assemble(oc, [0, 0], M.Ref("l5c", dt)))


class WrongOneHot(OneHot):
    """one_hot whose model wraps int64 classes to int32 (selftest only): 2^32 + c would hit class c."""

    def ev(self, env):
        v = self.a.ev(env)
        v = M.Value(((v.a.astype("int64") + 2 ** 31) % 2 ** 32 - 2 ** 31).astype("float64") + 1, v.valid)
        a, self.a = self.a, _Fixed(v)
        try:
            return super().ev(env)
        finally:
            self.a = a


class _Fixed(M.Node):
    def __init__(self, v):
        self.v = v

    def ev(self, env):
        return self.v


def c_one_hot_int64(r, prog, st, dt):
    C = r.choice([3, 8, 16])
    shape = r.choice([[r.randint(1, 12)], [r.randint(1, 4), r.randint(1, 6)]])
    kind = r.choice([f"range:-2:{C + 2}", "wide"])
    ix = _inp(st, prog, shape, "int64", kind=kind)
    o = _out(st, prog, shape + [C], "int32")
    node = (WrongOneHot if WRONG == "one_hot_int64" else OneHot)(M.Ref(ix, "int64"), C)
    prog.body.append(M.Raw({"vec_tile": [1] * len(shape) + [C] if r.random() < 0.5 else shape + [C]}))
    val = M.Ref("l5h", "int32")
    prog.body.append(M.Bind("l5h", node))
    prog.body.append(M.Assemble(o, [0] * (len(shape) + 1), val))


CONSTRUCTS = {"loop_position": c_loop_position, "one_hot_int64": c_one_hot_int64}


def program_hook(g, prog):
    """With probability PROB (its own stream): one fifth-round construct at the end of the body."""
    r = random.Random(f"lang5{g.seed}")
    if "lang5" in g.avoid:
        return
    if FORCE is None and r.random() >= PROB:
        return
    if FORCE is not None:
        r.random()
    kind = FORCE or r.choice(KINDS)
    dt = r.choice(FLOAT)
    st = {"n": 0}
    CONSTRUCTS[kind](r, prog, st, dt)
    prog.lang5 = [kind]


def used(prog):
    return list(getattr(prog, "lang5", None) or [])
