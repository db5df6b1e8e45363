#!/usr/bin/env python3
"""Specs that `ptoc check` accepts but the compile must refuse (test/regress/compile_errors/*.yaml):

  compile_error.py PTOC [--seconds S] SPEC...   for each spec: `ptoc SPEC -o BUNDLE` exits 1 within S
                                                seconds (default 120) with exactly the diagnostics its
                                                `# expect: line:col: kind: text` lines list, in order,
                                                and every `# hint:` line; no bundle is written.

For limits only the compile can see (a root function with more leaf tasks than a task id holds), and
for compile-time pathologies on the way to them: the bound catches a regression to the old slowness.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

EXPECT = re.compile(r"^#\s*expect:\s*(\d+):(\d+):\s*(error|warning):\s*(.+?)\s*$")
HINT = re.compile(r"^#\s*hint:\s*(.+?)\s*$")
DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")


def check(ptoc, spec, seconds):
    with open(spec) as f:
        lines = f.read().splitlines()
    exp = [m.groups() for m in (EXPECT.match(l) for l in lines) if m]
    hints = [m.group(1) for m in (HINT.match(l) for l in lines) if m]
    if not exp:
        return [f"no '# expect:' lines"]
    with tempfile.TemporaryDirectory(prefix="ptoc-compile-error-") as work:
        bundle = os.path.join(work, "out.bundle")
        t0 = time.monotonic()
        try:
            p = subprocess.run([ptoc, spec, "-o", bundle], capture_output=True, text=True, timeout=seconds)
        except subprocess.TimeoutExpired:
            return [f"compile took more than {seconds} s"]
        took = time.monotonic() - t0
        print(f"{spec}: exit {p.returncode} in {took:.1f} s")
        print(p.stderr, end="")
        problems = []
        if p.returncode != 1:
            problems.append(f"exit {p.returncode}, expected 1")
        if "internal error" in p.stderr or "terminate called" in p.stderr:
            problems.append("crash text in the output")
        if os.path.exists(bundle):
            problems.append("a bundle was written")
        got = [m.groups() for m in (DIAG.match(l) for l in p.stderr.splitlines()) if m]
        got_k = [(g[1], g[2], g[3], g[4]) for g in got]
        if got_k != [tuple(e) for e in exp]:
            problems.append(f"diagnostics {got_k}, expected {exp}")
        for h in hints:
            if f"hint: {h}" not in p.stderr:
                problems.append(f"missing hint: {h}")
        return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptoc")
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--seconds", type=float, default=120)
    a = ap.parse_args()
    failed = []
    for spec in a.specs:
        problems = check(a.ptoc, spec, a.seconds)
        if problems:
            failed.append(f"{spec}:\n  " + "\n  ".join(problems))
    if failed:
        print("FAILED:\n" + "\n".join(failed))
        return 1
    print(f"ok: {len(a.specs)} specs refused by the compile with their diagnostics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
