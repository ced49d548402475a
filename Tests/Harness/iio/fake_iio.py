#!/usr/bin/python3
"""Fake Linux IIO "kernel side" for testing the real libiio 0.24 without hardware.

What it emulates
----------------
* sysfs: /sys/bus/iio/devices/iio:deviceN/... (attributes, buffer/, scan_elements/,
  trigger/) and trigger devices, served by a small FUSE file system written in
  pure Python (the kernel's /dev/fuse protocol, no libfuse).  FUSE gives the
  *synchronous* semantics of real sysfs: a write of "50" to sampling_frequency
  is handled before write() returns, so an immediate read-back shows the
  snapped "52.000000" (as `iio_attr` does), invalid writes fail with the errno
  the kernel would use (EINVAL, EBUSY, EACCES), and the directory of an
  unplugged device vanishes at once.  When /dev/fuse is unusable the same
  model is materialised into a tmpfs instead (--backend tmpfs) and a poller
  applies writes a few milliseconds later (see README: the read-back race).
* /dev/iio:deviceN: a FIFO in a private tmpfs /dev.  libiio opens it
  O_RDWR|O_NONBLOCK, its BLOCK_FREE ioctl fails with ENOTTY on a FIFO, so it
  uses the plain read() path, exactly as with a kernel kfifo buffer.
* the driver: when buffer/enable becomes 1 it writes one sample per period at
  the device's current sampling_frequency (delivered as the kernel does, in
  bursts of buffer/watermark samples, each stamped at its own time), packing only the enabled scan
  elements in index order with the kernel's alignment rules, values being
  known functions of the sample timestamp (see SIGNALS and the truth file).
* faults: unplug/replug of a device (sysfs directory and FIFO removed, stream
  stopped; recreated with the same name and default settings), and "stall"
  (device stays, stream stops).

Sub-commands (run `fake_iio.py -h`):
  run        used by run_in_fake_kernel.sh inside a private mount namespace
  truth      print the truth JSON (one scenario or --all)
  verify     decode an iio_readdev byte stream and check it against the truth
  scenarios  list scenarios
  materialize DIR   write a static snapshot of a scenario's tree (no root)

Only the Python standard library is used (ctypes for mount(2)/prctl(2)).
"""

import argparse
import ctypes
import errno
import fcntl
import heapq
import json
import math
import os
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import termios
import threading
import time

from iio_spec import ChanSpec, fmt_micro, fmt_nano

HERE = os.path.dirname(os.path.abspath(__file__))
TRUTH_SCHEMA = "headsup-fake-iio-truth/1"

# ============================================================================
# 1. THE TRUTH: physical signals, scales, mount matrices, rates.
#    Everything a test may want to check is defined here, once, and exported
#    verbatim by `truth` / the FAKE_IIO_TRUTH file.
# ============================================================================

STANDARD_GRAVITY = 9.80665  # m/s^2


class Signal:
    """value(t) = constant + amplitude * F(2*pi*frequency_hz*t), F = sin or cos.

    t is the sample's timestamp in seconds: t = timestamp_ns / 1e9 (float64),
    where timestamp_ns is the value of the in_timestamp scan element (the
    clock named by current_timestamp_clock, CLOCK_REALTIME by default).
    Evaluation order, to reproduce bit for bit in Swift:
        phase = 2.0 * pi * frequency_hz * t   (left to right)
        value = constant + amplitude * sin(phase)   (or cos)
    """

    def __init__(self, kind="const", constant=0.0, amplitude=0.0, frequency_hz=0.0):
        assert kind in ("const", "sin", "cos")
        self.kind, self.constant = kind, float(constant)
        self.amplitude, self.frequency_hz = float(amplitude), float(frequency_hz)

    def __call__(self, t):
        if self.kind == "const":
            return self.constant
        phase = 2.0 * math.pi * self.frequency_hz * t
        f = math.sin if self.kind == "sin" else math.cos
        return self.constant + self.amplitude * f(phase)

    def to_json(self):
        if self.kind == "const":
            formula = repr(self.constant)
        else:
            formula = "%r + %r*%s(2*pi*%r*t)" % (self.constant, self.amplitude,
                                                  self.kind, self.frequency_hz)
        return {"kind": self.kind, "constant": self.constant, "amplitude": self.amplitude,
                "frequency_hz": self.frequency_hz, "formula": formula}


# Device frame, BEFORE the mount matrix.  Units: accel m/s^2 (gravity on +z,
# as IIO and Android report a device lying face up), anglvel rad/s, magn Gauss.
SIGNALS = {
    "accel": {"x": Signal("sin", 0.0, 0.5, 0.5),
              "y": Signal("const", 0.0),
              "z": Signal("const", STANDARD_GRAVITY)},
    "anglvel": {"x": Signal("const", 0.1),
                "y": Signal("const", -0.2),
                "z": Signal("cos", 0.0, 0.3, 0.5)},
    "magn": {"x": Signal("const", 0.2),
             "y": Signal("const", -0.1),
             "z": Signal("const", 0.4)},
}
UNITS = {"accel": "m/s^2", "anglvel": "rad/s", "magn": "Gauss"}

# Scales (SI-ish units per LSB) and the *_scale_available lists.  Printed with
# 9 decimals (IIO_VAL_INT_PLUS_NANO) or 6 (IIO_VAL_INT_PLUS_MICRO) like drivers.
BMI160_ACCEL_SCALES = [0.000598205, 0.001196411, 0.002392822, 0.004785645]   # +-2/4/8/16 g
BMI160_ANGLVEL_SCALES = [0.001065264, 0.000532632, 0.000266316, 0.000133158, 0.000066579]
LIS3MDL_MAGN_SCALES = [0.000146, 0.000292, 0.000438, 0.000584]               # +-4/8/12/16 G
# ak8975: 0.3 uT/LSB = 0.003 G/LSB, adjusted per axis by the fuse ROM (ASA
# 125, 131, 136): scale = 0.003 * ((ASA - 128) / 256 + 1).  Per-channel scales.
AK8975_MAGN_SCALES = {"x": 0.002964844, "y": 0.003035156, "z": 0.00309375}
AK8975_RAW_UPDATE_HZ = 100.0

BMI160_RATES = [12.5, 26.0, 52.0, 104.0, 208.0, 416.0]
BMI160_DEFAULT_RATE = 104.0
LIS3MDL_RATES = [0.625, 1.25, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0]
LIS3MDL_DEFAULT_RATE = 80.0

# Mount matrices (rows of M; apply v' = M . v).  Both are real, non-identity:
# the IMU is rotated 90 degrees about z and flipped, the magnetometer is
# mounted upside down (rotated 180 degrees about y).
BMI160_MATRIX = ((0, 1, 0), (1, 0, 0), (0, 0, -1))
MAGN_MATRIX = ((-1, 0, 0), (0, 1, 0), (0, 0, -1))

