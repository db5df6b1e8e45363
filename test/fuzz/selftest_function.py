"""Self-test of gen_function.py (issue 13: PyPTO's `with pypto.function(...)`): the wrap by hand (the function
header inserted at the body's indentation, the statements moved two columns right, the keys after the body
untouched), the library specs and generated specs give the same IR wrapped (with some of their knobs set again
by name at the function's top), and deliberately wrong wraps (WRONG = "drop": the body's last top-level
statement lost; "knob": a knob set by name one count higher) are caught."""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_function as G  # noqa: E402
import ir_check  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def by_hand():
    text = ("ptoc: 1\nname: t\ninputs:\n  x: {dtype: fp32, shape: [8]}\noutputs:\n  y: {dtype: fp32, shape: [8]}\n"
            "body:\n  - vec_tile: [8]\n  # a comment\n  - \"y[0:] = x\"\noptions: {}\n")
    new, body_line, inserted, end = G.wrap(text, seed=0)
    lines = new.split("\n")
    assert body_line == 7 and lines[6] == "body:", (body_line, lines[6])
    assert lines[7].startswith("  - function: "), lines[7]
    assert lines[7 + inserted - 1] == "    body:", lines[7 + inserted - 1]
    assert lines[7 + inserted:7 + inserted + 3] == ["    - vec_tile: [8]", "    # a comment", "    - \"y[0:] = x\""]
    assert lines[7 + inserted + 3] == "options: {}" and end == 10, (lines, end)
    # positions map back: the statement line moves down by the header and right by two
    assert G.unmap(f"op @{10 + inserted}:9", body_line, inserted, end) == "op @10:7"
    assert G.unmap(f"op @{11 + inserted}:3", body_line, inserted, end) == "op @11:3"  # after the body: line only
    assert G.unmap(f"loop IF_L{10 + inserted}_then acc_IF_L3", body_line, inserted, end) == "loop IF_L10_then acc_IF_L3"
    assert G.wrap("ptoc: 1\nbody: [\"y = x\"]\n") is None  # a flow body is left alone


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoc", required=True)
    ap.add_argument("--ptorun")
    ap.add_argument("--cache")
    a = ap.parse_args()
    by_hand()
    specs = ir_check.library_specs()
    bad, counts = [], {}
    with tempfile.TemporaryDirectory() as work:
        for s in specs:
            st, detail = G.check(a.ptoc, s, work)
            counts[st] = counts.get(st, 0) + 1
            if st != "same":
                bad.append(f"{s}: {st} {detail}")
        import gen
        for seed in range(12):
            path = os.path.join(work, "gen.yaml")
            with open(path, "w") as f:
                f.write(gen.generate(seed, ()).spec_text())
            st, detail = G.check(a.ptoc, path, work, seed)
            counts[st] = counts.get(st, 0) + 1
            if st not in ("same", "reject"):
                bad.append(f"seed {seed}: {st} {detail}")
        for wrong, spec in (("drop", "softmax.yaml"), ("knob", "rmsnorm.yaml")):
            G.WRONG = wrong
            st, _ = G.check(a.ptoc, os.path.join(ROOT, "specs", spec), work)
            G.WRONG = None
            if st != "differ":
                bad.append(f"WRONG={wrong} not caught on {spec}: {st}")
        # the knob lines are there: rmsnorm's options are set again by name
        w = G.wrap(open(os.path.join(ROOT, "specs", "rmsnorm.yaml")).read(), 0, knobs=True)
        if "pypto.set_pass_options(vec_nbuffer_setting=fz_vec_nbuffer_setting)" not in w[0]:
            bad.append("no knob set by name in the wrapped rmsnorm.yaml")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"ok: wrap by hand; library and generated specs wrapped in a function give the same IR {counts}; "
          "WRONG caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
