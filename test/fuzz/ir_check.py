"""What the fuzzer's IR-identity checks share (gen_cfgcalls.py: PyPTO's call spelling; gen_function.py: the body
inside pypto.function; gen_precision.py: precision_type on every precision op): the first differing IR line, the command line that runs a check over spec files or
over generated seeds, and the library's specs for the self-tests. A check is
`check(ptoc, spec_path, work, seed=0) -> (status, detail)` with status 'same', 'differ', 'none' or 'reject'."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


_POS = re.compile(r"\s*@\d+:\d+")
_IF_NAME = re.compile(r"IF_L\d+")  # a run-time branch's names carry its line (elaborate_cond.cpp)


def emit_ir(ptoc, path, positions=True, timeout=120):
    """(exit code, `ptoc PATH --emit ir`, warning messages without their positions). positions=False leaves out
    the IR's source positions and the line numbers in run-time branch names, for respellings that move text."""
    p = subprocess.run([ptoc, path, "--emit", "ir"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    # warnings quote their source line, which a respelling may change: compare their messages only
    warnings = sorted(re.sub(r"^\S+:\d+:\d+: ", "", ln) for ln in p.stderr.splitlines() if ": warning: " in ln)
    out = p.stdout if positions else _IF_NAME.sub("IF_L", _POS.sub("", p.stdout))
    return p.returncode, out, warnings


def first_difference(rc0, ir0, rc1, ir1):
    """The detail of a 'differ': both exit codes and the first line of ir1 that is not ir0's."""
    a, b = ir0.splitlines(), ir1.splitlines()
    first = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    got = b[first] if first < len(b) else "<end>"
    return f"rc {rc0} -> {rc1}; line {first + 1}: {got[:300]}"


def load_spec_with_body(text):
    """The spec text as YAML, or None when it does not parse or has no block `body:` list to respell."""
    import yaml
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("body"), list) else None


def dump_spec(doc):
    """A respelt spec written again as YAML (one line per statement)."""
    import yaml
    return yaml.safe_dump(doc, sort_keys=False, width=1 << 20, allow_unicode=True)


def respelling_selftest(module, ptoc, wrong, min_same, what):
    """A respelling check's selftest after its by-hand part: the library, conformance and 24 generated specs give
    the same IR (at least min_same compared), and module.WRONG = wrong is caught on softmax.yaml. Returns the
    exit code and prints the outcome."""
    bad, counts = selftest_specs(module.check, ptoc, seeds=24, min_same=min_same)
    with tempfile.TemporaryDirectory() as work:
        module.WRONG = wrong
        st, _ = module.check(ptoc, os.path.join(ROOT, "specs", "softmax.yaml"), work)
        module.WRONG = None
        if st != "differ":
            bad.append(f"WRONG={wrong} not caught on softmax.yaml: {st}")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"ok: {what} by hand; library, conformance and generated specs give the same IR {counts}; WRONG caught")
    return 0


def map_statements(doc, fn):
    """Every statement string of every `body:` list in the spec `doc` (nested bodies included) replaced by
    fn(statement), in place, in program order."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "body" and isinstance(v, list):
                for i, st in enumerate(v):
                    if isinstance(st, str):
                        v[i] = fn(st)
                    else:
                        map_statements(st, fn)
            else:
                map_statements(v, fn)
    elif isinstance(doc, list):
        for v in doc:
            map_statements(v, fn)


def compare_ir(before, after):
    """(status, detail) of two (rc, ir, warnings) triples: 'same' or 'differ' with the first difference."""
    (rc0, ir0, warn0), (rc1, ir1, warn1) = before, after
    if rc1 == rc0 and ir1 == ir0 and warn1 == warn0:
        return "same", ""
    if ir1 == ir0 and rc1 == rc0:
        return "differ", f"warnings {warn0[:2]} -> {warn1[:2]}"
    return "differ", first_difference(rc0, ir0, rc1, ir1)


def check_respelt(ptoc, spec_path, work, respelt, name):
    """The check of a respelling that leaves the program alone: `respelt` is the new text (or None: 'none'),
    written to work/spec_NAME.yaml; the IRs are compared without source positions."""
    if respelt is None:
        return "none", ""
    ir = lambda ptoc, path: emit_ir(ptoc, path, positions=False)  # noqa: E731
    before = ir(ptoc, spec_path)
    if before[0] != 0:
        return "reject", ""
    path = os.path.join(work, f"spec_{name}.yaml")
    with open(path, "w") as f:
        f.write(respelt)
    return compare_ir(before, ir(ptoc, path))


def selftest_specs(check, ptoc, seeds=24, min_same=0):
    """A check over the library and conformance specs and `seeds` generated ones: (problems, counts)."""
    specs = library_specs()
    conf = os.path.join(ROOT, "test", "conformance", "specs")
    specs += sorted(os.path.join(conf, f) for f in os.listdir(conf) if f.endswith(".yaml"))
    bad, counts = [], {}
    with tempfile.TemporaryDirectory() as work:
        for s in specs:
            st, detail = check(ptoc, s, work)
            counts[st] = counts.get(st, 0) + 1
            if st == "differ":
                bad.append(f"{s}: {st} {detail}")
        import gen
        for seed in range(seeds):
            path = os.path.join(work, "gen.yaml")
            with open(path, "w") as f:
                f.write(gen.generate(seed, ()).spec_text())
            st, detail = check(ptoc, path, work, seed)
            counts[st] = counts.get(st, 0) + 1
            if st == "differ":
                bad.append(f"seed {seed}: {st} {detail}")
    if counts.get("same", 0) < min_same:
        bad.append(f"too few specs respelt and compared: {counts}")
    return bad, counts


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
