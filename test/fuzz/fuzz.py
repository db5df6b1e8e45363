#!/usr/bin/env python3
"""Differential spec fuzzer for ptoc/ptorun (test/fuzz/README.md).

  fuzz.py --count N --seed S [--jobs J] [--out DIR] [--no-shrink] [--timeout T]
      generate N random valid specs (seeds S .. S+N-1), compile and run each, classify the outcome,
      shrink every failure and write DIR/summary.txt, DIR/summary.json and DIR/failures/*.yaml
  fuzz.py --ci
      CI mode (meson suite `fuzz`): fixed seed, 100 specs, persistent twin cache in the build tree;
      fails on any new miscompile, crash, timeout or spurious rejection; then runs the regression
      specs of found/ (fixed ones must pass, open ones must still fail: see found/README.md)
  fuzz.py --one SEED [--keep DIR]      one spec, verbose
  fuzz.py --spec FILE.yaml             run one hand-written spec through ptoc/ptorun --check

Outcome classes: pass; rejected (ptoc check refused the generated spec: a generator bug, counted in
the rejection rate); capacity (compile refused a tile set that does not fit the buffers: legitimate);
spurious-rejection (check accepted, compile refused for another reason); crash (signal, exit >= 3,
"internal error", a sanitizer report); timeout; miscompile (ptorun --check failed, or ptorun's
numbers differ from the NumPy model while `ptoc eval` agrees with NumPy); model-mismatch (ptorun
agrees with `ptoc eval` but both differ from the NumPy model: the evaluator or the model is wrong).
"""
import argparse
import json
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import gen_catalog4  # noqa: E402
import gen_catalog5  # noqa: E402
import gen_cover5  # noqa: E402
import gen_lang5  # noqa: E402
import gen_math5  # noqa: E402
import gen_conv6  # noqa: E402
import gen_portB6  # noqa: E402
import gen_evalint6  # noqa: E402
import gen_dtype16  # noqa: E402
import gen_port6a  # noqa: E402
import gen_random6  # noqa: E402
import gen_indexer7  # noqa: E402
import gen_symbolic7  # noqa: E402
import gen_nonfinite8  # noqa: E402
import gen_surface9  # noqa: E402
import gen_cfgcalls  # noqa: E402  (issue 13: every spec also in PyPTO's call spelling)
import gen_function  # noqa: E402  (issue 13: every spec's body also inside pypto.function)
import gen_precision  # noqa: E402  (issue 13: every precision op also with its precision_type)
import gen_dicts  # noqa: E402  (issue 13: literals read from a parameter dict)

IR_CHECKS = ((gen_cfgcalls, "cfgcalls"), (gen_function, "function"), (gen_precision, "precision"), (gen_dicts, "dicts"))
import gen_pack  # noqa: E402
import gen_rtbranch  # noqa: E402
import gen_loopcond  # noqa: E402  (issue 13: pypto.loop(cond))
import gen_scatter_value  # noqa: E402
import gen_topk18  # noqa: E402  (issue 13: topk / argsort at PyPTO's sizes)
import gen_ports19  # noqa: E402  (issue 13: view(x, dtype=))
import gen_fp8_19  # noqa: E402  (issue 13: the 8-bit floats)

# The appended hooks whose constructs --cover can force and the summary counts, with the prefix their
# kinds take on the command line ("" where the kind names are unique on their own).
COVER_HOOKS = [(gen_catalog4, ""), (gen_catalog5, ""), (gen_cover5, ""), (gen_lang5, ""), (gen_math5, "math5_"),
               (gen_conv6, "conv6_"), (gen_portB6, ""), (gen_evalint6, "evalint6_"), (gen_port6a, "port6a_"),
               (gen_random6, "random6_"), (gen_indexer7, "indexer7_"), (gen_symbolic7, "symbolic7_"),
               (gen_nonfinite8, "nonfinite8_"), (gen_surface9, "surface9_"),
               (gen_pack, "pack_"), (gen_rtbranch, "rtbranch_"), (gen_dtype16, "dtype16_"), (gen_loopcond, "loopcond_"), (gen_scatter_value, "scatter_value_"),
               (gen_topk18, "topk18_"), (gen_ports19, "ports19_"), (gen_fp8_19, "fp8_19_")]
