"""Independent NumPy implementations of every operator in specs/, for the conformance harness.

Each reference takes the inputs (float64 arrays holding values exactly representable in their
dtype) and the bound dims, and returns the outputs as float64 arrays. They follow the spec
language's semantics, not ptoc's code: every op computes in float64 and its result is rounded to
the op's dtype (`rnd`), scalar literals take the tensor's dtype, matmuls accumulate exactly and
round once to out_dtype. They are written from the operator's textbook definition, so a spec that
computes something else than its one-line comment says fails here.

`small` gives the dims of the small-shape copy the harness evaluates (large static dims shrunk,
tails exercised: sizes that are not multiples of the tiles); `dynamic` gives the run-time size of
each dynamic dim.
"""
import numpy as np

from dtypes import rnd


def f32(x):
    return rnd(x, "fp32")


def lit(v, dtype="fp32"):
    """A scalar literal takes the tensor's dtype."""
    return float(rnd(np.float64(v), dtype))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def silu(x):
    return x * sigmoid(x)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def softmax_rows(s):
    """fp32 softmax along the last axis, one rounding per spec op: amax, sub, exp, sum, div."""
    m = s.max(axis=-1, keepdims=True)
    e = f32(np.exp(f32(s - m)))
    return f32(e / f32(e.sum(axis=-1, keepdims=True)))


def matmul(a, b, out="fp32"):
    return rnd(a @ b, out)


# --- the operator library -------------------------------------------------------------------

def ref_softmax(i, d):
    return {"y": rnd(softmax_rows(f32(i["x"])), "fp16")}


def ref_rmsnorm(i, d):
    x, g = i["x"], i["gamma"]
    ms = f32(np.mean(f32(x * x), axis=-1, keepdims=True))
    r = f32(1.0 / np.sqrt(f32(ms + lit(1e-6))))
    return {"y": rnd(f32(f32(x * r) * g), "bf16")}


def ref_layernorm(i, d):
    x, g, b = i["x"], i["gamma"], i["beta"]
    mu = f32(np.mean(x, axis=-1, keepdims=True))
    xc = f32(x - mu)
    var = f32(np.mean(f32(xc * xc), axis=-1, keepdims=True))
    xn = f32(xc * f32(1.0 / np.sqrt(f32(var + lit(1e-5)))))
    return {"y": rnd(f32(f32(xn * g) + b), "fp16")}


def ref_ffn_swiglu(i, d):
    x = i["x"]
    gate = matmul(x, i["w_gate"])
    up = matmul(x, i["w_up"])
    h = rnd(f32(f32(silu(gate)) * up), "bf16")
    return {"y": rnd(matmul(h, i["w_down"]), "bf16")}


def ref_matmul(i, d):
    return {"c": matmul(i["a"], i["b"])}


def ref_gemm(i, d):
    return {"c": matmul(i["a"], i["b"], "fp16")}


def attention_core(q, k, v):
    """One head: q (S, D), k (L, D), v (L, D) in fp16 -> fp16 (S, D)."""
    s = f32(matmul(q, k.T) * lit(0.08838834764831845))
    p = rnd(softmax_rows(s), "fp16")
    return rnd(matmul(p, v), "fp16")


def ref_attention(i, d):
    q, k, v = i["q"], i["k"], i["v"]
    return {"o": np.stack([attention_core(q[g], k[g], v[g]) for g in range(q.shape[0])])}


def ref_decode_attention(i, d):
    q, k, v = i["q"], i["k_cache"], i["v_cache"]
    return {"o": np.stack([attention_core(q[b], k[b], v[b]) for b in range(q.shape[0])])}


def ref_skinny(i, d):
    # Also the reference of the block-diagonal form: blockdiag(w, w, w, w) on (M/4, 64) rows is a @ w.
    return {"c": matmul(i["a"], i["w"], "fp16")}


def ref_loop_unroll(i, d):
    t = f32(i["x"] + i["bias"])
    return {"y": rnd(f32(gelu_tanh(t)), "fp16")}


