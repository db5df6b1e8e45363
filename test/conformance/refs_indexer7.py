"""NumPy references of the indexer7 conformance specs, imported by refs.py: topk over a split sorted axis
(a stable sort of the whole axis: the per-tile merge must give the same order, ties by the lower index)."""
import numpy as np

from refs import ref


def _topk(x, k, largest, axis=-1):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis), order.astype(np.float64)


@ref(kinds={"q": "small"})
def indexer7_topk_tiles(i, d):
    x, q, h, c = i["x"], i["q"], i["h"], i["c"]
    xv, xi = _topk(x, 16, True)
    sv, si = _topk(x, 5, False)
    qv, qi = _topk(q, 12, True)
    nv, ni = _topk(np.where(x > -0.3, -np.inf, x), 20, True)
    hv, hi = _topk(h, 64, True)
    cv, ci = _topk(c, 7, True, axis=0)
    return {"xv": xv, "xi": xi, "sv": sv, "si": si, "qv": qv, "qi": qi, "nv": nv, "ni": ni, "hv": hv, "hi": hi,
            "cv": cv, "ci": ci}


def scale19(s):
    """PyPTO's fixpipe scale: 1 sign, 8 exponent, 10 mantissa bits of the fp32 value (the rest dropped)."""
    b = np.array([s], np.float32).view(np.uint32) & np.uint32(0xFFFFE000)
    return b.view(np.float32)[0]


def dequant_mm(a, b, scale, relu):
    acc = a.astype(np.int64) @ b.astype(np.int64)  # exact int32 accumulation
    assert np.abs(acc).max() < 2 ** 31
    v = acc.astype(np.float32) * scale19(scale)
    if relu:
        v = np.maximum(v, np.float32(0))
    return v.astype(np.float16).astype(np.float64)


@ref(kinds={"a": "wide", "b": "wide"})
def indexer7_mm_dequant(i, d):
    return {"y": dequant_mm(i["a"], i["b"].T, 1 / 2048.0, True), "z": dequant_mm(i["c"], i["d"], 0.37, False),
            "w": dequant_mm(i["g"], i["h"], 0.01, False)}
