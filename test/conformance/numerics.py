"""Device dtypes in NumPy for the conformance references: per-op rounding, inputs, tolerances.

Written for this suite from spec-language.md section 10, not shared with the evaluator or with
test/specs: every reference op computes in float64 and rounds its result to the op's dtype with
`rnd` (round to nearest even; bf16 emulated on float32 bit patterns; integers wrap).
"""
import numpy as np

NPY = {"fp32": np.float32, "fp16": np.float16, "bf16": np.float32, "int32": np.int32,
       "int8": np.int8, "uint8": np.uint8, "bool": np.bool_, "int64": np.int64,
       "int16": np.int16, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
       "fp8e4m3": np.uint8, "fp8e5m2": np.uint8, "fp8e8m0": np.uint8}  # fp8 files hold the raw codes
FP8 = ("fp8e4m3", "fp8e5m2", "fp8e8m0")
FLOATS = ("fp32", "fp16", "bf16")
INTS = ("int32", "int8", "uint8", "int64", "int16", "uint16", "uint32", "uint64")

# |got - ref| <= atol * rms(ref) + rtol * |ref|, the contract's table (section 10).
TOL = {"fp32": (1e-4, 5e-5), "fp16": (4e-3, 2e-3), "bf16": (3e-2, 1.6e-2),
       "int32": (0, 0), "int8": (0, 0), "uint8": (0, 0), "bool": (0, 0), "int64": (0, 0),
       "int16": (0, 0), "uint16": (0, 0), "uint32": (0, 0), "uint64": (0, 0),
       "fp8e4m3": (0, 0), "fp8e5m2": (0, 0), "fp8e8m0": (0, 0)}


# --- the 8-bit floats, from the OCP 8-bit float / MX specifications (bit fields, not ptoc's codecs) ---

def fp8_values(dtype):
    """The value of each of the 256 codes (float64; NaN codes NaN, e5m2's inf codes +-inf)."""
    c = np.arange(256)
    if dtype == "fp8e8m0":
        return np.where(c == 255, np.nan, np.ldexp(1.0, c - 127))
    m, bias = (3, 7) if dtype == "fp8e4m3" else (2, 15)
    e, f = (c >> m) & ((1 << (7 - m)) - 1), c & ((1 << m) - 1)
    mag = np.where(e == 0, np.ldexp(f.astype(np.float64), 1 - bias - m),
                   np.ldexp(1.0 + f / float(1 << m), e - bias))
    if dtype == "fp8e4m3":
        mag = np.where((c & 0x7F) == 0x7F, np.nan, mag)
    else:
        top = e == 31
        mag = np.where(top, np.where(f == 0, np.inf, np.nan), mag)
    return np.where(c & 0x80, -mag, mag)


def fp8_decode(codes, dtype):
    return fp8_values(dtype)[np.asarray(codes, np.int64)]


@np.errstate(invalid="ignore")
def fp8_encode(x, dtype):
    """float64 -> codes: the nearest code (ties to the even code) among the finite positive values plus the
    next power of two past the top (e4m3: saturate to 448, also inf; e5m2: that is inf); NaN -> 0x7F / 0x7E.
    e8m0: the power of two at or below x, clamped to [2^-127, 2^127]; x <= 0, inf, NaN -> 0xFF."""
    x = np.asarray(x, np.float64)
    if dtype == "fp8e8m0":
        ok = (x > 0) & np.isfinite(x)
        e = np.clip(np.floor(np.log2(np.where(ok, x, 1.0))), -127, 127)
        # log2 can round up just below a power of two: step back when 2^e > x
        e = np.where(np.ldexp(1.0, e.astype(np.int64)) > np.where(ok, x, 1.0), e - 1, e)
        return np.where(ok, np.clip(e, -127, 127) + 127, 255).astype(np.uint8)
    top = 0x7E if dtype == "fp8e4m3" else 0x7B
    vals = fp8_values(dtype)[: top + 1]
    vals = np.append(vals, 480.0 if dtype == "fp8e4m3" else 65536.0)  # the value after the top, its code top + 1
    a = np.abs(x)
    hi = np.clip(np.searchsorted(vals, np.where(np.isnan(a), 0, a)), 1, len(vals) - 1)
    lo = hi - 1
    dlo, dhi = a - vals[lo], vals[hi] - a
    code = np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(lo % 2 == 0, lo, hi)))
    code = np.where(a >= vals[-1], top + 1, code)
    if dtype == "fp8e4m3":
        code = np.minimum(code, 0x7E)  # saturating: 0x7F is NaN
    code = np.where(np.isnan(a), 0x7F if dtype == "fp8e4m3" else 0x7E, code)
    return (code | np.where(np.signbit(x), 0x80, 0)).astype(np.uint8)


