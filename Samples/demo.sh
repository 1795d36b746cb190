#!/usr/bin/env bash
# `make demo`: the sample shop fetches a signed patch from a local patch server and applies it;
# then a staged rollout through the release service to 200 simulated devices (steps 10-13).
#
# Builds the shop and patchctl, makes a throwaway key pair, signs Samples/patches, serves them on
# loopback, and runs the shop: before the patch is published, after, offline from its cache, with a
# tampered patch, and after a revocation (at run time and at the next launch). Every step checks
# the output for what it must show; the script exits non-zero when one does not.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
APP_ID=com.example.shop
APP_RANGE='>=1.4.0 <1.5.0'   # the shop reports version 1.4.0
PATCH_ID=shop-fixes
PATCH_FILE=shop-fixes.json
SCRIPTS=(Samples/patches/total.js Samples/patches/product-name.js Samples/patches/gift-wrap.js Samples/patches/deep-link.js)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/patchengine-demo.XXXXXX")
SERVER_PID=
RELEASE_SERVER_PID=
CDN_PID=
FAILURES=0
CHECKS=0

cleanup() {
    for pid in $SERVER_PID $RELEASE_SERVER_PID $CDN_PID; do
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

# The patch-loading part of a run: what the loader did.
patch_lines() { grep -E '^(patch:|live patches|== (launch|update))' "$1" | sed 's/^/  /'; }

# run_shop NAME DEVICE [OPTIONS...]: runs the shop as device DEVICE; output in $WORK/NAME.txt.
run_shop() {
    local name=$1 device=$2; shift 2
    if ! "$SHOP" --public-key "$PUBLIC_KEY" --state-dir "$WORK/devices/$device" "$@" > "$WORK/$name.txt" 2>&1; then
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
PATCHSERVER="$BIN/patchserver"
FLEET="$BIN/fleet"
echo "  built in $((SECONDS - start)) s: $SHOP, $PATCHCTL, $PATCHSERVER, $FLEET"

heading "2. A throwaway key pair; lint, sign and verify the patch; a revocation list"
mkdir -p "$WORK/keys" "$WORK/served" "$WORK/devices"
"$PATCHCTL" keygen --out "$WORK/keys" --id demo-key | sed 's/^/  /'
PRIVATE_KEY="$WORK/keys/demo-key.private-key.json"
PUBLIC_KEY="$WORK/keys/demo-key.public-key.json"
"$PATCHCTL" lint "${SCRIPTS[@]}" | sed 's/^/  /'
# A patch names its app and expires (GNU date, then BSD date): a leaked copy can't run anywhere, forever.
EXPIRES=$(date -u -d '+30 days' +%Y-%m-%d 2>/dev/null || date -u -v+30d +%Y-%m-%d)
"$PATCHCTL" sign "${SCRIPTS[@]}" --key "$PRIVATE_KEY" --id "$PATCH_ID" --version 1 \
    --app-id "$APP_ID" --app-version "$APP_RANGE" --expires "$EXPIRES" --out "$WORK/$PATCH_FILE" | sed 's/^/  /'
"$PATCHCTL" verify "$WORK/$PATCH_FILE" --public-key "$PUBLIC_KEY" --app-id "$APP_ID" --app-version 1.4.0 | sed 's/^/  /'
# The server always carries a revocation list; this one withdraws an old experiment.
"$PATCHCTL" revoke shop-experiment --key "$PRIVATE_KEY" --out "$WORK/served/revocations.json" | sed 's/^/  /'

heading "3. Start the patch server on loopback"
# --port 0: the kernel picks a free port, so nothing can take it between choosing and binding;
# the server writes it to --port-file once it listens.
"$PATCHCTL" serve "$WORK/served" --port 0 --port-file "$WORK/port" > "$WORK/server.log" 2>&1 &
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
            printf 'GET /revocations.json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
            head -1 <&3) 2>/dev/null | tr -d '\r') || true
