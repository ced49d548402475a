#!/usr/bin/env bash
# Installs what HeadsUp needs on Debian or Ubuntu: the C libraries it links,
# and the programs its tests drive (dbus-daemon, python-dbusmock, libiio's
# iiod). Safe to run again: it installs only what is missing, with sudo when
# not root.
set -euo pipefail

packages=(
  pkg-config
  libhdf5-dev        # Keras weight files (model engine)
  libiio-dev         # IIO sensors
  libsystemd-dev     # sd-bus (BlueZ, notifications) and sd_notify
  libmosquitto-dev   # the MQTT sink (Home Assistant)
  libcurl4-openssl-dev  # the webhook sink
  mosquitto mosquitto-clients openssl  # a broker on loopback (and TLS certificates) for the MQTT tests
  feedbackd          # the phone-feedback tests run Debian's real daemon on a private bus
  dbus               # a private dbus-daemon for the D-Bus tests
  python3-dbusmock   # plays BlueZ and the notification daemon in tests
  osmium-tool        # headsup crossings import reads OSM extracts with it; the import tests check against its tag filters
  python3-venv       # tools/ create their own virtualenvs
  python3-numpy      # the Python data-layer cross-check in make test
  python3-seccomp    # Tests/Harness/install/syscall_filter.py runs the live job under the units' system-call filter
  iiod libiio-utils  # serve and inspect the emulated IIO kernel in tests
  util-linux iproute2  # unshare and ip, for the private namespaces of tests
  binutils dpkg-dev  # make install strips the binary; make deb: dpkg-shlibdeps
  lintian            # make test checks the package
  debootstrap        # make test installs the package into clean bookworm and arm64 trixie roots;
                     # make deb ARCH=arm64 makes a Debian sid host root with Debian's Swift (tools/cross/)
  qemu-user-static binfmt-support  # make test-arm64 runs the arm64 package under qemu-user (binfmt_misc)
  binutils-aarch64-linux-gnu       # make deb ARCH=arm64 strips the arm64 binary
)

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "install-deps: not root and no sudo; install these yourself: ${packages[*]}" >&2
    exit 1
  fi
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v swift >/dev/null; then
  if apt-cache show swiftlang >/dev/null 2>&1; then
    echo "install-deps: installing Debian's Swift toolchain (swiftlang)"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq swiftlang
  else
    echo "install-deps: no Swift toolchain on PATH. Install Swift 6.1 or newer (swift.org/install), then run make again." >&2
    exit 1
  fi
fi