@np.errstate(over="ignore", invalid="ignore")
def _bf16(x):
    f = np.atleast_1d(np.asarray(x, np.float64)).astype(np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    out = u.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isnan(f), np.nan, out).reshape(np.shape(x))


@np.errstate(over="ignore", invalid="ignore")
def rnd(x, dtype):
    """float64 values -> the values `dtype` stores (as float64): the spec's rounding after every op."""
    x = np.asarray(x, np.float64)
    if dtype == "fp32":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "fp16":
        return x.astype(np.float32).astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        return _bf16(x)
    if dtype == "bool":
        return (x != 0).astype(np.float64)
    if dtype in FP8:
        return fp8_decode(fp8_encode(x, dtype), dtype)
    if dtype == "int64":  # exact while |x| <= 2^53 (the references compute in float64), saturating beyond
        return np.clip(np.trunc(np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)), -2.0 ** 63, 2.0 ** 63)
    if dtype == "uint64":  # exact while x <= 2^53; (-2^63, 0) wraps modulo 2^64, saturating beyond
        t = np.trunc(np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0))
        return np.clip(np.where((t < 0) & (t > -2.0 ** 63), t + 2.0 ** 64, t), 0.0, 2.0 ** 64)
    info = np.iinfo(NPY[dtype])
    t = np.trunc(x).astype(np.int64)  # integer op results are integers already; trunc is for '/'
    w = int(info.max) - int(info.min) + 1
    return (((t - int(info.min)) % w) + int(info.min)).astype(np.float64)


def cast(x, src, dst):
    """The `cast` op: float -> int rounds half to even then wraps; -> bool is != 0; else rnd."""
    x = np.asarray(x, np.float64)
    if dst in INTS and src in FLOATS:
        return rnd(np.round(x), dst)  # np.round is half-to-even
    return rnd(x, dst)


