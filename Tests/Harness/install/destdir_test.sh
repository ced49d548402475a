#!/usr/bin/env bash
# The issue's done-when check for `make install`, on the staged tree only
# (no root needed): install with DESTDIR and PREFIX=/usr, run the installed
# binary from another directory (it finds the installed model and scenario and
# warns once on the hands scenario), reinstall over a changed configuration
# (kept), then uninstall (nothing left but that configuration).
# Needs `make dist` first (make test-install runs it).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
make=${MAKE:-make}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
failures=0
ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }

if "$make" -C "$repo" --no-print-directory -s install-files DESTDIR="$stage" PREFIX=/usr > "$tmp/install.log" 2>&1; then
    ok "make install-files DESTDIR=... PREFIX=/usr"
else
    fail "make install-files DESTDIR=... PREFIX=/usr"; sed 's/^/#   /' "$tmp/install.log"; exit 1
fi

mkdir -p "$tmp/elsewhere"
# Only the installed tree can be found: no XDG data dirs, no source tree.
out=$(cd "$tmp/elsewhere" && XDG_DATA_DIRS=/nonexistent "$stage/usr/bin/headsup" replay crossing-hands --speed max 2>&1)
if grep -q "1 warnings" <<<"$out"; then
    ok "the installed headsup, run from another directory, warns once on crossing-hands"
else
    fail "the installed headsup replay crossing-hands from another directory"; sed 's/^/#   /' <<<"$out" | tail -20
fi
out=$(cd "$tmp/elsewhere" && XDG_DATA_DIRS=/nonexistent "$stage/usr/bin/headsup" config show 2>&1)
if grep -q "$stage/usr/share/headsup/weights/model.h5" <<<"$out"; then
    ok "config show names the installed model"
else
    fail "config show names the installed model"; sed 's/^/#   /' <<<"$out" | head -5
fi
if grep -q "ExecStart=/usr/bin/headsup live" "$stage/usr/lib/systemd/system/headsup.service" \
    && grep -q "/usr/libexec/headsup/iio-permissions" "$stage/usr/lib/udev/rules.d/70-headsup.rules" \
    && grep -q 'ENV{IIO_SENSOR_PROXY_TYPE}="iio-poll-accel"' "$stage/usr/lib/udev/rules.d/81-headsup-iio-sensor-proxy.rules"; then
    ok "the units and the udev rule name the installed paths"
else
    fail "the units and the udev rule name the installed paths"
fi

if grep -q "^X-GNOME-UsesNotifications=true" "$stage/usr/share/applications/headsup.desktop" \
    && grep -q "^RuntimeDirectory=headsup" "$stage/usr/lib/systemd/system/headsup.service" \
    && grep -q "^RuntimeDirectoryPreserve=restart" "$stage/usr/lib/systemd/system/headsup.service"; then
    ok "the .desktop file the notifications name is installed; the system unit has the control socket's folder, kept across restarts (the buffer records)"
else
    fail "usr/share/applications/headsup.desktop or the unit's RuntimeDirectory is missing"
fi

echo "# changed by the admin" >> "$stage/etc/headsup/config.yaml"
"$make" -C "$repo" --no-print-directory -s install-files DESTDIR="$stage" PREFIX=/usr > "$tmp/install2.log" 2>&1
if grep -q "changed by the admin" "$stage/etc/headsup/config.yaml"; then
    ok "make install keeps an existing configuration"
else
    fail "make install overwrote /etc/headsup/config.yaml"
fi

"$make" -C "$repo" --no-print-directory -s uninstall DESTDIR="$stage" PREFIX=/usr > "$tmp/uninstall.log" 2>&1
left=$(cd "$stage" && find . ! -type d | sort)
if [ "$left" = "./etc/headsup/config.yaml" ]; then
    ok "make uninstall removes everything but the changed configuration"
else
    fail "make uninstall left: $(echo $left)"
fi
rm -f "$stage/etc/headsup/config.yaml"
"$make" -C "$repo" --no-print-directory -s install-files DESTDIR="$stage" PREFIX=/usr > /dev/null 2>&1
"$make" -C "$repo" --no-print-directory -s uninstall DESTDIR="$stage" PREFIX=/usr > /dev/null 2>&1
left=$(cd "$stage" && find . ! -type d | sort)
if [ -z "$left" ]; then
    ok "install then uninstall leaves no file (the unchanged configuration goes too)"
else
    fail "install then uninstall left: $(echo $left)"
fi
exit $((failures > 0))
