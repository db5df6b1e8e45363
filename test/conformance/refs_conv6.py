"""NumPy references of conv6's conformance specs (conv6_*.yaml), registered into refs.REFS.

Written from PyPTO's docs (docs/zh/api/operation/pypto-conv.md, pypto-experimental-gather_in_l1.md of
hicann/pypto): conv as a direct loop over output positions and kernel taps (padding read as zeros), the
sums exact and rounded once to fp32, the bias added in fp32, relu, then the cast to out_dtype.
"""
import itertools

import numpy as np

from numerics import rnd as r
from refs import ref


def conv(x, w, strides, paddings, dilations, groups=1, bias=None, relu=False, out="fp16"):
    """x [N, Cin, *S], w [Cout, Cin / groups, *K]; paddings [lo0, hi0, lo1, hi1, ...]."""
    N, Cin = x.shape[:2]
    Cout, Cw = w.shape[:2]
    S, K = x.shape[2:], w.shape[2:]
    sd = len(S)
    O = [(S[a] + paddings[2 * a] + paddings[2 * a + 1] - dilations[a] * (K[a] - 1) - 1) // strides[a] + 1
         for a in range(sd)]
    y = np.zeros((N, Cout) + tuple(O))
    cg = Cout // groups
    for co in range(Cout):
        g = co // cg
        xs = x[:, g * Cw:(g + 1) * Cw]
        for o in itertools.product(*[range(n) for n in O]):
            acc = np.zeros(N)
            for k in itertools.product(*[range(n) for n in K]):
                pos = [o[a] * strides[a] + k[a] * dilations[a] - paddings[2 * a] for a in range(sd)]
                if all(0 <= pos[a] < S[a] for a in range(sd)):
                    acc += xs[(slice(None), slice(None)) + tuple(pos)] @ w[(co, slice(None)) + k]
            y[(slice(None), co) + o] = acc
    y = r(y, "fp32")
    if bias is not None:
        y = r(y + bias.reshape((1, Cout) + (1,) * sd), "fp32")
    if relu:
        y = np.maximum(y, 0.0)
    return r(y, out)


@ref()
def conv6_conv2d(i, d):
    y = conv(i["x"], i["w"], [2, 2], [1, 1, 1, 1], [1, 1], bias=i["b"], out="fp16")
    return {"y": y, "yt": r(y * 2.0, "fp32"),
            "yb": conv(i["xb"], i["wb"], [1, 1], [1, 0, 0, 1], [2, 2], groups=2, bias=i["bb"], relu=True,
                       out="bf16"),
            "yf": conv(i["xf"], i["wf"], [1, 1], [0, 0, 0, 0], [1, 1], out="fp32")}


@ref()
def conv6_conv1d(i, d):
    return {"y": conv(i["x"], i["w"], [3], [2, 1], [2], out="fp16"),
            "q": conv(i["u"], i["g"], [1], [0, 0], [1], groups=3, bias=i["gb"], out="fp32")}


@ref(kinds={"x": "nonfinite", "xb": "nonfinite", "u": "nonfinite"})
def conv7_conv_nonfinite(i, d):
    """Inputs with inf, -inf and NaN: the direct loop only reads each output's window."""
    return {"y": conv(i["x"], i["w"], [2, 2], [1, 2, 2, 1], [2, 2], bias=i["b"], out="fp16"),
            "yb": conv(i["xb"], i["wb"], [1, 1], [1, 0, 0, 0], [1, 1], groups=2, out="bf16"),
            "q": conv(i["u"], i["g"], [3], [2, 1], [2], relu=True, out="fp32")}


@ref(kinds={"x": "nonfinite"})
def relu_nan(i, d):
    """relu, maximum and minimum keep a NaN (torch, NumPy and ptoc's evaluator do)."""
    return {"y": np.where(np.isnan(i["x"]), np.nan, np.maximum(i["x"], 0.0)), "z": np.maximum(i["x"], 0.0),
            "w": np.minimum(0.0, i["x"])}


@ref()
def mm_reshaped_ones(i, d):
    w = i["w"].reshape(32, 24)
    return {"y": r(w @ i["v"].reshape(24, 40), "fp16"), "z": r(w @ i["u"].reshape(24, 40), "fp32")}


def gather_in_l1(src, indices, block_table, block_size, size):
    """PyPTO's golden: token t = indices[0, j] lives in row block_table[0, t // bs] * bs + t % bs."""
    t = indices[0].astype(np.int64)
    rows = block_table[0].astype(np.int64)[t // block_size] * block_size + t % block_size
    return src[rows, :size]


@ref()
def conv6_gather_in_l1(i, d):
    a = gather_in_l1(i["kv"], i["ix"], i["bt"], 4, 24)
    return {"g": gather_in_l1(i["src"], i["offset"], i["table"], 2, 16),
            "y": r(a @ i["m"], "fp16"), "yt": r(i["m2"] @ a.T, "fp16"),
            "z": r(gather_in_l1(i["s8"], i["ix8"], i["bt8"], 4, 32) @ i["w8"], "int32")}


@ref(kinds={"src": "nonfinite"})
def conv7_gather_in_l1_nonfinite(i, d):
    return {"g": gather_in_l1(i["src"], i["ix"], i["bt"], 2, 24)}
