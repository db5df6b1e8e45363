"""The fuzzer's check of PyPTO's `precision_type` (issue 13): every call of an op that takes one (exp, log, log2,
log10, sqrt, rsqrt, reciprocal, pow, div, fmod, remainder) in a spec's statements is respelt with the argument,
as PyPTO's models write it,

    "y[...] = exp(x * 0.5) + sqrt(a)"  ->  "y[...] = exp(x * 0.5, precision_type=pypto.PrecisionType.INTRINSIC)
                                             + sqrt(a, PrecisionType.HIGH_PRECISION)"

and the two must give the same IR (`ptoc SPEC --emit ir`) once source positions are left out (the columns move
and lines move: the spec is written again as YAML). ptoc computes one result for both modes, so the program must not change.
The spelling of each call (keyword or positional, with or without `pypto.` and `PrecisionType.`, either mode) is
drawn from its own stream (`precision{seed}`), so the generated specs do not change.

As a script: `python3 gen_precision.py PTOC SPEC...` checks the library specs (or any) the same way;
`python3 gen_precision.py PTOC --seeds FIRST COUNT` checks the fuzzer's generated specs (IR only, no run).
fuzz.py runs check() on every generated spec that `ptoc check` accepts (a difference is a miscompile at stage
`precision`) and prints the counts at the end of a run.
"""
import random
import re
import sys

import ir_check

COUNTS = {}  # check() outcomes of a fuzz run: same / differ / none / reject
WRONG = None  # selftest: "mode" respells one call with a mode PyPTO does not have (the respelt spec is refused)

OPS = ("exp", "log", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "pow", "div", "fmod", "remainder")
UNARY = ("exp", "log", "log2", "log10", "sqrt", "rsqrt", "reciprocal")
# A call of one of OPS as a function (not a method `.exp(`, not part of a longer name such as `my_exp(`).
_CALL = re.compile(r"(?<![\w.])(?:pypto\.)?(" + "|".join(OPS) + r")\(")
MODES = ("INTRINSIC", "HIGH_PRECISION")


def _close(text, open_at):
    """(index of the ')' that closes text[open_at] == '(', number of top-level arguments), or None."""
    depth, args, seen = 0, 1, False
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return (i, args if seen else 0)
        elif ch == "," and depth == 1:
            args += 1
        elif depth >= 1 and not ch.isspace():
            seen = True
    return None


def _spelling(rng, op, nargs):
    mode = rng.choice(MODES)
    enum = rng.choice(["pypto.PrecisionType.", "PrecisionType.", ""])
    if WRONG == "mode":
        mode = "FAST"
    if op in UNARY and nargs == 1 and rng.random() < 0.4:
        return f", {enum}{mode}"  # positional: the unary ops' second parameter
    return f", precision_type={enum}{mode}"


def respell_statement(stmt, rng):
    """(the statement with every call of OPS given a precision_type, calls respelt)."""
    inserts = []
    for m in _CALL.finditer(stmt):
        got = _close(stmt, m.end() - 1)
        if got is None or got[1] == 0 or got[1] > (1 if m.group(1) in UNARY else 2):
            continue  # no argument, or a precision_type already there: as written
        inserts.append((got[0], _spelling(rng, m.group(1), got[1])))
    for at, s in sorted(inserts, reverse=True):
        stmt = stmt[:at] + s + stmt[at:]
    return stmt, len(inserts)


def respell(text, seed=0):
    """(the spec's text with every statement string of every body respelt, number of calls respelt), or None
    when no statement calls one of OPS. The spec is read and written again as YAML (comments and line breaks
    do not survive, which the comparison leaves out with the positions)."""
    doc = ir_check.load_spec_with_body(text)
    if doc is None:
        return None
    rng = random.Random(f"precision{seed}")
    calls = 0

    def one(st):
        nonlocal calls
        if WRONG == "mode" and calls:
            return st
        st, n = respell_statement(st, rng)
        calls += n
        return st

    ir_check.map_statements(doc, one)
    if not calls:
        return None
    return ir_check.dump_spec(doc), calls


def check(ptoc, spec_path, work, seed=0):
    """Respells spec_path's precision ops into work/spec_precision.yaml and compares the IR without positions.
    Returns (status, detail): 'same', 'differ', 'none' (no such call) or 'reject' (the original does not
    compile to IR)."""
    with open(spec_path) as f:
        got = respell(f.read(), seed)
    return ir_check.check_respelt(ptoc, spec_path, work, got and got[0], "precision")

def main(argv):
    return ir_check.main(argv, check, "precision")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
