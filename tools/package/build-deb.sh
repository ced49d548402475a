#!/usr/bin/env bash
# Turns a tree staged by `make install DESTDIR=STAGE PREFIX=/usr` into
# OUTDIR/headsup_<version>_<arch>.deb: version from `headsup --version`,
# architecture from dpkg, Depends from dpkg-shlibdeps (the shared libraries
# the binary links: libiio, libsystemd, libc; the Swift runtime is linked
# in) plus the packages of the libraries it loads with dlopen (libhdf5 to
# read models; libmosquitto and libcurl, recommended, for MQTT and webhooks),
# the maintainer scripts, copyright, changelog and lintian overrides from
# dist/debian/. Prints the package's path.
#
#   tools/package/build-deb.sh STAGE OUTDIR     (STAGE must be .../debian/headsup)
#
# DEB_HOST_ARCH=arm64 on another architecture (make deb ARCH=arm64): an
# arm64 binary cross-built against the sysroot of tools/cross/sdk.sh; its
# version is read under qemu-user, and its dependencies are the sysroot's
# (trixie's) arm64 packages: dpkg-shlibdeps runs in the cross host root on
# the sysroot's dpkg database.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 STAGE OUTDIR" >&2; exit 64; }
stage=$(cd "$1" && pwd)
out=$2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist=$repo/dist/debian
package=headsup
[ "$(basename "$stage")" = "$package" ] && [ "$(basename "$(dirname "$stage")")" = debian ] \
    || { echo "$0: STAGE must be a directory named debian/$package (for dpkg-shlibdeps)" >&2; exit 64; }
binary=$stage/usr/bin/headsup
[ -x "$binary" ] || { echo "$0: $binary missing: stage with make install DESTDIR=... PREFIX=/usr first" >&2; exit 1; }

arch=${DEB_HOST_ARCH:-$(dpkg --print-architecture)}
cross=""
[ "$arch" = "$(dpkg --print-architecture)" ] || cross=$arch
if [ -n "$cross" ]; then
    [ "$cross" = arm64 ] || { echo "$0: cannot package for $cross on $(dpkg --print-architecture)" >&2; exit 1; }
    sysroot=$("$repo/tools/cross/sdk.sh" sysroot)
    version=$("$repo/tools/cross/sdk.sh" qemu "$binary" --version)
else
    version=$("$binary" --version)
