#!/usr/bin/env bash
# `make qa-demo`: the live QA loop. `patchctl dev` watches a folder of patch scripts; the shop runs
# in its live mode (--dev), rendering its screens every 100 ms. The script then edits a patch the
# way a person's editor does (write a temporary file, rename it over the script) and checks:
#   1. the shop's screens change within a second of the save;
#   2. a syntax error comes back to patchctl dev's output with its line and column, while the shop
#      keeps the last good version;
#   3. fixing the error applies again.
# Exits non-zero on any failed check; stops both processes and removes its files on the way out.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/patchengine-qa-demo.XXXXXX")
DEV_PID=
SHOP_PID=
FAILURES=0

cleanup() {
    for pid in "$SHOP_PID" "$DEV_PID"; do
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    if [ "$FAILURES" -eq 0 ]; then rm -rf "$WORK"; else echo "(files kept in $WORK)"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -t 1 ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; else BOLD= PLAIN=; fi
heading() { printf '\n%s== %s ==%s\n' "$BOLD" "$*" "$PLAIN"; }
ok() { echo "  ok: $*"; }
fail() { echo "  FAILED: $*"; FAILURES=$((FAILURES + 1)); }
die() { echo "qa-demo: $*" >&2; FAILURES=$((FAILURES + 1)); exit 1; }

now_ms() { date +%s%3N; }

# wait_for FILE REGEX SECONDS: succeeds once FILE has a line matching REGEX (after line $FROM, if set).
wait_for() {
    local file=$1 regex=$2 limit_ms=$(( $(now_ms) + $3 * 1000 ))
    while [ "$(now_ms)" -le "$limit_ms" ]; do
        if tail -n +"${FROM:-1}" "$file" | grep -Eq -- "$regex"; then return 0; fi
        sleep 0.02
    done
    return 1
}

# save NAME: an editor's save of $WORK/patches/NAME from standard input (temporary file, then rename).
save() {
    local tmp="$WORK/patches/.$1.swp"
    cat > "$tmp"
    mv -f "$tmp" "$WORK/patches/$1"
}

heading "1. Build the shop and patchctl"
"$SWIFT" build --product patchctl > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; die "build of patchctl failed"; }
"$SWIFT" build --product shop >> "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; die "build of shop failed"; }
BIN=$("$SWIFT" build --show-bin-path)
echo "  built: $BIN/patchctl, $BIN/shop"

heading "2. patchctl dev on a folder with one harmless script"
mkdir -p "$WORK/patches" "$WORK/keys"
echo "console.log('qa loop: connected');" | save hello.js
"$BIN/patchctl" dev "$WORK/patches" --port 0 --port-file "$WORK/port" --key-dir "$WORK/keys" > "$WORK/dev.log" 2>&1 &
DEV_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
[ -s "$WORK/port" ] || { cat "$WORK/dev.log"; die "patchctl dev did not report a port within 10 s"; }
URL="http://127.0.0.1:$(tr -d '\n' < "$WORK/port")/"
sed 's/^/  dev: /' "$WORK/dev.log"

heading "3. The shop in live mode, as device 'qa-shop'"
"$BIN/shop" --dev "$URL" --dev-root "$WORK/keys/dev-root.json" --device qa-shop --every 100 > "$WORK/shop.log" 2>&1 &
SHOP_PID=$!
wait_for "$WORK/dev.log" '^\[qa-shop\] v[0-9]+ applied' 10 && ok "the shop connected and applied the current version" \
    || { cat "$WORK/dev.log" "$WORK/shop.log"; die "the shop never applied the first version"; }
wait_for "$WORK/shop.log" '^Total +\$38\.37$' 5 && ok "as shipped: the total takes the discount off twice (\$38.37)" \
    || fail "the shop never showed its unpatched total"

heading "4. Save the total fix: the screen must change within a second"
FROM=$(( $(wc -l < "$WORK/shop.log") + 1 ))
start=$(now_ms)
save total.js < Samples/patches/total.js
if wait_for "$WORK/shop.log" '^Total +\$42\.77$' 1; then
    ok "the shop shows the fixed total \$42.77 $(( $(now_ms) - start )) ms after the save"
else
    fail "the shop's total did not change within 1 s of the save"
fi
GOOD=$( (grep -Eo '^\[qa-shop\] v[0-9]+ applied' "$WORK/dev.log" | tail -1 | grep -Eo '[0-9]+') || true)
[ -n "$GOOD" ] || fail "no applied version reported after the fix"

heading "5. Save a syntax error: it comes back with line and column; the shop keeps the fix"
FROM=$(( $(wc -l < "$WORK/dev.log") + 1 ))
SHOP_FROM=$(( $(wc -l < "$WORK/shop.log") + 1 ))
sed 's/self.discountedSubtotalCents() + self.taxCents();/self.discountedSubtotalCents() + ;/' Samples/patches/total.js | save total.js
if wait_for "$WORK/dev.log" '^\[qa-shop\] v[0-9]+ syntax error total\.js:[0-9]+:[0-9]+: ' 2; then
    ok "patchctl dev printed: $(tail -n +"$FROM" "$WORK/dev.log" | grep -E 'syntax error' | head -1)"
else
    fail "no syntax error with line and column in patchctl dev's output"
fi
FROM=$SHOP_FROM
wait_for "$WORK/shop.log" "^dev: development version [0-9]+ failed .*version $GOOD is live again" 2 \
    && ok "the shop rolled the bad version back and restored v$GOOD" || fail "the shop did not restore the last good version"
sleep 0.5
if tail -n +"$SHOP_FROM" "$WORK/shop.log" | grep -Eq '^Total +\$38\.37$'; then
    fail "the shop lost the fix while the script was broken"
else
    ok "the shop kept showing \$42.77 while the script was broken"
fi

heading "6. Fix the error: it applies again"
FROM=$(( $(wc -l < "$WORK/dev.log") + 1 ))
{ cat Samples/patches/total.js; echo "console.log('total fixed again');"; } | save total.js
wait_for "$WORK/dev.log" '^\[qa-shop\] v[0-9]+ applied' 2 && ok "applied again: $(tail -n +"$FROM" "$WORK/dev.log" | grep -E 'applied' | head -1)" \
    || fail "the fixed script was not applied"
wait_for "$WORK/dev.log" '^\[qa-shop\] v[0-9]+ log total\.js:[0-9]+:[0-9]+: total fixed again$' 2 && ok "its console.log line reached the terminal, with its line and column" \
    || fail "the console.log line did not come back"

heading "patchctl dev's output"
sed 's/^/  /' "$WORK/dev.log"

echo
if [ "$FAILURES" -eq 0 ]; then
    echo "qa-demo: all checks passed"
else
    echo "qa-demo: $FAILURES check(s) failed"
    exit 1
fi