import gen_cover  # noqa: E402
import gen_lang  # noqa: E402
from model import ModelError  # noqa: E402
from numerics import compare, make_input  # noqa: E402
from model_tolerance import tolerance_dtype  # noqa: E402

BAD = ("miscompile", "crash", "timeout", "spurious-rejection", "generator-bug")
SANITIZER = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer", "UndefinedBehaviorSanitizer")


class Tools:
    def __init__(self, ptoc, ptorun, timeout, cache=None, cpu_timeout=None):
        self.ptoc, self.ptorun, self.timeout = ptoc, ptorun, timeout
        # A bound on each step's CPU seconds (RLIMIT_CPU: SIGXCPU, classed as a timeout): on a loaded machine
        # the wall-clock bound says more about the load than about ptoc. The wall bound stays as a backstop.
        self.cpu_timeout = cpu_timeout
        self.env = dict(os.environ)
        if cache:
            # absolute: ptoc runs g++ in a temporary folder, and a relative XDG_CACHE_HOME then names
            # a folder that does not exist there ("can't create build/fuzz-cache/ptoc/obj/...o.tmp")
            cache = os.path.abspath(cache)
            os.makedirs(cache, exist_ok=True)
            self.env["XDG_CACHE_HOME"] = cache

    def run(self, cmd):
        """(returncode or 'timeout', stdout+stderr); a negative code is a signal."""
        # The CPU bound is set on the started child (prlimit), not by a preexec_fn: a preexec_fn makes
        # subprocess fork() instead of vfork, and OpenBLAS's fork handler then stops its thread pool under
        # the other job's matmul in the model (a hang of the whole run, seen in this round's first try).
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env,
                                 errors="replace")
        except OSError as e:
            return 127, str(e)
        if self.cpu_timeout:
            cpu = int(math.ceil(self.cpu_timeout))
            try:
                resource.prlimit(p.pid, resource.RLIMIT_CPU, (cpu, cpu + 5))
            except (ProcessLookupError, PermissionError):
                pass  # already gone
        try:
            out, err = p.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return "timeout", ""
        if self.cpu_timeout and p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
            return "timeout", out + err
        return p.returncode, out + err


def crashed(rc, text):
    if rc == "timeout":
        return None
    if rc < 0:
        return f"signal {signal.Signals(-rc).name if -rc in signal.valid_signals() else -rc}"
    if rc >= 3 and rc != 3:
        return f"exit {rc}"
    if "internal error" in text:
        return "internal error"
    for s in SANITIZER:
        if s in text:
            return "sanitizer report"
    return None


def first_line(text, key=None):
    for line in text.splitlines():
        if key is None or key in line:
            return line.strip()[:300]
    return text.strip().splitlines()[0][:300] if text.strip() else ""


class Result:
    def __init__(self, cls, stage, detail="", out=""):
        self.cls, self.stage, self.detail, self.out = cls, stage, detail, out

    def signature(self):
        """What the shrinker keeps constant: class and stage (and the crash kind)."""
        return (self.cls, self.stage, self.detail.split(":")[0] if self.cls == "crash" else "")


def make_inputs(prog):
    rng = np.random.default_rng(prog.seed & 0xFFFFFFFF)
    vals, arrs = {}, {}
    for n, ty in prog.inputs.items():
        shape = prog.shape_of(ty)
        v, a = make_input(rng, ty["dtype"], shape, prog.kinds.get(n, "normal"))
        vals[n], arrs[n] = v, a
    return vals, arrs


