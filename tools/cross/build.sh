#!/usr/bin/env bash
# `make dist ARCH=arm64` on an amd64 machine: the portable arm64 binary,
# cross-compiled with Debian's Swift inside the cached host root
# (tools/cross/sdk.sh), and the man page and completions generated from its
# own argument parser, run under qemu-user.
#
#   tools/cross/build.sh SCRATCH [SWIFT-BUILD-FLAG]...
#
# SCRATCH (in the repository, e.g. .build-arm64) holds the build; the flags
# are the link flags of the amd64 dist build (Makefile DIST_LINK); packed
# relative relocations are added when the sysroot's glibc has them.
# Writes SCRATCH/release/headsup, SCRATCH/generated/ (headsup.1.gz,
# completions) and SCRATCH/qemu/headsup (runs the binary under qemu).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 SCRATCH [SWIFT-BUILD-FLAG]..." >&2; exit 64; }
scratch=$1; shift
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
sdk=tools/cross/sdk.sh
swift=${SWIFT:-swift}

"$sdk" prepare
sysroot=$("$sdk" sysroot)
glibc=$(dpkg-query --admindir="$sysroot/var/lib/dpkg" -W -f='${Version}' libc6:arm64 | sed 's/-.*//')

# The dependencies are fetched here, by this machine's SwiftPM (its network
# or mirrors); the host root has neither git nor network, and finds them in
# SCRATCH/checkouts, pinned by Package.resolved.
"$swift" package resolve --scratch-path "$scratch"

# -gnone: Debian's 6.2.3 compiler asserts in IRGenDebugInfo on HeadsUpModel
# with debug info (the release binary is stripped anyway).
# HEADSUP_TARGET_ARCH: Package.swift gives x86 -target-cpu flags only when
# the target is x86_64 (`#if arch` would see this machine).
HEADSUP_CROSS_ENV=HEADSUP_TARGET_ARCH=aarch64 "$sdk" run swift build -c release --static-swift-stdlib \
    --swift-sdks-path /opt/swift-sdks --swift-sdk headsup-arm64 --product headsup --scratch-path "$scratch" --disable-dependency-cache \
    -Xswiftc -gnone "$@" $(tools/package/relr-flags.sh --target-glibc "$glibc")
binary=$scratch/release/headsup
readelf -h "$binary" | grep -q "Machine: *AArch64" || { echo "$0: $binary is not an aarch64 program" >&2; exit 1; }

# The man page and completions: generate-manual is a tool of this machine
# (built from the argument-parser checkout, as for amd64), and it runs the
# arm64 binary, as generate-docs.sh does, through qemu-user with the
# sysroot's loader and libraries.
"$swift" build -c release --package-path "$scratch/checkouts/swift-argument-parser" \
    --scratch-path "$scratch/argument-parser" --product generate-manual
mkdir -p "$scratch/qemu"
printf '#!/bin/sh\nexec %q qemu %q "$@"\n' "$repo/$sdk" "$repo/$binary" > "$scratch/qemu/headsup"
chmod +x "$scratch/qemu/headsup"
tools/package/generate-docs.sh "$scratch/qemu/headsup" "$scratch/argument-parser/release/generate-manual" "$scratch/generated"
