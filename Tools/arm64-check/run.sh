#!/usr/bin/env bash
# make arm64-check: the runtime core's arm64 register paths executed, not only compile-checked.
# Builds a Debian arm64 root once (cached in .build/arm64-root), cross-compiles
# Sources/PatchRuntime and Tests/Arm64Check with the Swift toolchain's clang for
# aarch64-linux-gnu against it, and runs the result under qemu-aarch64. The program prints
# "N passed, M failed" and exits non-zero on any failure (Tests/Arm64Check/main.m).
#
#   ARM64_ROOT        the root's folder (default .build/arm64-root)
#   ARM64_CHECK_SOURCES  the runtime core's folder (default Sources/PatchRuntime)
#   CLANG             the clang to use (default: the one beside `swift`)
#   ARM64_CHECK_TRACE set: the program prints each case as it starts (a crash then says which)
set -euo pipefail
cd "$(dirname "$0")/../.."

root="${ARM64_ROOT:-.build/arm64-root}"
runtime="${ARM64_CHECK_SOURCES:-Sources/PatchRuntime}"
out=.build/arm64-check
# What the root holds: GNUstep Foundation and GCC's Objective-C runtime as the Linux build uses
# them, libffi (GNUstep's NSInvocation and forwarding need it; the check itself runs the runtime
# core without it, as iOS does), the Blocks runtime, and libc's and libgcc's files to link against.
packages="libgnustep-base-dev,libobjc-12-dev,libffi-dev,libblocksruntime-dev,libc6-dev,libgcc-12-dev"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Tools, from Debian's registry when missing: qemu-user (qemu-aarch64) runs the program,
# mmdebstrap builds the root (its extract variant unpacks packages without running any of their
# scripts, so no emulation is needed to build it).
missing=""
command -v qemu-aarch64 >/dev/null || missing="$missing qemu-user"
command -v mmdebstrap >/dev/null || missing="$missing mmdebstrap"
if [ -n "$missing" ]; then
    echo "arm64-check: installing$missing"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq $missing >/dev/null
fi

clang="${CLANG:-}"
if [ -z "$clang" ]; then
    swift_bin="$(command -v swift || true)"
    [ -n "$swift_bin" ] && clang="$(dirname "$(readlink -f "$swift_bin")")/clang"
fi
[ -x "$clang" ] || { echo "arm64-check: no clang (set CLANG, or put the Swift toolchain's bin on PATH)" >&2; exit 1; }
# The toolchain's Block.h (the header the Linux build compiles against: Package.swift).
block_dir="$(dirname "$(dirname "$clang")")/lib/swift/Block"
[ -f "$block_dir/Block.h" ] || { echo "arm64-check: no Block.h in $block_dir" >&2; exit 1; }

# The machine's own Debian archive and release, as its apt is configured (deb822 .sources files
# or one-line lists): the root comes from where this machine's packages come from. (`|| true`: a
# missing file, or awk leaving the pipe early, must not end the script under pipefail.)
suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
    /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite && uri != "") { print uri; exit } }' suite="$suite" || true)"
[ -n "$mirror" ] || mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '
    $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { uri = $i; if ($(i + 1) == suite) { print uri; exit } } }' suite="$suite" || true)"
[ -n "$suite" ] && [ -n "$mirror" ] || { echo "arm64-check: cannot tell this machine's Debian release and archive from /etc/os-release and /etc/apt" >&2; exit 1; }

# The root is built once per (release, archive, packages): a re-run with the same key reuses it.
key="$suite $mirror $packages"
if [ ! -f "$root/.arm64-check-key" ] || [ "$(cat "$root/.arm64-check-key")" != "$key" ]; then
    echo "arm64-check: building the arm64 root ($suite from $mirror) in $root"
    rm -rf "$root" "$root.partial"
    mkdir -p "$(dirname "$root")"
    as_root mmdebstrap --quiet --variant=extract --architectures=arm64 --include="$packages" \
        "$suite" "$root.partial" "$mirror"
    echo "$key" > "$root.partial/.arm64-check-key"
    mv "$root.partial" "$root"
fi

sysroot="$(cd "$root" && pwd)"
flags=(--target=aarch64-linux-gnu "--sysroot=$sysroot" -O1 -g -fblocks
    -fobjc-runtime=gcc -fobjc-exceptions -fexceptions -fconstant-string-class=NSConstantString
    -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1 -DGNU_RUNTIME=1
    "-I$sysroot/usr/include/GNUstep" "-I$sysroot/usr/lib/gcc/aarch64-linux-gnu/12/include"
    "-I$runtime/shim" "-I$block_dir" "-I$runtime/include" "-I$runtime"
    -Wall -Wno-deprecated-objc-isa-usage -Wno-objc-root-class -Wno-unused-function)
rm -rf "$out"
mkdir -p "$out"
sources=("$runtime"/*.m Tests/Arm64Check/*.m)
echo "arm64-check: compiling ${#sources[@]} files for aarch64-linux-gnu"
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'f="$1"; shift; n="$(echo "$f" | tr / _)"; exec "$@" -c "$f" -o "'"$out"'/${n%.m}.o"' _ {} "$clang" "${flags[@]}"
# libBlocksRuntime before libgnustep-base: GNUstep-base exports a _Block_copy of its own that copies
# only blocks carrying an obsolete flag (clang's never do), so whichever library the dynamic
# linker finds first decides whether a block copy copies (docs/platform-notes.md). A second link
# in the other order checks that the engine then refuses to make blocks, with its message.
link() {
    "$clang" --target=aarch64-linux-gnu "--sysroot=$sysroot" -fuse-ld=lld "$out"/*.o -o "$1" \
        -L"$sysroot/usr/lib" -L"$sysroot/usr/lib/aarch64-linux-gnu" "${@:2}" -lobjc -lffi -lm -lpthread
}
link "$out/arm64-check" -lBlocksRuntime -lgnustep-base
link "$out/arm64-check-foreign-block-copy" -lgnustep-base -lBlocksRuntime
echo "arm64-check: running under qemu-aarch64 (engine blocks under GNUstep-base's _Block_copy first)"
ARM64_CHECK_FOREIGN_BLOCK_COPY=1 qemu-aarch64 -L "$sysroot" "$out/arm64-check-foreign-block-copy"
echo "arm64-check: running under qemu-aarch64"
exec qemu-aarch64 -L "$sysroot" "$out/arm64-check"
