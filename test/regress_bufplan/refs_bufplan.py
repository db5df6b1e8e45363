"""Independent NumPy references for the buffer-planner regression specs (specs/bufplan_*.yaml).

Each entry gives the inputs (float64 arrays exact in their dtype) and the outputs computed the way
spec-language.md says: every op in float64, its result rounded to the op's dtype (`r`), literals in the
tensor's dtype, matmuls accumulated exactly and rounded once.
"""
import numpy as np

from numerics import rnd as r, sigmoid, gelu

F = "fp32"


def _normal(rng, shape, dtype, scale=1.0):
    return r(rng.standard_normal(shape) * scale, dtype)


# --- layernorm [32, 768] ------------------------------------------------------------------------

def layernorm_inputs(rng):
    return {"x": _normal(rng, (64, 768), F), "gamma": _normal(rng, (1, 768), F), "beta": _normal(rng, (1, 768), F)}


def layernorm(i):
    x = i["x"]
    mu = r(r(x.sum(-1, keepdims=True), F) / r(768, F), F)
    d = r(x - mu, F)
    var = r(r(r(d * d, F).sum(-1, keepdims=True), F) / 768, F)
    n = r(d * r(1 / np.sqrt(r(var + r(1e-6, F), F)), F), F)
    return {"y": r(r(n * i["gamma"], F) + i["beta"], F)}


# --- LSTM cell [1, 16384] -----------------------------------------------------------------------

def lstm_inputs(rng):
    h = "fp16"
    return {"states": _normal(rng, (4, 16384), h), "z4": _normal(rng, (4, 16384), h),
            "prev_cell": _normal(rng, (4, 4096), h), "w_cell": _normal(rng, (1, 4096), h),
            "b_cell": _normal(rng, (1, 4096), h, 0.1), "w_state": _normal(rng, (1, 4096), h),
            "b_state": _normal(rng, (1, 4096), h, 0.1)}


def _rms_pure(x):
    s = r(r(r(x * x, F) * r(0.000244140625, F), F).sum(-1, keepdims=True), F)
    return r(x / r(np.sqrt(r(s + r(1e-6, F), F)), F), F)


def _sig_gelu(x):
    return r(x * r(sigmoid(r(x * r(1.702, F), F)), F), F)


def lstm(i):
    st, zt = i["states"], i["z4"]  # casts fp16 -> fp32 are exact
    fused = r(st + r(zt * r(0.1, F), F), F)
    H = 4096
    fg, ig, og = (r(sigmoid(fused[:, k * H:(k + 1) * H]), F) for k in range(3))
    cn = _rms_pure(fused[:, 3 * H:])
    cn = r(r(cn * i["w_cell"], F) + i["b_cell"], F)
    ca = _sig_gelu(cn)
    cnew = r(r(i["prev_cell"] * fg, F) + r(ca * ig, F), F)
    hn = _rms_pure(cnew)
    hn = r(r(hn * i["w_state"], F) + i["b_state"], F)
    h = r(_sig_gelu(hn) * og, F)
    return {"c_out": r(cnew, "fp16"), "h_out": r(h, "fp16")}


# --- chunked gated delta rule, (128, 128) fp32 tiles --------------------------------------------

def delta_rule_inputs(rng):
    L, N = 128, 2
    return {"query": _normal(rng, (N * L, 128), F), "key": _normal(rng, (N * L, 128), F),
            "value": _normal(rng, (N * L, 128), F),
            "beta": r(rng.uniform(0.1, 0.9, (N * L, 1)), F),
            # log-decays: small negative gates, as a trained model gives
            "gate": r(-rng.uniform(0.001, 0.03, (N * L, 1)), F),
            "state": _normal(rng, (N * 128, 128), F, 0.1),
            "mask": r(np.tril(np.ones((L, L)), -1), F), "tril": r(np.tril(np.ones((L, L))), F)}


def _mm(a, b):
    return r(a @ b, F)


def delta_rule(i):
    L = 128
    outs = {"attn_out": np.zeros((2 * L, 128)), "state_out": np.zeros((2 * 128, 128))}
    tril, mask = i["tril"], i["mask"]
    for n in range(2):
        sl = slice(n * L, (n + 1) * L)
        q, k, v, bt, g, s = (i[t][sl] for t in ("query", "key", "value", "beta", "gate", "state"))
        l2 = lambda x: r(x / r(np.sqrt(r(r(r(x * x, F).sum(-1, keepdims=True), F) + r(1e-6, F), F)), F), F)
        qn, kn = l2(q), l2(k)
        gc = _mm(tril, g)
        dm = r(np.exp(r(r(gc - gc.T, F) * tril, F)), F)
        kb = r(kn * bt, F)
        a = r(r(_mm(kb, kn.T) * dm, F) * mask, F)
        vo = _mm(a, r(v * bt, F))
        kc = _mm(a, r(kb * r(np.exp(gc), F), F))
        gl = gc[127:128, :]
        kg = r(kn * r(np.exp(r(gl - gc, F)), F), F)
        qg = r(qn * r(np.exp(gc), F), F)
        vp = _mm(kc, s.T)
        ai = _mm(qg, s.T)
        tvp = _mm(vp.T, kg)
        tvo = _mm(vo.T, kg)
        outs["state_out"][sl] = r(r(r(s * r(np.exp(gl), F), F) + tvo, F) - tvp, F)
        at = r(r(_mm(qn, kn.T) * dm, F) * tril, F)
        outs["attn_out"][sl] = r(r(ai + _mm(at, vo), F) - _mm(at, vp), F)
    return outs


# --- in-place aliasing: every op kind the rule admits or refuses --------------------------------

def alias_inputs(rng):
    return {"x": _normal(rng, (32, 128), F), "w": _normal(rng, (1, 128), F),
            "sq": _normal(rng, (32, 32), F), "h": _normal(rng, (32, 128), "fp16")}


def alias(i):
    x, w, sq = i["x"], i["w"], i["sq"]
    m = r(np.abs(r(x.max(-1, keepdims=True), F)) + r(1, F), F)
    a = r(x * x, F)
    b = r(a - m, F)
    c = r(b / m, F)
    d = r(r(3, F) - c, F)
    e = r(w + d, F)
    f = r(gelu(e), F)
    g = r(np.round(r(f * r(100, F), F)), "int32")
    y = r(r(g, F) * r(0.01, F), F)
    t = r(sq.T + r(1, F), F)  # noqa: E741
    hh = r(r(i["h"], F) * r(0.5, F), F)
    return {"y": y, "t": t, "z": r(r(hh, "fp16") + r(1, "fp16"), "fp16")}


# --- hc_pre's scope over a split 16384-wide reduction [4, 4096] -----------------------------------

def scope_split_reduce_inputs(rng):
    return {"x": _normal(rng, (8, 16384), F)}


def scope_split_reduce(i):
    x = i["x"]
    m = r(r(x * x, F).sum(-1, keepdims=True), F)
    return {"y": r(np.sqrt(r(r(m / r(16384.0, F), F) + r(1e-6, F), F)), F)}


REFS = {
    "bufplan_layernorm": (layernorm_inputs, layernorm),
    "bufplan_lstm": (lstm_inputs, lstm),
    "bufplan_delta_rule": (delta_rule_inputs, delta_rule),
    "bufplan_alias": (alias_inputs, alias),
    "bufplan_scope_split_reduce": (scope_split_reduce_inputs, scope_split_reduce),
}
