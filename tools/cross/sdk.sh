#!/usr/bin/env bash
# The arm64 cross toolchain, made from Debian's packages and cached outside
# the repository, in $HEADSUP_CROSS_CACHE (default /var/cache/headsup-cross):
#
#   host/      a Debian sid amd64 root (debootstrap --variant=minbase) with
#              Debian's Swift, swiftlang 6.2.3: trixie's 6.0.3 cannot build
#              HeadsUp and only sid has a newer one. Its clang and ld.lld
#              come with it; binutils-aarch64-linux-gnu (strip, objdump) and
#              dpkg-dev (dpkg-shlibdeps) for the package.
#   sysroot/   Debian trixie arm64 headers and libraries (libc6-dev,
#              libhdf5-dev, libiio-dev, ...) with the arm64 Swift runtime and
#              static stdlib of the host's swiftlang version laid over them.
#              Built against trixie's glibc, the binary runs on trixie and
#              later; sid's glibc would rule trixie out.
#   sdk/headsup-arm64.artifactbundle
#              the Swift SDK bundle (swift-sdk.json, toolset.json) that
#              describes sysroot/ as mounted inside host/ (/sysroot).
#
# The sysroot is not a debootstrap: apt (in host/, with its own state
# directory, architecture arm64) resolves and downloads the packages and
# their dependencies, and each is extracted with dpkg-deb. Nothing in it is
# ever run at build time, so it needs no maintainer scripts and no emulation:
# 30-odd seconds against about 5 minutes for a debootstrap under qemu, and
# the cross build works on a machine without binfmt_misc. A small dpkg
# database (status, file lists, shlibs and symbols files, from the same
# packages) lets dpkg-shlibdeps name the arm64 packages the binary needs.
#
#   tools/cross/sdk.sh prepare          build or refresh what is missing (a warm run: about a second)
#   tools/cross/sdk.sh run CMD [ARG]... run CMD inside host/, with /sysroot, /opt/swift-sdks and the
#                                       current directory (the repository) at the same path, from there
#   tools/cross/sdk.sh sysroot          print the sysroot's path (after prepare)
#   tools/cross/sdk.sh qemu BINARY [ARG]...
#                                       run an aarch64 program with qemu-aarch64-static and the sysroot's
#                                       loader and libraries (no binfmt_misc, no root needed)
#
# Each part is rebuilt when its recipe (the package lists and versions
# below) changes, or on HEADSUP_CROSS_REFRESH=1 tools/cross/sdk.sh prepare;
# otherwise reused (checkouts building at once share it). Every
# mount is made inside a private mount namespace (unshare -m), so nothing
# stays mounted. Needs root (debootstrap, chroot, mounts).
set -euo pipefail

CACHE=${HEADSUP_CROSS_CACHE:-/var/cache/headsup-cross}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The machine's own Debian archive (its apt sources); on a machine with none
# (Ubuntu), debootstrap's default, and the sysroot then takes the archive
# debootstrap wrote into the host root.
MIRROR=${HEADSUP_CROSS_MIRROR:-$(python3 "$here/../package/debian_mirror.py")}
SECURITY_MIRROR=${HEADSUP_CROSS_SECURITY_MIRROR:-$(python3 "$here/../package/debian_mirror.py" --security)}
HOST=$CACHE/host
SYSROOT=$CACHE/sysroot
SDKS=$CACHE/sdk
SDK_NAME=headsup-arm64
TRIPLE=aarch64-unknown-linux-gnu

# Debian's Swift: sid's swiftlang; the arm64 runtime must be the same version.
HOST_PACKAGES="swiftlang libc6-dev binutils-aarch64-linux-gnu dpkg-dev"
# What HeadsUp's system-library targets compile and link against, the
# C++ runtime the static Swift stdlib (Foundation's ICU) links with
# (trixie's default GCC is 14), and systemd-dev, whose systemd.pc and udev.pc
# give the package trixie's unit and udev directories.
SYSROOT_SUITE=trixie
SYSROOT_PACKAGES="libc6-dev libhdf5-dev libiio-dev libsystemd-dev libmosquitto-dev libcurl4-openssl-dev libstdc++-14-dev systemd-dev"
# Bump when the steps below change what they make (each part is rebuilt when its own changes).
HOST_RECIPE=2
SYSROOT_RECIPE=3