fi
maintainer=${DEB_MAINTAINER:-$(git -C "$repo" log -1 --format='%an <%ae>' 2>/dev/null || echo "HeadsUp maintainers <headsup@localhost>")}
date=$(git -C "$repo" log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { echo "$0: '$version' is not a Debian version" >&2; exit 1; }

# Documentation Debian requires beside every package.
doc=$stage/usr/share/doc/$package
install -d -m 0755 "$doc" "$stage/usr/share/lintian/overrides"
install -m 0644 "$dist/copyright" "$doc/copyright"
printf '%s (%s) unstable; urgency=medium\n\n  * Built by make deb from commit %s.\n\n -- %s  %s\n' \
    "$package" "$version" "$commit" "$maintainer" "$date" | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
install -m 0644 "$dist/lintian-overrides" "$stage/usr/share/lintian/overrides/$package"

# Shared-library dependencies, as dh_shlibdeps computes them (it recognises
# the package directory by its DEBIAN/).
control=$stage/DEBIAN
rm -rf "$control"
install -d -m 0755 "$control"
# dpkg-shlibdeps reads debian/control beside the package directory.
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" > "$stage/../control"
if [ -n "$cross" ]; then
    # In the host root the sysroot is at /sysroot, its libraries also at
    # /usr/lib/aarch64-linux-gnu, where dpkg-shlibdeps looks for arm64 ones.
    depends=$(cd "$stage/../.." && HEADSUP_CROSS_ENV="DEB_HOST_ARCH=$cross" "$repo/tools/cross/sdk.sh" run \
        dpkg-shlibdeps --admindir=/sysroot/var/lib/dpkg -O -e"debian/$package/usr/bin/headsup" | sed -n 's/^shlibs:Depends=//p')
else
    depends=$(cd "$stage/../.." && dpkg-shlibdeps -O -e"debian/$package/usr/bin/headsup" | sed -n 's/^shlibs:Depends=//p')
fi
[ -n "$depends" ] || { echo "$0: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

# Packed relative relocations (tools/package/relr-flags.sh) need glibc 2.36,
# a symbol version dpkg-shlibdeps does not map to a libc6 version.
if readelf -V "$binary" | grep -q GLIBC_ABI_DT_RELR; then
    current=$(echo "$depends" | sed -nE 's/.*libc6 \(>= ([^)]+)\).*/\1/p')
    if [ -z "$current" ] || dpkg --compare-versions "$current" lt 2.36; then
        depends=$(echo "$depends" | sed -E 's/libc6( \(>= [^)]+\))?/libc6 (>= 2.36)/')
    fi
fi

# The libraries HeadsUp loads with dlopen (Sources/C*/shim.h), which
# dpkg-shlibdeps cannot see: the package that ships the first of the shim's
# names found on this machine (the one its headers belong to), or in the
# sysroot for a cross build.
package_of() {
    local soname path owner
    if [ -n "$cross" ]; then
        for soname in "$@"; do
            path=/usr/lib/aarch64-linux-gnu/$soname
            [ -e "$sysroot$path" ] || continue
            owner=$(dpkg-query --admindir="$sysroot/var/lib/dpkg" -S "$path" 2>/dev/null) || continue
            echo "${owner%%:*}"
            return 0
        done
        echo "$0: none of $* is in the arm64 sysroot $sysroot" >&2
        return 1
    fi
    for soname in "$@"; do
        path=$(ldconfig -p | awk -v name="$soname" '$1 == name { print $NF; exit }')
        [ -n "$path" ] || continue
        path=$(readlink -f "$path")
        owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null) || continue
        echo "${owner%%:*}"
        return 0
    done
    echo "$0: none of $* is installed here (tools/install-deps.sh installs them)" >&2
    return 1
}
sonames() { grep -o "\"$1[_a-z]*\.so\.[0-9]*\"" "$repo/Sources/$2/shim.h" | tr -d '"'; }
hdf5=$(package_of $(sonames libhdf5 CHDF5))
mosquitto=$(package_of $(sonames libmosquitto CMosquitto) libmosquitto.so.1)
curl=$(package_of libcurl.so.4)

# Control area.
for script in postinst prerm postrm; do install -m 0755 "$dist/$script" "$control/$script"; done
find "$stage" -path "$control" -prune -o -path "$stage/etc/*" -type f -printf '/%P\n' | sort > "$control/conffiles"
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$control/control" <<CONTROL
Package: $package
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends, $hdf5, systemd | systemd-standalone-sysusers | systemd-sysusers
Recommends: bluez, udev, $mosquitto, $curl
Suggests: feedbackd
Section: utils
Priority: optional
Description: warns a pedestrian looking at the phone when stepping into a road
 HeadsUp reads a phone's or a sensor board's accelerometer, gyroscope and
 magnetometer through IIO, scores each second of motion with a small neural
 network (phone in the hands and looked at, or in a pocket), and when a BLE
 beacon at a road crossing says the user is there while distracted, it warns
 them: desktop notification, feedbackd (a phone's vibration and sound), a
 command, a webhook, MQTT with Home Assistant discovery.
 .
 This package holds the headsup program (its Swift runtime linked in), the
 shipped model, replay scenarios and test sessions, a system service running
 as its own user (headsup.service), a user service for a phone's session,
 the udev rule giving group headsup the IIO motion sensors, a rule that lets
 iio-sensor-proxy poll the accelerometer beside HeadsUp, a man page and
 shell completions.
CONTROL
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$control/md5sums"
chmod 0644 "$control/control" "$control/conffiles" "$control/md5sums"

mkdir -p "$out"
deb=$out/${package}_${version}_${arch}.deb
dpkg-deb --root-owner-group -Z"${DEB_COMPRESS:-xz}" --build "$stage" "$deb" > /dev/null
echo "$deb"
