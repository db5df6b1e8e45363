"""int16, uint16, uint32 and uint64 (PyPTO's DT_INT16 DT_UINT16 DT_UINT32 DT_UINT64, issue 13) through every
layer: .npy <i2 <u2 <u4 <u8 inputs and outputs; wrapping add / sub / mul, maximum / minimum, bitwise ops and
comparisons with sliced operands (a window of columns against another); sum (wrapping), amax, amin over a row
and a column with a tail (19 rows in 8-row tiles); full, expand_clone, where; casts with saturation at both
ends and PyPTO's rounding modes (fp32 -> each type, uint32 -> int32, uint64 -> int64, int16 -> int8) and
uint64 -> fp32. uint32 values above 2^31 and uint64 values above 2^63 that differ only in their low bits (double
cannot hold them): unsigned ordering is visible. `ptoc eval` and `ptorun --check` must both equal NumPy bit
for bit.

    dtype16_exact.py PTOC PTORUN
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

SPEC = """ptoc: 1
name: dtype16
dims:
  R: 19
  N: 16
inputs:
  a16: {dtype: int16, shape: [R, N]}
  b16: {dtype: DT_INT16, shape: [R, N]}
  au16: {dtype: uint16, shape: [R, N]}
  bu16: {dtype: uint16, shape: [R, N]}
  au32: {dtype: uint32, shape: [R, N]}
  bu32: {dtype: DT_UINT32, shape: [R, N]}
  au64: {dtype: uint64, shape: [R, N]}
  bu64: {dtype: uint64, shape: [R, N]}
  f: {dtype: fp32, shape: [R, N]}
outputs:
  add16: {dtype: int16, shape: [R, 8]}
  mul16: {dtype: int16, shape: [R, N]}
  max16: {dtype: int16, shape: [R, N]}
  and16: {dtype: int16, shape: [R, N]}
  lt16: {dtype: bool, shape: [R, N]}
  sum16: {dtype: int16, shape: [R, 1]}
  amax16: {dtype: int16, shape: [R, 1]}
  full16: {dtype: int16, shape: [R, N]}
  ex16: {dtype: int16, shape: [R, N]}
  sat16: {dtype: int16, shape: [R, N]}
  c8: {dtype: int8, shape: [R, N]}
  sub_u16: {dtype: uint16, shape: [R, 8]}
  min_u16: {dtype: uint16, shape: [R, N]}
  ge_u16: {dtype: bool, shape: [R, N]}
  xor_u16: {dtype: uint16, shape: [R, N]}
  amin_u16: {dtype: uint16, shape: [1, N]}
  sat_u16: {dtype: uint16, shape: [R, N]}
  full_u16: {dtype: uint16, shape: [R, N]}
  gt32: {dtype: bool, shape: [R, 8]}
  add32: {dtype: uint32, shape: [R, N]}
  amax32: {dtype: uint32, shape: [R, 1]}
  sum32: {dtype: uint32, shape: [R, 1]}
  i32sat: {dtype: int32, shape: [R, N]}
  f32: {dtype: fp32, shape: [R, N]}
  sat_u32: {dtype: uint32, shape: [R, N]}
  ex32: {dtype: uint32, shape: [R, N]}
  gt64: {dtype: bool, shape: [R, 8]}
  le64: {dtype: bool, shape: [R, N]}
  eq64: {dtype: bool, shape: [R, N]}
  max64: {dtype: uint64, shape: [R, N]}
  min64: {dtype: uint64, shape: [R, 8]}
  add64: {dtype: uint64, shape: [R, N]}
  mul64: {dtype: uint64, shape: [R, N]}
  xor64: {dtype: uint64, shape: [R, N]}
  amax64: {dtype: uint64, shape: [R, 1]}
  amin64: {dtype: uint64, shape: [1, N]}
  sum64: {dtype: uint64, shape: [R, 1]}
  i64sat: {dtype: int64, shape: [R, N]}
  i64w: {dtype: int64, shape: [R, N]}
  f64to: {dtype: fp32, shape: [R, N]}
  sat_u64: {dtype: uint64, shape: [R, N]}
  full64: {dtype: uint64, shape: [R, N]}
  ex64: {dtype: uint64, shape: [R, N]}
  wh64: {dtype: uint64, shape: [R, N]}
