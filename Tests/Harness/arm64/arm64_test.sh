#!/usr/bin/env bash
# The arm64 package on arm64, emulated: `make deb ARCH=arm64`'s package is
# installed with apt into a clean Debian trixie arm64 root (debootstrap
# --arch=arm64 --variant=minbase, cached) and run there under qemu-user
# through binfmt_misc, with the checks of the amd64 clean-root test
# (Tests/Harness/install/clean_root_test.sh, which this calls) and those of
# checks.sh beside this file: every replay scenario byte for byte against
# its expected.jsonl, `evaluate` of the bundled test sessions against the
# amd64 release binary's figures in the same run, the libhdf5 error naming
# the version built for, and `model selftest` on each kernel level when
# the binary has it.
#
#   Tests/Harness/arm64/arm64_test.sh --preflight
#       whether it can run here: registers qemu-aarch64 with binfmt_misc if
#       needed (mounting /proc/sys/fs/binfmt_misc first); exit 0, or 77 and why not
#   Tests/Harness/arm64/arm64_test.sh --prepare-root
#       the same, then only builds or refreshes the cached clean root (make
#       test-arm64 runs this beside the builds: a debootstrap under qemu takes minutes)
#   Tests/Harness/arm64/arm64_test.sh --deb out/headsup_<version>_arm64.deb --amd64 .build-dist/release/headsup
#
# The root is cached in $HEADSUP_ARM64_TEST_CACHE (default
# /var/cache/headsup-test/trixie-arm64), like the bookworm one.
# Exit 0 = all passed, 1 = a check failed, 77 = cannot run here (not root,
# no qemu-user-static, no binfmt_misc, no mount namespace, no debootstrap);
# under CI=true a skip is a failure.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
CACHE=${HEADSUP_ARM64_TEST_CACHE:-/var/cache/headsup-test/trixie-arm64}
deb=""
amd64=""
preflight=0

while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=$2; shift 2 ;;
        --amd64) amd64=$2; shift 2 ;;
        --preflight) preflight=1; shift ;;
        --prepare-root) preflight=2; shift ;;
        *) echo "usage: $0 --preflight | --prepare-root | --deb FILE --amd64 BINARY" >&2; exit 64 ;;
    esac
done

skip() {
    if [ "${CI:-}" = "true" ]; then
        echo "not ok - cannot run the arm64 test under CI=true: $*" >&2
        exit 1
    fi
    echo "SKIP: arm64 test: $*" >&2
    exit 77
}

# ---------------------------------------------------------------------------
# Can arm64 programs run here? qemu-user-static registers itself with
# binfmt_misc (binfmt-support) where that is mounted; in a container it
# often is not, and nothing registers it.
# ---------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (binfmt_misc, debootstrap, chroot, mounts); run it with sudo"
command -v unshare > /dev/null && unshare -m true 2>/dev/null || skip "cannot create a private mount namespace (unshare -m)"
command -v debootstrap > /dev/null || skip "no debootstrap (apt-get install debootstrap, or tools/install-deps.sh)"
[ -f /usr/share/binfmts/qemu-aarch64 ] && command -v qemu-aarch64-static > /dev/null \
    || skip "no qemu-user-static (apt-get install qemu-user-static binfmt-support, or tools/install-deps.sh)"
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
    mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null \
        || skip "binfmt_misc is not mounted and cannot be (mount -t binfmt_misc binfmt_misc $binfmt)"
    echo "# mounted binfmt_misc on $binfmt"
fi
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    command -v update-binfmts > /dev/null || skip "no update-binfmts (apt-get install binfmt-support) to register qemu-aarch64"
    update-binfmts --enable qemu-aarch64 > /dev/null 2>&1 || update-binfmts --import qemu-aarch64 > /dev/null 2>&1 \
        || skip "cannot register qemu-aarch64 with binfmt_misc (update-binfmts --enable qemu-aarch64)"
    echo "# registered qemu-aarch64 with binfmt_misc"
fi
grep -qx enabled "$binfmt/qemu-aarch64" 2>/dev/null || skip "qemu-aarch64 is registered but disabled ($binfmt/qemu-aarch64)"
# F (fix binary): the interpreter is opened at registration, so programs
# run inside a chroot that has no qemu of its own.
grep -q '^flags:.*F' "$binfmt/qemu-aarch64" || skip "qemu-aarch64 is registered without the F flag: arm64 programs cannot run in a chroot"
[ $preflight -eq 1 ] && { echo "# arm64 test can run here: qemu-aarch64 through binfmt_misc"; exit 0; }
[ $preflight -eq 2 ] && exec "$repo/Tests/Harness/install/clean_root_test.sh" --prepare-only --suite trixie --arch arm64 --cache "$CACHE"

# ---------------------------------------------------------------------------
# The amd64 reference, then the clean arm64 root.
# ---------------------------------------------------------------------------
[ -n "$deb" ] && [ -f "$deb" ] || { echo "$0: no package: give --deb out/headsup_<version>_arm64.deb (make deb ARCH=arm64)" >&2; exit 64; }
[ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ] || { echo "$0: $deb is not an arm64 package" >&2; exit 64; }
[ -n "$amd64" ] && [ -x "$amd64" ] || { echo "$0: no amd64 binary: give --amd64 .build-dist/release/headsup (make dist)" >&2; exit 64; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
amd64=$(cd "$(dirname "$amd64")" && pwd)/$(basename "$amd64")

reference=$(mktemp -d /var/tmp/headsup-arm64-reference.XXXXXX)
trap 'rm -rf "$reference"' EXIT
# The shipped model on the bundled test split: what the arm64 `headsup
# evaluate` reads by default from /usr/share/headsup (the same files).
if ! (cd "$repo" && "$amd64" evaluate --model weights/model.h5 --manifest datasets/phone-motion-v1/manifest.json \
    --json "$reference/evaluate.json" > "$reference/evaluate.txt" 2> "$reference/evaluate.err"); then
    sed 's/^/#   /' "$reference/evaluate.err" | tail -20
    echo "not ok - the amd64 reference: $amd64 evaluate failed"
    exit 1
fi
echo "# amd64 reference: $amd64 evaluate ($(grep -c . "$reference/evaluate.txt") lines of figures)"

HEADSUP_ARM64_REPO=$repo HEADSUP_ARM64_REFERENCE=$reference HEADSUP_ARM64_AMD64=$amd64 \
    "$repo/Tests/Harness/install/clean_root_test.sh" --deb "$deb" --suite trixie --arch arm64 --cache "$CACHE" \
    --checks "$here/checks.sh"
