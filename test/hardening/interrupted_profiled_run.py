#!/usr/bin/env python3
"""SIGINT / SIGTERM in the middle of a long profiled run (issue 12): a real signal to a real ptorun that is
streaming its artifacts (dyn_topo.txt, tilefwk_L1_prof_data.json, the Machine View and the PMU csv, each
through its own NAME.tmp.PID) must leave no temporary file in the run folder, keep the folder's .partial
name (readers skip it), say so on stderr, and exit 130 / 143 as ptorun --help documents.
  interrupted_profiled_run.py PTOC PTORUN SOURCE_ROOT"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

ptoc, ptorun, root = sys.argv[1:4]
tmp = tempfile.mkdtemp(prefix="ptoc_interrupted_")
# The interrupted runs write gigabytes: the folder goes whatever the outcome.
try:
    bundle = os.path.join(tmp, "long.bundle")
    rc, out, err = run([ptoc, os.path.join(root, "test/profiling/specs/long_profiled_loop.yaml"), "-o", bundle])
    expect(rc == 0, "compile long_profiled_loop", err)

    for sig, code, says in [(signal.SIGINT, 130, "ptorun: interrupted (SIGINT)"),
                            (signal.SIGTERM, 143, "ptorun: terminated (SIGTERM)")]:
        base = os.path.join(tmp, sig.name)
        # 10^8 tasks: minutes of work, stopped as soon as every streamed file is open.
        p = subprocess.Popen([ptorun, bundle, "--timing-only", "-q", "--dim", f"B={8 * 10**8}", "--runtime-debug-mode", "1",
                              "--dump-device-perf", "--pmu-event-type", "2", "--output-dir", base],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        temps = []
        while time.monotonic() < deadline and p.poll() is None:
            temps = glob.glob(os.path.join(base, "output_*.partial", "*.tmp*"))
            if len(temps) >= 2:
                break
            time.sleep(0.05)
        expect(p.poll() is None and len(temps) >= 2,
               f"{sig.name}: the run streams several files at once ({', '.join(sorted(os.path.basename(t) for t in temps))})")
        time.sleep(0.3)  # well inside the run, records being written
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        folders = glob.glob(os.path.join(base, "output_*"))
        expect(p.returncode == code, f"{sig.name}: exit {p.returncode} (documented: {code})", err)
        expect(says in err and "is incomplete and keeps its .partial name" in err, f"{sig.name}: stderr says so", err)
        expect(len(folders) == 1 and folders[0].endswith(".partial"), f"{sig.name}: the run folder keeps its .partial name",
               str(folders))
        left = [f for f in os.listdir(folders[0]) if ".tmp" in f]
        expect(not left, f"{sig.name}: no temporary file is left in it", " ".join(left))
        rc, out, err = run([ptorun, "analyze", base])
        expect(rc != 0 and "incomplete" in err, f"{sig.name}: analyze skips the interrupted run", out + err)

finally:
    shutil.rmtree(tmp, ignore_errors=True)