# Optional: play a recorded HeadsUp session instead of the synthetic signals
# (FAKE_IIO_SESSION=path/to/session.csv; see session_playback.py).
if os.environ.get("FAKE_IIO_SESSION"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import session_playback  # noqa: E402
    SIGNALS = session_playback.signals(os.environ["FAKE_IIO_SESSION"], BMI160_MATRIX, MAGN_MATRIX, STANDARD_GRAVITY)

TIMESTAMP_CLOCKS = {  # current_timestamp_clock value -> clock id (Linux numbers)
    "realtime": time.CLOCK_REALTIME, "monotonic": time.CLOCK_MONOTONIC,
    "monotonic_raw": 4, "realtime_coarse": 5, "monotonic_coarse": 6,
    "boottime": 7, "tai": 11,
}

S16_MIN, S16_MAX = -32768, 32767


def round_half_away(x):
    """round() as C/Swift do it (half away from zero); Python's round() is banker's."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def to_raw(value, scale, lo=S16_MIN, hi=S16_MAX):
    """raw = clamp(round_half_away(value / scale), lo, hi)  (offset is 0)."""
    return max(lo, min(hi, round_half_away(value / scale)))


def matrix_text(m):
    """Kernel format of a mount matrix: "x1, y1, z1; x2, y2, z2; x3, y3, z3"."""
    return "; ".join(", ".join(str(c) for c in row) for row in m)


# ============================================================================
# 2. SCENARIOS: declarative device descriptions.
# ============================================================================

def imu_spec(matrix_form):
    """bmi160 combined accel+gyro, buffered, no trigger (hardware FIFO style)."""
    chans = [ChanSpec("accel", a, i) for i, a in enumerate("xyz")]
    chans += [ChanSpec("anglvel", a, 3 + i) for i, a in enumerate("xyz")]
    chans.append(ChanSpec("timestamp", None, 6, "le:s64/64>>0"))
    return {
        "id": "iio:device0", "name": "bmi160", "buffered": True, "trigger": None,
        "chrdev": (244, 0), "channels": chans,
        "scales": {"accel": {"attr": "in_accel_scale", "value": BMI160_ACCEL_SCALES[0],
                             "available": BMI160_ACCEL_SCALES, "fmt": fmt_nano},
                   "anglvel": {"attr": "in_anglvel_scale", "value": BMI160_ANGLVEL_SCALES[0],
                               "available": BMI160_ANGLVEL_SCALES, "fmt": fmt_nano}},
        "offsets": {"accel": 0},            # in_accel_offset "0"
        "rate": {"default": BMI160_DEFAULT_RATE, "available": BMI160_RATES},
        "matrices": matrix_form,            # list of (sysfs attribute, matrix, applies_to types)
    }


def magn_spec_lis3mdl(matrix_form):
    chans = [ChanSpec("magn", a, i) for i, a in enumerate("xyz")]
    chans.append(ChanSpec("timestamp", None, 3, "le:s64/64>>0"))
    return {
        "id": "iio:device1", "name": "lis3mdl", "buffered": True,
        "trigger": {"id": "trigger0", "name": "lis3mdl-trigger"},
        "chrdev": (244, 1), "channels": chans,
        "scales": {"magn": {"attr": "in_magn_scale", "value": LIS3MDL_MAGN_SCALES[0],
                            "available": LIS3MDL_MAGN_SCALES, "fmt": fmt_micro}},
        "offsets": {},
        "rate": {"default": LIS3MDL_DEFAULT_RATE, "available": LIS3MDL_RATES},
        "matrices": matrix_form,
    }


def magn_spec_ak8975():
    """Polled magnetometer: no buffer, no scan_elements, no /dev node; per-axis
    scales; _raw values refreshed at AK8975_RAW_UPDATE_HZ."""
    chans = [ChanSpec("magn", a, None) for a in "xyz"]
    return {
        "id": "iio:device1", "name": "ak8975", "buffered": False, "trigger": None,
        "chrdev": None, "channels": chans,
        "scales": {"magn_" + a: {"attr": "in_magn_%s_scale" % a, "value": AK8975_MAGN_SCALES[a],
                                 "available": None, "fmt": fmt_nano} for a in "xyz"},
        "offsets": {},
        "rate": None, "raw_update_hz": AK8975_RAW_UPDATE_HZ,
        "matrices": [("in_mount_matrix", MAGN_MATRIX, ["magn"])],
    }


SCENARIOS = {
    "standard": lambda: [
        imu_spec([("in_mount_matrix", BMI160_MATRIX, ["accel", "anglvel"])]),
        magn_spec_lis3mdl([("in_magn_mount_matrix", MAGN_MATRIX, ["magn"])])],
    "polled": lambda: [
        imu_spec([("in_mount_matrix", BMI160_MATRIX, ["accel", "anglvel"])]),
        magn_spec_ak8975()],
    "mount_matrix_variants": lambda: [
        imu_spec([("mount_matrix", BMI160_MATRIX, ["accel", "anglvel"])]),
        magn_spec_lis3mdl([("in_magn_mount_matrix", MAGN_MATRIX, ["magn"])])],
    "per_type_matrix": lambda: [
        imu_spec([("in_accel_mount_matrix", BMI160_MATRIX, ["accel"]),
                  ("in_anglvel_mount_matrix", BMI160_MATRIX, ["anglvel"])]),
        magn_spec_lis3mdl([("in_mount_matrix", MAGN_MATRIX, ["magn"])])],
}
# The phones and boards of profiles.py, as their mainline drivers show them.
from profiles import PROFILE_HELP, PROFILES  # noqa: E402

SCENARIOS.update(PROFILES)

SCENARIO_HELP = {
    "standard": "bmi160 (in_mount_matrix) + lis3mdl with trigger (in_magn_mount_matrix)",
    "polled": "bmi160 + ak8975 polled magnetometer (no buffer; per-axis scales; in_mount_matrix)",
    "mount_matrix_variants": "bmi160 with device-level mount_matrix + lis3mdl in_magn_mount_matrix",
    "per_type_matrix": "bmi160 with in_accel_/in_anglvel_mount_matrix + lis3mdl in_mount_matrix",
    **PROFILE_HELP,
}


def libiio_matrix_location(attr, spec):
    """Where libiio 0.24's local backend shows a mount-matrix sysfs attribute."""
    if attr == "mount_matrix":
        return {"kind": "device_attr", "attr": "mount_matrix"}
    if attr == "in_mount_matrix":
        # "in_" + "mount" + "_matrix": not a known channel type, so libiio
        # makes a non-scan input channel with id "mount" and attribute "matrix".
        return {"kind": "channel_attr", "channels": ["mount"], "attr": "matrix"}
    ctype = attr[len("in_"):-len("_mount_matrix")]
    chans = [c.id for c in spec["channels"] if c.ctype == ctype]
    return {"kind": "channel_attr", "channels": chans, "attr": "mount_matrix"}


def scale_for(spec, chan):
    s = spec["scales"]
    return s.get(chan.id) or s.get(chan.ctype)


def truth_for(scenario):
    """The truth JSON document for one scenario (see README for the schema)."""
    devices = []
    for spec in SCENARIOS[scenario]():
        chans = []
        for c in spec["channels"]:
            entry = {"id": c.id, "type": c.ctype, "axis": c.axis, "index": c.index,
                     "scan_element": c.index is not None}
            if c.index is not None:
                entry["format"] = c.fmt
            if not c.is_timestamp:
                sc = scale_for(spec, c)
                entry.update({"unit": UNITS[c.ctype], "scale": sc["value"],
                              "scale_attr": sc["attr"],
                              "offset": spec["offsets"].get(c.ctype, 0),
                              "offset_attr": ("in_%s_offset" % c.ctype
                                              if c.ctype in spec["offsets"] else None),
                              "raw_attr": c.prefix + "_raw",
                              "signal": SIGNALS[c.ctype][c.axis].to_json()})
            else:
                entry.update({"unit": "ns", "clock_attr": "current_timestamp_clock"})
            chans.append(entry)
        rate = spec.get("rate")
        dev = {
            "id": spec["id"], "name": spec["name"], "buffered": spec["buffered"],
            "dev_node": "/dev/" + spec["id"] if spec["buffered"] else None,
            "trigger": spec["trigger"],
            # A triggered buffer with no trigger of its own: buffer/enable is EINVAL.
            "needs_trigger": bool(spec.get("needs_trigger")),
            "timestamp_clock": "realtime" if spec["buffered"] else None,
            "sampling_frequency": None if rate is None else {
                "attr": "sampling_frequency", "default": rate["default"],
                "available": rate["available"],
                "write_rule": rate.get("write_rule", "snapped to the nearest available value (ties go up)"),
                "examples": {str(v): written_rate_or_error(v, rate) for v in (50, 80)}},
            "raw_update_hz": spec.get("raw_update_hz"),
            # _raw changes at the device's sampling_frequency (a one-shot read
            # gives the sample of that instant) and a read waits this many
            # periods of it; None: answered at once.
            "raw_follows_rate": bool(spec.get("raw_follows_rate")),
            "raw_read_wait_periods": spec.get("raw_read_periods"),
            "mount_matrices": [{"sysfs_attr": attr, "applies_to": types,
                                "text": matrix_text(m), "rows": [list(r) for r in m],
                                "libiio": libiio_matrix_location(attr, spec)}
                               for attr, m, types in spec["matrices"]],
            "channels": chans,
        }
        devices.append(dev)
    return {
        "schema": TRUTH_SCHEMA,
        "scenario": scenario,
        "description": SCENARIO_HELP[scenario],
        "time_base": "t = timestamp_ns / 1e9 where timestamp_ns is the sample's in_timestamp "
                     "value (clock per current_timestamp_clock, default CLOCK_REALTIME); "
                     "for polled _raw reads t is the read time quantised down to 1/raw_update_hz",
        "value_rule": "physical = (raw + offset) * scale, device frame; "
                      "raw = clamp(round_half_away_from_zero(signal(t) / scale), -32768, 32767)",
        "signal_rule": "signal(t) = constant + amplitude * sin|cos(2.0 * pi * frequency_hz * t)",
        "mount_matrix_rule": "v_mounted = M . v_device with M = rows (row-major)",
        "layout_rule": "enabled scan elements in ascending index; each element aligned to its "
                       "storage size in bytes (s64 timestamp to 8); sample size padded to the "
                       "largest enabled element (kernel); little endian",
        "units": UNITS,
        "standard_gravity": STANDARD_GRAVITY,
        "devices": devices,
    }


def dumps_truth(obj, indent=0):
    """json.dumps with one key per line but short lists (matrix rows, rate
    lists) on one line, so the committed truth.json stays reviewable."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = ['%s %s: %s' % (pad, json.dumps(k), dumps_truth(v, indent + 1))
                 for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        flat = json.dumps(obj)
        if len(flat) <= 100 and not any(isinstance(x, dict) for x in obj):
            return flat
        return "[\n" + ",\n".join(pad + " " + dumps_truth(x, indent + 1) for x in obj) \
            + "\n" + pad + "]"
    return json.dumps(obj)


def written_rate(requested, rate):
    """What a driver makes of a written sampling_frequency (rate["write"]):
    "exact" (st_sensors_set_odr: a listed value or EINVAL), "at_least"
    (st_lsm6dsx_check_odr: the first listed >= it, EINVAL above the last),
    "divider" (inv_mpu6050_fifo_rate_store: an integer 4..1000 Hz becomes
    1000 / (divider + 1)), else the nearest listed value."""
    available, rule = rate["available"], rate.get("write", "snap")
    if rule == "exact":
        for r in available:
            if abs(r - requested) < 1e-6:
                return r
        raise OSError(errno.EINVAL, "rate not in sampling_frequency_available")
    if rule == "at_least":
        for r in sorted(available):
            if r >= requested - 1e-6:
                return r
        raise OSError(errno.EINVAL, "rate above the fastest available")
    if rule == "divider":
        hz = int(requested)
        if not 4 <= hz <= 1000:
            raise OSError(errno.EINVAL, "rate outside 4..1000 Hz")
        return 1000.0 / (1000 // hz)
    return snap_rate(requested, available)


def written_rate_or_error(requested, rate):
    try:
        return written_rate(requested, rate)
    except OSError:
        return "EINVAL"


def snap_rate(requested, available):
    """Nearest available rate; on a tie the higher one."""
    return min(available, key=lambda r: (abs(r - requested), -r))


# ============================================================================
# 3. THE VIRTUAL SYSFS MODEL (shared by the FUSE and tmpfs back ends).
# ============================================================================

_next_nodeid = [2]   # FUSE_ROOT_ID is 1


class Node:
    def __init__(self, name, mode):
        self.name, self.mode = name, mode
        self.parent = None
        self.alive = True
        if name == "":
            self.nodeid = 1
        else:
            self.nodeid = _next_nodeid[0]
            _next_nodeid[0] += 1
        self.nlookup = 0
        self.mtime = time.time()

    def kill(self):
        self.alive = False


class Dir(Node):
    def __init__(self, name, mode=0o755):
        super().__init__(name, stat.S_IFDIR | mode)
        self.children = {}

    def add(self, node):
        node.parent = self
        self.children[node.name] = node
        return node

    def mkdir(self, name, mode=0o755):
        return self.add(Dir(name, mode))

    def remove(self, name):
        node = self.children.pop(name, None)
        if node is not None:
            for n in walk(node):
                n.kill()
        return node


def walk(node):
    yield node
    if isinstance(node, Dir):
        for c in list(node.children.values()):
            yield from walk(c)


class Attr(Node):
    """A sysfs attribute.  show() -> str (a newline is appended, as sysfs does);
    store(str) -> None or raises OSError(errno).  The written bytes are cut at
    the first NUL (libiio writes the terminating NUL) and stripped."""

    def __init__(self, name, show=None, store=None, mode=None, due=None):
        if mode is None:
            mode = (0o444 if show else 0) | (0o200 if store else 0)
        super().__init__(name, stat.S_IFREG | mode)
        self._show, self._store = show, store
        # due() -> monotonic seconds when a read started now is answered
        # (None: at once); the FUSE back end holds the reply until then.
        self.due = due

    @property
    def readable(self):
        return self._show is not None

    @property
    def writable(self):
        return self._store is not None

    def content(self):
        if not self.alive:
            raise OSError(errno.ENODEV, "device removed")
        return (self._show() + "\n").encode()

    def write(self, data):
        if not self.alive:
            raise OSError(errno.ENODEV, "device removed")
        text = bytes(data).split(b"\0", 1)[0].decode("ascii", "replace").strip()
        self._store(text)
        self.mtime = time.time()


class Chardev(Node):
    """/dev/iio:deviceN, served by FUSE (with the tmpfs back end it stays a
    plain FIFO and none of these rules apply): one opener, reads of whole
    scans, poll() readable when scans are queued, ioctl ENOTTY (libiio then
    falls back to read())."""

    def __init__(self, device):
        super().__init__(device.id, stat.S_IFREG | 0o600)
        self.device = device
        self.readable = self.writable = True

    def content(self):
        return b""      # the tmpfs back end renders every node; its /dev node is a FIFO

    def open(self):
        if not self.alive:
            raise OSError(errno.ENODEV, "device removed")
        if self.device.chardev_open:
            raise OSError(errno.EBUSY, "character device already open")
        self.device.chardev_open = True
        self.device.hub.event("chardev_open", self.device.id)

    def release(self):
        if self.device.chardev_open:
            self.device.chardev_open = False
            self.device.pollers.clear()
            self.device.hub.event("chardev_release", self.device.id)


def parse_bool(text):
    """kstrtobool()."""
    t = text.lower()
    if t in ("1", "y", "yes", "on", "true"):
        return True
    if t in ("0", "n", "no", "off", "false"):
        return False
    raise OSError(errno.EINVAL, "not a boolean")


def parse_uint(text):
    try:
        v = int(text, 0)
    except ValueError:
        raise OSError(errno.EINVAL, "not an integer")
    if v < 0:
        raise OSError(errno.EINVAL, "negative")
    return v


def parse_float(text):
    try:
        v = float(text)
    except ValueError:
        raise OSError(errno.EINVAL, "not a number")
    if not math.isfinite(v):
        raise OSError(errno.EINVAL, "not finite")
    return v


# ============================================================================
# 4. ONE PLUGGED-IN DEVICE: state, sysfs tree, sample stream.
# ============================================================================

class FakeDevice:
    """A device instance from probe to removal.  A replug creates a new
    instance (defaults restored), as a real re-probe would."""

    def __init__(self, spec, hub):
        self.spec, self.hub = spec, hub
        self.id, self.name = spec["id"], spec["name"]
        self.fifo_path = os.path.join(hub.fifo_dir, self.id) if spec["buffered"] else None
        # iio_chrdev_open (drivers/iio/industrialio-core.c): the character
        # device has one opener; a second open() gets EBUSY until release.
        self.chardev_open = False
        self.pollers = set()             # FUSE poll handles waiting for data
        self.rate = spec["rate"]["default"] if spec.get("rate") else None
        self.scales = {k: v["value"] for k, v in spec["scales"].items()}
        self.clock_name = "realtime"
        self.enabled = False
        self.length = 2          # kfifo default
        self.watermark = 1
        self.scan_en = {c.id: False for c in spec["channels"] if c.index is not None}
        trig = spec.get("trigger")
        self.current_trigger = trig["name"] if trig else ""
        self.stalled_until = None        # monotonic seconds, or math.inf
        self.raw_busy_until = 0.0        # a one-shot read in progress ends then
        # stream state
        self.fd = None
        self.layout = []
        self.sample_size = 0
        self.k = 0
        self.anchor_mono = self.anchor_stamp = 0
        self.period_ns = 0.0
        # statistics (reported by the control "status" file)
        self.stats = {"samples_written": 0, "samples_dropped": 0, "bytes_written": 0,
                      "streams_started": 0, "last_timestamp_ns": None, "slow_raw_reads": 0}
        self.dir = self.build_tree()

    # ---- helpers -------------------------------------------------------
    def scan_channels(self):
        return sorted((c for c in self.spec["channels"] if c.index is not None),
                      key=lambda c: c.index)

    def scale_of(self, chan):
        return self.scales.get(chan.id, self.scales.get(chan.ctype))

    def raw_now(self, chan):
        # iio_device_claim_direct_mode (inv_mpu6050's read_raw and most
        # buffered drivers): a raw read while the buffer is on gets EBUSY.
        if self.enabled:
            raise OSError(errno.EBUSY, "buffer enabled: raw reads refused")
        now = self.hub.clock_ns(self.clock_name) / 1e9
        hz = self.spec.get("raw_update_hz") or (self.rate if self.spec.get("raw_follows_rate") else None)
        if hz:   # polled sensor: the value changes only every 1/hz seconds
            now = math.floor(now * hz) / hz
        return to_raw(SIGNALS[chan.ctype][chan.axis](now), self.scale_of(chan))

    def raw_read_due(self):
        """When a `_raw` read started now returns (monotonic seconds), or None
        for an immediate answer.  One-shot drivers power the sensor up and
        sleep a few output periods before they read the register
        (st_lsm6dsx_read_oneshot, st_sensors_read_info_raw), and a device's
        reads take turns (iio_device_claim_direct_mode holds its lock)."""
        periods = self.spec.get("raw_read_periods")
        if not periods or not self.rate:
            return None
        start = max(time.monotonic(), self.raw_busy_until)
        self.raw_busy_until = start + periods / self.rate
        self.stats["slow_raw_reads"] += 1
        return self.raw_busy_until

    def require_idle(self):
        if self.enabled:
            raise OSError(errno.EBUSY, "buffer enabled")

    # ---- sysfs tree ----------------------------------------------------
    def build_tree(self):
        spec = self.spec
        d = Dir(self.id)
        d.add(Attr("name", lambda: self.name))
        if spec.get("chrdev"):
            major, minor = spec["chrdev"]
            d.add(Attr("dev", lambda: "%d:%d" % (major, minor)))
            d.add(Attr("uevent", lambda: "MAJOR=%d\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=iio_device"
                       % (major, minor, self.id),
                       store=lambda s: None, mode=0o644))
        for c in spec["channels"]:
            if not c.is_timestamp:
                d.add(Attr(c.prefix + "_raw", (lambda c=c: str(self.raw_now(c))), due=self.raw_read_due))
        for key, sc in spec["scales"].items():
            d.add(Attr(sc["attr"], (lambda key=key, sc=sc: sc["fmt"](self.scales[key])),
                       (lambda s, key=key, sc=sc: self.store_scale(key, sc, s))
                       if sc["available"] else None))
            if sc["available"]:
                d.add(Attr(sc["attr"] + "_available",
                           lambda sc=sc: " ".join(sc["fmt"](v) for v in sc["available"])))
        for ctype, off in spec["offsets"].items():
            d.add(Attr("in_%s_offset" % ctype, lambda off=off: str(off)))
        for attr, m, _types in spec["matrices"]:
            d.add(Attr(attr, lambda m=m: matrix_text(m)))
        if spec.get("rate"):
            rate_fmt = spec["rate"].get("fmt", fmt_micro)
            available_fmt = spec["rate"].get("available_fmt", fmt_micro)
            d.add(Attr("sampling_frequency", lambda: rate_fmt(self.rate), self.store_rate))
            d.add(Attr("sampling_frequency_available",
                       lambda: " ".join(available_fmt(r) for r in spec["rate"]["available"])))
        if spec["buffered"]:
            d.add(Attr("current_timestamp_clock", lambda: self.clock_name, self.store_clock))
            b = d.mkdir("buffer")
            b.add(Attr("enable", lambda: "1" if self.enabled else "0", self.store_enable))
            b.add(Attr("length", lambda: str(self.length), self.store_length))
            b.add(Attr("watermark", lambda: str(self.watermark), self.store_watermark))
            b.add(Attr("data_available", lambda: str(self.data_available())))
            se = d.mkdir("scan_elements")
            for c in self.scan_channels():
                se.add(Attr(c.prefix + "_en", (lambda c=c: "1" if self.scan_en[c.id] else "0"),
                            (lambda s, c=c: self.store_scan_en(c, s))))
                se.add(Attr(c.prefix + "_index", lambda c=c: str(c.index)))
                se.add(Attr(c.prefix + "_type", lambda c=c: c.fmt))
        if spec.get("trigger") or spec.get("needs_trigger"):
            t = d.mkdir("trigger")
            t.add(Attr("current_trigger", lambda: self.current_trigger, self.store_trigger))
        return d

    def build_trigger_tree(self):
        trig = self.spec.get("trigger")
        if not trig:
            return None
        t = Dir(trig["id"])
        t.add(Attr("name", lambda: trig["name"]))
        return t

    # ---- attribute stores (run with hub.lock held) ---------------------
    def store_rate(self, text):
        v = parse_float(text)
        if v <= 0:
            raise OSError(errno.EINVAL, "rate must be positive")
        new = written_rate(v, self.spec["rate"])
        self.hub.log("%s: sampling_frequency %r -> %s" % (self.id, text, fmt_micro(new)))
        if new != self.rate:
            self.rate = new
            if self.enabled:
                self.reanchor()

    def store_scale(self, key, sc, text):
        v = parse_float(text)
        for a in sc["available"]:
            if abs(a - v) <= 1e-9 + 1e-6 * a:
                self.scales[key] = a
                return
        raise OSError(errno.EINVAL, "scale not available")

    def store_clock(self, text):
        if text not in TIMESTAMP_CLOCKS:
            raise OSError(errno.EINVAL, "unknown clock")
        self.require_idle()
        self.clock_name = text

    def store_trigger(self, text):
        self.require_idle()
        trig = self.spec.get("trigger")
        if text and not (trig and text == trig["name"]):
            raise OSError(errno.EINVAL, "no such trigger for this device")
        self.current_trigger = text

    def store_scan_en(self, chan, text):
        on = parse_bool(text)
        self.require_idle()
        self.scan_en[chan.id] = on

    def store_length(self, text):
        v = parse_uint(text)
        if v == self.length:
            return
        self.require_idle()
        self.length = v
        if self.length and self.length < self.watermark:
            self.watermark = self.length

    def store_watermark(self, text):
        v = parse_uint(text)
        if v == 0 or v > self.length:
            raise OSError(errno.EINVAL, "watermark must be 1..length")
        self.require_idle()
        self.watermark = v

    def store_enable(self, text):
        on = parse_bool(text)
        if on == self.enabled:
            return
        if on:
            self.start_stream()
        else:
            self.stop_stream("buffer disabled")

    def data_available(self):
        if self.fd is None or not self.sample_size:
            return 0
        try:
            n = struct.unpack("i", fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        except OSError:
            return 0
        return n // self.sample_size

    # ---- streaming -----------------------------------------------------
    def start_stream(self):
        chans = [c for c in self.scan_channels() if self.scan_en[c.id]]
        if not chans:
            raise OSError(errno.EINVAL, "no scan element enabled")
        if self.length == 0:
            raise OSError(errno.EINVAL, "buffer length is 0")
        trig = self.spec.get("trigger")
        if (trig and self.current_trigger != trig["name"]) or (self.spec.get("needs_trigger") and not self.current_trigger):
            # iio_verify_update: a triggered buffer with no trigger cannot start.
            raise OSError(errno.EINVAL, "buffer not started: no trigger")
        # Kernel layout (iio_compute_scan_bytes): each element at an offset
        # aligned to its own storage size; total padded to the largest one.
        layout, off, largest = [], 0, 1
        for c in chans:
            off = (off + c.nbytes - 1) // c.nbytes * c.nbytes
            layout.append((c, off))
            off += c.nbytes
            largest = max(largest, c.nbytes)
        size = (off + largest - 1) // largest * largest
        try:
            # O_RDWR: never blocks and keeps the pipe alive even without a
            # reader (a kfifo holds data whether or not /dev is open).
            fd = os.open(self.fifo_path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            self.hub.log("%s: cannot open %s: %s" % (self.id, self.fifo_path, e))
            raise OSError(errno.EIO, "no device node")
        try:   # kfifo size ~ length * bytes_per_datum (a pipe holds >= one page)
            fcntl.fcntl(fd, 1031, max(4096, self.length * size))   # F_SETPIPE_SZ
        except OSError:
            pass
        self.fd, self.layout, self.sample_size = fd, layout, size
        self.enabled = True
        self.stats["streams_started"] += 1
        self.reanchor()
        self.hub.log("%s: buffer enabled: %s, %d bytes/sample, %s Hz, length %d, watermark %d" % (
            self.id, ",".join(c.id for c, _ in layout), size, fmt_micro(self.rate), self.length, self.watermark))
        self.hub.wake()

    def reanchor(self):
        """(Re)start the sample grid: sample k is due at anchor + k*period."""
        self.period_ns = 1e9 / self.rate
        self.anchor_mono = time.monotonic_ns()
        self.anchor_stamp = self.hub.clock_ns(self.clock_name)
        self.k = 1
        self.hub.wake()

    def stop_stream(self, why):
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
        self.fd = None
        if self.enabled:
            self.hub.log("%s: stream stopped (%s)" % (self.id, why))
        self.enabled = False

    def next_due_mono(self):
        return self.due_mono(self.k)

    def due_mono(self, k):
        return self.anchor_mono + round(k * self.period_ns)

    def pack_sample(self, ts_ns):
        t = ts_ns / 1e9
        out = bytearray(self.sample_size)
        for c, off in self.layout:
            if c.is_timestamp:
                v = ts_ns
            else:
                v = to_raw(SIGNALS[c.ctype][c.axis](t), self.scale_of(c), *c.raw_range)
            mask = (1 << c.storagebits) - 1
            word = ((v & ((1 << c.realbits) - 1)) << c.shift) & mask
            out[off:off + c.nbytes] = word.to_bytes(c.nbytes, "big" if c.big_endian else "little")
        return bytes(out)

    def pump(self, now_mono):
        """Write every sample that is due; return the next due time (ns)."""
        if self.stalled_until is not None:
            if time.monotonic() < self.stalled_until:
                return None
            self.stalled_until = None           # stall over
            if self.enabled:
                self.reanchor()
        if not self.enabled or self.fd is None:
            return None
        due = self.next_due_mono()
        if now_mono - due > 1_000_000_000:
            # We were not scheduled for over a second: the hardware FIFO
            # would have overflowed.  Count the loss and restart the grid.
            lost = int((now_mono - due) / self.period_ns)
            self.stats["samples_dropped"] += lost
            self.hub.log("%s: driver fell behind, %d samples lost" % (self.id, lost))
            self.reanchor()
            return self.next_due_mono()
        # Like the kernel's kfifo with a watermark (libiio sets it to its
        # buffer's sample count): the reader is woken once per `watermark`
        # samples, each stamped at its own time, not once per sample.
        batch = max(1, min(self.watermark, self.length or 1))
        while self.due_mono(self.k + batch - 1) <= now_mono:
            stamps = [self.anchor_stamp + round((self.k + i) * self.period_ns) for i in range(batch)]
            data = b"".join(self.pack_sample(ts) for ts in stamps)
            chunk = max(1, 4096 // self.sample_size) * self.sample_size   # whole samples within PIPE_BUF: all or nothing
            try:
                for start in range(0, len(data), chunk):
                    os.write(self.fd, data[start:start + chunk])
                self.stats["samples_written"] += batch
                self.stats["bytes_written"] += len(data)
                self.stats["last_timestamp_ns"] = stamps[-1]
                self.wake_pollers()
            except BlockingIOError:
                self.stats["samples_dropped"] += batch   # buffer full: the newest samples lost
            except OSError as e:
                self.hub.log("%s: write failed: %s" % (self.id, e))
                self.stop_stream("write error")
                return None
            self.k += batch
        return self.due_mono(self.k + batch - 1)

    def wake_pollers(self):
        if self.pollers and self.hub.notify_poll is not None:
            for kh in self.pollers:
                self.hub.notify_poll(kh)
            self.pollers.clear()

    def read_chardev(self, size):
        """read() on /dev/iio:deviceN: whole scans from the kfifo, EAGAIN
        when empty (the FUSE server never blocks; libiio opens O_NONBLOCK)."""
        if self.fd is None or not self.sample_size:
            raise OSError(errno.EAGAIN, "buffer empty")
        size -= size % self.sample_size
        if size <= 0:
            raise OSError(errno.EINVAL, "read shorter than one scan")
        try:
            return os.read(self.fd, size)
        except BlockingIOError:
            raise OSError(errno.EAGAIN, "buffer empty")

    def status(self):
        return {"id": self.id, "name": self.name, "present": True,
                "buffer_enabled": self.enabled, "chardev_open": self.chardev_open,
                "sampling_frequency": self.rate,
                "timestamp_clock": self.clock_name if self.spec["buffered"] else None,
                "enabled_channels": [c.id for c, _ in self.layout] if self.enabled else [],
                "sample_size": self.sample_size if self.enabled else None,
                "buffer_length": self.length if self.spec["buffered"] else None,
                "current_trigger": self.current_trigger if (self.spec.get("trigger") or self.spec.get("needs_trigger")) else None,
                "stalled": self.stalled_until is not None,
                **self.stats}


# ============================================================================
# 5. THE HUB: the fake "kernel" (device registry, driver thread, faults,
#    control files).  One lock protects everything; FUSE handlers, the driver
#    thread, signal handlers and timers all take it.
# ============================================================================

class Hub:
    def __init__(self, scenario, dev_dir, log_file=None, verbose=False):
        self.scenario = scenario
        self.specs = {s["id"]: s for s in SCENARIOS[scenario]()}
        self.dev_dir = dev_dir
        # Where the kfifo pipes live, and (FUSE only) where /dev/iio:deviceN
        # points: a FUSE file that enforces one opener (set by setup_mounts).
        self.fifo_dir = dev_dir
        self.chardev_target = None
        self.notify_poll = None
        self.rlock = threading.RLock()
        self.cond = threading.Condition(self.rlock)
        self.lock = self.cond        # "with hub.lock:" everywhere
        self.stopping = False
        # 'clockstep SECONDS' steps the emulated realtime clock (as NTP does on a
        # board without an RTC): stamps on realtime clocks jump by it from then on.
        self.realtime_step_ns = 0
        self.devices = {}            # id -> FakeDevice (present ones)
        self.unplugged = {}          # id -> monotonic replug time (inf = manual)
        self.timers = []             # (monotonic seconds, description, callable)
        self.events = []
        self.t0 = time.monotonic()
        self.log_file, self.verbose = log_file, verbose
        self.on_change = []          # callbacks after tree changes (tmpfs backend)
        # the tree: root/iio/{devices,drivers}, root/control/{command,status,truth.json}
        self.root = Dir("")
        self.bus = self.root.mkdir("iio")
        self.devices_dir = self.bus.mkdir("devices")
        self.bus.mkdir("drivers")
        self.chardevs = self.root.mkdir("chardev")
        ctl = self.root.mkdir("control")
        ctl.add(Attr("command", lambda: CONTROL_HELP.rstrip("\n"), self.command, mode=0o644))
        ctl.add(Attr("status", lambda: json.dumps(self.status(), indent=1)))
        truth = dumps_truth(truth_for(scenario))
        ctl.add(Attr("truth.json", lambda: truth))

    # ---- logging / events ----------------------------------------------
    def log(self, msg):
        line = "[fake-iio %8.3f] %s" % (time.monotonic() - self.t0, msg)
        if self.verbose:
            print(line, file=sys.stderr, flush=True)
        if self.log_file:
            self.log_file.write(line + "\n")
            self.log_file.flush()

    def event(self, what, dev_id, **extra):
        e = {"event": what, "device": dev_id, "monotonic_ns": time.monotonic_ns(),
             "realtime_ns": time.time_ns(), **extra}
        self.events.append(e)
        self.log("%s %s %s" % (what, dev_id, extra or ""))

    def wake(self):
        with self.cond:
            self.cond.notify_all()

    # ---- plug / unplug -------------------------------------------------
    def plug(self, dev_id):
        with self.lock:
            spec = self.specs[dev_id]
            if dev_id in self.devices:
                return
            self.unplugged.pop(dev_id, None)
            if spec["buffered"]:
                for path in {os.path.join(self.dev_dir, dev_id), os.path.join(self.fifo_dir, dev_id)}:
                    try:
                        os.unlink(path)
                    except FileNotFoundError:
                        pass
                os.mkfifo(os.path.join(self.fifo_dir, dev_id), 0o600)
                if self.chardev_target is not None:
                    os.symlink(os.path.join(self.chardev_target, dev_id), os.path.join(self.dev_dir, dev_id))
            dev = FakeDevice(spec, self)
            if spec["buffered"]:
                self.chardevs.add(Chardev(dev))
            self.devices[dev_id] = dev
            self.devices_dir.add(dev.dir)
            trig = dev.build_trigger_tree()
            if trig is not None:
                self.devices_dir.add(trig)
            self.event("plug", dev_id, name=spec["name"])
            self.changed()

    def unplug(self, dev_id, seconds=None):
        """Remove the device; replug after `seconds` (None = only on request)."""
        with self.lock:
            dev = self.devices.pop(dev_id, None)
            if dev is None:
                if dev_id not in self.unplugged:
                    raise OSError(errno.ENODEV, "no such device")
            else:
                dev.stop_stream("unplugged")
                self.devices_dir.remove(dev_id)
                trig = dev.spec.get("trigger")
                if trig:
                    self.devices_dir.remove(trig["id"])
                if dev.fifo_path:
                    self.chardevs.remove(dev_id)
                    for path in {dev.fifo_path, os.path.join(self.dev_dir, dev_id)}:
                        try:
                            os.unlink(path)
                        except FileNotFoundError:
                            pass
            until = math.inf if seconds is None else time.monotonic() + seconds
            self.unplugged[dev_id] = until
            self.timers = [t for t in self.timers if t[1] != "replug " + dev_id]
            if seconds is not None:
                self.timers.append((until, "replug " + dev_id, lambda: self.plug(dev_id)))
            self.event("unplug", dev_id, seconds=seconds)
            self.changed()
            self.wake()

    def stall(self, dev_id, seconds=None):
        with self.lock:
            dev = self.find(dev_id)
            dev.stalled_until = math.inf if seconds is None else time.monotonic() + seconds
            self.event("stall", dev.id, seconds=seconds)

    def resume(self, dev_id):
        with self.lock:
            dev = self.find(dev_id)
            if dev.stalled_until is not None:
                dev.stalled_until = time.monotonic()   # pump() re-anchors
            self.event("resume", dev.id)
            self.wake()

    def schedule(self, delay, desc, fn):
        with self.lock:
            self.timers.append((time.monotonic() + delay, desc, fn))
            self.wake()

    def changed(self):
        for cb in self.on_change:
            cb()

    def resolve(self, ref):
        """'iio:device0', 'device0', '0' or a device name -> device id."""
        ref = ref.strip()
        for dev_id, spec in self.specs.items():
            if ref in (dev_id, dev_id.replace("iio:", ""), dev_id.replace("iio:device", ""),
                       spec["name"]):
                return dev_id
        raise OSError(errno.ENODEV, "unknown device %r" % ref)

    def find(self, ref):
        dev = self.devices.get(self.resolve(ref))
        if dev is None:
            raise OSError(errno.ENODEV, "device is unplugged")
        return dev

    def clock_ns(self, name):
        """Now on the named timestamp clock, with the emulated realtime steps."""
        now = time.clock_gettime_ns(TIMESTAMP_CLOCKS[name])
        return now + self.realtime_step_ns if name.startswith("realtime") else now

    def step_realtime(self, seconds):
        with self.lock:
            delta = round(seconds * 1e9)
            self.realtime_step_ns += delta
            for dev in self.devices.values():
                if dev.enabled and dev.clock_name.startswith("realtime"):
                    dev.anchor_stamp += delta
        self.event("clockstep", None, seconds=seconds)

    # ---- control file --------------------------------------------------
    def command(self, text):
        """Handles writes to control/command (one command per line)."""
        for line in text.splitlines():
            words = line.split()
            if not words:
                continue
            verb, rest = words[0], words[1:]
            try:
                secs = float(rest[1]) if len(rest) > 1 else None
            except ValueError:
                raise OSError(errno.EINVAL, "bad seconds")
            if verb == "unplug" and rest:
                self.unplug(self.resolve(rest[0]), secs)
            elif verb == "replug" and rest:
                self.plug(self.resolve(rest[0]))
            elif verb == "stall" and rest:
                self.stall(rest[0], secs)
            elif verb == "resume" and rest:
                self.resume(rest[0])
            elif verb == "debug_hang" and secs is None and rest:
                # Self-test only: wedge the FUSE server (and driver) for N s,
                # to prove the harness can still tear everything down.
                self.log("debug_hang %s s" % rest[0])
                time.sleep(float(rest[0]))
            elif verb == "clockstep" and len(rest) == 1:
                try:
                    self.step_realtime(float(rest[0]))
                except ValueError:
                    raise OSError(errno.EINVAL, "bad seconds")
            elif verb == "log":
                self.log("client: " + " ".join(rest))
            else:
                raise OSError(errno.EINVAL, "unknown command %r" % line)

    def status(self):
        with self.lock:
            devs = {}
            for dev_id, spec in self.specs.items():
                if dev_id in self.devices:
                    devs[dev_id] = self.devices[dev_id].status()
                else:
                    until = self.unplugged.get(dev_id, math.inf)
                    devs[dev_id] = {"id": dev_id, "name": spec["name"], "present": False,
                                    "replug_in_s": None if until == math.inf
                                    else max(0.0, until - time.monotonic())}
            return {"scenario": self.scenario, "pid": os.getpid(),
                    "monotonic_ns": time.monotonic_ns(), "realtime_ns": time.time_ns(),
                    "devices": devs, "events": self.events[-50:]}

    # ---- the driver thread ---------------------------------------------
    def run(self):
        with self.cond:
            while not self.stopping:
                now_s = time.monotonic()
                for t in [t for t in self.timers if t[0] <= now_s]:
                    self.timers.remove(t)
                    try:
                        t[2]()
                    except Exception as e:      # keep the driver alive
                        self.log("timer %s failed: %r" % (t[1], e))
                nexts = [t[0] * 1e9 for t in self.timers]
                now = time.monotonic_ns()
                for dev in list(self.devices.values()):
                    n = dev.pump(now)
                    if n is not None:
                        nexts.append(n)
                    elif dev.stalled_until not in (None, math.inf):
                        nexts.append(dev.stalled_until * 1e9)
                wait = (min(nexts) - time.monotonic_ns()) / 1e9 if nexts else 1.0
                # Always release the lock for a moment (even when behind), so
                # the FUSE thread and control writes are never starved.
                self.cond.wait(min(max(wait, 0.0002), 1.0))

    def start(self):
        for dev_id in self.specs:
            self.plug(dev_id)
        self.thread = threading.Thread(target=self.run, name="fake-iio-driver", daemon=True)
        self.thread.start()

    def stop(self):
        self.stopping = True
        # Do not wait forever for a wedged thread: the threads are daemons
        # and die with the process anyway.
        if not self.rlock.acquire(timeout=2):
            self.log("driver lock busy at shutdown; not waiting")
            return
        try:
            for dev in self.devices.values():
                dev.stop_stream("shutdown")
            self.cond.notify_all()
        finally:
            self.rlock.release()


CONTROL_HELP = """\
fake-iio control: write one command per line to this file.
  unplug DEV [SECONDS]   remove DEV (sysfs dir + /dev node), replug after SECONDS
                         (omitted: stays unplugged until 'replug DEV')
  replug DEV             plug DEV back now (same id, default settings)
  stall DEV [SECONDS]    keep DEV but stop producing samples
  resume DEV             end a stall
  log TEXT               write TEXT to the harness log
  debug_hang SECONDS     (self-test only) wedge the fake kernel for SECONDS
DEV: iio:device0 | device0 | 0 | bmi160 (the device name)
Invalid commands fail the write with EINVAL; unknown devices with ENODEV.
"""


# ============================================================================
# 6. FUSE SERVER: the kernel's /dev/fuse protocol (7.x), pure Python.
# ============================================================================

FUSE_LOOKUP, FUSE_FORGET, FUSE_GETATTR, FUSE_SETATTR, FUSE_READLINK = 1, 2, 3, 4, 5
FUSE_MKNOD, FUSE_MKDIR, FUSE_UNLINK, FUSE_RMDIR, FUSE_RENAME, FUSE_LINK = 8, 9, 10, 11, 12, 13
FUSE_SYMLINK = 6
FUSE_OPEN, FUSE_READ, FUSE_WRITE, FUSE_STATFS, FUSE_RELEASE = 14, 15, 16, 17, 18
FUSE_FLUSH, FUSE_INIT, FUSE_OPENDIR, FUSE_READDIR, FUSE_RELEASEDIR = 25, 26, 27, 28, 29
FUSE_CREATE, FUSE_INTERRUPT, FUSE_DESTROY, FUSE_BATCH_FORGET, FUSE_RENAME2 = 35, 36, 38, 42, 45
FUSE_IOCTL, FUSE_POLL = 39, 40
FUSE_POLL_SCHEDULE_NOTIFY, FUSE_NOTIFY_POLL = 1, 1
POLLIN, POLLRDNORM = 0x1, 0x40
FOPEN_DIRECT_IO, FOPEN_NONSEEKABLE = 1, 4
FUSE_ATOMIC_O_TRUNC, FUSE_BIG_WRITES = 1 << 3, 1 << 5

IN_HEADER = struct.Struct("<IIQQIIIHH")      # 40 bytes
OUT_HEADER = struct.Struct("<IiQ")           # 16 bytes
ATTR = struct.Struct("<QQQQQQIIIIIIIIII")   # 88 bytes
ENTRY_OUT_HEAD = struct.Struct("<QQQQII")    # + ATTR = 128
ATTR_OUT_HEAD = struct.Struct("<QII")        # + ATTR = 104
RW_IN = struct.Struct("<QQIIQII")            # fuse_read_in / fuse_write_in, 40 bytes
OPEN_OUT = struct.Struct("<QII")
INIT_OUT = struct.Struct("<IIIIHHIIHHI7I")   # 64 bytes
DIRENT = struct.Struct("<QQII")
KSTATFS = struct.Struct("<QQQQQIIII6I")      # 80 bytes

MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 4096, 8192, 16384, 1 << 18
MNT_FORCE, MNT_DETACH = 1, 2

_libc = ctypes.CDLL(None, use_errno=True)


def sys_mount(src, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else os.fsencode(s)
    if _libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount(%s -> %s, %s): %s" % (src, target, fstype, os.strerror(e)))


def sys_umount(target, flags=MNT_DETACH):
    if _libc.umount2(os.fsencode(target), flags) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "umount2(%s): %s" % (target, os.strerror(e)))


class Handle:
    def __init__(self, node):
        self.node, self.data, self.entries = node, None, None


class Deferred:
    """A read answered later: rendered and sent at monotonic time `due`."""

    def __init__(self, due, handle, offset, size):
        self.due, self.handle, self.offset, self.size = due, handle, offset, size


class FuseServer:
    """Serves Hub.root.  One thread reads requests; every handler runs under
    hub.lock and never blocks (the only I/O it does is on FIFOs,
    non-blocking).  A read that a real driver answers late (a one-shot
    sensor's `_raw`) is answered by a second thread at its due time, so
    other files are served meanwhile, as the kernel serves them."""

    def __init__(self, hub, mountpoint):
        self.hub, self.mountpoint = hub, mountpoint
        self.nodes = {}
        for n in walk(hub.root):
            self.nodes[n.nodeid] = n
        self.handles, self.next_fh = {}, 1
        self.fd = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
        sys_mount("fake-iio", mountpoint, "fuse.fake-iio", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other" % self.fd)
        hub.notify_poll = self.notify_poll
        self.deferred, self.deferred_wake = [], threading.Event()   # heap of (due, unique, Deferred)
        threading.Thread(target=self.answer_deferred, name="fake-iio-deferred", daemon=True).start()
        self.thread = threading.Thread(target=self.loop, name="fake-iio-fuse", daemon=True)
        self.thread.start()

    def notify_poll(self, kh):
        """FUSE_NOTIFY_POLL: wakes a poll() waiting on handle kh."""
        try:
            os.write(self.fd, OUT_HEADER.pack(OUT_HEADER.size + 8, FUSE_NOTIFY_POLL, 0) + struct.pack("<Q", kh))
        except OSError:
            pass

    def abort(self):
        """Abort the FUSE connection (umount2 MNT_FORCE calls the kernel's
        fuse_abort_conn): every request in flight fails with ENOTCONN.  A
        process waiting for a FLUSH reply is in uninterruptible sleep, so this
        is the only way to free it if the server ever stops answering."""
        try:
            sys_umount(self.mountpoint, MNT_FORCE)
        except OSError:
            pass

    # every node ever handed to the kernel must stay resolvable until FORGET
    def remember(self, node):
        self.nodes[node.nodeid] = node
        node.nlookup += 1

    def forget(self, nodeid, n):
        node = self.nodes.get(nodeid)
        if node is not None and nodeid != 1:
            node.nlookup -= n
            if node.nlookup <= 0 and not node.alive:
                del self.nodes[nodeid]

    def attr(self, node):
        if isinstance(node, Dir):
            size, nlink = 0, 2
        else:
            size, nlink = 4096, 1      # sysfs reports 4096 for attributes
        sec = int(node.mtime)
        nsec = int((node.mtime - sec) * 1e9)
        return ATTR.pack(node.nodeid, size, 0, sec, sec, sec, nsec, nsec, nsec,
                         node.mode, nlink, 0, 0, 0, 4096, 0)

    def loop(self):
        buf = bytearray((1 << 20) + 8192)
        while True:
            try:
                n = os.readv(self.fd, [buf])
            except OSError as e:
                if e.errno in (errno.EINTR, errno.EAGAIN, errno.ENOENT):
                    continue
                return        # ENODEV: unmounted
            if n == 0:
                return
            req = bytes(buf[:n])
            length, opcode, unique, nodeid, uid, gid, pid, _, _ = IN_HEADER.unpack_from(req)
            body = req[IN_HEADER.size:length]
            with self.hub.lock:
                try:
                    reply = self.dispatch(opcode, nodeid, body)
                except OSError as e:
                    reply = -(e.errno or errno.EIO)
                except Exception as e:   # a bug must not hang the reader
                    self.hub.log("fuse: opcode %d failed: %r" % (opcode, e))
                    reply = -errno.EIO
            if reply is None:            # FORGET & co: no reply
                continue
            if isinstance(reply, Deferred):
                self.defer(unique, reply)
                continue
            self.send(unique, reply)

    def send(self, unique, reply):
        """One reply: an errno (negative int) or the bytes of a success.  A
        reply is one write(), so the deferred thread may send them too."""
        if isinstance(reply, int):
            out = OUT_HEADER.pack(OUT_HEADER.size, reply, unique)
        else:
            out = OUT_HEADER.pack(OUT_HEADER.size + len(reply), 0, unique) + reply
        try:
            os.write(self.fd, out)
        except OSError:
            pass                     # request was interrupted

    def defer(self, unique, deferred):
        """Queue a reply for its due time."""
        with self.hub.lock:
            heapq.heappush(self.deferred, (deferred.due, unique, deferred))
            self.deferred_wake.set()

    def answer_deferred(self):
        """Sends each deferred read's reply when it is due, rendered then (the
        value a one-shot driver reads at the end of its wait)."""
        while True:
            with self.hub.lock:
                now = time.monotonic()
                ready = []
                while self.deferred and self.deferred[0][0] <= now:
                    ready.append(heapq.heappop(self.deferred))
                next_due = self.deferred[0][0] if self.deferred else None
                self.deferred_wake.clear()
                for _, unique, d in ready:
                    try:
                        d.handle.data = d.handle.node.content()
                        reply = d.handle.data[d.offset:d.offset + d.size]
                    except OSError as e:
                        reply = -(e.errno or errno.EIO)
                    self.send(unique, reply)
            self.deferred_wake.wait(None if next_due is None else max(0.0, next_due - time.monotonic()))

    def node(self, nodeid, alive=True):
        node = self.nodes.get(nodeid)
        if node is None or (alive and not node.alive):
            raise OSError(errno.ENOENT, "stale")
        return node

    def dispatch(self, op, nodeid, body):
        if op == FUSE_INIT:
            major, minor, max_readahead, flags = struct.unpack_from("<IIII", body)
            if major != 7:
                return INIT_OUT.pack(7, 38, 0, 0, 0, 0, 0, 0, 0, 0, 0, *([0] * 7))
            return INIT_OUT.pack(7, min(minor, 38), max_readahead,
                                 flags & (FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES),
                                 16, 12, 65536, 1, 0, 0, 0, *([0] * 7))
        if op == FUSE_LOOKUP:
            parent = self.node(nodeid)
            name = body.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
            child = parent.children.get(name) if isinstance(parent, Dir) else None
            if child is None:
                raise OSError(errno.ENOENT, name)
            self.remember(child)
            # zero cache timeouts: every path walk reaches us, so an unplug is
            # visible immediately (like kernfs dentry revalidation).
            return ENTRY_OUT_HEAD.pack(child.nodeid, 0, 0, 0, 0, 0) + self.attr(child)
        if op == FUSE_FORGET:
            self.forget(nodeid, struct.unpack_from("<Q", body)[0])
            return None
        if op == FUSE_BATCH_FORGET:
            count = struct.unpack_from("<I", body)[0]
            for i in range(count):
                nid, n = struct.unpack_from("<QQ", body, 8 + 16 * i)
                self.forget(nid, n)
            return None
        if op in (FUSE_GETATTR, FUSE_SETATTR):
            node = self.node(nodeid, alive=False)
            if op == FUSE_SETATTR and not node.alive:
                raise OSError(errno.ENOENT, "gone")
            return ATTR_OUT_HEAD.pack(0, 0, 0) + self.attr(node)
        if op in (FUSE_OPEN, FUSE_OPENDIR):
            node = self.node(nodeid)
            flags = struct.unpack_from("<I", body)[0]
            acc = flags & os.O_ACCMODE
            if op == FUSE_OPEN:
                if isinstance(node, Dir):
                    raise OSError(errno.EISDIR, "dir")
                # kernfs refuses to open for writing an attribute without a
                # store() (even for root) with EACCES, and vice versa.
                if acc in (os.O_WRONLY, os.O_RDWR) and not node.writable:
                    raise OSError(errno.EACCES, "read-only attribute")
                if acc in (os.O_RDONLY, os.O_RDWR) and not node.readable:
                    raise OSError(errno.EACCES, "write-only attribute")
                if isinstance(node, Chardev):
                    node.open()
            fh = self.next_fh
            self.next_fh += 1
            self.handles[fh] = Handle(node)
            flags = FOPEN_DIRECT_IO | (FOPEN_NONSEEKABLE if isinstance(node, Chardev) else 0)
            return OPEN_OUT.pack(fh, flags if op == FUSE_OPEN else 0, 0)
        if op == FUSE_READ:
            fh, offset, size = RW_IN.unpack_from(body)[:3]
            h = self.handles.get(fh)
            if h is None:
                raise OSError(errno.EBADF, "fh")
            if isinstance(h.node, Chardev):
                if not h.node.alive:
                    raise OSError(errno.ENODEV, "device removed")
                return h.node.device.read_chardev(size)
            if offset == 0 or h.data is None:   # like seq_file: render at offset 0
                due = h.node.due() if h.node.due else None
                if due is not None:
                    return Deferred(due, h, offset, size)
                h.data = h.node.content()
            return h.data[offset:offset + size]
        if op == FUSE_WRITE:
            fh, offset, size = RW_IN.unpack_from(body)[:3]
            h = self.handles.get(fh)
            if h is None:
                raise OSError(errno.EBADF, "fh")
            data = body[RW_IN.size:RW_IN.size + size]
            if isinstance(h.node, Chardev):
                raise OSError(errno.EINVAL, "input buffers only")
            h.node.write(data)                 # each write() is one store()
            h.data = None
            return struct.pack("<II", len(data), 0)
        if op in (FUSE_RELEASE, FUSE_RELEASEDIR):
            h = self.handles.pop(struct.unpack_from("<Q", body)[0], None)
            if h is not None and isinstance(h.node, Chardev):
                h.node.release()
            return b""
        if op == FUSE_POLL:
            fh, kh, flags, _events = struct.unpack_from("<QQII", body)
            h = self.handles.get(fh)
            if h is None or not isinstance(h.node, Chardev):
                raise OSError(errno.ENOSYS, "poll only on character devices")
            dev = h.node.device
            if not h.node.alive:
                # iio_buffer_poll after unregister: no events, so a reader
                # waits for its timeout (libiio: -ETIMEDOUT), as on a real unplug.
                return struct.pack("<II", 0, 0)
            # iio_buffer_poll: readable once a watermark's worth is in (iio_buffer_ready).
            if dev.data_available() >= max(1, dev.watermark):
                return struct.pack("<II", POLLIN | POLLRDNORM, 0)
            if flags & FUSE_POLL_SCHEDULE_NOTIFY:
                dev.pollers.add(kh)
            return struct.pack("<II", 0, 0)
        if op == FUSE_IOCTL:
            raise OSError(errno.ENOTTY, "no IIO block ioctls")
        if op == FUSE_FLUSH:
            return b""
        if op == FUSE_READDIR:
            fh, offset, size = RW_IN.unpack_from(body)[:3]
            h = self.handles.get(fh)
            if h is None:
                raise OSError(errno.EBADF, "fh")
            if h.entries is None:              # snapshot at first read
                d = h.node
                parent = d.parent or d
                h.entries = [(d.nodeid, ".", 4), (parent.nodeid, "..", 4)] + [
                    (c.nodeid, c.name, 4 if isinstance(c, Dir) else 8)
                    for c in d.children.values()]
            out = bytearray()
            for i in range(offset, len(h.entries)):
                ino, name, dtype = h.entries[i]
                nb = name.encode()
                rec = DIRENT.pack(ino, i + 1, len(nb), dtype) + nb
                rec += b"\0" * (-len(rec) % 8)
                if len(out) + len(rec) > size:
                    break
                out += rec
            return bytes(out)
        if op == FUSE_STATFS:
            return KSTATFS.pack(0, 0, 0, 0, 0, 4096, 255, 4096, 0, *([0] * 6))
        if op in (FUSE_CREATE, FUSE_MKNOD):
            raise OSError(errno.EACCES, "sysfs does not create files")
        if op in (FUSE_MKDIR, FUSE_UNLINK, FUSE_RMDIR, FUSE_RENAME, FUSE_RENAME2,
                  FUSE_LINK, FUSE_SYMLINK):
            raise OSError(errno.EPERM, "read-only tree")
        if op == FUSE_INTERRUPT:
            return None
        if op == FUSE_DESTROY:
            return b""
        raise OSError(errno.ENOSYS, "unsupported")


# ============================================================================
# 7. TMPFS BACK END (fallback when /dev/fuse is unusable).  The model is
#    written out as plain files; inotify applies writes about 2 ms later.
# ============================================================================

class TmpfsMirror:
    """Writes the model out as plain files and watches them with inotify
    (IN_CLOSE_WRITE): a client's write is applied to the model right after
    the client closes the file, then every file is re-rendered.  Values that
    change by themselves (_raw, data_available, status) are refreshed
    periodically.  Unlike FUSE, a read-back immediately after a write can
    still see the client's own text, and a rejected write cannot return an
    errno (the old value is simply restored)."""

    REFRESH_S = 0.01       # _raw / data_available refresh (the polled sensor's 100 Hz)
    IN_CLOSE_WRITE, IN_NONBLOCK, IN_CLOEXEC = 0x8, 0o4000, 0o2000000

    def __init__(self, hub, path, watch=True):
        self.hub, self.path = hub, path
        self.written = {}       # file path -> bytes we last wrote
        self.watches = {}       # wd -> directory path
        self.ifd = None
        if watch:
            self.ifd = _libc.inotify_init1(self.IN_NONBLOCK | self.IN_CLOEXEC)
            if self.ifd < 0:
                raise OSError(ctypes.get_errno(), "inotify_init1")
        hub.on_change.append(self.sync_tree)
        self.sync_tree()
        if watch:
            self.thread = threading.Thread(target=self.loop, name="fake-iio-tmpfs", daemon=True)
            self.thread.start()

    def sync_tree(self):
        """Make the directory mirror the model (called with hub.lock held)."""
        with self.hub.lock:
            self._sync(self.hub.root, self.path)

    def _sync(self, node, path):
        if isinstance(node, Dir):
            if not os.path.isdir(path):
                os.makedirs(path)
            if self.ifd is not None and path not in self.watches.values():
                wd = _libc.inotify_add_watch(self.ifd, os.fsencode(path), self.IN_CLOSE_WRITE)
                if wd >= 0:
                    self.watches[wd] = path
            want = set(node.children)
            for name in os.listdir(path):
                if name not in want:
                    self._rmtree(os.path.join(path, name))
            for child in node.children.values():
                self._sync(child, os.path.join(path, child.name))
        else:
            self._render(node, path)

    def _rmtree(self, p):
        if os.path.isdir(p) and not os.path.islink(p):
            for name in os.listdir(p):
                self._rmtree(os.path.join(p, name))
            os.rmdir(p)     # its inotify watch disappears with it (IN_IGNORED)
            self.watches = {wd: d for wd, d in self.watches.items()
                            if d != p and not d.startswith(p + "/")}
        else:
            os.unlink(p)
        self.written = {k: v for k, v in self.written.items()
                        if k != p and not k.startswith(p + "/")}

    def _render(self, node, path):
        try:
            data = node.content() if node.readable else b""
        except OSError:
            data = b""
        if self.written.get(path) != data:
            tmp = path + ".tmp~"
            with open(tmp, "wb") as f:
                f.write(data)
            os.chmod(tmp, (node.mode & 0o777) | (0o200 if node.writable else 0))
            os.rename(tmp, path)        # readers never see a half-written value
            self.written[path] = data

    def _node_at(self, path):
        rel = os.path.relpath(path, self.path)
        node = self.hub.root
        for part in rel.split(os.sep):
            node = node.children.get(part) if isinstance(node, Dir) else None
            if node is None:
                return None
        return node

    def loop(self):
        self.last_refresh = 0.0
        while not self.hub.stopping:
            try:
                self._tick()
            except OSError as e:
                if self.hub.stopping:
                    return      # tree unmounted during teardown
                self.hub.log("tmpfs: %r" % e)
                time.sleep(0.1)

    def _tick(self):
        readable, _, _ = select.select([self.ifd], [], [], self.REFRESH_S)
        with self.hub.lock:
            if readable:
                self._events()
            now = time.monotonic()
            if now - self.last_refresh < self.REFRESH_S:
                return
            status_due = int(now * 10) != int(self.last_refresh * 10)    # 10 Hz
            self.last_refresh = now
            for node in list(walk(self.hub.root)):
                if (node.name.endswith("_raw") or node.name == "data_available"
                        or (node.name == "status" and status_due)):
                    p = self._path_of(node)
                    if p:
                        self._render(node, p)

    def _path_of(self, node):
        parts = []
        while node is not None and node.name != "":
            parts.append(node.name)
            node = node.parent
        return os.path.join(self.path, *reversed(parts)) if node is not None else None

    def _read_events(self):
        """Drain the inotify queue: [(dir, name)] in order of last occurrence.
        A burst (libiio's buffer open writes ~10 files in < 1 ms) is collected
        for 2 ms first; since a file is read when we process it, not when it
        was written, only the last event per file is meaningful and the order
        of last writes is what matters (scan_elements/*_en before enable)."""
        order = []
        deadline = time.monotonic() + 0.002
        while True:
            if not self._drain_into(order) and time.monotonic() >= deadline:
                return order
            time.sleep(0.0005)

    def _drain_into(self, order):
        """Adds what the inotify queue holds now to `order` (a file written
        again moves to the end); True if there was anything."""
        try:
            buf = os.read(self.ifd, 65536)
        except BlockingIOError:
            return False
        off = 0
        while off < len(buf):
            wd, _mask, _cookie, ln = struct.unpack_from("iIII", buf, off)
            name = buf[off + 16:off + 16 + ln].split(b"\0", 1)[0].decode()
            off += 16 + ln
            d = self.watches.get(wd)
            if d is None or not name or name.endswith(".tmp~"):
                continue
            key = (d, name)
            if key in order:
                order.remove(key)
            order.append(key)
        return True

    def _read_contents(self, order):
        """The files' texts now, for the events in `order`.  A text read here
        may come from a write after the burst closed (libiio writing
        buffer/enable=1 while we read it); every write before that one has
        its event queued by then, so the queue is drained again, and the
        files read again, until it is empty: the order of last writes then
        matches the texts (the scan elements before the enable)."""
        while True:
            contents = {}
            for d, name in order:
                path = os.path.join(d, name)
                try:
                    with open(path, "rb") as f:
                        contents[(d, name)] = f.read()
                except OSError:
                    continue
            if not self._drain_into(order):
                return contents

    def _apply(self, item):
        node, path, data = item
        try:
            node.write(data)
        except OSError:
            return False
        self.written[path] = None          # force re-render
        return True

    def _events(self):
        """Apply the client writes of one burst (see _read_events)."""
        pending, changed = [], False
        order = self._read_events()
        contents = self._read_contents(order)
        for d, name in order:
            path = os.path.join(d, name)
            node = self._node_at(path)
            if not isinstance(node, Attr) or (d, name) not in contents:
                continue
            data = contents[(d, name)]
            if data and data != self.written.get(path):
                pending.append((node, path, data))
        # Apply in order; a rejected write is retried after every later
        # success (e.g. watermark=25 waits for length=100).  What is still
        # rejected at the end is restored to the model's value.
        rejected = []
        for item in pending:
            if not self._apply(item):
                rejected.append(item)
                continue
            changed = True
            progress = True
            while progress and rejected:
                progress = False
                for r in list(rejected):
                    if self._apply(r):
                        rejected.remove(r)
                        progress = True
        for node, path, data in rejected:
            try:
                node.write(data)
            except OSError as e:
                self.hub.log("tmpfs: write %r to %s rejected: %s" % (data, path, e))
            self.written[path] = None      # re-render: restores the model's value
            changed = True
        if changed:
            self._sync(self.hub.root, self.path)


# ============================================================================
# 8. THE SUPERVISOR (`run`): mounts, driver, iiod, the command, teardown.
# ============================================================================

def pdeathsig():
    """preexec_fn: die with SIGKILL when the harness dies (PR_SET_PDEATHSIG),
    at the normal nice 0 (the fake kernel itself runs at -10)."""
    _libc.prctl(1, signal.SIGKILL, 0, 0, 0)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    except OSError:
        pass


def mount_ns_is_private():
    """True when our mount namespace differs from our parent's (the
    run_in_fake_kernel.sh shell, outside).  Guards against mounting over the
    host's /dev and /sys/bus if fake_iio.py run is started by hand."""
    try:
        mine = os.stat("/proc/self/ns/mnt").st_ino
        parent = os.stat("/proc/%d/ns/mnt" % os.getppid()).st_ino
    except OSError:
        return False
    return mine != parent


def replicate_dir(src, dst):
    """Populate tmpfs `dst` with bind mounts of every entry of `src` (devices,
    sockets, directories with their submounts) and copies of its symlinks, so
    that /dev/null, /dev/pts, /dev/shm... keep working once dst replaces src."""
    for entry in os.scandir(src):
        s, d = entry.path, os.path.join(dst, entry.name)
        try:
            if entry.is_symlink():
                os.symlink(os.readlink(s), d)
            elif entry.is_dir(follow_symlinks=False):
                os.mkdir(d, 0o755)
                sys_mount(s, d, None, MS_BIND | MS_REC)
            else:
                open(d, "w").close()
                sys_mount(s, d, None, MS_BIND)
        except OSError as e:
            print("fake-iio: warning: cannot replicate %s: %s" % (s, e), file=sys.stderr)


class Skip(Exception):
    """The environment cannot host the fake kernel: exit 77."""


def setup_mounts(hub, work, backend, log, chardev="fuse"):
    """Private /dev and /sys/bus with our iio bus inside.  Returns the
    control directory path and the FuseServer (None with tmpfs).  Must run
    in a private mount namespace."""
    if not mount_ns_is_private():
        raise Skip("refusing to mount: not in a private mount namespace "
                   "(run through run_in_fake_kernel.sh)")
    try:
        sys_mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError as e:
        raise Skip("cannot make mounts private: %s" % e)
    fusemnt = os.path.join(work, "fs")
    os.makedirs(fusemnt, exist_ok=True)
    server = None
    if backend in ("auto", "fuse"):
        try:
            server = FuseServer(hub, fusemnt)
            os.stat(os.path.join(fusemnt, "iio", "devices"))    # round trip
            log("backend: fuse at %s" % fusemnt)
        except OSError as e:
            if backend == "fuse":
                raise Skip("FUSE unavailable: %s" % e)
            print("fake-iio: FUSE unavailable (%s); falling back to tmpfs "
                  "(attribute writes are applied asynchronously)" % e, file=sys.stderr)
            server = None
    if server is None:
        try:
            sys_mount("fake-iio", fusemnt, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755")
        except OSError as e:
            raise Skip("cannot mount tmpfs: %s" % e)
        TmpfsMirror(hub, fusemnt)
        log("backend: tmpfs mirror at %s" % fusemnt)

    if server is not None and chardev == "fuse":
        # The kfifo pipes move out of /dev; /dev/iio:deviceN becomes a link to
        # the FUSE character device, which enforces the kernel's open rules.
        # (--chardev fifo leaves the FIFOs in /dev: no open rules, but poll and
        # read happen in the kernel with no round trip to this server, as on a
        # real device: what a wake-up count needs.)
        hub.fifo_dir = os.path.join(work, "kfifo")
        os.makedirs(hub.fifo_dir, exist_ok=True)
        hub.chardev_target = os.path.join(fusemnt, "chardev")

    # /dev: a tmpfs replicating the real /dev plus our FIFOs.
    newdev = os.path.join(work, "dev")
    os.makedirs(newdev, exist_ok=True)
    sys_mount("fake-iio-dev", newdev, "tmpfs", MS_NOSUID, "mode=755")
    replicate_dir("/dev", newdev)
    sys_mount(newdev, "/dev", None, MS_MOVE)

    # /sys/bus: a tmpfs replicating the real buses plus "iio" from our tree.
    newbus = os.path.join(work, "bus")
    os.makedirs(newbus, exist_ok=True)
    sys_mount("fake-iio-bus", newbus, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755")
    replicate_dir("/sys/bus", newbus)
    if not os.path.isdir(os.path.join(newbus, "iio")):
        os.mkdir(os.path.join(newbus, "iio"))
    sys_mount(os.path.join(fusemnt, "iio"), os.path.join(newbus, "iio"), None, MS_BIND)
    sys_mount(newbus, "/sys/bus", None, MS_MOVE)
    return os.path.join(fusemnt, "control"), server


def wait_port(port, timeout, process=None):
    """Wait until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def processes_in_my_mount_ns():
    me = os.getpid()
    mine = os.stat("/proc/self/ns/mnt").st_ino
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me:
            try:
                if os.stat("/proc/%s/ns/mnt" % name).st_ino == mine:
                    pids.append(int(name))
            except OSError:
                pass
    return pids


def kill_leftovers(log, before_kill=None):
    """Everything still in our private mount namespace was started by us (the
    command's descendants, iiod): TERM, wait 2 s, then KILL.  `before_kill`
    runs before the KILL round (it aborts the FUSE connection so a process
    stuck in an uninterruptible FUSE request can die)."""
    pids = processes_in_my_mount_ns()
    if not pids:
        return
    log("terminating leftover processes %s" % pids)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if sig == signal.SIGKILL and before_kill:
            before_kill()
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            for pid in list(pids):
                try:
                    if os.waitpid(pid, os.WNOHANG)[0]:
                        pids.remove(pid)
                        continue
                except ChildProcessError:
                    pass
                if not os.path.exists("/proc/%d" % pid):
                    pids.remove(pid)
            if not pids:
                return
            time.sleep(0.05)
    if pids:
        log("processes %s did not die" % pids)


def cmd_run(args):
    if os.geteuid() != 0:
        print("fake-iio: SKIP: needs root", file=sys.stderr)
        return 77
    # The emulated kernel's work (every sysfs read goes through this Python
    # FUSE server) runs ahead of user processes, as a kernel's does: at nice
    # -10, set before any thread starts (Linux threads inherit it). COMMAND
    # and iiod go back to nice 0 (pdeathsig). Without it, on a loaded 2-core
    # machine the server can be descheduled long enough to make 0.1 s holes in
    # a 50 Hz poll that no real kernel would make.
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
    except OSError:
        pass
    work = os.path.abspath(args.workdir)
    log_file = open(args.log or os.path.join(work, "driver.log"), "a")
    hub = Hub(args.scenario, "/dev", log_file, args.verbose)
    log = hub.log
    try:
        unplug_dev = hub.resolve(args.unplug_device)
    except OSError:
        print("fake-iio: --unplug-device %s: no such device in scenario %s (%s)" % (
            args.unplug_device, args.scenario, ", ".join(
                "%s=%s" % (k, v["name"]) for k, v in hub.specs.items())), file=sys.stderr)
        return 64
    try:
        control, server = setup_mounts(hub, work, args.backend, log, args.chardev)
    except Skip as e:
        print("fake-iio: SKIP: %s" % e, file=sys.stderr)
        return 77
    hub.start()
    truth_path = os.path.join(work, "truth.json")
    with open(truth_path, "w") as f:
        f.write(dumps_truth(truth_for(args.scenario)) + "\n")

    env = dict(os.environ)
    env.update({"FAKE_IIO_SCENARIO": args.scenario, "FAKE_IIO_TRUTH": truth_path,
                "FAKE_IIO_CONTROL": os.path.join(control, "command"),
                "FAKE_IIO_STATUS": os.path.join(control, "status"),
                "FAKE_IIO_PID": str(os.getpid()), "FAKE_IIO_URI": "local:"})
    # A runtime directory of this run's own (HeadsUp keeps its buffer ownership
    # records there): concurrent runs must not share the host's /run/headsup,
    # whose records would name another run's devices.
    if "RUNTIME_DIRECTORY" not in env:
        env["RUNTIME_DIRECTORY"] = os.path.join(work, "run")
        os.makedirs(env["RUNTIME_DIRECTORY"], exist_ok=True)
    env.pop("IIOD_REMOTE", None)
    iiod = None
    if args.iiod:
        # A fresh network namespace (unshare -n) has only lo, and it is down.
        if subprocess.run(["ip", "link", "set", "lo", "up"]).returncode != 0:
            print("fake-iio: SKIP: cannot bring up lo in the network namespace",
                  file=sys.stderr)
            return 77
        iiod = subprocess.Popen(["iiod"], stdin=subprocess.DEVNULL, stdout=log_file,
                                stderr=log_file, preexec_fn=pdeathsig)
        if not wait_port(30431, 10, iiod):
            print("fake-iio: iiod did not start listening on 127.0.0.1:30431 "
                  "(use --log FILE to keep its output)", file=sys.stderr)
            iiod.kill()
            return 70
        log("iiod pid %d listening on 127.0.0.1:30431" % iiod.pid)
        # libiio's iio_create_default_context() uses $IIOD_REMOTE as a URI.
        env.update({"FAKE_IIO_URI": "ip:127.0.0.1", "IIOD_REMOTE": "ip:127.0.0.1"})


    def sigusr1(_s, _f):
        try:
            hub.unplug(unplug_dev, args.unplug_for)
        except OSError as e:
            log("SIGUSR1: %s" % e)

    def sigusr2(_s, _f):
        for dev_id in list(hub.unplugged):
            hub.plug(dev_id)

    signal.signal(signal.SIGUSR1, sigusr1)
    signal.signal(signal.SIGUSR2, sigusr2)
    if args.unplug_at is not None:
        hub.schedule(args.unplug_at, "unplug " + unplug_dev,
                     lambda: hub.unplug(unplug_dev, args.unplug_for))

    log("running %s" % args.command)
    try:
        child = subprocess.Popen(args.command, env=env, preexec_fn=pdeathsig)
    except OSError as e:
        print("fake-iio: cannot run %s: %s" % (args.command[0], e), file=sys.stderr)
        return 127

    # Escalation after a forwarded TERM/INT/HUP/QUIT: the command gets 5 s to
    # exit, then SIGKILL; if it is still there 2 s later it can only be stuck
    # in an uninterruptible FUSE request, so the file system is aborted.
    escalate = {"kill_at": None, "abort_at": None}

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except OSError:
            pass
        if escalate["kill_at"] is None:
            escalate["kill_at"] = time.monotonic() + 5.0

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, forward)

    def abort_fs():
        if server is not None:
            log("aborting the FUSE connection")
            server.abort()

    rc = None
    while rc is None:
        try:
            rc = child.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            now = time.monotonic()
            if escalate["kill_at"] is not None and now >= escalate["kill_at"]:
                log("command ignored the signal for 5 s: SIGKILL")
                child.kill()
                escalate["kill_at"] = math.inf
                escalate["abort_at"] = now + 2.0
            if escalate["abort_at"] is not None and now >= escalate["abort_at"]:
                abort_fs()
                escalate["abort_at"] = None
    status = rc if rc >= 0 else 128 - rc
    log("command exited with status %d" % status)

    # ---- teardown ----
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT,
              signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(s, signal.SIG_IGN)
    if iiod is not None:
        # iiod 0.24 joins its avahi thread on SIGTERM; without avahi/D-Bus
        # that thread sleeps 1+2+...+10 s between retries, so a TERM can take
        # ~55 s.  It holds no state worth a graceful exit: KILL after 0.5 s.
        iiod.terminate()
        try:
            iiod.wait(0.5)
        except subprocess.TimeoutExpired:
            iiod.kill()
            iiod.wait()
    kill_leftovers(log, before_kill=abort_fs)
    hub.stop()
    for target in ("/sys/bus", "/dev", os.path.join(work, "fs")):
        try:
            sys_umount(target)
        except OSError:
            pass
    log_file.flush()
    return status


# ============================================================================
# 9. OFFLINE HELPERS: truth, verify, scenarios, materialize.
# ============================================================================

def cmd_truth(args):
    doc = ({"schema": TRUTH_SCHEMA, "scenarios": {s: truth_for(s) for s in SCENARIOS}}
           if args.all else truth_for(args.scenario))
    text = dumps_truth(doc) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def layout_for(channels):
    """[(channel-json, offset, nbytes, signed, big_endian)], sample size."""
    out, off, largest = [], 0, 1
    for c in sorted(channels, key=lambda c: c["index"]):
        spec = ChanSpec("x", None, 0, c["format"])
        off = (off + spec.nbytes - 1) // spec.nbytes * spec.nbytes
        out.append((c, off, spec))
        off += spec.nbytes
        largest = max(largest, spec.nbytes)
    return out, (off + largest - 1) // largest * largest


def decode_sample(rec, layout):
    """{channel id: integer value} for one packed sample."""
    vals = {}
    for c, off, spec in layout:
        word = int.from_bytes(rec[off:off + spec.nbytes], "big" if spec.big_endian else "little")
        word = (word >> spec.shift) & ((1 << spec.realbits) - 1)
        if spec.signed and word >> (spec.realbits - 1):
            word -= 1 << spec.realbits
        vals[c["id"]] = word
    return vals


def cmd_verify(args):
    """Decode an iio_readdev byte stream and check every sample against the truth."""
    with open(args.truth) as f:
        truth = json.load(f)
    if "scenarios" in truth:
        truth = truth["scenarios"][args.scenario]
    dev = next((d for d in truth["devices"] if args.device in (d["name"], d["id"])), None)
    if dev is None:
        print("verify: no device %s in truth" % args.device)
        return 2
    byid = {c["id"]: c for c in dev["channels"]}
    chans = [byid[c] for c in args.channels.split(",")]
    layout, size = layout_for(chans)
    data = (sys.stdin.buffer if args.input == "-" else open(args.input, "rb")).read()
    problems = []
    if len(data) % size:
        problems.append("%d bytes is not a multiple of the %d-byte sample" % (len(data), size))
    n = len(data) // size
    if n < args.samples:
        problems.append("only %d samples, expected %d" % (n, args.samples))
    ts_list, worst, decoded = [], {}, []
    for i in range(n):
        vals = decode_sample(data[i * size:(i + 1) * size], layout)
        decoded.append(vals)
        ts = vals.get("timestamp")
        if ts is not None:
            ts_list.append(ts)
        for c, _off, _spec in layout:
            if c["id"] == "timestamp":
                continue
            sig = c["signal"]
            if sig["kind"] not in ("const", "sin", "cos"):
                continue       # e.g. FAKE_IIO_SESSION playback: no closed form
            if sig["kind"] != "const" and ts is None:
                continue       # needs the timestamp to know t
            s = Signal(sig["kind"], sig["constant"], sig.get("amplitude", 0.0),
                       sig.get("frequency_hz", 0.0))
            expected_raw = to_raw(s(ts / 1e9 if ts is not None else 0.0), c["scale"])
            err = abs(vals[c["id"]] - expected_raw)
            worst[c["id"]] = max(worst.get(c["id"], 0), err)
            if err > args.raw_tolerance:
                problems.append("sample %d %s raw %d expected %d" % (
                    i, c["id"], vals[c["id"]], expected_raw))
    summary = {"samples": n, "sample_size": size, "max_raw_error": worst}
    if decoded:
        summary["first_sample"] = {
            c["id"]: decoded[0][c["id"]] if c["id"] == "timestamp"
            else round(decoded[0][c["id"]] * c["scale"], 6) for c, _, _ in layout}
    if ts_list:
        diffs = [b - a for a, b in zip(ts_list, ts_list[1:])]
        if any(d <= 0 for d in diffs):
            problems.append("timestamps not strictly increasing")
        if diffs:
            med = sorted(diffs)[len(diffs) // 2]
            rate = 1e9 / med if med > 0 else 0
            summary["rate_hz"] = round(rate, 3)
            if args.rate and abs(rate - args.rate) > 0.01 * args.rate:
                problems.append("rate %.3f Hz, expected %.3f" % (rate, args.rate))
        age = time.time() - ts_list[-1] / 1e9
        summary["last_sample_age_s"] = round(age, 3)
        if args.max_age is not None and not (-1.0 < age < args.max_age):
            problems.append("last timestamp is %.1f s old" % age)
    print("verify: " + json.dumps(summary))
    for p in problems[:10]:
        print("verify: FAIL: " + p)
    return 1 if problems else 0


def cmd_scenarios(_args):
    for name in SCENARIOS:
        print("%-22s %s" % (name, SCENARIO_HELP[name]))
    return 0


def cmd_materialize(args):
    """Write a static snapshot of the scenario's tree (FIFOs omitted) to DIR."""
    hub = Hub(args.scenario, os.path.join(args.dir, "dev"))
    os.makedirs(hub.dev_dir, exist_ok=True)
    for dev_id in hub.specs:
        hub.plug(dev_id)
    TmpfsMirror(hub, os.path.join(args.dir, "sys_bus"), watch=False)
    print(os.path.join(args.dir, "sys_bus", "iio", "devices"))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="(inside a private mount namespace) run COMMAND "
                       "against the fake kernel")
    r.add_argument("--workdir", required=True)
    r.add_argument("--scenario", default="standard", choices=sorted(SCENARIOS))
    r.add_argument("--iiod", action="store_true")
    r.add_argument("--unplug-at", type=float)
    r.add_argument("--unplug-for", type=float, default=3.0)
    r.add_argument("--unplug-device", default="iio:device0")
    r.add_argument("--backend", default="auto", choices=["auto", "fuse", "tmpfs"])
    r.add_argument("--chardev", default="fuse", choices=["fuse", "fifo"],
                   help="/dev/iio:deviceN: a FUSE file with the kernel's one-opener rule (default), "
                        "or the bare FIFO (no rules; no server round trip per poll/read, for wake-up counts)")
    r.add_argument("--log")
    r.add_argument("--verbose", action="store_true")
    r.add_argument("command", nargs=argparse.REMAINDER)
    t = sub.add_parser("truth", help="print the truth JSON")
    t.add_argument("--scenario", default="standard", choices=sorted(SCENARIOS))
    t.add_argument("--all", action="store_true", help="all scenarios in one document")
    t.add_argument("-o", "--output")
    v = sub.add_parser("verify", help="check iio_readdev output against the truth")
    v.add_argument("--truth", required=True)
    v.add_argument("--scenario", default="standard")
    v.add_argument("--device", required=True)
    v.add_argument("--channels", required=True, help="comma-separated channel ids")
    v.add_argument("--samples", type=int, default=1)
    v.add_argument("--rate", type=float)
    v.add_argument("--max-age", type=float, default=120.0)
    v.add_argument("--raw-tolerance", type=int, default=0)
    v.add_argument("input", nargs="?", default="-")
    sub.add_parser("scenarios", help="list scenarios")
    m = sub.add_parser("materialize", help="write a static snapshot of the tree")
    m.add_argument("--scenario", default="standard", choices=sorted(SCENARIOS))
    m.add_argument("dir")
    args = p.parse_args(argv)
    if args.cmd == "run":
        if args.command and args.command[0] == "--":
            args.command = args.command[1:]
        if not args.command:
            p.error("run: no command given")
    return {"run": cmd_run, "truth": cmd_truth, "verify": cmd_verify,
            "scenarios": cmd_scenarios, "materialize": cmd_materialize}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
