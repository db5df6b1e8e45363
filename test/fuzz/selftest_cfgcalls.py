"""Self-test of gen_cfgcalls.py (issue 13: PyPTO's configuration calls): the respeller by hand on each mapping
form, the library specs give the same IR in both spellings, and a deliberately wrong respelling (WRONG =
"split_k": split_k negated) is caught on a spec that sets split_k. A spec's other lines are never touched."""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_cfgcalls as G  # noqa: E402
import ir_check  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def by_hand():
    cases = [
        ('  - vec_tile: [8, "min(k, 4)"]   # c', '  - "set_vec_tile_shapes(8, min(k, 4))"   # c'),
        ("  - vec_tile: tiles", '  - "set_vec_tile_shapes(*tiles)"'),
        ("    then: [{vec_tile: [8, 512]}]", '    then: ["set_vec_tile_shapes(8, 512)"]'),
        ("  - cube_tile: {m: [g, g], k: [64, 512, 256], n: [32, 64], split_k: s}",
         '  - "set_cube_tile_shapes([g, g], [64, 512, 256], [32, 64], s)"'),
        ("  - cube_tile: {m: [16, 16], k: [64, 64], n: [32, 32], split_k: true}",
         '  - "set_cube_tile_shapes([16, 16], [64, 64], [32, 32], True)"'),
        ('  - "y = x"  # vec_tile: [1, 2] in a comment', None),
        ("  - cube_tile:", None),  # block mapping over several lines: left alone
    ]
    for src, want in cases:
        got, done, left = G.respell(src, style="plain")
        want = src if want is None else want
        assert got == want, (src, got, want)
    t, d, _ = G.respell("  - vec_tile: [1, 2]", style="pypto")
    assert t == '  - "pypto.set_vec_tile_shapes(1, 2)"' and d == 1, t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoc", required=True)
    ap.add_argument("--ptorun")
    ap.add_argument("--cache")
    a = ap.parse_args()
    by_hand()
    specs = ir_check.library_specs()
    bad = []
    with tempfile.TemporaryDirectory() as work:
        for s in specs:
            st, detail = G.check(a.ptoc, s, work)
            if st not in ("same", "none"):
                bad.append(f"{s}: {st} {detail}")
        G.WRONG = "split_k"
        st, _ = G.check(a.ptoc, os.path.join(ROOT, "specs", "glm_ffn_shared_expert_quant.yaml"), work)
        G.WRONG = None
        if st != "differ":
            bad.append(f"WRONG=split_k not caught: {st}")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"ok: respeller by hand; {len(specs)} library specs give the same IR in the call spelling; WRONG caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
