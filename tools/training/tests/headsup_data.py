"""HeadsUp's data layer in Python: session CSV -> 50 Hz grid -> model windows.

A line-by-line port of the Swift data layer (Sources/HeadsUpData: CSV/,
Resampling/, Windowing/), kept only as an independent reading:
test_windows_match_swift.py checks that Swift's windows are what this port,
written from the semantics below, makes of the same files. The tools train
on Swift's own windows (tools/training/dataset.py). numpy only (no
TensorFlow): it runs under the system python3 with Debian's python3-numpy.

Semantics (each mirrors a Swift type named in brackets):

1. Rows `mode,timestamp,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z,mag_x,mag_y,mag_z`
   (label 0 = pocket, 1 = hands; seconds, g, rad/s, uT). Blank lines are
   skipped; one header line of the column names is tolerated at the top.
   [SessionRowParser, SessionCSVReader]
2. Cleaning: a sample is kept only if its time is strictly greater than the
   last *kept* sample's time. [MonotonicFilter]
3. Gap: when t - last_kept > max_gap (0.1 s, strictly greater) a new segment
   starts at that sample. [Resampler]
4. Per segment, a grid aligned to the clock: times exactly k / rate (float64
   division). The first k is the smallest with k/rate >= t_first; grid points
   run while k/rate <= t_last. The first sample gives a grid point only when
   it lies exactly on the grid (value = the sample). Every other grid point g
   lies in (t_a, t_b] for consecutive kept samples a, b:
   value = v_a + (v_b - v_a) * ((g - t_a) / (t_b - t_a)),
   label = label_a if (g - t_a) <= (t_b - g) else label_b.
   [ResamplingConfiguration, Resampler, MotionSample.interpolate]
5. Windows per segment: starts 0, hop, 2 hop, ... while start + length <= n;
   values float64 -> float32. Label over h hands samples of `length`: 1 if
   2h > length, 0 if 2h < length, a tie takes the window's last sample's
   label. "uniform" keeps only windows whose labels all agree. [Windower]
6. Flattening: time-major index t*9 + c, channel-major c*length + t; channel
   order acc xyz, gyro xyz, mag xyz. [MotionWindow.flattened]

Only the units of phone-motion-v1 (seconds, g) are accepted: the Swift reader
can also detect and convert ms/us/ns timestamps and m/s^2 accelerations; this
port refuses such files instead of guessing (see `check_units`).
"""
import math
from dataclasses import dataclass

import numpy as np

from tools.training.dataset import CHANNELS, LABEL_POLICIES, LENGTH, Windows, concat, session_name

COLUMNS = ("mode", "timestamp") + CHANNELS
UNITS = ("g", "g", "g", "rad/s", "rad/s", "rad/s", "uT", "uT", "uT")
RATE = 50
MAX_GAP = 0.1


@dataclass
class Session:
    """One session file's rows in file order (nothing dropped yet)."""
    path: str
    times: np.ndarray    # (n,) float64 seconds
    values: np.ndarray   # (n, 9) float64, CHANNELS order
    labels: np.ndarray   # (n,) int8, 0 pocket / 1 hands

    @property
    def name(self):
        return session_name(self.path)


@dataclass
class Segment:
    """Contiguous 50 Hz grid samples of one segment (no gap inside)."""
    grid_index: np.ndarray   # (n,) int64, k of time k/rate
    times: np.ndarray        # (n,) float64
    values: np.ndarray       # (n, 9) float64
    labels: np.ndarray       # (n,) int8


# ---------------------------------------------------------------------------
# 1. reading
# ---------------------------------------------------------------------------
def _is_number_start(ch):
    return ch.isdigit() or ch in "+-."


def read_session(path, unix_time=True):
    """Parses a session CSV (strict: a malformed row raises ValueError).
    `unix_time=False` accepts seconds from another origin (the carry set's
    seconds since the phone's boot); the units are checked all the same."""
    with open(path, "r", encoding="utf-8", newline="") as f:
        text = f.read()
    lines = [line.rstrip("\r") for line in text.split("\n")]
    rows = []
    saw_data = False
    for number, line in enumerate(lines, start=1):
        if not line.strip(" \t"):
            continue
        fields = [x.strip(" \t") for x in line.split(",")]
        if len(fields) != len(COLUMNS):
            raise ValueError("%s:%d: expected %d columns, found %d" % (path, number, len(COLUMNS), len(fields)))
        if fields[0] and not _is_number_start(fields[0][0]):
            if not saw_data and tuple(x.lower() for x in fields) == COLUMNS:
                saw_data = True
                continue
            raise ValueError("%s:%d: not a data row: %r" % (path, number, line))
        saw_data = True
        rows.append(fields)
    if not rows:
        empty = np.zeros((0,), np.float64)
        return Session(path, empty, np.zeros((0, 9), np.float64), np.zeros((0,), np.int8))
    # str -> float64 through Python's float(): correctly rounded, like strtod.
    try:
        table = np.array(rows, dtype=object).astype(np.float64)
    except ValueError as error:
        raise ValueError("%s: %s" % (path, error))
    if not np.all(np.isfinite(table)):
        raise ValueError("%s: a value is not finite" % path)
    mode = table[:, 0]
    if not np.all((mode == 0) | (mode == 1)):
        raise ValueError("%s: a label is neither 0 nor 1" % path)
    session = Session(path, np.ascontiguousarray(table[:, 1]), np.ascontiguousarray(table[:, 2:]),
                      mode.astype(np.int8))
    check_units(session, unix_time=unix_time)
    return session


