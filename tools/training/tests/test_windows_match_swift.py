"""Python windows == Swift windows, on real sessions.

Runs `headsup dataset windows FILE --hop H --layout L [--label-policy uniform]`
and compares its output with the Python port, tools/training/tests/headsup_data.py: same number of
windows, same start times (as printed, %.6f), labels and uniform flags, and
values equal to 1e-6 (in fact bit-identical float32). Also compares the resampler summary (samples, dropped,
segments, grid samples) the command writes to standard error.

    python3 -m unittest discover -s tools/training/tests -t .
    HEADSUP_BIN=.build-train/debug/headsup python3 -m unittest discover -s tools/training/tests -t .

Environment:
  HEADSUP_BIN            headsup binary (default .build/debug/headsup, relative
                         to the repository root); it must exist.
  HEADSUP_TEST_EXACT     0 to accept differences up to 1e-6 (default: the
                         float32 values must be bit-identical as well).
  HEADSUP_ALLOW_SKIP     1 to skip (not fail) when the binary is missing.
  HEADSUP_TEST_SESSIONS  "all" for all 18 sessions, or comma-separated names;
                         default: a fixed set with gaps, stray rows, and the
                         sparse session.
numpy is the only dependency (Debian: python3-numpy).
"""
import os
import re
import subprocess
import unittest
from pathlib import Path

import numpy as np

from tools.training import dataset
from tools.training.tests import headsup_data as hd

HERE = Path(__file__).resolve().parent
TRAINING = HERE.parent
REPO = TRAINING.parent.parent

DATASET = REPO / "datasets" / "phone-motion-v1"
DEFAULT_SESSIONS = [
    "data_new_20190530_174651_1",  # gaps up to 51.6 s, 46 samples back in time
    "data_sensors_data_18",        # sparse: 3,404 samples over 10 minutes, 13 gaps
    "data_sensors_data_2",         # stray last row of the other label after a 4.7 s gap
    "data_sensors_data_11",        # stray last row
    "data_sensors_data_5",         # stray last row and 7 gaps
    "data_new_20190530_180235_1",  # the hard hands session
]
STRAY = {"data_sensors_data_2", "data_sensors_data_5", "data_sensors_data_7", "data_sensors_data_11"}
CASES = [  # (hop, layout, label policy)
    (25, "time-major", "majority"),
    (25, "channel-major", "majority"),
    (50, "time-major", "majority"),
    (50, "channel-major", "majority"),
    (25, "time-major", "uniform"),
    (50, "channel-major", "uniform"),
]
TOLERANCE = 1e-6
# Bit-identical float32 values (true with Swift 6.3 on x86-64: same float64
# operations in the same order, no fused multiply-add). HEADSUP_TEST_EXACT=0
# relaxes the check to TOLERANCE alone.
EXACT = os.environ.get("HEADSUP_TEST_EXACT", "1") != "0"


def headsup_binary():
    value = os.environ.get("HEADSUP_BIN", ".build/debug/headsup")
    path = Path(value)
    if not path.is_absolute():
        path = REPO / path
    return path


def required_binary():
    """The headsup binary the tests run; without one they fail, or skip
    where HEADSUP_ALLOW_SKIP=1 says a machine may go without."""
    path = headsup_binary()
    if not path.exists():
        message = "no headsup binary at %s: build it (swift build --product headsup) or set HEADSUP_BIN" % path
        if os.environ.get("HEADSUP_ALLOW_SKIP") == "1":
            raise unittest.SkipTest(message)
        raise AssertionError(message)
    return path


def selected_sessions():
    manifest = dataset.load_manifest(str(DATASET))
    names = [s["name"] for s in manifest["sessions"]]
    wanted = os.environ.get("HEADSUP_TEST_SESSIONS", "")
    if wanted == "all":
        return names
    chosen = [x.strip() for x in wanted.split(",") if x.strip()] or DEFAULT_SESSIONS
    unknown = [x for x in chosen if x not in names]
    if unknown:
        raise ValueError("unknown sessions: %s" % unknown)
    return chosen


def swift_windows(binary, path, hop, layout, policy):
    command = [str(binary), "dataset", "windows", str(path), "--hop", str(hop), "--layout", layout]
    if policy == "uniform":
        command += ["--label-policy", "uniform"]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    lines = [line for line in done.stdout.decode().split("\n") if line]
    starts, labels, uniform, values = [], [], [], []
    for line in lines:
        fields = line.split(",")
        starts.append(fields[0])
        labels.append(int(fields[1]))
        uniform.append(int(fields[2]))
        values.append(np.array(fields[3:], dtype=np.float64))
    values = np.stack(values) if values else np.zeros((0, 450))
    return starts, np.array(labels, np.int64), np.array(uniform, np.int64), values, done.stderr.decode()


