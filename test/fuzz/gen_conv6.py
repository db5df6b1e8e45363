"""The fuzzer's hook for conv6's ops (specs/README.md section 8, "Convolution"): one statement at the end of the
body with its own inputs (`c6in...`) and outputs (`c6out...`), drawn from its own stream (`conv6{seed}`), so the
rest of every seed's program is unchanged. Per seed, with probability PROB, one of:

- `conv1d`: conv of an [N, Cin, W] input, random kernel, strides, paddings (below the kernel), dilations,
  groups, an optional bias and relu, in fp32, fp16 or bf16 (bf16 with an fp32 bias); in NONFINITE of them
  the input holds inf, -inf and NaN (numerics.make_input's "nonfinite");
- `conv2d`: the same on [N, Cin, H, W];
- `gather_in_l1`: the paged gather of token rows (an index one below and one past the table, a block past
  src: rows of 0), the first `size` columns, assembled straight or fed to a matmul; in NONFINITE of the float
  ones src holds inf, -inf and NaN.

The model restates the ops in NumPy: conv as a direct loop over output positions and kernel taps, the sum
rounded once to fp32, bias and relu in fp32, then the cast. WRONG (a selftest) breaks it."""
import itertools

import numpy as np

import model as M
from model import Value, rnd
import hook_stream  # noqa: E402

KINDS = ("conv1d", "conv2d", "gather_in_l1")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = False
PROB = 0.2
NONFINITE = 0.3  # conv7: the share of convs whose input holds inf, -inf and NaN