def check_units(session, detection_rows=200, unix_time=True):
    """Refuses files the Swift reader would convert (not seconds / not g)."""
    if len(session.times) == 0:
        return
    first = session.times[0]
    if unix_time and not (946_684_800.0 <= first <= 4_102_444_800.0):
        raise ValueError("%s: timestamps do not look like Unix time in seconds" % session.path)
    acc = session.values[:detection_rows, 0:3]
    magnitude = float(np.median(np.sqrt((acc * acc).sum(axis=1))))
    if magnitude > 4.0:
        raise ValueError("%s: accelerations look like m/s^2 (median |a| %.2f); convert to g" % (session.path, magnitude))


# ---------------------------------------------------------------------------
# 2.-4. cleaning, segments, 50 Hz grid
# ---------------------------------------------------------------------------
def kept_mask(times):
    """True for samples whose time is strictly after every earlier kept one.

    The last kept time equals the running maximum of all earlier times (a
    dropped sample never exceeds it), so this is a vectorised MonotonicFilter.
    """
    keep = np.ones(len(times), bool)
    if len(times) > 1:
        running_max = np.maximum.accumulate(times)
        keep[1:] = times[1:] > running_max[:-1]
    return keep


def first_grid_index(t, rate=RATE):
    """Smallest k with k/rate >= t (ResamplingConfiguration.firstGridIndex)."""
    k = int(math.ceil(t * float(rate)))
    while k / float(rate) < t:
        k += 1
    while (k - 1) / float(rate) >= t:
        k -= 1
    return k


def last_grid_index(t, rate=RATE):
    """Largest k with k/rate <= t."""
    k = int(math.floor(t * float(rate)))
    while k / float(rate) > t:
        k -= 1
    while (k + 1) / float(rate) <= t:
        k += 1
    return k


def split_segments(session, max_gap=MAX_GAP):
    """Kept samples, split at gaps: list of (times, values, labels)."""
    keep = kept_mask(session.times)
    t = session.times[keep]
    v = session.values[keep]
    y = session.labels[keep]
    if len(t) == 0:
        return []
    starts = np.flatnonzero(np.diff(t) > max_gap) + 1
    bounds = [0] + starts.tolist() + [len(t)]
    return [(t[a:b], v[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def resample_segment(times, values, labels, rate=RATE):
    """The grid samples of one segment (strictly increasing `times`)."""
    k0 = first_grid_index(times[0], rate)
    k1 = last_grid_index(times[-1], rate)
    if k1 < k0:
        ks = np.zeros((0,), np.int64)
    else:
        ks = np.arange(k0, k1 + 1, dtype=np.int64)
    grid = ks.astype(np.float64) / float(rate)
    out_v = np.empty((len(ks), values.shape[1]), np.float64)
    out_y = np.empty((len(ks),), np.int8)
    start = 0
    if len(ks) and grid[0] == times[0]:
        out_v[0] = values[0]
        out_y[0] = labels[0]
        start = 1
    g = grid[start:]
    # b: first sample with time >= g, so t_a < g <= t_b (times strictly increase)
    b = np.searchsorted(times, g, side="left")
    a = b - 1
    if len(g) and (a.min() < 0 or b.max() >= len(times)):
        raise AssertionError("grid point outside its segment")
    ta, tb = times[a], times[b]
    fraction = (g - ta) / (tb - ta)
    va, vb = values[a], values[b]
    out_v[start:] = va + (vb - va) * fraction[:, None]
    out_y[start:] = np.where((g - ta) <= (tb - g), labels[a], labels[b])
    return Segment(ks, grid, out_v, out_y)


def resample(session, rate=RATE, max_gap=MAX_GAP):
    """All segments of a session on the grid."""
    return [resample_segment(t, v, y, rate) for t, v, y in split_segments(session, max_gap)]


# ---------------------------------------------------------------------------
# 5. windows
# ---------------------------------------------------------------------------
def window_segment(segment, hop, length=LENGTH, label_policy="majority"):
    n = len(segment.times)
    if n < length:
        return None
    starts = np.arange(0, n - length + 1, hop, dtype=np.int64)
    idx = starts[:, None] + np.arange(length)[None, :]
    lab = segment.labels[idx]                       # (N, length)
    hands = lab.astype(np.int64).sum(axis=1)
    label = np.where(2 * hands > length, 1, np.where(2 * hands < length, 0, lab[:, -1])).astype(np.int8)
    uniform = (hands == 0) | (hands == length)
    values = segment.values[idx].astype(np.float32)  # (N, length, 9)
    keep = uniform if label_policy == "uniform" else np.ones(len(starts), bool)
    return Windows(segment.times[starts][keep], label[keep], uniform[keep], values[keep])


def session_windows(session, hop=25, length=LENGTH, label_policy="majority", rate=RATE, max_gap=MAX_GAP):
    """The windows this port makes from a session (what `headsup dataset windows` should print)."""
    if label_policy not in LABEL_POLICIES:
        raise ValueError("label_policy must be majority or uniform")
    if isinstance(session, str):
        session = read_session(session)
    parts = [window_segment(s, hop, length, label_policy) for s in resample(session, rate, max_gap)]
    w = concat(parts)
    w.sessions = [session.name] * len(w)
    return w
