"""NumPy references of the mathops5 conformance specs (catalog5_math_*.yaml), imported by refs.py.

The ops' rules as specs/README.md states them (PyPTO's where it says, NumPy's where it does not):
remainder has the divisor's sign (np.remainder); fmod the dividend's (np.fmod); float floor_div floors the
fp32 quotient; integer x // 0, x % 0 and ceil_div(x, 0) are 0; gcd is non-negative; << by a count outside
[0, width) is 0 and >> by a count past the width is the sign fill (NumPy's shifts); signbit is false for NaN.
Every op rounds to its dtype (r), integers wrap.
"""
import math

import numpy as np

from numerics import rnd as r
from refs import ref, L


def _erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _signbit(x):
    return (np.signbit(x) & ~np.isnan(x)).astype(np.float64)


def _remainder(a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.remainder(a, b)


def _fdiv_f(a, b):
    """float floor_div: the quotient rounded to fp32, then floored."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.floor(np.float32(a) / np.float32(b)).astype(np.float64)


def _ints(*xs):
    return [np.asarray(x).astype(np.int64) for x in xs]


def _fdiv_i(a, b):
    a, b = _ints(a, b)
    q = np.floor_divide(a, np.where(b == 0, 1, b))
    return np.where(b == 0, 0, q).astype(np.float64)


def _cdiv_i(a, b):
    a, b = _ints(a, b)
    q = -np.floor_divide(-a, np.where(b == 0, 1, b))
    return np.where(b == 0, 0, q).astype(np.float64)


def _rem_i(a, b):
    a, b = _ints(a, b)
    m = np.remainder(a, np.where(b == 0, 1, b))
    return np.where(b == 0, 0, m).astype(np.float64)


def _gcd_i(a, b):
    a, b = _ints(a, b)
    return np.gcd(a, b).astype(np.float64)


def _shl(a, n):
    a, n = _ints(a, n)
    ok = (n >= 0) & (n < 32)
    v = np.left_shift(a, np.where(ok, n, 0)) & 0xFFFFFFFF  # the low 32 bits; the dtype wrap follows
    v = np.where(v >= 2 ** 31, v - 2 ** 32, v)
    return np.where(ok, v, 0).astype(np.float64)


def _shr(a, n):
    a, n = _ints(a, n)
    ok = (n >= 0) & (n < 64)
    return np.where(ok, np.right_shift(a, np.where(ok, n, 0)), np.where(a < 0, -1, 0)).astype(np.float64)


@ref(kinds={"s": "small", "p": "positive", "hs": "small", "bs": "small"})
def catalog5_math_unary(i, d):
    x, s, p, f = i["x"], i["s"], i["p"], "fp32"
    out = {}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        out["o_acos"] = r(np.arccos(s), f)
        out["o_asin"] = r(np.arcsin(s), f)
        out["o_atan"] = r(np.arctan(x), f)
        out["o_acosh"] = r(np.arccosh(r(p + 0.75, f)), f)
        out["o_asinh"] = r(np.arcsinh(x), f)
        out["o_atanh"] = r(np.arctanh(s), f)
        out["o_sinh"] = r(np.sinh(x), f)
        out["o_cosh"] = r(np.cosh(x), f)
        out["o_tan"] = r(np.tan(x), f)
        out["o_cbrt"] = r(np.cbrt(r(x * 8, f)), f)
        out["o_erfc"] = r(_erfc(x), f)
        for tag, dt, v, vs in (("h", "fp16", i["h"], i["hs"]), ("b", "bf16", i["b"], i["bs"])):
            t = r(np.arccos(vs), dt)
            t = r(t + r(r(np.arcsin(vs), dt) * 2, dt), dt)
            t = r(t + r(np.arctan(v), dt), dt)
            out[tag + "_trig"] = r(t + r(np.tan(vs), dt), dt)
            y = r(r(np.sinh(v), dt) + r(np.cosh(vs), dt), dt)
            y = r(y + r(np.arcsinh(v), dt), dt)
            y = r(y + r(np.arctanh(vs), dt), dt)
            out[tag + "_hyp"] = r(y + r(np.arccosh(r(np.abs(v) + 1, dt)), dt), dt)
            out[tag + "_other"] = r(r(np.cbrt(v), dt) + r(_erfc(v), dt), dt)
        out["sb_x"] = _signbit(r(x * 0, f))
        out["sb_h"] = _signbit(i["h"])
        out["sb_b"] = _signbit(r(np.log(i["bs"]), "bf16"))
    out["sb_k"] = _signbit(i["k"])
    out["sb_k8"] = _signbit(i["k8"])
    return out


@ref(kinds={"j": "small", "n": "range:-2:40", "j8": "small", "v8": "small"})
def catalog5_math_binary(i, d):
    x, y, c, f = i["x"], i["y"], i["c"], "fp32"
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        out["f_atan2"] = r(r(np.arctan2(x, y), f) + r(np.arctan2(x, c), f), f)
        x4 = r(x * 4, f)
        out["f_fmod"] = r(r(np.fmod(x4, y), f) + r(np.fmod(x, c), f), f)
        out["f_rem"] = r(r(_remainder(x4, y), f) + r(_remainder(x, r(c * -1, f)), f), f)
        out["f_fdiv"] = r(r(_fdiv_f(x4, y), f) + r(_fdiv_f(x, c), f), f)
        x3 = r(x * 3, f)
        t = r(r(np.fmod(x3, 0.75), f) + r(_remainder(x3, -0.75), f), f)
        t = r(t + r(_fdiv_f(x3, 0.5), f), f)
        t = r(t + r(np.arctan2(x, -1.5), f), f)
        out["f_lit"] = r(t + r(_remainder(2.5, y), f), f)
        for tag, dt, a, b in (("h_all", "fp16", i["h"], i["hy"]), ("b_all", "bf16", i["b"], i["by"])):
            a4 = r(a * 4, dt)
            t = r(r(np.arctan2(a, b), dt) + r(np.fmod(a4, b), dt), dt)
            t = r(t + r(_remainder(a4, b), dt), dt)
            out[tag] = r(t + r(_fdiv_f(a4, b), dt), dt)
    a, b, n, t = i["i"], i["j"], i["n"], "int32"
    out["i_rem"] = r(_rem_i(a, b) + _rem_i(a, -7), t)
    out["i_fdiv"] = r(_fdiv_i(a, b) + _fdiv_i(a, -3), t)
    out["i_cdiv"] = r(_cdiv_i(a, b) + _cdiv_i(a, 4), t)
    out["i_gcd"] = r(_gcd_i(a, b) + _gcd_i(a, 12), t)
    out["i_shl"] = r(r(_shl(a, n), t) + r(_shl(3, n), t), t)
    out["i_shr"] = r(_shr(a, n) + _shr(r(a * -1, t), 2), t)
    # floor_div(-7, 2) + remainder(-7, 2) + ceil_div(7, 2) + gcd(-12, 18) + (1 << 4) = -4 + 1 + 4 + 6 + 16
    out["i_lit"] = r(a + 23, t)
    for name, dt, p, q, sh in (("s8", "int8", i["i8"], i["j8"], (3, 9)), ("su8", "uint8", i["u8"], i["v8"], (2, 3))):
        v = r(r(_fdiv_i(p, q), dt) + r(_gcd_i(p, q), dt), dt)
        v = r(v + r(_shl(p, sh[0]), dt), dt)
        out[name] = r(v + r(_shr(p, sh[1]), dt), dt)
    return out


def _prelu(x, w, dt):
    return np.where(x >= 0, x, r(x * w, dt))


@ref()
def catalog5_math_compose(i, d):
    x, y, f, h, hc, hh = i["x"], i["y"], "fp32", i["h"], i["hc"], "fp16"
    out = {"p2": _prelu(x, i["w"], f), "p1": _prelu(i["v"], i["w1"], f),
           "p3": _prelu(i["x3"], i["w3"].reshape(-1, 1), "bf16")}
    out["a32"] = r(y + r(x * 2.5, f), f)
    out["a16"] = r(h + r(hc * -1.5, hh), hh)
    out["amix"] = r(y + h, f)  # fp16 x is cast to fp32 (exact), alpha 1: no multiply
    with np.errstate(over="ignore"):
        out["e"] = r(np.exp(r(x - x.max(1, keepdims=True), f)), f)
        out["e16"] = r(np.exp(r(h - hc, hh)), hh)
    return out


# port6a: PyPTO's spellings (assemble call, valid_shape keywords, div precision, float if, batched broadcast matmul).
@ref()
def port6a_pypto_spellings(i, d):
    x, y, v, q, f = i["x"], i["y"], i["v"], i["q"], "fp32"
    at = np.zeros((24, 40))
    at[4:17] = r(x[:13] * 2.0, f)
    rs, rn = np.zeros((20, 1, 40)), np.zeros((20, 1, 40))
    e = r(np.exp(x), f)[:, None, :]
    rs[:11], rn[:5] = e[:11], e[:5]
    lg = np.zeros((20, 1, 16))
    lg[:, 0, :12] = r(np.einsum("blk,k->bl", v[:, :12], q.reshape(-1)), f)
    return {"at": at, "rs": rs, "rn": rn, "dv": r(x / r(np.abs(y) + 0.5, f), f), "lg": lg, "fi": r(x * 0.5, f)}
