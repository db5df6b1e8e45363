"""What the fuzzer's IR-identity checks share (gen_cfgcalls.py: PyPTO's call spelling; gen_function.py: the body
inside pypto.function; gen_precision.py: precision_type on every precision op): the first differing IR line, the command line that runs a check over spec files or
over generated seeds, and the library's specs for the self-tests. A check is
`check(ptoc, spec_path, work, seed=0) -> (status, detail)` with status 'same', 'differ', 'none' or 'reject'."""
import os
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def first_difference(rc0, ir0, rc1, ir1):
    """The detail of a 'differ': both exit codes and the first line of ir1 that is not ir0's."""
    a, b = ir0.splitlines(), ir1.splitlines()
    first = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    got = b[first] if first < len(b) else "<end>"
    return f"rc {rc0} -> {rc1}; line {first + 1}: {got[:300]}"


def library_specs():
    return sorted(os.path.join(ROOT, "specs", f) for f in os.listdir(os.path.join(ROOT, "specs"))
                  if f.endswith(".yaml"))


def seeds_mode(check, what, ptoc, first, count):
    """The check alone over the fuzzer's generated specs (gen.generate), no compile or run."""
    import gen
    counts, bad = {}, []
    with tempfile.TemporaryDirectory() as work:
        for seed in range(first, first + count):
            path = os.path.join(work, "spec.yaml")
            with open(path, "w") as f:
                f.write(gen.generate(seed, ()).spec_text())
            st, detail = check(ptoc, path, work, seed)
            counts[st] = counts.get(st, 0) + 1
            if st == "differ":
                bad.append((seed, detail))
                print(f"seed {seed}: {detail}", flush=True)
    print(f"{what} over seeds {first}..{first + count - 1}: {counts}")
    return 1 if bad else 0


def main(argv, check, what, describe=lambda spec: ""):
    """`SCRIPT PTOC SPEC...` (one line per spec, `describe(spec)` added) or `SCRIPT PTOC --seeds FIRST COUNT`."""
    if len(argv) == 5 and argv[2] == "--seeds":
        return seeds_mode(check, what, argv[1], int(argv[3]), int(argv[4]))
    if len(argv) < 3:
        print(f"usage: {argv[0]} PTOC SPEC... | PTOC --seeds FIRST COUNT", file=sys.stderr)
        return 2
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for s in argv[2:]:
            st, detail = check(argv[1], s, work)
            print(f"{st:7s} {s}{describe(s)} {detail}")
            bad += st == "differ"
    return 1 if bad else 0
