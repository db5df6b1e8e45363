"""Independent NumPy references for the conformance specs (test/conformance/specs/<name>.yaml).

Each reference takes the inputs (float64 arrays holding values exact in their dtype) and the bound
dims and returns every output as a float64 array. They are written from spec-language.md: every op
computes in float64 and rounds its result to the op's dtype (`r(x, dtype)`), literals take the tensor
operand's dtype, reductions read only valid elements, matmuls accumulate exactly and round once.
Elements no assemble covers are zero.
"""
import numpy as np

from numerics import rnd as r, cast, idiv, sigmoid, gelu


class Ref:
    def __init__(self, fn, dims=None, kinds=None, warnings=(), compile_args=(), run_args=(),
                 expect_roots=None, expect_devtasks=None, pmu_trace=False, rounds=1):
        self.fn, self.dims, self.kinds = fn, dims or {}, kinds or {}
        self.warnings, self.compile_args, self.run_args = list(warnings), list(compile_args), list(run_args)
        self.expect_roots, self.expect_devtasks, self.pmu_trace = expect_roots, expect_devtasks, pmu_trace
        self.rounds = rounds


REFS = {}


def ref(**kw):
    def deco(fn):
        REFS[fn.__name__] = Ref(fn, **kw)
        return fn
    return deco


def L(v, dt):
    """A literal operand takes the tensor's dtype."""
    return float(r(np.float64(v), dt))


# --- elementwise --------------------------------------------------------------------------------

@ref()
def ew_fp32_broadcast(i, d):
    a, b, rv, c, f = i["a"], i["b"], i["r"], i["c"], "fp32"
    y_add = r(r(a + rv, f) - r(c * 2.5, f), f)
    num = r(r(a * b, f) + 1, f)
    den = r(r(np.abs(c), f) + 0.5, f)
    y_mix = r(r(num / den, f) - r(3 - r(rv + c, f), f), f)
    y_mm = r(np.maximum(a, b) + r(np.minimum(rv, c) * -1, f), f)
    return {"y_add": y_add, "y_mix": y_mix, "y_minmax": y_mm}


@ref()
def ew_fp16_ops(i, d):
    x, y, g, h = i["x"], i["y"], i["g"], "fp16"
    t = r(r(x * g, h) + y, h)
    o1 = r(r(t / 4, h) - r(y * L(0.1, h), h), h)
    o2 = r(r(np.maximum(x, 0.5) * np.minimum(y, -0.25), h) + (-g), h)
    return {"o1": o1, "o2": o2}


@ref()
def ew_bf16_rank3(i, d):
    x, w, s, b = i["x"], i["w"], i["s"], "bf16"
    y = r(r(x * w, b) - s, b)
    z = r(r(r(x + 1.5, b) / r(r(x * w, b) + 1, b), b) + np.maximum(s, x), b)
    return {"y": y, "z": z}


def _unary(i, t):
    x, p = i["x"], i["p"]
    return {
        "o_exp": r(np.exp(x), t),
        "o_log": r(r(np.log(p), t) + r(np.sqrt(p), t), t),
        "o_rs": r(r(1 / np.sqrt(p), t) * r(1 / p, t), t),
        "o_act": r(r(np.maximum(x, 0) + r(sigmoid(x), t), t) - r(np.tanh(x), t), t),
        "o_gelu": r(gelu(x), t),
        "o_silu": r(x * sigmoid(x), t),
        "o_neg": -np.abs(x),
    }


@ref(kinds={"p": "positive"})
def unary_fp32(i, d):
    return _unary(i, "fp32")


@ref(kinds={"p": "positive"})
def unary_fp16(i, d):
    return _unary(i, "fp16")


@ref(kinds={"p": "positive"})
def unary_bf16(i, d):
    return _unary(i, "bf16")


# --- integers and casts -------------------------------------------------------------------------

@ref(kinds={"b": "small"})
def int32_arith(i, d):
    a, b, t = i["a"], i["b"], "int32"
    q = r(r(idiv(a, b) + idiv(b, 3), t) - idiv(r(0 - a, t), 4), t)
    s = r(r(r(r(a + r(b * 3, t), t) - 7, t) + np.maximum(a, b), t) - np.minimum(a, -5), t)
    u = r(r(r(np.abs(a) + np.maximum(b, 0), t) + (-b), t) - idiv(a, 7), t)
    return {"q": q, "s": s, "u": u, "rs": r(a.sum(-1, keepdims=True), t),
            "cm": r(a.max(0, keepdims=True) - b.min(0, keepdims=True), t)}


@ref(kinds={"a": "wide", "b": "small", "u": "wide"})
def int8_uint8_wrap(i, d):
    a, b, u = i["a"], i["b"], i["u"]
    s8 = r(r(a + b, "int8") + 100, "int8")
    d8 = r(idiv(r(a * 3, "int8"), b) - r(np.abs(a), "int8"), "int8")
    u8 = r(r(r(u * 7, "uint8") + 200, "uint8") - np.minimum(u, 9), "uint8")
    w = r((a * u).sum(1, keepdims=True), "int32")
    return {"s8": s8, "d8": d8, "u8": u8, "w32": w}


@ref(kinds={"x": "half", "s": "wide"})
def cast_chain(i, d):
    x, n, sm = i["x"], i["n"], i["s"]
    f = r(r(r(x * L(1.001, "fp32"), "fp32"), "fp16"), "bf16")
    return {"f": f, "bo": cast(x, "fp32", "bool"), "bb": r((x != 0) * 3.0, "fp32"), "h": r(n, "fp16"),
            "wi": r(sm * 1000, "int32"), "nb": cast(n, "int32", "int8")}


@ref(kinds={"x": "half"})
def cast_float_to_int(i, d):
    x = i["x"]
    return {"i32": cast(x, "fp32", "int32"), "i8": cast(x, "fp32", "int8"), "u8": cast(x, "fp32", "uint8")}


# --- reductions ---------------------------------------------------------------------------------

@ref()
def reduce_2d(i, d):
    x, f = i["x"], "fp32"
    return {"s1": r(x.sum(1, keepdims=True), f), "s0": r(r(x * 2, f).sum(0, keepdims=True), f),
            "mx": x.max(-1), "mn": x.min(0), "me": r(x.mean(-1, keepdims=True), f), "me0": r(x.mean(-2), f)}


@ref()
def reduce_3d(i, d):
    x, f = i["x"], "fp32"
    return {"r2": r(x.mean(2, keepdims=True), f), "rs": r(r(x * x, f).sum(-1, keepdims=True), f), "r2n": x.min(-1)}


@ref()
def reduce_3d_leading(i, d):
    x, f = i["x"], "fp32"
    return {"r0": r(x.sum(0, keepdims=True), f), "r1": x.max(1)}


@ref()
def reduce_half(i, d):
    h, b = i["h"], i["b"]
    return {"hs": r(h.sum(-1, keepdims=True), "fp16"), "hm": r(h.mean(0, keepdims=True), "fp16"),
            "bmx": b.max(1, keepdims=True), "bmean": r(b.mean(1, keepdims=True), "bf16"),
            "bn": b.min(0, keepdims=True)}


# --- slices, views, layout ops ------------------------------------------------------------------

@ref()
def slices_static(i, d):
    x, f = i["x"], "fp32"
    rows = np.zeros((8, 48))
    rows[3] = r(x[-1] * 2, f)
    rows[5] = r(x[0] - x[7], f)
    off = np.zeros((4, 45))
    off[:, 5:] = -x[0:4, :-8]
    return {"last": x[-16:].copy(), "rows": rows, "mid": r(x[..., 8:24] * 3, f), "few": r(x[10:20] + 1, f),
            "offs": off}


@ref(dims={"B": 59})
def view_valid(i, d):
    x, f = i["x"], "fp32"
    xb = x[:, 16:80]
    z = np.zeros((d["B"], 64))
    z[:, :40] = r(x[:, :40] + 1, f)
    return {"y": r(xb * 3, f), "s": r(xb.sum(1, keepdims=True), f), "z": z,
            "zs": x[:, :40].max(-1, keepdims=True)}


@ref()
def reshape_ops(i, d):
    x, f = i["x"], "fp32"
    y = r(r(x * 2, f).reshape(24, 32) + 1, f)
    g = r(x.reshape(4, 3, 64).sum(1, keepdims=True), f)
    return {"y": y, "g": g, "flat": r(x.reshape(768) - 0.5, f)}


@ref()
def reshape_keepdim_result(i, d):
    return {"g": r(i["x"].sum(1), "fp32")}


@ref()
def transpose_ops(i, d):
    x, t3 = i["x"], i["t3"]
    return {"xt": r(x.T + 1, "fp16"), "y12": r(np.swapaxes(t3, 1, 2) * 2, "fp32")}


@ref()
def transpose_outer_axes(i, d):
    return {"y02": r(np.swapaxes(i["t3"], 0, 2) - 1, "fp32")}


@ref()
def concat_full(i, d):
    a, b, c, h, n = i["a"], i["b"], i["c"], i["h"], i["n"]
    return {"rows": np.concatenate([r(a * 2, "fp32"), np.maximum(b, 0), a], 0),
            "cols": np.concatenate([a, r(c - 1, "fp32")], 1),
            "fh": r(r(h * 1.5, "fp16") + -2, "fp16"), "fi": r(n + 7, "int32"), "ff": np.full((10, 32), 0.25)}


# --- dynamic dims, loops, state -----------------------------------------------------------------

@ref(dims={"T": 80}, expect_roots=5)
def dyn_divisible(i, d):
    return {"y": r(r(i["x"] * i["w"], "fp16") + 1, "fp16")}


@ref(dims={"B": 53}, expect_roots=7)
def dyn_tail_softmax(i, d):
    f = "fp32"
    x = i["x"]
    m = x.max(-1, keepdims=True)
    e = r(np.exp(r(x - m, f)), f)
    s = r(e.sum(-1, keepdims=True), f)
    return {"y": r(r(e / s, f), "bf16"), "lse": r(r(np.log(s), f) + m, f)}


@ref(dims={"B": 45})
def nested_loops(i, d):
    x, f = i["x"], "fp32"
    rev = np.concatenate([x[:, (3 - j) * 32:(4 - j) * 32] for j in range(4)], 1)
    rs = np.stack([x[:, k * 32:(k + 1) * 32].sum(1) for k in range(4)], 1)
    return {"rev": r(r(rev * 2, f) + 1, f), "rs": r(rs, f)}


