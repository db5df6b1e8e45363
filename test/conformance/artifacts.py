"""Checks of one ptorun run's artifacts (`--runtime-debug-mode 1 --dump-device-perf --pmu-event-type 2`),
field by field and against each other, from the formats in shared/reference/pypto-profiling.md.

Nothing here trusts a number ptorun computed for itself: the terminal summary, the analyze table and the
swimlane are recomputed from the raw files (L1 prof data, perf data) and compared with what was printed.
"""
import csv
import glob
import json
import os
import re


class ArtifactError(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise ArtifactError(msg)


SUMMARY = re.compile(r"ran (\S+) on (\S+) \(simulated\): (\d+) tasks in (\d+) device tasks "
                     r"\((\d+) root-function instances\).*?operator end-to-end ([0-9.]+) us")
EVENT = re.compile(r"^([A-Z0-9_]+?)(?:_(\d+))?(?:\((\d+)\))?$")
TOPO_HEADER = ("seqNo,taskId,rootIndex,rootHash,opmagic,leafIndex,leafHash,coreType,psgId,wrapId,"
               "staticSuccCount,successors")
PMU_FIXED = ["thread id", "task id", "stream id", "core id", "seqNo", "sub task id", "total cycle"]
PMU_GROUP2 = ["vec_busy_cycles", "cube_busy_cycles", "scalar_busy_cycles", "mte1_busy_cycles",
              "mte2_busy_cycles", "mte3_busy_cycles", "icache_miss", "icache_req"]
# dav_3510 (950) group 2: the reference's list (vec, cube, scalar, mte1-3 busy, icache req/miss, fixpipe).
PMU_GROUP2_3510 = ["pmu_idc_aic_vec_busy_o", "cube_instr_busy", "scalar_instr_busy", "mte1_instr_busy",
                   "mte2_instr_busy", "mte3_instr_busy", "icache_req", "icache_miss", "pmu_fix_instr_busy"]
FREQ = {"ascend910b1": 50, "ascend910_9391": 50, "ascend950pr": 1000, "ascend950dt": 1000}
CORE_TYPE_CODE = {"AIV": 0, "AIC": 1}


def load(folder, name):
    p = os.path.join(folder, name)
    need(os.path.exists(p), f"{name} was not written in {folder}")
    with open(p) as f:
        if name.endswith(".json"):
            try:
                return json.load(f)
            except ValueError as e:
                raise ArtifactError(f"{name} does not parse: {e}")
        return f.read()


def check_l1(l1, ntasks):
    """tilefwk_L1_prof_data.json: one object per core that ran tasks, AIC blocks before AIV blocks."""
    need(isinstance(l1, list) and l1, "L1 prof data is not a non-empty list")
    tasks = {}
    seen = set()
    last_aic = -1
    first_aiv = None
    for core in l1:
        b, ty = core["blockIdx"], core["coreType"]
        need(b not in seen, f"L1: blockIdx {b} twice")
        seen.add(b)
        need(ty in ("AIC", "AIV", "AI-CPU"), f"L1: coreType {ty!r}")
        need(core["tasks"], f"L1: core {b} listed with no tasks")
        if ty == "AIC":
            last_aic = max(last_aic, b)
        elif ty == "AIV":
            first_aiv = b if first_aiv is None else min(first_aiv, b)
        for t in core["tasks"]:
            for k in ("seqNo", "leafIndex", "taskId", "execStart", "execEnd"):
                need(isinstance(t.get(k), int) and t[k] >= 0, f"L1: task field {k} = {t.get(k)!r}")
            need(t["execStart"] <= t["execEnd"], f"L1: task {t['taskId']} ends before it starts")
            need(t["taskId"] < (1 << 26), f"L1: taskId {t['taskId']} is not masked to 26 bits")
            key = (t["seqNo"], t["taskId"])
            need(key not in tasks, f"L1: task {key} recorded twice")
            tasks[key] = dict(t, core=b, type=ty)
    need(first_aiv is None or last_aic < first_aiv, "L1: an AIV block precedes an AIC block")
    need(len(tasks) == ntasks, f"L1 holds {len(tasks)} tasks, the summary says {ntasks}")
    return tasks


def check_topo(text, tasks):
    """dyn_topo.txt: the same tasks as the L1 data (join key seqNo, taskId, leafIndex), core types agree,
    successors exist and start after their predecessor ends."""
    lines = text.strip().splitlines()
    need(lines and lines[0] == TOPO_HEADER, f"dyn_topo.txt header is {lines[0] if lines else ''!r}")
    rows = {}
    for l in lines[1:]:
        f = [int(x) for x in l.split(",")]
        need(len(f) >= 11, f"dyn_topo.txt: short row {l!r}")
        seq, tid, leaf, ctype, nstatic, succ = f[0], f[1], f[5], f[7], f[10], f[11:]
        need(nstatic <= len(succ), f"dyn_topo.txt: staticSuccCount {nstatic} > {len(succ)} successors")
        need((seq, tid) not in rows, f"dyn_topo.txt: task {(seq, tid)} twice")
        rows[(seq, tid)] = (leaf, ctype, succ, f[3])
    need(set(rows) == set(tasks), f"dyn_topo.txt and L1 disagree on the task set: "
         f"{sorted(set(rows) ^ set(tasks))[:6]}")
    edges = {}
    for key, (leaf, ctype, succ, _) in rows.items():
        t = tasks[key]
        need(leaf == t["leafIndex"], f"task {key}: leafIndex {t['leafIndex']} in L1, {leaf} in dyn_topo")
        need(CORE_TYPE_CODE.get(t["type"]) == ctype, f"task {key} ran on {t['type']}, dyn_topo coreType {ctype}")
        for s in succ:
            need((key[0], s) in rows, f"dyn_topo.txt: successor {s} of {key} is not a task of device task {key[0]}")
            need(tasks[(key[0], s)]["execStart"] >= t["execEnd"],
                 f"task {(key[0], s)} starts at {tasks[(key[0], s)]['execStart']} before its predecessor "
                 f"{key} ends at {t['execEnd']}")
            edges.setdefault(key, set()).add(s)
    return rows, edges


def lanes_of(perf, freq):
    need(isinstance(perf, list) and perf, "perf data is not a non-empty list")
    out = []
    for lane in perf:
        need(lane.get("freq") == freq, f"perf lane {lane.get('coreType')}: freq {lane.get('freq')}, expected {freq}")
        ev = []
        for e in lane["tasks"]:
            m = EVENT.match(e["name"])
            need(m and m.group(2) is not None, f"perf event name {e['name']!r} is not BASE_<round>[(i)]")
            need(isinstance(e["end"], int) and e["end"] >= 0, f"perf event {e['name']}: end {e['end']!r}")
            ev.append((e["end"], m.group(1), int(m.group(2)), None if m.group(3) is None else int(m.group(3))))
        ev.sort(key=lambda x: x[0])
        out.append((lane["coreType"], lane["blockIdx"], ev))
    return out


def first(ev, base, idx=None):
    for e in ev:
        if e[1] == base and (idx is None or e[3] == idx):
            return e[0]
    return None


def check_perf(lanes, ndev, tasks, freq):
    """machine_trace_perf_data_0.json: lane kinds, stage order per lane, one build per device task, and
    every task of the L1 data inside its core's device-task window (one clock for both)."""
    kinds = [l[0] for l in lanes]
    need(kinds[0] == "AICPU-CTRL", f"first perf lane is {kinds[0]}")
    need("AICPU-SCHED" in kinds, "no AICPU-SCHED lane")
    cores = [l for l in lanes if l[0].startswith("SCHED")]
    need(cores, "no SCHED<k>-AIC/AIV lanes")
    for ty, b, ev in lanes:
        need(ty in ("AICPU-CTRL", "AICPU-SCHED") or re.match(r"^SCHED\d+-AI[CV]$", ty), f"perf lane type {ty!r}")
        need(ev and ev[0][1] == "BEGIN", f"perf lane {ty}-{b}: first event is not BEGIN")
        need(all(e[2] == 0 for e in ev), f"perf lane {ty}-{b}: a round other than 0 in a one-round run")
    ty, b, ctrl = lanes[0]
    order = [e[1] for e in ctrl]
    builds = [e for e in ctrl if e[1] == "DEV_TASK_BUILD"]
    need([e[3] for e in builds] == list(range(ndev)),
         f"CTRL builds {[e[3] for e in builds]}, expected one per device task (0..{ndev - 1})")
    need(order[:2] == ["BEGIN", "INIT"] and order[-1] == "EXIT", f"CTRL stage order {order}")
    for ty, b, ev in lanes:
        if ty != "AICPU-SCHED":
            continue
        seq = [e[1] for e in ev]
        for a, c in (("BEGIN", "ALLOC_THREAD_ID"), ("ALLOC_THREAD_ID", "INIT"), ("INIT", "CORE_HAND_SHAKE"),
                     ("CORE_HAND_SHAKE", "WAIT_CORE_EXIT"), ("WAIT_CORE_EXIT", "EXIT")):
            need(a in seq and c in seq and seq.index(a) <= seq.index(c), f"SCHED-{b}: {a} not before {c} in {seq}")
        rcv = first(ev, "DEV_TASK_RCV", 0)
        need(rcv is not None and rcv >= first(ev, "CORE_HAND_SHAKE"), f"SCHED-{b}: DEV_TASK_RCV(0) before handshake")
        need(rcv >= first(ctrl, "DEV_TASK_BUILD", 0), f"SCHED-{b} receives device task 0 before CTRL built it")
    # Each L1 task on core blockIdx b runs within perf lane b+1's window for its device task.
    by_block = {b: ev for ty, b, ev in cores}
    for (seq, tid), t in tasks.items():
        ev = by_block.get(t["core"] + 1)
        need(ev is not None, f"task {(seq, tid)} ran on core {t['core']} but perf data has no lane {t['core'] + 1}")
        lane_ty = [ty for ty, b, _ in cores if b == t["core"] + 1][0]
        need(lane_ty.endswith("-" + t["type"]), f"core {t['core']} is {t['type']} in L1, {lane_ty} in perf data")
        w0 = first(ev, "DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK", seq)
        w1 = first(ev, "DEV_TASK_ALL_LEAF_TASK_EXEC", seq)
        need(w0 is not None and w1 is not None, f"core lane {t['core'] + 1}: no stages for device task {seq}")
        need(t["execStart"] + 1 >= w0 and t["execEnd"] <= w1 + 1,
             f"task {(seq, tid)} [{t['execStart']}, {t['execEnd']}] outside its core's device-task window [{w0}, {w1}]")
    return cores


def check_swimlane(sw, tasks, lanes, freq, edges):
    """merged_swimlane.json: AICPU View (pid 0) holds every perf event, Machine View (pid 1) every task on
    tid 1000 + 2 * (blockIdx + 1) (or +1), at the L1 times; flows pair up and point forward."""
    need(isinstance(sw, dict) and isinstance(sw.get("traceEvents"), list), "merged_swimlane.json has no traceEvents")
    ev = sw["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    need(procs.get(0) == "AICPU View" and procs.get(1) == "Machine View", f"process names {procs}")
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tick = 1.0 / freq
    x1 = [e for e in ev if e.get("ph") == "X" and e["pid"] == 1]
    need(len(x1) == len(tasks), f"Machine View has {len(x1)} task events, L1 has {len(tasks)} tasks")
    seen = set()
    for e in x1:
        key = (e["args"]["seqNo"], e["args"]["taskId"])
        need(key in tasks and key not in seen, f"swimlane task {key} is not an L1 task or appears twice")
        seen.add(key)
        t = tasks[key]
        base = 1000 + 2 * (t["core"] + 1)
        need(e["tid"] in (base, base + 1), f"task {key} on tid {e['tid']}, core {t['core']} is tid {base}")
        name = threads.get((1, base))
        need(name == f"{t['type']}_{t['core'] + 1}", f"tid {base} is named {name!r}, expected {t['type']}_{t['core'] + 1}")
        need(abs(e["ts"] - t["execStart"] / freq) <= tick + 1e-6 and e["dur"] >= 0 and
             abs(e["dur"] - (t["execEnd"] - t["execStart"]) / freq) <= tick + 1e-6,
             f"task {key}: ts/dur {e['ts']}/{e['dur']} vs L1 {t['execStart']}..{t['execEnd']} ticks at {freq}/us")
        need(e["name"].startswith(f"{key[0]}-"), f"task event name {e['name']!r} does not start with its seqNo")
    starts, fins = {}, {}
    for e in ev:
        if e.get("ph") == "s":
            starts[e["id"]] = e["ts"]
        elif e.get("ph") == "f":
            fins[e["id"]] = e["ts"]
    need(set(starts) == set(fins), "dependency flow events do not pair up (s without f or f without s)")
    need(all(starts[i] <= fins[i] + 1e-6 for i in starts), "a dependency flow ends before it starts")
    # Each flow joins a predecessor's end (s at end - 0.0001) to a successor's start (f), along a dyn_topo edge.
    ends, begins = {}, {}
    for key, t in tasks.items():  # L1 times (the flows are placed at them, as draw_swim_lane does)
        ends.setdefault(round(t["execEnd"] / freq, 3), set()).add(key)
        begins.setdefault(round(t["execStart"] / freq, 3), set()).add(key)
    for i in starts:
        preds = set().union(*(ends.get(round(starts[i] + 0.0001 + dt, 3), set()) for dt in (-0.001, 0, 0.001)))
        succs = set().union(*(begins.get(round(fins[i] + dt, 3), set()) for dt in (-0.001, 0, 0.001)))
        need(any(p[0] == q[0] and q[1] in edges.get(p, ()) for p in preds for q in succs),
             f"flow {i} ({starts[i]} -> {fins[i]}) does not join a task's end to a dyn_topo successor's start")
    need(bool(starts) == bool(edges), f"{len(starts)} dependency flows but dyn_topo.txt has {sum(map(len, edges.values()))} edges")
    for e in ev:
        if e.get("ph") == "C":
            need(e["name"] in ("ReadyCount_AIC", "ReadyCount_AIV", "ReadyCount_Total", "Dependence Solving (MHz)"),
                 f"counter {e['name']!r}")
            need(e["args"]["size"] >= 0, f"counter {e['name']} negative")
    x0 = [e for e in ev if e.get("ph") == "X" and e["pid"] == 0]
    nperf = sum(len(l[2]) for l in lanes)
    need(len(x0) == nperf, f"AICPU View has {len(x0)} events, perf data {nperf}")
    need(all(e["dur"] >= 0 and e["ts"] >= 0 for e in x0), "AICPU View event with negative time")
    for i, (ty, b, lev) in enumerate(lanes):
        need(threads.get((0, i)) == f"{ty}-{b}", f"AICPU View tid {i} is {threads.get((0, i))!r}, expected {ty}-{b}")
        # gen_perfetto's rule: sorted by end, equal ends bumped by one tick, start = previous end (BEGIN: end - 1).
        got = sorted(((e["ts"], e["dur"], e["name"]) for e in x0 if e["tid"] == i), key=lambda g: g[0] + g[1])
        need(len(got) == len(lev), f"AICPU View lane {ty}-{b}: {len(got)} events, perf data {len(lev)}")
        prev = None
        for (ts, dur, nm), (end, base, rnd, idx) in zip(got, lev):
            if prev is not None and end <= prev:
                end = prev + 1
            start = end - 1 if base == "BEGIN" or prev is None else prev
            want = (start / freq, max(end - start, 1) / freq)
            want_name = f"{base}_{rnd}" + ("" if idx is None else f"({idx})")
            need(nm == want_name, f"AICPU View {ty}-{b}: event {nm!r} where the perf data has {want_name!r}")
            need(abs(ts - want[0]) <= 1.0 / freq + 1e-6 and abs(dur - want[1]) <= 1.0 / freq + 1e-6,
                 f"AICPU View {ty}-{b} {nm}: ts/dur {ts}/{dur}, perf data gives {want[0]}/{want[1]}")
            prev = end
    return len(starts)


def analyze_expected(all_lanes, freq, rnd=0):
    """The analyze table recomputed from the perf data (reference section 2), in us; None for '-'."""
    def dur(ev, base, idx=None):
        for i, e in enumerate(ev):
            if e[1] == base and (idx is None or e[3] == idx):
                return (e[0] - ev[i - 1][0]) / freq if i else 0.0
        return None

    lanes = [(ty, b, [e for e in ev if e[2] == rnd]) for ty, b, ev in all_lanes]
    rows = {}
    for ty, b, ev in lanes:
        if ty == "AICPU-CTRL":
            builds = [(ev[i][0] - ev[i - 1][0]) / freq for i, e in enumerate(ev) if e[1] == "DEV_TASK_BUILD" and i]
            rows[f"AICPU-CTRL-{b}"] = [sum(builds) if builds else None, None, None, None, None, dur(ev, "EXIT"),
                                       None, (ev[-1][0] - ev[0][0]) / freq]
        elif ty == "AICPU-SCHED":
            post = [dur(ev, "DEV_TASK_SYNC_CORE_STOP", 0), dur(ev, "DEV_TASK_RSP", 0), dur(ev, "WAIT_ALL_DEV_TASK_FINISH"),
                    dur(ev, "WAIT_CORE_EXIT"), dur(ev, "EXIT")]
            ends = [x for x in (first(ev, "WAIT_CORE_EXIT"), first(ev, "EXIT")) if x is not None]
            rows[f"AICPU-SCHED-{b}"] = [None, dur(ev, "ALLOC_THREAD_ID"), dur(ev, "INIT"), dur(ev, "CORE_HAND_SHAKE"),
                                        dur(ev, "DEV_TASK_RCV", 0), sum(p for p in post if p is not None), None,
                                        (max(ends) - ev[0][0]) / freq]
    cores = [ev for ty, b, ev in lanes if ty.startswith("SCHED")]
    w0 = min(first(ev, "DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK") for ev in cores if first(ev, "DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK") is not None)
    w1 = max(e[0] for ev in cores for e in ev if e[1] == "DEV_TASK_ALL_LEAF_TASK_EXEC")
    lo = min(ev[0][0] for ev in cores)
    hi = max(ev[-1][0] for ev in cores)
    rows["AICore"] = [None, None, (w0 - lo) / freq, None, None, (hi - w1) / freq, (w1 - w0) / freq, (hi - lo) / freq]
    return rows


ANALYZE_COLS = ["Compute Units", "DEV_TASK_BUILD(us)", "ALLOC_THREAD_ID(us)", "INIT(us)", "CORE_HAND_SHAKE(us)",
                "DEV_TASK_RCV(us)", "Post-process(us)", "End-to-End time(us)", "Total run time(us)"]


def check_analyze(text, lanes, freq, rnd=0):
    banners = re.findall(r"=+ round(\d+) =+", text)
    need(str(rnd + 1) in banners, f"analyze printed no round{rnd + 1} banner")
    part = re.split(r"=+ round\d+ =+", text)[banners.index(str(rnd + 1)) + 1]
    rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in part.splitlines() if l.startswith("|")]
    need(rows and rows[0] == ANALYZE_COLS, f"analyze header {rows[0] if rows else None}")
    want = analyze_expected(lanes, freq, rnd)
    got = {r[0]: r[1:] for r in rows[1:]}
    need(set(got) == set(want), f"analyze rows {sorted(got)}, expected {sorted(want)}")
    for unit, cells in want.items():
        for col, w, g in zip(ANALYZE_COLS[1:], cells, got[unit]):
            if w is None:
                need(g == "-", f"analyze {unit} {col}: {g!r}, expected '-'")
            else:
                need(g != "-" and abs(float(g) - w) <= 0.011 and float(g) >= 0,
                     f"analyze {unit} {col}: {g}, recomputed {w:.3f}")
    a = want["AICore"]
    need(a[6] > 0 and a[6] <= 1.01 * a[7], "AICore End-to-End must be > 0 and <= 1.01 x Total run time")
    return want


def check_pmu(text, tasks, freq):
    group = PMU_GROUP2 if freq == 50 else PMU_GROUP2_3510
    busy = group[:6] + group[8:]
    req, miss = "icache_req", "icache_miss"
    rows = list(csv.reader(text.splitlines()))
    need(rows and rows[0] == PMU_FIXED + group, f"PMU CSV header {rows[0] if rows else None}")
    need(len(rows) - 1 == len(tasks), f"PMU CSV has {len(rows) - 1} rows, {len(tasks)} tasks ran")
    seen = set()
    for r in rows[1:]:
        v = [int(x) for x in r]
        d = dict(zip(rows[0], v))
        key = (d["seqNo"], d["sub task id"])  # PyPTO: task id 0, sub task id = the leaf task id
        need(key in tasks and key not in seen, f"PMU row for task {key}: not an L1 task or twice")
        seen.add(key)
        t = tasks[key]
        need(d["core id"] == t["core"], f"PMU task {key} on core {d['core id']}, L1 says {t['core']}")
        need(d["total cycle"] > 0, f"PMU task {key}: total cycle {d['total cycle']}")
        for c in busy:
            need(0 <= d[c] <= d["total cycle"], f"PMU task {key}: {c} {d[c]} outside 0..total cycle {d['total cycle']}")
        need(0 <= d[miss] <= d[req], f"PMU task {key}: icache_miss > icache_req")
        if t["type"] == "AIV":
            need(d[group[1]] == 0, f"PMU: vector task {key} has cube busy cycles")
        if t["type"] == "AIC":
            need(d[group[1]] > 0, f"PMU: cube task {key} has no cube busy cycles")


def check_summary(out, tasks, lanes, freq):
    """The terminal block recomputed from the L1 data: AICore E2E, utilisation; operator E2E from perf data."""
    m = re.search(r"AICore End-to-End Time: ([0-9.]+)\s*\nAICore Utilization: ([0-9.]+)%\s*\nOperator End-to-End Time: ([0-9.]+)", out)
    need(m, "no AICORE Prof Summary block (AICore End-to-End Time / Utilization / Operator End-to-End Time)")
    e2e, util, op = float(m.group(1)), float(m.group(2)), float(m.group(3))
    ts = list(tasks.values())
    lo, hi = min(t["execStart"] for t in ts), max(t["execEnd"] for t in ts)
    want = (hi - lo) / freq
    need(abs(e2e - want) <= 1.0 / freq + 0.011, f"AICore End-to-End Time {e2e}, L1 spans {want:.3f}")
    ncores = len({t["core"] for t in ts})
    busy = sum(t["execEnd"] - t["execStart"] for t in ts)
    wu = 100.0 * busy / (ncores * (hi - lo)) if hi > lo else 0.0
    need(0 <= util <= 100.0 + 1e-9 and abs(util - wu) <= max(1.0, 0.05 * wu),
         f"AICore Utilization {util}%, recomputed {wu:.2f}%")
    t0 = min(ev[0][0] for _, _, ev in lanes)
    t1 = max(ev[-1][0] for ty, _, ev in lanes if ty.startswith("SCHED"))
    need(abs(op - (t1 - t0) / freq) <= 1.0 / freq + 0.011,
         f"Operator End-to-End Time {op}, perf data spans {(t1 - t0) / freq:.3f} (CTRL begin to last core exit)")
    need(op >= e2e, "operator end-to-end shorter than AICore end-to-end")
    return e2e, util, op


def check_run(out, base, ptorun, run, info, ref):
    m = SUMMARY.search(out)
    need(m, "no 'ran NAME on TARGET (simulated): ...' summary line")
    target, ntasks, ndev, nroots = m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5))
    need(ntasks > 0 and 0 < ndev <= nroots, f"summary counts: {ntasks} tasks, {ndev} device tasks, {nroots} roots")
    if ref.expect_roots is not None:
        need(nroots == ref.expect_roots, f"{nroots} root-function instances, expected {ref.expect_roots}")
    if ref.expect_devtasks is not None:
        need(ndev == ref.expect_devtasks, f"{ndev} device tasks, expected {ref.expect_devtasks}")
    freq = FREQ[target]
    folders = sorted(glob.glob(os.path.join(base, "output_*")))
    need(len(folders) == 1, f"expected one output_* folder in {base}, found {len(folders)}")
    folder = folders[0]
    need(f"artifacts: " in out and os.path.basename(folder) in out, "ptorun did not print the artifact folder")
    tasks = check_l1(load(folder, "tilefwk_L1_prof_data.json"), ntasks)
    rows, edges = check_topo(load(folder, "dyn_topo.txt"), tasks)
    prog = load(folder, "program.json")
    need(isinstance(prog.get("functions"), list) and prog["functions"], "program.json has no functions[]")
    hashes = {str(f.get("hash")) for f in prog["functions"]}
    roots = {str(r[3]) for r in rows.values()}
    need(roots <= hashes, f"dyn_topo rootHash {sorted(roots - hashes)[:3]} not a function hash in program.json")
    lanes = lanes_of(load(folder, "machine_trace_perf_data_0.json"), freq)
    check_perf(lanes, ndev, tasks, freq)
    flows = check_swimlane(load(folder, "merged_swimlane.json"), tasks, lanes, freq, edges)
    op = load(folder, "machine_runtime_operator_trace_0.json")
    opx = [e for e in op.get("traceEvents", []) if e.get("ph") == "X"]
    need(len(opx) == sum(len(l[2]) for l in lanes), "machine_runtime_operator_trace_0.json event count differs from the perf data")
    check_pmu(load(folder, "tilefwk_prof_pmu.csv"), tasks, freq)
    if ref.pmu_trace:
        check_pmu_trace(folder, tasks, freq)
    else:
        need(not glob.glob(os.path.join(folder, "PROF_*")), "a PMU trace was written though the bundle has none")
    e2e, util, opus = check_summary(out, tasks, lanes, freq)
    check_analyze(run([ptorun, "analyze", folder]).stdout, lanes, freq)
    pm = run([ptorun, "pmu-csv", folder]).stdout
    need(re.search(rf"\b{ntasks} tasks\b", pm), f"ptorun pmu-csv does not report {ntasks} tasks")
    m = re.search(r"^root functions \((\d+), (\d+) tasks\)", info, re.M)
    need(m, "ptorun info prints no 'root functions (N, T tasks)' line")
    return (f"{ntasks} tasks, {ndev} device tasks, {nroots} roots, {sum(map(len, edges.values()))} dependency "
            f"edges, {flows} flows; "
            f"AICore {e2e} us at {util}%, operator {opus} us")