# --- small specs used by tests (specs/examples/) -----------------------------------------------

def ref_exp_affine(i, d):
    e = f32(np.exp(i["x"]))
    return {"y": f32(f32(e * 2.0) + 1.0)}


def ref_row_rms(i, d):
    x = i["x"]
    ms = f32(np.mean(f32(x * x), axis=1, keepdims=True))
    return {"y": f32(x * f32(1.0 / np.sqrt(f32(ms + lit(1e-6)))))}


def ref_transpose_tiles(i, d):
    e = rnd(np.exp(i["x"]), "fp16")
    return {"y": rnd(e.T * 0.5, "fp16")}


def ref_matmul_nz_trans(i, d):
    return {"y": rnd(matmul(i["x"], i["w"].T), "bf16")}


def ref_scope_parallel(i, d):
    x = i["x"]
    return {"y": f32(f32(sigmoid(x)) * 2.0), "z": f32(f32(np.tanh(x)) + 1.0)}


def ref_tail_view(i, d):
    r = np.maximum(i["x"], 0.0)
    return {"y": r, "rowmax": r.max(axis=1, keepdims=True)}


def ref_labels_reuse(i, d):
    p1, p2 = matmul(i["x"], i["w1"]), matmul(i["x"], i["w2"])
    return {"y": f32(np.maximum(p1, p2) - f32(np.minimum(p1, p2) * 0.5))}


def online_softmax_attention(q, k, v, block, scale):
    """One sequence: q (G, D), k and v (S, D) in fp16 -> fp16 (G, D), by the flash-decode recurrence over
    KV blocks of `block` rows (the last a tail), one rounding per spec op."""
    G, D = q.shape
    m = np.full((G, 1), -np.inf)
    l = np.zeros((G, 1))
    acc = np.zeros((G, D))
    for j in range(0, k.shape[0], block):
        s = f32(matmul(q, k[j:j + block].T) * lit(scale))
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = f32(np.exp(f32(s - m_new)))
        alpha = f32(np.exp(f32(m - m_new)))
        l = f32(f32(l * alpha) + f32(p.sum(axis=-1, keepdims=True)))
        acc = f32(f32(acc * alpha) + matmul(rnd(p, "fp16"), v[j:j + block]))
        m = m_new
    return rnd(f32(acc / l), "fp16")


def ref_flash_decode_carry(i, d):
    q, k, v = i["q"], i["k"], i["v"]
    return {"o": np.stack([online_softmax_attention(q[b], k[b], v[b], 128, 0.125) for b in range(q.shape[0])])}


# --- quant: GLM-4.5 attention pre-quant prolog (PyPTO's golden, op by op) -------------------------

def _rms_bias(x, g, b, coff):
    """fp32 RMSNorm with bias over the last axis, PyPTO's order: x*x*coff, sum, + eps, sqrt, x / ., * g, + b."""
    ss = f32(f32(f32(x * x) * lit(coff)).sum(axis=-1, keepdims=True))
    return f32(f32(f32(x / f32(np.sqrt(f32(ss + lit(1e-5))))) * g) + b)


def ref_attention_prequant_prolog(i, d):
    bf = lambda v: rnd(v, "bf16")
    xf = f32(i["residual_input"] + i["x"])
    xnorm = bf(_rms_bias(xf, i["x_gamma"], i["x_bias"], 1.0 / 5120))
    # npu_quantize: int8(saturate(rint(x * scale + offset))), a scale per hidden channel.
    xq = np.clip(np.round(f32(f32(xnorm * i["x_scale"]) + i["x_offset"])), -128, 127)
    mm = rnd(xq.astype(np.int64) @ i["weight"].astype(np.int64), "int32")
    mmb = bf(f32(f32(rnd(mm + i["quant_bias"], "int32")) * i["deq_scale"]))
    T = mmb.shape[0]
    heads = mmb.reshape(T, 14, 128)
    qn = bf(_rms_bias(heads[:, 0:12, :], i["q_gamma"], i["q_bias"], 1.0 / 128))
    kn = bf(_rms_bias(heads[:, 12:13, :], i["k_gamma"], i["k_bias"], 1.0 / 128))
    c, s = i["cos"], i["sin"]

    def rope(t):
        t1, t2 = t[..., 0:32], t[..., 32:64]
        o1 = bf(f32(f32(t1 * c) - f32(t2 * s)))
        o2 = bf(f32(f32(t2 * c) + f32(t1 * s)))
        return np.concatenate([o1, o2, t[..., 64:128]], axis=-1)

    return {"q": rope(qn).reshape(T, 1536), "k": rope(kn).reshape(T, 128),
            "v": heads[:, 13, :], "residual": bf(xf)}