@ref(dims={"T": 101})
def unroll_gears(i, d):
    f = "fp32"
    t = r(i["x"] + i["b"], f)
    return {"y": r(r(t * sigmoid(t), f) * 0.5, f)}


@ref()
def scopes_labels(i, d):
    x, w, h = i["x"], i["w"], "fp16"
    e = r(r(r(np.exp(x), h) + np.maximum(w, 0), h) * 0.5, h)
    return {"y": r(e - x, h), "z": r(sigmoid(e), h)}


@ref(dims={"B": 150}, expect_roots=10, expect_devtasks=4)
def knobs_all(i, d):
    p = r(i["x"] @ i["w"], "fp32")
    return {"h": p, "y": r(np.maximum(p, 0), "fp16")}


@ref(dims={"B": 150}, expect_roots=10, expect_devtasks=4)
def cfgcalls_knobs(i, d):  # knobs_all written with PyPTO's configuration calls (issue 13)
    return knobs_all(i, d)


@ref(dims={"B": 40}, pmu_trace=True)
def target_950(i, d):
    return {"y": r(np.tanh(r(i["x"] + i["g"], "bf16")), "bf16")}


@ref(dims={"B": 30}, expect_roots=8, expect_devtasks=8,
     compile_args=["--set", "runtime.stitch_function_max_num=1", "--set", "runtime.device_sched_mode=0"])
def target_a3_override(i, d):
    f = "fp32"
    return {"y": r(np.sqrt(r(np.abs(i["x"]) + 1, f)), f)}


# --- cube ---------------------------------------------------------------------------------------

def mm(a, b, out="fp32"):
    return r(np.matmul(a, b), out)


@ref()
def mm_odd_fp16(i, d):
    return {"c32": mm(i["a"], i["b"]), "c16": mm(i["a"], i["b"], "fp16")}


@ref()
def mm_trans_bf16(i, d):
    at, bt, a = i["at"], i["bt"], i["a"]
    return {"ta": mm(at.T, bt.T, "bf16"), "tb": mm(a, bt.T), "tab": mm(at.T, bt.T, "bf16")}


@ref()
def mm_nz(i, d):
    return {"y": mm(i["x"], i["w"]), "yt": mm(i["x"], i["wt"].T, "fp16")}


@ref()
def mm_batched(i, d):
    e = mm(i["a"], i["w"])
    return {"c": mm(i["a"], i["b"]), "d": r(r(r(e * 0.5, "fp32") + 1, "fp32"), "fp16")}


@ref(kinds={"a": "small", "b": "small", "b2": "small"})
def mm_split_k(i, d):
    return {"c": mm(i["a"], i["b"]), "c2": mm(i["a"], i["b2"])}


REFS["mm_batched_broadcast"] = REFS["mm_batched"]


@ref()
def mm_reshaped_vector(i, d):
    z = mm(i["v"][None, :], i["b"])
    return {"y": mm(i["x"], i["w"][:, None]), "z": z, "zt": z}


@ref()
def mm_batched_broadcast_sides(i, d):
    # np.matmul broadcasts the batch axis as the contract does.
    return {"left": mm(i["a1"], i["b"]), "right": mm(i["a"], np.swapaxes(i["w1t"], 1, 2), "fp16"),
            "left_t": mm(np.swapaxes(i["a1t"], 1, 2), i["bf"])}


@ref()
def mm_fp32_in(i, d):
    p = mm(i["a"], i["b"])
    return {"h": mm(i["a"], i["b"], "fp16"), "bb": mm(i["a"], i["b"], "bf16"), "rs": r(p.sum(-1, keepdims=True), "fp32")}


@ref(dims={"M": 70}, expect_roots=3)
def mm_epilogue_dyn(i, d):
    p = mm(i["x"], i["w"])
    return {"y": r(r(gelu(r(p + i["bias"], "fp32")), "fp32"), "fp16")}


@ref(kinds={"q": "small", "k": "small"})
def attention_mini(i, d):
    f = "fp32"
    s = mm(i["q"], np.swapaxes(i["k"], 1, 2))
    s = r(s * L(0.17677669529663687, f), f)
    e = r(np.exp(r(s - s.max(-1, keepdims=True), f)), f)
    p = r(r(e / r(e.sum(-1, keepdims=True), f), f), "fp16")
    return {"o": mm(p, i["v"], "fp16")}


# --- data flow between roots, SSA, static choice ------------------------------------------------

@ref(dims={"B": 43})
def multi_roots(i, d):
    f = "fp32"
    ws = r(i["x"] * r(i["gamma"] * 2, f), f)
    return {"y": r(ws - i["x"], f), "rowmax": ws.max(-1, keepdims=True), "colsum": r(ws[:16].sum(0, keepdims=True), f)}


@ref()
def output_readback(i, d):
    f = "fp32"
    x = r(i["x"] * 0.5, f)
    s = r(x + 1, f)
    s = r(s * s, f)
    part = np.zeros((24, 64))
    part[4:20] = x
    return {"y": s, "z": r(s - x, f), "part": part}


@ref()
def if_else_static(i, d):
    f = "fp32"
    t = r(i["x"] * 2, f)  # N % 32 == 0 and 8 <= M <= 64
    # (96 + 15) // 16 = 6 < 7 and `false`: the else branch; M == 24 there: t * t.
    return {"y": r(t + 1, f), "z": r(t * t, f)}


@ref()
def rank4_ops(i, d):
    x, w, f = i["x"], i["w"], "fp32"
    return {"y": r(r(x * w, f) + 1, f), "m3": r(x - w, f).max(3, keepdims=True)}


@ref()
def rank4_reduce_axis1(i, d):
    return {"s1": r(i["x"].sum(1, keepdims=True), "fp32")}


@ref(dims={"T": 23}, expect_roots=7)
def layernorm_dyn_bf16(i, d):
    f = "fp32"
    x, g, b = i["x"], i["gamma"], i["beta"]
    mu = r(x.mean(-1, keepdims=True), f)
    xc = r(x - mu, f)
    var = r(r(xc * xc, f).mean(-1, keepdims=True), f)
    rs = r(1 / np.sqrt(r(var + L(1e-5, f), f)), f)
    return {"y": r(r(r(r(xc * rs, f) * g, f) + b, f), "bf16")}


@ref()
def inf_literals(i, d):
    x = i["x"]
    return {"lo": x.copy(), "hi": r(x * 2, "fp32"), "big": np.full((8, 32), np.inf),
            "mx": x[:, :16].max(-1, keepdims=True)}


# --- more data flow and edge values ------------------------------------------------------------

@ref(dims={"B": 9}, expect_roots=9)
def accumulate_ws(i, d):
    x = i["x"]
    pre = np.zeros_like(x)
    s = np.zeros((1, x.shape[1]))
    for b in range(x.shape[0]):
        s = r(s + x[b:b + 1], "fp32")
        pre[b] = s
    return {"acc": s, "prefix": pre}


@ref(dims={"R": 5}, expect_roots=5)
def dim_from_flag(i, d):
    row = r(r(i["v"] * 3, "fp16") - 1, "fp16")
    return {"y": np.tile(row, (d["R"], 1))}


@ref()
def overflow_fp16(i, d):
    x, h = i["x"], "fp16"
    return {"e": r(np.exp(r(x * 4, h)), h), "p": r(x * 30000, h)}


@ref()
def bool_mask(i, d):
    x, m, h = i["x"], i["m"], "fp16"
    y = r(r(x * m, h) + r(r(1 - m, h) * -100, h), h)
    return {"y": y, "rs": r(r(x * m, h).sum(-1, keepdims=True), "fp32"), "cnt": m.sum(1, keepdims=True)}


@ref(dims={"B": 37}, expect_roots=10, expect_devtasks=2, rounds=3,  # 10 roots, stitch 5 from the command line (file: 4)
     run_args=["--set", "runtime.device_sched_mode=2", "--set", "runtime.stitch_function_max_num=5"])
def sched_rounds(i, d):
    f = "fp32"
    x = i["x"]
    e = r(np.exp(r(x - x.max(-1, keepdims=True), f)), f)
    return {"y": r(r(e / r(e.sum(-1, keepdims=True), f), f), "fp16")}


@ref(dims={"M": 150}, expect_roots=3)  # 10 blocks of 16 rows: gears 4 + 4 + 2 (3 roots); the last block has 6 valid rows
def mm_dyn_unroll_nz(i, d):
    f = "fp32"
    s = mm(i["x"], i["w"])
    e = r(np.exp(r(s - s.max(-1, keepdims=True), f)), f)
    return {"p": r(r(e / r(e.sum(-1, keepdims=True), f), f), "bf16")}


@ref()
def mm_reduce_cols(i, d):
    c = mm(i["a"], i["b"])
    return {"colmax": c.max(0, keepdims=True), "rowmean": r(c.mean(1), "fp32"), "ct": r(c.T * 0.5, "fp32")}


@ref(dims={"B": 21})
def static_loop_slices(i, d):
    x, f = i["x"], "fp32"
    y = np.concatenate([r(x[:, 0:32] + 0, f), r(x[:, 32:64] * -1, f), r(x[:, 64:96] + 2, f)], 1)
    return {"y": y}


@ref(dims={"B": 19}, expect_roots=3)
def dyn_shared_dim(i, d):
    return {"y": r(i["x"] * r(sigmoid(i["g"]), "fp32"), "fp32")}


@ref(compile_args=["--target", "ascend950dt"])
def target_cli_950dt(i, d):
    g = r(gelu(i["x"]), "fp16")
    return {"y": g, "s": r(g.sum(-1, keepdims=True), "fp32")}


@ref()
def long_rows(i, d):
    h, b = i["h"], i["b"]
    return {"hs": r(h.sum(1, keepdims=True), "fp16"), "bm": r(b.mean(-1, keepdims=True), "bf16"),
            "vm": r(h[:, 100:400].mean(1, keepdims=True), "fp32"), "mm": mm(b[:, :1000], i["w"])}


@ref(dims={"B": 29}, expect_roots=4)
def tail_reshape_concat(i, d):
    x, f = i["x"], "fp32"
    y = r(r(x * 2, f).reshape(2 * d["B"], 32) + 1, f)
    return {"y": y, "sw": np.concatenate([x[:, 32:], r(x[:, :32] - 1, f)], 1)}


@ref(warnings=["warning: the target region of 'y' has 8 on axis 0 but the value has 16",
               "warning: the target region of 'y' has 8 on axis 1 but the value has 32"])
