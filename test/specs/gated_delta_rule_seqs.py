#!/usr/bin/env python3
"""The gated delta rule (specs/gated_delta_rule.yaml) over several sequence layouts, one bundle.

The bundle does not depend on T or B, so it is compiled once (1 query/key head, 2 value heads) and run
by `ptorun --check` on each layout of act_seq_len. ptorun compares every output with its own evaluator;
this script compares them with the NumPy token recurrence of test/specs/references.py as well. The
layouts cover: an empty sequence, sequences shorter than one 16-row diagonal block, a chunk plus one
token, a gear of 16 chunks plus a tail, and two gears. One run uses --runtime-debug-mode 3 and must
report every overlapping pair ordered (the fillpad slots are reused by consecutive chunk instances).

usage: gated_delta_rule_seqs.py PTOC PTORUN
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import references as R  # noqa: E402
from dtypes import compare  # noqa: E402

LAYOUTS = [
    [0, 128],            # an empty sequence, then exactly one chunk
    [5, 1, 16, 17],      # shorter than a diagonal block; one block; one block + 1
    [129, 0, 255],       # a chunk + 1 token; empty; two chunks - 1 token
    [2049, 40],          # a gear of 16 chunks + 1 token; a short one
    [4096 + 77],         # two gears of 16 and a tail
]


def main():
    ptoc, ptorun = (os.path.abspath(p) for p in sys.argv[1:3])
    with open(os.path.join(HERE, "..", "..", "specs", "gated_delta_rule.yaml")) as f:
        doc = yaml.safe_load(f)
    doc["dims"]["NQK"], doc["dims"]["NV"] = 1, 2
    work = tempfile.mkdtemp(prefix="ptoc-gdr-seqs-")
    spec, bundle = os.path.join(work, "gdr.yaml"), os.path.join(work, "gdr.bundle")
    with open(spec, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False, width=1000)
    subprocess.run([ptoc, spec, "-o", bundle], check=True)
    failures = []
    for n, seqs in enumerate(LAYOUTS):
        d = {"T": sum(seqs), "B": len(seqs), "NQK": 1, "NV": 2, "D": 128, "L": 128}
        rng = np.random.default_rng(100 + n)
        inputs = R.gated_delta_rule_inputs(rng, d, seqs)
        T = d["T"]
        inputs["query"] = rng.standard_normal((T, 1, 128))
        inputs["key"] = rng.standard_normal((T, 1, 128))
        inputs["value"] = rng.standard_normal((T, 2, 128))
        args = []
        for name, vals in inputs.items():
            path = os.path.join(work, f"in_{name}.npy")
            np.save(path, vals.astype(np.int32 if name == "act_seq_len" else np.float32))
            args += ["--input", f"{name}={path}"]
        outs = {o: os.path.join(work, f"out_{o}.npy") for o in ("core_attn_out", "last_state_data")}
        for o, p in outs.items():
            args += ["--output", f"{o}={p}"]
        mode = ["--runtime-debug-mode", "3"] if n == 2 else []
        r = subprocess.run([ptorun, bundle, "--check", *args, *mode], capture_output=True, text=True, cwd=work)
        print(f"== sequences {seqs}: ptorun exit {r.returncode}")
        print("\n".join(l for l in (r.stdout + r.stderr).splitlines() if l.startswith(("check", "dependency", "ptorun:"))))
        if r.returncode != 0:
            failures.append(f"{seqs}: ptorun --check exited {r.returncode}")
            continue
        if mode and "all ordered" not in r.stdout + r.stderr:
            failures.append(f"{seqs}: mode 3 did not report every pair ordered")
        want = R.ref_gated_delta_rule(inputs, d)
        for o, p in outs.items():
            ok, msg = compare(np.load(p), want[o], "fp32")
            print(f"{'ok  ' if ok else 'FAIL'} NumPy {o}: {msg}")
            if not ok:
                failures.append(f"{seqs}: {o} differs from the NumPy reference")
    if failures:
        print("\n".join(failures))
        print(f"files kept in {work}")
        sys.exit(1)
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
