#!/usr/bin/env python3
"""Checks the NumPy side of the conformance tests by itself: the dtype rounding against hand-computed
values, and each reference against identities of its operator (softmax rows sum to 1, layernorm rows
have mean 0 and variance 1, the block-diagonal trick equals the naive product, ...). A wrong reference
would otherwise make a wrong ptoc look right."""
import sys
import os

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dtypes import bf16_round, compare, rnd  # noqa: E402
import references as R  # noqa: E402

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


# Rounding, hand-computed.
check(bf16_round(1.0) == 1.0, "bf16: 1.0 exact")
check(bf16_round(1 + 2**-8) == 1.0, "bf16: tie 1 + 2^-8 rounds to even 1.0")
check(bf16_round(1 + 3 * 2**-8) == 1 + 2**-6, "bf16: tie 1 + 3*2^-8 rounds to even 1 + 2^-6")
check(bf16_round(1 + 2**-8 + 2**-20) == 1 + 2**-7, "bf16: just above a tie rounds up")
check(np.isinf(bf16_round(3.5e38)), "bf16: overflow to inf")
check(np.isnan(bf16_round(np.nan)), "bf16: NaN stays NaN")
check(rnd(1 / 3, "fp16") == 0.333251953125, "fp16: 1/3")
check(np.isinf(rnd(65520.0, "fp16")) and rnd(65519.0, "fp16") == 65504.0, "fp16: overflow threshold")
check(rnd(2049.0, "fp16") == 2048.0 and rnd(2051.0, "fp16") == 2052.0, "fp16: ties to even at 2048")
check(rnd(0.1, "fp32") == float(np.float32(0.1)), "fp32: 0.1")
check(rnd(130.0, "int8") == -126 and rnd(-1.7, "int32") == -1 and rnd(256.0, "uint8") == 0, "ints truncate, wrap")
check(rnd(-0.5, "bool") == 1 and rnd(0.0, "bool") == 0, "bool is != 0")

# compare(): passes equal data, fails just past the bound, names the worst element.
ref = np.linspace(-2, 2, 64).reshape(8, 8)
check(compare(ref.copy(), ref, "fp16")[0], "compare: equal passes")
bad = ref.copy()
bad[3, 5] += 0.05
ok, msg = compare(bad, ref, "fp16")
check(not ok and "(3, 5)" in msg, "compare: a 0.05 error in fp16 fails and is located")
check(not compare(ref[:4], ref, "fp32")[0], "compare: shape mismatch fails")
check(not compare(np.full((2, 2), np.nan), np.zeros((2, 2)), "fp32")[0], "compare: NaN fails")

# Activation functions at known points.
check(abs(R.gelu_tanh(1.0) - 0.8411919906082768) < 1e-15, "gelu (tanh form) at 1")
check(abs(R.silu(1.0) - 0.7310585786300049) < 1e-15, "silu at 1")

rng = np.random.default_rng(7)


def norm(shape, dtype):
    return rnd(rng.standard_normal(shape), dtype)


# Softmax: rows sum to 1 and the largest input gets the largest weight.
x = norm((37, 1024), "fp16")
y = R.ref_softmax({"x": x}, {})["y"]
check(np.allclose(y.sum(-1), 1, atol=2e-3), "softmax rows sum to 1")
check(np.all(y.argmax(-1) == x.argmax(-1)), "softmax keeps the argmax")

# RMSNorm with gamma = 1: rows have RMS 1.
x = norm((5, 4096), "bf16")
y = R.ref_rmsnorm({"x": x, "gamma": np.ones(4096)}, {})["y"]
check(np.allclose(np.sqrt((y * y).mean(-1)), 1, atol=1e-2), "rmsnorm rows have RMS 1")

# LayerNorm with gamma 1, beta 0: mean 0, variance 1; beta shifts the mean.
x = rnd(norm((9, 1024), "fp16") * 3 + 1, "fp16")
y = R.ref_layernorm({"x": x, "gamma": np.ones((1, 1024)), "beta": np.zeros((1, 1024))}, {})["y"]
check(np.allclose(y.mean(-1), 0, atol=5e-3) and np.allclose(y.var(-1), 1, atol=1e-2), "layernorm mean 0, var 1")
y2 = R.ref_layernorm({"x": x, "gamma": np.ones((1, 1024)), "beta": np.full((1, 1024), 0.5)}, {})["y"]
check(np.allclose(y2.mean(-1), 0.5, atol=5e-3), "layernorm beta shifts the mean")

