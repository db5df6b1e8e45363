#!/usr/bin/env bash
# Sets up (scripts/setup.sh), then runs every test and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit $?
meson test -C build --print-errorlogs --num-processes "$(nproc)" "$@"
status=$?
python3 - <<'PY'
import json
passed = failed = 0
with open("build/meson-logs/testlog.json") as f:
    for line in f:
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL", "SKIP"):
            passed += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed")
PY
exit $status
