"""NumPy references of the random6 conformance spec (catalog6_random.yaml), imported by refs.py: PyPTO's
uniform / normal from the NumPy Philox 4x32-10 of philox_ref.py (each value exact in its dtype for
uniform; normal's fp32 value rounded once to fp16 / bf16)."""
from numerics import rnd as r
from refs import ref

import philox_ref as P


@ref()
def catalog6_random(i, d):
    f = "fp32"
    return {
        "u32": P.uniform([20, 40], (1 << 40) + 1234, 7, "fp32"),
        "u16": P.uniform([20, 40], 1234, 1, "fp16"),
        "ub16": P.uniform([20, 40], 1234, 1, "bf16"),
        "umix": r(r(r(P.uniform([20, 40], 42, 3, "fp32") * 2, f) - 1, f) + r(i["x"] * 0, f), f),
        "n32": P.normal([8, 12], 1234, 1),
        "n16": r(P.normal([8, 12], 99, 2), "fp16"),
        "nb16": r(P.normal([8, 12], 99, 2), "bf16"),
        "n1": P.normal([36], 0, 0),
    }