def conv_ref(x, w, strides, pads, dil, groups, bias=None, relu=False, out="fp16"):
    """x [N, Cin, *S], w [Cout, Cin / groups, *K], pads [lo0, hi0, ...]; a direct loop."""
    N, Cout, Cw = x.shape[0], w.shape[0], w.shape[1]
    S, K = x.shape[2:], w.shape[2:]
    sd = len(S)
    O = [(S[a] + pads[2 * a] + pads[2 * a + 1] - dil[a] * (K[a] - 1) - 1) // strides[a] + 1 for a in range(sd)]
    y = np.zeros((N, Cout) + tuple(O))
    cg = Cout // groups
    for co in range(Cout):
        xs = x[:, (co // cg) * Cw:(co // cg + 1) * Cw]
        for o in itertools.product(*[range(n) for n in O]):
            acc = np.zeros(N)
            for k in itertools.product(*[range(n) for n in K]):
                pos = [o[a] * strides[a] + k[a] * dil[a] - pads[2 * a] for a in range(sd)]
                if all(0 <= pos[a] < S[a] for a in range(sd)):
                    acc += xs[(slice(None), slice(None)) + tuple(pos)] @ w[(co, slice(None)) + k]
            y[(slice(None), co) + o] = acc
    y = rnd(y, "fp32")
    if bias is not None:
        y = rnd(y + bias.reshape((1, Cout) + (1,) * sd), "fp32")
    if relu:
        y = np.maximum(y, 0.0)
    return rnd(y, out)


def gather_ref(src, ix, bt, bs, size):
    """Rows src[bt[0, t // bs] * bs + t % bs, :size] for t in ix[0]; a row of 0 outside the table or src."""
    T = src.shape[0]
    out = np.zeros((ix.shape[1], size))
    for j, t in enumerate(ix[0].astype(np.int64)):
        if t < 0 or t // bs >= bt.shape[1]:
            continue
        row = int(bt[0, t // bs]) * bs + t % bs
        if 0 <= row < T:
            out[j] = src[row, :size]
    return out


class Conv6(M.Node):
    """conv(x, w, ...) or gather_in_l1(src, ix, bt, ...) over input refs."""

    def __init__(self, fn, args, dtype, attrs, wrong=False):
        self.fn, self.args, self.dtype, self.attrs, self.wrong = fn, list(args), dtype, dict(attrs), wrong

    def children(self):
        return []  # inputs only: the shrinker leaves the call whole

    def text(self):
        a = self.attrs
        names = ", ".join(x.text() for x in self.args[:2 if self.fn == "conv" else 3])
        if self.fn == "conv":
            t = f"conv({names}, {self.dtype}, {a['strides']}, {a['pads']}, {a['dil']}"
            if a["groups"] != 1:
                t += f", groups={a['groups']}"
            if len(self.args) > 2:
                t += f", bias_tensor={self.args[2].text()}"
            if a["relu"]:
                t += ", relu_type=RELU"
            return t + ")"
        return (f"gather_in_l1({names}, {a['bs']}, {a['size']}, {str(a['is_b']).lower()}, "
                f"{str(a['is_trans']).lower()})")

    def ev(self, env):
        v = [x.ev(env).a for x in self.args]
        a = self.attrs
        if self.fn == "conv":
            r = conv_ref(v[0], v[1], a["strides"], a["pads"], a["dil"], a["groups"],
                         v[2] if len(v) > 2 else None, a["relu"], self.dtype)
        else:
            r = gather_ref(v[0], v[1], v[2], a["bs"], a["size"])
        if self.wrong:
            r = r + 1
        return Value(np.array(r, np.float64), list(r.shape))


def _inp(st, prog, shape, dt, kind=None):
    st["n"] += 1
    n = f"c6in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[n] = kind or ("normal" if dt in FLOAT else "small")
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"c6out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def _conv(r, st, prog, sd):
    dt = r.choice(FLOAT)
    groups = r.choice([1, 1, 2, 3])
    cw, cg = r.randint(1, 4), r.randint(1, 4)
    cin, cout, n = cw * groups, cg * groups, r.randint(1, 2)
    while True:
        S = [r.randint(3, 10) for _ in range(sd)]
        K = [r.randint(1, min(4, s)) for s in S]
        strides = [r.randint(1, 3) for _ in range(sd)]
        dil = [r.randint(1, 2) for _ in range(sd)]
        pads = [r.randint(0, k - 1) for k in K for _ in range(2)]
        span = [S[a] + pads[2 * a] + pads[2 * a + 1] - dil[a] * (K[a] - 1) - 1 for a in range(sd)]
        if all(s >= 0 for s in span):
            break
    O = [span[a] // strides[a] + 1 for a in range(sd)]
    x = _inp(st, prog, [n, cin] + S, dt)
    w = _inp(st, prog, [cout, cw] + K, dt)
    args = [M.Ref(x, dt), M.Ref(w, dt)]
    if r.random() < 0.5:
        bdt = "fp32" if dt == "bf16" and r.random() < 0.5 else dt
        args.append(M.Ref(_inp(st, prog, [cout], bdt), bdt))
    attrs = {"strides": strides, "pads": pads, "dil": dil, "groups": groups, "relu": r.random() < 0.3}
    oshape = [n, cout] + O
    prog.body.append(M.Raw({"cube_tile": {"m": [16, 16], "k": [32, 32], "n": [32, 64]}}))
    prog.body.append(M.Raw({"vec_tile": [1, cout] + O}))
    o = _out(st, prog, oshape, dt)
    node = Conv6("conv", args, dt, attrs, wrong=WRONG)
    prog.body.append(M.Assemble(o, [0] * len(oshape), node))
    # conv7: drawn last, so the draws above keep their values: an input with inf, -inf and NaN, which a direct
    # conv spreads only to the outputs whose window holds them.
    if r.random() < NONFINITE:
        prog.kinds[x] = "nonfinite"


def _gather(r, st, prog):
    dt = r.choice(FLOAT + ("int8",))
    bs = r.choice([1, 2, 4])
    T = bs * r.randint(2, 8) + r.choice([0, 0, 1])
    H = r.choice([8, 16, 24, 32, 48])
    size = r.choice([H, H, r.randint(1, H)])
    nb, k = r.randint(1, 6), r.randint(1, 20)
    src = _inp(st, prog, [T, H], dt)
    bt = _inp(st, prog, [1, nb], "int32", kind=f"range:0:{(T - 1) // bs + 1}")  # one block past src
    ix = _inp(st, prog, [1, k], "int32", kind=f"range:-1:{bs * nb}")  # one below and one past the table
    attrs = {"bs": bs, "size": size, "is_b": r.random() < 0.5, "is_trans": r.random() < 0.5}
    prog.body.append(M.Raw({"cube_tile": {"m": [16, 32], "k": [16, 32], "n": [16, 64]}}))
    prog.body.append(M.Raw({"vec_tile": [min(k, 8), min(size, 32)]}))
    o = _out(st, prog, [k, size], dt)
    node = Conv6("gather_in_l1", [M.Ref(src, dt), M.Ref(ix, "int32"), M.Ref(bt, "int32")], dt, attrs, wrong=WRONG)
    prog.body.append(M.Assemble(o, [0, 0], node))
    if dt in FLOAT and r.random() < NONFINITE:  # conv7: drawn last; each row stays its src row
        prog.kinds[src] = "nonfinite"


def construct(r, prog, kind):
    st = {"n": 0}
    if kind == "gather_in_l1":
        _gather(r, st, prog)
    else:
        _conv(r, st, prog, 1 if kind == "conv1d" else 2)


def program_hook(g, prog):
    """With probability PROB (its own stream): one conv6 statement at the end of the body."""
    drawn = hook_stream.draw(g, "conv6", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.conv6 = [kind]


def used(prog):
    return ["conv6_" + k for k in (getattr(prog, "conv6", None) or [])]