# SwiGLU against a direct formula without intermediate rounding.
x, wg, wu, wd = norm((6, 32), "bf16"), norm((32, 48), "bf16"), norm((32, 48), "bf16"), norm((48, 32), "bf16")
y = R.ref_ffn_swiglu({"x": x, "w_gate": wg, "w_up": wu, "w_down": wd}, {})["y"]
g = x @ wg
direct = (g / (1 + np.exp(-g)) * (x @ wu)) @ wd
ok, msg = compare(y, direct, "bf16")
check(ok, "swiglu matches silu(x Wg) * (x Wu) Wd: " + msg)

# Attention: identical value rows give that row back; a one-hot score picks one row.
q, k = norm((40, 64), "fp16"), norm((40, 64), "fp16")
v = np.tile(rnd(np.linspace(-1, 1, 64), "fp16"), (40, 1))
o = R.attention_core(q, k, v)
check(np.allclose(o, v[:1], atol=2e-3), "attention with equal value rows returns that row")
q = np.zeros((3, 64)); q[:, 0] = 64.0
k = np.zeros((40, 64)); k[7, 0] = 64.0
v = norm((40, 64), "fp16")
o = R.attention_core(q, k, v)
check(np.allclose(o, v[7], atol=2e-3), "attention with one dominant key returns its value row")

# The block-diagonal trick equals the naive skinny matmul.
a, w = norm((4096, 16), "fp16"), norm((16, 16), "fp16")
bd = np.kron(np.eye(4), w)
trick = rnd((a.reshape(1024, 64) @ bd).reshape(4096, 16), "fp16")
check(np.array_equal(trick, R.ref_skinny({"a": a, "w": w}, {})["c"]), "blockdiag(w,w,w,w) on (M/4, 64) == a @ w")

# Row RMS statistics and tail_view against hand-made data.
x = np.array([[3.0, 4.0], [1.0, 1.0]])
y = R.ref_row_rms({"x": x}, {})["y"]
check(np.allclose(y, x / np.sqrt([[12.5], [1.0]]), rtol=1e-6), "row RMS normalisation by hand")
t = R.ref_tail_view({"x": np.array([[-1.0, 2.0], [-3.0, -4.0]])}, {})
check(np.array_equal(t["rowmax"], [[2.0], [0.0]]), "relu then row max by hand")

# opslstm: the sum-LSTM reference (fp32 op by op) against the cell's textbook form in float64 (PyPTO's golden:
# gates = sigmoid of the quarters of states + 0.1 z4, c = c0 f + g(n(c~) wc + bc) i, h = g(n(c) ws + bs) o).
H = 256
st, z4, c0 = norm((5, 4 * H), "fp16"), norm((5, 4 * H), "fp16"), norm((5, H), "fp16")
wc, bc, ws, bs = (norm((H,), "fp16") for _ in range(4))
sg = lambda t: 1 / (1 + np.exp(-t))
gl = lambda t: t * sg(1.702 * t)
nm = lambda t: t / np.sqrt(np.mean(t * t, -1, keepdims=True) + 1e-6)
fu = st + 0.1 * z4
c64 = c0 * sg(fu[:, :H]) + gl(nm(fu[:, 3 * H:]) * wc + bc) * sg(fu[:, H:2 * H])
h64 = gl(nm(c64) * ws + bs) * sg(fu[:, 2 * H:3 * H])
got = R.ref_sum_lstm({"states_4d": st, "z4_4d": z4, "prev_cell": c0, "w_cell": wc, "b_cell": bc,
                      "w_state": ws, "b_state": bs}, {"H": H})
for o, want in (("h_out", h64), ("c_out", c64)):
    ok, msg = compare(got[o], want, "fp16")
    check(ok, f"sum_lstm {o} matches the float64 cell: " + msg)
# opsdelta: the gated delta rule's token recurrence equals the chunked (WY) form PyPTO's golden computes:
# in-chunk cumsum of gates, the decay mask, (I - A)^-1 by a dense inverse, the state carried per chunk.
def gdr_chunked(q, k, v, beta, g, s0, C=128):
    n, D = q.shape
    qn = q / np.sqrt((q * q).sum(-1, keepdims=True) + 1e-6) / np.sqrt(D)
    kn = k / np.sqrt((k * k).sum(-1, keepdims=True) + 1e-6)
    pad = (C - n % C) % C
    P = lambda x: np.concatenate([x, np.zeros((pad,) + x.shape[1:])])
    qn, kn, v, beta, g = P(qn), P(kn), P(v), P(beta), P(g)
    S, outs = s0.copy(), []
    for c in range(0, len(qn), C):
        Q, K, V, Bt, G = qn[c:c + C], kn[c:c + C], v[c:c + C], beta[c:c + C], np.cumsum(g[c:c + C])
        dec = np.tril(np.exp(np.tril(G[:, None] - G[None, :])))
        A = -np.tril((K * Bt[:, None]) @ K.T * dec, -1)
        Tm = np.linalg.inv(np.eye(C) - A)
        vnew = Tm @ (V * Bt[:, None]) - Tm @ (K * Bt[:, None] * np.exp(G)[:, None]) @ S
        outs.append((Q * np.exp(G)[:, None]) @ S + np.tril(Q @ K.T * dec) @ vnew)
        S = S * np.exp(G[-1]) + (K * np.exp(G[-1] - G)[:, None]).T @ vnew
    return np.concatenate(outs)[:n], S


