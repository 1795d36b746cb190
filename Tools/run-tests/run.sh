#!/usr/bin/env bash
# One `make test` step: `swift test --skip-build` with the given arguments under a time limit.
# Its output goes to the terminal as it comes and to a log, kept only if the step fails; then the
# failures are printed again at the end, so that the last lines of a long run (all a CI page may
# keep) name the failing test instead of the suites that passed after it.
set -uo pipefail
SWIFT=${SWIFT:-swift}
TEST_TIMEOUT=${TEST_TIMEOUT:-900}
dir=${PATCHENGINE_TEST_LOG_DIR:-.build/test-logs}
mkdir -p "$dir"
log=$(mktemp "$dir/step-XXXXXX.log")
timeout -k 30 "$TEST_TIMEOUT" "$SWIFT" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo; echo "── this step failed (exit $status; 124: over ${TEST_TIMEOUT} s): swift test --skip-build $* ──"
    grep -E ": error: |Fatal error|Crash|timed out|whole output|Test Case '.*' failed" "$log" | head -40
    echo "── its whole output: $log ──"
else
    rm -f "$log"  # only a failed step's output is worth keeping; they would pile up run after run
fi
exit "$status"
