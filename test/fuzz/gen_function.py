"""The fuzzer's hook for PyPTO's `with pypto.function("main", a, b):` (issue 13, "ports line by line"): the body
of every spec is wrapped in a function statement,

    body:                           body:
      - vec_tile: [16, 64]    ->      - function: main
      - "y[...] = x * 2"                args: [x, y]
                                        body:
                                        - vec_tile: [16, 64]
                                        - "y[...] = x * 2"

and the two must give the same IR (`ptoc SPEC --emit ir`), positions included once mapped back: the statements
move down by the inserted lines and right by two columns, and nothing else may change (the function's body is
the spec's top-level body: set_vec_tile_shapes / set_pass_options at its top, its loops top-level loops). Its
body starts by setting some of the spec's `options:` knobs again, to the same values, by name (`fz_K = {...}`,
then `pypto.set_pass_options(K=fz_K)`, as PyPTO's models pass `configs.X`). The function's name and its args (a random subset of the declared tensors, or none) are drawn from their own stream
(`function{seed}`), so the generated specs do not change.

As a script: `python3 gen_function.py PTOC SPEC...` checks the library specs (or any) the same way;
`python3 gen_function.py PTOC --seeds FIRST COUNT` checks the fuzzer's generated specs (IR only, no run).
fuzz.py runs check() on every generated spec that `ptoc check` accepts (a difference is a miscompile at stage
`function`) and prints the counts at the end of a run.
"""
import os
import random
import re
import sys

import yaml

import ir_check

COUNTS = {}  # check() outcomes of a fuzz run: same / differ / none / reject
WRONG = None  # selftest: "drop" leaves the body's last top-level statement out, "knob" sets a count one higher

_POS = re.compile(r"@(\d+):(\d+)")
_IF_NAME = re.compile(r"IF_L(\d+)")  # a run-time branch's loop and windows are named by its line (elaborate_cond.cpp)


def _tensor_names(text):
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    names = []
    if isinstance(doc, dict):
        for k in ("inputs", "outputs", "tensors"):
            if isinstance(doc.get(k), dict):
                names += [n for n in doc[k] if isinstance(n, str)]
    return names


# The configuration calls a knob group is set by at the top of the body (no call sets runtime knobs).
_SETTERS = (("pass", "set_pass_options"), ("codegen", "set_codegen_options"), ("debug", "set_debug_options"))


def _knob_lines(text, rng, ind):
    """Statements at the top of the function's body that set some of the spec's `options:` knobs again, to the
    same values, passed by name as PyPTO's models pass `configs.X` (`fz_K = LITERAL`, then
    `pypto.set_pass_options(K=fz_K)`): the program must not change (knob_literals.h)."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    opts = doc.get("options") if isinstance(doc, dict) else None
    out = []
    for group, setter in _SETTERS:
        knobs = opts.get(group) if isinstance(opts, dict) else None
        if not isinstance(knobs, dict):
            continue
        for key, value in knobs.items():
            if rng.random() < 0.7:
                if WRONG == "knob" and isinstance(value, dict):
                    # selftest: one count one higher than the spec's, so the IR's options must differ
                    k0 = next((k for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)), None)
                    if k0 is not None:
                        value = {**value, k0: value[k0] + 1}
                lit = repr(value)
                if '"' in lit or "\\" in lit:
                    continue
                out += [f'{ind}  - "fz_{key} = {lit}"', f'{ind}  - "pypto.{setter}({key}=fz_{key})"']
    return out


def wrap(text, seed=0, knobs=False):
    """(wrapped text, line of `body:` (1-based), lines inserted, last line of the moved region), or None when
    the spec has no block `body:` list to wrap. knobs: the function's body starts by setting some of the
    spec's knobs again by name (_knob_lines)."""
    rng = random.Random(f"function{seed}")
    lines = text.split("\n")
    at = next((i for i, ln in enumerate(lines) if re.fullmatch(r"body:\s*(#.*)?", ln)), None)
    if at is None:
        return None
    end = at + 1  # the region: every line after `body:` up to the next top-level key
    while end < len(lines):
        ln = lines[end]
        if ln and not ln[0].isspace() and not ln.startswith("-") and not ln.startswith("#"):
            break
        end += 1
    items = [ln for ln in lines[at + 1:end] if ln.strip() and not ln.lstrip().startswith("#")]
    if not items or not items[0].lstrip().startswith("-"):
        return None
    ind = " " * (len(items[0]) - len(items[0].lstrip()))
    name = rng.choice(["main", "kernel", "op", "fused_op"])
    names = _tensor_names(text)
    args = sorted(rng.sample(names, rng.randint(0, len(names)))) if names and rng.random() < 0.8 else None
    head = [f"{ind}- function: {name}"]
    if args is not None:
        head.append(f"{ind}  args: [{', '.join(args)}]")
    head.append(f"{ind}  body:")
    if knobs:
        head += _knob_lines(text, random.Random(f"function-knobs{seed}"), ind)
    moved = ["  " + ln if ln.strip() else ln for ln in lines[at + 1:end]]
    if WRONG == "drop":
        # the region's last top-level statement is lost: a different program
        last = max(i for i, ln in enumerate(moved) if ln.startswith(ind + "  -"))
        if last > 0:
            moved = moved[:last]
    out = lines[:at + 1] + head + moved + lines[end:]
    return "\n".join(out), at + 1, len(head), end


def unmap(ir_text, body_line, inserted, region_end):
    """The wrapped spec's IR with its positions mapped back to the original's lines and columns."""
    def back(m):
        line, col = int(m.group(1)), int(m.group(2))
        if line > body_line + inserted:
            line -= inserted
            if line <= region_end:
                col -= 2
        return f"@{line}:{col}"
    def back_name(m):
        line = int(m.group(1))
        return f"IF_L{line - inserted if line > body_line + inserted else line}"
    return _IF_NAME.sub(back_name, _POS.sub(back, ir_text))


def ir(ptoc, path):
    return ir_check.emit_ir(ptoc, path)

def check(ptoc, spec_path, work, seed=0):
    """Wraps spec_path's body into work/spec_function.yaml and compares the IR. Returns (status, detail):
    'same', 'differ', 'none' (no block body to wrap) or 'reject' (the original does not compile to IR)."""
    with open(spec_path) as f:
        text = f.read()
    if wrap(text, seed) is None:
        return "none", ""
    rc0, ir0, warn0 = ir(ptoc, spec_path)
    if rc0 != 0:
        return "reject", ""
    # knobs set again by name only where the original warns of nothing: a knob's warning would come twice
    new, body_line, inserted, region_end = wrap(text, seed, knobs=not warn0)
    path = os.path.join(work, "spec_function.yaml")
    with open(path, "w") as f:
        f.write(new)
    rc1, ir1, warn1 = ir(ptoc, path)
    return ir_check.compare_ir((rc0, ir0, warn0), (rc1, unmap(ir1, body_line, inserted, region_end), warn1))


def main(argv):
    return ir_check.main(argv, check, "function")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
