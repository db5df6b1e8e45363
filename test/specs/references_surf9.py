"""surf9: NumPy reference of specs/gdr_l2norm_inverse.yaml (registered by references.py), written from PyPTO's
models/qwen3_next/gated_delta_rule_impl.py (l2norm, inverse_matmul) and the torch reference's query scale,
not from the spec: one fp32 rounding per op, matmuls exact then rounded once."""
import numpy as np

from dtypes import rnd


def f32(x):
    return rnd(x, "fp32")


def ref_gdr_l2norm_inverse(i, d):
    L, ML, D = d["L"], d["ML"], d["D"]
    q, k = i["query"], i["key"]

    def l2norm(x):
        return f32(x / f32(np.sqrt(f32(f32(x * x).sum(-1, keepdims=True) + float(f32(np.float64(1e-6)))))))

    qn, kn = l2norm(q), l2norm(k)
    scale = float(f32(np.float64(1.0 / (D ** 0.5))))
    inv = np.zeros_like(i["attn"])
    for b in range(i["attn"].shape[0] // L):
        a11 = i["attn_1_1_inv"][b * ML:(b + 1) * ML]
        a22 = i["attn_2_2_inv"][b * ML:(b + 1) * ML]
        a21 = i["attn"][b * L + ML:(b + 1) * L, 0:ML]
        r = b * L
        inv[r:r + ML, 0:ML] = a11
        inv[r + ML:r + L, 0:ML] = f32(f32(a22 @ a21) @ a11)
        inv[r + ML:r + L, ML:L] = a22
    return {"query_after_l2norm": qn, "key_after_l2norm": kn, "query_scaled": f32(qn * scale), "attn_inv": inv}