IDENTICAL = ("tilefwk_L1_prof_data.json", "dyn_topo.txt", "program.json", "machine_trace_perf_data_0.json",
             "machine_runtime_operator_trace_0.json", "merged_swimlane.json", "tilefwk_prof_pmu.csv")


def check_identical(base1, base2):
    """Two runs of one bundle (the second timing-only) wrote the same artifacts, byte for byte."""
    f1, f2 = (sorted(glob.glob(os.path.join(b, "output_*"))) for b in (base1, base2))
    need(len(f1) == 1 and len(f2) == 1, "expected one output_* folder per run")
    for name in IDENTICAL:
        a, b = (open(os.path.join(f[0], name), "rb").read() if os.path.exists(os.path.join(f[0], name)) else None
                for f in (f1, f2))
        need(a is not None and a == b, f"{name} differs between a run with numerics and a timing-only run "
             f"({f1[0]} vs {f2[0]})")


def check_pmu_trace(folder, tasks, freq):
    """950 + enable_pmu_trace: PROF_*/mindstudio_profiler_output/msprof_*.json, a per-pipe timeline of at most 6
    cores; every pipe span lies inside its L1 task on that core; mark_stamp pairs (MTE2 head, MTE3 tail) carry
    the task's PMU id."""
    files = glob.glob(os.path.join(folder, "PROF_*", "mindstudio_profiler_output", "msprof_*.json"))
    need(len(files) == 1, f"expected one PROF_*/mindstudio_profiler_output/msprof_*.json, found {len(files)}")
    with open(files[0]) as f:
        ev = json.load(f)["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
    need(0 < len(procs) <= 6, f"PMU trace covers {len(procs)} cores (1..6 expected)")
    by_core = {}
    for t in tasks.values():
        by_core.setdefault(f"{t['type']}_{t['core'] + 1}", []).append(t)
    stamps = {}
    spans = 0
    for e in ev:
        if e.get("ph") == "X":
            core = procs.get(e["pid"])
            need(core in by_core, f"PMU trace lane {core!r} is not a core that ran tasks")
            key = (e["args"]["seqNo"], e["args"]["taskId"])
            t = tasks.get(key)
            need(t is not None and f"{t['type']}_{t['core'] + 1}" == core, f"PMU trace span for task {key} on {core}")
            lo, hi = t["execStart"] / freq, t["execEnd"] / freq
            need(lo - 1e-6 <= e["ts"] and e["ts"] + e["dur"] <= hi + 1e-3 and e["dur"] >= 0,
                 f"PMU trace span {e['name']} [{e['ts']}, +{e['dur']}] outside task {key} [{lo}, {hi}]")
            need(0 <= e["args"]["pmu_id"] < 4096, f"pmu_id {e['args']['pmu_id']} is not mod 4096")
            stamps.setdefault((e["pid"], e["args"]["pmu_id"]), 0)
            spans += 1
        elif e.get("ph") == "i":
            need(e["name"] == f"mark_stamp {e['args']['pmu_id']}", f"stamp name {e['name']!r}")
            k = (e["pid"], e["args"]["pmu_id"])
            stamps[k] = stamps.get(k, 0) + 1
    need(spans > 0, "PMU trace has no pipe spans")
    need(all(n >= 2 and n % 2 == 0 for n in stamps.values()), f"mark_stamp pairs per (core, pmu id): {stamps}")
    return spans


def check_rounds(out, base, ptorun, run, rounds, one_round_tasks, one_round_devtasks):
    """ptorun --rounds N: the summary counts N rounds' work, the perf data holds rounds 0..N-1 each with the
    same CTRL stages and one build per device task, analyze prints one table per round (each recomputed),
    and the L1 data / PMU CSV hold one round's tasks (the last launch, as PyPTO overwrites them)."""
    m = SUMMARY.search(out)
    need(m and "over %d rounds" % rounds in out, f"no summary line 'over {rounds} rounds'")
    ntasks, ndev = int(m.group(3)), int(m.group(4))
    need(ntasks == rounds * one_round_tasks and ndev == rounds * one_round_devtasks,
         f"{rounds} rounds ran {ntasks} tasks in {ndev} device tasks; one round is {one_round_tasks} in {one_round_devtasks}")
    freq = FREQ[m.group(2)]
    folder = sorted(glob.glob(os.path.join(base, "output_*")))[-1]
    lanes = lanes_of(load(folder, "machine_trace_perf_data_0.json"), freq)
    for ty, b, ev in lanes:
        need(sorted({e[2] for e in ev}) == list(range(rounds)), f"perf lane {ty}-{b}: rounds {sorted({e[2] for e in ev})}")
    ctrl = lanes[0][2]
    per = [[(e[1], e[3]) for e in ctrl if e[2] == k] for k in range(rounds)]
    need(all(p == per[0] for p in per), "CTRL stages differ between rounds")
    need(sum(1 for n, _ in per[0] if n == "DEV_TASK_BUILD") == one_round_devtasks, "builds per round")
    last_end = [max(e[0] for _, _, ev in lanes for e in ev if e[2] == k) for k in range(rounds)]
    first_begin = [min(e[0] for _, _, ev in lanes for e in ev if e[2] == k) for k in range(rounds)]
    need(all(first_begin[k + 1] >= last_end[k] for k in range(rounds - 1)), "a round starts before the previous one ends")
    text = run([ptorun, "analyze", folder]).stdout
    for k in range(rounds):
        check_analyze(text, lanes, freq, k)
    l1 = load(folder, "tilefwk_L1_prof_data.json")
    n = sum(len(c["tasks"]) for c in l1)
    need(n == one_round_tasks, f"L1 prof data holds {n} tasks, one round is {one_round_tasks}")
    pmu = load(folder, "tilefwk_prof_pmu.csv").strip().splitlines()
    need(len(pmu) - 1 == one_round_tasks, f"PMU CSV has {len(pmu) - 1} rows, one round is {one_round_tasks}")
    starts = [t["execStart"] for c in l1 for t in c["tasks"]]
    need(min(starts) >= first_begin[-1], "the L1 data is not the last round's")
