"""A NumPy Philox 4x32-10 and PyPTO's uniform / normal built on it, for the random6 tests.

Written from the published algorithm (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as
1, 2, 3", SC'11): per round, (hi0, lo0) = 0xD2511F53 * x0 and (hi1, lo1) = 0xCD9E8D57 * x2 as 64-bit
products, x = (hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0), then the Weyl key bump k += (0x9E3779B9,
0xBB67AE85); ten rounds. PyPTO's layout (its golden, TensorFlow's): key words (key lo, key hi), counter
words (block lo, block hi, counter[1] lo, counter[1] hi) with counter[0] fixed to 0 and block = flat
index // 4; the element is word index % 4 of its block.
"""
import math

import numpy as np

M32 = np.uint64(0xFFFFFFFF)


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Vectorised over uint64 arrays holding 32-bit words; returns the four output words."""
    c = [np.asarray(x, np.uint64) & M32 for x in (c0, c1, c2, c3)]
    k0, k1 = int(k0) & 0xFFFFFFFF, int(k1) & 0xFFFFFFFF
    for _ in range(10):
        p0 = c[0] * np.uint64(0xD2511F53)
        p1 = c[2] * np.uint64(0xCD9E8D57)
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & M32, (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1), p0 & M32]
        k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
        k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c


def words(n, key, counter1):
    """The 32-bit word of each flat index 0..n-1 (uint64 array), and the block's four words."""
    idx = np.arange(n, dtype=np.uint64)
    blk = idx // np.uint64(4)
    w = philox4x32_10(blk & M32, blk >> np.uint64(32), np.full(n, counter1 & 0xFFFFFFFF, np.uint64),
                      np.full(n, counter1 >> 32, np.uint64), key & 0xFFFFFFFF, key >> 32)
    return idx, np.stack(w)


def unit(w, bits):
    """[0, 1) as PyPTO makes it: the low `bits` mantissa bits under exponent 0, minus 1 (exact)."""
    m = (w & np.uint64((1 << bits) - 1)).astype(np.float64)
    return (m / float(1 << bits)).astype(np.float32)


def uniform(shape, key, counter1, dtype):
    """float64 values of PyPTO's uniform (exact in dtype)."""
    n = int(np.prod(shape))
    idx, w = words(n, key, counter1)
    mine = w[(idx % np.uint64(4)).astype(np.int64), np.arange(n)]
    bits = {"fp32": 23, "fp16": 10, "bf16": 7}[dtype]
    return unit(mine, bits).astype(np.float64).reshape(shape)


def normal(shape, key, counter1):
    """fp32 values (as float64) of PyPTO's normal: Box-Muller in fp32 steps on the block's word pairs;
    log / sqrt / sin / cos correctly rounded to fp32 from glibc's double (Python's math module)."""
    n = int(np.prod(shape))
    idx, w = words(n, key, counter1)
    j = (idx % np.uint64(4)).astype(np.int64)
    p = j & ~1
    cols = np.arange(n)
    u1 = np.maximum(unit(w[p, cols], 23), np.float32(1e-7))
    v = unit(w[p + 1, cols], 23) * np.float32(2.0 * math.pi)
    lg = np.array([math.log(float(x)) for x in u1], np.float64).astype(np.float32) * np.float32(-2.0)
    r = np.sqrt(lg.astype(np.float64)).astype(np.float32)
    t = np.array([math.cos(float(x)) if k & 1 else math.sin(float(x)) for x, k in zip(v, j)], np.float64)
    return (t.astype(np.float32) * r).astype(np.float64).reshape(shape)