def assemble_stop(i, d):
    x, f = i["x"], "fp32"
    y = np.zeros_like(x)
    y[4:20] = r(x[:16] * 2, f)
    y[20:24, 8:40] = r(x[:4, :32] + 1, f)
    return {"y": y}


# --- PyPTO's catalogue, first tranche (comparisons, where, logical, bitwise, elementwise, reductions) ----

@ref()
def cmp_where(i, d):
    x, y, b, f = i["x"], i["y"], i["b"], "fp32"
    r1 = np.where(x > 0, x, r(y * 2, f))
    r2 = np.where(y <= b, 1.5, x)
    m = np.logical_and(x >= y, np.logical_not(x != x)) == np.logical_or(x < L(-0.5, f), x != L(0.25, f))
    c = ((x > y) == (y < b)).astype(np.float64).sum(1, keepdims=True)
    return {"r": r(r1 + r2, f), "m": m.astype(np.float64), "c": c}


@ref(kinds={"p": "positive"})
def ew_pypto_unary(i, d):
    x, p, h, f, hh = i["x"], i["p"], i["h"], "fp32", "fp16"
    t = r(np.exp2(x), f)
    t = r(t + r(np.log2(p), f), f)
    t = r(t - r(np.log1p(p), f), f)
    t = r(t + r(np.expm1(r(x * 0.5, f)), f), f)
    t = r(t + r(r(np.sin(x), f) * r(np.cos(x), f), f), f)
    t = r(t + r(erf(x), f), f)
    u = r(np.rint(r(x * 3, f)), f)
    u = r(u + r(np.floor(x) * 2, f), f)
    u = r(u + r(np.ceil(x) * 4, f), f)
    u = r(u + r(np.trunc(x) * 8, f), f)
    u = r(u + r(np.sign(x) * 16, f), f)
    u = r(u + r(r(np.rint(r(x * 10, f)), f) / 10, f) * 32, f)
    v = r(np.power(p, x), f)
    v = r(v + r(p * p, f), f)
    v = r(v + np.minimum(np.maximum(x, -0.5), 0.75), f)
    v = r(v + np.maximum(x, r(p * -1, f)), f)
    v = r(v + np.minimum(x, 0.25), f)
    w = r(np.rint(r(h * 4, hh)), hh)
    w = r(w + np.sign(h), hh)
    w = r(w + r(np.exp2(h), hh), hh)
    w = r(w + r(np.sin(h), hh), hh)
    with np.errstate(invalid="ignore", divide="ignore"):
        fin = np.isfinite(r(np.log(x), f))
    return {"t": t, "u": u, "v": v, "w": w, "f": fin.astype(np.float64)}


def erf(x):
    import math
    return np.vectorize(math.erf)(x)


@ref(kinds={"a": "wide", "b": "wide", "c": "wide"})
def bitwise_int(i, d):
    a, b, c = i["a"].astype(np.int64), i["b"].astype(np.int64), i["c"].astype(np.int64)
    t = "int32"
    rr = r(r(r((a & b) + (a | 12), t) - (a ^ b), t) + (~a), t)
    s = r(r((~c) ^ 85, "int8") + (7 & c), "int8")
    return {"r": rr.astype(np.float64), "s": s.astype(np.float64)}


@ref(kinds={"k": "small"})
def reduce_pypto(i, d):
    x, k, f = i["x"], i["k"], "fp32"
    y = r(r(x * L(0.01, f), f) + 1, f)
    m1 = r(x.mean(1, keepdims=True), f)
    v1 = r(r(r(r(x - m1, f) ** 2, f).sum(1, keepdims=True), f) / 39, f)
    m0 = r(x.mean(0, keepdims=True), f)
    v0 = r(r(r(r(x - m0, f) ** 2, f).sum(0), f) / 20, f)
    return {"pr": r(y.prod(1, keepdims=True), f), "pc": r(y.prod(0, keepdims=True), f), "va": v1, "vb": v0,
            "am": x.argmax(-1)[:, None].astype(np.float64), "an": x.argmin(0)[None, :].astype(np.float64),
            "ki": (k.argmin(1) + k.argmax(1))[:, None].astype(np.float64)}


# --- carried values and local tensors (specs/README.md "Carried values", "Local tensors") -----------

@ref(dims={"B": 7})
def scatter_rows_runtime(i, d):
    # rows written in batch order: a later row wins a slot two rows name.
    cache = np.zeros((40, i["x"].shape[1]))
    for b, s in enumerate(i["slot"].astype(np.int64)):
        cache[s] = r(i["x"][b] * 2, "fp32")
    return {"cache": cache}


@ref(dims={"B": 3})
def index_select_rows(i, d):
    # rows of the table by index (NumPy fancy indexing), scaled in fp16; a row sum in fp32.
    e = i["table"][i["ids"].astype(np.int64)]
    return {"rows": r(e * 2, "fp16"), "rowsum": r(e.sum(axis=-1, keepdims=True), "fp32")}