def evaluate(tools, prog, work, text=None, numpy_model=True):
    """Compiles and runs one program in `work`; returns a Result."""
    os.makedirs(work, exist_ok=True)
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(text if text is not None else prog.spec_text())
    rc, out = tools.run([tools.ptoc, "check", spec])
    c = crashed(rc, out)
    if c:
        return Result("crash", "check", f"{c}: {first_line(out, 'error') or first_line(out)}", out)
    if rc == "timeout":
        return Result("timeout", "check", "", out)
    if rc != 0:
        return Result("rejected", "check", first_line(out, "error"), out)
    # IR-identity checks: the spec respelt in ways that must not change the program (a difference is a
    # miscompile at the check's stage): vec_tile / cube_tile as set_vec_tile_shapes / set_cube_tile_shapes
    # (gen_cfgcalls.py); the body wrapped in PyPTO's `with pypto.function(...)`, positions mapped back
    # (gen_function.py); every exp / log / sqrt / pow / div ... call with PyPTO's precision_type
    # (gen_precision.py); some statement literals read from a parameter dict by key (gen_dicts.py)
    crc = zlib.crc32(open(spec, "rb").read())
    for check, stage in IR_CHECKS:
        st, detail = check.check(tools.ptoc, spec, work, seed=crc)
        check.COUNTS[st] = check.COUNTS.get(st, 0) + 1
        if st == "differ":
            return Result("miscompile", stage, detail, "")
    bundle = os.path.join(work, "op.bundle")
    rc, out = tools.run([tools.ptoc, spec, "-o", bundle, *getattr(prog, "ptoc_args", [])])
    c = crashed(rc, out)
    if c:
        return Result("crash", "compile", f"{c}: {first_line(out, 'error') or first_line(out)}", out)
    if rc == "timeout":
        return Result("timeout", "compile", "", out)
    if rc != 0:
        line = first_line(out, "error")
        # buffers that do not fit, or more leaf tasks than a root function holds (a located limit)
        if any(k in line for k in ("does not fit", "bytes", "capacity", "exceeds", "leaf tasks, more than")):
            return Result("capacity", "compile", line, out)
        return Result("spurious-rejection", "compile", line, out)
    vals, arrs = make_inputs(prog)
    args = []
    for n, a in arrs.items():
        p = os.path.join(work, f"in_{n}.npy")
        np.save(p, a)
        args += ["--input", f"{n}={p}"]
    for d, spec_d in prog.dims.items():
        if isinstance(spec_d, dict):
            args += ["--dim", f"{d}={prog.dimval[d]}"]
    outs = {o: os.path.join(work, f"run_{o}.npy") for o in prog.outputs}
    for o, p in outs.items():
        args += ["--output", f"{o}={p}"]
    rc, out = tools.run([tools.ptorun, bundle, "--check", "-j", "1", "--output-dir", os.path.join(work, "prof"),
                         *args, *getattr(prog, "ptorun_args", [])])
    c = crashed(rc, out)
    if c:
        return Result("crash", "run", f"{c}: {first_line(out, 'error') or first_line(out)}", out)
    if rc == "timeout":
        return Result("timeout", "run", "", out)
    if rc == 2:
        return Result("spurious-rejection", "run", first_line(out, "error"), out)
    if rc == 1:
        # ptorun refused its input: when the evaluator refuses the same inputs too, the generator made
        # inputs that do not fit its own spec (seed 1164), not the compiler a wrong program
        ev = {o: os.path.join(work, f"eval_{o}.npy") for o in prog.outputs}
        erc, eout = tools.run([tools.ptoc, "eval", spec, *eval_args(prog, work, arrs, ev)])
        if erc == 1:
            return Result("generator-bug", "run", first_line(out, "error") or first_line(out), out + eout)
    if rc != 0:
        return Result("miscompile", "run", first_line(out, "FAIL") or first_line(out, "error") or first_line(out),
                      out)
    dep = next((ln.strip() for ln in out.splitlines() if ln.startswith("dependency check:")), "")
    if dep and not dep.startswith("dependency check: ok"):
        # runtime_debug_mode 3 found two tasks touching the same GM bytes, one writing, unordered
        return Result("miscompile", "run", dep, out)
    if not numpy_model:
        return Result("pass", "run", "", out)
    try:
        want = prog.expected(vals)
    except ModelError as e:
        return Result("pass", "run", f"no NumPy model: {e}", out)
    except Exception as e:  # noqa: BLE001 - a bug of the model itself, reported as such
        return Result("model-error", "numpy", f"{type(e).__name__}: {e}", out)
    bad = []
    for o, ty in prog.outputs.items():
        got = np.load(outs[o])
        ok, msg = compare(got, want[o], tolerance_dtype(prog, ty["dtype"]))
        if not ok:
            bad.append(f"{o}: {msg}")
    if not bad:
        return Result("pass", "run", "", out)
    # Who is wrong: the evaluator, asked the same question, against the model.
    ev = {o: os.path.join(work, f"eval_{o}.npy") for o in prog.outputs}
    rc, eout = tools.run([tools.ptoc, "eval", spec, *eval_args(prog, work, arrs, ev)])
    if rc != 0:
        return Result("crash" if crashed(rc, eout) else "miscompile", "eval", first_line(eout, "error"), eout)
    eval_ok = all(compare(np.load(ev[o]), want[o], tolerance_dtype(prog, ty["dtype"]))[0]
                  for o, ty in prog.outputs.items())
    if eval_ok:
        return Result("miscompile", "numpy", "; ".join(bad)[:400], out)
    return Result("model-mismatch", "numpy", "; ".join(bad)[:400], out)


