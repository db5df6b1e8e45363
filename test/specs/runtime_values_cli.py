"""Run-time values through the CLI (specs/README.md "Run-time values"): an index read from a block
table outside its tensor stops ptorun and ptoc eval with the located message and exit 1, a negative
page is caught by the window check before any memory is touched, an input the control flow reads
that is neither given nor declared with values: is a usage error (exit 2), and a --timing-only run
draws the generated values exactly as a run with numbers does (same root instances, same time);
index_select's index past its table stops ptorun and ptoc eval before any row is read.

    runtime_values_cli.py PTOC PTORUN
"""
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "..", "conformance", "specs", "runtime_values_paged.yaml")


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-rtvalues-")
    bundle = os.path.join(work, "rv.bundle")
    rc, _, err = run([ptoc, SPEC, "-o", bundle])
    expect(rc == 0, "compile", err)

    def save(name, arr):
        path = os.path.join(work, name + ".npy")
        np.save(path, np.array(arr, np.int32))
        return path

    seq = save("seq", [20, 64, 40])
    seq_long = save("seq_long", [20, 64, 80])         # 5 blocks in a 4-entry row
    bt = save("bt", [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
    bt_neg = save("bt_neg", [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, -1, 11]])
    spec_pos = os.path.abspath(SPEC)

    rc, out, err = run([ptorun, bundle, "--input", "seq_len=" + seq, "--input", "block_table=" + bt, "--check"])
    expect(rc == 0 and re.search(r"check total\s+ok", out), "given lengths and table: --check passes", out + err)

    want = ("runtime_values_paged.yaml:25:41: run-time value block_table[b, j]: index 4 on axis 1 of tensor "
            "'block_table' is outside its bound 4 (at b=2, j=4)")
    for mode in ([], ["--timing-only"], ["--runtime-debug-mode", "4"]):
        rc, out, err = run([ptorun, bundle, "--input", "seq_len=" + seq_long, "--input", "block_table=" + bt] + mode)
        expect(rc == 1 and want in err and err.count("\n") == 1, f"ptorun {' '.join(mode)}: index outside the table", err)
    rc, out, err = run([ptoc, "eval", SPEC, "--input", "seq_len=" + seq_long, "--input", "block_table=" + bt,
                        "--output", "total=" + os.path.join(work, "o.npy")])
    expect(rc == 1 and want in err, "ptoc eval: the same index, the same message", err)

    rc, out, err = run([ptorun, bundle, "--input", "seq_len=" + seq, "--input", "block_table=" + bt_neg])
    expect(rc == 1 and "window starts before the start of 'pool': axis 0 offset -16 extent 16" in err
           and "b=2, j=2" in err, "a negative page: refused by the window check", err)

    # Generated inputs: the range of values:, the same in a timing-only run as with numbers.
    def instances(extra):
        rc, out, err = run([ptorun, bundle, "--dim", "B=6"] + extra)
        m = re.search(r"\((\d+) root-function instances\).*end-to-end ([0-9.]+) us", out)
        expect(rc == 0 and m, "run " + " ".join(extra), out + err)
        return m.group(1), m.group(2)

    num, tim = instances(["--check"]), instances(["--timing-only"])
    expect(num == tim, f"timing-only sees the numerics run's trip counts ({num} vs {tim})")

    # Without values: an input the control flow reads must be given.
    with open(SPEC) as f:
        text = f.read()
    bare = os.path.join(work, "bare.yaml")
    with open(bare, "w") as f:
        f.write(text.replace("shape: [B], values: [0, 64]}", "shape: [B]}"))
    bare_bundle = os.path.join(work, "bare.bundle")
    rc, _, err = run([ptoc, bare, "-o", bare_bundle])
    expect(rc == 0, "compile without values:", err)
    rc, out, err = run([ptorun, bare_bundle, "--dim", "B=3", "--timing-only"])
    expect(rc == 2 and "input 'seq_len' holds run-time values the control flow reads: give it with --input "
           "seq_len=FILE.npy, or declare 'values: [lo, hi]' for it in the spec" in err, "no values: and no --input", err)
    # A run-time value indexed by another (a page permutation through the block table): read in order.
    nested = os.path.join(work, "nested.yaml")
    with open(nested, "w") as f:
        f.write(text.replace("block_table[b, j] * 16", "perm[block_table[b, j]] * 16")
                .replace("  pool: {dtype: fp32", "  perm: {dtype: int32, shape: [NB], values: [0, 11]}\n  pool: {dtype: fp32")
                .replace("name: runtime_values_paged", "name: rv_nested"))
    rc, out, err = run([ptoc, nested, "--emit", "ir"])
    expect(rc == 0 and "reads perm__2 = perm[block_table__1]" in out, "a nested run-time value", out + err)
    nb = os.path.join(work, "nested.bundle")
    rc, out, err = run([ptoc, nested, "-o", nb])
    rc2, out2, err2 = run([ptorun, nb, "--dim", "B=6", "--check"])
    expect(rc == 0 and rc2 == 0 and re.search(r"check total\s+ok", out2), "nested: ptorun --check", err + out2 + err2)

    # index_select: an index outside the table stops both, before any row is read.
    isel = os.path.join(HERE, "..", "conformance", "specs", "index_select_rows.yaml")
    isb = os.path.join(work, "is.bundle")
    rc, _, err = run([ptoc, isel, "-o", isb])
    expect(rc == 0, "compile index_select_rows", err)
    ids = np.arange(24, dtype=np.int32).reshape(2, 12)
    ids[1, 5] = 100
    big = save("ids_big", ids)
    rc, out, err = run([ptorun, isb, "--input", "ids=" + big])
    expect(rc == 1 and "index_select_rows.yaml:19:14: out-of-bounds read of tensor 'table': axis 0 offset 100 extent 1 "
           "spans [100, 101) but the bound is 100" in err and "check the run-time values read from 'ids'" in err,
           "ptorun: index_select index past the table", err)
    rc, out, err = run([ptoc, "eval", isel, "--input", "ids=" + big, "--output", "rows=" + os.path.join(work, "r.npy"),
                        "--output", "rowsum=" + os.path.join(work, "s.npy")])
    expect(rc == 1 and "the window [100, 101) on axis 0 of 'table' is outside its extent 100: its offset is computed "
           "from the run-time value ids[b, 5] (at b=1)" in err, "ptoc eval: index_select index past the table", err)
    print("ok")


if __name__ == "__main__":
    main()
