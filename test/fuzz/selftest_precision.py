"""Self-test of gen_precision.py (issue 13: PyPTO's precision_type): the respelling by hand (keyword and
positional forms, nested calls, methods and longer names left alone, calls that already pass a mode left
alone), the library specs and generated specs give the same IR respelt, and a deliberately wrong respelling
(WRONG = "mode": a mode PyPTO does not have) is caught."""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_precision as G  # noqa: E402
import ir_check  # noqa: E402



def by_hand():
    rng = random.Random(0)
    s, n = G.respell_statement("y[0:8, :] = exp(sqrt(x[0:8, :]) * 0.5) + pow(a, 2.0) / b.exp()", rng)
    assert n == 3, (s, n)
    for op in ("exp(", "sqrt(", "pow("):
        call = s[s.index(op):]
        assert "PrecisionType." in call or "INTRINSIC" in call or "HIGH_PRECISION" in call, s
    assert s.endswith("b.exp()"), s  # a method is left as written
    s, n = G.respell_statement("y = my_exp(x) + div(a, b, INTRINSIC) + log10(x, precision_type=INTRINSIC)", rng)
    assert n == 0 and s == "y = my_exp(x) + div(a, b, INTRINSIC) + log10(x, precision_type=INTRINSIC)", s
    s, n = G.respell_statement("y = pypto.rsqrt(x)", random.Random(1))
    assert n == 1 and s.startswith("y = pypto.rsqrt(x, "), s
    text = "ptoc: 1\nbody:\n- vec_tile: [8]\n- loop: {var: i, count: 2}\n  body:\n  - y[0:8] = log(x[0:8])\n"
    new, calls = G.respell(text, 0)
    assert calls == 1 and "log(x[0:8], " in new, new
    assert G.respell("ptoc: 1\nbody:\n- y = x + 1\n") is None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoc", required=True)
    a = ap.parse_args()
    by_hand()
    return ir_check.respelling_selftest(G, a.ptoc, "mode", 40, "respelling with precision_type")

if __name__ == "__main__":
    sys.exit(main())
