#!/usr/bin/env bash
# make stress: every suite whose tests start threads, run STRESS_RUNS times (default 50) in each
# configuration, under deliberate CPU contention:
#   - STRESS_BUSY busy processes per core (default 1), each pinned to its core with taskset, and
#     the test process pinned to the same cores, so its threads are descheduled mid-step;
#   - in a debug build, seeded pauses at the engine's own yield points (PEStressPoints.h): run i
#     of configuration k gets PATCHENGINE_STRESS_SEED = base + 1000 * k + i, printed with any
#     failure so the run can be repeated (`PATCHENGINE_STRESS_SEED=<seed> swift test ...`).
# Configurations (STRESS_CONFIGS, default all): closure (the default route), forwarding
# (PATCHENGINE_DISPATCH_ROUTE=forwarding), no-libffi (PATCHENGINE_WITHOUT_LIBFFI=1, with the
# limits ended by JavaScriptCore's watchdog: PATCHENGINE_LIMITS_END=watchdog; the others throw the
# end, the default), app-store (no libffi, no private symbol, no layout shortcut, on the forwarding
# route: where issue 36's leak was seen).
# STRESS_JOBS runs (default two per core) go at once, each its own test process pinned to the same
# cores as the busy processes: the runs are contention for each other too, and a run's idle
# moments (a test waiting for a deadline or a thread) are another run's CPU. Each run works in a folder of
# its own (stress-results/work/<config>-<seed>), so a crashed process's core is its own.
# Exits non-zero if any run failed; every failed run's log is kept in stress-results/.
set -uo pipefail
cd "$(dirname "$0")/../.."

SWIFT=${SWIFT:-swift}
RUNS=${STRESS_RUNS:-50}
BASE_SEED=${PATCHENGINE_STRESS_SEED:-$(( $(date +%s) % 100000 * 100000 ))}
BUSY=${STRESS_BUSY:-1}
RUN_TIMEOUT=${STRESS_RUN_TIMEOUT:-900}
JOBS=${STRESS_JOBS:-$((2 * $(nproc)))}
CONFIGS=${STRESS_CONFIGS:-app-store no-libffi forwarding closure}
# Every suite with a test that starts threads (grep Tests/PatchEngineTests for concurrentPerform,
# Thread, Worker, DispatchQueue.global), and the limit suites whose watchdog runs on its own thread.
SUITES=${STRESS_SUITES:-ToolkitConcurrencyTests ConcurrencyTests ConcurrentVMTests ConcurrentRevertTests DispatchTableConcurrencyTests LockDropOrderTests ThreadedTimeLimitTests CheckPointLimitTests LimitMonitorTests VMReplayTests HookFastPathTests ExecutionTimeLimitTests HeapGrowthLimitTests BridgePoolTests DispatchTests MessageSendTests SuperTests BlockTests DirectCallTests ModuleFanOutTests}
APP_STORE="PATCHENGINE_WITHOUT_LIBFFI=1 PATCHENGINE_PRIVATE_SYMBOLS=absent PATCHENGINE_NO_LAYOUT_SHORTCUTS=1"

# The test binary is run directly (not `swift test`), each run in its own working folder: the
# XCTest filter is a comma-separated list of Module.Suite.
only=$(echo $SUITES | sed 's/\([A-Za-z]*\)/PatchEngineTests.\1/g; s/ /,/g')
cores=$(nproc)
results="$PWD/stress-results"
mkdir -p "$results"
tally="$results/.tally"
: > "$tally"
# A failed child process's whole output (its crash report with every thread) lands here.
export PATCHENGINE_CHILD_LOG_DIR="$results/children"
# Every thread's frames in a crash report: a crash on a helper thread is explained by the others.
export SWIFT_BACKTRACE=enable=yes,interactive=no,threads=all,preset=full,symbolicate=fast
# The backtracer cannot unwind through an abort() in libc or a library without frame pointers
# (JavaScriptCore): a crashing process also leaves a core (in its run's folder), which a
# failed run turns into every thread's frames with gdb.
ulimit -c unlimited 2>/dev/null || echo "stress: no core files (ulimit -c refused)"
tests_binary="$("$SWIFT" build --show-bin-path)/PatchEnginePackageTests.xctest"

# A process and everything under it (a run: its subshells, timeout, the test process).
kill_tree() {
    local child
    for child in $(pgrep -P "$1"); do kill_tree "$child"; done
    kill "$1" 2>/dev/null
}
stop_all() {
    local p
    for p in $(jobs -p); do kill_tree "$p"; done
    wait 2>/dev/null
}
trap stop_all EXIT
trap 'exit 130' INT TERM
for ((c = 0; c < cores; c++)); do
    for ((b = 0; b < BUSY; b++)); do
        taskset -c "$c" sh -c 'while :; do :; done' &
    done
