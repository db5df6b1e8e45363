#!/usr/bin/env python3
"""The layer rule of docs/ARCHITECTURE.md: cli -> compiler -> runtime, never back.

Fails (exit 1, one line per offence) when a file under runtime/ includes anything under compiler/
or cli/, a file under compiler/ includes cli/, kernels/ includes any of them, or a meson.build
lists a source through '../' (a folder building another folder's files hides a dependency).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FORBIDDEN = {
    "runtime": ("compiler/", "cli/"),
    "compiler": ("cli/",),
    "kernels": ("compiler/", "cli/", "runtime/"),
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def offences():
    for top, banned in FORBIDDEN.items():
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".h", ".cpp", ".cc", ".hpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1).startswith(banned):
                            yield f"{rel}:{n}: {top}/ must not include {m.group(1)} (layers: cli -> compiler -> runtime)"
    for dirpath, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        if "meson.build" in files:
            path = os.path.join(dirpath, "meson.build")
            with open(path, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    code = line.split("#", 1)[0]
                    if re.search(r"'\.\./", code):
                        yield f"{os.path.relpath(path, ROOT)}:{n}: a source listed through '../': build it in its own folder"


def self_test():
    """The checker itself finds a planted back-include and a '../' source."""
    import tempfile
    global ROOT
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "runtime"))
        os.makedirs(os.path.join(d, "compiler"))
        with open(os.path.join(d, "runtime", "x.cpp"), "w") as f:
            f.write('#include "runtime/core/dtype.h"\n#include "compiler/ir.h"\n')
        with open(os.path.join(d, "compiler", "y.h"), "w") as f:
            f.write('#include "cli/ptoc_commands.h"\n')
        with open(os.path.join(d, "compiler", "meson.build"), "w") as f:
            f.write("lib = static_library('x', '../runtime/x.cpp')  # '../' in a comment is fine\n")
        saved, ROOT = ROOT, d
        found = list(offences())
        ROOT = saved
    want = ["runtime/x.cpp:2:", "compiler/y.h:1:", "compiler/meson.build:1:"]
    ok = len(found) == 3 and all(any(f.startswith(w) for f in found) for w in want)
    print("self-test:", "ok" if ok else f"FAILED, found {found}")
    return ok


def main():
    global ROOT
    args = sys.argv[1:]
    if args and args[0] != "--self-test":
        ROOT = args.pop(0)
    if not self_test():
        return 1
    bad = list(offences())
    for b in bad:
        print(b)
    print(f"layering: {len(bad)} offences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