log() { echo "# cross: $*" >&2; }
die() { echo "tools/cross/sdk.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

# in_host CMD...: CMD inside host/ (proc, dev, tmp, resolv.conf, the sysroot
# at /sysroot), in a private mount namespace. Extra binds come from the
# BINDS array (SRC:DST pairs, DST inside the root).
BINDS=()
in_host() {
    local binds=""
    local pair
    for pair in "${BINDS[@]+"${BINDS[@]}"}"; do binds+="$pair"$'\n'; done
    HEADSUP_CROSS_BINDS=$binds HEADSUP_CROSS_ROOT=$HOST HEADSUP_CROSS_SYSROOT=$SYSROOT HEADSUP_CROSS_SDKS=$SDKS \
        unshare -m --propagation private "$here/sdk.sh" --inner "$@"
}

if [ "${1:-}" = "--inner" ]; then
    shift
    root=$HEADSUP_CROSS_ROOT
    mount --make-rprivate /
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    mount -t tmpfs tmpfs "$root/run"
    # A copy of the resolver configuration, on a file of the root's own.
    [ -e /etc/resolv.conf ] && mount --bind /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    [ -d "$HEADSUP_CROSS_SYSROOT" ] && mount --bind "$HEADSUP_CROSS_SYSROOT" "$root/sysroot"
    [ -d "$HEADSUP_CROSS_SDKS" ] && mount --bind "$HEADSUP_CROSS_SDKS" "$root/opt/swift-sdks"
    # dpkg-shlibdeps looks for arm64 libraries in the multiarch directories.
    [ -d "$HEADSUP_CROSS_SYSROOT/usr/lib/aarch64-linux-gnu" ] \
        && mount --bind "$HEADSUP_CROSS_SYSROOT/usr/lib/aarch64-linux-gnu" "$root/usr/lib/aarch64-linux-gnu"
    while IFS= read -r pair; do
        [ -n "$pair" ] || continue
        src=${pair%%:*} dst=${pair#*:}
        mkdir -p "$root$dst"
        mount --bind "$src" "$root$dst"
    done <<< "$HEADSUP_CROSS_BINDS"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" HEADSUP_CROSS_CWD="$HEADSUP_CROSS_CWD" ${HEADSUP_CROSS_ENV:-} \
        /bin/sh -c 'cd "$HEADSUP_CROSS_CWD" && exec "$@"' sh "$@"
fi

stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ] && [ "${HEADSUP_CROSS_REFRESH:-0}" != 1 ]; }

