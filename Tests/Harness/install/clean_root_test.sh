#!/usr/bin/env bash
# The Debian package on a clean Debian bookworm, with no Swift toolchain:
# installs out/headsup_<version>_<arch>.deb with apt into a fresh
# `debootstrap --variant=minbase` root and runs HeadsUp there from /
# (version, model inspect, replay of an installed scenario, evaluate of an
# installed session and of the default test split, config show as the
# service user, the udev helper, systemd-analyze verify of both units), then
# removes and purges it and checks nothing is left behind.
#
#   Tests/Harness/install/clean_root_test.sh --deb out/headsup_0.1.0_amd64.deb
#   Tests/Harness/install/clean_root_test.sh --prepare-only   (only build/refresh the cached root)
#
# Another release or architecture (Tests/Harness/arm64/ runs the arm64
# package this way, under qemu-user through binfmt_misc, which it sets up):
#   --suite trixie --arch arm64 --cache DIR --checks FILE
# FILE is sourced inside the namespace while the package is installed, with
# in_root, check, ok, fail, $root, $work, $deb and $deb_binary at hand.
#
# The pristine root is cached OUTSIDE the repository, in $HEADSUP_TEST_CACHE
# (default /var/cache/headsup-test/bookworm): base/ (the debootstrap root,
# built once: about 45 s here) and archives/ (the .debs apt fetched for
# HeadsUp's dependencies, so a warm run downloads nothing). Each run works
# on an overlay (or a copy) of base/ inside a private mount namespace, so the
# cache stays clean and nothing stays mounted.
#
# Exit 0 = all passed, 1 = a check failed, 77 = cannot run here (not root, no
# debootstrap, no mount namespace); under CI=true a skip is a failure.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The machine's own Debian archive (its apt sources), else debootstrap's default.
repo=$(cd "$here/../../.." && pwd)
MIRROR=${HEADSUP_TEST_MIRROR:-$(python3 "$repo/tools/package/debian_mirror.py")}
SECURITY_MIRROR=${HEADSUP_TEST_SECURITY_MIRROR:-$(python3 "$repo/tools/package/debian_mirror.py" --security)}
SUITE=bookworm
ARCH=""
CACHE=""
checks=""
deb=""
prepare_only=0
inner=""

while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=$2; shift 2 ;;
        --prepare-only) prepare_only=1; shift ;;
        --suite) SUITE=$2; shift 2 ;;
        --arch) ARCH=$2; shift 2 ;;
        --cache) CACHE=$2; shift 2 ;;
        --checks) checks=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --inner) inner=$2; shift 2 ;;   # (internal) the checks, run inside the namespace
        *) echo "usage: $0 --deb FILE | --prepare-only  [--suite SUITE --arch ARCH --cache DIR --checks FILE]" >&2; exit 64 ;;
    esac
done
CACHE=${CACHE:-${HEADSUP_TEST_CACHE:-/var/cache/headsup-test/bookworm}}
# debootstrap --arch only for a foreign root (the native one is made as before).
foreign=()
[ -n "$ARCH" ] && [ "$ARCH" != "$(dpkg --print-architecture)" ] && foreign=(--arch="$ARCH")

