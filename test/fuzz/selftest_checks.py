"""The fuzzer self-tests' check list: each check prints ok/FAIL; finish() exits 1 if any failed."""
import sys


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, what, cond):
        print(f"{'ok  ' if cond else 'FAIL'} {what}")
        if not cond:
            self.failures.append(what)

    def finish(self):
        if self.failures:
            print(f"{len(self.failures)} failures")
            sys.exit(1)
        print("all ok")