class WindowsMatchSwift(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = required_binary()
        cls.sessions = selected_sessions()

    def test_sessions(self):
        compared = 0
        for name in self.sessions:
            path = DATASET / "sessions" / (name + ".csv")
            session = hd.read_session(str(path))
            for hop, layout, policy in CASES:
                with self.subTest(session=name, hop=hop, layout=layout, policy=policy):
                    starts, labels, uniform, values, summary = swift_windows(self.binary, path, hop, layout, policy)
                    ours = hd.session_windows(session, hop=hop, label_policy=policy)
                    self.assertGreater(len(ours), 0)
                    self.assertEqual(len(ours), len(starts), "window count")
                    self.assertEqual(["%.6f" % t for t in ours.start_times], starts, "start times")
                    np.testing.assert_array_equal(ours.labels.astype(np.int64), labels, "labels")
                    np.testing.assert_array_equal(ours.uniform.astype(np.int64), uniform, "uniform flags")
                    flat = ours.flattened(layout)
                    self.assertEqual(flat.shape, values.shape)
                    # %.9g round-trips a float32 exactly: compare as float32
                    swift32 = values.astype(np.float32)
                    worst = float(np.max(np.abs(flat.astype(np.float64) - swift32))) if flat.size else 0.0
                    self.assertLessEqual(worst, TOLERANCE, "max |python - swift| = %g" % worst)
                    if EXACT:
                        self.assertEqual(int((flat != swift32).sum()), 0, "values not bit-identical")
                    self.check_summary(session, summary)
                    if name in STRAY:
                        # the stray row is cut off by its gap: no window mixes labels
                        self.assertTrue(np.all(uniform == 1))
                        self.assertEqual(set(labels.tolist()), {int(np.bincount(session.labels).argmax())})
                    compared += len(starts)
        self.assertGreater(compared, 0)

    def check_summary(self, session, summary):
        m = re.search(r"(\d+) samples, (\d+) dropped going back in time, (\d+) segments, (\d+) at 50 Hz", summary)
        self.assertIsNotNone(m, summary)
        samples, dropped, segments, grid = map(int, m.groups())
        keep = hd.kept_mask(session.times)
        parts = hd.resample(session)
        self.assertEqual(samples, len(session.times))
        self.assertEqual(dropped, int((~keep).sum()))
        self.assertEqual(segments, len(parts))
        self.assertEqual(grid, sum(len(p.times) for p in parts))


class GridRules(unittest.TestCase):
    """The grid and window rules on tiny hand-made sessions (no binary needed)."""

    def make(self, times, labels=None):
        times = np.asarray(times, np.float64)
        values = np.stack([times * (c + 1) for c in range(9)], axis=1)
        labels = np.zeros(len(times), np.int8) if labels is None else np.asarray(labels, np.int8)
        return hd.Session("x.csv", times, values, labels)

    def test_first_grid_index(self):
        for t in [1559704746.58, 0.02, 0.0, 1.0 / 3, 1559326763.746724, -0.01]:
            k = hd.first_grid_index(t)
            self.assertGreaterEqual(k / 50.0, t)
            self.assertLess((k - 1) / 50.0, t)

    def test_backwards_and_equal_times_dropped(self):
        s = self.make([10.0, 10.01, 10.005, 10.01, 10.02, 10.015, 10.03])
        self.assertEqual(hd.kept_mask(s.times).tolist(), [True, True, False, False, True, False, True])

    def test_gap_strictly_greater(self):
        # 0.25 -> 0.375 is 0.125 s (> 0.1): a new segment; binary-exact times
        s = self.make([0.0, 0.125, 0.25, 0.375, 0.4375])
        self.assertEqual([len(t) for t, _, _ in hd.split_segments(s)], [1, 1, 1, 2])
        s = self.make([0.0, 0.0625, 0.125])
        self.assertEqual([len(t) for t, _, _ in hd.split_segments(s)], [3])

    def test_grid_values_and_labels(self):
        s = self.make([0.02, 0.03, 0.05, 0.07], labels=[0, 0, 1, 1])
        seg = hd.resample(s)[0]
        self.assertEqual(seg.grid_index.tolist(), [1, 2, 3])
        np.testing.assert_allclose(seg.values[:, 0], [0.02, 0.04, 0.06])
        # 0.04 is equidistant from 0.03 and 0.05 up to rounding: nearer wins
        self.assertEqual(seg.labels.tolist()[0], 0)

    def test_window_tie_takes_last_label(self):
        times = np.arange(0, 60) / 50.0
        labels = np.r_[np.zeros(25), np.ones(35)].astype(np.int8)
        w = hd.session_windows(self.make(times, labels), hop=10)
        self.assertEqual(w.labels.tolist(), [1, 1])  # h = 25 (tie, last is 1), then h = 35
        self.assertEqual(w.uniform.tolist(), [False, False])
        w = hd.session_windows(self.make(times, labels[::-1]), hop=10)
        self.assertEqual(w.labels.tolist(), [1, 0])  # h = 35, then a tie whose last label is 0
        self.assertEqual(len(hd.session_windows(self.make(times, labels), hop=10, label_policy="uniform")), 0)


if __name__ == "__main__":
    unittest.main()
