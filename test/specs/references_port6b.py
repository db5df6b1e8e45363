"""portB6: NumPy references of the PyPTO model ports of this round (registered by references.py).

Each one is written from the golden of the PyPTO test next to the model (models/...), not from the spec:
one fp32 rounding per torch op of the golden, bf16 where the golden casts."""
import numpy as np

from dtypes import rnd


def f32(x):
    return rnd(x, "fp32")


# --- DeepSeek-V4 sliding-window attention (models/deepseek_v4/test_win_attention.py, win_atten_calc_tnd) ----

WIN_ATTENTION_BATCHES = [  # (query tokens, KV length): groups of 4 whose windows span 3, 2 and 1 pages
    (5, 386),   # group 0: positions 254..384 (pages 1-3); group 1 (a tail of 1): 258..385 (pages 2-3)
    (1, 256),   # one query whose window is exactly page 1
    (2, 300),   # PyPTO's test has 2 queries a batch: 171..299 (pages 1-2)
]


def win_attention_mask(s_q=4, n_q=64, block_size=128):
    """PyPTO's get_mask(4, 64, 128): [s_q * n_q, 512] bool, row r of a group sees columns 128 + [r, r + 128)."""
    rows = np.arange(s_q)[:, None]
    cols = np.arange(block_size * 2)[None, :]
    right = (cols >= rows) & (cols < rows + 128)
    right = np.repeat(right[:, None, :], n_q, axis=1).reshape(s_q * n_q, 256)
    z = np.zeros((s_q * n_q, 128), bool)
    return np.concatenate([z, right, z], -1).astype(np.float64)


def win_attention_inputs(rng, d, batches=None):
    """PyPTO's gen_win_attn_data_tnd: a random permutation of the pages, -1 past a batch's last page. The sinks
    are drawn from [2, 6] (PyPTO's test: [-1, 1]) so that exp(sink) weighs as much as the 128 window scores and a
    wrong sink term shows in the bf16 comparison."""
    batches = batches or WIN_ATTENTION_BATCHES
    pages = [-(-kv // 128) for _, kv in batches]
    perm = rng.permutation(sum(pages))
    table = -np.ones((len(batches), d["MAXBLK"]))
    k = 0
    for b, n in enumerate(pages):
        table[b, :n] = perm[k:k + n]
        k += n
    cu = np.concatenate([[0], np.cumsum([s for s, _ in batches])])
    return {"block_table": table, "seqused_kv_list": np.array([kv for _, kv in batches], np.float64),
            "cu_seqlens_q": cu.astype(np.float64), "mask2": win_attention_mask(4, d["NQ"], 128),
            "sinks": rnd(rng.uniform(2, 6, d["NQ"]), "fp32"),
            "q_tnd": rnd(rng.uniform(-1, 1, (int(cu[-1]), d["NQ"], d["D"])), "bf16"),
            "kv_cache": rnd(rng.uniform(-1, 1, (sum(pages), 128, 1, d["D"])), "bf16")}


def ref_win_attention(i, d):
    q, kv, bt = i["q_tnd"], i["kv_cache"], i["block_table"].astype(np.int64)
    cu, seq, sinks = i["cu_seqlens_q"].astype(np.int64), i["seqused_kv_list"].astype(np.int64), i["sinks"]
    n_q, d_q = q.shape[1], q.shape[2]
    scalar = d_q ** -0.5
    win, block_size = 128, kv.shape[1]
    out = np.zeros((q.shape[0], n_q, kv.shape[3]))
    for b in range(len(seq)):
        cur_s_q = cu[b + 1] - cu[b]
        for s1 in range(cur_s_q):
            t = cu[b] + s1
            cur_loc = seq[b] - cur_s_q + s1 + 1
            valid_len = min(cur_loc, win)
            start = cur_loc - valid_len
            start_block, start_offset, end_block = start // block_size, start % block_size, (cur_loc - 1) // block_size
            kv_cur = np.concatenate([kv[bt[b, j], :, 0, :] for j in range(start_block, end_block + 1)], 0)
            kv_cur = kv_cur[start_offset:start_offset + valid_len]
            acc = f32(q[t] @ kv_cur.T)
            acc = f32(acc * f32(scalar))
            m = acc.max(-1, keepdims=True)
            acc = f32(np.exp(f32(acc - m)))
            s = f32(f32(acc.sum(-1, keepdims=True)) + f32(np.exp(f32(sinks.reshape(n_q, 1) - m))))
            p = rnd(f32(acc / s), "bf16")
            out[t] = rnd(p @ kv_cur, "bf16")
    return {"atten_out": out.reshape(q.shape[0] * n_q, kv.shape[3])}
