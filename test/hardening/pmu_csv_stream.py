#!/usr/bin/env python3
"""`ptorun pmu-csv` streams its file (issue 12): on a large tilefwk_prof_pmu.csv its peak RSS stays far below
the file's size, and its output is byte for byte tabulate's grid (computed here independently), quoted
fields, embedded newlines, escaped quotes and blank lines included; a malformed row is refused naming its
record, with nothing printed.
  pmu_csv_stream.py PTORUN"""
import hashlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect  # noqa: E402

ptorun = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="pmu-csv-stream-")


def numeric(s):
    if not s:
        return False
    digit = False
    for ch in s[1:] if s[0] == "-" else s:
        if ch.isdigit():
            digit = True
        elif ch not in ".eE+-":
            return False
    return digit


class Grid:
    """tabulate's grid with an index column, as the old whole-file renderer printed it."""

    def __init__(self, header, rows_iter):
        self.header = [""] + header
        self.w = [len(h) for h in self.header]
        self.num = [True] * len(self.header)
        for i, r in rows_iter():
            for c, cell in enumerate([str(i)] + r):
                self.w[c] = max(self.w[c], len(cell))
                self.num[c] = self.num[c] and numeric(cell)

    def sep(self, ch):
        return "+" + "".join(ch * (x + 2) + "+" for x in self.w) + "\n"

    def line(self, cells):
        return "|" + "".join(" " + (c.rjust(w) if n else c.ljust(w)) + " |"
                             for c, w, n in zip(cells, self.w, self.num)) + "\n"


def quote(s):
    return '"' + s.replace('"', '""') + '"' if any(ch in s for ch in ',"\n') else s


def rows(n):
    for i in range(n):
        # One quoted cell with a comma, a newline or a doubled quote every few rows, so that records
        # straddle the reader's 64 KiB buffer in every state.
        note = ["plain", "a,b", 'say "hi"', "two\nlines", "x" * (i % 37)][i % 5]
        yield i, [str(i % 24), str(65536 + i), str((i * 7919) % 100003), note, str(-(i % 13)) + ".5"]


HEADER = ["thread id", "task id", "total cycle", "note", "ratio"]


def write_csv(path, n):
    with open(path, "w", newline="") as f:
        f.write(",".join(HEADER) + "\r\n")
        for i, r in rows(n):
            f.write(",".join(quote(c) for c in r) + ("\r\n" if i % 2 else "\n"))
            if i % 1000 == 0:
                f.write("\n")  # blank lines are skipped


def expected_digest(n, path):
    g = Grid(HEADER, lambda: rows(n))
    h = hashlib.sha256()
    h.update(f"{path}: {n} tasks\n".encode())
    h.update((g.sep("-") + g.line(g.header) + g.sep("=")).encode())
    for i, r in rows(n):
        h.update((g.line([str(i)] + r) + g.sep("-")).encode())
    return h.hexdigest()


def run_pmu_csv(path):
    """(exit code, sha256 of stdout, stderr, peak RSS KiB); stdout goes to a file, not memory."""
    out_path = os.path.join(tmp, "out.txt")
    with open(out_path, "wb") as out, open(os.path.join(tmp, "err.txt"), "wb") as err:
        p = subprocess.Popen([ptorun, "pmu-csv", path], stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
    h = hashlib.sha256()
    with open(out_path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return os.waitstatus_to_exitcode(status), h.hexdigest(), open(os.path.join(tmp, "err.txt")).read(), usage.ru_maxrss


small = os.path.join(tmp, "small.csv")
write_csv(small, 40)
code, digest, err, small_rss_kib = run_pmu_csv(small)
expect(code == 0 and digest == expected_digest(40, small), "a small csv prints tabulate's grid byte for byte", err)

# About 48 MB of csv: the old reader held the text twice plus every parsed cell (over 200 MB of RSS).
N = 600_000
big = os.path.join(tmp, "big.csv")
write_csv(big, N)
size_mb = os.path.getsize(big) / 2**20
code, digest, err, rss_kib = run_pmu_csv(big)
expect(code == 0, f"pmu-csv reads a {size_mb:.0f} MB csv", err)
expect(digest == expected_digest(N, big), "its output is byte for byte the grid")
expect(rss_kib < small_rss_kib + 8 * 1024,
       f"its peak RSS {rss_kib / 1024:.1f} MiB is within 8 MiB of a 40-row csv's {small_rss_kib / 1024:.1f} MiB")

bad = os.path.join(tmp, "bad.csv")
with open(bad, "w") as f:
    f.write("a,b\n1,2\n\"x,y\",3\n4\n")
code, digest, err, _ = run_pmu_csv(bad)
expect(code == 1 and "bad.csv:4: 1 fields, the header has 2" in err and digest == hashlib.sha256(b"").hexdigest(),
       "a short row is refused naming its record, nothing printed", err)
with open(bad, "w") as f:
    f.write("a,b\n1,\"open\n")
code, _, err, _ = run_pmu_csv(bad)
expect(code == 1 and "bad.csv:2: unterminated quoted field" in err, "an unterminated quote is refused", err)

for name in os.listdir(tmp):
    os.remove(os.path.join(tmp, name))
os.rmdir(tmp)
