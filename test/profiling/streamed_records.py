#!/usr/bin/env python3
"""Profiled runs stream their task records (issue 12): dyn_topo.txt and tilefwk_L1_prof_data.json hold
every task whatever the task_records limit, the limit cuts only the Machine View (with its warning), the
streamed files do not depend on the limit, memory does not grow with the task count, a failed run leaves
no folder behind, and `analyze` reads the result.
  streamed_records.py PTOC PTORUN SOURCE_ROOT"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

ptoc, ptorun, root = sys.argv[1:4]
tmp = tempfile.mkdtemp(prefix="ptoc_streamed_")
bundle = os.path.join(tmp, "long.bundle")
rc, out, err = run([ptoc, os.path.join(root, "test/profiling/specs/long_profiled_loop.yaml"), "-o", bundle])
expect(rc == 0, "compile long_profiled_loop", err)


def profiled(name, tasks, *extra):
    folder = os.path.join(tmp, name)
    rc, out, err = run([ptorun, bundle, "--timing-only", "-q", "--dim", f"B={8 * tasks}", "--runtime-debug-mode", "1",
                        "--output-dir", folder, *extra])
    expect(rc == 0, f"{name}: profiled run of {tasks} tasks", out + err)
    runs = glob.glob(os.path.join(folder, "output_*"))
    expect(len(runs) == 1 and not runs[0].endswith(".partial"), f"{name}: one complete run folder", str(runs))
    return runs[0], out


def read(path):
    with open(path, "rb") as f:
        return f.read()


n = 3000
capped, out = profiled("capped", n, "--limit", "task_records=500")
expect(f"[WARN] round 0: task num larger than the task_records limit of 500, the excess part ({n - 500} tasks) "
       "will not be recorded in merged_swimlane.json (dyn_topo.txt and tilefwk_L1_prof_data.json hold every task)"
       in out, "the cap warns and names the files it cut", out)
topo = read(os.path.join(capped, "dyn_topo.txt")).decode().splitlines()
expect(topo[0].startswith("seqNo,taskId,") and len(topo) == 1 + n, f"dyn_topo.txt holds all {n} tasks", str(len(topo)))
keys = [tuple(int(x) for x in row.split(",")[:2]) for row in topo[1:]]
expect(len(set(keys)) == n, "each task once in dyn_topo.txt")
seqs = [k[0] for k in keys]
expect(seqs == sorted(seqs) and seqs[-1] > 10, "dyn_topo.txt in device-task order over many device tasks")
l1 = json.loads(read(os.path.join(capped, "tilefwk_L1_prof_data.json")))
l1_tasks = [t for core in l1 for t in core["tasks"]]
expect(len(l1_tasks) == n, f"tilefwk_L1_prof_data.json holds all {n} tasks", str(len(l1_tasks)))
expect(all([t["execStart"] for t in c["tasks"]] == sorted(t["execStart"] for t in c["tasks"]) for c in l1),
       "each core's tasks by execStart")
swim = json.loads(read(os.path.join(capped, "merged_swimlane.json")))
slices = [e for e in swim["traceEvents"] if e.get("ph") == "X" and e.get("pid") == 1]
expect(len(slices) == 500, "the Machine View holds the 500 kept tasks", str(len(slices)))

full, out = profiled("full", n, "--dump-device-perf")
expect("[WARN]" not in out, "no warning within the limit", out)
for f in ("dyn_topo.txt", "tilefwk_L1_prof_data.json"):
    expect(read(os.path.join(full, f)) == read(os.path.join(capped, f)), f"{f}: the same bytes whatever the limit")
swim = json.loads(read(os.path.join(full, "merged_swimlane.json")))
expect(sum(1 for e in swim["traceEvents"] if e.get("ph") == "X" and e.get("pid") == 1) == n,
       "within the limit the Machine View holds every task")
rc, out, err = run([ptorun, "analyze", full])
expect(rc == 0 and out.strip(), "ptorun analyze reads the streamed run", out + err)

# The per-launch files hold the last round: dyn_topo.txt has no times, so it is the same.
rounds, out = profiled("rounds", n, "--rounds", "2")
expect(read(os.path.join(rounds, "dyn_topo.txt")) == read(os.path.join(full, "dyn_topo.txt")),
       "--rounds 2: dyn_topo.txt of the last round")


# Memory: 10x the tasks with the files holding every one, about the same peak (the whole process,
# artifact writing included: wait4's maximum resident set of the child).
def peak(tasks):
    folder = os.path.join(tmp, f"mem{tasks}")
    p = subprocess.Popen([ptorun, bundle, "--timing-only", "-q", "--dim", f"B={8 * tasks}", "--runtime-debug-mode", "1",
                          "--output-dir", folder, "--limit", "task_records=1000"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = 0
    expect(status == 0, f"{tasks} tasks: profiled run", out)
    run_folder = glob.glob(os.path.join(folder, "output_*"))[0]
    rows = read(os.path.join(run_folder, "dyn_topo.txt")).count(b"\n") - 1
    expect(rows == tasks, f"{tasks} tasks: dyn_topo.txt holds them all", str(rows))
    shutil.rmtree(folder)
    return usage.ru_maxrss / 1024.0


small, big = peak(20000), peak(200000)
expect(big - small < 24, f"peak RSS 20k tasks {small:.1f} MiB, 200k tasks {big:.1f} MiB: grows < 24 MiB",
       f"{small} -> {big}")

# A run that fails before any artifact leaves no run folder (nor a .partial one).
folder = os.path.join(tmp, "failed")
rc, out, err = run([ptorun, bundle, "--timing-only", "--runtime-debug-mode", "1", "--output-dir", folder])
expect(rc == 2 and "dim B is dynamic" in err, "a run without its dim fails", err)
expect(not glob.glob(os.path.join(folder, "output_*")), "and leaves no run folder", str(os.listdir(folder) if os.path.isdir(folder) else ""))
shutil.rmtree(tmp)
print("all streamed-record cases passed")
