#!/usr/bin/env python3
"""The family path and the explicit path (ptoc --no-families) give the same outputs.

Compiles every spec of the given folders twice, with and without --no-families, each with
--emit cce,graph,report, and asserts: the same exit status and diagnostics, the same bundle bytes,
the same CCE, program.json and report files; then once more as a user compiles (no --emit: lazy leaf
copies, program.json left to the bundle's reader), which must write the same bundle bytes and
diagnostics. Prints one line per spec and a summary. Which specs
take the family path is tested by test_families.cpp (the outputs cannot say it: they are the same).

usage: compare_paths.py PTOC SPEC_OR_DIR...
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def compile_spec(ptoc, spec, out, extra, emit=True):
    out.mkdir(parents=True, exist_ok=True)
    cmd = [ptoc, str(spec), "-o", str(out / "op.bundle"), "-j", "1"] + extra
    if emit:
        cmd += ["--emit", "cce,graph,report", "--emit-dir", str(out / "emit")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stderr.replace(str(out), "OUT")


TIME_ROW = re.compile(rb"^ +[a-z_][A-Za-z_ ()0-9]* +[0-9]+\.[0-9]+( +[0-9]+\.[0-9]+)?$")


def tree(d):
    """Every output file by relative path; the report's pass-time rows (wall/CPU ms) dropped."""
    files = {}
    if d.exists():
        for f in sorted(d.rglob("*")):
            if f.is_file():
                data = f.read_bytes()
                if f.name.endswith("report.txt"):
                    data = b"\n".join(l for l in data.split(b"\n") if not TIME_ROW.match(l))
                files[str(f.relative_to(d))] = data
    return files


def main():
    args = sys.argv[1:]
    ptoc, paths = args[0], args[1:]
    specs = []
    for p in paths:
        p = Path(p)
        specs += sorted(p.glob("*.yaml")) if p.is_dir() else [p]
    failures = []
    with tempfile.TemporaryDirectory(prefix="family-cmp-") as tmp:
        for n, spec in enumerate(specs):
            a, b = Path(tmp) / f"{n}f", Path(tmp) / f"{n}e"
            rc_a, err_a = compile_spec(ptoc, spec, a, [])
            rc_b, err_b = compile_spec(ptoc, spec, b, ["--no-families"])
            bad = []
            if rc_a != rc_b:
                bad.append(f"exit {rc_a} vs {rc_b}")
            if err_a != err_b:
                bad.append("diagnostics differ:\n" + err_a + "\n---\n" + err_b)
            ta, tb = tree(a), tree(b)
            if set(ta) != set(tb):
                bad.append(f"files differ: {sorted(set(ta) ^ set(tb))}")
            for k in sorted(set(ta) & set(tb)):
                if ta[k] != tb[k]:
                    bad.append(f"{k} differs")
            c = Path(tmp) / f"{n}p"
            rc_c, err_c = compile_spec(ptoc, spec, c, [], emit=False)
            if rc_c != rc_b or err_c.replace("OUT", "") != err_b.replace("OUT", ""):
                bad.append(f"plain compile: exit {rc_c} vs {rc_b} or other diagnostics")
            pc, pb = c / "op.bundle", b / "op.bundle"
            if pc.exists() != pb.exists() or (pb.exists() and pc.read_bytes() != pb.read_bytes()):
                bad.append("plain compile: bundle differs")
            status = "FAIL " + "; ".join(bad) if bad else "ok"
            print(f"{status:6} rc={rc_a} files={len(ta)} {spec}", flush=True)
            if bad:
                failures.append(str(spec))
    print(f"{len(specs)} specs, {len(failures)} differ")
    if failures:
        print("differ:", *failures, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
