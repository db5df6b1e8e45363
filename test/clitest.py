"""The two helpers every command-line test script uses: run a command and capture it, and check one
expectation (print `ok   WHAT`, or `FAIL: WHAT` with the detail and exit 1 at the first failure)."""
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what, detail=""):
    if not cond:
        print(f"FAIL: {what}\n{detail}")
        sys.exit(1)
    print(f"ok   {what}")
