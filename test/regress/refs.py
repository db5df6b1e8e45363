"""Independent NumPy references for the regression specs (test/regress/specs/*.yaml), written from
spec-language.md: every op computes in float64 and rounds to its dtype (`r`), matmuls accumulate
exactly and round once, workspaces start zeroed. Keyed by the spec's `name`."""
import numpy as np

from numerics import rnd as r, sigmoid

REFS = {}
DIMS = {}  # name -> run-time values of dynamic dims
# name -> {output: dtype whose tolerance the NumPy comparison uses} when an fp32 output is computed
# through fp16 casts of matmul results: the device accumulates in fp32, the reference exactly, so an
# fp16 rounding may flip by one ulp before the next matmul (ptorun --check against the evaluator
# keeps the fp32 tolerance).
CMP_DTYPE = {"delta_two_chunks_one_root": {"o": "fp16", "m": "fp16"}}


def ref(dims=None):
    def deco(fn):
        REFS[fn.__name__] = fn
        DIMS[fn.__name__] = dims or {}
        return fn
    return deco


F, H = "fp32", "fp16"


@ref()
def bc_rows_tile1(i, d):
    return {"y": r(i["x"] * r(np.exp(i["w"]), H), H)}


@ref()
def bc_loaded_cols(i, d):
    return {"y": r(i["x"] + i["w"], F), "z": r(i["x"] * r(sigmoid(i["c"]), F), F)}


@ref()
def war_snapshot(i, d):
    m = r(i["x"] * 1, F)
    return {"y": r(m * 2, F), "z": r(np.exp(m), F)}


@ref()
def raw_same_root2(i, d):
    ws = np.zeros_like(i["x"])
    for _ in range(2):
        ws = r(r(ws * 0.5, F) + i["x"], F)
    return {"y": ws}


@ref()
def static_loop_acc(i, d):
    acc = np.zeros((16, i["x"].shape[1]))
    for k in range(2):
        acc = r(r(acc * 0.5, F) + i["x"][k * 16:(k + 1) * 16], F)
    return {"y": acc}


@ref()
def output_readback_war(i, d):
    x = i["x"]
    return {"y": r(np.exp(x), F), "z": r(r(r(x + 1, F) * 2, F) + 1, F)}


@ref()
def view_overlap(i, d):
    x = i["x"]
    ws = np.concatenate([r(x[:16] * 2, F), r(x[16:] * 3, F)])
    mid, top = ws[8:24].copy(), ws[0:16].copy()
    ws[0:16] = r(mid + 1, F)
    return {"y": r(top - 1, F), "z": r(ws[0:16] + ws[16:32], F)}


@ref()
def reshape_inplace(i, d):
    x = i["x"]
    a = r(x * 1, F).reshape(32, 64)
    return {"y": r(x * 2, F), "z": r(a + 1, F)}


@ref()
def vec_nbuffer_ws(i, d):
    x = i["x"]
    old = r(x * 1, F)
    ws = r(r(old * 0.5, F) + x, F)
    ws = r(r(ws * 0.5, F) + x, F)
    return {"y": ws, "z": r(old - 1, F)}


