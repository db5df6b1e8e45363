"""Which dtype's tolerance an output is compared with against the NumPy model.

A matmul accumulates in fp32 (spec-language.md, `matmul`) in an order the language leaves open, and
then rounds once to its `out_dtype`. When that dtype is fp16 or bf16 and the exact sum lies within
the fp32 accumulation error of a rounding boundary of the narrow dtype, both neighbours are right:
seed 9401918's element is -9.3437497 exactly, an fp32 pairwise sum is the tie -9.34375 (-> bf16
-9.375, the model's answer), a sequential one -9.3437490 (-> -9.3125, ptoc's). One ulp of bf16
(2^-7 relative) is more than fp16's or fp32's tolerance, so an output of a wider dtype that such a
value reaches (`cast(matmul(..., out_dtype=bf16), fp16)`) is compared at the narrow dtype's
tolerance. The test is per program (any narrow-output matmul anywhere in it), which is
conservative; `ptorun --check` still compares every output with the evaluator at full strength.
"""
from numerics import TOL, FLOATS

# kinds of node whose result is an fp32 accumulation rounded to the node's dtype (by class name, so
# the model modules need not import each other)
ACCUMULATING = ("Matmul", "ScaledMM", "Conv6")  # Conv6: gen_conv6.py's conv (and exact gathers)


def coarser(a, b):
    """The float dtype of the two with the looser tolerance."""
    return a if TOL[a][0] >= TOL[b][0] else b


def narrow_accumulations(body):
    """The set of fp16/bf16 result dtypes of accumulating nodes anywhere in the statement tree."""
    found, seen, stack = set(), set(), [body]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, dict):
            stack.extend(x.values())
            continue
        if not hasattr(x, "__dict__") or id(x) in seen:
            continue
        seen.add(id(x))
        if type(x).__name__ in ACCUMULATING and getattr(x, "dtype", None) in ("fp16", "bf16"):
            found.add(x.dtype)
        stack.extend(vars(x).values())
    return found


def tolerance_dtype(prog, out_dtype):
    """The dtype whose tolerance the model comparison of an output of `out_dtype` uses."""
    if out_dtype not in FLOATS:
        return out_dtype
    d = out_dtype
    for n in narrow_accumulations(getattr(prog, "body", [])):
        d = coarser(d, n)
    return d
