#!/usr/bin/env python3
"""Conformance of ptoc/ptorun on specs written as a user would, checked against NumPy (meson suite
`conformance`; see test/conformance/README.md).

  conformance.py run  PTOC PTORUN SPEC...   for each spec (test/conformance/specs/*.yaml): `ptoc check`,
                                            `ptoc eval`, `ptoc SPEC -o BUNDLE`, then `ptorun BUNDLE --check`
                                            with the swimlane, device-perf and PMU switches on; every
                                            output of eval and of ptorun is compared with the NumPy
                                            reference in refs.py, and every artifact of the run is
                                            parsed and checked for consistency (artifacts.py)
  conformance.py diag PTOC SPEC...          each malformed spec (test/conformance/bad/*.yaml) fails
                                            `ptoc check` with exit 1 (0 if only warnings) and exactly the
                                            diagnostics its `# expect:` lines list (line:col: kind: text),
                                            in order, each with its source line and caret, plus every
                                            `# hint:` line
  conformance.py runerrors PTOC PTORUN       run-time mistakes (inconsistent dims, a divisible_by
                                            violation, wrong dtype or rank, missing --dim, unknown
                                            input) each give one `ptorun: error:` line and exit 2
  --keep DIR                                work in DIR and keep everything (default: a temp dir,
                                            removed when the spec passes)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import yaml  # noqa: E402

import artifacts  # noqa: E402
from numerics import compare, make_input, NPY  # noqa: E402
from refs import REFS  # noqa: E402


class Failure(Exception):
    pass


def run(cmd, expect=0, timeout=300):
    print("$ " + " ".join(cmd), flush=True)
    t0 = os.times()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {timeout} s: {' '.join(cmd)}")
    t1 = os.times()
    print(f"  ({t1.children_user + t1.children_system - t0.children_user - t0.children_system:.2f} s CPU)")
    if expect is not None and p.returncode != expect:
        raise Failure(f"exit {p.returncode} (expected {expect}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    if "internal error" in p.stderr or "Traceback" in p.stderr:
        raise Failure(f"crash text in stderr of {' '.join(cmd)}:\n{p.stderr}")
    return p


def dim_value(e, dims):
    if isinstance(e, int):
        return e
    env = dict(dims, ceil_div=lambda a, b: -(-a // b), min=min, max=max)
    return int(eval(str(e), {"__builtins__": {}}, env))


def bind_dims(doc, ref):
    dims = {}
    for n, d in (doc.get("dims") or {}).items():
        dyn = d == "dynamic" or (isinstance(d, dict) and d.get("dynamic"))
        if dyn:
            if n not in ref.dims:
                raise Failure(f"refs.py gives no run-time value for dynamic dim {n}")
            dims[n] = ref.dims[n]
        else:
            dims[n] = d
    return dims


def check_spec(a, spec, work):
    with open(spec) as f:
        doc = yaml.safe_load(f)
    name = doc["name"]
    ref = REFS.get(name)
    if ref is None:
        raise Failure(f"no NumPy reference for '{name}' in test/conformance/refs.py")
    dims = bind_dims(doc, ref)
    print(f"{name}: dims {dims}")

    # ptoc check: exit 0, one summary line, no diagnostics unless the reference expects warnings.
    p = run([a.ptoc, "check", spec])
    if p.stderr.strip() and not ref.warnings:
        raise Failure(f"ptoc check printed diagnostics:\n{p.stderr}")
    for w in ref.warnings:
        if w not in p.stderr:
            raise Failure(f"ptoc check should warn '{w}':\n{p.stderr}")

    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs, args, named = {}, [], set()
    for t, ty in (doc.get("inputs") or {}).items():
        shape = [dim_value(e, dims) for e in ty["shape"]]
        named |= {e for e in ty["shape"] if isinstance(e, str)}
        if "values" in ty:  # run-time values: drawn from the range the spec declares
            lo, hi = ty["values"]
            if ref.kinds.get(t) == "distinct":  # duplicate-free (scatter_update's slots, as PyPTO requires)
                vals, _ = make_input(rng, "int32", shape, f"distinct:{lo}:{hi}")
            else:
                vals = rng.integers(lo, hi + 1, shape).astype(np.float64)
            arr = vals.astype(np.int32)
        else:
            vals, arr = make_input(rng, ty["dtype"], shape, ref.kinds.get(t, "normal"))
        inputs[t] = vals
        path = os.path.join(work, f"in_{t}.npy")
        np.save(path, arr)
        args += ["--input", f"{t}={path}"]
    for n, d in (doc.get("dims") or {}).items():
        if n in ref.dims and n not in named:
            args += ["--dim", f"{n}={dims[n]}"]
    outputs = doc["outputs"]
    want = ref.fn(inputs, dims)

    def outs(tag):
        return {o: os.path.join(work, f"{tag}_{o}.npy") for o in outputs}

    def out_args(m):
        return sum((["--output", f"{o}={p}"] for o, p in m.items()), [])

    def compare_all(who, files):
        bad = []
        for o, ty in outputs.items():
            shape = tuple(dim_value(e, dims) for e in ty["shape"])
            if want[o].shape != shape:
                raise Failure(f"refs.py: reference for {o} has shape {want[o].shape}, spec says {shape}")
            arr = np.load(files[o])
            if arr.dtype != NPY[ty["dtype"]]:
                bad.append(f"{who} wrote {o} as {arr.dtype}, expected {np.dtype(NPY[ty['dtype']])}")
                continue
            ok, msg = compare(arr, want[o], ty["dtype"])
            print(f"{'ok  ' if ok else 'FAIL'} {who} {o} ({ty['dtype']}{list(shape)}): {msg}")
            if not ok:
                bad.append(f"{who} {o}: {msg}")
        return bad

    # The reference evaluator first: it is the golden model `ptorun --check` compares with.
    ev = outs("eval")
    run([a.ptoc, "eval", spec, *args, *out_args(ev)])
    bad = compare_all("ptoc eval", ev)
    if bad:
        raise Failure("ptoc eval differs from NumPy:\n  " + "\n  ".join(bad))
    bundle = os.path.join(work, f"{name}.bundle")
    run([a.ptoc, spec, "-o", bundle, *ref.compile_args])
    rb = outs("run")
    prof = os.path.join(work, "prof")
    p = run([a.ptorun, bundle, *args, *out_args(rb), "--check", "--runtime-debug-mode", "1",
             "--dump-device-perf", "--pmu-event-type", "2", "--output-dir", prof, *ref.run_args], expect=None)
    print(p.stdout + p.stderr)
    if p.returncode not in (0, 1) or not all(os.path.exists(f) for f in rb.values()):
        raise Failure(f"ptorun exited {p.returncode}")
    bad = compare_all("ptorun", rb)
    if bad:
        raise Failure("ptorun differs from NumPy:\n  " + "\n  ".join(bad))
    if p.returncode != 0:
        raise Failure("ptorun --check failed though every output matches NumPy")

    # Same bundle, inputs and switches, timing only: the timeline and every artifact must be byte-identical.
    prof2 = os.path.join(work, "prof_timing")
    run([a.ptorun, bundle, *args, "--timing-only", "--runtime-debug-mode", "1", "--dump-device-perf",
         "--pmu-event-type", "2", "--output-dir", prof2, *ref.run_args])
    artifacts.check_identical(prof, prof2)

    if ref.rounds > 1:
        m = artifacts.SUMMARY.search(p.stdout + p.stderr)
        prof3 = os.path.join(work, "prof_rounds")
        pr = run([a.ptorun, bundle, *args, "--timing-only", "--rounds", str(ref.rounds), "--runtime-debug-mode", "1",
                  "--dump-device-perf", "--pmu-event-type", "2", "--output-dir", prof3, *ref.run_args])
        artifacts.check_rounds(pr.stdout + pr.stderr, prof3, a.ptorun, run, ref.rounds, int(m.group(3)), int(m.group(4)))

    info = run([a.ptorun, "info", bundle]).stdout
    checked = artifacts.check_run(p.stdout + p.stderr, prof, a.ptorun, run, info, ref)
    print("artifacts ok: " + checked)


def cmd_run(a):
    failed = []
    for spec in a.specs:
        work = a.keep or tempfile.mkdtemp(prefix="ptoc-conf-")
        if a.keep:
            work = os.path.join(a.keep, os.path.splitext(os.path.basename(spec))[0])
            shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work, exist_ok=True)
        try:
            check_spec(a, spec, work)
            print(f"PASS {spec}\n")
            if not a.keep:
                shutil.rmtree(work, ignore_errors=True)
        except (Failure, artifacts.ArtifactError) as e:
            print(f"FAIL {spec}: {e}\n  (files kept in {work})\n")
            failed.append(spec)
    if failed:
        print("failed: " + " ".join(failed))
        sys.exit(1)
    print(f"ok: {len(a.specs)} specs")


EXPECT = re.compile(r"^#\s*expect:\s*(\d+):(\d+):\s*(error|warning):\s*(.+?)\s*$")
DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")


def cmd_diag(a):
    failed = []
    for spec in a.specs:
        with open(spec) as f:
            exp = [m.groups() for m in (EXPECT.match(l) for l in f) if m]
        if not exp:
            failed.append(f"{spec}: no '# expect:' lines")
            continue
        p = run([a.ptoc, "check", spec], expect=None)
        out = p.stdout + p.stderr
        print(out)
        problems = []
        want_rc = 1 if any(k == "error" for _, _, k, _ in exp) else 0
        if p.returncode != want_rc:
            problems.append(f"exit {p.returncode}, expected {want_rc}")
        if "internal error" in out or "Traceback" in out or "terminate called" in out:
            problems.append("crash text in the output")
        got = [m.groups() for m in (DIAG.match(l) for l in p.stderr.splitlines()) if m]
        for g in got:
            if os.path.abspath(g[0]) != os.path.abspath(spec):
                problems.append(f"diagnostic names file {g[0]!r}, not the spec")
        got_k = [(g[1], g[2], g[3], g[4]) for g in got]
        if len(got_k) != len(exp):
            problems.append(f"{len(got_k)} diagnostics, expected {len(exp)}")
        for (l, c, k, text), g in zip(exp, got_k):
            if (l, c, k) != g[:3] or text not in g[3]:
                problems.append(f"expected {l}:{c}: {k}: ...{text}..., got {g[0]}:{g[1]}: {g[2]}: {g[3]}")
        # Every diagnostic shows the source line and a caret (clang style).
        lines = p.stderr.splitlines()
        for i, l in enumerate(lines):
            if DIAG.match(l) and not (i + 2 < len(lines) and lines[i + 2].strip() == "^"
                                      or i + 2 < len(lines) and re.match(r"^\s*\^~*\s*$", lines[i + 2])):
                problems.append(f"no source line and caret after: {l}")
        if problems:
            failed.append(f"{spec}:\n    " + "\n    ".join(problems))
            print("FAIL " + spec)
        else:
            print("PASS " + spec)
    if failed:
        print("\n".join(failed))
        sys.exit(1)
    print(f"ok: {len(a.specs)} malformed specs give their diagnostics")


# Run-time user mistakes: (spec, inputs as {name: (numpy dtype, shape)}, extra args, exit status, texts the
# one-line error must contain). Each must be a clear `ptorun: error:` line, never a crash.
RUN_ERRORS = [
    ("dyn_shared_dim", {"x": ("float32", (19, 64)), "g": ("float32", (20, 1))}, [], 2,
     ["dim B", "input x axis 0 has 19", "input g axis 0 has 20"]),
    ("dyn_divisible", {"x": ("float16", (72, 128)), "w": ("float16", (128,))}, ["--runtime-debug-mode", "4"], 2,
     ["T = 72", "divisible", "16"]),
    ("dyn_divisible", {"x": ("float16", (64, 128)), "w": ("int32", (128,))}, [], 2,
     ["input 'w'", "wrong dtype", "fp16", "int32"]),
    ("dyn_divisible", {"x": ("float16", (2, 64, 128)), "w": ("float16", (128,))}, [], 2,
     ["input x", "rank 3", "rank 2"]),
    ("dyn_divisible", {"x": ("float16", (64, 100)), "w": ("float16", (128,))}, [], 2, ["x", "100", "128"]),
    ("dim_from_flag", {"v": ("float16", (48,))}, [], 2, ["dim R", "--dim R="]),
    ("ew_fp16_ops", {}, ["--input", "nosuch=x.npy"], 2, ["nosuch"]),
]


def cmd_runerrors(a):
    failed = []
    work = tempfile.mkdtemp(prefix="ptoc-conf-err-")
    for k, (name, inputs, extra, rc, texts) in enumerate(RUN_ERRORS):
        bundle = os.path.join(work, name + ".bundle")
        if not os.path.exists(bundle):
            run([a.ptoc, os.path.join(HERE, "specs", name + ".yaml"), "-o", bundle])
        args = []
        for t, (dt, shape) in inputs.items():
            path = os.path.join(work, f"e{k}_{t}.npy")
            np.save(path, np.ones(shape, dtype=dt))
            args += ["--input", f"{t}={path}"]
        p = run([a.ptorun, bundle, *args, *extra, "--output-dir", os.path.join(work, f"out{k}")], expect=None)
        err = [l for l in p.stderr.splitlines() if l.startswith("ptorun: error:")]
        print(p.stderr)
        problems = []
        if p.returncode != rc:
            problems.append(f"exit {p.returncode}, expected {rc}")
        if len(err) != 1:
            problems.append(f"{len(err)} 'ptorun: error:' lines, expected 1")
        problems += [f"error does not mention {t!r}" for t in texts if not err or t not in err[0]]
        if os.path.isdir(os.path.join(work, f"out{k}")) and os.listdir(os.path.join(work, f"out{k}")):
            problems.append("a failed run left an output folder")
        if problems:
            failed.append(f"case {k} ({name} {extra}): " + "; ".join(problems))
    shutil.rmtree(work, ignore_errors=True)
    if failed:
        print("\n".join(failed))
        sys.exit(1)
    print(f"ok: {len(RUN_ERRORS)} run-time mistakes give one clear error each")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("ptoc")
    r.add_argument("ptorun")
    r.add_argument("specs", nargs="+")
    r.add_argument("--keep")
    e = sub.add_parser("runerrors")
    e.add_argument("ptoc")
    e.add_argument("ptorun")
    d = sub.add_parser("diag")
    d.add_argument("ptoc")
    d.add_argument("specs", nargs="+")
    a = p.parse_args()
    a.ptoc = os.path.abspath(a.ptoc)
    if a.cmd in ("run", "runerrors"):
        a.ptorun = os.path.abspath(a.ptorun)
        (cmd_run if a.cmd == "run" else cmd_runerrors)(a)
    else:
        cmd_diag(a)


if __name__ == "__main__":
    main()
