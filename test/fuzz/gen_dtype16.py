"""The fuzzer's hook for int16, uint16, uint32 and uint64 (PyPTO's DT_INT16 DT_UINT16 DT_UINT32 DT_UINT64,
issue 13): one construct at the end of the body with its own inputs (`d16in...`) and outputs (`d16out...`),
drawn from its own stream (`dtype16{seed}`, after every other hook), so the rest of every seed's program is
unchanged. Per seed, with probability PROB, one of:

- `u64`: uint64 values around 2^63 (kind "huge", exact): comparisons of sliced operands (a window of columns
  against another), maximum, bitwise_xor, amax over a row, wrapping add, and the low 32 bits of it (cast to
  uint32, exact in the float64 comparison);
- `u32`: uint32 values around 2^31 (where signed and unsigned orderings differ): gt, minimum, amin over a
  column (tails), cast to int32 with saturation, wrapping sum;
- `i16`: int16 over its whole range: wrapping add and mul, sum over a row (wraps), maximum, cast to int8 with
  saturation, expand_clone of a column;
- `u16`: uint16 over its whole range: wrapping sub, bitwise_and, ge, full, cast of an fp32 input with
  CAST_FLOOR and saturation;
- `ops16`: the integer catalogue ops on one of int16 / uint16 / uint32 over its whole range: shifts by a
  constant (counts in and past the width: 0 for a left shift, the sign fill for a right one), gcd, remainder
  and floor_div by a small divisor (zeros: x % 0 is 0), bitwise_not, signbit (int16), zeros / ones (int16),
  interleave, deinterleave and gathermask (modes 1 to 6).

The model holds the inputs as NumPy integers of the dtype (exact) and computes with NumPy's wrapping integer
arithmetic; `ptorun --check` compares the outputs with the evaluator bit for bit. WRONG (a selftest) flips the
lowest bit of the first output."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402

KINDS = ("u64", "u32", "i16", "u16", "ops16")
FORCE = None
WRONG = False
PROB = 0.15
NP = {"int16": np.int16, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "int8": np.int8,
      "int32": np.int32, "bool": np.bool_, "fp32": np.float32}


def exact(env, name, dt):
    a = np.asarray(env["tensors"][name])
    return a if a.dtype == NP[dt] else a.astype(NP[dt])


class D16(M.Node):
    """One construct's value from the exact inputs (name, dtype). Its text is the spec expression."""

    def __init__(self, text, fn, names, wrong=False):
        self.t, self.fn, self.names, self.wrong = text, fn, list(names), wrong

    def children(self):
        return []

    def text(self):
        return self.t

    def ev(self, env):
        with np.errstate(over="ignore"):
            r = np.array(self.fn(*[exact(env, n, d) for n, d in self.names]))
        if self.wrong:
            r = r ^ np.array(1, r.dtype) if r.dtype != np.float32 else r + 1
        return Value(r if r.dtype in (np.uint64, np.int64) else r.astype(np.float64), r.shape)


