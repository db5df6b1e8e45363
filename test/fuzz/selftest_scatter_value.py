#!/usr/bin/env python3
"""Unit checks of gen_scatter_value.py (meson test fuzz_scatter_value_selftest, or alone):

1. the model by hand: a copy of v with rows at the slots, v unchanged; the spec text (a computed v, the
   scatter_update statement, a chained one for `twice`, duplicate-free slots); seeds drawing no construct keep
   their programs; numerics' `distinct:lo:hi` input kind (each value once, more than fit refused);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_scatter_value.WRONG = the construct) is caught."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import gen_scatter_value as G  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    v = np.arange(12.0).reshape(4, 3)
    e = {"dims": {}, "tensors": {"sl": np.array([2.0, 0.0]), "src": np.array([[9.0, 9, 9], [7, 7, 7]])},
         "values": {"v": G.Value(v, v.shape)}}
    st = G.ScatterValue("y", "v", "sl", 2, "src", 2, 3)
    st.run(e)
    want = v.copy()
    want[2], want[0] = 9, 7
    check("rows at the slots of a copy", np.array_equal(e["values"]["y"].a, want))
    check("v is unchanged", np.array_equal(e["values"]["v"].a, np.arange(12.0).reshape(4, 3)))
    check("the statement", st.emit() == "y = scatter_update(v, -2, reshape(sl, [2, 1]), src)")
    e["values"]["ci"] = G.Flipped("sl", 2, 3).ev(e)
    st = G.ScatterValue("y2", "v", "sl", 2, "src", 2, 3, index="ci", flip=3)
    st.run(e)
    want = v.copy()
    want[1], want[3] = 9, 7
    check("a computed index: rows at 3 - slot", np.array_equal(e["values"]["y2"].a, want))
    check("the computed statement", st.emit() == "y2 = scatter_update(v, -2, ci, src)" and
          G.Flipped("sl", 2, 3).text() == "3 - reshape(sl, [2, 1])")
    sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
    from numerics import make_input
    got, arr = make_input(np.random.default_rng(3), "int32", [4, 3], "distinct:2:13")
    check("numerics distinct:2:13 gives each of 2..13 once, as int32",
          arr.dtype == np.int32 and arr.shape == (4, 3) and sorted(arr.reshape(-1).tolist()) == list(range(2, 14)) and
          np.array_equal(got, arr))
    try:
        make_input(np.random.default_rng(3), "int32", [5], "distinct:0:3")
        check("distinct: more values than the range is refused", False)
    except ValueError as e:
        check("distinct: more values than the range is refused", "5 distinct values do not fit in [0, 3]" in str(e))
    texts = {k: "" for k in G.KINDS}
    distinct = True
    for k in G.KINDS:
        G.FORCE = k
        for s in range(1, 20):
            p = gen.generate(s)
            texts[k] += p.spec_text()
            distinct = distinct and all(p.kinds[n].startswith("distinct:") for n in p.inputs if n.startswith("svslots"))
        G.FORCE = None
    check("once: a computed value scattered", "= scatter_update(svv" in texts["once"] and "svy0_1" not in texts["once"])
    check("twice: the second scatter reads the first one's result", "= scatter_update(svy0_0, -2" in texts["twice"])
    check("computed: the index is computed on the device", "svci0 = " in texts["computed"] and
          "= scatter_update(svv0, -2, svci0, " in texts["computed"] and "svci0" not in texts["once"])
    check("rank 2 and rank 4", all(", 1, 1, " in texts[k] and "= scatter_update(svv0, -2, " in texts[k]
                                   for k in G.KINDS))
    check("slots are duplicate-free", distinct)
    keeps_other_seeds(check, G, "scatter_value", range(4000, 4100), 8, 40)


def wrong_models(check, ptoc, ptorun, cache):
    forced_models(check, G, ptoc, ptorun, cache, "sv", seeds_right=3, seeds_wrong=6)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
