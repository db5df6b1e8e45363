#!/usr/bin/env python3
"""Crafted bundles (issue 12): a valid bundle, one field changed at a time with every checksum
recomputed (bundle_craft), must be refused by `ptorun` and `ptorun info` with exit 1 and a message
naming what is wrong; never run, never crash. The unchanged re-pack must be byte-identical and run.
  crafted_bundles.py PTOC PTORUN BUNDLE_CRAFT SOURCE_ROOT"""
import os
import subprocess
import sys
import tempfile

ptoc, ptorun, craft, src = sys.argv[1:5]

# mutation -> text the refusal must contain; "run" marks refusals that only the bound dims can find
# (task arguments are dim expressions), so `ptorun info` accepts them; the run's preflight
# (runtime/task_preflight.h) refuses them before the first kernel call.
CASES = {
    "arg_offset": ("lies outside every GM tensor of the run; the bundle is refused before the run", "run"),
    "arg_extent": ("valid extent 100000 x 1024 of its 8 x 1024 tile reaches byte 204800000, past the end of buffer", "run"),
    "buffer_offset_arg": ("points at byte 1600000 of TLOAD's", "run"),
    "tile_extent": ("its 64 x 1024 tile of 2-byte elements at byte 0 of buffer", ""),
    "buffer_offset": ("points 2000000 bytes into buffer 0", ""),
    "buffer_addr": ("runs past its 262144-byte memory", ""),
    # Reductions, transposes, extracts and matmuls: every local-memory window their kernels walk
    # (runtime/program/leaf_footprint.h); constant extents at load, argument-dependent ones by the preflight.
    "reduce_cols": ("leaf program instruction 45 (TREDUCE): operand 1 (buffer 1, 32768 bytes at byte 16384) "
                    "reaches bytes [16384, 445056) for these extents, outside its 262144-byte local memory", "run"),
    "reduce_rows": ("(TREDUCE): operand 0 (buffer 2, 32 bytes at byte 49152) reaches bytes [49152, 449152) for these "
                    "extents, outside its 262144-byte local memory", "run"),
    "reduce_cols_arg": ("(task 2 of root function 'LOOP_ROWS', device task 0): leaf program instruction 45 (TREDUCE): "
                        "operand 1 (buffer 1, 32768 bytes at byte 16384) reaches bytes [16384, 307200)", "run"),
    "transpose_cols": ("(TTRANSPOSE): operand 0 (buffer 2, 16384 bytes at byte 16384) reaches bytes [16384, 12816384)",
                       "run", "specs/examples/transpose_tiles.yaml"),
    "extract_row": ("(TEXTRACT_L0A): operand 1 (buffer 0, 65536 bytes at byte 0) reaches bytes", "",
                    "specs/matmul.yaml"),
    "mmad_k": ("(TMMAD): operand 1 (buffer", "run", "specs/matmul.yaml"),
    "successor": ("successor 999999 out of range", ""),
    "class": ("leaf class #4242 out of range", ""),
    "float_value": ("the number 9.2e+19 is not a 64-bit integer", ""),
    "gm_slots": ("GM slots for kernel", ""),
    "deltas": ("deltas for a template of", ""),
    "region_tensor": ("region tensor #77 out of range", ""),
    "control_root": ("calls root #99, out of range", ""),
    "load_tensor": ("reads run-time value 'x[0]' from tensor #99, out of range", ""),
    "depth": ("deeper than the loop_depth limit of 1000 levels", ""),
    "leaf_kernel": ("kernel #99 out of range", ""),
    "leaf_id": ("leaf class #0 has id 5", ""),
    "temp_root": ("owning root #50 out of range", ""),
    "kernel_count": ("its kernel count differs from the kernels section", ""),
    "leaf_program_truncated": ("section 'leaf_programs' is refused", ""),
    "roots_truncated": ("section 'roots' is not valid JSON", ""),
    "padding": ("padding byte", ""),
    "trailing": ("4096 trailing bytes after the last section", ""),
    "truncated_file": ("truncated bundle: section", ""),
    "section_count": ("implausible section count 65", ""),
    "reserved": ("reserved field of its table entry is not 0", ""),
    "overlap": ("the layout puts it at", ""),
    # Every byte class of the file: magic, version, header checksum, a section checksum, a payload
    # byte (with the padding, trailing, reserved and layout cases above, no byte is uncovered).
    "magic": ("not a ptoc bundle (wrong magic", ""),
    "version": (", this ptorun reads format ", ""),
    "header_checksum": ("the header checksum does not match", ""),
    "section_checksum": ("checksum mismatch in section 'manifest'", ""),
    "payload": ("checksum mismatch in section 'roots'", ""),
}

failures = []


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120)


with tempfile.TemporaryDirectory(prefix="harden-crafted-") as d:
    env_cache = dict(os.environ, XDG_CACHE_HOME=os.path.join(d, "cache"))
    good = os.path.join(d, "good.bundle")
    r = subprocess.run([ptoc, os.path.join(src, "specs/softmax.yaml"), "-o", good], capture_output=True, text=True,
                       env=env_cache)
    if r.returncode != 0:
        sys.exit("ptoc failed: " + r.stderr)
    same = os.path.join(d, "same.bundle")
    r = run([craft, good, same, "none"])
    if r.returncode != 0 or open(good, "rb").read() != open(same, "rb").read():
        failures.append("re-pack without a change is not byte-identical: " + r.stderr)
    r = run([ptorun, same, "--dim", "B=37", "--check"])
    if r.returncode != 0:
        failures.append("the unchanged re-pack does not run: " + r.stderr)
    others = {}  # spec -> its bundle, for the cases on other specs than softmax
    for m, (text, when, *spec) in CASES.items():
        bad = os.path.join(d, m + ".bundle")
        base, dims = good, ["--dim", "B=37"]
        if spec:
            if spec[0] not in others:
                others[spec[0]] = os.path.join(d, os.path.basename(spec[0]) + ".bundle")
                r = subprocess.run([ptoc, os.path.join(src, spec[0]), "-o", others[spec[0]]], capture_output=True,
                                   text=True, env=env_cache)
                if r.returncode != 0:
                    sys.exit("ptoc failed: " + r.stderr)
            base, dims = others[spec[0]], []
        r = run([craft, base, bad, m])
        if r.returncode != 0:
            failures.append(f"{m}: bundle_craft failed: {r.stderr.strip()}")
            continue
        cmds = [[ptorun, bad] + dims] + ([] if when == "run" else [[ptorun, "info", bad]])
        for cmd in cmds:
            r = run(cmd)
            what = " ".join(["ptorun"] + cmd[1:]).replace(d + "/", "")
            if r.returncode != 1 or text not in r.stderr or "internal error" in r.stderr:
                failures.append(f"{m}: `{what}` exit {r.returncode}, stderr: {r.stderr.strip()[:400]!r} "
                                f"(expected exit 1 and {text!r})")
            else:
                print(f"ok {m}: {what}: {r.stderr.strip().splitlines()[-1][:160]}")

for f in failures:
    print("FAIL " + f)
n = len(CASES) + 1
print(f"{n - len({f.split(':')[0] for f in failures})} passed, {len({f.split(':')[0] for f in failures})} failed")
sys.exit(1 if failures else 0)
