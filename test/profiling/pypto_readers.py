#!/usr/bin/env python3
"""What PyPTO's readers (draw_swim_lane.py, machine_perf_trace.py analyze, tilefwk_pmu_to_csv.py) compute
from a run folder, re-derived here from the raw files of real ptorun runs and checked against what ptorun
wrote and printed (issue 15). No PyPTO code: each rule is written from reference/pypto-profiling.md.

usage: pypto_readers.py PTOC PTORUN
"""
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.environ.get("PTOC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
FREQ = 50  # ascend910b1 (dav_2201) ticks per us

# (name, spec, ptoc switches, ptorun switches): one device task, and a stitched run of 3 rounds.
RUNS = [
    ("rmsnorm", "specs/rmsnorm.yaml", [], ["--dim", "T=512"]),
    ("decode_stitched", "specs/decode_attention.yaml", ["--set", "runtime.stitch_function_max_num=2"],
     ["--dim", "B=8", "--rounds", "3"]),
    ("labels_reuse", "specs/examples/labels_reuse.yaml", [], []),  # L1Reuse merges: hashOrder hints
]

failures = []


def need(cond, what):
    if not cond:
        failures.append(what)
    return cond


def load(folder, name):
    with open(os.path.join(folder, name)) as f:
        return f.read() if name.endswith((".txt", ".csv")) else json.load(f)


def run(ptoc, ptorun, work, name, spec, cflags, rflags):
    bundle = os.path.join(work, name + ".bundle")
    subprocess.run([ptoc, os.path.join(ROOT, spec), "-o", bundle] + cflags, check=True, capture_output=True)
    base = os.path.join(work, name)
    env = dict(os.environ, TILE_FWK_OUTPUT_DIR=base)
    out = subprocess.run([ptorun, bundle, "--runtime-debug-mode", "1", "--dump-device-perf", "--pmu-event-type", "2"]
                         + rflags, check=True, capture_output=True, text=True, env=env)
    folder = sorted(glob.glob(os.path.join(base, "output_*")))[-1]
    analyze = subprocess.run([ptorun, "analyze", folder], check=True, capture_output=True, text=True).stdout
    return folder, out.stdout + out.stderr, analyze


def parse_stage(name):
    m = re.match(r"^([A-Z0-9_]+?)(?:_(\d+))?(?:\((\d+)\))?$", name)
    return m.group(1), int(m.group(2)) if m.group(2) else None, int(m.group(3)) if m.group(3) else None


def topo_rows(text):
    rows = []
    for line in text.splitlines():
        if not line or line[0].isalpha():
            continue
        f = [int(x) for x in line.split(",") if x.strip()]
        rows.append({"seq": f[0], "task": f[1], "root_hash": f[3], "opmagic": f[4], "leaf_hash": f[6],
                     "psg": f[8], "succ": f[11:]})
    return rows


def check_idle_cores_and_e2e(name, folder, out, analyze):
    """Defect 1: AICore stage events only on cores that ran a leaf task of that device task; then the
    analyze AICore End-to-End equals the terminal's (both to the printed precision)."""
    lanes = load(folder, "machine_trace_perf_data_0.json")
    l1 = load(folder, "tilefwk_L1_prof_data.json")
    last_round = max(parse_stage(t["name"])[1] for lane in lanes for t in lane["tasks"])
    ran = {}  # blockIdx in the perf file (core + 1) -> device tasks it ran (last round: what L1 holds)
    for core in l1:
        ran[core["blockIdx"] + 1] = {t["seqNo"] for t in core["tasks"]}
    stage_pairs = 0
    first, last = [], []
    for lane in lanes:
        if not (lane["coreType"].startswith("SCHED") and ("-AIC" in lane["coreType"] or "-AIV" in lane["coreType"])):
            continue
        for base in ("DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK", "DEV_TASK_ALL_LEAF_TASK_EXEC"):
            seqs = [parse_stage(t["name"])[2] for t in lane["tasks"]
                    if parse_stage(t["name"])[0] == base and parse_stage(t["name"])[1] == last_round]
            need(sorted(seqs) == sorted(ran.get(lane["blockIdx"], set())),
                 f"{name}: {lane['coreType']}-{lane['blockIdx']} has {base} for device tasks {sorted(seqs)}, "
                 f"ran tasks of {sorted(ran.get(lane['blockIdx'], set()))}")
            stage_pairs += len(seqs)
        ends = {}
        for t in lane["tasks"]:
            b, r, _ = parse_stage(t["name"])
            if r == last_round:
                ends.setdefault(b, []).append(t["end"])
        first += ends.get("DEV_TASK_WAIT_RCV_FIRST_LEAF_TASK", [])
        last += ends.get("DEV_TASK_ALL_LEAF_TASK_EXEC", [])
    need(stage_pairs > 0, f"{name}: no AICore stage events at all")
    analyze_e2e = f"{(max(last) - min(first)) / FREQ:.2f}"
    starts = [t["execStart"] for c in l1 for t in c["tasks"]]
    ends = [t["execEnd"] for c in l1 for t in c["tasks"]]
    l1_e2e = f"{(max(ends) - min(starts)) / FREQ:.2f}"
    m = re.search(r"AICore End-to-End Time: ([0-9.]+)", out)
    need(m and m.group(1) == analyze_e2e == l1_e2e,
         f"{name}: terminal AICore E2E {m and m.group(1)}, analyze rule {analyze_e2e}, L1 spans {l1_e2e}")
    busy = sum(e - s for e, s in zip(ends, starts))
    util = f"{busy / (len(l1) * (max(ends) - min(starts))) * 100:.2f}"
    m = re.search(r"AICore Utilization: +([0-9.]+)%", out)
    need(m and m.group(1) == util, f"{name}: terminal utilisation {m and m.group(1)}, L1 spans give {util}")
    row = [r for r in analyze.splitlines() if r.startswith("| AICore")]
    need(row and row[-1].split("|")[8].strip() == analyze_e2e,
         f"{name}: ptorun analyze AICore E2E {row and row[-1].split('|')[8].strip()}, expected {analyze_e2e}")
    return analyze_e2e


def check_program_json(name, folder):
    """Defect 2: hashes are strings, every function has rawtensors, every hash the topology and the CALLs
    cite resolves, every tensor's rawtensor is one of its function's rawtensors."""
    prog = load(folder, "program.json")
    funcs = prog["functions"]
    by_hash = {}
    for f in funcs:
        need(isinstance(f["hash"], str), f"{name}: function {f.get('func_magicname')} hash {f['hash']!r} not a string")
        need(isinstance(f.get("rawtensors"), list), f"{name}: function {f.get('func_magicname')} has no rawtensors")
        by_hash.setdefault(f["hash"], f)
        raws = {r["rawmagic"] for r in f.get("rawtensors", [])}
        for r in f.get("rawtensors", []):
            need(isinstance(r["datatype"], int), f"{name}: rawtensor datatype {r['datatype']!r} not PyPTO's number")
        if f["graphtype"] == 2:
            for t in f["tensors"]:
                need(t["rawtensor"] in raws, f"{name}: tensor {t['magic']} cites rawtensor {t['rawtensor']} not listed")
            for op in f["operations"]:
                need(isinstance(op["calleehash"], str) and op["calleehash"] in by_hash or
                     op["calleehash"] in {g["hash"] for g in funcs}, f"{name}: calleehash {op['calleehash']!r} unresolved")
    for row in topo_rows(load(folder, "dyn_topo.txt")):
        need(str(row["root_hash"]) in by_hash and by_hash[str(row["root_hash"])]["graphtype"] == 2,
             f"{name}: dyn_topo rootHash {row['root_hash']} is no root function")
        need(str(row["leaf_hash"]) in by_hash, f"{name}: dyn_topo leafHash {row['leaf_hash']} is no function")
    return funcs


def expected_machine_view(folder, funcs):
    """The Machine View slices, flows and counters re-derived from L1 + dyn_topo + program.json."""
    l1 = load(folder, "tilefwk_L1_prof_data.json")
    topo = {(r["seq"] << 32) | r["task"]: r for r in topo_rows(load(folder, "dyn_topo.txt"))}
    index = {f["hash"]: i for i, f in reversed(list(enumerate(funcs)))}
    tasks = {}  # key -> slice, in L1 order
    for core in l1:
        for t in core["tasks"]:
            key = (t["seqNo"] << 32) | t["taskId"]
            tasks[key] = {"tid": 1000 + 2 * (core["blockIdx"] + 1), "type": core["coreType"],
                          "ts": t["execStart"] / FREQ, "end": t["execEnd"] / FREQ}
    for key, s in tasks.items():
        r = topo[key]
        ri = index.get(str(r["root_hash"]), len(funcs))
        label, ins, outs, ho = "", [], [], []
        if ri < len(funcs):
            f = funcs[ri]
            tensors = {t["magic"]: t for t in f["tensors"]}
            raws = {x["rawmagic"]: x for x in f["rawtensors"]}
            for op in f["operations"]:
                if op["opmagic"] != r["opmagic"]:
                    continue
                label = op.get("semantic_label", {}).get("label", "")
                attr = op.get("op_attr", {})
                ho = [f"{text} hashOrder: {attr[k + '_hashOrder']}, subGraphCount: {attr[k + '_subgraphCount']}"
                      for k, text in (("l1_reuse", "l1ReuseInfo"), ("cube_merge", "cubeMergeInfo"),
                                      ("vec_merge", "vecMergeInfo")) if k + "_hashOrder" in attr]

                def hint(magics):
                    seen, out = [], []
                    for m in magics:
                        if m in seen:
                            continue
                        seen.append(m)
                        t = tensors[m]
                        out.append({m: {"shape": t["shape"], "dtype": raws[t["rawtensor"]]["datatype"],
                                        "rawmagic": raws[t["rawtensor"]]["rawmagic"]}})
                    return out
                ins, outs = hint(op["ioperands"]), hint(op["ooperands"])
                break
        formal = f"{key >> 32}-{(key >> 16) & 1023}-{key & 0xffff}"
        s.update(name=f"{formal}-{ri}-{r['psg']}({label})", label=label, hash_order="\n".join(ho), ins=str(ins), outs=str(outs),
                 succ=[(r["seq"] << 32) | x for x in r["succ"]])
    # ReadyCount: sources of a device task counted when the time walk first meets it; a task becomes ready at
    # its last predecessor's end and leaves the count at its start. Dependence Solving: edges per us, > 5 us.
    preds = {k: 0 for k in tasks}
    for s in tasks.values():
        for x in s["succ"]:
            preds[x] += 1
    times = {}
    for k, s in tasks.items():
        times.setdefault(s["ts"], []).append((k, "S"))
        times.setdefault(s["end"], []).append((k, "E"))
    sources = {}
    for k, s in tasks.items():
        if preds[k] == 0:
            sources.setdefault(k >> 32, {"AIC": 0, "AIV": 0})[s["type"]] += 1
    left = dict(preds)
    ready = {"AIC": 0, "AIV": 0}
    counters = []
    cur, dpd_t, dpd_n = -1, min(s["ts"] for s in tasks.values()), 0
    for t in sorted(times):
        diff = {"AIC": 0, "AIV": 0}
        if times[t][0][0] >> 32 != cur:
            cur = times[t][0][0] >> 32
            for ty, n in sources.get(cur, {}).items():
                diff[ty] += n
        for k, kind in times[t]:
            if kind == "S":
                diff[tasks[k]["type"]] -= 1
                continue
            dpd_n += len(tasks[k]["succ"])
            for x in tasks[k]["succ"]:
                left[x] -= 1
                if left[x] == 0:
                    diff[tasks[x]["type"]] += 1
        for ty in ("AIC", "AIV"):
            if diff[ty]:
                ready[ty] += diff[ty]
                counters.append(("ReadyCount_" + ty, t, ready[ty]))
        if diff["AIC"] + diff["AIV"]:
            counters.append(("ReadyCount_Total", t, ready["AIC"] + ready["AIV"]))
        if t - dpd_t > 5:
            counters.append(("Dependence Solving (MHz)", dpd_t, dpd_n / (t - dpd_t)))
            dpd_t, dpd_n = t, 0
    return tasks, counters


def check_machine_view(name, folder, funcs):
    """Defects 2-5 on the Machine View: names/labels/operands resolved, tick-quantised slices that never
    overlap on a lane, every flow start inside its slice, one flow per dependency, counters as re-derived,
    the Fake Core_0 lane; AICPU View thread names without "cat" and an integer freq."""
    events = load(folder, "merged_swimlane.json")["traceEvents"]
    mv = [e for e in events if e.get("pid") == 1]
    tasks, counters = expected_machine_view(folder, funcs)
    threads = {e["tid"]: e["args"]["name"] for e in mv if e["ph"] == "M" and e["name"] == "thread_name"}
    need(threads.get(1000) == "Fake Core_0", f"{name}: no Fake Core_0 lane (tid 1000): {threads.get(1000)}")
    slices = [e for e in mv if e["ph"] == "X"]
    need(len(slices) == len(tasks), f"{name}: {len(slices)} slices, {len(tasks)} L1 tasks")
    by_key = {}
    labelled = operands = hash_orders = 0
    for e, (key, s) in zip(slices, tasks.items()):
        by_key[key] = e
        ok = (e["name"] == s["name"] and e["tid"] == s["tid"] and e["ts"] == s["ts"] and e["dur"] == s["end"] - s["ts"]
              and e["args"]["color"] == s["label"] and e["args"]["ioperand-hint"] == s["ins"]
              and e["args"]["ooperand-hint"] == s["outs"])
        if not need(ok, f"{name}: slice {e['name']} {e['ts']}+{e['dur']} tid {e['tid']} "
                        f"color {e['args']['color']!r} in {e['args']['ioperand-hint'][:80]!r}; expected {s['name']} "
                        f"{s['ts']}+{s['end'] - s['ts']} tid {s['tid']} {s['label']!r} {s['ins'][:80]!r}"):
            break
        labelled += bool(s["label"])
        operands += s["ins"] != "[]" or s["outs"] != "[]"
        need(e["args"]["execution-hint"].startswith("Average Execution Time: "),
             f"{name}: execution-hint {e['args']['execution-hint'][:40]!r}")
        want = e["args"]["event-hint"].split("\n", 1)
        need(e["args"].get("hashOrder-hint", "") == s["hash_order"] == (want[1] if len(want) > 1 else ""),
             f"{name}: slice {e['name']} hashOrder-hint {e['args'].get('hashOrder-hint')!r}, "
             f"program.json gives {s['hash_order']!r}")
        hash_orders += bool(s["hash_order"])
    need(operands == len(slices), f"{name}: {len(slices) - operands} slices without operands")
    has_labels = any("semantic_label" in op for f in funcs if f["graphtype"] == 2 for op in f["operations"])
    need(labelled > 0 or not has_labels, f"{name}: program.json has semantic labels, no slice shows one")
    lanes = {}
    for e in slices:
        lanes.setdefault(e["tid"], []).append(e)
    overlaps = 0
    for lane in lanes.values():
        lane.sort(key=lambda e: e["ts"])
        overlaps += sum(1 for a, b in zip(lane, lane[1:]) if b["ts"] < a["ts"] + a["dur"])
    need(overlaps == 0, f"{name}: {overlaps} slices overlap the previous one on their lane")
    flows_s = [e for e in mv if e["ph"] == "s"]
    flows_f = {e["id"]: e for e in mv if e["ph"] == "f"}
    edges = sum(len(s["succ"]) for s in tasks.values())
    need(len(flows_s) == edges == len(flows_f), f"{name}: {len(flows_s)} flows, {edges} dependency edges")
    outside = 0
    for fs in flows_s:
        fl = flows_f[fs["id"]]
        src = [e for e in lanes[fs["tid"]] if e["ts"] <= fs["ts"] <= e["ts"] + e["dur"]]
        dst = [e for e in lanes[fl["tid"]] if e["ts"] == fl["ts"]]
        outside += not src or not dst
    need(outside == 0, f"{name}: {outside} flows start or end outside a slice")
    got = [(e["name"], e["ts"], e["args"]["size"]) for e in mv if e["ph"] == "C"]
    need(len(got) == len(counters) and all(g[0] == c[0] and g[1] == c[1] and abs(g[2] - c[2]) < 1e-9 * max(1, abs(c[2]))
                                           for g, c in zip(got, counters)),
         f"{name}: {len(got)} counter samples, {len(counters)} re-derived; first differing "
         f"{next(((g, c) for g, c in zip(got, counters) if g != c), None)}")
    aicpu = [e for e in events if e.get("pid") == 0]
    need(aicpu and all("cat" not in e for e in aicpu if e.get("name") == "thread_name"),
         f"{name}: AICPU View thread names carry a cat")
    need(all(isinstance(e["freq"], int) for e in aicpu if e.get("ph") == "X"), f"{name}: AICPU View freq not an integer")
    return len(slices), edges, hash_orders


def check_pmu(name, folder):
    """PMU CSV: task id is 0 (the record head's), sub task id the leaf task's id, keyed with seqNo as L1."""
    rows = list(csv.DictReader(load(folder, "tilefwk_prof_pmu.csv").splitlines()))
    l1 = {(t["seqNo"], t["taskId"]) for c in load(folder, "tilefwk_L1_prof_data.json") for t in c["tasks"]}
    need(all(r["task id"] == "0" for r in rows), f"{name}: PMU task id not 0")
    keys = [(int(r["seqNo"]), int(r["sub task id"])) for r in rows]
    need(sorted(keys) == sorted(l1), f"{name}: PMU (seqNo, sub task id) are not the L1 tasks")


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        for name, spec, cflags, rflags in RUNS:
            folder, out, analyze = run(ptoc, ptorun, work, name, spec, cflags, rflags)
            e2e = check_idle_cores_and_e2e(name, folder, out, analyze)
            funcs = check_program_json(name, folder)
            n, edges, hash_orders = check_machine_view(name, folder, funcs)
            need(hash_orders > 0 or name != "labels_reuse", f"{name}: no slice carries its L1Reuse hash order")
            check_pmu(name, folder)
            print(f"{name}: {n} slices, {edges} flows = dependencies, {hash_orders} with hash orders, "
                  f"AICore E2E {e2e} us (terminal = analyze)")
    kinds = {}
    for f in failures:
        kinds.setdefault(re.sub(r"\d+", "N", f)[:70], []).append(f)
    for group in kinds.values():  # one example per kind of failure, with its count
        print(f"FAIL ({len(group)}x):", group[0])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
