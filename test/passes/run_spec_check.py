#!/usr/bin/env python3
"""End-to-end check of one spec: `ptoc SPEC -o BUNDLE`, then `ptorun BUNDLE --check [--dim N=V ...]`.

usage: run_spec_check.py PTOC PTORUN SPEC [N=V ...]
Exits non-zero when either fails (an internal error of ptoc exits 4) or the check reports an error.
"""
import subprocess
import sys
import tempfile
import os


def main() -> int:
    ptoc, ptorun, spec, *dims = sys.argv[1:]
    ptoc, ptorun, spec = (os.path.abspath(p) for p in (ptoc, ptorun, spec))
    with tempfile.TemporaryDirectory() as d:
        bundle = os.path.join(d, "op.bundle")
        c = subprocess.run([ptoc, spec, "-o", bundle], capture_output=True, text=True)
        sys.stdout.write(c.stdout + c.stderr)
        if c.returncode != 0:
            print(f"ptoc exited {c.returncode}")
            return 1
        args = [ptorun, bundle, "--check"]
        for x in dims:
            args += ["--dim", x]
        r = subprocess.run(args, capture_output=True, text=True, cwd=d)
        sys.stdout.write(r.stdout + r.stderr)
        if r.returncode != 0:
            print(f"ptorun exited {r.returncode}")
            return 1
        if " ok " not in r.stdout + r.stderr:
            print("no output was checked")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
