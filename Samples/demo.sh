#!/usr/bin/env bash
# `make demo`: patch delivery on The Update Framework, end to end on loopback.
#
# Builds the shop, patchctl and fleet; `patchctl repo init` makes a TUF repository (root 2 of 3
# keys, targets, snapshot, timestamp, channels staging and production); the shop's fixes are
# released to staging and promoted to production, the static tree is published and served on
# loopback, and the shop runs: before the release, after, offline from its cache, with a tampered
# target, and after a revocation (at run time and at the next launch). Then 200 simulated devices
# follow production, hosted by the release service (patchserver), through a staged rollout:
# release at 10 %, 100 %, disable, revoke, a channel key rotation, and a staging role that expires while
# production keeps updating, with per-release counts. Every step checks the output for what it must
# show; the script exits non-zero when one does not.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
APP_ID=com.example.shop
APP_RANGE='>=1.4.0 <1.5.0'   # the shop reports version 1.4.0
PATCH_ID=shop-fixes
RELEASE=shop-fixes.js
SCRIPTS=(Samples/patches/total.js Samples/patches/product-name.js Samples/patches/gift-wrap.js Samples/patches/deep-link.js)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/patchengine-demo.XXXXXX")
SERVER_PID=
SERVICE_PID=
FAILURES=0
CHECKS=0

