#!/usr/bin/env bash
# `make bench`, delivery part: a fresh device's refresh plus one target download from a channel
# role listing 1,000 and 10,000 targets, PatchUpdater (release build, Benchmarks/tufbench) against
# python-tuf 7.0's ngclient.Updater (python_timing.py, timed in its own process), both on the same
# repository served on loopback in the same run; and a launch with nothing new.
# Goals (issue 32): PatchUpdater ≤ 0.25× python-tuf at 10,000 targets; a launch with nothing new
# under 5 ms. RUNS=N sets the runs per measurement (median; default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tools/tuf-bench
runs="${RUNS:-5}"
. Tools/tuf-conformance/venv.sh

config="${TUFBENCH_CONFIGURATION:-release}"
"${SWIFT:-swift}" build -c "$config" --product tufbench
bench="$("${SWIFT:-swift}" build -c "$config" --show-bin-path)/tufbench"

work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

printf '\n%-58s %12s %12s %8s\n' "Delivery (median of $runs runs, ms)" PatchUpdater python-tuf ratio
for count in 1000 10000; do
    repo="$work/repo-$count"
    "$python" "$here/make_repository.py" "$repo" "$count"
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; fi
    coproc SERVER { exec "$python" Tools/tuf-interop/serve.py "$repo"; }
    server_pid=$SERVER_PID
    read -r port <&"${SERVER[0]}"
    target="$(cat "$repo/target.txt")"
    ours="$("$bench" "http://127.0.0.1:$port" "$repo/root.json" "$target" "$runs" "$work/ours")"
    theirs="$("$python" "$here/python_timing.py" "http://127.0.0.1:$port" "$repo/root.json" "$target" "$runs" "$work/theirs")"
    "$python" - "$count" "$ours" "$theirs" <<'PY'
import json, sys
count, ours, theirs = int(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
assert ours["length"] == theirs["length"] > 0, f"downloads differ: {ours['length']} vs {theirs['length']}"
def row(label, a, b):
    print(f"{label:<58} {a:>12.2f} {b:>12.2f} {a / b:>7.2f}×")
row(f"fresh device: refresh + download, {count:,} targets", ours["fresh_ms"], theirs["fresh_ms"])
row(f"launch, nothing new: refresh, {count:,} targets", ours["launch_refresh_ms"], theirs["launch_ms"])
print(f"{'launch, nothing new: refresh + channel search (goal < 5 ms)':<58} {ours['launch_ms']:>12.2f}")
PY
done