def construct(r, prog, kind):
    st = {"n": 0}
    R, D = r.choice([3, 5, 8, 13]), r.choice([8, 16])
    h = D // 2
    prog.body.append(M.Raw({"vec_tile": [r.choice([2, 4, 8]), D]}))
    w = [WRONG]

    def inp(dt, k):
        st["n"] += 1
        n = f"d16in{st['n']}"
        prog.inputs[n] = {"dtype": dt, "shape": [R, D]}
        prog.kinds[n] = k
        return n

    def put(shape, dt, text, fn, names):
        st["n"] += 1
        o = f"d16out{st['n']}"
        prog.outputs[o] = {"dtype": dt, "shape": list(shape)}
        prog.body.append(M.Assemble(o, [0] * len(shape), D16(text, fn, names, w[0])))
        w[0] = False

    if kind == "u64":
        a, b = inp("uint64", "huge"), inp("uint64", "huge")
        ab = [(a, "uint64"), (b, "uint64")]
        put([R, h], "bool", f"gt({a}[0:, 0:{h}], {b}[0:, {h}:{D}])", lambda x, y: x[:, :h] > y[:, h:], ab)
        put([R, D], "bool", f"le({a}, {b})", lambda x, y: x <= y, ab)
        put([R, D], "uint64", f"maximum({a}, {b})", np.maximum, ab)
        put([R, D], "uint64", f"bitwise_xor({a}, {b})", lambda x, y: x ^ y, ab)
        put([R, 1], "uint64", f"amax({a}, 1, keepdim=True)", lambda x: np.amax(x, 1, keepdims=True), ab[:1])
        put([R, D], "uint32", f"cast({a} + {b}, uint32)", lambda x, y: (x + y).astype(np.uint32), ab)
    elif kind == "u32":
        a, b = inp("uint32", "huge"), inp("uint32", "huge")
        ab = [(a, "uint32"), (b, "uint32")]
        put([R, h], "bool", f"gt({a}[0:, {h}:{D}], {b}[0:, 0:{h}])", lambda x, y: x[:, h:] > y[:, :h], ab)
        put([R, D], "uint32", f"minimum({a}, {b})", np.minimum, ab)
        put([1, D], "uint32", f"amin({a}, 0, keepdim=True)", lambda x: np.amin(x, 0, keepdims=True), ab[:1])
        put([R, D], "int32", f"cast({a}, int32, satmode=ON)",
            lambda x: np.minimum(x, np.uint32(2 ** 31 - 1)).astype(np.int32), ab[:1])
        put([R, 1], "uint32", f"sum({a} + {b}, 1, keepdim=True)",
            lambda x, y: np.sum(x + y, 1, dtype=np.uint32, keepdims=True), ab)
    elif kind == "i16":
        a, b = inp("int16", "wide"), inp("int16", "wide")
        ab = [(a, "int16"), (b, "int16")]
        put([R, h], "int16", f"{a}[0:, 0:{h}] + {b}[0:, {h}:{D}]", lambda x, y: x[:, :h] + y[:, h:], ab)
        put([R, D], "int16", f"{a} * {b}", lambda x, y: x * y, ab)
        put([R, 1], "int16", f"sum({a}, 1, keepdim=True)", lambda x: np.sum(x, 1, dtype=np.int16, keepdims=True),
            ab[:1])
        put([R, D], "int16", f"maximum({a}, {b})", np.maximum, ab)
        put([R, D], "int8", f"cast({a}, int8, satmode=ON)", lambda x: np.clip(x, -128, 127).astype(np.int8), ab[:1])
        put([R, D], "int16", f"expand_clone({b}[0:, 1:2], [{R}, {D}])", lambda y: np.repeat(y[:, 1:2], D, 1), ab[1:])
    elif kind == "ops16":
        dt = r.choice(["int16", "uint16", "uint32"])
        bits = 32 if dt == "uint32" else 16
        a, b = inp(dt, "wide"), inp(dt, "small")
        ab = [(a, dt), (b, dt)]
        wide = np.int64 if dt != "uint32" else np.uint64
        left, right = r.choice([0, 1, 3, bits - 1, bits, bits + 3]), r.choice([0, 2, bits - 1, bits + 1])

        def shl(x, n=left):
            return np.zeros_like(x) if n >= bits else (x.astype(wide) << wide(n)).astype(x.dtype)

        def shr(x, n=right):
            return (x.astype(np.int64) >> min(n, 63)).astype(x.dtype)

        def rem(x, y):
            x64, y64 = x.astype(np.int64), y.astype(np.int64)
            return np.where(y64 == 0, 0, np.remainder(x64, np.where(y64 == 0, 1, y64))).astype(x.dtype)

        put([R, D], dt, f"bitwise_left_shift({a}, {left})", shl, ab[:1])
        put([R, D], dt, f"bitwise_right_shift({a}, {right})", shr, ab[:1])
        put([R, D], dt, f"gcd({a}, {b})", lambda x, y: np.gcd(x.astype(np.int64), y.astype(np.int64)).astype(x.dtype), ab)
        put([R, D], dt, f"remainder({a}, {b})", rem, ab)
        put([R, D], dt, f"floor_div({a}, 3)", lambda x: np.floor_divide(x.astype(np.int64), 3).astype(x.dtype), ab[:1])
        put([R, D], dt, f"bitwise_not({a})", lambda x: ~x, ab[:1])
        if dt == "int16":
            put([R, D], "bool", f"signbit({a})", lambda x: x < 0, ab[:1])
            put([R, D], dt, f"ones([{R}, {D}], dtype=DT_INT16) + {a}", lambda x: x + np.int16(1), ab[:1])
        i0, i1 = f"d16il{st['n']}a", f"d16il{st['n']}b"
        prog.body.append(M.Raw(f"{i0}, {i1} = interleave({a}, {b})"))
        stream = lambda x, y: np.stack([x, y], -1).reshape(R, 2 * D)
        put([R, D], dt, i0, lambda x, y: stream(x, y)[:, :D], ab)
        put([R, D], dt, i1, lambda x, y: stream(x, y)[:, D:], ab)
        e0, e1 = f"d16dl{st['n']}a", f"d16dl{st['n']}b"
        prog.body.append(M.Raw(f"{e0}, {e1} = deinterleave({a})"))
        put([R, h], dt, e0, lambda x: x[:, 0::2], ab[:1])
        put([R, h], dt, e1, lambda x: x[:, 1::2], ab[:1])
        mode = r.randint(1, 6)
        step, k = (2, mode - 1) if mode <= 2 else (4, mode - 3)
        put([R, D // step], dt, f"gathermask({b}, {mode})", lambda y: y[:, k::step], ab[1:])
    else:
        a, b = inp("uint16", "wide"), inp("uint16", "wide")
        st["n"] += 1
        f = f"d16in{st['n']}"
        prog.inputs[f] = {"dtype": "fp32", "shape": [R, D]}
        prog.kinds[f] = "half"
        ab = [(a, "uint16"), (b, "uint16")]
        put([R, h], "uint16", f"{a}[0:, {h}:{D}] - {b}[0:, 0:{h}]", lambda x, y: x[:, h:] - y[:, :h], ab)
        put([R, D], "uint16", f"bitwise_and({a}, {b})", lambda x, y: x & y, ab)
        put([R, D], "bool", f"ge({a}, {b})", lambda x, y: x >= y, ab)
        put([R, D], "uint16", f"full([{R}, {D}], 65535, uint16)", lambda x: np.full((R, D), 65535, np.uint16), ab[:1])
        put([R, D], "uint16", f"cast({f} * 300, uint16, mode=CAST_FLOOR, satmode=ON)",
            lambda x: np.clip(np.floor(x.astype(np.float64) * 300), 0, 65535).astype(np.uint16), [(f, "fp32")])


def program_hook(g, prog):
    """With probability PROB (its own stream): one construct of the new integer dtypes at the end of the body."""
    drawn = hook_stream.draw(g, "dtype16", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.dtype16 = [kind]


def used(prog):
    return ["dtype16_" + k for k in (getattr(prog, "dtype16", None) or [])]