case "$status" in *" 200 "*) ;; *) die "the server on port $PORT answered '${status:-nothing}'";; esac
echo "  serving $WORK/served on $URL (pid $SERVER_PID): $status"

heading "4. Before: the shop on device A, no patch published yet"
run_shop before device-a --server "$URL" --allow-http
patch_lines "$WORK/before.txt"
check "$WORK/before.txt" "^patch: fetch failed for $PATCH_FILE: HTTP 404" "no patch on the server yet (404)"
check "$WORK/before.txt" '^Total +\$38\.37$' "bug: the total takes the discount off twice (\$38.37)"
check "$WORK/before.txt" "^!! screen crashed: NSInvalidArgumentException" "bug: the catalog crashes on the product without a name (caught)"
check_not "$WORK/before.txt" '^Gift wrap' "missing feature: no gift-wrap offer"
check "$WORK/before.txt" '^  \(nothing opened\)$' "bug: shop://product/TEE-02 opens nothing"

heading "5. After: publish $PATCH_ID v1, launch device A again"
cp "$WORK/$PATCH_FILE" "$WORK/served/$PATCH_FILE"
run_shop after device-a --server "$URL" --allow-http
patch_lines "$WORK/after.txt"
echo
screens "$WORK/before.txt" 1 > "$WORK/before-screens.txt"
screens "$WORK/after.txt" 1 > "$WORK/after-screens.txt"
side_by_side "BEFORE (no patch)" "$WORK/before-screens.txt" "AFTER ($PATCH_ID v1 applied)" "$WORK/after-screens.txt"
echo
check "$WORK/after.txt" "^patch: applied $PATCH_ID v1 from network$" "downloaded, verified, applied"
check "$WORK/after.txt" '^Total +\$42\.77$' "fixed: total \$42.77 (discount once, tax on the discounted subtotal)"
check "$WORK/after.txt" '^GIFT-50 +Item GIFT-50 +\$50\.00$' "fixed: the catalog shows the unnamed product"
check "$WORK/after.txt" '^Gift wrap\? \(3 items\) +\+\$4\.50$' "new: the gift-wrap offer (a method the patch added)"
check "$WORK/after.txt" '^  T-shirt +\$20\.00$' "fixed: shop://product/TEE-02 opens the product (route replaced)"
check_not "$WORK/after.txt" '^!!|nothing opened' "no crash, no dead link"

heading "6. Relaunch device A offline: the verified cached copy applies without the network"
run_shop offline device-a
patch_lines "$WORK/offline.txt"
check "$WORK/offline.txt" "^patch: applied $PATCH_ID v1 from cache$" "applied from the cache"
check "$WORK/offline.txt" '^Total +\$42\.77$' "still fixed offline"

heading "7. Refused: a tampered copy (one byte of total.js flipped) on a new device B"
cp "$WORK/$PATCH_FILE" "$WORK/tampered.json"
offset=$(grep -bo 'discountedSubtotalCents() + self' "$WORK/tampered.json" | head -1 | cut -d: -f1)
[ -n "$offset" ] || die "total.js not found in the signed patch"
flip_byte "$WORK/tampered.json" "$offset"
echo "  total.js now says: $(grep -o 'return self.[A-Za-z]*() + self' "$WORK/tampered.json" | head -1)"
if "$PATCHCTL" verify "$WORK/tampered.json" --public-key "$PUBLIC_KEY" > /dev/null 2> "$WORK/verify-tampered.txt"; then
    die "patchctl verify accepted the tampered patch"
fi
sed 's/^/  patchctl verify: /' "$WORK/verify-tampered.txt"
cp "$WORK/tampered.json" "$WORK/served/$PATCH_FILE"
run_shop tampered device-b --server "$URL" --allow-http
patch_lines "$WORK/tampered.txt"
check "$WORK/tampered.txt" "^patch: refused $PATCH_FILE: script hash mismatch: 'total.js'" "refused: script hash mismatch"
check "$WORK/tampered.txt" '^Total +\$38\.37$' "nothing of it ran: the bugs remain"
check "$WORK/tampered.txt" '^launch succeeded$' "the app kept running"
cp "$WORK/$PATCH_FILE" "$WORK/served/$PATCH_FILE"   # the good copy again

