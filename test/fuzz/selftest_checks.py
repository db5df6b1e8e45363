"""The fuzzer self-tests' check list: each check prints ok/FAIL; finish() exits 1 if any failed."""
import sys


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, what, cond):
        print(f"{'ok  ' if cond else 'FAIL'} {what}")
        if not cond:
            self.failures.append(what)

    def finish(self):
        if self.failures:
            print(f"{len(self.failures)} failures")
            sys.exit(1)
        print("all ok")


def forced_models(check, hook, ptoc, ptorun, cache, prefix, seeds_right=2, seeds_wrong=4,
                  wrong=lambda kind: kind, right=None):
    """Each of a hook's constructs forced (hook.FORCE): with the right model (hook.WRONG = right) every seed
    passes, with a deliberately wrong one (hook.WRONG = wrong(kind)) the fuzzer catches it on one of the
    first seeds_wrong seeds. Shared by the hooks' self-tests (gen_catalog4, gen_catalog5, gen_cover5,
    gen_lang5, gen_math5)."""
    import os
    import tempfile
    import fuzz
    import gen
    tools = fuzz.Tools(ptoc, ptorun, 300, cache)
    work = tempfile.mkdtemp(prefix=f"ptoc-{prefix}-selftest-")
    for kind in hook.KINDS:
        hook.FORCE = kind
        hook.WRONG = right
        passed = [fuzz.evaluate(tools, gen.generate(s), os.path.join(work, f"{kind}{s}")).cls
                  for s in range(1, 1 + seeds_right)]
        caught = []
        for s in range(1, 1 + seeds_wrong):
            hook.WRONG = wrong(kind)
            res = fuzz.evaluate(tools, gen.generate(s), os.path.join(work, f"{kind}{s}w"))
            caught.append(res.cls)
            if res.cls != "pass":
                break
        hook.WRONG = right
        check(f"{kind}: right model passes {passed}", all(c == "pass" for c in passed))
        check(f"{kind}: a wrong model is caught ({caught})", caught[-1] in ("model-mismatch", "miscompile"))
    hook.FORCE = None


def hooks_after(name):
    """The appended hooks (gen.APPENDED_HOOKS) that run after `name`: a self-test leaves them out."""
    import gen
    return gen.APPENDED_HOOKS[gen.APPENDED_HOOKS.index(name) + 1:]


def keeps_other_seeds(check, hook, name, seeds, lo, hi):
    """Over `seeds`, a seed whose program uses the hook (hook.used) is the program without it plus what
    the hook appends (same leading statements, inputs and outputs kept); every other seed's spec is
    unchanged. The hooks after `name` are left out on both sides; `lo < used < hi` bounds how often it draws."""
    import gen
    later = hooks_after(name)
    same, n_used = True, 0
    for s in seeds:
        p, q = gen.generate(s, later), gen.generate(s, [name] + later)
        if hook.used(p):
            n_used += 1
            same = same and [x.emit() for x in p.body[:len(q.body)]] == [x.emit() for x in q.body] and \
                set(q.inputs) <= set(p.inputs) and set(q.outputs) <= set(p.outputs)
        else:
            same = same and p.spec_text() == q.spec_text()
    check(f"gen_{name} keeps the other seeds' programs ({n_used} of {len(seeds)} seeds use a construct)",
          same and lo < n_used < hi)


def selftest_main(run, wrong_models):
    """A hook self-test's command line: run(check) always; wrong_models(check, ptoc, ptorun, cache) with
    --ptoc and --ptorun."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoc")
    ap.add_argument("--ptorun")
    ap.add_argument("--cache")
    a = ap.parse_args()
    check = Checks()
    run(check)
    if a.ptoc and a.ptorun:
        wrong_models(check, a.ptoc, a.ptorun, a.cache)
    check.finish()
