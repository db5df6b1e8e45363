"""The draw every appended-construct hook of the fuzzer makes (gen_catalog4/5, gen_cover5, gen_lang5,
gen_math5): its own random stream per seed, so seeds that draw nothing generate what they did before."""
import random


def draw(g, name, prob, force, kinds):
    """(rng, kind) when the hook `name` appends a construct to this seed's program, else None: skipped when
    `name` is avoided, taken with probability `prob`, or always as `force` (one of kinds)."""
    r = random.Random(f"{name}{g.seed}")
    if name in g.avoid:
        return None
    if force is None and r.random() >= prob:
        return None
    if force is not None:
        r.random()  # the same stream position either way
    return r, force or r.choice(kinds)
