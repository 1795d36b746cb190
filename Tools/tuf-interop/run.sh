#!/usr/bin/env bash
# Interoperability with python-tuf (tuf==7.0.0), both ways:
#  1. PatchUpdater (through patch-tuf-client) reads a repository written by python-tuf's
#     metadata API (python_repository.py) and downloads every target, root rotation included;
#  2. python-tuf's ngclient.Updater refreshes from a repository written by `patchctl repo` and
#     downloads every target (python_client.py), when patchctl_repository.sh exists.
# The Python packages are the conformance suite's virtual environment (.build/tufc).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tools/tuf-interop
. Tools/tuf-conformance/venv.sh

"${SWIFT:-swift}" build --product patch-tuf-client
"${SWIFT:-swift}" build --product patchctl
client="$("${SWIFT:-swift}" build --show-bin-path)/patch-tuf-client"

work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

serve() {  # serve DIR: starts a server for DIR, sets $port and $server_pid
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; fi
    coproc SERVER { exec "$python" "$here/serve.py" "$1"; }
    server_pid=$SERVER_PID
    read -r port <&"${SERVER[0]}"
}

echo "== python-tuf repository -> PatchUpdater"
"$python" "$here/python_repository.py" "$work/py"
serve "$work/py"
mkdir -p "$work/client/metadata" "$work/client/targets"
"$client" --metadata-dir "$work/client/metadata" init "$work/py/1.root.json"
failures=0
for path in $("$python" -c 'import json,sys; print("\n".join(sorted(json.load(open(sys.argv[1])))))' "$work/py/expected.json"); do
    if "$client" --metadata-dir "$work/client/metadata" --metadata-url "http://127.0.0.1:$port/metadata/" \
        --target-name "$path" --target-dir "$work/client/targets" --target-base-url "http://127.0.0.1:$port/targets/" download; then
        :
    else
        echo "FAIL: PatchUpdater could not download $path" >&2; failures=$((failures + 1))
    fi
done
"$python" - "$work/py/expected.json" "$work/client" <<'PY' || failures=$((failures + 1))
import json, os, sys
from urllib.parse import quote
expected = json.load(open(sys.argv[1]))
for path, content in expected.items():
    stored = open(os.path.join(sys.argv[2], "targets", quote(path, "")), encoding="utf-8").read()
    assert stored == content, f"{path}: wrong content"
root = json.load(open(os.path.join(sys.argv[2], "metadata", "root.json")))
assert root["signed"]["version"] == 2, "root rotation to version 2 not followed"
print(f"PatchUpdater read python-tuf's repository: {len(expected)} targets, root v2")
PY

if [ -x "$here/patchctl_repository.sh" ]; then
    echo "== patchctl repository -> python-tuf ngclient"
    "$here/patchctl_repository.sh" "$work/pc"
    serve "$work/pc/publish"
    "$python" "$here/python_client.py" "http://127.0.0.1:$port" "$work/pc/root.json" "$work/pc/expected.json" "$work/pyclient" \
        || failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then echo "tuf-interop: $failures failure(s)" >&2; exit 1; fi
echo "tuf-interop: passed"
