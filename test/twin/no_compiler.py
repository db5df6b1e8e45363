#!/usr/bin/env python3
"""No C++ compiler on the tuning path: `ptoc SPEC -o B` and `ptorun B --check` on a cold
$XDG_CACHE_HOME with $CXX and every c++/g++/clang++/gcc/cc on PATH replaced by a wrapper that logs
its invocation (and fails). The log must stay empty and both commands must succeed; then
`ptoc --host-twin=cce` must call the wrapper (the test's wrapper really is what ptoc would run).

  no_compiler.py PTOC PTORUN
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("PTOC_SOURCE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-nocxx-")
    fake = os.path.join(work, "bin")
    os.makedirs(fake)
    log = os.path.join(work, "invocations.log")
    for name in ("c++", "g++", "clang++", "gcc", "cc", "clang"):
        p = os.path.join(fake, name)
        with open(p, "w") as f:
            f.write(f"#!/bin/sh\necho \"{name} $*\" >> '{log}'\nexit 1\n")
        os.chmod(p, 0o755)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"), CXX=os.path.join(fake, "c++"),
               PATH=fake + os.pathsep + os.environ.get("PATH", ""))
    specs = [("specs/softmax.yaml", ["--dim", "B=37"]), ("specs/matmul.yaml", []),
             ("test/conformance/specs/rank4_ops.yaml", [])]
    for spec, dims in specs:
        b = os.path.join(work, os.path.basename(spec) + ".bundle")
        r = subprocess.run([ptoc, os.path.join(ROOT, spec), "-o", b], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: ptoc {spec} exited {r.returncode}: {r.stderr}")
        r = subprocess.run([ptorun, b, "--check", *dims], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: ptorun {spec} --check exited {r.returncode}: {r.stdout}{r.stderr}")
        if os.path.exists(log):
            sys.exit(f"FAIL: a compiler was invoked for {spec}:\n" + open(log).read())
        print(f"ok {spec}: compiled and checked, no compiler invoked")
    # The wrapper is what --host-twin=cce runs: it is logged, and ptoc fails with exit 3 (environment).
    r = subprocess.run([ptoc, os.path.join(ROOT, specs[0][0]), "-o", os.path.join(work, "cce.bundle"),
                        "--host-twin=cce"], env=env, capture_output=True, text=True)
    if r.returncode != 3 or not os.path.exists(log) or "--host-twin=cce" not in r.stderr:
        sys.exit(f"FAIL: ptoc --host-twin=cce with a failing compiler: exit {r.returncode}, stderr {r.stderr}")
    print("ok --host-twin=cce invokes the logged compiler and exits 3 when it fails")


if __name__ == "__main__":
    main()