@ref(dims={"S": 2048})
def online_softmax_scope(i, d):
    x = i["x"]
    m = np.full((16, 1), r(-1e30, F))
    l = np.zeros((16, 1))
    for j in range(d["S"] // 512):
        blk = x[:, j * 512:(j + 1) * 512]
        mo, lo = m, l
        mn = np.maximum(mo, blk.max(axis=1, keepdims=True))
        m = mn
        p = r(np.sum(r(np.exp(r(blk - mn, F)), F), axis=1, keepdims=True), F)
        l = r(r(lo * r(np.exp(r(mo - mn, F)), F), F) + p, F)
    return {"y": r(l + m, F)}


def mm(a, b):
    return r(a @ b, F)


@ref()
def delta_chunks(i, d):
    q, k, v = i["q"], i["k"], i["v"]
    S = np.zeros((64, 64))
    o = np.zeros((128, 64))
    for c in range(2):
        qi, ki, vi = q[c * 64:(c + 1) * 64], k[c * 64:(c + 1) * 64], v[c * 64:(c + 1) * 64]
        s = r(S, H)
        u = r(vi - mm(ki, s), F)
        uh = r(u, H)
        ah = r(r(mm(qi, ki.T) * 0.125, F), H)
        o[c * 64:(c + 1) * 64] = r(mm(qi, s) + mm(ah, uh), F)
        S = r(S + mm(ki.T, uh), F)
    return {"o": o, "st": S}


@ref()
def invariant_store_cycle(i, d):
    ws = i["x"]
    ws = r(r(ws * 0.5, F) + i["x"], F)
    return {"y": r(ws + 0, F)}


@ref()
def home_reload_later_write(i, d):
    t7 = np.abs(i["s"])
    return {"y": r(t7 + 1, H), "z": r(r(i["x"] * 2, H) - t7, H)}


@ref()
def home_reload_same_write(i, d):
    return {"y": np.abs(i["s"])}


@ref(dims={"S": 100})
def carry_where_reload(i, d):
    q, k, v = i["q"], i["k"], i["v"]
    Q, D = q.shape
    m = np.full((1, Q), -np.inf)
    l = np.zeros((1, Q))
    acc = np.zeros((D, Q))
    for j in range(0, d["S"], 32):
        kj, vj = k[j:j + 32], v[j:j + 32]  # the last block is a tail: its rows are not there
        ss = r(r(mm(kj, q.T), F) * 0.25, F)
        cm = ss.max(axis=0, keepdims=True)
        e32 = r(np.exp(r(ss - cm, F)), F)
        cl = r(e32.sum(axis=0, keepdims=True), F)
        co = r(mm(r(vj, "bf16").T, r(e32, "bf16")), F)
        mn = np.maximum(m, cm)
        a = np.where(m == mn, 1.0, r(np.exp(r(m - mn, F)), F))
        b = r(np.exp(r(cm - mn, F)), F)
        l = r(r(a * l, F) + r(b * cl, F), F)
        acc = r(r(acc * a, F) + r(co * b, F), F)
        m = mn
    return {"o": acc, "lo": l}


# Issue 11 B3's shape: two gated-delta-rule chunks in one root function (b3_delta_two_chunks.yaml,
# one line here per statement there).
@ref()
def delta_two_chunks_one_root(i, d):
    S = np.zeros((64, 64))
    o, m = np.zeros((128, 64)), np.zeros((128, 1))

    def rms(x):
        ss = r(np.sum(r(x * x, F), axis=-1, keepdims=True), F)
        return r(x * r(1 / np.sqrt(r(r(ss * 0.015625, F) + 0.000001, F)), F), F)

    for c in range(2):
        rows = slice(c * 64, (c + 1) * 64)
        q, k, v, g, b = (i[n][rows] for n in ("q", "k", "v", "g", "beta"))
        qn, kn = rms(q), rms(k)
        knh = r(kn, H)
        bs = r(sigmoid(b), F)
        eg = r(np.exp(r(-np.abs(g), F)), F)
        kbh = r(r(kn * bs, F), H)
        qgh = r(r(r(qn * eg, F) * 0.125, F), H)
        s = r(S, H)
        kS = r(kbh @ s, F)
        u1 = r(r(r(v * bs, F) - kS, F) * 0.5, F)
        U = r(i["ub"] + u1, F)
        uh = r(r(U + 0, F), H)
        a = r(qgh @ knh.T, F)
        ah = r(np.maximum(np.minimum(a, 4), -4), H)
        oo = r(r(qgh @ s, F) + r(ah @ uh, F), F)
        of = r(oo * r(sigmoid(oo), F), F)
        o[rows] = of
        m[rows] = np.max(of, axis=-1, keepdims=True)
        dS = r(knh.T @ uh, F)
        S = r(r(S * 0.9, F) + dS, F)
    return {"o": o, "m": m, "st": r(S + 0, F)}


@ref()
def split_sum_half_partials(i, d):
    x = i["x"]
    g = np.concatenate([r(x[:, 0:64] + 100, H), r(x[:, 64:128] - 100, H)], axis=1)
    gb = r(g, "bf16")
    return {"s": r(g.sum(-1, keepdims=True), H), "m": r(g.sum(-1, keepdims=True) / g.shape[1], H),
            "sb": r(gb.sum(-1, keepdims=True), "bf16")}



@ref()
def reshape_trailing_one_loop(i, d):
    return {"y": r(i["k"][:, None] * r(i["w"] + 1, H), H)}
