#!/usr/bin/env python3
"""Tests of the operator library in specs/ (run by meson from the source root; see meson.build).

  spec_tests.py check   PTOC SPEC            `ptoc check SPEC` exits 0 and prints a one-line summary
  spec_tests.py conform PTOC SPEC [options]  evaluate a small-shape copy with `ptoc eval` and compare
                                             with the NumPy reference in references.py; with
                                             --run-bundle PTORUN also compile with `ptoc SPEC -o` and
                                             run the bundle with ptorun, and compare that too
                                             (--ptorun-check: ptorun runs with --check);
                                             --eval-only: any spec, no reference (ptorun vs eval)
  spec_tests.py golden  PTOC SPEC [--update] `ptoc SPEC --emit ir` equals test/specs/golden/<spec>.ir
                                             (--update rewrites the golden file: read the diff!)
  spec_tests.py coverage SPEC...             every spec under specs/ is listed in meson.build, has a
                                             NumPy reference and a golden IR file

Regenerate every golden file after an intended IR change:
  for s in $(find specs -name '*.yaml'); do python3 test/specs/spec_tests.py golden build/cli/ptoc $s --update; done
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(cmd, timeout=600):
    print("$ " + " ".join(cmd), flush=True)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=SOURCE_ROOT)
    except subprocess.TimeoutExpired:
        fail(f"timed out after {timeout} s")


def rel_spec(spec):
    """The spec path relative to the source root (what ptoc sees, so diagnostics and IR are stable)."""
    return os.path.relpath(os.path.abspath(spec), SOURCE_ROOT)


def golden_path(spec):
    rel = os.path.relpath(os.path.abspath(spec), os.path.join(SOURCE_ROOT, "specs"))
    return os.path.join(HERE, "golden", os.path.splitext(rel)[0] + ".ir")


# --- check ----------------------------------------------------------------------------------

def cmd_check(a):
    r = run([a.ptoc, "check", rel_spec(a.spec)])
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        fail(f"ptoc check exited {r.returncode}")
    if r.stderr.strip():
        fail("a library spec must check without diagnostics (not even warnings)")
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    if len(lines) != 1:
        fail(f"expected a one-line summary, got {len(lines)} lines")
    print("ok")


# --- golden IR ------------------------------------------------------------------------------

def cmd_golden(a):
    r = run([a.ptoc, rel_spec(a.spec), "--emit", "ir"])
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        fail(f"ptoc --emit ir exited {r.returncode}")
    path = golden_path(a.spec)
    if a.update:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(r.stdout)
        print(f"wrote {os.path.relpath(path, SOURCE_ROOT)}")
        return
    if not os.path.exists(path):
        fail(f"no golden file {os.path.relpath(path, SOURCE_ROOT)}; create it with "
             f"`python3 test/specs/spec_tests.py golden {a.ptoc} {rel_spec(a.spec)} --update` and read it")
    with open(path) as f:
        want = f.read()
    if r.stdout != want:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), r.stdout.splitlines(True),
                                                   "golden", "ptoc --emit ir"))
        fail(f"IR differs from {os.path.relpath(path, SOURCE_ROOT)} (regenerate with --update if intended)")
    print("ok")


# --- coverage -------------------------------------------------------------------------------

def all_specs():
    out = []
    for root, _, files in os.walk(os.path.join(SOURCE_ROOT, "specs")):
        out += [os.path.relpath(os.path.join(root, f), SOURCE_ROOT) for f in files if f.endswith(".yaml")]
    return sorted(out)


def cmd_coverage(a):
    import yaml
    from references import REFERENCES
    listed = {rel_spec(s) for s in a.specs}
    problems = []
    names = {}
    for s in all_specs():
        if s not in listed:
            problems.append(f"{s} is not listed in test/specs/meson.build")
        with open(os.path.join(SOURCE_ROOT, s)) as f:
            doc = yaml.safe_load(f)
        name = doc.get("name")
        if name in names:
            problems.append(f"{s} and {names[name]} both have name '{name}'")
        names[name] = s
        if name not in REFERENCES:
            problems.append(f"{s}: no NumPy reference for '{name}' in test/specs/references.py")
        if not os.path.exists(golden_path(s)):
            problems.append(f"{s}: no golden IR file {os.path.relpath(golden_path(s), SOURCE_ROOT)}")
        with open(os.path.join(SOURCE_ROOT, s)) as f:
            first = f.readline()
        if not first.startswith("# ") or len(first.strip()) < 20:
            problems.append(f"{s}: the first line must be a one-line comment saying what the operator is")
    for p in problems:
        print("FAIL: " + p)
    if problems:
        sys.exit(1)
    print(f"ok: {len(names)} specs, each listed, with a reference and a golden file")


# --- conformance ----------------------------------------------------------------------------

def dim_value(expr, dims):
    """Evaluates a shape entry (an int or a dim expression over dims) to an int."""
    if isinstance(expr, int):
        return expr
    if "/" in expr.replace("//", ""):
        fail(f"'/' in dim expression {expr!r}")
    env = dict(dims)
    env.update(ceil_div=lambda x, y: -(-x // y), min=min, max=max)
    return int(eval(str(expr), {"__builtins__": {}}, env))


def small_copy(doc, ref):
    """Returns (doc, dims, changed): dims bound for the small run; static dims shrunk per `ref.small`
    (or halved below 1024 when a spec has no entry), dynamic dims from `ref.dynamic` (default 37)."""
    dims, changed = {}, False
    for name, decl in (doc.get("dims") or {}).items():
        dynamic = decl == "dynamic" or (isinstance(decl, dict) and decl.get("dynamic"))
        if dynamic:
            v = ref.dynamic.get(name, 37) if ref else 37
            div = decl.get("divisible_by", 1) if isinstance(decl, dict) else 1
            dims[name] = -(-v // div) * div
            continue
        v = decl
        if ref and name in ref.small:
            v = ref.small[name]
        elif not ref:
            while v > 1024 and v % 2 == 0:
                v //= 2
        if v != decl:
            doc["dims"][name] = v
            changed = True
        dims[name] = v
    return doc, dims, changed


def make_input(rng, dtype, shape, scale=1.0):
    import numpy as np
    from dtypes import rnd, to_npy
    if dtype in ("fp32", "fp16", "bf16"):
        vals = rnd(rng.standard_normal(shape) * scale, dtype)
    elif dtype == "bool":
        vals = rng.integers(0, 2, shape).astype(np.float64)
    elif dtype == "uint8":
        vals = rng.integers(0, 17, shape).astype(np.float64)
    else:
        vals = rng.integers(-8, 9, shape).astype(np.float64)
    return vals, to_npy(vals, dtype)


def compare_output(ref, name, got, want, dtype):
    """dtypes.compare, except for an integer output the reference lists in `int_atol` (a quantised value one
    rounding of an exact tie away: it may differ by that much, in at most 0.1 % of the elements)."""
    import numpy as np
    from dtypes import compare
    atol = ref.int_atol.get(name) if ref is not None else None
    if atol is None or np.shape(got) != np.shape(want):
        return compare(got, want, dtype)
    err = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    off = int(np.count_nonzero(err))
    ok = err.max(initial=0) <= atol and off <= max(1, err.size // 1000)
    return ok, f"max abs err {err.max(initial=0):.3g} (allowed {atol}), {off} of {err.size} elements differ"


def cmd_conform(a):
    import numpy as np
    import yaml
    from dtypes import compare
    from references import REFERENCES

    with open(a.spec) as f:
        doc = yaml.safe_load(f)
    name = doc["name"]
    ref = REFERENCES.get(name)
    if ref is None and not a.eval_only:
        fail(f"no NumPy reference for '{name}' in test/specs/references.py")
    doc, dims, changed = small_copy(doc, ref)
    print(f"{name}: dims {dims}")

    work = tempfile.mkdtemp(prefix=f"ptoc-spec-{name}-") if not a.keep else a.keep
    os.makedirs(work, exist_ok=True)
    spec = os.path.abspath(a.spec)
    if changed:
        spec = os.path.join(work, os.path.basename(a.spec))
        with open(spec, "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=1000)

    rng = np.random.default_rng(a.seed)
    inputs, args = {}, []
    bound = set()
    given = ref.inputs(rng, dims) if ref and ref.inputs else {}
    for tname, t in (doc.get("inputs") or {}).items():
        shape = [dim_value(e, dims) for e in t["shape"]]
        bound |= {e for e in t["shape"] if isinstance(e, str)}
        if tname in given:  # the reference says what this input must hold
            from dtypes import to_npy
            vals = np.asarray(given[tname], dtype=np.float64)
            if list(vals.shape) != shape:
                fail(f"references.py gives {tname} the shape {list(vals.shape)}, the spec says {shape}")
            arr = to_npy(vals, t["dtype"])
        elif "values" in t:  # run-time values (block tables, lengths): the range the spec declares
            lo, hi = t["values"]
            vals = rng.integers(lo, hi + 1, shape).astype(np.float64)
            arr = vals.astype(np.int64 if t["dtype"] == "int64" else np.int32)
        else:
            vals, arr = make_input(rng, t["dtype"], shape, ref.scale.get(tname, 1.0) if ref else 1.0)
        inputs[tname] = vals
        path = os.path.join(work, f"in_{tname}.npy")
        np.save(path, arr)
        args += ["--input", f"{tname}={path}"]
    for dname, decl in (doc.get("dims") or {}).items():
        dynamic = decl == "dynamic" or (isinstance(decl, dict) and decl.get("dynamic"))
        if dynamic and dname not in bound:
            args += ["--dim", f"{dname}={dims[dname]}"]
    outputs = doc.get("outputs") or {}

    def outs(tag):
        return {o: os.path.join(work, f"{tag}_{o}.npy") for o in outputs}

    results = {}
    ev = outs("eval")
    r = run([a.ptoc, "eval", spec, *args, *sum((["--output", f"{o}={p}"] for o, p in ev.items()), [])])
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        fail(f"ptoc eval exited {r.returncode}")
    results["ptoc eval"] = {o: np.load(p) for o, p in ev.items()}

    if a.run_bundle:
        bundle = os.path.join(work, f"{name}.bundle")
        r = run([a.ptoc, spec, "-o", bundle])
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            fail(f"ptoc -o exited {r.returncode}")
        rb = outs("run")
        r = run([a.run_bundle, bundle, *args, *(["--check"] if a.ptorun_check else []),
                 *sum((["--output", f"{o}={p}"] for o, p in rb.items()), [])])
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            fail(f"ptorun exited {r.returncode}")
        results["ptorun"] = {o: np.load(p) for o, p in rb.items()}

    bad = False
    if a.run_bundle:
        for o, t in outputs.items():
            ok, msg = compare_output(ref, o, results["ptorun"][o], results["ptoc eval"][o], t["dtype"])
            print(f"{'ok  ' if ok else 'FAIL'} ptorun vs ptoc eval {o}: {msg}")
            bad |= not ok
    if a.eval_only:
        if bad:
            fail(f"ptorun differs from ptoc eval (inputs and outputs kept in {work})")
        print("ok (no NumPy reference: " + ("ptorun compared with ptoc eval)" if a.run_bundle else "evaluated only)"))
        return
    want = ref.fn(inputs, dims)
    for o, t in outputs.items():
        shape = tuple(dim_value(e, dims) for e in t["shape"])
        if want[o].shape != shape:
            fail(f"reference for {o} has shape {want[o].shape}, spec says {shape}: fix references.py")
        for who, got in results.items():
            ok, msg = compare_output(ref, o, got[o], want[o], t["dtype"])
            print(f"{'ok  ' if ok else 'FAIL'} {who} {o} ({t['dtype']}{list(shape)}): {msg}")
            bad |= not ok
    if bad:
        fail(f"outputs differ from the NumPy reference (inputs and outputs kept in {work})")
    if not a.keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    print("ok")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("ptoc")
    c.add_argument("spec")
    g = sub.add_parser("golden")
    g.add_argument("ptoc")
    g.add_argument("spec")
    g.add_argument("--update", action="store_true", help="rewrite the golden file from ptoc's output")
    v = sub.add_parser("coverage")
    v.add_argument("specs", nargs="*")
    f = sub.add_parser("conform")
    f.add_argument("ptoc")
    f.add_argument("spec")
    f.add_argument("--run-bundle", metavar="PTORUN", help="also compile a bundle and run it with this ptorun")
    f.add_argument("--ptorun-check", action="store_true",
                   help="with --run-bundle: run ptorun with --check (it compares with its evaluator itself)")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--keep", metavar="DIR", help="work in DIR and keep the files")
    f.add_argument("--eval-only", action="store_true",
                   help="no NumPy reference (any spec): run ptoc eval, and with --run-bundle compare ptorun with it")
    a = p.parse_args()
    if a.cmd not in ("coverage",):
        a.ptoc = os.path.abspath(a.ptoc)
    if getattr(a, "run_bundle", None):
        a.run_bundle = os.path.abspath(a.run_bundle)
    {"check": cmd_check, "golden": cmd_golden, "coverage": cmd_coverage, "conform": cmd_conform}[a.cmd](a)


if __name__ == "__main__":
    main()
