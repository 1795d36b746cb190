#!/usr/bin/env bash
# Runs The Update Framework's client conformance suite (theupdateframework/tuf-conformance,
# kept outside the project) against patch-tuf-client, and fails unless at least TUF_MIN_PASSED
# tests pass and none fails. The suite runs from its own folder, unmodified: no expected-failure
# file, no copy. Its Python packages live in a virtual environment under .build.
#
#   TUF_CONFORMANCE  the suite's folder (default ../shared/third_party/tuf-conformance)
#   TUF_MIN_PASSED   passes required (default: every test the suite collects must pass)
#   TUF_PYTEST_ARGS  extra pytest arguments (e.g. "-k rollback", "--repository-dump-dir /tmp/d")
set -euo pipefail
cd "$(dirname "$0")/../.."

suite="${TUF_CONFORMANCE:-../shared/third_party/tuf-conformance}"
if [ ! -d "$suite/tuf_conformance" ]; then
    echo "ERROR: the TUF conformance suite is missing: no $suite/tuf_conformance." >&2
    echo "       It is theupdateframework/tuf-conformance; set TUF_CONFORMANCE to its folder." >&2
    exit 1
fi
suite="$(cd "$suite" && pwd)"
command -v faketime >/dev/null || { echo "ERROR: faketime is not installed (make deps installs it)" >&2; exit 1; }

. Tools/tuf-conformance/venv.sh

"${SWIFT:-swift}" build --product patch-tuf-client
client="$("${SWIFT:-swift}" build --show-bin-path)/patch-tuf-client"
report="$(mktemp)"
trap 'rm -f "$report"' EXIT

# Nothing is written into the suite's folder: no bytecode, no pytest cache.
set +e
(cd "$suite" && PYTHONDONTWRITEBYTECODE=1 "$venv/bin/pytest" tuf_conformance \
    -p no:cacheprovider -q --rootdir "$suite" --entrypoint "$client" \
    --json-report --json-report-file="$report" --json-report-omit collectors log streams \
    ${TUF_PYTEST_ARGS:-})
status=$?
set -e

"$venv/bin/python" - "$report" "${TUF_MIN_PASSED:-}" "$status" <<'PY'
import json, sys
try:
    summary = json.load(open(sys.argv[1]))["summary"]
except (OSError, ValueError, KeyError):
    sys.exit(f"tuf-conformance: pytest wrote no report (exit status {sys.argv[3]})")
passed, failed = summary.get("passed", 0), summary.get("failed", 0) + summary.get("error", 0)
xfailed, total = summary.get("xfailed", 0) + summary.get("xpassed", 0), summary.get("total", 0)
minimum = int(sys.argv[2]) if sys.argv[2] else total
print(f"tuf-conformance: {passed} of {total} passed, {failed} failed, {xfailed} expected failures "
      f"(required: {minimum} passed)")
if xfailed:
    sys.exit("tuf-conformance: an expected-failure list is in use; none is allowed")
if passed < minimum:
    sys.exit("tuf-conformance: too few tests passed")
if failed and not sys.argv[2]:
    sys.exit("tuf-conformance: failures")
PY