cleanup() {
    for pid in $SERVER_PID $SERVICE_PID; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    if [ "$FAILURES" -eq 0 ]; then rm -rf "$WORK"; else echo "(files kept in $WORK)"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'echo "demo: a command failed (line $LINENO)" >&2; FAILURES=$((FAILURES + 1))' ERR

# Bold headings on a terminal only.
if [ -t 1 ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; else BOLD= PLAIN=; fi
heading() { printf '\n%s== %s ==%s\n' "$BOLD" "$*" "$PLAIN"; }

# check FILE REGEX WHAT: the output must have a line matching REGEX (grep -E).
check() {
    CHECKS=$((CHECKS + 1))
    if grep -Eq -- "$2" "$1"; then
        echo "  ok: $3"
    else
        echo "  FAILED: $3 (no line matching /$2/ in $(basename "$1"))"
        FAILURES=$((FAILURES + 1))
    fi
}

# check_not FILE REGEX WHAT: no line may match REGEX.
check_not() {
    CHECKS=$((CHECKS + 1))
    if grep -Eq -- "$2" "$1"; then
        echo "  FAILED: $3 (found: $(grep -Em1 -- "$2" "$1"))"
        FAILURES=$((FAILURES + 1))
    else
        echo "  ok: $3"
    fi
}

# Stops at once: later steps make no sense after this one failed.
die() { echo "demo: $*" >&2; FAILURES=$((FAILURES + 1)); exit 1; }

# screens FILE N: the Nth screens section of a shop run, without its title line.
screens() {
    awk -v n="$2" '/^== /{inside=0} /^launch succeeded/{inside=0} inside{print} /^== screens/{c++; if (c==n) inside=1}' "$1"
}

# side_by_side LEFT_TITLE LEFT_FILE RIGHT_TITLE RIGHT_FILE (long lines wrap within their column).
side_by_side() {
    local width=38
    fold -s -w "$width" "$2" > "$WORK/left.txt"
    fold -s -w "$width" "$4" > "$WORK/right.txt"
    awk -v w="$width" -v lt="$1" -v rt="$3" '
        FNR == 1 { file++ }
        file == 1 { left[++nl] = $0; next }
        { right[++nr] = $0 }
        END {
            rule = sprintf("%" w "s", ""); gsub(/ /, "-", rule)
            printf "  %-" w "s | %s\n  %s-+-%s\n", lt, rt, rule, rule
            n = nl > nr ? nl : nr
            for (i = 1; i <= n; i++) printf "  %-" w "s | %s\n", left[i], right[i]
        }' "$WORK/left.txt" "$WORK/right.txt"
}

# The patch part of a run: what the client did.
patch_lines() { grep -E '^(patch:|live patches|== (launch|update))' "$1" | sed 's/^/  /'; }

# run_shop NAME DEVICE [OPTIONS...]: runs the shop as device DEVICE; output in $WORK/NAME.txt.
run_shop() {
    local name=$1 device=$2; shift 2
    if ! "$SHOP" --root "$ROOT" --state-dir "$WORK/devices/$device" "$@" > "$WORK/$name.txt" 2>&1; then
        cat "$WORK/$name.txt"
        die "the shop exited with an error in step '$name'"
    fi
}

# flip_byte FILE OFFSET: XOR one byte with 0x20 (a letter changes case), in place.
flip_byte() {
    local byte
    byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' \n')
    printf "$(printf '\\%03o' $((byte ^ 32)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# ---------------------------------------------------------------------------------------------

heading "1. Build the shop, patchctl, patchserver and fleet (a first build compiles swift-crypto, SwiftNIO and Hummingbird: several minutes)"
start=$SECONDS
for product in shop patchctl patchserver fleet; do
    "$SWIFT" build --product "$product" > "$WORK/build-$product.log" 2>&1 &
    build_pid=$!
    while kill -0 "$build_pid" 2>/dev/null; do
        sleep 1
        if [ $(((SECONDS - start) % 20)) -eq 0 ]; then echo "  ... still building $product ($((SECONDS - start)) s)"; fi
    done
    if ! wait "$build_pid"; then
        tail -40 "$WORK/build-$product.log"
        die "swift build --product $product failed"
    fi
done
BIN=$("$SWIFT" build --show-bin-path)
SHOP="$BIN/shop"
PATCHCTL="$BIN/patchctl"
FLEET="$BIN/fleet"
PATCHSERVER="$BIN/patchserver"
echo "  built in $((SECONDS - start)) s: $SHOP, $PATCHCTL, $PATCHSERVER, $FLEET"

REPO="$WORK/repo"
CDN="$WORK/cdn"
# publish: the static tree any CDN serves, written again after every edit.
publish() { "$PATCHCTL" repo publish "$REPO" "$CDN" | sed 's/^/  /'; }

heading "2. patchctl repo init: root (2 of 3 keys), targets, snapshot, timestamp, channels staging and production"
"$PATCHCTL" repo init "$REPO" | sed 's/^/  /'
ROOT="$REPO/record/root/1.root.json"
[ -f "$ROOT" ] || die "no root at $ROOT"
echo "  the app ships with $ROOT"
"$PATCHCTL" lint "${SCRIPTS[@]}" | sed 's/^/  /'
cat "${SCRIPTS[@]}" > "$WORK/$RELEASE"
mkdir -p "$WORK/devices"
publish

heading "3. Serve the static tree on loopback"
# --port 0: the kernel picks a free port; the server writes it to --port-file once it listens.
"$PATCHCTL" serve "$CDN" --port 0 --port-file "$WORK/port" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
    [ -s "$WORK/port" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log"; die "patchctl serve exited"; }
    sleep 0.1
done
[ -s "$WORK/port" ] || die "patchctl serve did not report a port within 10 s"
PORT=$(tr -d '\n' < "$WORK/port")
URL="http://127.0.0.1:$PORT/"
# It answers HTTP (bash's /dev/tcp: no curl needed).
status=$( (exec 3<>"/dev/tcp/127.0.0.1/$PORT" &&
            printf 'GET /metadata/timestamp.json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
            head -1 <&3) 2>/dev/null | tr -d '\r') || true
case "$status" in *" 200 "*) ;; *) die "the server on port $PORT answered '${status:-nothing}'";; esac
echo "  serving $CDN on $URL (pid $SERVER_PID): $status"

heading "4. Before: the shop on device A, nothing released yet"
run_shop before device-a --repository "$URL" --allow-http
patch_lines "$WORK/before.txt"
check "$WORK/before.txt" "^patch: channel production refreshed: 0 release\(s\) listed$" "fresh metadata, no release in production yet"
check "$WORK/before.txt" '^Total +\$38\.37$' "bug: the total takes the discount off twice (\$38.37)"
check "$WORK/before.txt" "^!! screen crashed: NSInvalidArgumentException" "bug: the catalog crashes on the product without a name (caught)"
check_not "$WORK/before.txt" '^Gift wrap' "missing feature: no gift-wrap offer"
check "$WORK/before.txt" '^  \(nothing opened\)$' "bug: shop://product/TEE-02 opens nothing"

heading "5. After: release $RELEASE to staging, promote it to production, publish; launch device A again"
"$PATCHCTL" repo release "$REPO" "$WORK/$RELEASE" --channel staging --app "$APP_ID" --patch-id "$PATCH_ID" \
    --app-versions "$APP_RANGE" | sed 's/^/  /'
"$PATCHCTL" repo promote "$REPO" "$RELEASE" --from staging --to production --rollout 100 | sed 's/^/  /'
publish
run_shop after device-a --repository "$URL" --allow-http
patch_lines "$WORK/after.txt"
echo
screens "$WORK/before.txt" 1 > "$WORK/before-screens.txt"
screens "$WORK/after.txt" 1 > "$WORK/after-screens.txt"
side_by_side "BEFORE (no release)" "$WORK/before-screens.txt" "AFTER ($PATCH_ID v1 applied)" "$WORK/after-screens.txt"
echo
check "$WORK/after.txt" "^patch: release production/$RELEASE \($PATCH_ID v1\) applied \(from network\)$" "downloaded, verified, applied"
check "$WORK/after.txt" '^Total +\$42\.77$' "fixed: total \$42.77 (discount once, tax on the discounted subtotal)"
check "$WORK/after.txt" '^GIFT-50 +Item GIFT-50 +\$50\.00$' "fixed: the catalog shows the unnamed product"
check "$WORK/after.txt" '^Gift wrap\? \(3 items\) +\+\$4\.50$' "new: the gift-wrap offer (a method the patch added)"
check "$WORK/after.txt" '^  T-shirt +\$20\.00$' "fixed: shop://product/TEE-02 opens the product (route replaced)"
check_not "$WORK/after.txt" '^!!|nothing opened' "no crash, no dead link"

heading "6. Relaunch device A offline: what it verified last applies from its cache without the network"
run_shop offline device-a
patch_lines "$WORK/offline.txt"
check "$WORK/offline.txt" "^patch: release production/$RELEASE \($PATCH_ID v1\) applied \(from cache\)$" "applied from the cache"
check "$WORK/offline.txt" '^Total +\$42\.77$' "still fixed offline"

heading "7. Refused: a tampered target on the server (one byte of total.js flipped), a new device B"
# The target is stored once per hash it is listed with (consistent snapshots): flip each copy.
TARGETS=("$CDN"/targets/production/*."$RELEASE")
cp "${TARGETS[0]}" "$WORK/good-target.js"
offset=$(grep -bo 'discountedSubtotalCents() + self' "${TARGETS[0]}" | head -1 | cut -d: -f1)
[ -n "$offset" ] || die "total.js not found in the target"
for target in "${TARGETS[@]}"; do flip_byte "$target" "$offset"; done
echo "  total.js now says: $(grep -o 'return self.[A-Za-z]*() + self' "${TARGETS[0]}" | head -1)"
run_shop tampered device-b --repository "$URL" --allow-http
patch_lines "$WORK/tampered.txt"
check "$WORK/tampered.txt" "^patch: release production/$RELEASE refused: .*hash" "refused: the target's hash is not the one its signed metadata lists"
check "$WORK/tampered.txt" '^Total +\$38\.37$' "nothing of it ran: the bugs remain"
check "$WORK/tampered.txt" '^launch succeeded$' "the app kept running"
for target in "${TARGETS[@]}"; do cp "$WORK/good-target.js" "$target"; done   # the good copies again

heading "8. Revoked: patchctl repo revoke $RELEASE, device A running it from its cache"
"$PATCHCTL" repo revoke "$REPO" "$RELEASE" --channel production | sed 's/^/  /'
publish
run_shop revoked device-a --repository "$URL" --allow-http --show-before-update
patch_lines "$WORK/revoked.txt"
echo
screens "$WORK/revoked.txt" 1 > "$WORK/revoked-1.txt"
screens "$WORK/revoked.txt" 2 > "$WORK/revoked-2.txt"
side_by_side "LIVE (from cache)" "$WORK/revoked-1.txt" "AFTER THE REFRESH" "$WORK/revoked-2.txt"
echo
check "$WORK/revoked.txt" "^patch: release production/$RELEASE \($PATCH_ID v1\) applied \(from cache\)$" "the release was live (from the cache)"
check "$WORK/revoked-1.txt" '^Total +\$42\.77$' "fixed while live"
check "$WORK/revoked.txt" "^patch: release production/$RELEASE \($PATCH_ID v1\) reverted \(withdrawn\)$" "reverted at run time: the channel no longer lists it"
check "$WORK/revoked-2.txt" '^Total +\$38\.37$' "the bugs are back in the same process"
check "$WORK/revoked-2.txt" '^  \(nothing opened\)$' "the app's own (broken) route is back"

heading "9. Next launch of device A, offline: the revoked release does not come back"
run_shop relaunch device-a
patch_lines "$WORK/relaunch.txt"
check "$WORK/relaunch.txt" '^patch: nothing cached$' "its cached target was deleted"
check "$WORK/relaunch.txt" '^Total +\$38\.37$' "runs as shipped"

# check_count FILE REGEX MIN MAX WHAT: the first number after REGEX on a matching line is in MIN..MAX.
check_count() {
    CHECKS=$((CHECKS + 1))
    local n
    n=$(grep -Em1 -- "$2" "$1" | sed -E "s/$2//" | grep -Eo '[0-9]+' | head -1 || true)
    if [ -n "$n" ] && [ "$n" -ge "$3" ] && [ "$n" -le "$4" ]; then
        echo "  ok: $5 ($n)"
    else
        echo "  FAILED: $5 (found '${n:-nothing}', expected $3-$4)"
        FAILURES=$((FAILURES + 1))
    fi
}

# wait_port FILE PID NAME: waits (10 s) until the server wrote its port.
wait_port() {
    for _ in $(seq 1 100); do
        [ -s "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || die "$3 exited"
        sleep 0.1
    done
    die "$3 did not report a port within 10 s"
}

heading "10. The release service: patchserver (SQLite) hosts the repository, holding only the online snapshot and timestamp keys"
# --minimum-role-validity: a role version must stay valid this long to be taken (default a day;
# 8 s here, so that step 16 can show a role expiring while the demo runs).
MIN_VALIDITY=8
"$PATCHSERVER" "$WORK/releases" --app-id "$APP_ID" --root "$ROOT" --minimum-role-validity "$MIN_VALIDITY" \
    --online-key "$REPO/keys/snapshot.key" "$REPO/keys/timestamp.key" --port 0 --port-file "$WORK/service-port" > "$WORK/patchserver.log" 2>&1 &
SERVICE_PID=$!
wait_port "$WORK/service-port" "$SERVICE_PID" patchserver
SERVICE="http://127.0.0.1:$(tr -d '\n' < "$WORK/service-port")/"
FLEET_REPOSITORY="${SERVICE}apps/$APP_ID/"
echo "  patchserver on $SERVICE; devices read $FLEET_REPOSITORY"
# upload: what the publisher signed offline goes to the service, which verifies it and signs snapshot and timestamp.
upload() { "$PATCHCTL" repo publish "$REPO" --to "$SERVICE" --app "$APP_ID" | sed 's/^/  /'; }

# fleet NAME: 200 simulated devices refresh production from the service; output in $WORK/fleet-NAME.txt.
fleet() {
    "$FLEET" --repository "$FLEET_REPOSITORY" --root "$ROOT" --state "$WORK/fleet" --devices 200 > "$WORK/fleet-$1.txt"
    sed 's/^/  /' "$WORK/fleet-$1.txt"
}

PROMO=shop-promo
heading "11. Staged rollout: $PROMO v1 to every device, then $PROMO v2 at 10 %"
"$PATCHCTL" repo release "$REPO" Samples/patches/gift-wrap.js --name "$PROMO-1.js" --channel production --app "$APP_ID" \
    --patch-id "$PROMO" --version 1 --app-versions "$APP_RANGE" | sed 's/^/  /'
"$PATCHCTL" repo release "$REPO" Samples/patches/gift-wrap.js --name "$PROMO-2.js" --channel production --app "$APP_ID" \
    --patch-id "$PROMO" --version 2 --app-versions "$APP_RANGE" --rollout 10 | sed 's/^/  /'
upload
fleet 10
check_count "$WORK/fleet-10.txt" "^  $PROMO-2\.js +" 5 40 "about 10 % of 200 devices run $PROMO-2"
check_count "$WORK/fleet-10.txt" "^  $PROMO-1\.js +" 160 195 "the rest run $PROMO-1"

heading "12. Rollout to 100 %: every device moves to $PROMO-2"
"$PATCHCTL" repo rollout "$REPO" "$PROMO-2.js" 100 --channel production | sed 's/^/  /'
upload
fleet 100
check "$WORK/fleet-100.txt" "^  $PROMO-2\.js +200 devices \(100\.0 %\)$" "all 200 devices run $PROMO-2"
check_count "$WORK/fleet-100.txt" "^  reverted this run: " 160 195 "$PROMO-1 reverted (superseded) on the devices that had it"

heading "13. Disable $PROMO-2: every device falls back to $PROMO-1"
"$PATCHCTL" repo disable "$REPO" "$PROMO-2.js" --channel production | sed 's/^/  /'
upload
fleet disabled
check "$WORK/fleet-disabled.txt" "^  $PROMO-1\.js +200 devices \(100\.0 %\)$" "all 200 devices run $PROMO-1 again"

heading "14. Revoke $PROMO-1: it leaves every device; nothing of $PROMO runs"
"$PATCHCTL" repo revoke "$REPO" "$PROMO-1.js" --channel production | sed 's/^/  /'
upload
fleet revoked
check "$WORK/fleet-revoked.txt" "^  \(none\) +200 devices \(100\.0 %\)$" "no device runs $PROMO"

heading "15. Channel key rotation: production's key replaced (a leak), $PROMO-2 enabled again with the new key"
"$PATCHCTL" repo keygen "$REPO/keys/channel-production-2.key" | sed 's/^/  /'
"$PATCHCTL" repo rotate "$REPO" --role production --remove "$REPO/keys/channel-production.key" \
    --add "$REPO/keys/channel-production-2.key" | sed 's/^/  /'
mv "$REPO/keys/channel-production.key" "$WORK/leaked-channel-production.key"
"$PATCHCTL" repo enable "$REPO" "$PROMO-2.js" --channel production | sed 's/^/  /'
upload
fleet rotated
check "$WORK/fleet-rotated.txt" "^  $PROMO-2\.js +200 devices \(100\.0 %\)$" "every device took the channel signed with the new key, no app release"
check "$WORK/fleet-rotated.txt" "refused: none$" "nothing refused"

heading "16. Staging's role expires on the service: production devices keep updating"
# Too short-lived: refused (nothing else in the upload is new).
"$PATCHCTL" repo renew "$REPO" staging --valid-for 4 | sed 's/^/  /'
if "$PATCHCTL" repo publish "$REPO" --to "$SERVICE" --app "$APP_ID" > "$WORK/publish-short.txt" 2>&1; then
    echo "  (the service took it)"
fi
sed 's/^/  /' "$WORK/publish-short.txt"
check "$WORK/publish-short.txt" '"reason":"expires-too-soon"' "the service refuses a staging role valid for 4 s (under its minimum of $MIN_VALIDITY s)"
# Valid for 14 s: taken, then nobody renews it.
"$PATCHCTL" repo renew "$REPO" staging --valid-for 14 | sed 's/^/  /'
upload
echo "  waiting for staging to expire (14 s)"
for _ in $(seq 1 30); do
    "$PATCHCTL" repo status "$REPO" > "$WORK/status-expired.txt" 2>&1
    grep -q '^warning: staging version [0-9]* expired ' "$WORK/status-expired.txt" && break
    sleep 1
done
grep '^warning:' "$WORK/status-expired.txt" | sed 's/^/  /' || true
check "$WORK/status-expired.txt" '^warning: staging version [0-9]+ expired ' "patchctl repo status warns that staging expired"
# The service's /api/status says so too (bash's /dev/tcp: no curl needed).
SERVICE_PORT=$(tr -d '\n' < "$WORK/service-port")
( exec 3<>"/dev/tcp/127.0.0.1/$SERVICE_PORT" && printf 'GET /api/status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && cat <&3 ) > "$WORK/api-status.txt" 2>/dev/null || true
grep -E '"expiryWarning"' "$WORK/api-status.txt" | sed 's/^ */  /' || true
check "$WORK/api-status.txt" '"expiryWarning" : "staging version [0-9]+ expired ' "the service's status flags staging as expired"
"$PATCHCTL" repo release "$REPO" Samples/patches/gift-wrap.js --name "$PROMO-3.js" --channel production --app "$APP_ID" \
    --patch-id "$PROMO" --version 3 --app-versions "$APP_RANGE" | sed 's/^/  /'
upload
fleet expired
check "$WORK/fleet-expired.txt" "^  $PROMO-3\.js +200 devices \(100\.0 %\)$" "every production device took $PROMO-3 with staging expired"
check "$WORK/fleet-expired.txt" "refused: none$" "no production device refused anything"
"$FLEET" --repository "$FLEET_REPOSITORY" --root "$ROOT" --state "$WORK/fleet-staging" --channel staging --devices 10 > "$WORK/fleet-staging.txt" || true
sed 's/^/  /' "$WORK/fleet-staging.txt"
check_not "$WORK/fleet-staging.txt" "refused: none$" "staging's own devices refuse its expired role (a freeze for that channel only)"

heading "Release service log (last lines)"
tail -5 "$WORK/patchserver.log" | sed 's/^/  /'

echo
if [ "$FAILURES" -eq 0 ]; then
    echo "demo passed: $CHECKS checks"
else
    echo "demo FAILED: $FAILURES of $CHECKS checks"
    exit 1
fi
