#!/usr/bin/env bash
# make apple-check: every Objective-C and C file of the package compile-checked for Apple
# (arm64-apple-ios15.0, arm64-apple-macos13.0, x86_64-apple-macos13.0) by the shared tool
# (../shared/tools/apple-compile-check/run.sh, read-only), which checks one folder of .m files,
# Sources/PatchRuntime of the checkout it is given. PatchRuntime is checked as it stands; each other
# C-family target is laid out as such a checkout in a scratch folder: its own files (a C target's
# .c files as .m: checked as Objective-C, a superset), its own subfolders' files (CPatchEngine's
# Scripts, which it #embeds), with the public headers of the targets it imports copied into its
# include/ (as SwiftPM puts them on its include path). Prints each target's summary and
# "apple-check: N/M files compile" over all.
#
#   APPLE_CHECK  the tool (default ../shared/tools/apple-compile-check/run.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
tool="${APPLE_CHECK:-../shared/tools/apple-compile-check/run.sh}"
[ -x "$tool" ] || [ -f "$tool" ] || { echo "apple-check: no tool at $tool" >&2; exit 2; }

# target folder : folders whose include/ it imports. Tests/Arm64Check is no target (a Linux
# program run under qemu against GNUstep, not built for Apple).
targets=(
    "Sources/PatchRuntime:"
    "Sources/CPatchEngine:Sources/PatchRuntime"
    "Sources/PatchEngineObjC:"
    "Tests/PatchEngineObjCFixtures:Sources/PatchEngineObjC"
    "Tests/PatchFixtures:Sources/PatchRuntime"
    "Tests/JSPatchFixtures:"
    "Tests/ConversionCorpus:"
    "Benchmarks/BenchFixtures:Sources/PatchRuntime"
    "Samples/ShopKit:"
)
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The other targets use Foundation beyond the tool's stub, and CoreGraphics, UIKit, JavaScriptCore
# and Mach: Tools/apple-check/stub declares what they use, copied in shape from Apple's headers
# (FoundationAdditions.h says the rule), handed to the tool as EXTRA_STUB (a -F folder ahead of its
# stub): a Foundation.h that reads the tool's stub, then the additions. JavaScriptCore's C API is
# WebKit's own headers (the same API on Apple; libjavascriptcoregtk-4.1-dev, which make deps installs).
here="$(pwd)"
tool_stub="$(cd "$(dirname "$tool")" && pwd)/stub/Foundation.framework/Headers/Foundation.h"
extra="$scratch/extra"
mkdir -p "$extra/Foundation.framework/Headers" "$extra/JavaScriptCore.framework"
printf '#include "%s"\n#include "%s"\n' "$tool_stub" "$here/Tools/apple-check/stub/FoundationAdditions.h" \
    > "$extra/Foundation.framework/Headers/Foundation.h"
cp -r Tools/apple-check/stub/*.framework "$extra/"
jsc_headers="$(pkg-config --variable=includedir javascriptcoregtk-4.1 2>/dev/null)/webkitgtk-4.1/JavaScriptCore"
[ -f "$jsc_headers/JavaScript.h" ] || { echo "apple-check: no JavaScriptCore headers at $jsc_headers (make deps installs them)" >&2; exit 2; }
ln -s "$jsc_headers" "$extra/JavaScriptCore.framework/Headers"
total_ok=0 total=0 status=0
for entry in "${targets[@]}"; do
    dir=${entry%%:*} imports=${entry#*:}
    if [ "$dir" = Sources/PatchRuntime ]; then
        repo=.
    else
        repo="$scratch/$(echo "$dir" | tr / _)"
        mkdir -p "$repo/Sources/PatchRuntime"
        cp Package.swift "$repo/"
        # The target's own files; its Linux-only shim/ and what the package excludes stay out.
        (cd "$dir" && find . -maxdepth 2 \( -path ./shim -o -path ./NotCompiled -o -path ./Expected \) -prune -o -type f \( -name '*.m' -o -name '*.c' -o -name '*.h' -o -name '*.js' \) -print) \
            | while read -r f; do
                to="$f"; case "$f" in *.c) to="${f%.c}.m" ;; esac
                mkdir -p "$repo/Sources/PatchRuntime/$(dirname "$f")"; cp "$dir/$f" "$repo/Sources/PatchRuntime/$to"
            done
        mkdir -p "$repo/Sources/PatchRuntime/include"
        for imported in $imports; do cp "$imported"/include/*.h "$repo/Sources/PatchRuntime/include/"; done
        cp -r Tools/apple-check/stub/include/. "$repo/Sources/PatchRuntime/include/"
    fi
    # PatchRuntime against the tool's stub alone; the others with the additions.
    stub=""; [ "$repo" = . ] || stub="$extra"
    # The tool still copies Sources/PatchEngine/Resources/*.js, where the scripts were before they
    # moved into CPatchEngine (which #embeds them from its own folder): that copy's complaint is dropped.
    out="$(EXTRA_STUB="$stub" "$tool" "$repo" 2> >(grep -v 'Sources/PatchEngine/Resources/\*\.js' >&2))" || { echo "$out"; echo "apple-check: the compile check did not run for $dir" >&2; exit 1; }
    counts="$(echo "$out" | sed -n 's/^apple-compile: \([0-9]*\)\/\([0-9]*\) files compile$/\1 \2/p' | tail -1)"
    set -- $counts
    if [ -z "${2:-}" ] || [ "$2" -eq 0 ]; then echo "$out"; echo "apple-check: no file checked in $dir" >&2; exit 1; fi
    echo "== $dir: $1/$2 files compile; $(echo "$out" | sed -n 's/^  public headers (\(.*\)): \(.*\) parse$/\2 public headers parse (\1)/p')"
    if [ "$1" -ne "$2" ]; then echo "$out" | sed -n '/errors per file/,/^$/p'; status=1; fi
    # Public headers are read as Objective-C with ARC and as C (Swift's importer on Linux).
    if echo "$out" | grep -q '^  public header fails'; then echo "$out" | grep '^  public header fails'; status=1; fi
    total_ok=$((total_ok + $1)) total=$((total + $2))
done
echo "apple-check: $total_ok/$total files compile"
exit $status