def ref_flash_decode_paged(i, d):
    # Gather each sequence's K/V from its pages, then the same online softmax (one state update per block).
    q, kc, vc = i["q"], i["k_cache"], i["v_cache"]
    seq, bt = i["seq_len"].astype(np.int64), i["block_table"].astype(np.int64)
    out = []
    for b in range(q.shape[0]):
        rows = np.concatenate([np.arange(bt[b, j] * 128, bt[b, j] * 128 + 128) for j in range(-(-seq[b] // 128))])
        rows = rows[:seq[b]]
        out.append(online_softmax_attention(q[b], kc[rows], vc[rows], 128, 0.08838834764831845))
    return {"o": np.stack(out)}


# --- opsdelta: Qwen3-Next chunked gated delta rule (specs/gated_delta_rule.yaml) ---------------------

def gated_delta_rule_tokens(q, k, v, beta, g, s0):
    """The gated delta rule one token at a time, in float64: for each token, after an L2 norm of q and k
    and q scaled by 1/sqrt(D), S <- exp(g) S; S <- S + k (beta (v - S^T k))^T; o = S^T q, with S [Dk, Dv].
    The spec computes the same thing in 128-token chunks (WY form, a triangular inverse); this recurrence
    shares none of that algebra."""
    S = s0.copy()
    out = np.zeros_like(v)
    for t in range(q.shape[0]):
        qt = q[t] / np.sqrt((q[t] * q[t]).sum() + 1e-6) / np.sqrt(q.shape[1])
        kt = k[t] / np.sqrt((k[t] * k[t]).sum() + 1e-6)
        S = S * np.exp(g[t])
        S = S + np.outer(kt, beta[t] * (v[t] - S.T @ kt))
        out[t] = S.T @ qt
    return out, S


def ref_gated_delta_rule(i, d):
    q, k, v, beta, g = i["query"], i["key"], i["value"], i["beta"], i["gate"]
    offs = i["act_seq_len"].astype(np.int64)
    nqk, nv = q.shape[1], v.shape[1]
    out = np.zeros_like(v)
    states = np.zeros_like(i["states"])
    for b in range(len(offs) - 1):
        lo, hi = offs[b], offs[b + 1]
        for h in range(nv):
            hk = h // (nv // nqk)
            o, S = gated_delta_rule_tokens(q[lo:hi, hk], k[lo:hi, hk], v[lo:hi, h], beta[lo:hi, h],
                                           g[lo:hi, h], i["states"][b, h].T)
            out[lo:hi, h] = o
            states[b, h] = S.T     # stored [Dv, Dk], as PyPTO's states
    return {"core_attn_out": out, "last_state_data": states}


GATED_DELTA_RULE_SEQS = [173, 16 * 128 + 300]   # 1 chunk + a 45-token tail; a gear of 16 chunks, 2 more + a 44-token tail

GATED_DELTA_RULE_ALIGNED = [256, 18 * 128]


def gated_delta_rule_inputs(rng, d, seqs=None):
    """PyPTO's helper inputs (mask, tril_mask, eye) and cumulative offsets; beta in (0, 1) and gates in
    [-0.05, 0] (log-decays, as the model's sigmoid beta and -softplus gate give) so that the state carried
    across chunks matters to the outputs; a non-zero initial state."""
    L = d["L"]
    offs = np.concatenate([[0], np.cumsum(seqs or GATED_DELTA_RULE_SEQS)]).astype(np.float64)
    T, NV, D = d["T"], d["NV"], d["D"]
    return {
        "mask": -np.tril(np.ones((L, L)), -1),
        "tril_mask": np.tril(np.ones((L, L))),
        "eye": np.tile(np.eye(16), (1, L // 16)),
        "act_seq_len": offs,
        "beta": rnd(rng.uniform(0.0, 1.0, (T, NV)), "fp32"),
        "gate": rnd(rng.uniform(-0.05, 0.0, (T, NV)), "fp32"),
        "states": rnd(rng.standard_normal((len(offs) - 1, NV, D, D)) * 0.1, "fp32"),
    }


class Ref:
    """fn: the reference; small: static dims of the small copy; dynamic: run-time sizes of dynamic dims;
    scale: per-input factor on the standard-normal inputs (e.g. 1/sqrt(K) for weights, so that
    activations stay O(1) and the comparison is not dominated by a few huge elements)."""

    def __init__(self, fn, small=None, dynamic=None, scale=None, int_atol=None, inputs=None):
        self.fn, self.small, self.dynamic, self.scale = fn, small or {}, dynamic or {}, scale or {}
        self.int_atol = int_atol or {}  # integer outputs that may differ by this much (spec_tests.compare_output)
        # inputs(rng, dims) -> {name: float64 values}: inputs that must hold particular values (constant
        # masks, cumulative offsets); the rest are drawn as usual.
        self.inputs = inputs


def ref_moe_router(i, d):
    """GLM-4.5 router (PyPTO's glm_gate.py + glm_select_experts.py with one expert group): top-k by
    sigmoid(logits) + bias, stable on ties (the lower expert first), the unbiased scores renormalised."""
    logits = matmul(i["hidden_states"], i["gate_weight"].T)
    scores = f32(sigmoid(logits))
    biased = f32(scores + f32(i["e_score_bias"])[None, :])
    k = d["K"]
    ids = np.argsort(-biased, axis=-1, kind="stable")[:, :k]
    picked = np.take_along_axis(scores, ids, -1)
    weights = f32(picked / f32(picked.sum(-1, keepdims=True)))
    return {"router_logits": logits, "topk_weights": weights, "topk_ids": ids.astype(np.float64)}


# Keyed by the spec's `name:`.
REFERENCES = {
    "softmax": Ref(ref_softmax, dynamic={"B": 37}),
    "rmsnorm": Ref(ref_rmsnorm, dynamic={"T": 37}),
    "layernorm": Ref(ref_layernorm, small={"N": 203}),
    "ffn_swiglu": Ref(ref_ffn_swiglu, small={"D": 256, "F": 320}, dynamic={"T": 150},
                      scale={"w_gate": 0.0625, "w_up": 0.0625, "w_down": 0.056}),
    "matmul": Ref(ref_matmul, small={"M": 200, "K": 320, "N": 192}),
    "gemm_6144": Ref(ref_gemm, small={"M": 384, "K": 320, "N": 272}),
    "attention": Ref(ref_attention, small={"G": 2, "S": 192, "D": 64}),
    "decode_attention": Ref(ref_decode_attention, small={"L": 320, "D": 64}, dynamic={"B": 3}),
    "skinny_matmul": Ref(ref_skinny, small={"M": 16384 * 2 + 1000}),
    "skinny_matmul_blockdiag": Ref(ref_skinny, small={"M": 16384 * 2}),
    "loop_unroll": Ref(ref_loop_unroll, dynamic={"T": 16 * 21 + 5}),
    "aligned_tiles": Ref(ref_exp_affine),
    "misaligned_tiles": Ref(ref_exp_affine),
    "reduction_whole": Ref(ref_row_rms),
    "reduction_split": Ref(ref_row_rms),
    "transpose_tiles": Ref(ref_transpose_tiles),
    "split_k": Ref(ref_matmul, small={"M": 130, "K": 2112, "N": 144}),
    "matmul_nz_trans": Ref(ref_matmul_nz_trans, small={"M": 200, "K": 320, "N": 272}),
    "scope_parallel": Ref(ref_scope_parallel),
    "tail_view": Ref(ref_tail_view, dynamic={"B": 100}),
    "labels_reuse": Ref(ref_labels_reuse),
    "flash_decode_carry": Ref(ref_flash_decode_carry, dynamic={"B": 3, "S": 4 * 128 + 45}),
    "flash_decode_carry_static": Ref(ref_flash_decode_carry, dynamic={"B": 3}),
    # Real shapes; 11 tokens: a whole tile of 8 and a tail of 3. x_scale spreads the int8 values over the
    # whole range (some saturate); deq_scale keeps the dequantised values O(1).
    "attention_prequant_prolog": Ref(ref_attention_prequant_prolog, dynamic={"T": 11},
                                     scale={"x_scale": 30.0, "deq_scale": 0.002}),
    "flash_decode_cond": Ref(ref_flash_decode_carry, dynamic={"B": 3, "S": 4 * 128 + 45}),
    # logits of order 1 (hidden scaled by 1/sqrt(H)): distinct sigmoid scores, as a real router sees
    "moe_router": Ref(ref_moe_router, dynamic={"T": 37}, scale={"hidden_states": 0.014}),
    "moe_router_blocks": Ref(ref_moe_router, dynamic={"T": 37}, scale={"hidden_states": 0.014}),
    "flash_decode_paged": Ref(ref_flash_decode_paged, dynamic={"B": 3}),
    # Real D = L = 128; one query/key head shared by two value heads; sequences of 173 and 300 tokens.
    "gated_delta_rule": Ref(ref_gated_delta_rule, small={"NQK": 1, "NV": 2},
                            dynamic={"T": sum(GATED_DELTA_RULE_SEQS), "B": len(GATED_DELTA_RULE_SEQS)},
                            inputs=gated_delta_rule_inputs),
    # PyPTO's aligned variant: whole chunks only (2, and a gear of 16 + 2).
    "gated_delta_rule_aligned": Ref(ref_gated_delta_rule, small={"NQK": 1, "NV": 2},
                                    dynamic={"T": sum(GATED_DELTA_RULE_ALIGNED), "B": len(GATED_DELTA_RULE_ALIGNED)},
                                    inputs=lambda rng, d: gated_delta_rule_inputs(rng, d, GATED_DELTA_RULE_ALIGNED)),
    # samples/tuning/: four tuning steps of one RMSNorm, all computing the same numbers.
    "rmsnorm_0_baseline": Ref(ref_rmsnorm, dynamic={"T": 37}),
    "rmsnorm_1_loop": Ref(ref_rmsnorm, dynamic={"T": 37}),
    "rmsnorm_2_tiles": Ref(ref_rmsnorm, dynamic={"T": 37}),
    "rmsnorm_3_stitch": Ref(ref_rmsnorm, dynamic={"T": 37}),
}


# --- opslstm: Arctic sum-LSTM cell (PyPTO models/arctic, test_sum_lstm.py's golden, op by op in fp32) --------

def _rms_norm_pure(x, n):
    """x / sqrt(sum(x * x * (1/n)) + 1e-6), no weight: Arctic's rms_norm_pure, one fp32 rounding per op."""
    ss = f32(f32(f32(x * x) * lit(1.0 / n)).sum(axis=-1, keepdims=True))
    return f32(x / f32(np.sqrt(f32(ss + lit(1e-6)))))


def _gelu_sigmoid(x):
    """The sigmoid form of GELU Arctic uses: x * sigmoid(1.702 x)."""
    return f32(x * f32(sigmoid(f32(x * lit(1.702)))))


def ref_sum_lstm(i, d):
    H = d["H"]
    fused = f32(i["states_4d"] + f32(i["z4_4d"] * lit(0.1)))
    pre_f, pre_i, pre_o, pre_c = (fused[:, q * H:(q + 1) * H] for q in range(4))
    f_gate, i_gate, o_gate = (f32(sigmoid(p)) for p in (pre_f, pre_i, pre_o))
    c_act = _gelu_sigmoid(f32(f32(_rms_norm_pure(pre_c, H) * i["w_cell"]) + i["b_cell"]))
    c_new = f32(f32(i["prev_cell"] * f_gate) + f32(c_act * i_gate))
    h_act = _gelu_sigmoid(f32(f32(_rms_norm_pure(c_new, H) * i["w_state"]) + i["b_state"]))
    return {"h_out": rnd(f32(h_act * o_gate), "fp16"), "c_out": rnd(c_new, "fp16")}


REFERENCES.update({
    # Real shapes; batch 7 = gears 4 + 2 + 1 (PyPTO's test: 32 = eight gears of 4).
    "sum_lstm": Ref(ref_sum_lstm, dynamic={"B": 7}),
})


# --- opslstm: DeepSeek-V3.2 lightning-indexer prolog, quantised (PyPTO models/deepseek_v32_exp, the golden of
# deepseekv32_lightning_indexer_prolog_quant.py, written op by op with one rounding per spec op) ----------------

def _rope_half(x, cos, sin):
    """x * cos + rotate_half(x) * sin in fp32 over the last axis (rotate_half: [-x2, x1]), to bf16."""
    h = x.shape[-1] // 2
    rot = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    return rnd(f32(f32(x * cos) + f32(rot * sin)), "bf16")


def _quant_int8_per_row(x):
    """PyPTO's prolog_quant: scale = 127 / amax|x| (fp32), int8(trunc(fp16(rint(x * scale)))) saturated, and the
    dequant scale 1 / scale."""
    sq = f32(127.0 / np.abs(x).max(axis=-1, keepdims=True))
    q = np.clip(np.trunc(rnd(np.rint(f32(x * sq)), "fp16")), -128, 127)
    return q, f32(1.0 / sq)


def ref_lightning_indexer_prolog(i, d):
    bf = lambda v: rnd(v, "bf16")
    T, N, D, R, BS = i["x_in"].shape[0], d["N"], d["D"], d["R"], d["BS"]
    cos, sin = i["cos_idx_rope_in"], i["sin_idx_rope_in"]
    # Query: int8 x int8 -> int32, dequantised per token and per column, bf16, heads of 128.
    q32 = rnd(i["q_norm_in"].astype(np.int64) @ i["w_qb_in"].astype(np.int64), "int32")
    q = bf(f32(f32(f32(q32) * i["q_norm_scale_in"]) * i["w_qb_scale_in"].reshape(1, N * D))).reshape(T, N, D)
    q = np.concatenate([_rope_half(q[..., :R], cos[:, None, :], sin[:, None, :]), q[..., R:]], axis=-1)
    q = bf(q @ i["hadamard_q_in"])
    q_int8, q_scale = _quant_int8_per_row(q)
    # Key: fp32 projection, LayerNorm (mean first, then the variance of the differences), bf16.
    k = f32(i["x_in"] @ i["wk_in"])
    mean = f32(f32(k * lit(1.0 / D)).sum(-1, keepdims=True))
    diff = f32(k - mean)
    var = f32(f32(f32(diff * diff) * lit(1.0 / D)).sum(-1, keepdims=True))
    kn = f32(diff / f32(np.sqrt(f32(var + lit(1e-6)))))
    k = bf(f32(f32(kn * i["ln_gamma_k_in"]) + i["ln_beta_k_in"]))
    k = np.concatenate([_rope_half(k[:, :R], cos, sin), k[:, R:]], axis=-1)
    k = bf(k @ i["hadamard_k_in"])
    k_int8, k_scale = _quant_int8_per_row(k)
    # The paged caches: the inputs with row t written at slot k_cache_index[t], in token order.
    kc, ks = i["k_int8_in"].copy(), i["k_scale_in"].copy()
    for t, slot in enumerate(i["k_cache_index_in"].astype(np.int64)):
        kc[slot // BS, slot % BS, 0, :] = k_int8[t]
        ks[slot // BS, slot % BS, 0, 0] = rnd(k_scale[t, 0], "fp16")
    # Head weights: bf16(x @ w_proj), scaled by 1 / (sqrt(N) sqrt(D)) in fp32, fp16.
    w = rnd(f32(bf(i["x_in"] @ i["w_proj_in"]) * lit(1.0 / (np.sqrt(N) * np.sqrt(D)))), "fp16")
    return {"q_int8_out": q_int8, "q_scale_out": rnd(q_scale, "fp16"), "k_int8_out": kc, "k_scale_out": ks,
            "weights_out": w}


REFERENCES.update({
    # Real static shapes; 63 tokens = one instance of every gear (32 + 16 + 8 + 4 + 2 + 1); a 4-block cache
    # (512 slots, the range k_cache_index_in draws from, repeats included: the later token wins).
    "lightning_indexer_prolog": Ref(ref_lightning_indexer_prolog, dynamic={"T": 63, "NB": 4},
                                    scale={"q_norm_scale_in": 0.001, "hadamard_q_in": 0.088,
                                           "hadamard_k_in": 0.088, "wk_in": 0.0118, "w_proj_in": 0.0118},
                                    # a bf16 Hadamard output at an exact rounding tie goes either way with the
                                    # matmul's summation order, and moves its int8 by 1 (PyPTO's test: atol 1)
                                    int_atol={"q_int8_out": 1, "k_int8_out": 1}),
})


# --- ports7: GLM-4.5 quantised shared-expert FFN (PyPTO models/glm_v4_5/glm_ffn_shared_expert_quant.py) ----------
# Written from the operator's math (per-token symmetric int8 quantisation, exact integer matmul, per-token x
# per-channel dequantisation, SwiGLU), one fp32 rounding per op in the kernel's order.

def _int8_matmul_exact(q, w):
    """int8 x int8 accumulated exactly (int64 in NumPy; |acc| < 2^31 at these K), as int32."""
    return rnd(q.astype(np.int64) @ w.astype(np.int64), "int32")


def ref_glm_ffn_shared_expert_quant(i, d):
    I = d["I"]
    x = f32(i["hidden_states"])
    xq, xs = _quant_int8_per_row(x)
    # dequant: (fp32(acc) * token scale) * channel scale
    h = f32(f32(f32(_int8_matmul_exact(xq, i["w13"])) * xs) * i["w13_scale"][None, :])
    left, right = h[:, :I], h[:, I:]
    s = f32(f32(left / f32(f32(np.exp(f32(-left))) + 1.0)) * right)   # silu(left) * right
    sq, ss = _quant_int8_per_row(s)
    y = f32(f32(f32(_int8_matmul_exact(sq, i["w2"])) * ss) * i["w2_scale"][None, :])
    return {"ffn_res": rnd(y, "bf16")}


REFERENCES.update({
    # Real static shapes; 1 + 2 + ... : 255 tokens = one instance of every gear (128 + 64 + ... + 1). The scales
    # keep the dequantised activations O(1) (int8 weights are drawn in [-8, 8]), so SwiGLU is not saturated.
    "glm_ffn_shared_expert_quant": Ref(ref_glm_ffn_shared_expert_quant, dynamic={"T": 255},
                                       scale={"w13_scale": 0.004, "w2_scale": 0.015}),
})


# --- ports7: DeepSeek-V4 hc_pre (PyPTO models/deepseek_v4/hc_pre_impl.py, hc_pre_kernel) -------------------------
# Written from the operator's math (test_hc_pre.py's gen_hc_pre states the same formulas): RMS-normalised mixing
# logits, sigmoid gates, a Sinkhorn-normalised 4 x 4 stream mix, one fp32 rounding per op.

def _sigmoid_recip(v):
    """1 / (exp(-v) + 1), each op rounded to fp32."""
    return f32(1.0 / f32(f32(np.exp(f32(-v))) + 1.0))


def ref_hc_pre(i, d):
    HC, D, eps = d["HC"], d["D"], lit(1e-6)
    T = i["x"].shape[0]
    xf = i["x"].reshape(T, HC * D)
    rms = f32(np.sqrt(f32(f32(f32(f32(xf * xf).sum(-1, keepdims=True)) / (HC * D)) + eps)))
    mix = f32(f32(xf @ i["hc_fn"].T) / rms)                                      # (T, 24)
    s, b = i["hc_scale_"], i["hc_base_"]
    pre = f32(_sigmoid_recip(f32(f32(mix[:, :HC] * s[0]) + b[:HC])) + eps)
    post = f32(_sigmoid_recip(f32(f32(mix[:, HC:2 * HC] * s[1]) + b[HC:2 * HC])) * 2.0)
    c = f32(f32(mix[:, 2 * HC:] * s[2]) + b[2 * HC:]).reshape(T, HC, HC)
    c = f32(np.exp(f32(c - c.max(-1, keepdims=True))))
    c = f32(f32(c / f32(c.sum(-1, keepdims=True))) + eps)
    c = f32(c / f32(f32(c.sum(-2, keepdims=True)) + eps))
    for _ in range(20 - 1):                                                      # Sinkhorn: rows, then columns
        c = f32(c / f32(f32(c.sum(-1, keepdims=True)) + eps))
        c = f32(c / f32(f32(c.sum(-2, keepdims=True)) + eps))
    y = f32(f32(pre[:, :, None] * xf.reshape(T, HC, D)).sum(1))
    return {"y": rnd(y, "bf16"), "post": post, "comb": c}


REFERENCES.update({
    # Real static shapes; 341 tokens = one instance of every gear (256 + 64 + 16 + 4 + 1): the whole-K matmul with
    # split_k and the four-slice split-K branch. hc_fn scaled by ~1/sqrt(16384) keeps the mixing logits O(1), so
    # the gates and the Sinkhorn exponentials are not saturated.
    "hc_pre": Ref(ref_hc_pre, dynamic={"T": 341}, scale={"hc_fn": 0.008}),
})
REFERENCES.update({
    # PyPTO's prefill variant of hc_pre: the same outputs (its golden, gen_hc_pre_trans, is the same formula).
    # 130 tokens = one gear-128 instance and two gear-1 instances.
    "hc_pre_prefill": Ref(ref_hc_pre, dynamic={"T": 130}, scale={"hc_fn": 0.008}),
})


# portB6: DeepSeek-V4 window attention, ... (references_port6b.py)
from references_port6b import ref_win_attention, win_attention_inputs  # noqa: E402

REFERENCES.update({
    # Real shapes; 3 batches (8 tokens, 9 pages): windows over 3, 2 and 1 pages, a group tail of 1.
    "win_attention": Ref(ref_win_attention, dynamic={"T": 8, "B": 3, "NB": 9}, inputs=win_attention_inputs),
})

# --- port6a: Kimi's block attention residual and QAT's asymmetric per-group fake quantisation (PyPTO models/) ---
from references_port6a import ref_block_attn_res, ref_qat_asymmetric_per_group, qat_inputs  # noqa: E402

REFERENCES.update({
    # Real D = 512 and L = 26 (PyPTO's n = 25 blocks + the partial block, l_max 32); 195 = 128 + 64 + 3 tokens, every
    # gear. proj_weight scaled as PyPTO's test draws it (randn / sqrt(4 D)).
    "block_attn_res": Ref(ref_block_attn_res, dynamic={"BT": 195, "L": 26}, scale={"proj_weight": 0.0221}),
    # 12288 groups of 128 is PyPTO's N768-M2048 case; 1000 = 512 + 256 + 232 (a tail in the gear-256 block).
    "qat_asymmetric_per_group": Ref(ref_qat_asymmetric_per_group, dynamic={"NG": 1000}, inputs=qat_inputs),
})

# --- surf9: Qwen3-Next gated delta rule's l2norm and inverse_matmul in PyPTO's Python spelling ---
from references_surf9 import ref_gdr_l2norm_inverse  # noqa: E402

REFERENCES.update({"gdr_l2norm_inverse": Ref(ref_gdr_l2norm_inverse, dynamic={"B": 3})})  # 3 chunks of 64 tokens
