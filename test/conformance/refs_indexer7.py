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
