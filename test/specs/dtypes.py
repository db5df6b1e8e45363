"""Device dtypes for the NumPy side of the spec conformance tests.

The spec language rounds every op's result to its dtype (round to nearest
even), so the references below compute in float64 and call `rnd` after each
op. NumPy has no bfloat16: it is emulated on float32 bit patterns.
"""
import numpy as np

FLOAT_DTYPES = ("fp32", "fp16", "bf16")

# The NumPy type a .npy input is written as, and the one ptoc writes an output as (DESIGN.md).
NPY_TYPE = {
    "fp32": np.float32, "fp16": np.float16, "bf16": np.float32,
    "int32": np.int32, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_, "int64": np.int64,
    "int16": np.int16, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
}

# Per-dtype comparison tolerances: |got - ref| <= atol * scale + rtol * |ref|, with scale the RMS of the
# reference output (so the absolute part follows the output's magnitude: softmax probabilities of 1e-3
# and matmul sums of 1e2 are held to the same relative standard, and elements near zero after
# cancellation get the absolute error their neighbours' magnitude implies). fp16/bf16 allow a few units in the last place of the result dtype, since our
# reference and ptoc may round intermediate values at different points (double vs float rounding
# of ties); fp32 allows for a different summation order in reductions and matmuls.
TOLERANCE = {
    "fp32": (1e-4, 5e-5),
    "fp16": (4e-3, 2e-3),
    "bf16": (3e-2, 1.6e-2),
    "int32": (0.0, 0.0), "int8": (0.0, 0.0), "uint8": (0.0, 0.0), "bool": (0.0, 0.0), "int64": (0.0, 0.0),
    "int16": (0.0, 0.0), "uint16": (0.0, 0.0), "uint32": (0.0, 0.0), "uint64": (0.0, 0.0),
}


@np.errstate(over="ignore", invalid="ignore")
def bf16_round(x):
    """float64 -> nearest bfloat16 (ties to even), returned as float64; via float32 as the device does."""
    x = np.asarray(x, dtype=np.float64)
    f = np.atleast_1d(x).astype(np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    lsb = (bits >> np.uint64(16)) & np.uint64(1)
    bits = ((bits + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
    out = bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isnan(f), np.nan, out).reshape(x.shape)


@np.errstate(over="ignore", invalid="ignore")
def rnd(x, dtype):
    """Round float64 values to what `dtype` stores, returned as float64 (the spec's per-op rounding)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "fp32":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "fp16":
        # Through float32 first, as the device (and a float-based evaluator) converts.
        return x.astype(np.float32).astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        return bf16_round(x)
    if dtype == "bool":
        return (x != 0).astype(np.float64)
    if dtype == "int64":  # exact while |x| <= 2^53 (float64), saturating beyond
        return np.clip(np.trunc(np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)), -2.0 ** 63, 2.0 ** 63)
    if dtype == "uint64":  # exact while x <= 2^53; (-2^63, 0) wraps modulo 2^64, saturating beyond
        t = np.trunc(np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0))
        return np.clip(np.where((t < 0) & (t > -2.0 ** 63), t + 2.0 ** 64, t), 0.0, 2.0 ** 64)
    info = np.iinfo(NPY_TYPE[dtype])
    t = np.trunc(x).astype(np.int64)
    width = info.max - info.min + 1
    return (((t - info.min) % width) + info.min).astype(np.float64)


def to_npy(values, dtype):
    """float64 values already representable in `dtype` -> the array written to a .npy input file."""
    return np.asarray(values).astype(NPY_TYPE[dtype])


def compare(got, ref, dtype):
    """Returns (ok, message) for an output: shape, then the per-dtype tolerance; names the worst element."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        return False, f"shape {got.shape}, expected {ref.shape}"
    if ref.size == 0:
        return True, "empty"
    if not np.all(np.isfinite(got) == np.isfinite(ref)):
        idx = np.unravel_index(np.argmax(np.isfinite(got) != np.isfinite(ref)), ref.shape)
        return False, f"non-finite mismatch at {idx}: got {got[idx]}, expected {ref[idx]}"
    rtol, atol = TOLERANCE[dtype]
    finite = np.isfinite(ref)
    rms = float(np.sqrt(np.mean(np.square(ref[finite])))) if finite.any() else 0.0
    scale = rms if rms > 0 else 1.0
    err = np.where(finite, np.abs(got - ref), 0.0)
    bound = atol * scale + rtol * np.abs(np.where(finite, ref, 0.0))
    excess = err - bound
    worst = np.unravel_index(np.argmax(excess), ref.shape)
    msg = (f"max abs err {err.max():.3g}, worst at {tuple(int(i) for i in worst)}: got {got[worst]!r}, "
           f"expected {ref[worst]!r} (rtol {rtol}, atol {atol} x {scale:.3g})")
    return bool(excess.max() <= 0), msg