body:
  - vec_tile: [8, 16]
  - "add16[0:, 0:] = a16[0:, 0:8] + b16[0:, 8:16]"
  - "mul16[0:, 0:] = a16 * b16"
  - "max16[0:, 0:] = maximum(a16, b16)"
  - "and16[0:, 0:] = bitwise_and(a16, b16)"
  - "lt16[0:, 0:] = lt(a16, b16)"
  - "sum16[0:, 0:] = sum(a16, 1, keepdim=True)"
  - "amax16[0:, 0:] = amax(a16, 1, keepdim=True)"
  - "full16[0:, 0:] = full([R, N], -7, int16)"
  - "ex16[0:, 0:] = expand_clone(a16[0:, 0:1], [R, N])"
  - "sat16[0:, 0:] = cast(f, int16, satmode=ON)"
  - "c8[0:, 0:] = cast(a16, int8, satmode=ON)"
  - "sub_u16[0:, 0:] = au16[0:, 0:8] - bu16[0:, 8:16]"
  - "min_u16[0:, 0:] = minimum(au16, bu16)"
  - "ge_u16[0:, 0:] = ge(au16, bu16)"
  - "xor_u16[0:, 0:] = bitwise_xor(au16, bu16)"
  - "amin_u16[0:, 0:] = amin(au16, 0, keepdim=True)"
  - "sat_u16[0:, 0:] = cast(f, uint16, mode=CAST_FLOOR, satmode=ON)"
  - "full_u16[0:, 0:] = full([R, N], 65535, DT_UINT16)"
  - "gt32[0:, 0:] = gt(au32[0:, 0:8], bu32[0:, 8:16])"
  - "add32[0:, 0:] = au32 + bu32"
  - "amax32[0:, 0:] = amax(au32, 1, keepdim=True)"
  - "sum32[0:, 0:] = sum(au32, 1, keepdim=True)"
  - "i32sat[0:, 0:] = cast(au32, int32, satmode=ON)"
  - "f32[0:, 0:] = cast(au32, fp32)"
  - "sat_u32[0:, 0:] = cast(f, uint32, mode=CAST_TRUNC, satmode=ON)"
  - "ex32[0:, 0:] = expand_clone(au32[0:1, 0:], [R, N])"
  - "gt64[0:, 0:] = gt(au64[0:, 0:8], bu64[0:, 8:16])"
  - "le64[0:, 0:] = le(au64, bu64)"
  - "eq64[0:, 0:] = eq(au64, bu64)"
  - "max64[0:, 0:] = maximum(au64, bu64)"
  - "min64[0:, 0:] = minimum(au64[0:, 8:16], bu64[0:, 0:8])"
  - "add64[0:, 0:] = au64 + bu64"
  - "mul64[0:, 0:] = au64 * bu64"
  - "xor64[0:, 0:] = bitwise_xor(au64, bu64)"
  - "amax64[0:, 0:] = amax(au64, 1, keepdim=True)"
  - "amin64[0:, 0:] = amin(au64, 0, keepdim=True)"
  - "sum64[0:, 0:] = sum(au64, 1, keepdim=True)"
  - "i64sat[0:, 0:] = cast(au64, int64, satmode=ON)"
  - "i64w[0:, 0:] = cast(au64, int64)"
  - "f64to[0:, 0:] = cast(au64, fp32)"
  - "sat_u64[0:, 0:] = cast(f, uint64, satmode=ON)"
  - "full64[0:, 0:] = full([R, N], 4096, uint64)"
  - "ex64[0:, 0:] = expand_clone(au64[0:, 3:4], [R, N])"
  - "wh64[0:, 0:] = where(gt(au64, bu64), au64, bu64)"
