"""The fuzzer's hook for PyPTO's configuration calls (issue 13, "ports line by line"): every `vec_tile` /
`cube_tile` mapping statement of a spec is respelt as the call PyPTO writes,

    - vec_tile: [8, "min(k, 4)"]            ->  - "set_vec_tile_shapes(8, min(k, 4))"
    - vec_tile: tiles                       ->  - "pypto.set_vec_tile_shapes(*tiles)"
    - {cube_tile: {m: [g, g], k: [64, 512], n: [32, 64], split_k: s}}
                                            ->  - "set_cube_tile_shapes([g, g], [64, 512], [32, 64], enable_split_k=s)"

and the two spellings must give the same IR (`ptoc SPEC --emit ir`, positions and all: the rewrite keeps every
other line and column of an op where it was). The spelling of each call (the `pypto.` prefix, keyword or
positional axes and split_k) is drawn from its own stream (`cfgcalls{seed}`), so the generated specs do not
change. `respell(text)` is line-based: mapping statements written over several lines are left alone (counted).

As a script: `python3 gen_cfgcalls.py PTOC SPEC...` checks the library specs (or any) the same way;
`python3 gen_cfgcalls.py PTOC --seeds FIRST COUNT` checks the fuzzer's generated specs (IR only, no run).
fuzz.py runs check() on every generated spec that `ptoc check` accepts (a difference is a miscompile at stage
`cfgcalls`) and prints the counts at the end of a run.
"""
import os
import random
import re
import subprocess
import sys

import yaml

import ir_check

KINDS = ("vec_tile", "cube_tile")
FORCE = None
COUNTS = {}  # check() outcomes of a fuzz run: same / differ / none / reject
WRONG = None  # selftest: "split_k" respells split_k with its negation, so the IR must differ

_KEY = re.compile(r"\b(vec_tile|cube_tile):\s*")


def _balanced(text, i):
    """End (exclusive) of the bracketed value starting at text[i] ('[' or '{'), or -1."""
    depth, quote = 0, None
    for j in range(i, len(text)):
        c = text[j]
        if quote:
            if c == quote:
                quote = None
            continue
        if c in "\"'":
            quote = c
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _entry(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    return str(v)


def _call(kind, value, rng, style=None):
    """The call text of one mapping statement's value, or None when it cannot be respelt. style "pypto": as
    PyPTO's models write it (the prefix, positional axes)."""
    pre = "pypto." if style == "pypto" or (style is None and rng.random() < 0.5) else ""  # "plain": none
    if kind == "vec_tile":
        if isinstance(value, str) and re.fullmatch(r"[A-Za-z_]\w*", value):
            return f"{pre}set_vec_tile_shapes(*{value})"
        if not isinstance(value, list) or not value or any(isinstance(e, (list, dict)) for e in value):
            return None
        return f"{pre}set_vec_tile_shapes({', '.join(_entry(e) for e in value)})"
    if not isinstance(value, dict) or not all(k in value for k in "mkn"):
        return None
    if set(value) - {"m", "k", "n", "split_k"}:
        return None
    axes = []
    for a in "mkn":
        v = value[a]
        if not isinstance(v, list):
            return None
        axes.append("[" + ", ".join(_entry(e) for e in v) + "]")
    keyword = style is None and rng.random() < 0.3
    args = [f"{a}={t}" for a, t in zip("mkn", axes)] if keyword else axes
    if "split_k" in value:
        s = value["split_k"]
        if WRONG == "split_k" and isinstance(s, bool):
            s = not s
        s = _entry(s)
        args.append(f"enable_split_k={s}" if keyword or (style is None and rng.random() < 0.5) else s)
    return f"{pre}set_cube_tile_shapes({', '.join(args)})"


def _quote(call):
    return "'" + call.replace("'", "''") + "'" if '"' in call else '"' + call + '"'


def respell(text, seed=0, style=None):
    """(text with the mapping statements as calls, number respelt, number left as they were)."""
    rng = random.Random(f"cfgcalls{seed}")
    out, done, left = [], 0, 0
    for line in text.split("\n"):
        pos, new = 0, ""
        while True:
            m = _KEY.search(line, pos)
            if not m:
                new += line[pos:]
                break
            kind, v0 = m.group(1), m.end()
            # the statement's opening: `- KEY:` (a block item) or `{KEY:` (a flow mapping)
            head = line[:m.start()]
            flow = head.rstrip().endswith("{")
            block = re.fullmatch(r"\s*-\s*", head) is not None
            if not (flow or block) or v0 >= len(line):
                if not (flow or block):
                    new += line[pos:m.end()]
                    pos = m.end()
                    continue
                left += 1
                new += line[pos:]
                break
            if line[v0] in "[{":
                v1 = _balanced(line, v0)
            else:
                mm = re.match(r"[A-Za-z_]\w*", line[v0:])
                v1 = v0 + mm.end() if mm else -1
            if v1 < 0:
                left += 1
                new += line[pos:]
                break
            try:
                value = yaml.safe_load(line[v0:v1])
            except yaml.YAMLError:
                value = None
            call = _call(kind, value, rng, style)
            rest = line[v1:]
            if flow:
                close = re.match(r"\s*\}", rest)
                if call is None or not close:
                    left += 1
                    new += line[pos:v1]
                    pos = v1
                    continue
                brace = head.rstrip()
                new += line[pos:len(brace) - 1] + _quote(call)
                pos = v1 + close.end()
                done += 1
                continue
            if call is None or not re.fullmatch(r"\s*(#.*)?", rest):
                left += 1
                new += line[pos:]
                break
            new += head + _quote(call) + rest
            done += 1
            break
        out.append(new)
    return "\n".join(out), done, left


def ir(ptoc, path, timeout=120):
    p = subprocess.run([ptoc, path, "--emit", "ir"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout


def check(ptoc, spec_path, work, seed=0):
    """Respells spec_path into work/spec_calls.yaml and compares the IR. Returns (status, detail):
    'same', 'differ', 'none' (nothing to respell) or 'reject' (the original does not compile to IR)."""
    with open(spec_path) as f:
        text = f.read()
    new, done, _ = respell(text, seed)
    if not done:
        return "none", ""
    rc0, ir0 = ir(ptoc, spec_path)
    if rc0 != 0:
        return "reject", ""
    path = os.path.join(work, "spec_calls.yaml")
    with open(path, "w") as f:
        f.write(new)
    rc1, ir1 = ir(ptoc, path)
    # diagnostics (warnings print with the IR) name their file: the two spellings' files differ by name only
    ir0, ir1 = ir0.replace(spec_path, "SPEC"), ir1.replace(path, "SPEC")
    if rc1 == rc0 and ir1 == ir0:
        return "same", ""
    return "differ", ir_check.first_difference(rc0, ir0, rc1, ir1)


def _describe(spec):
    _, done, left = respell(open(spec).read())
    return f": {done} respelt, {left} left"


def main(argv):
    return ir_check.main(argv, check, "cfgcalls", _describe)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