heading "8. Revoked: patchctl revoke $PATCH_ID, device A running with its cached patch"
"$PATCHCTL" revoke "$PATCH_ID" --key "$PRIVATE_KEY" --out "$WORK/served/revocations.json" | sed 's/^/  /'
run_shop revoked device-a --server "$URL" --allow-http --show-before-update
patch_lines "$WORK/revoked.txt"
echo
screens "$WORK/revoked.txt" 1 > "$WORK/revoked-1.txt"
screens "$WORK/revoked.txt" 2 > "$WORK/revoked-2.txt"
side_by_side "LIVE (from cache)" "$WORK/revoked-1.txt" "AFTER THE REVOCATION LIST" "$WORK/revoked-2.txt"
echo
check "$WORK/revoked.txt" "^patch: applied $PATCH_ID v1 from cache$" "the patch was live (from the cache)"
check "$WORK/revoked-1.txt" '^Total +\$42\.77$' "fixed while live"
check "$WORK/revoked.txt" "^patch: reverted $PATCH_ID v1: revoked$" "reverted at run time by the revocation list"
check "$WORK/revoked-2.txt" '^Total +\$38\.37$' "the bugs are back in the same process"
check "$WORK/revoked-2.txt" '^  \(nothing opened\)$' "the app's own (broken) route is back"

heading "9. Next launch of device A: the revoked patch is refused"
run_shop relaunch device-a --server "$URL" --allow-http
patch_lines "$WORK/relaunch.txt"
check "$WORK/relaunch.txt" '^patch: nothing cached$' "the cached copy was deleted"
check "$WORK/relaunch.txt" "^patch: refused $PATCH_FILE: patch '$PATCH_ID' version 1 is revoked$" "refused: revoked"
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

heading "10. The release service: patchserver with SQLite, a publisher key apart from the release key"
"$PATCHCTL" keygen --out "$WORK/keys" --id demo-publisher | sed 's/^/  /'
PUBLISHER_KEY="$WORK/keys/demo-publisher.private-key.json"
"$PATCHSERVER" "$WORK/releases" --app-id "$APP_ID" --release-key "$PUBLIC_KEY" \
    --publisher-key "$WORK/keys/demo-publisher.public-key.json" --port 0 --port-file "$WORK/release-port" > "$WORK/patchserver.log" 2>&1 &
RELEASE_SERVER_PID=$!
wait_port "$WORK/release-port" "$RELEASE_SERVER_PID" patchserver
RELEASES="http://127.0.0.1:$(tr -d '\n' < "$WORK/release-port")/"
echo "  patchserver on $RELEASES (SQLite in $WORK/releases, status page ${RELEASES}status)"
PROMO=shop-promo
for version in 1 2; do
    "$PATCHCTL" sign Samples/patches/gift-wrap.js --key "$PRIVATE_KEY" --id "$PROMO" --version "$version" \
        --app-id "$APP_ID" --app-version "$APP_RANGE" --expires "$EXPIRES" --out "$WORK/$PROMO-$version.json" > /dev/null
done
OPS=(--server "$RELEASES" --key "$PRIVATE_KEY" --publisher-key "$PUBLISHER_KEY")
# The revocation list of step 8 goes to the service too: devices following a channel take it in first.
"$PATCHCTL" revocations "$WORK/served/revocations.json" --server "$RELEASES" --publisher-key "$PUBLISHER_KEY" | sed 's/^/  /'
"$PATCHCTL" release "$WORK/$PROMO-1.json" --channel staging "${OPS[@]}" | sed 's/^/  /'
"$PATCHCTL" promote "$PROMO-1" --from staging --to production --rollout 100 "${OPS[@]}" | sed 's/^/  /'
"$PATCHCTL" release "$WORK/$PROMO-2.json" --channel staging "${OPS[@]}" | sed 's/^/  /'
"$PATCHCTL" promote "$PROMO-2" --from staging --to production --rollout 10 "${OPS[@]}" > "$WORK/promote.txt"
sed 's/^/  /' "$WORK/promote.txt"
check "$WORK/promote.txt" "^  $PROMO-2 +$PROMO v2 +10 % +enabled" "production: $PROMO-2 at 10 %, signed on this machine"

