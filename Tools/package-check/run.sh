#!/usr/bin/env bash
# An app depends on PatchEngine by version, as SwiftPM allows only for a package whose manifest
# is tools version 6.2 or later (its Objective-C targets carry unsafe flags): the project's files
# as they are (tracked and new, not ignored) become a git repository of their own tagged 1.0.0,
# and a throwaway app package depends on it with `from: "1.0.0"`, builds, and runs
# PatchEngine.evaluate. Fails unless the app prints the script's result.
set -euo pipefail
cd "$(dirname "$0")/../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/PatchEngine" "$work/App/Sources/App"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$work/PatchEngine"
git -C "$work/PatchEngine" init -q
git -C "$work/PatchEngine" add -A
git -C "$work/PatchEngine" -c user.name=package-check -c user.email=package-check@localhost commit -qm "release 1.0.0"
git -C "$work/PatchEngine" tag 1.0.0

cp Tools/package-check/App/Package.swift "$work/App/Package.swift"
sed -i "s|PATCHENGINE_REPOSITORY|file://$work/PatchEngine|" "$work/App/Package.swift"
cp Tools/package-check/App/main.swift "$work/App/Sources/App/main.swift"

out="$(cd "$work/App" && "${SWIFT:-swift}" run -q App 2>&1)" || { echo "$out"; echo "package-check: the app depending on PatchEngine by version did not build or run" >&2; exit 1; }
echo "$out"
grep -qx "versioned dependency: 42" <<<"$out" || { echo "package-check: the app did not print the script's result" >&2; exit 1; }
echo "package-check: an app depends on PatchEngine from: \"1.0.0\", builds and evaluates a patch"