skip() {
    if [ "${CI:-}" = "true" ]; then
        echo "not ok - cannot run the clean-root test under CI=true: $*" >&2
        exit 1
    fi
    echo "SKIP: clean-root install test: $*" >&2
    exit 77
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------------------
# Inside the private mount namespace: mount the root, install, check.
# ---------------------------------------------------------------------------
if [ -n "$inner" ]; then
    work=$inner
    root=$work/root
    failures=0
    ok() { echo "ok - $*"; }
    fail() { echo "not ok - $*"; failures=$((failures + 1)); }
    # in_root CMD...: runs CMD in the clean root from /, with a plain environment
    in_root() {
        chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root LANG=C.UTF-8 /bin/sh -c 'cd / && exec "$@"' sh "$@"
    }
    # check LABEL EXPECTED-TEXT CMD...: CMD succeeds and its output holds EXPECTED-TEXT
    check() {
        local label=$1 expected=$2; shift 2
        local out rc
        out=$(in_root "$@" 2>&1); rc=$?
        if [ $rc -eq 0 ] && { [ -z "$expected" ] || grep -F -q -- "$expected" <<<"$out"; }; then
            ok "$label"
        else
            fail "$label (exit $rc${expected:+, expected '$expected'})"
            sed 's/^/#   /' <<<"$out" | tail -25
        fi
    }

    mount --make-rprivate / || exit 1
    mkdir -p "$root" "$work/upper" "$work/ovl"
    if mount -t overlay overlay -o "lowerdir=$CACHE/base,upperdir=$work/upper,workdir=$work/ovl" "$root" 2>/dev/null; then
        echo "# root: an overlay on $CACHE/base"
    else
        t=$(now)
        cp -a "$CACHE/base/." "$root/" || exit 1
        echo "# root: a copy of $CACHE/base (no overlayfs here; $(elapsed "$t") s)"
    fi
    mount -t proc proc "$root/proc" || exit 1
    mount --rbind /dev "$root/dev" || exit 1
    mount --rbind -o ro /sys "$root/sys" 2>/dev/null || mount --rbind /sys "$root/sys" || exit 1
    mount -t tmpfs tmpfs "$root/run" || exit 1
    mount -t tmpfs tmpfs "$root/tmp" || exit 1
    mkdir -p "$CACHE/archives/partial"
    mount --bind "$CACHE/archives" "$root/var/cache/apt/archives" || exit 1
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    cp "$deb" "$root/tmp/" || exit 1
    debname=$(basename "$deb")
    deb_binary=$work/headsup-from-deb
    dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/headsup > "$deb_binary"
    version=$(dpkg-deb -f "$deb" Version)

    # No Swift anywhere in the clean root.
    if in_root sh -c 'command -v swift || command -v swiftc || find / -xdev -name "libswiftCore*" -print -quit | grep -q .' >/dev/null 2>&1; then
        fail "the clean root has no Swift toolchain or runtime"
    else
        ok "the clean root has no Swift toolchain or runtime"
    fi

    # What dpkg-shlibdeps cannot see: libhdf5 (loaded with dlopen) and, with
    # packed relocations, glibc 2.36; and the newest glibc symbol version the
    # binary needs.
    depends=$(dpkg-deb -f "$deb" Depends)
    libc=$(sed -nE 's/.*libc6 \(>= ([^)]+)\).*/\1/p' <<<"$depends")
    needs=$(readelf -V "$deb_binary" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_//' | sort -V | tail -1)
    readelf -V "$deb_binary" 2>/dev/null | grep -q GLIBC_ABI_DT_RELR && needs=$(printf '%s\n2.36\n' "$needs" | sort -V | tail -1)
    if grep -q "libhdf5" <<<"$depends" && [ -n "$libc" ] && [ -n "$needs" ] && dpkg --compare-versions "$libc" ge "$needs"; then
        ok "the package depends on libhdf5 and on the glibc its binary needs (libc6 >= $libc; it needs $needs)"
    else
        fail "the package depends on libhdf5 and on the glibc its binary needs (${needs:-?}): $depends"
    fi

    t=$(now)
    if in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "/tmp/$debname" \
        > "$work/apt.log" 2>&1; then
        ok "apt-get install ./$debname pulls its dependencies and configures it ($(elapsed "$t") s)"
    else
        fail "apt-get install ./$debname"
        tail -30 "$work/apt.log" | sed 's/^/#   /'
        exit 1
    fi
    if in_root find / -xdev -name "libswiftCore*" -print -quit | grep -q .; then
        fail "installing HeadsUp brings no Swift runtime library"
    fi

    check "headsup --version prints the package version" "$version" headsup --version
    check "headsup is /usr/bin/headsup" "/usr/bin/headsup" sh -c 'command -v headsup'
    check "headsup model inspect of the installed model" "weights/model.h5" \
        headsup model inspect /usr/share/headsup/weights/model.h5
    check "headsup model inspect of the installed seed model" "lstm" \
        sh -c 'headsup model inspect /usr/share/headsup/weights/seed.h5 | tr A-Z a-z'
    check "headsup replay crossing-hands warns once (from /)" "1 warnings" headsup replay crossing-hands --speed max
    check "headsup replay crossing-pocket does not warn" "0 warnings" headsup replay crossing-pocket --speed max
    # libmosquitto is loaded only when MQTT is configured, and only recommended: without it, a clear error.
    if in_root dpkg -s libmosquitto1 > /dev/null 2>&1; then
        ok "# SKIP MQTT without libmosquitto1: something else pulled it in"
    else
        check "MQTT configured without libmosquitto1 (recommended, not installed) says which package to install" \
            "apt install libmosquitto1" sh -c 'printf "notifications:\n  desktop: false\n  mqtt:\n    url: mqtt://127.0.0.1:1\n" > /tmp/mqtt.yaml
                headsup replay crossing-hands --speed max --deliver --config /tmp/mqtt.yaml 2>&1; true'
    fi
    check "headsup evaluate of an installed session" "1 of 1 hands stretches detected" \
        sh -c 'headsup evaluate /usr/share/headsup/datasets/scenarios/crossing-hands/session.csv 2>&1'
    check "headsup evaluate with no arguments uses the installed test split" "data_" sh -c 'headsup evaluate 2>&1'
    check "the service user and group exist (systemd-sysusers)" "headsup" \
        sh -c 'getent passwd headsup && getent group headsup'
    check "headsup config show as the service user finds the installed model and /etc config" \
        "/usr/share/headsup/weights/model.h5" \
        setpriv --reuid=headsup --regid=headsup --init-groups headsup config show
    check "the package installs 81-headsup-iio-sensor-proxy.rules (the proxy polls the accelerometer)" 'IIO_SENSOR_PROXY_TYPE}="iio-poll-accel"' \
        sh -c 'dpkg -L headsup | grep -x ".*/rules.d/81-headsup-iio-sensor-proxy.rules" | xargs cat'
    check "postinst restarts a running iio-sensor-proxy with deb-systemd-invoke (never systemctl restart)" "try-restart iio-sensor-proxy.service" \
        cat /var/lib/dpkg/info/headsup.postinst
    check "/etc/headsup/config.yaml is a conffile" "/etc/headsup/config.yaml" \
        sh -c 'dpkg-query -W -f="\${Conffiles}" headsup'
    # Every key of `config show` is in the example configuration: uncommented,
    # each comes from the file (and every example value is accepted).
    check "the example configuration, uncommented, sets every key config show lists" "" sh -c '
        umask 077; sed -E "s/^#([a-z_]+:)/\1/; s/^#(  +[a-z_]+:)/\1/" /usr/share/headsup/config.example.yaml > /tmp/all.yaml
        out=$(headsup config show --config /tmp/all.yaml 2>/tmp/all.err) || { cat /tmp/all.err; exit 1; }
        ! grep . /tmp/all.err || { echo "(the example has keys HeadsUp does not know)"; exit 1; }
        missing=$(echo "$out" | tail -n +3 | grep -v " /tmp/all.yaml *$"); [ -z "$missing" ] || { echo "not in the example: $missing"; exit 1; }
        cmp /etc/headsup/config.yaml /usr/share/headsup/config.example.yaml'

    # Not in a minimal root: man-db (systemd-analyze verify also checks
    # Documentation=man:headsup(1)) and udev (udevadm test parses the rule).
    if in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends man-db udev python3-seccomp \
        > "$work/apt-tools.log" 2>&1; then
        check "man headsup finds the installed page" "/usr/share/man/man1/headsup.1.gz" man -w headsup
        out=$(in_root udevadm test --action=add /sys/class/net/lo 2>&1)
        if grep -q "Reading rules file: .*/70-headsup.rules" <<<"$out" && ! grep -q "70-headsup.rules:" <<<"$out"; then
            ok "udevadm test reads 70-headsup.rules without a complaint"
        else
            fail "udevadm test and 70-headsup.rules"; grep "headsup" <<<"$out" | sed 's/^/#   /'
        fi
        if grep -q "Reading rules file: .*/81-headsup-iio-sensor-proxy.rules" <<<"$out" \
            && ! grep -q "81-headsup-iio-sensor-proxy.rules:" <<<"$out"; then
            ok "udevadm test reads 81-headsup-iio-sensor-proxy.rules without a complaint"
        else
            fail "udevadm test and 81-headsup-iio-sensor-proxy.rules"; grep "81-headsup" <<<"$out" | sed 's/^/#   /'
        fi
    else
        fail "apt-get install man-db udev python3-seccomp"; tail -10 "$work/apt-tools.log" | sed 's/^/#   /'
    fi
    # The units' SystemCallFilter= as systemd installs it (no systemd runs as PID 1 here, so the
    # units cannot be started): the live job on the bundled walk under each unit's filter still warns.
    cp "$here/syscall_filter.py" "$root/tmp/syscall_filter.py"
    if [ "$(in_root dpkg --print-architecture)" != "$(dpkg --print-architecture)" ]; then
        # qemu-user runs a foreign root's programs by translating them: it refuses to load a
        # seccomp filter written for the emulated architecture (ECANCELED), so only a native root can run this.
        ok "# SKIP the system-call filters in the $(in_root dpkg --print-architecture) root under qemu-user, which cannot load a seccomp filter for it (the native root runs them)"
    else
        for unit in /lib/systemd/system/headsup.service /usr/lib/systemd/user/headsup.service; do
            check "the live job warns under the system-call filter of $unit" '"event":"warning"' sh -c "
                XDG_STATE_HOME=/tmp/filter-state HEADSUP_CONTROL_SOCKET=/tmp/filter-control python3 /tmp/syscall_filter.py $unit -- \
                    headsup live --simulate crossing-hands --speed 20 --json --no-desktop 2>/tmp/filter.err || { tail -5 /tmp/filter.err; exit 1; }"
        done
    fi
    check "the man page and completions are installed" "" \
        sh -c 'test -s /usr/share/man/man1/headsup.1.gz && test -s /usr/share/bash-completion/completions/headsup \
            && test -s /usr/share/zsh/vendor-completions/_headsup && test -s /usr/share/fish/vendor_completions.d/headsup.fish \
            && bash -n /usr/share/bash-completion/completions/headsup'
    check "systemd-analyze verify: the system unit" "" \
        sh -c 'out=$(systemd-analyze verify /lib/systemd/system/headsup.service 2>&1); rc=$?; echo "$out"; [ $rc -eq 0 ] && ! echo "$out" | grep -q headsup'
    check "systemd-analyze --user verify: the user unit (XDG_RUNTIME_DIR set)" "" \
        sh -c 'export XDG_RUNTIME_DIR=$(mktemp -d); out=$(systemd-analyze --user verify /usr/lib/systemd/user/headsup.service 2>&1); rc=$?; echo "$out"; [ $rc -eq 0 ] && ! echo "$out" | grep -q headsup'
    exposure=$(in_root systemd-analyze security --offline=true /lib/systemd/system/headsup.service 2>&1 \
        | sed -n 's/.*Overall exposure level for headsup.service: \([0-9.]*\).*/\1/p')
    if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.5) }'; then
        ok "systemd-analyze security: the system unit's exposure is $exposure (at most 2.5 of 10)"
    else
        fail "systemd-analyze security: the system unit's exposure is '${exposure:-?}', more than 2.5"
    fi
    exposure=$(in_root sh -c 'export XDG_RUNTIME_DIR=$(mktemp -d); systemd-analyze security --user --offline=true /usr/lib/systemd/user/headsup.service' 2>&1 \
        | sed -n 's/.*Overall exposure level for headsup.service: \([0-9.]*\).*/\1/p')
    if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 8.0) }'; then
        ok "systemd-analyze security: the user unit's exposure is $exposure (at most 8.0 of 10: a session's service shares the user's home and bus)"
    else
        fail "systemd-analyze security: the user unit's exposure is '${exposure:-?}', more than 8.0"
    fi

    # The udev helper on a sysfs-like tree: a motion sensor gets group write
    # on exactly the attributes HeadsUp writes; an ADC does not match.
    check "udev helper: a motion sensor's attributes go to group headsup" "" sh -c '
        d=/tmp/sys/devices/iio:device0; mkdir -p $d/buffer $d/scan_elements $d/buffer0
        for f in name sampling_frequency sampling_frequency_available current_timestamp_clock in_accel_x_raw \
                 in_accel_sampling_frequency buffer/enable buffer/length buffer/watermark buffer/data_available \
                 scan_elements/in_accel_x_en scan_elements/in_accel_x_type scan_elements/in_timestamp_en \
                 buffer0/enable buffer0/in_accel_x_en; do echo 0 > $d/$f; chmod 0644 $d/$f; done
        /usr/libexec/headsup/iio-permissions --match $d || exit 1
        /usr/libexec/headsup/iio-permissions $d || exit 1
        for f in sampling_frequency current_timestamp_clock in_accel_sampling_frequency buffer/enable buffer/length \
                 buffer/watermark scan_elements/in_accel_x_en scan_elements/in_timestamp_en buffer0/enable buffer0/in_accel_x_en; do
            [ "$(stat -c %G:%a $d/$f)" = headsup:664 ] || { echo "$f: $(stat -c %G:%a $d/$f)"; exit 1; }
        done
        for f in name in_accel_x_raw sampling_frequency_available buffer/data_available scan_elements/in_accel_x_type; do
            [ "$(stat -c %G:%a $d/$f)" = root:644 ] || { echo "$f changed: $(stat -c %G:%a $d/$f)"; exit 1; }
        done
        a=/tmp/sys/devices/iio:device1; mkdir -p $a; echo 0 > $a/in_voltage0_raw; echo 0 > $a/sampling_frequency
        ! /usr/libexec/headsup/iio-permissions --match $a'

    if [ -n "$checks" ]; then
        # shellcheck source=/dev/null
        . "$checks"
    fi

    # Remove, then purge: dpkg's own file list is gone, and so is what postinst made.
    files=$(in_root dpkg-query -L headsup | while read -r f; do [ -f "$root$f" ] && echo "$f"; done)
    check "dpkg -r headsup" "" dpkg -r headsup
    check "after removal only the conffile is left" "" sh -c "for f in $(echo "$files" | tr '\n' ' '); do
        [ \"\$f\" = /etc/headsup/config.yaml ] && continue; [ -e \"\$f\" ] && { echo \"left: \$f\"; exit 1; }; done; exit 0"
    check "dpkg --purge headsup removes the config and state" "" sh -c '
        mkdir -p /var/lib/headsup && dpkg --purge headsup && ! test -e /etc/headsup && ! test -e /var/lib/headsup'

    exit $((failures > 0))
fi

# ---------------------------------------------------------------------------
# Outside: preconditions, the cached root, then the namespace.
# ---------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts); run it with sudo"
command -v debootstrap >/dev/null || skip "no debootstrap (apt-get install debootstrap, or tools/install-deps.sh)"
command -v unshare >/dev/null && unshare -m true 2>/dev/null || skip "cannot create a private mount namespace (unshare -m)"
if [ $prepare_only -eq 0 ]; then
    [ -n "$deb" ] && [ -f "$deb" ] || { echo "$0: no package: give --deb out/headsup_<version>_<arch>.deb (make deb)" >&2; exit 64; }
    deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9    # one run at a time prepares or refreshes the cache

if [ ! -f "$CACHE/base/.headsup-complete" ]; then
    echo "# building the cached clean root: debootstrap ${foreign[*]:+${foreign[*]} }--variant=minbase $SUITE from ${MIRROR:-the default archive of debootstrap} (once)"
    rm -rf "$CACHE/base.tmp"
    t=$(now)
    if ! debootstrap "${foreign[@]}" --variant=minbase "$SUITE" "$CACHE/base.tmp" ${MIRROR:+"$MIRROR"} > "$CACHE/debootstrap.log" 2>&1; then
        tail -20 "$CACHE/debootstrap.log" >&2
        echo "not ok - debootstrap failed (log: $CACHE/debootstrap.log)"
        exit 1
    fi
    # The same suites as a Debian install: point releases and security fixes
    # (from the archive debootstrap used; security fixes where the machine has a source for them).
    MIRROR=${MIRROR:-$(awk '$1 == "deb" { print $2; exit }' "$CACHE/base.tmp/etc/apt/sources.list")}
    {
        echo "deb $MIRROR $SUITE main"
        echo "deb $MIRROR $SUITE-updates main"
        [ -z "$SECURITY_MIRROR" ] || echo "deb $SECURITY_MIRROR $SUITE-security main"
    } > "$CACHE/base.tmp/etc/apt/sources.list"
    rm -f "$CACHE/base.tmp/var/cache/apt/archives/"*.deb
    echo "# debootstrap took $(elapsed "$t") s"
    date -u +%FT%TZ > "$CACHE/base.tmp/.headsup-complete"
    mv "$CACHE/base.tmp" "$CACHE/base"
    rm -f "$CACHE/base/.lists-updated"
fi
# apt's lists: refreshed once a day (a warm run within the day needs no network).
if [ -z "$(find "$CACHE/base/.lists-updated" -mmin -1440 2>/dev/null)" ]; then
    t=$(now)
    cp /etc/resolv.conf "$CACHE/base/etc/resolv.conf" 2>/dev/null || true
    if ! chroot "$CACHE/base" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get update -q > "$CACHE/apt-update.log" 2>&1; then
        tail -20 "$CACHE/apt-update.log" >&2
        echo "not ok - apt-get update in the cached root failed (log: $CACHE/apt-update.log)"
        exit 1
    fi
    touch "$CACHE/base/.lists-updated"
    echo "# apt-get update in the cached root: $(elapsed "$t") s"
fi
[ $prepare_only -eq 1 ] && { echo "# cached clean root ready: $CACHE/base"; exit 0; }
# (the lock stays held: another run must not refresh base/ under this overlay)

work=$(mktemp -d /var/tmp/headsup-clean-root.XXXXXX)
trap 'rm -rf "$work"' EXIT
t=$(now)
unshare -m --propagation private "$0" --deb "$deb" --suite "$SUITE" --cache "$CACHE" ${checks:+--checks "$checks"} --inner "$work"
rc=$?
echo "# clean-root test: $(elapsed "$t") s (exit $rc)"
exit $rc