# ---------------------------------------------------------------------------
# host/: sid amd64 with swiftlang; also downloads the arm64 swiftlang and
# libswiftlang of the same version (for the sysroot), while that version
# is the one sid has.
# ---------------------------------------------------------------------------
host_recipe() { echo "v$HOST_RECIPE sid $MIRROR $HOST_PACKAGES"; }
make_host() {
    local recipe; recipe=$(host_recipe)
    stamp_ok "$HOST/.headsup-complete" "$recipe" && return 0
    local t; t=$(now)
    log "building the host root: debootstrap --variant=minbase sid, then $HOST_PACKAGES (once; a few minutes)"
    rm -rf "$HOST.tmp"
    if ! debootstrap --variant=minbase sid "$HOST.tmp" ${MIRROR:+"$MIRROR"} > "$CACHE/host-debootstrap.log" 2>&1; then
        tail -20 "$CACHE/host-debootstrap.log" >&2
        die "debootstrap sid failed (log: $CACHE/host-debootstrap.log)"
    fi
    # sid's Release files expire within days; a cached root keeps what it has.
    cat > "$HOST.tmp/etc/apt/apt.conf.d/90headsup" <<EOF
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
Acquire::Languages "none";
EOF
    MIRROR=${MIRROR:-$(awk '$1 == "deb" { print $2; exit }' "$HOST.tmp/etc/apt/sources.list")}
    echo "deb $MIRROR sid main" > "$HOST.tmp/etc/apt/sources.list"
    mkdir -p "$HOST.tmp/sysroot" "$HOST.tmp/opt/swift-sdks" "$HOST.tmp/usr/lib/aarch64-linux-gnu" "$HOST.tmp/var/cache/headsup-arm64-swift"
    : > "$HOST.tmp/etc/resolv.conf"
    local old=$HOST
    HOST=$HOST.tmp
    if ! HEADSUP_CROSS_CWD=/ in_host sh -c "
        set -e
        dpkg --add-architecture arm64
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $HOST_PACKAGES
        apt-get clean
        version=\$(dpkg-query -W -f='\${Version}' swiftlang)
        cd /var/cache/headsup-arm64-swift
        apt-get download -q swiftlang:arm64=\$version libswiftlang:arm64=\$version
        " > "$CACHE/host-apt.log" 2>&1; then
        HOST=$old
        tail -20 "$CACHE/host-apt.log" >&2
        die "installing Debian's Swift in the host root failed (log: $CACHE/host-apt.log)"
    fi
    HOST=$old
    rm -rf "$HOST"
    echo "$recipe" > "$HOST.tmp/.headsup-complete"
    mv "$HOST.tmp" "$HOST"
    log "host root ready ($(elapsed "$t") s): swiftlang $(dpkg-query --admindir="$HOST/var/lib/dpkg" -W -f='${Version}' swiftlang)"
}

