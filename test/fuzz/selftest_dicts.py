"""Self-test of gen_dicts.py (issue 13: PyPTO's parameter dicts): literals moved by hand (names with digits,
quoted parts and other numbers' digits left alone), the library, conformance and generated specs give the
same IR with their literals read from a dict, and a deliberately wrong dict (WRONG = "value": one moved
literal plus one) is caught."""
import argparse
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_dicts as G  # noqa: E402
import ir_check  # noqa: E402



def by_hand():
    text = ("ptoc: 1\nbody:\n- vec_tile: [8]\n- \"t = cast(x[0:8] * 0.5 + 1e-6, fp16)\"\n"
            "- \"set_semantic_label('func3_1')\"\n- \"y[0:8] = t\"\n")
    for seed in range(40):
        new, n = G.respell(text, seed) or (None, 0)
        if not n:
            continue
        doc = yaml.safe_load(new)
        first = doc["body"][0]
        assert first.startswith("fzp = {'c0': "), first
        assert "func3_1" in new and "fp16" in new, new  # names and quoted parts as written
        moved = first[first.index("{"):]
        assert all(v in ("0", "8", "0.5", "1e-6") for v in [e.split(": ")[1] for e in moved.strip("{}").split(", ")]), moved
        return
    raise AssertionError("no seed moved a literal")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoc", required=True)
    a = ap.parse_args()
    by_hand()
    return ir_check.respelling_selftest(G, a.ptoc, "value", 150, "literals moved into a dict")

if __name__ == "__main__":
    sys.exit(main())
