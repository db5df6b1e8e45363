#!/usr/bin/env python3
"""Regression specs of compiler bugs (test/regress/specs/*.yaml, one per bug, its header says which):

  regress.py PTOC PTORUN SPEC...   for each spec: `ptoc eval` and `ptorun BUNDLE --check` (the bundle
                                   compiled by `ptoc SPEC -o BUNDLE`); every output of both compared
                                   with the independent NumPy reference in refs.py; `--check` must pass.

Inputs are seeded from the spec name; the NumPy helpers (rounding, inputs, tolerances) are the
conformance suite's (test/conformance/numerics.py).
"""
import os
import subprocess
import sys
import tempfile
import shutil
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from numerics import compare, make_input, NPY  # noqa: E402
from refs import REFS, DIMS, CMP_DTYPE  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if "internal error" in p.stderr or "Traceback" in p.stderr:
        raise RuntimeError(f"crash text in {' '.join(cmd)}:\n{p.stderr}")
    return p


def dim_value(e, dims):
    return e if isinstance(e, int) else int(eval(str(e), {"__builtins__": {}}, dict(dims)))


def check(ptoc, ptorun, spec, work):
    doc = yaml.safe_load(open(spec))
    name = doc["name"]
    if name not in REFS:
        return [f"no NumPy reference for '{name}' in test/regress/refs.py"]
    dims = {}
    for n, dv in (doc.get("dims") or {}).items():
        dims[n] = DIMS[name][n] if isinstance(dv, dict) and dv.get("dynamic") else dv
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs, args = {}, []
    for t, ty in (doc.get("inputs") or {}).items():
        vals, arr = make_input(rng, ty["dtype"], [dim_value(e, dims) for e in ty["shape"]])
        inputs[t] = vals
        path = os.path.join(work, f"in_{t}.npy")
        np.save(path, arr)
        args += ["--input", f"{t}={path}"]
    want = REFS[name](inputs, dims)
    problems = []

    def outs(tag):
        return {o: os.path.join(work, f"{tag}_{o}.npy") for o in doc["outputs"]}

    def compare_all(who, files):
        for o, ty in doc["outputs"].items():
            got = np.load(files[o])
            if got.dtype != NPY[ty["dtype"]]:
                problems.append(f"{who} wrote {o} as {got.dtype}")
                continue
            ok, msg = compare(got, want[o], CMP_DTYPE.get(name, {}).get(o, ty["dtype"]))
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {who} {o}: {msg}")
            if not ok:
                problems.append(f"{who} {o}: {msg}")

    ev = outs("eval")
    p = run([ptoc, "eval", spec, *args, *sum((["--output", f"{o}={f}"] for o, f in ev.items()), [])])
    if p.returncode != 0:
        return [f"ptoc eval exit {p.returncode}: {p.stderr}"]
    compare_all("ptoc eval", ev)
    bundle = os.path.join(work, name + ".bundle")
    p = run([ptoc, spec, "-o", bundle])
    if p.returncode != 0:
        return problems + [f"ptoc exit {p.returncode}: {p.stderr}"]
    rb = outs("run")
    p = run([ptorun, bundle, *args, *sum((["--output", f"{o}={f}"] for o, f in rb.items()), []), "--check",
             "--output-dir", os.path.join(work, "prof")])
    print((p.stdout + p.stderr).strip())
    if p.returncode not in (0, 1) or not all(os.path.exists(f) for f in rb.values()):
        return problems + [f"ptorun exit {p.returncode}"]
    compare_all("ptorun", rb)
    if p.returncode != 0:
        problems.append("ptorun --check failed")
    return problems


def main():
    ptoc, ptorun, specs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    failed = []
    for spec in specs:
        work = tempfile.mkdtemp(prefix="ptoc-regress-")
        problems = check(ptoc, ptorun, spec, work)
        if problems:
            failed.append(f"{spec}:\n  " + "\n  ".join(problems) + f"\n  (files kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if failed:
        print("FAILED\n" + "\n".join(failed))
        sys.exit(1)
    print(f"ok: {len(specs)} regression specs match NumPy and pass --check")


if __name__ == "__main__":
    main()