rng = np.random.default_rng(5)
n, D = 300, 128
q, k, v = (rng.standard_normal((n, D)) for _ in range(3))
beta, g, s0 = rng.uniform(0, 1, n), rng.uniform(-0.05, 0, n), rng.standard_normal((D, D)) * 0.1
o_tok, S_tok = R.gated_delta_rule_tokens(q, k, v, beta, g, s0)
o_chk, S_chk = gdr_chunked(q, k, v, beta, g, s0)
check(np.abs(o_tok - o_chk).max() < 1e-9 * np.abs(o_tok).max() and np.abs(S_tok - S_chk).max() < 1e-9 * np.abs(S_tok).max(),
      "gated delta rule: token recurrence == chunked WY form (2 chunks + a 44-token tail)")
o_cut = np.concatenate([R.gated_delta_rule_tokens(q[:128], k[:128], v[:128], beta[:128], g[:128], s0)[0],
                        R.gated_delta_rule_tokens(q[128:], k[128:], v[128:], beta[128:], g[128:], 0 * s0)[0]])
check(not compare(o_cut, o_tok, "fp32")[0], "gated delta rule: dropping the state between chunks fails the comparison")

# ports7: the GLM-4.5 quantised shared-expert FFN equals the unquantised float64 FFN up to int8 quantisation error,
# and the int8 steps matter (a reference without them would be this float FFN exactly).
rng = np.random.default_rng(7)
T, H, I = 5, 256, 48
x = rnd(rng.standard_normal((T, H)), "bf16")
w13, w2 = rng.integers(-8, 9, (H, 2 * I)).astype(np.float64), rng.integers(-8, 9, (I, H)).astype(np.float64)
s13, s2 = rnd(rng.uniform(0.5, 1.5, 2 * I) * 0.01, "bf16"), rnd(rng.uniform(0.5, 1.5, H) * 0.03, "bf16")
got = R.ref_glm_ffn_shared_expert_quant({"hidden_states": x, "w13": w13, "w13_scale": s13, "w2": w2, "w2_scale": s2},
                                        {"I": I})["ffn_res"]
h = (x @ w13) * s13
sw = h[:, :I] / (1 + np.exp(-h[:, :I])) * h[:, I:]
want = (sw @ w2) * s2
rel = np.abs(got - want).max() / np.abs(want).max()
check(1e-4 < rel < 0.03, f"glm ffn shared expert quant: == the float64 SwiGLU FFN to int8 precision (rel {rel:.2g})")
xq, xs = R._quant_int8_per_row(x)
check(np.abs(xq).max() == 127 and np.allclose(xq * xs, x, atol=xs.max()), "glm ffn: per-token int8 spans +-127, dequantises back")

# ports7: DeepSeek-V4 hc_pre. comb is Sinkhorn-normalised (every column sums to 1 after the last step, rows close to
# 1); pre in (eps, 1 + eps), post in (0, 2); y is the pre-weighted sum of the four streams.
rng = np.random.default_rng(8)
T, HC, D = 3, 4, 4096
x = rnd(rng.standard_normal((T, HC, D)), "bf16")
inp = {"x": x, "hc_fn": rng.standard_normal((24, HC * D)) * 0.008, "hc_scale_": rng.standard_normal(3),
       "hc_base_": rng.standard_normal(24)}
out = R.ref_hc_pre(inp, {"HC": HC, "D": D})
c = out["comb"]
check(np.abs(c.sum(-2) - 1).max() < 1e-5 and np.abs(c.sum(-1) - 1).max() < 1e-3 and c.min() > 0,
      "hc_pre: comb is doubly stochastic (columns exact, rows to 1e-3)")
check(0 < out["post"].min() and out["post"].max() < 2, "hc_pre: post = 2 sigmoid in (0, 2)")
xf = x.reshape(T, HC * D)
mix = (xf @ inp["hc_fn"].T) / np.sqrt((xf * xf).mean(-1, keepdims=True) + 1e-6)
pre = 1 / (1 + np.exp(-(mix[:, :4] * inp["hc_scale_"][0] + inp["hc_base_"][:4]))) + 1e-6
check(not compare(out["y"], x.sum(1), "bf16")[0] and compare(out["y"], (pre[:, :, None] * x).sum(1), "bf16")[0],
      "hc_pre: y is the pre-weighted stream sum (not the plain sum)")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all reference checks passed")