def eval_args(prog, work, arrs, outs):
    """`ptoc eval` arguments for the inputs evaluate() saved in `work`, the run-time dims and `outs`."""
    args = []
    for n in arrs:
        args += ["--input", f"{n}={os.path.join(work, f'in_{n}.npy')}"]
    for d, spec_d in prog.dims.items():
        if isinstance(spec_d, dict):
            args += ["--dim", f"{d}={prog.dimval[d]}"]
    for o, p in outs.items():
        args += ["--output", f"{o}={p}"]
    return args


class _Unprintable:
    """What run_seed returns as the program when the generator raised: its seed and nothing to print."""

    def __init__(self, seed):
        self.seed, self.dims, self.dimval, self.inputs, self.outputs = seed, {}, {}, {}, {}

    def spec_text(self, header=""):
        return header + "# the generator raised before it produced a spec\n"


def run_seed(tools, seed, work, keep=False, avoid=()):
    t0 = time.time()
    try:
        prog = gen.generate(seed, avoid)
        text = prog.spec_text()  # a name declared in two of inputs / outputs / tensors raises here
    except gen.GeneratorBug as e:
        res = Result("generator-bug", "generate", str(e), "")
        res.seconds = time.time() - t0
        return _Unprintable(seed), res
    res = evaluate(tools, prog, work, text=text)
    res.seconds = time.time() - t0
    if not keep and res.cls in ("pass", "rejected", "capacity"):
        shutil.rmtree(work, ignore_errors=True)
    return prog, res


def header(prog, res, note=""):
    lines = [f"# Found by test/fuzz/fuzz.py, seed {prog.seed}: {res.cls} at {res.stage}",
             f"# expect: {res.cls}",
             f"# {res.detail[:300]}"]
    if note:
        lines.append(f"# {note}")
    lines.append(f"# dims at run time: {json.dumps({d: prog.dimval[d] for d in prog.dims})}")
    if getattr(prog, "ptoc_args", None):
        lines.append(f"# ptoc args: {json.dumps(prog.ptoc_args)}")
    if getattr(prog, "ptorun_args", None):
        lines.append(f"# ptorun args: {json.dumps(prog.ptorun_args)}")
    return "\n".join(lines) + "\n"


