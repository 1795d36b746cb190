#!/usr/bin/env bash
# Writes a repository with `patchctl repo` for python-tuf's client to read:
#   OUT/repo      the publisher's folder;  OUT/publish  the static tree;
#   OUT/root.json the root a client starts from;  OUT/expected.json  target path -> content.
# It uses channels (staging, production), a release at 10 %, a promotion, a rollout change, a
# disabled release, a revoked one, a channel key rotated through targets, a root key rotated
# through a new root signed by 2 of 3 old and the new key, and a timestamp re-signed.
set -euo pipefail
out="$1"
patchctl="$("${SWIFT:-swift}" build --show-bin-path)/patchctl"
repo="$out/repo"
mkdir -p "$out/src"
printf 'defineClass("SKCart", {});\n' > "$out/src/cart-fix.js"
printf 'defineClass("SKCheckout", {});\n' > "$out/src/checkout-fix.js"
printf 'defineClass("SKGone", {});\n' > "$out/src/gone.js"

"$patchctl" repo init "$repo" --channel staging --channel production --key-type ecdsa-sha2-nistp256 >/dev/null
cp "$repo/record/root/1.root.json" "$out/root.json"
"$patchctl" repo release "$repo" "$out/src/cart-fix.js" --channel staging --app com.example.shop --patch-id cart-fix --rollout 10
"$patchctl" repo promote "$repo" cart-fix.js --from staging --to production --rollout 25
"$patchctl" repo rollout "$repo" cart-fix.js 100 --channel production
"$patchctl" repo release "$repo" "$out/src/checkout-fix.js" --channel staging --app com.example.shop --patch-id checkout-fix --app-versions '>=1.2.0'
"$patchctl" repo disable "$repo" checkout-fix.js --channel staging
"$patchctl" repo release "$repo" "$out/src/gone.js" --channel production --app com.example.shop --patch-id gone
"$patchctl" repo revoke "$repo" gone.js --channel production
"$patchctl" repo keygen "$repo/keys/channel-production-2.key" --key-type rsassa-pss-sha256 >/dev/null
"$patchctl" repo rotate "$repo" --role production --remove "$repo/keys/channel-production.key" --add "$repo/keys/channel-production-2.key"
rm "$repo/keys/channel-production.key"
"$patchctl" repo keygen "$out/root-4.key" --key-type ed25519 >/dev/null
"$patchctl" repo rotate "$repo" --role root --remove "$repo/keys/root-1.key" --add "$out/root-4.key"
"$patchctl" repo timestamp "$repo"
"$patchctl" repo publish "$repo" "$out/publish" >/dev/null

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
expected = {
    "staging/cart-fix.js": open(os.path.join(out, "src/cart-fix.js")).read(),
    "production/cart-fix.js": open(os.path.join(out, "src/cart-fix.js")).read(),
    "staging/checkout-fix.js": open(os.path.join(out, "src/checkout-fix.js")).read(),
}
json.dump({"targets": expected, "absent": ["production/gone.js"], "root_version": 2}, open(os.path.join(out, "expected.json"), "w"))
PY
