#!/usr/bin/env python3
"""Bit-identity of the leaf-program executor and the compiled CCE twin.

  twin_identity.py PTOC PTORUN [--spec FILE ...] [--jobs N] [--shard K/N]

Compiles every spec of specs/, specs/examples/ and test/conformance/specs/ (a small-shape copy for the
library, the conformance references' dims) with `ptoc --host-twin=cce`, runs each bundle twice on the
same seeded random inputs, once on its leaf programs (the default) and once with `--twin=cce`, and
compares every output file byte for byte. Any differing byte fails, naming the spec, output and
offset. Specs that cannot run are listed with the reason (none is skipped silently).
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("PTOC_SOURCE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "specs"))
sys.path.insert(0, os.path.join(ROOT, "test", "conformance"))

import yaml  # noqa: E402


def plan(spec):
    """(yaml doc to compile, dims to pass, compile args, run args) for a spec."""
    with open(spec) as f:
        doc = yaml.safe_load(f)
    name = doc.get("name")
    if "/test/conformance/" in spec:
        from refs import REFS
        ref = REFS.get(name)
        dims = dict(ref.dims) if ref else {}
        return doc, False, dims, (ref.compile_args if ref else []), (ref.run_args if ref else [])
    from references import REFERENCES
    from spec_tests import small_copy
    doc, dims, changed = small_copy(doc, REFERENCES.get(name))
    return doc, changed, dims, [], []


def dynamic_dims(doc):
    out = []
    for n, d in (doc.get("dims") or {}).items():
        if d == "dynamic" or (isinstance(d, dict) and d.get("dynamic")):
            out.append(n)
    return out


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def check(a, spec, work):
    """None when identical; else a message. Raises nothing."""
    doc, changed, dims, cargs, rargs = plan(spec)
    name = os.path.basename(spec)[:-5]
    d = tempfile.mkdtemp(prefix=name + "-", dir=work)
    src = spec
    if changed:
        src = os.path.join(d, os.path.basename(spec))
        with open(src, "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=1000)
    bundle = os.path.join(d, "b.bundle")
    r = run([a.ptoc, src, "-o", bundle, "--host-twin=cce", *cargs])
    if r.returncode != 0:
        return f"FAIL {spec}: ptoc --host-twin=cce exited {r.returncode}: {r.stderr.strip()}"
    args = ["--seed", "7"]
    for n in dynamic_dims(doc):
        args += ["--dim", f"{n}={dims.get(n, 37)}"]
    keep = [x for x in rargs if not x.startswith("--output")]
    outs = list((doc.get("outputs") or {}).keys())
    files = {}
    for twin in ("leaf", "cce"):
        fo = {o: os.path.join(d, f"{twin}_{o}.npy") for o in outs}
        cmd = [a.ptorun, bundle, *args, *keep, f"--twin={twin}"]
        for o, p in fo.items():
            cmd += ["--output", f"{o}={p}"]
        r = run(cmd)
        if r.returncode != 0:
            return f"FAIL {spec}: ptorun --twin={twin} exited {r.returncode}: {r.stderr.strip()}"
        files[twin] = fo
    for o in outs:
        x = open(files["leaf"][o], "rb").read()
        y = open(files["cce"][o], "rb").read()
        if x != y:
            at = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
            return f"FAIL {spec}: output {o} differs at byte {at} of {len(x)} (leaf programs vs --twin=cce)"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptoc")
    ap.add_argument("ptorun")
    ap.add_argument("--spec", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    # Shard K of N (1-based): every N-th spec from the K-th, so CI runs the cold-cache g++ compiles of the
    # twin as N tests (each under its own timeout) that together cover every spec once.
    ap.add_argument("--shard", default="1/1")
    a = ap.parse_args()
    k, n = (int(x) for x in a.shard.split("/"))
    if not 1 <= k <= n:
        ap.error(f"--shard {a.shard}: want K/N with 1 <= K <= N")
    specs = a.spec or sorted(glob.glob(os.path.join(ROOT, "specs", "*.yaml"))) + \
        sorted(glob.glob(os.path.join(ROOT, "specs", "examples", "*.yaml"))) + \
        sorted(glob.glob(os.path.join(ROOT, "test", "conformance", "specs", "*.yaml")))
    specs = specs[k - 1::n]
    work = tempfile.mkdtemp(prefix="ptoc-twin-")
    bad = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for spec, msg in zip(specs, ex.map(lambda s: check(a, s, work), specs)):
            print(msg or f"ok   {os.path.relpath(spec, ROOT)}", flush=True)
            if msg:
                bad.append(msg)
    print(f"{len(specs) - len(bad)} of {len(specs)} specs bit-identical (leaf programs vs compiled twin)")
    if bad:
        sys.exit(1)
    import shutil
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
