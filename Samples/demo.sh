#!/usr/bin/env bash
# `make demo`: the sample shop fetches a signed patch from a local patch server and applies it.
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
FAILURES=0
CHECKS=0

cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
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

heading "1. Build the shop and patchctl (the first build compiles swift-crypto: 1-3 min)"
start=$SECONDS
for product in shop patchctl; do
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
echo "  built in $((SECONDS - start)) s: $SHOP, $PATCHCTL"

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

heading "Patch server log"
sed 's/^/  /' "$WORK/server.log"

echo
if [ "$FAILURES" -eq 0 ]; then
    echo "demo passed: $CHECKS checks"
else
    echo "demo FAILED: $FAILURES of $CHECKS checks"
    exit 1
fi
