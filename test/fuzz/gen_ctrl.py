"""The fuzzer's hook for run-time control flow inside a loop whose trip count is a run-time value
(specs/README.md "Run-time conditions", "Local tensors"): per-row lengths bound a loop over blocks of a paged
pool; its body may take an is_loop_end branch that rebinds values (fillpad on the last, partial block), declare
local tensors (one tiled by whole pieces, which the compiler keeps on chip, one partly written under a cond on
the block index, which stays in GM and must read zero where an iteration did not write), branch on a run-time
value (flag[b]), write an output under is_loop_begin, and run in unroll gears of 2 (a static loop over the
gear's blocks, `is_loop_end(j) and t == k - 1`). gen.py draws it for one seed in 16 from this file's own random
stream; the NumPy reference is written here."""
import random

import numpy as np

import model as M


def make_class(Program):
    """The program class, built on gen.Program (passed in: gen.py imports this file)."""
    class Ctrl(Program):
        def __init__(self, seed, cfg, **kw):
            super().__init__(seed, **kw)
            self.cfg = cfg

        def block_body(self, jj, last, first):
            c, R, dt = self.cfg, self.cfg["R"], self.cfg["dtype"]
            s = [f"blk = view(pool, [{R}, D], [block_table[b, {jj}] * {R}, 0], "
                 f"valid=[min({R}, seq_len[b] - ({jj}) * {R}), D])",
                 "w = blk * 0.5"]
            if c["use_end"]:
                s.append({"if": last,
                          "then": [f"pad = fillpad(blk, value={c['fill']})", "w = pad * 0.25",
                                   "acc = acc + sum(pad, 0, keepdim=true)"],
                          "else": ["acc = acc + sum(blk, 0, keepdim=true)"]})
            else:
                s.append("acc = acc + sum(blk, 0, keepdim=true)")
            s.append("acc = acc + sum(w, 0, keepdim=true) * 0.125")
            if c["use_local"]:
                s += [f"t2 = tensor([{R}, 2 * D], {dt})", "t2[:, 0:D] = w", "t2[:, D:] = w * -1.0", "tw = t2 * 2.0",
                      "acc = acc + sum(tw[:, 0:D], 0, keepdim=true) * 0.0625"]
                if c["use_begin"]:
                    s.append({"if": first, "then": ["first[b, :, :] = tw"]})
            s += [f"part = tensor([2, D], {dt})", "part[0:1, :] = sum(w, 0, keepdim=true)",
                  {"cond": f"({jj}) % 2 == 1", "then": [f"part[1:2, :] = full([1, D], 3.0, {dt})"]}]
            if c["use_flag"]:
                s.append({"cond": "flag[b] > 0", "then": ["two = two + part"], "else": ["two = two - part * 0.5"]})
            else:
                s.append("two = two + part")
            return s

        def doc(self):
            d = super().doc()
            c, R, dt = self.cfg, self.cfg["R"], self.cfg["dtype"]
            carry = {"acc": f"full([1, D], 0, {dt})", "two": f"full([2, D], 0, {dt})"}
            loop = {"var": "j", "count": f"ceil_div(seq_len[b], {R})", "name": "LOOP_BLK", "carry": carry}
            if c["unroll"]:
                loop.update({"unroll": [2], "factor": "k"})
                body = [{"loop": {"var": "t", "count": "k", "kind": "static", "carry": {"acc": "acc", "two": "two"}},
                         "body": self.block_body("j + t", "is_loop_end(j) and t == k - 1",
                                                 "is_loop_begin(j) and t == 0")}]
            else:
                body = self.block_body("j", "is_loop_end(j)", "is_loop_begin(j)")
            d["body"] = [{"vec_tile": [R, min(64, self.dimval["D"])]},
                         {"loop": {"var": "b", "count": "B", "name": "LOOP_B"},
                          "body": [{"loop": loop, "body": body}, "total[b, :, :] = acc", "rows[b, :, :] = two"]}]
            return d

        def expected(self, inputs):
            c, R, dt = self.cfg, self.cfg["R"], self.cfg["dtype"]
            rnd = M.rnd
            seq, flag, bt = (inputs[n].astype(np.int64) for n in ("seq_len", "flag", "block_table"))
            pool = inputs["pool"]
            B, D = seq.shape[0], pool.shape[1]
            out = {"total": np.zeros((B, 1, D)), "rows": np.zeros((B, 2, D))}
            if c["use_local"] and c["use_begin"]:
                out["first"] = np.zeros((B, R, 2 * D))
            for b in range(B):
                acc, two = np.zeros((1, D)), np.zeros((2, D))
                n = -(-seq[b] // R)
                for j in range(n):
                    v = min(R, seq[b] - j * R)
                    blk = pool[bt[b, j] * R:bt[b, j] * R + v]
                    if c["use_end"] and j == n - 1:
                        pad = np.concatenate([blk, np.full((R - v, D), rnd(c["fill"], dt))])
                        w = rnd(pad * 0.25, dt)
                        acc = rnd(acc + rnd(pad.sum(axis=0, keepdims=True), dt), dt)
                    else:
                        w = rnd(blk * 0.5, dt)
                        acc = rnd(acc + rnd(blk.sum(axis=0, keepdims=True), dt), dt)
                    acc = rnd(acc + rnd(rnd(w.sum(axis=0, keepdims=True), dt) * 0.125, dt), dt)
                    if c["use_local"]:
                        wf = np.zeros((R, D))  # a partial w leaves the tensor's other rows zero
                        wf[:w.shape[0]] = w
                        tw = rnd(np.concatenate([wf, rnd(wf * -1.0, dt)], axis=1) * 2.0, dt)
                        acc = rnd(acc + rnd(rnd(tw[:, :D].sum(axis=0, keepdims=True), dt) * 0.0625, dt), dt)
                        if c["use_begin"] and j == 0:
                            out["first"][b] = tw
                    part = np.zeros((2, D))
                    part[0] = rnd(w.sum(axis=0), dt)
                    if j % 2 == 1:
                        part[1] = 3.0
                    if c["use_flag"] and flag[b] <= 0:
                        two = rnd(two - rnd(part * 0.5, dt), dt)
                    else:
                        two = rnd(two + part, dt)
                out["total"][b], out["rows"][b] = acc, two
            return out

    return Ctrl


def ctrl_program(seed, Program):
    """One random program of this family (own stream: random.Random(f"ctrl{seed}"))."""
    r = random.Random(f"ctrl{seed}")
    R, MAXB = r.choice([4, 8, 16]), r.choice([1, 2, 3, 4])
    D, B = r.choice([16, 32, 64]), r.randint(1, 6)
    NB = r.randint(MAXB, 3 * MAXB + 2)
    cfg = {"R": R, "dtype": r.choice(["fp32", "fp32", "fp16"]), "use_end": r.random() < 0.7,
           "use_local": r.random() < 0.7, "use_begin": r.random() < 0.6, "use_flag": r.random() < 0.5,
           "unroll": r.random() < 0.35, "fill": r.choice([0.0, 1.0, -2.0])}
    hi = R * MAXB
    lo = r.choice([0, 1])
    dt = cfg["dtype"]
    dims = {"B": {"dynamic": True, "max": 16}, "NB": NB, "MAXB": MAXB, "D": D}
    inputs = {"seq_len": {"dtype": "int32", "shape": ["B"], "values": [lo, hi]},
              "flag": {"dtype": "int32", "shape": ["B"], "values": [0, 2]},
              "block_table": {"dtype": "int32", "shape": ["B", "MAXB"], "values": [0, NB - 1]},
              "pool": {"dtype": dt, "shape": [f"NB * {R}", "D"]}}
    kinds = {"seq_len": f"range:{lo}:{hi}", "flag": "range:0:2", "block_table": f"range:0:{NB - 1}"}
    outputs = {"total": {"dtype": dt, "shape": ["B", 1, "D"]}, "rows": {"dtype": dt, "shape": ["B", 2, "D"]}}
    if cfg["use_local"] and cfg["use_begin"]:
        outputs["first"] = {"dtype": dt, "shape": ["B", R, "2 * D"]}
    return make_class(Program)(seed, cfg, name=f"fuzz_ctrl_{seed}", dims=dims,
                               dimval={"B": B, "NB": NB, "MAXB": MAXB, "D": D}, inputs=inputs, outputs=outputs,
                               tensors={}, options={}, body=[], kinds=kinds)
