"""NumPy references of the topk18 conformance specs, imported by refs.py: topk and argsort at PyPTO's sizes
(k = 2048, tiles of 4096 / 8192, run-time lengths). A stable sort of the valid part: values bit-exact,
indices exact, ties by the lower index; past the valid length the pad -inf (+inf) and index -1."""
import numpy as np

from refs import ref


def _topk(x, k, largest, axis=-1):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    order = np.take(order, np.arange(min(k, x.shape[axis])), axis=axis)
    return np.take_along_axis(x, order, axis), order.astype(np.float64)


def _topk_padded(x, k, largest):
    """topk of the valid columns x (fewer than k: padded with -inf / +inf and index -1)."""
    v, i = _topk(x, k, largest)
    short = k - v.shape[-1]
    if short > 0:
        pad = -np.inf if largest else np.inf
        v = np.concatenate([v, np.full(v.shape[:-1] + (short,), pad)], -1)
        i = np.concatenate([i, np.full(i.shape[:-1] + (short,), -1.0)], -1)
    return v, i


@ref(kinds={"q": "small"})
def topk18_long(i, d):
    x, q = i["x"], i["q"]
    v, ix = _topk(x, 2048, True)
    sv, si = _topk(x, 2048, False)
    qv, qi = _topk(q, 2048, True)
    fv, fi = _topk(np.floor(x * 8.0), 4096, False)
    nv, ni = _topk(np.where(x > -0.5, -np.inf, x), 3000, True)
    return {"v": v, "i": ix, "sv": sv, "si": si, "qv": qv, "qi": qi, "fv": fv, "fi": fi, "nv": nv, "ni": ni}


@ref(dims={"S": 5000})
def topk18_dynamic_len(i, d):
    x = i["x"]
    v, ix = _topk_padded(x, 2048, True)
    _, a = _topk_padded(x, 2048, False)
    return {"v": v, "i": ix, "a": a}


@ref(dims={"S": 1500})
def topk18_dynamic_short(i, d):
    x = i["x"]
    v, ix = _topk_padded(x, 2048, True)
    sv, si = _topk_padded(x, 2048, False)
    return {"v": v, "i": ix, "sv": sv, "si": si}


@ref(kinds={"q": "small"})
def topk18_argsort_long(i, d):
    x, q, c = i["x"], i["q"], i["c"]
    st = lambda a, ax=-1: np.argsort(a, axis=ax, kind="stable").astype(np.float64)
    return {"ad": st(-x), "aa": st(x), "qd": st(-q), "c0": st(c, 0)}


@ref(dims={"S": 100000}, warnings=["warning: topk over a split axis: the vec_tile's entry 1 (8192) times 4 is not below "
                                    "22KB, PyPTO's documented MERGE_SORT bound"])
def topk18_indexer_128k(i, d):
    v, ix = _topk_padded(i["x"], 2048, True)
    return {"i": ix, "v": v}
