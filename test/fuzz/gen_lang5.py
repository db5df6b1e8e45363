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
- `nested_list`: `l5t = [[...], [...], [...]]`, a row chosen per unroll gear (`l5r = l5t[i]`, Python's negative
  index sometimes) read whole by `vec_tile: l5r`, and entries `l5t[i][j]` / `l5r[j]` as scalar operands.
- `split_k_const`: int8 x int8 -> int32 matmul under `cube_tile: {..., split_k: l5sk}`, l5sk a constant bound
  directly or in an `if` on another constant (exact either way).

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import random

import model as M
from gen_lang import OneHot, RtIf  # noqa: F401 (OneHot: selftest_lang5.py reads it here)
import hook_stream  # noqa: E402

KINDS = ("loop_position", "one_hot_int64", "nested_list", "split_k_const")
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


class Text(M.Stmt):
    """A statement string with a model side effect `fx(env)` (a constant list the model keeps in env)."""

    def __init__(self, text, fx=None):
        self.text, self.fx = text, fx

    def emit(self):
        return self.text

    def run(self, env):
        if self.fx:
            self.fx(env)


class Scalar(M.Const):
    """A scalar operand written as a constant list's entry; its value from the model's env."""

    def __init__(self, text, value_of, dtype):
        super().__init__(0, dtype)
        self.name, self.value_of = text, value_of

    def text(self):
        return self.name

    def ev(self, env):
        self.value = self.value_of(env)
        return None


def c_nested_list(r, prog, st, dt):
    D = r.choice([32, 64])
    T = r.randint(1, 30)
    prog.dims["L5T"] = {"dynamic": True, "max": 32}
    prog.dimval["L5T"] = T
    x = _inp(st, prog, ["L5T", D], dt)
    o = _out(st, prog, ["L5T", D], dt)
    big = r.choice([8, 4])
    gears = [big, big // 2]  # and 1
    rows = {1: [1, D], big // 2: [big // 2, r.choice([16, D])], big: [big, r.choice([16, 32])]}
    table = [rows[1], rows[big // 2], rows[big]]
    r.shuffle(table)
    pos = {k: table.index(v) for k, v in rows.items()}
    wrong = 1 if WRONG == "nested_list" else 0

    def idx(k):
        i = pos[k]
        return i - len(table) if r.random() < 0.3 else i  # Python's negative index

    text = "l5t = [" + ", ".join(f"[{a}, {b}]" for a, b in table) + "]"
    body = [M.Raw({"vec_tile": [1, D]}), Text(text)]
    i2, i1, i0 = idx(big), idx(big // 2), idx(1)
    inner = [M.Raw({"if": f"l5g == {big}", "then": [f"l5r = l5t[{i2}]"], "else": [f"l5r = l5t[{i1}]"]}),
             M.Raw({"if": "l5g == 1", "then": [f"l5r = l5t[{i0}]"]}),
             M.Raw({"vec_tile": "l5r"})]
    ei, ej = r.randrange(3), r.randrange(2)
    e = M.Bin("*", M.Slice(x, dt, ["l5b", 0], ["l5b + l5g", D]),
              Scalar(f"l5t[{ei}][{ej}]", lambda env: table[ei][ej] + wrong, dt), dt)
    e = M.Bin("+", e, Scalar("l5r[1]", lambda env: rows[env["dims"]["l5g"]][1], dt), dt)
    inner.append(M.Assemble(o, ["l5b", 0], e))
    body.append(M.Loop("l5b", "L5T", inner, unroll=gears, factor="l5g"))
    prog.body.extend(body)


class WrongMatmul(M.Matmul):
    """A matmul whose model is off by one in one element (selftest only): the spec's text is unchanged."""

    def ev(self, env):
        v = super().ev(env)
        v.a[0, 0] += 1
        return v


def c_split_k_const(r, prog, st, dt):
    Mr, K, N = r.randint(1, 40), r.choice([64, 300, 1024]), r.choice([16, 32, 72])
    a = _inp(st, prog, [Mr, K], "int8")
    b = _inp(st, prog, [K, N], "int8")
    o = _out(st, prog, [Mr, N], "int32")
    if r.random() < 0.5:
        binds = [Text(f"l5sk = {r.choice(['True', 'False'])}")]
    else:
        binds = [Text(f"l5kk = {r.randint(1, 4)}"),
                 M.Raw({"if": f"l5kk > {r.randint(1, 3)}", "then": ["l5sk = True"], "else": ["l5sk = False"]})]
    val = (WrongMatmul if WRONG == "split_k_const" else M.Matmul)(M.Ref(a, "int8"), M.Ref(b, "int8"), "int32")
    prog.body.extend(binds + [
        M.Raw({"vec_tile": [min(Mr, 16), N]}),
        M.Raw({"cube_tile": {"m": [16, 48], "k": [64, 256], "n": [16, 32] if N != 72 else [32, 64], "split_k": "l5sk"}}),
        M.Assemble(o, [0, 0], val)])


CONSTRUCTS = {"loop_position": c_loop_position, "one_hot_int64": c_one_hot_int64, "nested_list": c_nested_list,
              "split_k_const": c_split_k_const}


def program_hook(g, prog):
    """With probability PROB (its own stream): one fifth-round construct at the end of the body."""
    drawn = hook_stream.draw(g, "lang5", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    dt = r.choice(FLOAT)
    st = {"n": 0}
    CONSTRUCTS[kind](r, prog, st, dt)
    prog.lang5 = [kind]


def used(prog):
    return list(getattr(prog, "lang5", None) or [])