def long_mode(a):
    import shrink
    tools = Tools(a.ptoc, a.ptorun, a.timeout, a.cache, a.cpu_timeout)
    os.makedirs(a.out, exist_ok=True)
    fails = os.path.join(a.out, "failures")
    os.makedirs(fails, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="ptoc-fuzz-", dir=a.tmp)
    counts, records = {}, []
    t0 = time.time()
    seeds = range(a.seed, a.seed + a.count)

    def one(seed):
        return seed, run_seed(tools, seed, os.path.join(tmp, str(seed)), avoid=a.avoid)

    log = open(os.path.join(a.out, "log.txt"), "a")
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for seed, (prog, res) in ex.map(one, seeds):
            counts[res.cls] = counts.get(res.cls, 0) + 1
            rec = {"seed": seed, "class": res.cls, "stage": res.stage, "detail": res.detail,
                   "seconds": round(res.seconds, 2), "features": features(prog)}
            records.append(rec)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            if res.cls not in ("pass", "capacity"):
                print(f"seed {seed}: {res.cls} at {res.stage}: {res.detail[:200]}", flush=True)
                with open(os.path.join(fails, f"seed{seed}_{res.cls}.yaml"), "w") as f:
                    f.write(prog.spec_text(header(prog, res)))
                with open(os.path.join(fails, f"seed{seed}_{res.cls}.log"), "w") as f:
                    f.write(res.out)  # the whole output of the failing step
                if res.cls in BAD + ("model-mismatch",) and not a.no_shrink:
                    small, sres, steps = shrink.shrink(tools, prog, res, os.path.join(tmp, f"shrink{seed}"),
                                                       deadline=time.time() + a.shrink_seconds)
                    with open(os.path.join(fails, f"seed{seed}_{res.cls}_min.yaml"), "w") as f:
                        f.write(small.spec_text(header(small, sres, f"minimised in {steps} accepted steps")))
                    rec["minimised"] = True
            done = len(records)
            if done % 25 == 0:
                write_summary(a, records, counts, time.time() - t0)
                print(f"[{done}/{a.count}] {time.time() - t0:.0f} s {counts}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    text = write_summary(a, records, counts, time.time() - t0)
    print(text)
    print(f"cfgcalls (IR of the call spelling vs the mapping spelling): {gen_cfgcalls.COUNTS}")
    print(f"function (IR of the body inside pypto.function vs without): {gen_function.COUNTS}")
    print(f"precision (IR with precision_type on every precision op vs without): {gen_precision.COUNTS}")
    print(f"dicts (IR with literals read from a parameter dict vs written): {gen_dicts.COUNTS}")
    return counts


def features(prog):
    """The constructs of gen_lang.py and gen_cover.py a program uses (per-feature counts in the summary)."""
    if isinstance(prog, _Unprintable):
        return []
    used = set(gen_lang.used(prog)) | set(gen_cover.used(prog))
    for hook, _ in COVER_HOOKS:
        used |= set(hook.used(prog))
    return sorted(used)


def _child_cpu():
    """CPU seconds (user + system) of every finished child of this process: ptoc, ptorun, g++."""
    t = os.times()
    return t.children_user + t.children_system


def write_summary(a, records, counts, el):
    """summary.json and summary.txt of the specs done so far (rewritten every 25 specs and at the end)."""
    gen_n = len(records)
    rejected = counts.get("rejected", 0)
    compiled = sum(1 for r in records if r["stage"] not in ("check", "compile"))
    ran = compiled
    summary = {"specs_generated": gen_n, "rejected_by_check": rejected,
               "rejection_rate": round(rejected / max(gen_n, 1), 4), "compiled": compiled, "ran": ran,
               "classes": counts, "seconds": round(el, 1), "cpu_seconds": round(_child_cpu(), 1), "seed": a.seed, "count": a.count, "jobs": a.jobs,
               "avoid": list(a.avoid), "failures": [r for r in records if r["class"] not in ("pass", "capacity")]}
    usage = {}
    for r in records:
        for f in r.get("features", []):
            usage.setdefault(f, {})
            usage[f][r["class"]] = usage[f].get(r["class"], 0) + 1
    summary["features"] = {f: usage[f] for f in sorted(usage)}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    text = (f"specs generated {gen_n}, rejected by ptoc check {rejected} ({100 * summary['rejection_rate']:.1f} %), "
            f"compiled {compiled}, run {ran}, in {el:.0f} s wall, {summary['cpu_seconds']:.0f} s CPU (jobs {a.jobs})\n"
            f"outcomes: {json.dumps(counts)}\n"
            f"features (specs using each, by outcome): {json.dumps(summary['features'])}\n")
    for r in summary["failures"]:
        text += f"  seed {r['seed']}: {r['class']} at {r['stage']}: {r['detail'][:200]}\n"
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write(text)
    return text


def spec_mode(a, path, prog=None):
    tools = Tools(a.ptoc, a.ptorun, a.timeout, a.cache, a.cpu_timeout)
    work = tempfile.mkdtemp(prefix="ptoc-fuzz-spec-", dir=a.tmp)
    with open(path) as f:
        text = f.read()
    res = evaluate(tools, spec_program(text), work, text=text, numpy_model=False)
    shutil.rmtree(work, ignore_errors=True)
    return res


class SpecOnly:
    """A hand-kept spec (found/): inputs from its dims, no NumPy model (ptorun --check decides)."""

    def __init__(self, doc, dimval):
        self.seed = zlib.crc32(doc["name"].encode())
        self.inputs = doc.get("inputs") or {}
        self.outputs = doc.get("outputs") or {}
        self.dims = doc.get("dims") or {}
        self.dimval = dimval
        self.kinds = {n: "small" for n, t in self.inputs.items() if t["dtype"] in gen.INTS}
        for n, t in self.inputs.items():
            if isinstance(t.get("values"), list) and len(t["values"]) == 2:
                # run-time values (slots, trip counts): inside their declared range, as the generator draws them
                self.kinds[n] = f"range:{int(t['values'][0])}:{int(t['values'][1])}"

    def shape_of(self, ty):
        from model import dim_eval
        return tuple(dim_eval(e, self.dimval) for e in ty["shape"])


def spec_program(text):
    import yaml
    doc = yaml.safe_load(text)
    dimval = {}
    args = {"ptoc": [], "ptorun": []}
    for line in text.splitlines():
        if line.startswith("# dims at run time:"):
            dimval = json.loads(line.split(":", 1)[1])
        for tool in args:
            if line.startswith(f"# {tool} args:"):
                args[tool] = json.loads(line.split(":", 1)[1])
    for d, v in (doc.get("dims") or {}).items():
        if not isinstance(v, dict):
            dimval[d] = v
        else:
            dimval.setdefault(d, 37)
    prog = SpecOnly(doc, dimval)
    prog.ptoc_args, prog.ptorun_args = args["ptoc"], args["ptorun"]
    return prog


def ci_mode(a):
    """Fixed seed, 100 specs; then the regression specs of found/."""
    build = os.environ.get("PTOC_BUILD_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(a.ptoc)))
    a.cache = a.cache or os.path.join(build, "fuzz-cache")
    a.out = a.out or os.path.join(build, "fuzz-ci")
    shutil.rmtree(a.out, ignore_errors=True)
    a.seed, a.count = a.seed if a.seed_given else 20260000, a.count if a.count_given else 100
    a.no_shrink = True
    a.avoid = sorted(gen.KNOWN)
    print("CI leaves out the patterns of open known bugs (gen.KNOWN): " +
          "; ".join(f"{k}: {v}" for k, v in gen.KNOWN.items()))
    t0 = time.time()
    counts = long_mode(a)
    status = 0
    # Seeds of this CI run whose failure is kept in found/open/ (header "seed N: CLASS") are expected
    # failures while the bug is open; one that now passes is reported so its spec moves to fixed/.
    expected = open_seeds()
    with open(os.path.join(a.out, "summary.json")) as f:
        recs = {r["seed"]: r for r in json.load(f)["failures"]}
    new = {}
    for seed, cls in sorted(expected.items()):
        if seed < a.seed or seed >= a.seed + a.count:
            continue
        r = recs.get(seed)
        if r and r["class"] == cls:
            print(f"  xfail seed {seed}: still {cls} (kept in found/open/)")
        else:
            print(f"  FIXED? seed {seed} no longer fails with {cls} (now {r['class'] if r else 'pass'}): "
                  f"move its spec from test/fuzz/found/open/ to found/fixed/")
            status = 1
    for seed, r in recs.items():
        if r["class"] in BAD and expected.get(seed) != r["class"]:
            new[r["class"]] = new.get(r["class"], 0) + 1
    if new:
        print(f"FAIL: new failures {new}: the specs are in {a.out}/failures; shrink them with "
              f"`python3 test/fuzz/fuzz.py --count 1 --seed SEED` and keep each in test/fuzz/found/")
        status = 1
    rate = counts.get("rejected", 0) / max(a.count, 1)
    if rate > 0.05:
        print(f"FAIL: rejection rate {100 * rate:.1f} % > 5 %: the generator emits invalid specs")
        status = 1
    status |= regression_mode(a)
    print(f"fuzz CI: {time.time() - t0:.0f} s")
    return status


def open_seeds():
    """{seed: class} from the headers of found/open/*.yaml ("# Found by ..., seed N: CLASS at STAGE")."""
    import re
    out = {}
    d = os.path.join(HERE, "found", "open")
    for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, fn)) as f:
            m = re.search(r"^# Found by test/fuzz/fuzz.py, seed (\d+)[^:]*: ([a-z-]+)", f.read(3000), re.M)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def families_agree(a, path):
    """`# compare: families`: the spec compiles to the same bundle bytes with and without tile families (the
    family path partitions one member and replicates it; both must count and lay out the same tasks)."""
    tools = Tools(a.ptoc, a.ptorun, a.timeout, a.cache, getattr(a, "cpu_timeout", None))
    work = tempfile.mkdtemp(prefix="ptoc-fuzz-fam-", dir=a.tmp)
    try:
        bundles = []
        for extra in ([], ["--no-families"]):
            b = os.path.join(work, f"op{len(bundles)}.bundle")
            rc, out = tools.run([tools.ptoc, path, "-o", b, *extra])
            c = crashed(rc, out)
            if c or rc == "timeout":
                return Result("crash" if c else "timeout", "compile", f"{extra}: {c or ''} {first_line(out)}", out)
            if rc != 0:
                return Result("spurious-rejection", "compile", f"{extra or 'families'}: {first_line(out, 'error')}",
                              out)
            with open(b, "rb") as f:
                bundles.append(f.read())
        if bundles[0] != bundles[1]:
            return Result("miscompile", "compile", "the bundles with and without --no-families differ", "")
        return Result("pass", "compile", "", "")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def regression_mode(a):
    """found/open/*.yaml must still fail as their header says (expected failure); found/fixed/*.yaml must pass."""
    status = 0
    listing = []
    for sub in ("open", "fixed"):
        d = os.path.join(HERE, "found", sub)
        for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not fn.endswith(".yaml"):
                continue
            path = os.path.join(d, fn)
            with open(path) as f:
                head = f.read(2000)
            expect = "pass"
            bound = a
            for line in head.splitlines():
                if line.startswith("# expect:"):
                    expect = line.split(":", 1)[1].strip()
                if line.startswith("# timeout:"):
                    # A compile-time pathology that was fixed: each step must finish within this bound
                    # (seconds; generous, so only a regression to the old behaviour trips it).
                    bound = argparse.Namespace(**vars(a))
                    bound.timeout = min(a.timeout, float(line.split(":", 1)[1].split()[0]))
                if line.startswith("# cpu-timeout:"):
                    # The same bound in CPU seconds per step (RLIMIT_CPU), whatever the load.
                    bound = argparse.Namespace(**vars(bound if bound is not a else a))
                    cpu = float(line.split(":", 1)[1].split()[0])
                    bound.cpu_timeout = min(a.cpu_timeout, cpu) if a.cpu_timeout else cpu
            if "\n# compare: families" in "\n" + head:
                res = families_agree(bound, path)
            else:
                res = spec_mode(bound, path)
            if sub == "fixed":
                ok = res.cls == "pass"
                listing.append(f"  {'ok  ' if ok else 'FAIL'} fixed/{fn}: {res.cls} {res.detail[:120]}")
                if not ok:
                    status = 1
            else:
                still = res.cls == expect
                if still:
                    listing.append(f"  xfail open/{fn}: still {res.cls} (bug not fixed yet)")
                else:
                    listing.append(f"  FIXED? open/{fn}: now {res.cls} {res.detail[:100]} (expected {expect}): "
                                   f"move it to test/fuzz/found/fixed/ (git mv) so it guards the fix")
                    status = 1
    if listing:
        print("regression specs (test/fuzz/found):\n" + "\n".join(listing))
    return status


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ptoc", default=None)
    p.add_argument("--ptorun", default=None)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default=None)
    p.add_argument("--cache", default=None, help="XDG_CACHE_HOME for the host-twin cache")
    p.add_argument("--tmp", default=None)
    p.add_argument("--timeout", type=float, default=300, help="wall-clock seconds per step")
    p.add_argument("--cpu-timeout", type=float, default=None,
                   help="CPU seconds per step (RLIMIT_CPU); a step past it is a timeout whatever the load")
    p.add_argument("--shrink-seconds", type=float, default=300)
    p.add_argument("--no-shrink", action="store_true")
    p.add_argument("--avoid-known", action="store_true", help="leave out the patterns of gen.KNOWN")
    p.add_argument("--ci", action="store_true")
    p.add_argument("--regressions", action="store_true")
    p.add_argument("--one", type=int)
    p.add_argument("--spec")
    p.add_argument("--keep")
    p.add_argument("--print", type=int, help="print the spec of one seed")
    p.add_argument("--cover", choices=["symbolic_tile"] + sorted(gen_cover.TOP) + sorted(gen_cover.OPT_IN) +
                   [pre + k for hook, pre in COVER_HOOKS for k in sorted(hook.KINDS)],
                   help="a test run of one construct of gen_cover.py or of an appended hook (COVER_HOOKS): "
                        "every seed that can take it does")
    a = p.parse_args()
    a.avoid = []
    a.seed_given = "--seed" in sys.argv
    a.count_given = "--count" in sys.argv
    a.avoid = sorted(set(gen.KNOWN) | set(gen.KNOWN_LONG)) if a.avoid_known else []
    taken = False  # a hook's construct, else one of gen_cover.py's
    for hook, pre in COVER_HOOKS:
        kind = a.cover[len(pre):] if a.cover and a.cover.startswith(pre) else None
        hook.FORCE = kind if kind in hook.KINDS else None
        taken = taken or hook.FORCE is not None
    gen_cover.FORCE = None if taken else a.cover
    if a.print is not None:
        print(gen.generate(a.print, a.avoid).spec_text())
        return 0
    root = os.path.dirname(os.path.dirname(HERE))
    build = os.environ.get("PTOC_BUILD_ROOT", os.path.join(root, "build"))
    a.ptoc = a.ptoc or os.path.join(build, "cli", "ptoc")
    a.ptorun = a.ptorun or os.path.join(build, "cli", "ptorun")
    if a.ci:
        return ci_mode(a)
    if a.regressions:
        return regression_mode(a)
    if a.spec:
        res = spec_mode(a, a.spec)
        print(f"{res.cls} at {res.stage}: {res.detail}\n{res.out}")
        return 0 if res.cls == "pass" else 1
    if a.one is not None:
        tools = Tools(a.ptoc, a.ptorun, a.timeout, a.cache, a.cpu_timeout)
        work = a.keep or tempfile.mkdtemp(prefix="ptoc-fuzz-one-")
        prog, res = run_seed(tools, a.one, work, keep=True, avoid=a.avoid)
        print(prog.spec_text())
        print(f"{res.cls} at {res.stage} ({res.seconds:.1f} s): {res.detail}\n{res.out}\nfiles in {work}")
        return 0 if res.cls == "pass" else 1
    a.out = a.out or f"fuzz-out-{a.seed}-{a.count}"
    counts = long_mode(a)
    return 1 if any(k in BAD for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