@ref(dims={"B": 5})
def runtime_values_paged(i, d):
    # specs/README.md "Run-time values": seq_len bounds the block loop, block_table places each block.
    seq, bt, pool = i["seq_len"].astype(np.int64), i["block_table"].astype(np.int64), i["pool"]
    B, D = seq.shape[0], pool.shape[1]
    total = np.zeros((B, 1, D))
    for b in range(B):
        acc = np.zeros((1, D))
        for j in range(-(-seq[b] // 16)):
            blk = pool[bt[b, j] * 16:bt[b, j] * 16 + min(16, seq[b] - j * 16)]
            acc = r(acc + r(blk.sum(axis=0, keepdims=True), "fp32"), "fp32")
        total[b] = acc
    return {"total": total}


@ref(dims={"B": 3, "T": 37})
def carry_running_sum(i, d):
    x = i["x"]
    B, T, N = x.shape
    total, peak, g = np.zeros((B, 1, N)), np.zeros((B, 1, N)), np.zeros((1, N))
    for b in range(B):
        acc, mx = np.zeros((1, N)), np.full((1, N), -np.inf)
        for t in range(0, T, 8):
            blk = x[b, t:t + 8]
            acc = r(acc + r(blk.sum(axis=0, keepdims=True), "fp32"), "fp32")
            mx = np.maximum(mx, blk.max(axis=0, keepdims=True))
        total[b], peak[b] = acc, mx
        g = r(g + r(acc * 0.5, "fp32"), "fp32")
    return {"total": total, "peak": peak, "grand": g}


@ref(dims={"B": 37})
def local_tensor_assemble(i, d):
    x = i["x"]
    y = np.concatenate([r(x[:, 32:] * 2, "fp32"), r(np.exp(x[:, :32]), "fp32")], axis=1)
    z = np.stack([r(x[k] * (k + 1), "fp32") for k in range(4)])
    return {"y": r(y + 1, "fp32"), "z": z}


@ref(dims={"B": 3, "T": 45})
def cond_loop_begin_end(i, d):
    x = i["x"]
    B, T, N = x.shape
    y, z = np.zeros((B, 1, N)), np.zeros((B, 1, N))
    for b in range(B):
        acc = None
        # unroll gears 2 and 1 over ceil(T / 8) blocks: each instance sums 16 rows (8 for the last odd one)
        nblk, t = -(-T // 8), 0
        while t < nblk:
            k = 2 if nblk - t >= 2 else 1
            s = r(x[b, t * 8:(t + k) * 8].sum(axis=0, keepdims=True), "fp32")
            acc = r(s * 2, "fp32") if acc is None else r(acc + s, "fp32")
            t += k
        y[b] = r(acc * 0.5, "fp32")
        z[b] = acc if (b % 2 == 1 and B > 1) else -acc
    return {"y": y, "z": z}


@ref(dims={"B": 21})
def cond_bound_in_both(i, d):
    x, flag, f = i["x"], i["flag"].astype(np.int64), "fp32"
    B, N = x.shape
    out = {k: np.zeros((B, N)) for k in ("y", "w", "cs", "q", "f")}
    for b in range(-(-B // 8)):
        xb = x[b * 8:(b + 1) * 8]
        acc = r(xb * 2.0, f) if b % 2 == 1 else r(xb + 1.0, f)
        s = r(acc * 3.0, f) if flag[b * 8] > 0 else r(acc - 1.0, f)
        col = r(r(acc + 5.0, f).sum(0, keepdims=True), f)  # the tail block's valid rows only
        if b % 2 == 1:
            p = r(acc + r(xb.sum(1, keepdims=True), f), f)
        else:
            p = r(r(xb * 3.0, f) - acc, f)
        first = r(r(xb * 0.0, f) - 1.0, f) if b == 0 else r(xb * 1.0, f)
        rows = slice(b * 8, b * 8 + xb.shape[0])
        out["y"][rows] = r(acc * 0.5, f)
        out["w"][rows] = s
        out["cs"][rows] = np.broadcast_to(col, xb.shape)
        out["q"][rows] = p
        out["f"][rows] = first
    return out


# --- quant: cast modes, int8 matmul, quantisation -----------------------------------------------

def _sat(v, dt):
    lo, hi = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-2**31, 2**31 - 1)}[dt]
    return np.clip(v, lo, hi)


def _half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


@ref(kinds={"x": "half", "h": "half", "n": "normal"})
def cast_modes(i, d):
    x, h, n = i["x"], i["h"], i["n"]
    h3 = r(h * L(0.3, "fp16"), "fp16")
    return {"rint8": _sat(np.round(x), "int8"), "round32": r(_half_away(x), "int32"),
            "floor8": _sat(np.floor(x), "int8"), "ceilu8": _sat(np.ceil(x), "uint8"),
            "trunc32": r(np.trunc(x), "int32"), "none8": _sat(np.trunc(x), "int8"),
            "wrap8": r(_half_away(x), "int8"), "hround8": _sat(_half_away(h3), "int8"),
            "nsat8": _sat(n, "int8"), "ffloor": np.floor(r(x * L(0.7, "fp32"), "fp32"))}


@ref(kinds={"x": "wide", "w": "wide", "v": "wide", "p": "wide", "q": "wide", "at": "wide", "wt": "wide"})
def mm_int8_nz(i, d):
    x = i["x"].astype(np.int64)
    pb, qb = np.maximum(i["p"], 100).astype(np.int64), np.maximum(i["q"], 100).astype(np.int64)
    yb = pb @ qb
    assert yb.min() > 2 ** 24  # the sums fp32 could not hold exactly
    return {"y": r(x @ i["w"].astype(np.int64), "int32"), "yv": r(x @ i["v"].astype(np.int64), "int32"),
            "yb": r(yb, "int32"), "yt": r(i["at"].T.astype(np.int64) @ i["wt"].T.astype(np.int64), "int32")}


@ref(kinds={"st": "positive", "sc": "positive", "zc": "positive", "sw": "positive", "w": "wide"})
def quant_scales(i, d):
    f = "fp32"
    x = r(i["x"] * 40.0, f)
    zc = r(i["zc"] * 50.0, f)
    qt = _sat(np.round(r(x * i["st"][:, None], f)), "int8")
    qc = _sat(np.round(r(r(x * i["sc"], f) + zc, f)), "uint8")
    dt = r(qt * i["st"][:, None], f)
    dc = r(r(qc + zc, f) * i["sc"], f)
    c = (qt.astype(np.int64) @ i["w"].astype(np.int64)).astype(np.float64)
    y = r(r(r(c, f) * i["st"][:, None], f) * i["sw"][None, :], f)
    return {"qt": qt, "qc": qc, "dt": dt, "dc": dc, "y": r(y, "bf16")}
# --- PyPTO's composition ops (specs/README.md "PyPTO's composition ops"), as PyPTO's operator.py ---------

def _softmax(x, dim, dt):
    f = "fp32"
    xf = r(x, f)
    m = xf.max(dim, keepdims=True)
    e = r(np.exp(r(xf - m, f)), f)
    s = r(e.sum(dim, keepdims=True), f)
    return r(r(e / s, f), dt)


def _rms_norm(x, g, eps, dt):
    f = "fp32"
    xf = r(x, f)
    n = x.shape[-1]
    s = r(r(r(xf * xf, f) * L(1.0 / n, f), f).sum(-1, keepdims=True), f)
    y = r(xf / r(np.sqrt(r(s + L(eps, f), f)), f), f)
    if g is not None:
        y = r(y * r(g, f).reshape([1] * (x.ndim - 1) + [n]), f)
    return r(y, dt)


@ref()
def catalog_compose(i, d):
    x, h, g, s, k, x3, f = i["x"], i["h"], i["g"], i["s"], i["k"], i["x3"], "fp32"
    M, N = x.shape
    return {"sm0": _softmax(x, -1, f), "sm1": _softmax(x, 0, f), "smh": _softmax(h, 1, "fp16"),
            "rn": _rms_norm(x, g, 1e-5, f), "rh": _rms_norm(h, None, 1e-6, "fp16"),
            "ex": np.broadcast_to(s[:, None], (M, N)) + 0.0,
            "ek": r(np.broadcast_to(k, (M, N)) + 1, "int32"),
            "us": r(x * 2, f)[:, None, :], "pm": x3.transpose(2, 0, 1), "pt": r(x3 + 1, f).transpose(1, 0, 2)}


@ref(dims={"B": 29})
def catalog_compose_dyn(i, d):
    x, g, c = i["x"], i["g"], i["c"]
    B, N = x.shape
    return {"p": _softmax(x, -1, "bf16"), "q": _rms_norm(x, g, 1e-6, "bf16"),
            "e": r(np.broadcast_to(c, (B, N)) * 2, "fp32")}


@ref()
def reshape_trailing_one(i, d):
    return {"us": r(i["x"] * 2, "fp32")[:, :, None]}


@ref(kinds={"k": "small"})
def reshape_trailing_one_bcast(i, d):
    return {"o": np.broadcast_to(i["k"][:, None] + 1, (i["k"].shape[0], 8)).astype(np.float64)}


@ref()
def reshape_move_one(i, d):  # opsdelta: found porting the gated delta rule
    return {"y": i["x"].reshape(1, i["x"].shape[0], i["x"].shape[2])}


@ref()
def reshape_move_one_op(i, d):  # opsdelta
    return {"y": i["x"].reshape(1, i["x"].shape[0], i["x"].shape[2])}
@ref(kinds={"k": "small"})
def reshape_size_one_axes(i, d):
    x, M, N = i["x"], d["M"], d["N"]
    x2 = r(x * 2, "fp32")
    return {"lead": x2[None], "mid": x2[:, None, :], "trail": x2[:, :, None], "several": x2[:, None, :, None],
            "dropped": r(i["x3"] + 1, "fp32").reshape(M, N), "in_trail": r(x + 3, "fp32")[:, :, None],
            "in_mid_bc": r(x[:, None, :] * i["y3"], "fp32"),
            "k_col": np.broadcast_to(i["k"][:, None] + 1, (M, 8)).astype(np.float64),
            "col_bc": np.broadcast_to(r(r(x - 1, "fp32")[:, :, None] * 2, "fp32"), (M, N, 4)),
            "unsq": r(x2 + 1, "fp32")[:, :, None]}


def _topk(x, k, largest):
    """Stable selection: the lower index first among equal values (x holds no NaN)."""
    order = np.argsort(-x if largest else x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.float64)


@ref(kinds={"q": "small", "k": "small", "i8": "small", "u8": "small"})
def catalog_index(i, d):
    x, t, q, k, tb, i8, u8 = i["x"], i["t"], i["q"], i["k"], i["tb"], i["i8"], i["u8"]
    M, N = x.shape
    tv, ti = _topk(x, 5, True)
    sv, si = _topk(t, 3, False)
    qv, qi = _topk(q, 4, True)
    mv, mi = _topk(np.where(x > -0.5, -np.inf, x), 10, True)
    bv, bi = _topk(tb, 2, True)
    i8v, _ = _topk(i8, 3, False)
    rr, cc = np.arange(M)[:, None], np.arange(N)[None, :]
    rows, cols = np.arange(M)[:, None], np.arange(N)[None, :]
    tr = np.where(cols - rows <= -2, x, 0) + np.where(cols - rows >= 3, r(x * 2, "fp32"), 0)
    oh = (k[:, None] == np.arange(6)[None, :]).astype(np.float64)
    return {"tv": tv, "ti": ti, "sv": sv, "si": si, "qv": qv, "qi": qi, "mv": mv, "mi": mi, "bv": bv, "bi": bi, "i8v": i8v,
            "i8s": np.argsort(-i8, -1, kind="stable").astype(np.float64),
            "bt": np.where(cc - rr >= 1, x > 0, False).astype(np.float64),
            "ohu": (u8[:, None] == np.arange(6)[None, :]).astype(np.float64),
            "as1": np.argsort(q, -1, kind="stable").astype(np.float64),
            "as0": np.argsort(-q, 0, kind="stable").astype(np.float64),
            "tr": r(tr, "fp32"), "oh": oh, "ar": np.arange(1, 4.5, 0.5), "ai": np.arange(5) * 3.0}


@ref(dims={"B": 21}, kinds={"q": "small"})
def catalog_scan(i, d):
    x, q, z, f = i["x"], i["q"], i["z"], "fp32"
    zc = np.concatenate([np.cumsum(z[b:b + 8], 0) for b in range(0, z.shape[0], 8)], 0)
    y = r(r(x * L(0.01, f), f) + 1, f)
    return {"c1": r(np.cumsum(x, 1), f), "c0": r(np.cumsum(x, 0), f), "qi": r(np.cumsum(q, 1), "int32"),
            "p1": r(np.cumprod(y, 1), f), "zc": r(zc, f)}


# opslstm: failing/reshape_drop_trailing_one*.yaml ([N, 1] -> [1, N]).
@ref()
def reshape_drop_trailing_one(i, d):
    return {"y": r(i["s"].reshape(1, -1) + 0.0, "fp32")}


@ref()
def reshape_drop_trailing_one_crash(i, d):
    return {"y": r(i["x"] * i["s"].reshape(1, -1), "fp32")}
# --- catalog2: online softmax, pad / fillpad, gather / index_select / index_add / index_put_, topk off the last axis

def _online_softmax(s, scale):
    """PyPTO's online_softmax on [k_len, q_len] scores: column statistics (reads valid rows only)."""
    x = r(s * scale, "fp32")
    m = x.max(axis=0, keepdims=True)
    e = r(np.exp(r(x - m, "fp32")), "fp32")
    return r(e, "bf16"), m, r(e.sum(axis=0, keepdims=True), "fp32")


def _online_softmax_update(pm, pl, po, cm, cl, co):
    m = np.maximum(pm, cm)
    with np.errstate(invalid="ignore"):
        a = np.where(pm == m, 1.0, r(np.exp(r(pm - m, "fp32")), "fp32"))
        b = np.where(cm == m, 1.0, r(np.exp(r(cm - m, "fp32")), "fp32"))
    l = r(r(a * pl, "fp32") + r(b * cl, "fp32"), "fp32")
    o = r(r(po * a, "fp32") + r(co * b, "fp32"), "fp32")
    return m, l, o


@ref(dims={"S": 200})
def catalog2_flash_online(i, d):
    q, k, v = i["q"], i["k"], i["v"]
    S, D = k.shape
    Q = q.shape[0]
    m, l, acc = np.full((1, Q), -np.inf), np.zeros((1, Q)), np.zeros((D, Q))
    for j in range(0, S, 32):
        s = r(k[j:j + 32] @ q.T, "fp32")
        e, cm, cl = _online_softmax(s, 0.17677669529663687)
        co = r(r(v[j:j + 32], "bf16").T @ e, "fp32")
        m, l, acc = _online_softmax_update(m, l, acc, cm, cl, co)
    return {"o": r(r(acc / l, "fp32").T, "fp32"), "lse": r(m + r(np.log(l), "fp32"), "fp32")}


def _index_put_last(x, idx, v):
    """Rows idx[t] = v[t], later t winning; indices outside the axis skipped."""
    y = x.copy()
    for t in range(idx.shape[0]):
        if 0 <= idx[t] < x.shape[0]:
            y[idx[t]] = v[t]
    return y


@ref(dims={"B": 21})
def catalog2_index_ops(i, d):
    x, ix, rows, src = i["x"], i["ix"].astype(np.int64), i["rows"].astype(np.int64), i["src"]
    B, N = x.shape
    g = np.take_along_axis(x, ix, 1)
    ia, ip = np.zeros((B, N)), np.zeros((B, N))
    fp = x.copy()
    for b0 in range(0, B, 8):
        blk = np.full((8, N), -1.5)
        blk[:min(8, B - b0)] = x[b0:b0 + 8]
        acc = blk.copy()
        np.add.at(acc, rows, r(src * 2, "fp32"))
        n = min(8, B - b0)
        ia[b0:b0 + n] = r(acc, "fp32")[:n]
        ip[b0:b0 + n] = _index_put_last(blk, rows, src)[:n]
    pd = np.concatenate([x, np.full((B, 8), 3.0)], 1)
    g3 = np.take_along_axis(i["x3"], i["i3"].astype(np.int64), 2)
    sc, sca = x.copy(), x.copy()
    src = r(x[:, 0:8] * 10, "fp32")
    for b in range(B):
        for j in range(8):  # in order: the last write wins
            sc[b, ix[b, j]] = src[b, j]
        np.add.at(sca[b], ix[b], 0.5)
    return {"g": g, "ia": ia, "ip": ip, "pd": pd, "fp": fp, "g3": g3, "sc": sc, "sca": r(sca, "fp32")}


@ref(dims={"B": 19}, kinds={"n32": "small", "s32": "small"})
def catalog2_index_dtypes(i, d):
    gx, cols, pr = (i[k].astype(np.int64) for k in ("gx", "cols", "pr"))
    out = {k: np.take_along_axis(i[s], gx, 1) for k, s in
           (("gh", "h"), ("gw", "w"), ("g32", "n32"), ("g8", "i8"), ("gu", "u8"))}
    B = i["h"].shape[0]
    out["ph"] = np.concatenate([i["h"], np.full((B, 3), -2.0)], 1)
    out["p8"] = np.concatenate([i["i8"], np.full((B, 2), -7.0)], 1)
    ia = i["n32"].copy()
    np.add.at(ia, (slice(None), cols), i["s32"])
    out["ia32"] = r(ia, "int32")
    out["gd0"] = np.take_along_axis(i["ws"], i["gi0"].astype(np.int64), 0)
    a8 = i["a8"].copy()
    np.add.at(a8, pr, r(i["v8"], "int8"))
    out["ip8"] = r(a8, "int8")
    out["iph"] = _index_put_last(i["ah"], pr, i["vh"])
    tk = i["tk"]
    order = np.argsort(-tk, axis=0, kind="stable")[:4]
    out["tv"], out["ti"] = np.take_along_axis(tk, order, 0), order.astype(np.float64)
    out["isel"] = i["tab"][:, i["sel"].astype(np.int64)]
    f = np.full((8, 32), 9.0)
    f[:5, :20] = i["tab"][1:6, 2:22]
    out["fp2"] = f
    return out


@ref(dims={"S": 200})
def where_carry_cycle(i, d):
    # test/conformance/failing/: the flash loop of catalog2_flash_online without its fillpads, the merge by hand.
    q, k, v = i["q"], i["k"], i["v"]
    S, D = k.shape
    Q = q.shape[0]
    m, l, acc = np.full((1, Q), -np.inf), np.zeros((1, Q)), np.zeros((D, Q))
    for j in range(0, S, 32):
        s = r(k[j:j + 32] @ q.T, "fp32")
        e, cm, cl = _online_softmax(s, 0.17677669529663687)
        co = r(r(v[j:j + 32], "bf16").T @ e, "fp32")
        m, l, acc = _online_softmax_update(m, l, acc, cm, cl, co)
    return {"o": acc}


def _fillpad_rows(x, n, value):
    """x's rows in blocks of n, the tail block's missing rows set to value: a list of [n, ...] blocks."""
    out = []
    for b0 in range(0, x.shape[0], n):
        blk = np.full((n,) + x.shape[1:], float(value))
        blk[:min(n, x.shape[0] - b0)] = x[b0:b0 + n]
        out.append(blk)
    return out


def _per_block(x, n, f):
    """Every row of block b gets f(block b) (a [1, ...] row), clipped to x's rows."""
    y = np.concatenate([np.broadcast_to(f(blk), blk.shape) for blk in x], 0)
    return y


@ref(dims={"B": 19})
def catalog2_index_dtypes2(i, d):
    B = i["w"].shape[0]
    cols = i["cols"].astype(np.int64)
    out = {}
    blocks = lambda k, v: _fillpad_rows(i[k], 8, v)
    out["fw"] = _per_block(blocks("w", 0.5), 8, lambda b: r(b.sum(0, keepdims=True), "bf16"))[:B]
    out["f32"] = _per_block(blocks("n32", 5000), 8, lambda b: b.max(0, keepdims=True))[:B]
    out["f8"] = _per_block(blocks("i8", -100), 8, lambda b: b.min(0, keepdims=True))[:B]
    out["fu8"] = _per_block(blocks("u8", 200), 8, lambda b: b.max(0, keepdims=True))[:B]

    def iadd(x, s, alpha, dt):
        acc = np.zeros_like(x)
        np.add.at(acc, (slice(None), cols), r(s * alpha, dt) if alpha != 1 else s)
        return r(x + r(acc, dt), dt)
    out["aw"] = iadd(i["w"], i["sw"], 0.5, "bf16")
    out["a8"] = iadd(i["i8"], i["s8"], 1, "int8")
    out["au8"] = iadd(i["u8"], i["su8"], 1, "uint8")
    out["ah"] = iadd(i["h"], i["sh"], -1, "fp16")
    a3 = i["x3"].copy()
    np.add.at(a3, (slice(None), slice(None), i["r8"].astype(np.int64)), i["v38"])
    out["ia3"] = r(a3, "fp32")
    out["g3o"] = np.take_along_axis(i["x3"], i["g3"].astype(np.int64), 1)
    out["gl3o"] = np.take_along_axis(i["x3"], i["gl3"].astype(np.int64), 2)
    out["ip3"] = _index_put_last(i["x3"], i["r3"].astype(np.int64), i["v3"])
    pw = np.full((8, 11), r(np.float64(-0.25), "bf16"))
    pw[:6, :8] = i["pw"]
    out["pwo"] = pw
    out["p32o"] = np.concatenate([i["p32"], np.full((1, 8), -7.0)], 0)
    out["pu8o"] = np.concatenate([i["pu8"], np.full((6, 2), 255.0)], 1)
    pr = i["pr"].astype(np.int64)
    out["ip32"] = _index_put_last(i["a32"], pr, i["v32"])
    acc = i["pu8"].copy()
    np.add.at(acc, pr, i["vu8"])
    out["ipu8"] = r(acc, "uint8")
    si = i["si"].astype(np.int64)
    s0 = i["a32"].copy()
    for t in range(si.shape[0]):  # rows in order: the last write wins
        for k in range(8):
            s0[si[t, k], k] = i["sv"][t, k]
    out["s0"] = s0
    s0m = i["pw"].copy()
    for t in range(si.shape[0]):
        for k in range(8):
            s0m[si[t, k], k] = r(s0m[si[t, k], k] * 2, "bf16")
    out["s0m"] = s0m
    return out



@ref()
def reshape_rank4_middle_one(i, d):
    # test/conformance/failing/: a size-1 axis inserted inside a rank-3 tensor, read back.
    return {"e": i["x3"][:, :, None, :]}


# --- ctrl3: run-time control flow and local tensors in loops with a run-time trip count ----------

@ref(dims={"B": 5})
def ctrl3_runtime_loop_state(i, d):
    seq, flag, bt, pool = (i["seq_len"].astype(np.int64), i["flag"].astype(np.int64),
                           i["block_table"].astype(np.int64), i["pool"])
    B, D, f = seq.shape[0], pool.shape[1], "fp32"
    total, rows, first = np.zeros((B, 1, D)), np.zeros((B, 2, D)), np.zeros((B, 16, 2 * D))
    for b in range(B):
        acc, two = np.zeros((1, D)), np.zeros((2, D))
        n = -(-seq[b] // 16)
        for j in range(n):
            v = min(16, seq[b] - j * 16)
            blk = pool[bt[b, j] * 16:bt[b, j] * 16 + v]
            if j == n - 1:  # is_loop_end: fillpad with 1.0 to 16 rows
                pad = np.concatenate([blk, np.ones((16 - v, D))])
                w = r(pad * 0.25, f)
                acc = r(acc + r(pad.sum(axis=0, keepdims=True), f), f)
            else:
                w = r(blk * 0.5, f)
                acc = r(acc + r(blk.sum(axis=0, keepdims=True), f), f)
            acc = r(acc + r(r(w.sum(axis=0, keepdims=True), f) * 0.125, f), f)
            if j == 0:
                first[b] = r(np.concatenate([w, r(w * -1.0, f)], axis=1) * 2.0, f)
            part = np.zeros((2, D))
            part[0] = r(w.sum(axis=0), f)
            if j % 2 == 1:
                part[1] = 3.0
            two = r(two + part, f) if flag[b] > 0 else r(two - r(part * 0.5, f), f)
        total[b], rows[b] = acc, two
    return {"total": total, "rows": rows, "first": first}


@ref(dims={"B": 5})
def ctrl3_static_carry_branch(i, d):
    x, n = i["x"], int(i["n"][0])
    y = np.zeros(x.shape)
    for b in range(x.shape[0]):
        acc = x[b]
        for _ in range(2):
            acc = r(acc * 2, "fp32") if b % 2 == 0 else r(acc + 1, "fp32")
        y[b] = acc
    s = np.zeros((16, x.shape[2]))
    for j in range(n):
        s = s + 2
        if j == n - 1:
            s = s * 10
    return {"y": y, "z": s}


@ref()
def ctrl3_local_onchip(i, d):
    x, n, f = i["x"], int(i["n"][0]), "fp32"
    y, yg, yo = np.zeros((128, 32)), np.zeros((128, 32)), np.zeros((64, 32))
    for j in range(n):
        blk = x[j * 16:(j + 1) * 16]
        a, c = r(blk[:, :16] * 2, f), r(blk[:, 16:] + 1, f)
        q = np.block([[a, np.zeros((16, 16))], [c, r(a * c, f)]])
        y[j * 32:(j + 1) * 32] = r(q * 3, f)
        g = np.zeros((32, 32))
        g[:16] = blk
        yg[j * 32:(j + 1) * 32] = r(g + 1, f)
        o = blk.copy()
        o[:8, :16] = 5.0
        r1 = o.copy()
        o[8:, 16:] = -1.0
        yo[j * 16:(j + 1) * 16] = r(r1 + o, f)
    return {"y": y, "yg": yg, "yo": yo}


# --- catalog3: in-place outputs, scatter_update --------------------------------------------------

@ref(dims={"B": 7})
def catalog3_inplace_rw(i, d):
    # y is x's buffer: doubled (+1), then halved in place; z reads the state between; hy changes row 0.
    x, h = i["x"], i["h"]
    y1 = r(r(x * 2, "fp32") + 1, "fp32")
    hy = h.copy()
    hy[0] = r(h[0] * 3, "fp16")
    return {"y": r(y1 * 0.5, "fp32"), "z": r(y1 - 1, "fp32"), "hy": hy}


@ref(dims={"T": 7, "NB": 3})
def catalog3_scatter_update(i, d):
    # cache[slot // 4, slot % 4, 0] = row (rank 4) or cache[slot] = row (rank 2), tokens in order.
    out = {k: i[k + "_in"].copy() for k in ("c8", "c16", "cb", "c32", "ci")}
    for t, s in enumerate(i["slots"].astype(np.int64)):
        out["c8"][s // 4, s % 4, 0] = i["r8"][t]
        out["c16"][s // 4, s % 4, 0] = i["r16"][t]
        out["cb"][s // 4, s % 4, 0] = i["rb"][t]
        out["c32"][s] = r(i["x"][t] * 2, "fp32")
        out["ci"][s] = i["ri"][t]
    return out


@ref(dims={"B": 3}, kinds={"slots": "distinct", "slots2": "distinct", "hslots": "distinct"})
def scatter_update_value(i, d):
    # v copied, then v[slot] = row (rank 2) or v[slot // 4, slot % 4, 0] = row (rank 4); v itself unchanged.
    v = r(i["base"] * 2, "fp32")
    y1 = v.copy()
    for t, s in enumerate(i["slots"].astype(np.int64)):
        y1[s] = r(i["x"][t] + 1, "fp32")
    z = y1.copy()
    for t, s in enumerate(i["slots2"].astype(np.int64).reshape(-1)):
        z[s] = i["x2"][t]
    w = v.copy()
    for t, s in enumerate(i["slots"].astype(np.int64)):
        w[11 - s] = i["x"][t]
    yh = r(i["h"] * 2, "fp16")
    for b in range(d["B"]):
        for j, s in enumerate(i["hslots"][b].astype(np.int64)):
            yh[b * 3 + s // 4, s % 4, 0] = i["rh"][b * 2 + j]
    return {"y": r(y1 + 0.5, "fp32"), "y2": z, "yc": w, "yh": yh}


def _index_put_multi(x, idx, v, accumulate, dt):
    # slices x[i0[t], i1[t], ...] = v[t] in order (or += v[t]); a tuple with an index outside its axis writes nothing.
    out = x.copy()
    for t in range(len(idx[0])):
        at = tuple(int(ix[t]) for ix in idx)
        if any(a < 0 or a >= n for a, n in zip(at, x.shape)):
            continue
        out[at] = r(out[at] + v[t], dt) if accumulate else v[t]
    return out


@ref(dims={"B": 13}, kinds={"n": "small", "vn": "small", "c": "small", "vc": "small"})
def catalog3_index_put_multi(i, d):
    ij = [i["i0"].astype(np.int64), i["i1"].astype(np.int64)]
    out = {"yx": _index_put_multi(i["x"], ij, i["v"], False, "fp32"),
           "yxa": _index_put_multi(i["x"], ij, r(i["v"] * 2, "fp32"), True, "fp32"),
           "yh": _index_put_multi(i["h"], ij, i["vh"], False, "fp16"),
           "yw": _index_put_multi(i["w"], ij, i["vw"], False, "bf16"),
           "yn": _index_put_multi(i["n"], ij, i["vn"], False, "int32"),
           "yna": _index_put_multi(i["n"], ij, i["vn"], True, "int32"),
           "yc": _index_put_multi(i["c"], ij, i["vc"], False, "int8"),
           "ye": _index_put_multi(i["x"], ij + [i["i2"].astype(np.int64)], i["ve"], False, "fp32"),
           "yb": r(i["b"] + 1, "fp32")}
    return out


def _scatter_nd(x, d, idx, src, reduce, dt):
    # every index position p in C order: x[p with axis d = idx[p]] = src[p] (later wins), or += / *=; an index
    # outside the axis writes nothing.
    out = x.copy()
    for p in np.ndindex(*idx.shape):
        k = int(idx[p])
        if not 0 <= k < x.shape[d]:
            continue
        at = p[:d] + (k,) + p[d + 1:]
        v = src if np.isscalar(src) else src[p]
        if reduce == "add":
            out[at] = r(out[at] + v, dt)
        elif reduce == "multiply":
            out[at] = r(out[at] * v, dt)
        else:
            out[at] = v
    return out


@ref(kinds={"n": "small", "n2": "small"})
def catalog3_scatter_rank3(i, d):
    x = i["x"]
    return {"y0": _scatter_nd(x, 0, i["i0"], i["s0"], None, "fp32"),
            "y1": _scatter_nd(x, 1, i["i1"], i["s1"], None, "fp32"),
            "y2": _scatter_nd(x, 2, i["i2"], i["s2"], None, "fp32"),
            "ya": _scatter_nd(x, 1, i["i1"], i["s1"], "add", "fp32"),
            "ym": _scatter_nd(x, 2, i["i2"], i["s2"], "multiply", "fp32"),
            "yh": _scatter_nd(i["h"], 1, i["i1"], i["h1"], None, "fp16"),
            "yn": _scatter_nd(i["n"], 2, i["i2"], i["n2"], "add", "int32"),
            "yc": _scatter_nd(x, 1, i["i1"], 2.5, None, "fp32")}


@ref(dims={"B": 13})
def catalog3_compose(i, d):
    x, y, h, w = i["x"], i["y"], i["h"], i["w"]

    def log10(v, dt):
        return r(r(np.log(r(np.abs(v) + 0.5, dt)), dt) * L(1 / np.log(10), dt), dt)

    def hypot(a, b, dt):
        return r(np.sqrt(r(r(a * a, dt) + r(b * b, dt), dt)), dt)

    with np.errstate(invalid="ignore", divide="ignore"):
        na = np.isnan(r(np.log(x), "fp32")).astype(np.float64)
    return {"c": x, "na": na, "ni": np.zeros_like(i["n"]),
            "lg": log10(x, "fp32"), "lh": log10(h, "fp16"),
            "lr": np.where(x > 0, x, r(x * L(0.01, "fp32"), "fp32")),
            "lw": np.where(w > 0, w, r(w * L(0.2, "bf16"), "bf16")),
            "hy": hypot(x, y, "fp32"), "hr": hypot(x, i["rw"], "fp32"), "hh": hypot(h, h, "fp16")}


# --- ctrl4: loop paths (is_loop_begin / is_loop_end decided per path of the loop's body) ---------

@ref(dims={"B": 6})
def ctrl4_path_trips(i, d):
    x, f = i["x"], "fp32"
    B, _, N = x.shape
    y, z = np.zeros((B, 1, N)), np.zeros((B, 1, N))
    for b in range(B):
        acc, tag = np.ones((1, N)), np.zeros((1, N))
        n = b  # the trip count of LOOP_J
        for j in range(n):
            s = x[b, j:j + 1]
            first, last = j == 0, j == n - 1
            acc = r(s * 2.0, f) if first else r(acc + s, f)
            if last:
                acc, tag = r(acc * 0.5, f), tag + 100.0
            if first and last:
                tag = tag + 1.0
            tag = tag + (10.0 if not first and not last else 1000.0)
        y[b], z[b] = acc, tag
    return {"y": y, "z": z}


@ref(dims={"B": 7})
def ctrl4_path_gears(i, d):
    x, f = i["x"], "fp32"
    B, _, N = x.shape
    y, z = np.zeros((B, 1, N)), np.zeros((B, 1, N))
    for b in range(B):
        acc, tag = np.zeros((1, N)), np.zeros((1, N))
        n, j = b, 0  # LOOP_J's trip count; gear 2 while two iterations are left, then gear 1
        while j < n:
            k = 2 if n - j >= 2 else 1
            for t in range(k):
                s = x[b, j + t:j + t + 1]
                acc = r(s * 3.0, f) if j + t == 0 else r(r(acc * 0.5, f) + s, f)
                if j + t == n - 1:
                    acc, tag = r(acc - 1.0, f), r(tag + s, f)
            if j + k >= n:  # is_loop_end(j): this instance covers the last iteration
                tag = r(tag + float(k), f)
            j += k
        y[b], z[b] = acc, tag
    return {"y": y, "z": z}


@ref(dims={"B": 6})
def ctrl4_path_nested(i, d):
    seq, flag, x, f = i["seq_len"].astype(np.int64), i["flag"].astype(np.int64), i["x"], "fp32"
    B, _, N = x.shape
    y = np.zeros((B, 1, N))
    for b in range(B):
        acc, n = np.zeros((1, N)), int(seq[b])
        for ii in range(n):
            for j in range(1 + ii % 3):
                s = x[b, ii + j:ii + j + 1]
                acc = r(r(acc * 0.5, f) + s, f) if j == 0 else r(acc + r(s * 2.0, f), f)
                if ii == n - 1:
                    acc = r(acc - 1.0, f)
            if ii == n - 1 and flag[b] > 0:
                acc = r(acc * 3.0, f)
        y[b] = acc
    return {"y": y}


@ref(dims={"T": 37}, kinds={"p": "wide", "q": "wide", "qn": "wide", "x": "wide"})
def const4_split_k_int32(i, d):
    p, q = i["p"].astype(np.int64), i["q"].astype(np.int64)
    yb = np.maximum(p, 100) @ np.maximum(q, 100)
    assert yb.min() > 2 ** 24  # the sums fp32 partials could not hold exactly
    return {"yb": r(yb, "int32"), "yn": r(p @ i["qn"].astype(np.int64), "int32"),
            "yt": r(i["x"].astype(np.int64) @ q, "int32")}


@ref(dims={"T": 23})
def const4_lists_floats(i, d):
    x, f = i["x"], "fp32"
    eps = L(1e-6, f)
    ms = r(r(r(x * x, f).sum(-1, keepdims=True), f) * L(1.0 / 256, f), f)
    return {"s": r(np.sqrt(r(ms + eps, f)), f), "y": r(r(x * 0.5, f) - eps, f)}


# --- lang4: int64, rank-4 scatter, scatter_update with a device-computed index ---------------------
def _gather1(x, idx):
    # out[b, j] = x[b, idx[b, j]], 0 where the index is outside the axis.
    out = np.zeros(idx.shape)
    for b, j in np.ndindex(*idx.shape):
        k = int(idx[b, j])
        out[b, j] = x[b, k] if 0 <= k < x.shape[1] else 0.0
    return out


@ref(kinds={"w": "wide", "k": "small"})
def lang4_int64(i, d):
    w, f, k, x = i["w"], i["f"], i["k"], i["x"]
    return {"w32": cast(w, "int64", "int32"),
            "wsat": np.clip(w, -2.0 ** 31, 2.0 ** 31 - 1),
            "wf": r(w, "fp32"),
            "f64": cast(r(f * 1000, "fp32"), "fp32", "int64"),
            "k64": k.copy(),
            "wt": w.T.copy(),
            "wc": np.concatenate([w, w], 1),
            "fin": np.ones(w.shape),
            "g1": _gather1(x, i["gi"]),
            "g2": _gather1(x, np.abs(k)),
            "isel": x[:, i["sel"].astype(np.int64)]}


@ref(kinds={"n": "small", "n3": "small"})
def lang4_scatter_rank4(i, d):
    x = i["x"]
    return {"y0": _scatter_nd(i["z"], 0, i["i0"], i["s0"], None, "fp32"),
            "y1": _scatter_nd(x, 1, i["i1"], i["s1"], None, "fp32"),
            "y2": _scatter_nd(x, 2, i["i2"], i["s2"], "add", "fp32"),
            "y3": _scatter_nd(i["n"], 3, i["i3"], i["n3"], "add", "int32"),
            "ym": _scatter_nd(x, 2, i["i2"], i["s2"], "multiply", "fp32"),
            "yh": _scatter_nd(i["h"], 1, i["i1"], i["h1"], None, "fp16"),
            "yc": _scatter_nd(x, 3, i["i3"], 1.5, None, "fp32")}


@ref(dims={"T": 7})
def lang4_scatter_update_computed(i, d):
    # cache[slot] = row for the tokens in order; a slot outside [0, NB * BS) writes nothing.
    out = {k: i[k + "_in"].copy() for k in ("c32", "c64", "c16", "cw")}
    m = 16
    for t, s in enumerate(i["slots"].astype(np.int64)):
        for name, slot, row in (("c32", 3 * s - 2, r(i["x"][t] * 2, "fp32")), ("c64", s, i["x"][t]),
                                ("cw", 2 * s + 1, r(i["x"][t] + 1, "fp32")), ("c16", s + 1, i["rh"][t])):
            if not 0 <= slot < m:
                continue
            if name == "c16":
                out[name][slot // 4, slot % 4, 0] = row
            else:
                out[name][slot] = row
    return out


# --- lang5: comparisons that mean the first or last iteration (elaborate_loop_paths.cpp) ---------

@ref(dims={"B": 6, "T": 7})
def lang5_loop_position(i, d):
    x, w, f = i["x"], i["w"], "fp32"
    B, _, N = x.shape
    T = w.shape[0]
    y, z = np.zeros((B, 1, N)), np.zeros((B, 1, N))
    for b in range(B):
        acc, tag = np.ones((1, N)), np.zeros((1, N))
        for j in range(b):
            s = x[b, j:j + 1]
            acc = r(s * 2.0, f) if j == 0 else r(acc + s, f)
            if j == b - 1:
                acc, tag = r(acc * 0.5, f), r(tag + 100.0, f)
            if j + 1 == b and j == 0:
                tag = r(tag + 1.0, f)
            tag = r(tag + (10.0 if 0 < j < b - 1 else 1000.0), f)
        y[b], z[b] = acc, tag
    m, c, t = np.zeros((1, N)), np.zeros((1, N)), 0
    while t < T:  # gear 2 while two iterations are left, then gear 1
        k = 2 if T - t >= 2 else 1
        s = r(np.sum(w[t:t + k], axis=0, keepdims=True), f)
        m = r(m + s, f) if t != 0 else r(s * 3.0, f)
        if t == T - 1:
            c = r(c + 7.0, f)
        if t >= 1:
            c = r(c + float(k), f)
        t += k
    return {"y": y, "z": z, "u": m, "v": c}


@ref(dims={"T": 37}, kinds={"cls": "range:-2:12", "far": "wide"})
def lang5_consts_int64(i, d):
    p, q = i["p"].astype(np.int64), i["q"].astype(np.int64)
    qb = np.maximum(q, 100)
    yb = np.maximum(p, 100) @ qb
    assert yb.min() > 2 ** 24  # the sums fp32 partials could not hold exactly

    def one_hot(v, c):
        v = v.astype(np.int64)
        return (v[..., None] == np.arange(c)).astype(np.float64)
    return {"yb": r(yb, "int32"), "yt": r(i["x"].astype(np.int64) @ qb, "int32"),
            "oh": one_hot(i["cls"], 10), "of": one_hot(i["far"], 10)}


@ref(dims={"T": 23})
def lang5_nested_lists(i, d):
    x, f = i["x"], "fp32"
    y, t = np.zeros_like(x), 0
    T = x.shape[0]
    while t < T:  # gears 8, 4, 1: the largest that fits
        g = next(k for k in (8, 4, 1) if k <= T - t)
        row = {8: [8, 16], 4: [4, 32], 1: [1, 64]}[g]
        y[t:t + g] = r(r(x[t:t + g] * 4.0, f) + float(row[1]), f)
        t += g
    return {"y": y}


# --- structops5's references live in their own module, which registers them here -------------------
import refs_catalog5_struct  # noqa: E402,F401


# --- mathops5 ops --- (their references: refs_math5.py, registered into REFS on import)
import refs_math5  # noqa: E402,F401


# --- conv6 ops --- (their references: refs_conv6.py, registered into REFS on import)
import refs_conv6  # noqa: E402,F401
# --- portB6 ---
@ref(dims={"B": 9})
def port6b_run_scalars(i, d):
    # Each batch sums the rows [lo[b], lo[b] + len[b]) of x in blocks of 16; the sign says whether len > 20 and lo < 30.
    lo, ln, x = i["lo"].astype(np.int64), i["len"].astype(np.int64), i["x"]
    total = np.zeros((lo.shape[0], 1, x.shape[1]))
    for b in range(lo.shape[0]):
        acc = np.zeros((1, x.shape[1]))
        for j in range(-(-ln[b] // 16)):
            blk = x[lo[b] + j * 16:lo[b] + j * 16 + min(16, ln[b] - j * 16)]
            acc = r(acc + r(blk.sum(axis=0, keepdims=True), "fp32"), "fp32")
        total[b] = acc if (ln[b] > 20 and lo[b] < 30) else -acc
    return {"total": total}
# --- random6 ops --- (their references: refs_random6.py, registered into REFS on import)
import refs_random6  # noqa: E402,F401
# --- indexer7 --- topk over a split axis (refs_indexer7.py, registered into REFS on import)
import refs_indexer7  # noqa: E402,F401
# --- topk18 --- topk and argsort at PyPTO's sizes (refs_topk18.py, registered into REFS on import)
import refs_topk18  # noqa: E402,F401
# --- symbolic7 ---
@ref(dims={"B": 11})
def symbolic7_scalars(i, d):
    # Row b sums rows pos[b] .. pos[b] + n - 1 of `rows` (n = min(B - b, pos[b] % 4 + 1)) in fp32, adds 0.5
    # and x's row b, rounds to bf16.
    x, pos, rows = i["x"].astype(np.float64), i["pos"].astype(np.int64), i["rows"].astype(np.float64)
    bsz = x.shape[0]
    y = np.zeros_like(x)
    for b in range(bsz):
        acc = np.zeros((1, x.shape[1]))
        for j in range(min(bsz - b, pos[b] % 4 + 1)):
            acc = r(acc + rows[pos[b] + j:pos[b] + j + 1], "fp32")
        y[b] = r(r(r(acc + 0.5, "fp32") + x[b], "fp32"), "bf16")[0]
    return {"y": y}


@ref(kinds={"x": "positive", "h": "positive"})
def pow_exponents(i, d):
    x, h = i["x"].astype(np.float64), i["h"].astype(np.float64)
    return {"y2": r(x ** 2, "fp32"), "y3": r(x ** 3, "fp32"), "ym1": r(1 / x, "fp32"), "yh": r(np.sqrt(x), "fp32"),
            "h2": r(h ** 2, "fp16"), "hm1": r(1 / h, "fp16")}


# --- pack / unpack --- NumPy's .view(np.uint8) / .view(dtype) of the little-endian storage.
def _bytes(v, dt):
    if dt == "bf16":
        u = (np.asarray(v, np.float32).view(np.uint32) >> 16).astype("<u2")
        return u.reshape(-1).view(np.uint8)
    npt = {"fp32": "<f4", "fp16": "<f2", "int32": "<i4", "int8": "i1", "uint8": "u1", "int64": "<i8",
           "int16": "<i2"}[dt]
    return np.ascontiguousarray(np.asarray(v).astype(npt)).reshape(-1).view(np.uint8)


def _from_bytes(b, dt):
    b = np.ascontiguousarray(np.asarray(b).astype(np.uint8))
    if dt == "bf16":
        return (b.view("<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    npt = {"fp32": "<f4", "fp16": "<f2", "int32": "<i4", "int8": "i1", "uint8": "u1", "int64": "<i8",
           "int16": "<i2"}[dt]
    return b.view(npt).astype(np.float64)


@ref(kinds={"au": "wide", "a8": "wide", "raw": "wide", "al": "wide", "ai": "wide"})
def pack_unpack_dtypes(i, d):
    f = lambda b: b.astype(np.float64)
    out = {"p32": f(_bytes(i["a32"], "fp32")), "p16": f(_bytes(i["a16"], "fp16")), "pb": f(_bytes(i["ab"], "bf16")),
           "pi": f(_bytes(i["ai"], "int32")), "p8": f(_bytes(i["a8"], "int8")), "pu": f(_bytes(i["au"], "uint8")),
           "pl": f(_bytes(i["al"], "int64"))}
    raw = i["raw"]
    out.update(ui=_from_bytes(raw, "int32"), u8=_from_bytes(raw, "int8"), ul=_from_bytes(raw, "int64"),
               uu=_from_bytes(raw, "uint8"))
    out["r32"] = r(_from_bytes(_bytes(i["a32"], "fp32"), "fp32") * 2, "fp32")
    out["r16"] = _from_bytes(_bytes(i["a16"], "fp16"), "fp16")
    out["rb"] = _from_bytes(_bytes(i["ab"], "bf16"), "bf16")
    out["rl"] = _from_bytes(_bytes(i["al"], "int64"), "int64")
    out["flip"] = _from_bytes(_bytes(i["ai"], "int32") ^ 255, "int32")
    return out


@ref(kinds={"x": "wide"})
def pack_rank2(i, d):
    f = lambda b: b.astype(np.float64)
    hx = r(i["h"] + 1, "fp16")
    bz = _bytes(i["z"], "fp32")
    return {"px": f(_bytes(i["x"], "int32")), "ph": f(_bytes(hx, "fp16")), "pz": f(bz),
            "back": r(_from_bytes(_bytes(i["x"], "int32"), "int32") - 1, "int32"), "zi": _from_bytes(bz, "int32")}


# --- view(input, dtype=DT): NumPy's .view(dtype) row by row (little-endian), issue 13 ---
def _review(x, src, dst):
    """x (rows of src elements) read as dst: each row's bytes reinterpreted, the last axis scaled."""
    rows = x.shape[0]
    return _from_bytes(_bytes(x, src), dst).reshape(rows, -1)


@ref(kinds={"kv": "wide", "h16": "wide", "ai": "wide"})
def view_dtype(i, d):
    a32, ab, kv = i["a32"], i["ab"], i["kv"]
    a32f = np.asarray(a32, np.float32)
    out = {"a8": a32f.view("<i1").astype(np.float64), "a32i": a32f.view("<i4").astype(np.float64)}
    out["back"] = r(a32 * 2, "fp32")
    out["b16"] = _review(ab, "bf16", "int16")
    out["b8"] = _review(r(ab + 1, "bf16"), "bf16", "int8")
    out["hb"] = _review(i["h16"], "int16", "bf16")
    out["i2f"] = np.asarray(i["ai"]).astype("<i4").view("<f4").astype(np.float64)
    kv8 = np.asarray(kv).astype("i1")
    out["kvb"] = _review(kv8[:, 0:32], "int8", "bf16")
    out["kvf"] = np.ascontiguousarray(kv8[:, 32:40]).view("<f4").astype(np.float64)
    out["kvfi"] = np.ascontiguousarray(kv8[:, 32:40]).view("<i4").astype(np.float64)
    out["kvs"] = np.ascontiguousarray(kv8[:, 8:28]).view("<i4").astype(np.float64)
    out["blk"] = a32f.view("<i2").astype(np.float64)
    return out


@ref(dims={"M": 7}, kinds={"kv": "wide"})
def view_dtype_dyn(i, d):
    kv8 = np.asarray(i["kv"]).astype("i1")
    sc = np.asarray(i["sc"], np.float32)
    q = kv8.astype(np.float64)
    return {"q32": np.ascontiguousarray(kv8).view("<i4").astype(np.float64),
            "sbits": sc.view("<i4").astype(np.float64),
            "deq": r(q[:, 0:4] * sc[:, 0:1].astype(np.float64), "fp32")}


# --- concat(tensors, dim=0): PyPTO's default axis (issue 13) ---
@ref()
def concat_default_dim(i, d):
    a, b = i["a"], i["b"]
    return {"y": np.concatenate([a, b], 0), "z": np.concatenate([r(a * 2, "fp32"), a], 0),
            "w": np.concatenate([a, r(a + 1, "fp32")], -1)}


# --- var(input, dim=None, *, correction=1, keepdim=False), unbiased= (issue 13) ---
@ref()
def var_axes(i, d):
    x = i["x"]
    return {"a": np.var(x, axis=-1, keepdims=True, ddof=0), "b": np.var(x, axis=(1, 2), ddof=2),
            "c": np.var(x, ddof=1).reshape(1), "e": np.var(x, axis=(0, 2), keepdims=True, ddof=1),
            "u": np.var(x, axis=1, ddof=0)}


# --- pypto.loop(cond): a loop whose count is a condition (issue 13) ---
@ref(dims={"B": 5})
def loop_count_condition(i, d):
    x, flag = i["x"], i["flag"].astype(np.int64)
    B = x.shape[0]
    s = x[0].copy()
    if B > 3:
        s = r(x[0] * 0.5, "fp32")
    if B <= 3 or B > 9:  # LOOP_NEVER: false at the reference's B = 5
        s = r(x[0] * 100, "fp32")
    y = np.stack([r(np.exp(x[b]), "fp32") for b in range(B)])
    z = np.stack([r(x[b] + 3, "fp32") if (flag[b] > 1 and b % 2 == 0) else -x[b] for b in range(B)])
    return {"y": y, "z": z, "s": s}


# --- pypto.function -----------------------------------------------------------------------------

@ref(dims={"B": 21})
def function_block(i, d):
    f = "fp32"
    x, w = i["x"].astype(np.float64), i["w"].astype(np.float64)
    m = x.max(-1, keepdims=True)
    e = r(np.exp(r(x - m, f)), f)
    s = r(e.sum(-1, keepdims=True), f)
    p = r(r(e / s, f), "fp16")
    return {"y": r(r(p @ w, f) * 0.5, f), "lse": r(r(np.log(s), f) + m, f)}


# --- dtype16 ops: the integer catalogue ops on int16 / uint16 / uint32, bit for bit -------------------------

def _wrap(x, dt):
    """x (int64 or uint64 NumPy) wrapped into dt, as float64 for the comparison."""
    return np.asarray(x).astype(np.dtype(dt)).astype(np.float64)


def _shl(x, n, bits, dt):  # a count outside [0, width) gives 0 (NumPy's rule, specs/README.md)
    n = np.broadcast_to(np.asarray(n, np.int64), np.shape(x))
    out = np.where((n >= 0) & (n < bits), (np.asarray(x, np.int64) << np.clip(n, 0, 63)) & ((1 << bits) - 1), 0)
    return _wrap(out.astype(np.uint64), "uint%d" % bits).astype(np.dtype("uint%d" % bits)).astype(np.dtype(dt)).astype(np.float64)


def _shr(x, n, bits, dt):  # arithmetic for signed types; a count past the width gives the sign fill
    x = np.asarray(x, np.int64)
    return _wrap(x >> np.minimum(np.asarray(n, np.int64), 63), dt)


@ref(kinds={"a": "wide", "b": "small", "s": "range:0:18", "ua": "wide", "ub": "small", "wa": "wide", "wb": "wide"})
def dtype16_ops(i, d):
    a, b, s = (i[k].astype(np.int64) for k in ("a", "b", "s"))
    ua, ub, wa, wb = (i[k].astype(np.int64) for k in ("ua", "ub", "wa", "wb"))
    safe = np.where(b == 0, 1, b)
    usafe = np.where(ub == 0, 1, ub)
    stream = np.stack([a, b], -1).reshape(a.shape[0], -1)
    return {
        "shl16": _shl(a, 3, 16, "int16"), "shr16": _shr(a, 2, 16, "int16"), "shlv16": _shl(b, s, 16, "int16"),
        "gcd16": _wrap(np.gcd(a, b), "int16"), "rem16": _wrap(np.where(b == 0, 0, np.remainder(a, safe)), "int16"),
        "fdiv16": _wrap(np.floor_divide(a, 3), "int16"), "sign16": (a < 0).astype(np.float64),
        "not16": _wrap(~a, "int16"), "ones16": _wrap(a + 1, "int16"), "zeros16": _wrap(a, "int16"),
        "shl_u16": _shl(ua, 4, 16, "uint16"), "shr_u16": _shr(ua, 1, 16, "uint16"),
        "gcd_u16": _wrap(np.gcd(ua, ub), "uint16"),
        "rem_u16": _wrap(np.where(ub == 0, 0, np.remainder(ua, usafe)), "uint16"),
        "shl32": _shl(wa, 20, 32, "uint32"), "shr32": _shr(wa, 3, 32, "uint32"), "and32": _wrap(wa & wb, "uint32"),
        "il0": _wrap(stream[:, :16], "int16"), "il1": _wrap(stream[:, 16:], "int16"),
        "dl0": _wrap(ua[:, 0::2], "uint16"), "dl1": _wrap(ua[:, 1::2], "uint16"),
        "gm32": _wrap(wa[:, 1::2], "uint32"), "gm16": _wrap(b[:, 2::4], "int16"),
    }


# --- dict constants: PyPTO's parameter dicts read by key -------------------------------------------------------

@ref(dims={"B": 21})
def dict_constants(i, d):
    f = "fp32"
    x = i["x"].astype(np.float64)
    t = r(r(x * r(1 / 2048.0 * 4, f), f) + 2048, f)
    return {"y": r(np.maximum(t, r(x * -0.5, f)), f)}


# --- precision_type: PyPTO's PrecisionType on the math ops (both modes one result) -------------------------

@ref(dims={"B": 21})
def precision_type_ops(i, d):
    f = "fp32"
    x = i["x"].astype(np.float64)
    xb = r(np.abs(x) + 1, f)
    e = r(np.exp(r(x * 0.5, f)), f)
    s = r(r(np.sqrt(xb), f) + r(1 / r(np.sqrt(xb), f), f), f)
    lg = r(r(np.log(xb), f) * r(1 / r(xb + 1, f), f), f)
    y = r(r(r(r(r(e + s, f) + lg, f) + r(np.power(xb, 1.5), f), f) + r(np.log10(xb), f), f) - r(np.log2(xb), f), f)
    z = r(np.exp(r(i["h"].astype(np.float64) * -0.25, "fp16")), "fp16")
    return {"y": y, "z": z}


# --- the 8-bit floats (fp8e4m3 fp8e5m2 fp8e8m0): casts bit for bit ---------------------------------------------

@ref(kinds={"x": "fp8edges", "xh": "fp8edges", "xb": "fp8edges"})
def cast_fp8(i, d):
    x, xh, xb = i["x"], i["xh"], i["xb"]
    return {
        "e4": r(x, "fp8e4m3"), "e5": r(x, "fp8e5m2"), "h4": r(xh, "fp8e4m3"), "h5": r(xh, "fp8e5m2"),
        "b4": r(xb, "fp8e4m3"), "rt4": r(r(x, "fp8e4m3"), "fp32"),
        "up4": r(i["c4"], "fp32"), "up4h": r(i["c4"], "fp16"), "up5": r(i["c5"], "fp32"),
        "up5b": r(i["c5"], "bf16"), "up8": r(i["c8"], "fp32"),
    }
