#!/usr/bin/env bash
# Prints the swift build flags that link the installed binary with packed
# relative relocations (DT_RELR), when this machine can: lld (Swift's
# toolchains ship it) and glibc 2.36 or newer (Debian bookworm), which the
# binary then requires. A static-stdlib Swift binary is position-independent
# with about 80,000 relative relocations: 1.9 MB of .rela.dyn that the
# dynamic loader reads, and keeps resident, at every start; packed they take
# 15 KB. Prints nothing (the default linker, plain relocations) otherwise.
#
#   tools/package/relr-flags.sh                          for this machine
#   tools/package/relr-flags.sh --target-glibc VERSION   for a cross build (tools/cross/), whose
#                                                        Swift SDK links with lld: the target's glibc
set -euo pipefail
if [ "${1:-}" = "--target-glibc" ]; then
    version=${2:?}
else
    swiftc=$(command -v swiftc || true)
    [ -n "$swiftc" ] || exit 0
    lld=$(dirname "$(readlink -f "$swiftc")")/ld.lld
    [ -x "$lld" ] || lld=$(command -v ld.lld || true)
    [ -n "$lld" ] || exit 0
    version=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
    [ -n "$version" ] || exit 0
fi
IFS=. read -r major minor _ <<< "$version"
if [ "$major" -gt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -ge 36 ]; }; then
    echo "-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs"
fi