heading "11. 200 simulated devices follow production: $PROMO-2 at 10 %"
"$FLEET" --server "$RELEASES" --public-key "$PUBLIC_KEY" --state "$WORK/fleet" --devices 200 > "$WORK/fleet-10.txt"
sed 's/^/  /' "$WORK/fleet-10.txt"
check_count "$WORK/fleet-10.txt" "^  $PROMO-2 +" 5 40 "about 10 % of 200 devices run $PROMO-2"
check "$WORK/fleet-10.txt" "^  $PROMO-1 +" "the rest run $PROMO-1"
"$PATCHCTL" status --server "$RELEASES" > "$WORK/status-10.txt"
sed 's/^/  /' "$WORK/status-10.txt"
check_count "$WORK/status-10.txt" "^  $PROMO-2 +$PROMO v2 +10 % +enabled +" 5 40 "the service counted the devices that applied $PROMO-2"

heading "12. Rollout to 100 %: every device moves to $PROMO-2"
"$PATCHCTL" rollout "$PROMO-2" 100 --channel production "${OPS[@]}" | sed 's/^/  /'
"$FLEET" --server "$RELEASES" --public-key "$PUBLIC_KEY" --state "$WORK/fleet" --devices 200 > "$WORK/fleet-100.txt"
sed 's/^/  /' "$WORK/fleet-100.txt"
check "$WORK/fleet-100.txt" "^  $PROMO-2 +200 devices \(100\.0 %\)$" "all 200 devices run $PROMO-2"
"$PATCHCTL" status --server "$RELEASES" > "$WORK/status-100.txt"
sed 's/^/  /' "$WORK/status-100.txt"
check "$WORK/status-100.txt" "^  $PROMO-2 +$PROMO v2 +100 % +enabled +200 " "applied counted on all 200 devices"
check_count "$WORK/status-100.txt" "^  $PROMO-1 +$PROMO v1 +100 % +enabled +[0-9]+ +[0-9]+ +" 160 195 "$PROMO-1 reverted (superseded) on the devices that had it"

heading "13. Any CDN: patchctl publish writes the signed files as a static tree; devices need nothing else"
"$PATCHCTL" publish --server "$RELEASES" --channel production --channel staging --out "$WORK/cdn" | sed 's/^/  /'
"$PATCHCTL" serve "$WORK/cdn" --port 0 --port-file "$WORK/cdn-port" > "$WORK/cdn.log" 2>&1 &
CDN_PID=$!
wait_port "$WORK/cdn-port" "$CDN_PID" "patchctl serve (cdn)"
"$FLEET" --server "http://127.0.0.1:$(tr -d '\n' < "$WORK/cdn-port")/" --public-key "$PUBLIC_KEY" --state "$WORK/fleet-cdn" --devices 20 > "$WORK/fleet-cdn.txt"
sed 's/^/  /' "$WORK/fleet-cdn.txt"
check "$WORK/fleet-cdn.txt" "^  $PROMO-2 +20 devices \(100\.0 %\)$" "20 new devices got $PROMO-2 from the static tree"

heading "Patch server log"
sed 's/^/  /' "$WORK/server.log"

echo
if [ "$FAILURES" -eq 0 ]; then
    echo "demo passed: $CHECKS checks"
else
    echo "demo FAILED: $FAILURES of $CHECKS checks"
    exit 1
fi