# ---------------------------------------------------------------------------
# sysroot/: trixie arm64 packages and their dependencies, extracted, with the
# arm64 Swift runtime over them and a dpkg database describing them.
# ---------------------------------------------------------------------------
sysroot_recipe() {
    local swift_debs; swift_debs=$(cd "$HOST/var/cache/headsup-arm64-swift" 2>/dev/null && ls ./*.deb | sort | tr '\n' ' ')
    echo "v$SYSROOT_RECIPE $SYSROOT_SUITE $MIRROR $SYSROOT_PACKAGES $swift_debs"
}
make_sysroot() {
    local swift_debs; swift_debs=$(cd "$HOST/var/cache/headsup-arm64-swift" && ls ./*.deb | sort | tr '\n' ' ')
    # The archive the host root was made from, when the machine names none.
    MIRROR=${MIRROR:-$(awk '$1 == "deb" { print $2; exit }' "$HOST/etc/apt/sources.list")}
    local recipe; recipe=$(sysroot_recipe)
    stamp_ok "$SYSROOT/.headsup-complete" "$recipe" && return 0
    local t; t=$(now)
    log "building the arm64 sysroot: $SYSROOT_SUITE's $SYSROOT_PACKAGES and their dependencies, extracted"
    local apt=/var/lib/headsup-sysroot-apt
    rm -rf "$HOST$apt"
    mkdir -p "$HOST$apt"/etc/apt/{apt.conf.d,preferences.d,sources.list.d} "$HOST$apt"/var/lib/apt/lists/partial \
        "$HOST$apt"/var/cache/apt/archives/partial "$HOST$apt"/var/lib/dpkg "$HOST$apt"/var/log/apt
    : > "$HOST$apt/var/lib/dpkg/status"
    cat > "$HOST$apt/etc/apt/sources.list" <<EOF
deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SYSROOT_SUITE main
deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SYSROOT_SUITE-updates main
EOF
    [ -z "$SECURITY_MIRROR" ] ||
        echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $SECURITY_MIRROR $SYSROOT_SUITE-security main" \
            >> "$HOST$apt/etc/apt/sources.list"
    # apt with its own directories and an empty dpkg status: it resolves the
    # whole dependency closure for arm64 and only downloads it.
    local options="-o Dir=$apt -o Dir::State::status=$apt/var/lib/dpkg/status -o Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d"
    options+=" -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Acquire::Languages=none -o APT::Install-Recommends=false"
    if ! HEADSUP_CROSS_CWD=/ in_host sh -c "
        set -e
        apt-get $options update -q
        apt-get $options install -y -q --download-only $SYSROOT_PACKAGES
        " > "$CACHE/sysroot-apt.log" 2>&1; then
        tail -20 "$CACHE/sysroot-apt.log" >&2
        die "downloading the arm64 packages failed (log: $CACHE/sysroot-apt.log)"
    fi

    rm -rf "$SYSROOT.tmp"
    mkdir -p "$SYSROOT.tmp/usr/bin" "$SYSROOT.tmp/usr/lib" "$SYSROOT.tmp/usr/sbin"
    # trixie's merged /usr, as debootstrap lays it out.
    ln -s usr/bin "$SYSROOT.tmp/bin"
    ln -s usr/lib "$SYSROOT.tmp/lib"
    ln -s usr/sbin "$SYSROOT.tmp/sbin"
    local admin=$SYSROOT.tmp/var/lib/dpkg
    mkdir -p "$admin/info" "$admin/updates"
    : > "$admin/status"
    echo 1 > "$admin/info/format"
    local deb package arch name control
    control=$(mktemp -d)
    for deb in "$HOST$apt"/var/cache/apt/archives/*.deb; do
        dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$SYSROOT.tmp" \
            || die "cannot extract $deb"
        # The dpkg database entry: what dpkg --unpack would record, no scripts run.
        package=$(dpkg-deb -f "$deb" Package)
        arch=$(dpkg-deb -f "$deb" Architecture)
        # dpkg's file names: PACKAGE:ARCH.* for Multi-Arch: same packages
        # (in a multiarch-aware database, info/format 1), PACKAGE.* otherwise.
        name=$package
        [ "$(dpkg-deb -f "$deb" Multi-Arch)" = same ] && name=$package:$arch
        { dpkg-deb -f "$deb" | sed '/^Package:/a Status: install ok installed'; echo; } >> "$admin/status"
        dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e 's|^$|/.|' > "$admin/info/$name.list"
        rm -rf "$control" && mkdir -p "$control"
        dpkg-deb -e "$deb" "$control"
        for file in shlibs symbols md5sums triggers; do
            [ -f "$control/$file" ] && cp "$control/$file" "$admin/info/$name.$file"
        done
    done
    # The arm64 Swift runtime and static stdlib (Debian keeps them in
    # /usr/libexec/swift/lib): only the target libraries and modules, not the
    # arm64 compiler. SwiftPM and the driver look for the static stdlib's
    # link arguments under usr/lib/swift_static too.
    for deb in "$HOST"/var/cache/headsup-arm64-swift/*.deb; do
        dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$SYSROOT.tmp" --wildcards \
            --exclude='./usr/libexec/swift/lib/lib*' --exclude='./usr/libexec/swift/lib/swift/host' './usr/libexec/swift/lib/*' \
            || die "cannot extract the Swift runtime from $deb"
    done
    rm -rf "$control"
    ln -sfn ../libexec/swift/lib/swift "$SYSROOT.tmp/usr/lib/swift"
    ln -sfn ../libexec/swift/lib/swift_static "$SYSROOT.tmp/usr/lib/swift_static"
    [ -f "$SYSROOT.tmp/usr/libexec/swift/lib/swift_static/linux/libswiftCore.a" ] || die "no arm64 static Swift stdlib in $swift_debs"
    [ -f "$SYSROOT.tmp/usr/include/hdf5/serial/hdf5.h" ] || die "no hdf5.h in the sysroot"
    rm -rf "$SYSROOT"
    echo "$recipe" > "$SYSROOT.tmp/.headsup-complete"
    mv "$SYSROOT.tmp" "$SYSROOT"
    log "arm64 sysroot ready ($(elapsed "$t") s): glibc $(sysroot_glibc), libhdf5 $(sed -n 's/^#define H5_VERS_STR "\(.*\)"/\1/p' "$SYSROOT/usr/include/hdf5/serial/H5public.h")"
}

sysroot_glibc() {
    dpkg-query --admindir="$SYSROOT/var/lib/dpkg" -W -f='${Version}' libc6:arm64 2>/dev/null | sed 's/-.*//'
}

# ---------------------------------------------------------------------------
# The Swift SDK bundle (the layout swift-sdk-generator makes), for the
# sysroot as mounted inside host/.
# ---------------------------------------------------------------------------
# sdk_files DIR: writes the bundle's files into DIR.
sdk_files() {
    local tmp=$1
    mkdir -p "$tmp/$SDK_NAME/$TRIPLE"
    cat > "$tmp/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$SDK_NAME": {
      "type": "swiftSDK",
      "version": "1",
      "variants": [{ "path": "$SDK_NAME/$TRIPLE" }]
    }
  }
}
EOF
    cat > "$tmp/$SDK_NAME/$TRIPLE/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "$TRIPLE": {
      "sdkRootPath": "/sysroot",
      "swiftResourcesPath": "/sysroot/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "/sysroot/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
    cat > "$tmp/$SDK_NAME/$TRIPLE/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