"""

R, N = 19, 16


def inputs():
    rng = np.random.default_rng(1613)
    i = {}
    i["a16"] = rng.integers(-2 ** 15, 2 ** 15, (R, N)).astype(np.int16)
    i["b16"] = rng.integers(-2 ** 15, 2 ** 15, (R, N)).astype(np.int16)
    i["a16"][0, :4] = [32767, -32768, 127, -129]
    i["au16"] = rng.integers(0, 2 ** 16, (R, N)).astype(np.uint16)
    i["bu16"] = rng.integers(0, 2 ** 16, (R, N)).astype(np.uint16)
    i["au32"] = rng.integers(0, 2 ** 32, (R, N)).astype(np.uint32)
    i["bu32"] = rng.integers(0, 2 ** 32, (R, N)).astype(np.uint32)
    i["au32"][0, :3] = [2 ** 31, 2 ** 32 - 1, 2 ** 31 - 1]
    # uint64 around 2^63 (neighbours differ in the low bits only) and near 2^64.
    base = np.uint64(2 ** 63)
    off = rng.integers(-2 ** 40, 2 ** 40, (R, N))
    au = np.where(off >= 0, base + off.astype(np.uint64), base - (-off).astype(np.uint64))
    bu = au.copy()
    bu ^= rng.integers(0, 2 ** 12, (R, N)).astype(np.uint64)  # low bits only
    au[1, :] = np.uint64(2 ** 64 - 1) - np.arange(N, dtype=np.uint64)
    bu[1, ::2] = au[1, ::2]                                      # equal pairs
    au[2, :4] = [0, 1, 2 ** 63 - 1, 2 ** 53 + 1]
    i["au64"], i["bu64"] = au.astype(np.uint64), bu.astype(np.uint64)
    # fp32 for the saturating casts: past both ends of every type, halves, small values.
    f = rng.uniform(-70000, 70000, (R, N)).astype(np.float32)
    f[0, :] = [1e30, -1e30, 2.5, -2.5, 3.5, 65535.9, 65536.0, -0.5, 4294967296.0, 2147483648.0, 32767.5,
               -32768.5, 1.9e19, 1.8446744e19, 9.3e18, 0.0]
    f[3, :] = rng.uniform(-3e9, 5e9, N).astype(np.float32)
    i["f"] = f.astype(np.float32)
    return i


def fp32_cap(hi):
    """The largest fp32 <= hi (ptoc's saturation bound from an fp32 source)."""
    v = np.float32(hi)
    if float(v) > hi:
        v = np.nextafter(v, np.float32(-np.inf))
    return float(v)


def sat_from_f32(f, rounding, lo, hi, dtype):
    x = rounding(f.astype(np.float64))
    x = np.clip(x, max(lo, -fp32_cap(-lo) if lo < 0 else lo), fp32_cap(hi))
    if dtype == np.uint64:
        out = np.zeros(x.shape, np.uint64)
        top = x >= 2.0 ** 64
        out[~top] = x[~top].astype(np.uint64)
        out[top] = np.uint64(2 ** 64 - 1)
        return out
    return x.astype(dtype)


def reference(i):
    a16, b16, au16, bu16 = i["a16"], i["b16"], i["au16"], i["bu16"]
    au32, bu32, au64, bu64, f = i["au32"], i["bu32"], i["au64"], i["bu64"], i["f"]
    with np.errstate(over="ignore"):
        o = {
            "add16": (a16[:, :8] + b16[:, 8:]).astype(np.int16),
            "mul16": (a16 * b16).astype(np.int16),
            "max16": np.maximum(a16, b16),
            "and16": a16 & b16,
            "lt16": a16 < b16,
            "sum16": np.sum(a16, 1, dtype=np.int16, keepdims=True),
            "amax16": np.amax(a16, 1, keepdims=True),
            "full16": np.full((R, N), -7, np.int16),
            "ex16": np.repeat(a16[:, 0:1], N, 1),
            "sat16": sat_from_f32(f, np.rint, -32768, 32767, np.int16),
            "c8": np.clip(a16, -128, 127).astype(np.int8),
            "sub_u16": (au16[:, :8] - bu16[:, 8:]).astype(np.uint16),
            "min_u16": np.minimum(au16, bu16),
            "ge_u16": au16 >= bu16,
            "xor_u16": au16 ^ bu16,
            "amin_u16": np.amin(au16, 0, keepdims=True),
            "sat_u16": sat_from_f32(f, np.floor, 0, 65535, np.uint16),
            "full_u16": np.full((R, N), 65535, np.uint16),
            "gt32": au32[:, :8] > bu32[:, 8:],
            "add32": (au32 + bu32).astype(np.uint32),
            "amax32": np.amax(au32, 1, keepdims=True),
            "sum32": np.sum(au32, 1, dtype=np.uint32, keepdims=True),
            "i32sat": np.minimum(au32, np.uint32(2 ** 31 - 1)).astype(np.int32),
            "f32": au32.astype(np.float32),
            "sat_u32": sat_from_f32(f, np.trunc, 0, 4294967295, np.uint32),
            "ex32": np.repeat(au32[0:1, :], R, 0),
            "gt64": au64[:, :8] > bu64[:, 8:],
            "le64": au64 <= bu64,
            "eq64": au64 == bu64,
            "max64": np.maximum(au64, bu64),
            "min64": np.minimum(au64[:, 8:], bu64[:, :8]),
            "add64": au64 + bu64,
            "mul64": au64 * bu64,
            "xor64": au64 ^ bu64,
            "amax64": np.amax(au64, 1, keepdims=True),
            "amin64": np.amin(au64, 0, keepdims=True),
            "sum64": np.sum(au64, 1, dtype=np.uint64, keepdims=True),
            "i64sat": np.minimum(au64, np.uint64(2 ** 63 - 1)).astype(np.int64),
            "i64w": au64.astype(np.int64),
            "f64to": au64.astype(np.float32),
            "sat_u64": sat_from_f32(f, np.rint, 0, 2.0 ** 64, np.uint64),
            "full64": np.full((R, N), 4096, np.uint64),
            "ex64": np.repeat(au64[:, 3:4], N, 1),
            "wh64": np.where(au64 > bu64, au64, bu64),
        }
    return o


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-dtype16-")
    spec = os.path.join(work, "dtype16.yaml")
    with open(spec, "w") as fh:
        fh.write(SPEC)
    ins = inputs()
    ref = reference(ins)
    # The premise: the uint64 outputs hold values double cannot, and orderings that differ signed.
    expect(not np.array_equal(ref["max64"].astype(np.float64).astype(np.uint64), ref["max64"]),
           "the uint64 outputs hold values double rounds")
    expect(np.any(ins["au64"].view(np.int64) < 0), "uint64 inputs above 2^63 (negative as int64)")
    args = []
    for name, arr in ins.items():
        p = os.path.join(work, name + ".npy")
        np.save(p, arr)
        args += ["--input", f"{name}={p}"]
    for tool in ("ptoc eval", "ptorun"):
        outdir = os.path.join(work, tool.replace(" ", "_"))
        os.makedirs(outdir)
        outs = []
        for name in ref:
            outs += ["--output", f"{name}={os.path.join(outdir, name + '.npy')}"]
        if tool == "ptoc eval":
            cmd = [ptoc, "eval", spec]
        else:
            bundle = os.path.join(work, "dtype16.bundle")
            rc, _, err = run([ptoc, spec, "-o", bundle])
            expect(rc == 0, "compile", err)
            cmd = [ptorun, bundle, "-q", "--check"]
        rc, out, err = run(cmd + args + outs)
        expect(rc == 0, f"{tool} runs" + (" and --check passes" if "--check" in cmd else ""), out + err)
        for name, want in ref.items():
            got = np.load(os.path.join(outdir, name + ".npy"))
            want = want.astype(np.bool_) if want.dtype == np.bool_ else want
            bad = np.argwhere(got != want) if got.shape == want.shape else np.zeros((1, 2), int)
            expect(got.dtype == want.dtype and got.shape == want.shape and bad.size == 0,
                   f"{tool}: {name} equals NumPy bit for bit ({want.dtype})",
                   f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}; first differing element "
                   f"{bad[:1].tolist()}: got {got[tuple(bad[0])] if bad.size and got.shape == want.shape else ''}, "
                   f"expected {want[tuple(bad[0])] if bad.size and got.shape == want.shape else ''}")
    # ptorun info names the dtypes.
    rc, out, err = run([ptorun, "info", os.path.join(work, "dtype16.bundle")])
    expect(rc == 0 and "uint64" in out and "int16" in out, "ptorun info names uint64 and int16", out + err)


if __name__ == "__main__":
    main()