def idiv(a, b):
    """Integer-tensor '/': truncates toward zero, x / 0 is 0."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0.0, np.trunc(a / safe))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x * x * x)))


def make_input(rng, dtype, shape, kind="normal"):
    """Seeded input values (float64, representable in dtype) and the array written to the .npy file."""
    if kind.startswith("range:"):  # run-time values: integers in [lo, hi] (a spec's values: [lo, hi])
        lo, hi = (int(x) for x in kind.split(":")[1:])
        v = rng.integers(lo, hi + 1, shape).astype(np.float64)
    elif kind.startswith("distinct:"):  # duplicate-free integers in [lo, hi]: scatter_update's slots
        lo, hi = (int(x) for x in kind.split(":")[1:])
        if int(np.prod(shape)) > hi - lo + 1:
            raise ValueError(f"{kind}: {int(np.prod(shape))} distinct values do not fit in [{lo}, {hi}]")
        v = (rng.choice(hi - lo + 1, int(np.prod(shape)), replace=False) + lo).reshape(shape).astype(np.float64)
    elif dtype in FP8:  # every code, in a seeded order, repeated to fill the shape
        n = int(np.prod(shape))
        codes = np.resize(rng.permutation(256), n).reshape(shape).astype(np.uint8)
        return fp8_decode(codes, dtype), codes
    elif dtype in FLOATS and kind == "fp8edges":  # values at the fp8 rounding boundaries (see fp8_edges)
        v = rnd(np.resize(fp8_edges(), int(np.prod(shape))).reshape(shape), dtype)
        return v, v.astype(NPY[dtype])
    elif dtype in FLOATS:
        v = rng.standard_normal(shape)
        if kind == "positive":
            v = np.abs(v) + 0.25
        elif kind == "small":
            v = v * 0.25
        elif kind == "half":  # multiples of 0.5 in [-300, 300]: ties for the float -> int casts, zeros
            v = rng.integers(-600, 601, shape) / 2.0
        elif kind == "nonfinite":  # conv7: about one element in ten inf, -inf or NaN, the rest normal
            v = np.where(rng.random(shape) < 0.1, rng.choice(np.array([np.inf, -np.inf, np.nan]), shape), v)
        v = rnd(v, dtype)
    elif dtype == "bool":
        v = rng.integers(0, 2, shape).astype(np.float64)
    elif dtype == "int64" and kind == "huge":  # near +-2^62, past 2^53: NumPy int64 (exact), not float64
        a = rng.integers(2 ** 61, 2 ** 62, shape, dtype=np.int64) * rng.choice(np.array([-1, 1], np.int64), shape)
        return a, a
    elif dtype == "uint64" and kind == "huge":  # around 2^63, past 2^53: NumPy uint64 (exact), not float64
        a = np.uint64(2 ** 63) + rng.integers(-2 ** 62, 2 ** 62, shape).astype(np.uint64)
        return a, a
    elif dtype == "uint32" and kind == "huge":  # around 2^31: orderings that differ signed
        v = rng.integers(2 ** 31 - 2 ** 20, 2 ** 31 + 2 ** 20, shape).astype(np.float64)
        return v, v.astype(np.uint32)
    elif dtype in ("uint16", "uint32", "uint64") and kind == "wide":
        hi = {"uint16": 2 ** 16, "uint32": 2 ** 32, "uint64": 2 ** 53}[dtype]
        v = rng.integers(0, hi, shape).astype(np.float64)
    elif dtype == "int16" and kind == "wide":
        v = rng.integers(-2 ** 15, 2 ** 15, shape).astype(np.float64)
    elif dtype in ("uint16", "uint32", "uint64"):
        v = rng.integers(0, 40 if kind != "small" else 6, shape).astype(np.float64)
    elif dtype == "int64" and kind == "wide":  # past int32 on both sides, exact in float64
        v = rng.integers(-2 ** 40, 2 ** 40, shape).astype(np.float64)
    elif dtype == "uint8":
        v = rng.integers(0, 256 if kind == "wide" else 40, shape).astype(np.float64)
    elif dtype == "int8" and kind == "small":
        v = rng.integers(-5, 6, shape).astype(np.float64)
    elif dtype == "int8":
        v = rng.integers(-128, 128, shape).astype(np.float64) if kind == "wide" else \
            rng.integers(-20, 21, shape).astype(np.float64)
    elif kind == "small":  # many zeros: exercises x / 0 == 0
        v = rng.integers(-5, 6, shape).astype(np.float64)
    else:
        v = rng.integers(-1000, 1001, shape).astype(np.float64)
    return v, v.astype(NPY[dtype])


def fp8_edges():
    """fp32 values at every e4m3 / e5m2 rounding boundary: each code's value, the midpoints between
    neighbours (ties) and the fp32 values either side of them, past the tops, +-inf, NaN, subnormals."""
    out = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30, 448.0, 464.0, 465.0, 480.0, 57344.0, 61439.0,
           61440.0, 65536.0, 2.0 ** -10, 2.0 ** -17, 2.0 ** -20, 3 * 2.0 ** -11, 3 * 2.0 ** -18]
    for dt in ("fp8e4m3", "fp8e5m2"):
        v = fp8_values(dt)[:0x7F]
        v = np.unique(v[np.isfinite(v)])
        mid = (v[:-1] + v[1:]) / 2
        f = mid.astype(np.float32)
        out += list(v) + list(mid) + list(np.nextafter(f, np.float32(np.inf))) + list(np.nextafter(f, np.float32(0)))
    a = np.array(out, np.float64).astype(np.float32).astype(np.float64)
    return np.concatenate([a, -a])


def compare(got, ref, dtype):
    """(ok, message): shape, finiteness, then the dtype's tolerance; names the worst element."""
    if dtype in FP8:  # the file holds codes
        got = fp8_decode(got, dtype)
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        return False, f"shape {got.shape}, expected {ref.shape}"
    if ref.size == 0:
        return True, "empty"
    fin = np.isfinite(ref)
    if not np.array_equal(np.isfinite(got), fin) or not np.array_equal(np.isnan(got), np.isnan(ref)):
        i = np.unravel_index(np.argmax((np.isfinite(got) != fin) | (np.isnan(got) != np.isnan(ref))), ref.shape)
        return False, f"non-finite mismatch at {tuple(map(int, i))}: got {got[i]}, expected {ref[i]}"
    inf_bad = fin.size - fin.sum() and not np.array_equal(got[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)])
    if inf_bad:
        return False, "infinities of the wrong sign"
    rtol, atol = TOL[dtype]
    rms = float(np.sqrt(np.mean(np.square(ref[fin])))) if fin.any() else 0.0
    err = np.where(fin, np.abs(got - ref), 0.0)
    bound = atol * (rms or 1.0) + rtol * np.abs(np.where(fin, ref, 0.0))
    excess = err - bound
    w = np.unravel_index(np.argmax(excess), ref.shape)
    msg = (f"max abs err {err.max():.3g}; worst at {tuple(map(int, w))}: got {got[w]!r}, "
           f"expected {ref[w]!r} (rtol {rtol}, atol {atol} x rms {rms:.3g})")
    return bool(excess.max() <= 0), msg
