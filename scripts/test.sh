#!/usr/bin/env bash
# Sets up (scripts/setup.sh), then runs every test, and ends with "N passed, N failed".
# PTOC_SANITIZE=1 adds the sanitizer job (scripts/sanitize.sh --quick: an ASan+UBSan build of
# ptoc, ptorun and the runtime's unit tests, run over the unit tests, five library specs, profiling,
# the regression specs, the hostile CLI cases and the crafted bundles) to the count. It is off until
# a run on an idle machine has shown it clean and measured it (its build could not finish on the
# loaded machine of the session that wrote it).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit $?
meson test -C build --print-errorlogs --num-processes "$(nproc)" "$@"
status=$?
san_passed=0 san_failed=0
if [[ ${PTOC_SANITIZE:-0} == 1 ]]; then
  scripts/sanitize.sh --quick | tee build/sanitize.log
  san=${PIPESTATUS[0]}
  line=$(grep -E '^sanitize: [0-9]+ passed, [0-9]+ failed$' build/sanitize.log | tail -1)
  if [[ -n $line ]]; then
    san_passed=$(echo "$line" | awk '{print $2}')
    san_failed=$(echo "$line" | awk '{print $4}')
  else
    san_failed=1  # the build failed: one failure
  fi
  ((san != 0)) && status=1
fi
SAN_PASSED=$san_passed SAN_FAILED=$san_failed python3 - <<'PY'
import json, os
passed = int(os.environ["SAN_PASSED"])
failed = int(os.environ["SAN_FAILED"])
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
