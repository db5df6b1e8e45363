"""The fuzzer's check of PyPTO's parameter dicts (issue 13; compiler/frontend/dict_constants.h): in every spec,
some number literals of the statements are moved into a dict bound at the top of the body and read back by
key,

    body:                                   body:
      - vec_tile: [16, 64]                    - "fzp = {'c0': 16, 'c1': 0.5}"
      - "t = x[b * 16:, :] * 0.5"      ->     - vec_tile: [16, 64]
                                              - "t = x[b * fzp['c0']:, :] * fzp[\"c1\"]"

and the two must give the same IR (`ptoc SPEC --emit ir`) once source positions are left out (the spec is
written again as YAML). Which literals move, and the quotes of each key, are drawn from their own stream
(`dicts{seed}`), so the generated specs do not change.

As a script: `python3 gen_dicts.py PTOC SPEC...` or `PTOC --seeds FIRST COUNT` (IR only, no run). fuzz.py runs
check() on every generated spec that `ptoc check` accepts (a difference is a miscompile at stage `dicts`).
"""
import random
import re
import sys

import ir_check

COUNTS = {}  # check() outcomes of a fuzz run: same / differ / none / reject
WRONG = None  # selftest: "value" stores one moved literal plus one in the dict (a different program)

DICT = "fzp"
# A number literal standing alone: not part of a name (fp32, func3_1, in12) nor of another number.
_NUM = re.compile(r"(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)(?![\w.])")


def respell(text, seed=0):
    """(the spec's text with some statement literals read from a dict bound first in the body, number moved), or
    None when nothing moved (no statement literal, a flow body, a name `fzp` already used)."""
    if DICT in text:
        return None
    doc = ir_check.load_spec_with_body(text)
    if doc is None:
        return None
    rng = random.Random(f"dicts{seed}")
    entries = {}

    def move(stmt):
        def one(m):
            if rng.random() >= 0.4:
                return m.group(0)
            key = f"c{len(entries)}"
            entries[key] = m.group(0)
            q = rng.choice(["'", '"'])
            return f"{DICT}{rng.choice(['', ' '])}[{q}{key}{q}]"
        # quoted parts of a statement (labels, float("inf")) stay as written
        parts = re.split(r"('[^']*'|\"[^\"]*\")", stmt)
        return "".join(p if i % 2 else _NUM.sub(one, p) for i, p in enumerate(parts))

    ir_check.map_statements(doc, move)
    if not entries:
        return None
    if WRONG == "value":
        k0 = next(iter(entries))
        entries[k0] = f"{entries[k0]} + 1"
    lit = ", ".join(f"'{k}': {v}" for k, v in entries.items())
    doc["body"].insert(0, f"{DICT} = {{{lit}}}")
    return ir_check.dump_spec(doc), len(entries)


def check(ptoc, spec_path, work, seed=0):
    """Moves literals of spec_path into a dict (work/spec_dicts.yaml) and compares the IR without positions.
    Returns (status, detail): 'same', 'differ', 'none' (nothing moved) or 'reject' (the original does not
    compile to IR)."""
    with open(spec_path) as f:
        got = respell(f.read(), seed)
    return ir_check.check_respelt(ptoc, spec_path, work, got and got[0], "dicts")


def main(argv):
    return ir_check.main(argv, check, "dicts")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
