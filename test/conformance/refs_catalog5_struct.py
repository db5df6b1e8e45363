"""NumPy references of structops5's conformance specs (catalog5_struct_*.yaml), registered into refs.REFS.

Written from PyPTO's operation docs (docs/zh/api/operation/ of hicann/pypto): interleave, deinterleave,
gathermask, index_add_ub / index_add__ub, experimental.transposed_batchmatmul.
"""
import numpy as np

from numerics import rnd as r
from refs import ref, L


def interleave(a, b):
    """PyPTO: stream[2k] = a[k], stream[2k + 1] = b[k] along the last axis, split at its middle."""
    n = a.shape[-1]
    s = np.stack([a, b], axis=-1).reshape(a.shape[:-1] + (2 * n,))
    return s[..., :n], s[..., n:]


def deinterleave(a, b=None):
    """PyPTO: the stream (a, or a and b concatenated) split into its even and odd elements."""
    s = a if b is None else np.concatenate([a, b], axis=-1)
    return s[..., 0::2], s[..., 1::2]


def gathermask(x, mode):
    """PyPTO's pattern modes: 1, 2 pick element 0 / 1 of every 2; 3..6 element 0..3 of every 4; 7 all."""
    if mode == 7:
        return x
    p, k = (2, mode - 1) if mode <= 2 else (4, mode - 3)
    return x[..., k::p]


@ref(dims={"B": 13})
def catalog5_struct_interleave(i, d):
    x, y, n = i["x"], i["y"], i["n"]
    i0, i1 = interleave(x, y)
    e0, e1 = deinterleave(i0, i1)
    d0, d1 = deinterleave(x)
    hi0, hi1 = interleave(i["h"], i["k"])
    wi0, wi1 = interleave(i["w"], i["v"])
    return {"i0": i0, "i1": i1, "e0": e0, "e1": e1, "d0": d0, "d1": d1, "hi0": hi0, "hi1": hi1,
            "qd0": deinterleave(i["q"])[0], "ud1": deinterleave(i["u"])[1],
            "g1": gathermask(n, 1), "g2": gathermask(n, 2), "g4": gathermask(n, 4), "g6": gathermask(n, 6),
            "g7": gathermask(n, 7), "wi0": wi0, "wi1": wi1, "wd0": deinterleave(i["w"])[0],
            "rd1": deinterleave(i["r"])[1], "rg3": gathermask(i["r"], 5)}


def index_add(x, dim, index, source, alpha, dt):
    """input with alpha * source's slices added at index along dim; duplicates summed first, rounded once."""
    out = np.moveaxis(x.copy(), dim, 0)
    src = np.moveaxis(r(source * L(alpha, dt), dt) if alpha != 1 else source, dim, 0)
    acc = np.zeros_like(out)
    np.add.at(acc, index.astype(np.int64), src)
    return np.moveaxis(r(out + r(acc, dt), dt), 0, dim)


@ref(dims={"B": 11}, kinds={"n": "small", "ns": "small"})
def catalog5_struct_index_add_ub(i, d):
    h, hs, hc = i["h"], i["hs"], i["hc"]
    yh = np.zeros_like(h)
    for b0 in range(0, h.shape[0], 4):
        yh[b0:b0 + 4] = index_add(h[b0:b0 + 4], 1, hc, hs[b0:b0 + 4], 0.5, "fp16")
    return {"ya": index_add(i["x"], 0, i["rows"], i["src"], 2, "fp32"),
            "yn": index_add(i["n"], 1, i["cols"], i["ns"], 1, "int32"),
            "yw": index_add(i["w"], 1, i["mid"], i["ws"], 1, "bf16"), "yh": yh}


def transposed_batchmatmul(a, b, out):
    """PyPTO: a [M, B, K] -> [B, M, K], times b [B, K, N], [B, M, N] -> [M, B, N]; rounded once."""
    return r(np.matmul(np.transpose(a, (1, 0, 2)), b), out).transpose(1, 0, 2)


@ref()
def catalog5_struct_tbmm(i, d):
    t = transposed_batchmatmul(i["x"], i["y"], "bf16")
    return {"c": transposed_batchmatmul(i["a"], i["b"], "fp16"), "d": t,
            "e": r(r(t * 2.0, "fp32") + 1.0, "fp32")}


@ref(dims={"B": 21}, kinds={"n": "small"})
def catalog5_struct_atomic_add(i, d):
    x, h = i["x"], i["h"]
    acc, hacc = np.full((8, 16), 0.5), np.zeros((8, 16))
    for b0 in range(0, x.shape[0], 8):  # in program order, each add rounded to the dtype
        k = min(8, x.shape[0] - b0)
        acc[:k] = r(acc[:k] + x[b0:b0 + k], "fp32")
        hacc[:k] = r(hacc[:k] + h[b0:b0 + k], "fp16")
    ex = np.zeros((4, 4))
    ex[0:2, 0:2] = 1
    ex[0:2, 0:2] = r(ex[0:2, 0:2] + i["y"], "fp32")
    ex[1:3, 1:3] = r(ex[1:3, 1:3] + r(i["y"] * 2, "fp32"), "fp32")
    cnt = np.zeros((3, 8))
    for t in range(6):
        cnt[t % 3] += i["n"][t]
    return {"acc": acc, "hacc": hacc, "ex": ex, "cnt": cnt}


@ref()
def strided_column_view(i, d):  # a column window of a reshaped value, compiled (was a miscompile)
    return {"e": i["x"][:, 0::2]}


def gather_in_ub(param, indices, block_table, bs):
    """PyPTO: row j = param[block_table[0, t // bs] * bs + t % bs], t = indices[0, j]; outside: a row of 0."""
    out = np.zeros((indices.shape[1], param.shape[1]))
    for j, t in enumerate(indices[0].astype(np.int64)):
        if t < 0 or t // bs >= block_table.shape[1]:
            continue
        row = int(block_table[0, t // bs]) * bs + t % bs
        if 0 <= row < param.shape[0]:
            out[j] = param[row]
    return out


@ref()
def catalog5_struct_gather_in_ub(i, d):
    top = np.argsort(-i["sc"][0], kind="stable")[:4].reshape(1, 4)
    return {"ex": gather_in_ub(i["p"], i["pi"], i["pt"], 2), "g": gather_in_ub(i["kv"], i["ix"], i["bt"], 4),
            "gt": gather_in_ub(i["kv"], top, i["bt"], 4), "gn": gather_in_ub(i["kv"], i["ix"] * 2 - 16, i["bt"], 4)}
