"""NumPy references of the port6a library specs (PyPTO models/kimi, models/qat), written from the PyPTO tests'
golden formulas (test_block_attn_res.py's block_attn_res_forward_reference, test_qat.py's
create_asymmetric_qat_golden), one rounding per spec op as references.py does; independent of ptoc."""
import numpy as np

from dtypes import rnd


def f32(x):
    return rnd(x, "fp32")


def ref_block_attn_res(i, d):
    """Kimi block attention residual, forward: k = RMSNorm(v) * gamma over D, logits = k . q per block,
    alpha = softmax over the L valid blocks, h = sum_l alpha_l v_l (bf16); caches rms (BT, L, 1), alpha (BT, L)."""
    v = i["v_flat"]                                      # (BT, L, D) bf16 values, exact in float64
    D = v.shape[-1]
    q = i["proj_weight"].reshape(D)
    gamma = i["gamma_fp32"].reshape(D)
    ss = f32(f32(v * v).sum(-1, keepdims=True))          # (BT, L, 1)
    rms = f32(np.sqrt(f32(f32(ss / D) + f32(1e-6))))
    k = f32(f32(v / rms) * gamma)
    logits = f32(k @ q)                                  # (BT, L): the matmul rounds once
    e = f32(np.exp(f32(logits - logits.max(-1, keepdims=True))))
    alpha = f32(e / f32(e.sum(-1, keepdims=True)))
    h = rnd(np.einsum("bl,bld->bd", alpha, v), "bf16")[:, None, :]
    return {"h_out": h, "rms_cache": rms, "alpha_cache_3d": alpha}


def ref_qat_asymmetric_per_group(i, d, bit=3, eps=1e-4, clip_val=0.99):
    """Enhanced LSQ+ asymmetric fake quantisation per group of 128 (test_qat.py's golden, forward: the
    straight-through round is round()): w' = (rint(clip((w - o) / a, -c, c) * n - 1/2) + 1/2) / n * a + o,
    a = max(s, eps) * n, n = 2^(bit - 1)."""
    n = float(2 ** (bit - 1))
    w, s, o = i["weight"], f32(i["scale"]), f32(i["offset"])
    alpha = f32(np.maximum(s, f32(eps)) * n)
    norm = f32(f32(w - o) / alpha)
    clipped = np.clip(norm, f32(-clip_val), f32(clip_val))
    shifted = f32(f32(clipped * n) - 0.5)
    rounded = np.rint(shifted)
    out = f32(f32(f32(f32(rounded + 0.5) / n) * alpha) + o)
    return {"output_bf16": rnd(out, "bf16")}


def qat_inputs(rng, d):
    """Inputs that exercise every branch: weights N(0, 1); scales |N(0, 0.3)| with every 16th group below eps
    (protected to eps, so that group clips); offsets N(0, 0.1); all bf16."""
    ng, gs = d["NG"], d["GS"]
    scale = np.abs(rng.standard_normal((ng, 1))) * 0.3
    scale[::16] = 1e-5
    return {"weight": rnd(rng.standard_normal((ng, gs)), "bf16"), "scale": rnd(scale, "bf16"),
            "offset": rnd(rng.standard_normal((ng, 1)) * 0.1, "bf16")}
