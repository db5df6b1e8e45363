#!/usr/bin/env python3
"""Buffer-planner regressions (meson suite `regress_bufplan`).

  run_bufplan.py run PTOC PTORUN SPEC    `ptoc SPEC -o BUNDLE` must succeed (PyPTO's own tile choices
                                         fit UB), then `ptorun BUNDLE --check` on seeded inputs must pass
                                         and every output must match the NumPy reference in
                                         refs_bufplan.py
  run_bufplan.py overflow PTOC SPEC      `ptoc SPEC -o B` fails with exactly one "does not fit" error (not one
                                         per tile instance) at the `# expect-at: LINE:COL` position, which
                                         names every buffer its `# expect-buffer:` lines list, whose bytes
                                         (with alignment padding) add up to the total it states, and whose
                                         excess over the capacity is the difference; plus the
                                         `# expect-hint:` text
"""
import os
import re
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from numerics import compare, NPY  # noqa: E402
from refs_bufplan import REFS  # noqa: E402


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    sys.stdout.write(p.stdout + p.stderr)
    return p


def run_spec(ptoc, ptorun, spec):
    with open(spec) as f:
        doc = yaml.safe_load(f)
    name = doc["name"]
    gen, ref = REFS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs = gen(rng)
    with tempfile.TemporaryDirectory() as d:
        args = []
        for t, ty in doc["inputs"].items():
            path = os.path.join(d, f"in_{t}.npy")
            np.save(path, inputs[t].astype(NPY[ty["dtype"]]))
            args += ["--input", f"{t}={path}"]
        outs = {o: os.path.join(d, f"out_{o}.npy") for o in doc["outputs"]}
        for o, path in outs.items():
            args += ["--output", f"{o}={path}"]
        bundle = os.path.join(d, name + ".bundle")
        p = run([ptoc, spec, "-o", bundle])
        if p.returncode != 0:
            fail(f"ptoc exited {p.returncode}: the tile choice does not fit")
        p = run([ptorun, bundle, "--check", *args])
        if p.returncode != 0:
            fail(f"ptorun --check exited {p.returncode}")
        if " ok " not in p.stdout + p.stderr:
            fail("ptorun --check compared no output")
        want = ref(inputs)
        bad = []
        for o, ty in doc["outputs"].items():
            got = np.load(outs[o])
            ok, msg = compare(got, want[o], ty["dtype"])
            print(f"{'ok  ' if ok else 'FAIL'} ptorun {o} vs NumPy: {msg}")
            if not ok:
                bad.append(o)
        if bad:
            fail("outputs differ from NumPy: " + ", ".join(bad))
    print("PASS")


def overflow(ptoc, spec):
    text = open(spec).read()
    at = re.search(r"# expect-at: (\d+):(\d+)", text).groups()
    buffers = re.findall(r"# expect-buffer: (.+)", text)
    hints = re.findall(r"# expect-hint: (.+)", text)
    with tempfile.TemporaryDirectory() as d:
        p = run([ptoc, spec, "-o", os.path.join(d, "op.bundle")])
    if p.returncode != 1:
        fail(f"ptoc exited {p.returncode}, expected 1")
    errs = [l for l in p.stderr.splitlines() if ": error: " in l]
    if len(errs) != 1:
        fail(f"{len(errs)} errors, expected exactly one overflow error")
    e = errs[0]
    if f"{os.path.basename(spec)}:{at[0]}:{at[1]}: error: " not in e or "does not fit" not in e:
        fail(f"not an overflow error at {at[0]}:{at[1]}: {e}")
    m = re.search(r"the (\d+) buffers? live at this op needs? (\d+) bytes, \S+ has (\d+) \((\d+) too many\): (.*)$", e)
    if not m:
        fail("no live-buffer list in: " + e)
    count, total, cap, over, listed = int(m[1]), int(m[2]), int(m[3]), int(m[4]), m[5]
    items = listed.split("; ")
    if len(items) != count:
        fail(f"{count} buffers announced, {len(items)} listed")
    s = 0
    for it in items:
        nums = re.match(r".* (\d+)(?: \+ (\d+) alignment padding)?(?: \(.*\))?$", it)
        if not nums:
            fail("buffer without bytes: " + it)
        s += int(nums[1]) + int(nums[2] or 0)
    if s != total:
        fail(f"the listed buffers add up to {s}, the message says {total}")
    if total - cap != over:
        fail(f"{total} - {cap} != {over}")
    for b in buffers:
        if b not in listed:
            fail(f"buffer '{b}' is not named in: {listed}")
    for h in hints:
        if h not in p.stderr:
            fail(f"hint '{h}' missing in:\n{p.stderr}")
    # Every vec_tile the hint proposes must compile: the spec with the tile at that line replaced.
    lines = text.splitlines(keepends=True)
    for m in re.finditer(r"vec_tile (\[[0-9, ]+\]) at line (\d+) fits \([^)]*\)(?:, (\[[0-9, ]+\]) in whole blocks)?", p.stderr):
        line = int(m[2])
        for shape in filter(None, (m[1], m[3])):
            fixed = lines[:]
            fixed[line - 1] = re.sub(r"vec_tile: \[[^\]]*\]", "vec_tile: " + shape, fixed[line - 1])
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, os.path.basename(spec))
                with open(path, "w") as f:
                    f.write("".join(fixed))
                q = run([ptoc, path, "-o", os.path.join(d, "op.bundle")])
            if q.returncode != 0:
                fail(f"the hint's proposal vec_tile {shape} at line {line} does not compile")
            print(f"ok   the hint's proposal vec_tile {shape} at line {line} compiles")
    print("PASS")


def main():
    mode = sys.argv[1]
    if mode == "run":
        run_spec(*sys.argv[2:5])
    elif mode == "overflow":
        overflow(*sys.argv[2:4])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