done

config_env() {
    case "$1" in
        closure) echo "" ;;
        forwarding) echo "PATCHENGINE_DISPATCH_ROUTE=forwarding" ;;
        no-libffi) echo "PATCHENGINE_WITHOUT_LIBFFI=1 PATCHENGINE_LIMITS_END=watchdog" ;;
        app-store) echo "$APP_STORE PATCHENGINE_DISPATCH_ROUTE=forwarding" ;;
        *) echo "unknown configuration $1" >&2; exit 2 ;;
    esac
}

echo "stress: $RUNS runs x [$CONFIGS], base seed $BASE_SEED, $BUSY busy process(es) on each of $cores cores, $JOBS run(s) at once"
echo "stress: suites $SUITES"

# One run: its verdict on stdout (one line, and a failure's excerpt), each suite's outcome appended
# to the tally (short appends: whole lines even when runs end together).
run_one() {
    local i=$1 config=$2 seed=$3
    local log="$results/$config-$seed.log" work="$results/work/$config-$seed"
    local started status suite core frames out
    started=$(date +%s)
    rm -rf "$work" && mkdir -p "$work"
    (cd "$work" && env $(config_env "$config") PATCHENGINE_STRESS_SEED=$seed \
        timeout -k 30 "$RUN_TIMEOUT" taskset -c "0-$((cores - 1))" "$tests_binary" "$only") > "$log" 2>&1 &
    local test=$!
    # Stopped itself (the runner's end, or a signal to every process of this script): its test too.
    trap 'kill_tree $test; exit 143' TERM INT
    wait $test
    status=$?
    trap - TERM INT
    for suite in $SUITES; do
        if grep -q "Test Suite '$suite' failed" "$log"; then
            echo "$suite/$config failed" >> "$tally"
        elif grep -q "Test Suite '$suite' passed" "$log"; then
            echo "$suite/$config passed" >> "$tally"
        fi
    done
    if [ $status -ne 0 ]; then
        out="FAIL run $i, $config, PATCHENGINE_STRESS_SEED=$seed (exit $status, $(( $(date +%s) - started )) s): $log"
        out+=$'\n'"$(grep -E "error: |Fatal error|Crash|timed out|whole output|Test Suite '.*' failed" "$log" | head -10 | sed 's/^/    /')"
        for core in "$work"/core "$work"/core.[0-9]*; do
            [ -f "$core" ] || continue
            frames="$results/$config-$seed-$(basename "$core").gdb.txt"
            if command -v gdb > /dev/null; then
                gdb -batch -ex "info threads" -ex "thread apply all bt 40" "$tests_binary" "$core" > "$frames" 2>&1
                out+=$'\n'"    a process crashed; its threads' frames: $frames"
            else
                mv "$core" "$results/$config-$seed-$(basename "$core")"
                out+=$'\n'"    a process crashed; its core: $results/$config-$seed-$(basename "$core") (no gdb)"
            fi
        done
        echo "$out"
        echo "FAIL" >> "$tally"
    else
        echo "ok   run $i, $config, seed $seed ($(( $(date +%s) - started )) s)"
        rm -f "$log"
    fi
    rm -rf "$work"
}

# Round-robin over the configurations, so a run stopped early has covered each about equally;
# at most JOBS runs at a time.
running=0
for ((i = 1; i <= RUNS; i++)); do
    k=0
    for config in $CONFIGS; do
        k=$((k + 1))
        if [ $running -ge "$JOBS" ]; then
            wait -n
            running=$((running - 1))
        fi
        run_one "$i" "$config" $((BASE_SEED + 1000 * k + i)) &
        running=$((running + 1))
    done
done
while [ $running -gt 0 ]; do
    wait -n
    running=$((running - 1))
done
rmdir "$results/work" 2>/dev/null

echo "stress: suite/configuration: passed runs, failed runs"
for config in $CONFIGS; do
    for suite in $SUITES; do
        echo "  $suite/$config: $(grep -cx "$suite/$config passed" "$tally") passed, $(grep -cx "$suite/$config failed" "$tally") failed"
    done
done
failures=$(grep -cx FAIL "$tally")
echo "stress: $failures failed run(s) of $(( RUNS * $(echo $CONFIGS | wc -w) ))"
[ "$failures" -eq 0 ]