EOF
}
# sdk_current: whether the bundle holds what sdk_files writes.
sdk_current() {
    local tmp; tmp=$(mktemp -d)
    sdk_files "$tmp"
    diff -r "$tmp" "$SDKS/$SDK_NAME.artifactbundle" > /dev/null 2>&1
    local rc=$?
    rm -rf "$tmp"
    return $rc
}
make_sdk() {
    sdk_current && return 0
    local bundle=$SDKS/$SDK_NAME.artifactbundle
    rm -rf "$bundle" && mkdir -p "$bundle"
    sdk_files "$bundle"
    chmod -R a+rX "$bundle"
    log "Swift SDK bundle written: $bundle"
}

up_to_date() {
    stamp_ok "$HOST/.headsup-complete" "$(host_recipe)" && stamp_ok "$SYSROOT/.headsup-complete" "$(sysroot_recipe)" && sdk_current
}

# Builds what is missing, then holds the cache's lock shared (on fd 8, for
# as long as this process and its children run): builds from other
# checkouts share a ready cache, and nothing is rebuilt under them.
prepare() {
    [ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts); run it with sudo"
    command -v debootstrap > /dev/null || die "no debootstrap (tools/install-deps.sh installs it)"
    mkdir -p "$CACHE"
    exec 8>"$CACHE/.lock"
    flock -s 8
    up_to_date && return 0
    flock -u 8
    flock 8
    make_host
    make_sysroot
    make_sdk
    flock -s 8
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
    prepare) prepare ;;
    run)
        [ $# -gt 0 ] || die "usage: $0 run CMD [ARG]..."
        prepare
        BINDS=("$PWD:$PWD")
        HEADSUP_CROSS_CWD=$PWD in_host "$@"
        ;;
    sysroot) echo "$SYSROOT" ;;
    qemu)
        [ $# -gt 0 ] || die "usage: $0 qemu BINARY [ARG]..."
        qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
        [ -n "$qemu" ] || die "no qemu-aarch64-static (apt-get install qemu-user-static, or tools/install-deps.sh)"
        [ -f "$SYSROOT/.headsup-complete" ] || die "no arm64 sysroot yet: run $0 prepare"
        # The sysroot has no ld.so.cache: the loader searches its default directories (under -L).
        exec "$qemu" -L "$SYSROOT" "$@"
        ;;
    *) echo "usage: $0 prepare | run CMD [ARG]... | sysroot | qemu BINARY [ARG]..." >&2; exit 64 ;;
esac
