#!/bin/bash
# Runs COMMAND against a fake Linux IIO kernel side (see README.md here).
#
#   run_in_fake_kernel.sh [--scenario NAME] [--iiod]
#                         [--unplug-at SECONDS] [--unplug-for SECONDS]
#                         [--unplug-device DEV] [--backend auto|fuse|tmpfs] [--chardev fuse|fifo]
#                         [--log FILE] [--verbose] -- COMMAND [ARGS...]
#
# Inside a private mount namespace (and with --iiod a private network
# namespace with only lo, up) it replaces /sys/bus with a copy whose "iio"
# bus is the fake tree, /dev with a copy holding FIFOs /dev/iio:deviceN,
# starts the fake driver (and iiod on 127.0.0.1:30431), runs COMMAND with
# stdin/stdout/stderr passed through and exits with COMMAND's status
# (128+N if it died from signal N).  Nothing is visible outside the
# namespaces; the work directory under $TMPDIR is removed afterwards.
#
# COMMAND sees these environment variables:
#   FAKE_IIO_URI       local:  or  ip:127.0.0.1 (with --iiod)
#   IIOD_REMOTE        ip:127.0.0.1 with --iiod (libiio's default context)
#   FAKE_IIO_TRUTH     JSON with the scenario's scales, matrices, signals, rates
#   FAKE_IIO_CONTROL   write "unplug iio:device0 2" etc. here (see README)
#   FAKE_IIO_STATUS    read: JSON status of the fake devices
#   FAKE_IIO_PID       the driver's pid (SIGUSR1 = unplug, SIGUSR2 = replug)
#   FAKE_IIO_SCENARIO  the scenario name
#
# Exit status 77 (with a message on stderr) means the fake kernel cannot be
# built here: not root, no mount/network namespaces, no python3, no iiod.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
me=run_in_fake_kernel.sh

skip() {
    echo "$me: SKIP: $*" >&2
    exit 77
}

usage() {
    sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 64
}

scenario=standard
iiod=0
pyargs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scenario) [ $# -ge 2 ] || usage; scenario=$2; shift 2 ;;
        --scenario=*) scenario=${1#*=}; shift ;;
        --iiod) iiod=1; shift ;;
        --unplug-at|--unplug-for|--unplug-device|--backend|--chardev|--log)
            [ $# -ge 2 ] || usage; pyargs+=("$1" "$2"); shift 2 ;;
        --unplug-at=*|--unplug-for=*|--unplug-device=*|--backend=*|--chardev=*|--log=*)
            pyargs+=("$1"); shift ;;
        --verbose|-v) pyargs+=(--verbose); shift ;;
        -h|--help) usage ;;
        --) shift; break ;;
        *) echo "$me: unknown option $1 (did you forget --?)" >&2; usage ;;
    esac
done
[ $# -gt 0 ] || { echo "$me: no COMMAND given" >&2; usage; }

[ -x "$python" ] || skip "$python not found"
[ "$(id -u)" = 0 ] || skip "needs root (euid 0) to create mount namespaces and mounts"
command -v unshare >/dev/null || skip "unshare (util-linux) not found"
unshare -m --propagation private true 2>/dev/null \
    || skip "cannot create a mount namespace (unshare -m failed: missing CAP_SYS_ADMIN?)"
ns=(-m --propagation private)
if [ "$iiod" = 1 ]; then
    command -v iiod >/dev/null || skip "iiod not found (Debian: apt install iiod)"
    command -v ip >/dev/null || skip "ip (iproute2) not found"
    unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n failed)"
    ns+=(-n)
    pyargs+=(--iiod)
fi
known=$("$python" "$here/fake_iio.py" scenarios) || skip "$here/fake_iio.py does not run"
case "$known" in
    "$scenario "*|*"
$scenario "*) ;;
    *) printf '%s: unknown scenario %s; known:\n%s\n' "$me" "$scenario" "$known" >&2; exit 64 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/fake-iio.XXXXXX") || skip "cannot create a work directory"
cleanup() {
    # The namespace's mounts died with it, so this only sees plain (empty)
    # directories and our log/truth files; --one-file-system is a safety net.
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT

# Background + wait so that our traps can forward signals; an explicit
# stdin redirection keeps COMMAND's stdin (a non-interactive shell would
# otherwise give a background job /dev/null).
unshare "${ns[@]}" -- "$python" "$here/fake_iio.py" run --workdir "$work" \
    --scenario "$scenario" "${pyargs[@]}" -- "$@" <&0 &
pid=$!
forward() { kill -s "$1" "$pid" 2>/dev/null; }
trap 'forward TERM' TERM
trap 'forward INT' INT
trap 'forward HUP' HUP
trap 'forward QUIT' QUIT
while :; do
    wait "$pid"
    status=$?
    # wait returns early (>128) when a trapped signal arrives; loop until
    # the harness process is really gone.
    kill -0 "$pid" 2>/dev/null || break
done
exit "$status"
